"""`annotate 12`: publish an annotated record of a finished game, sent in the mail below
the command or attached as a text file. pbem.annotations checks and keeps it; this
module finds the record in the mail and answers its author.
"""

from __future__ import annotations

import re

from notation.text import clean_text
from pbem.annotations import NotPublished, annotations_of, publish
from pbem.commands.speaker import Refused, Speaker
from pbem.play import Table
from pbem.store import Game

_TAG_LINE = re.compile(r'^\s*\[[A-Za-z0-9_]+\s+"', re.M)
_SIGNATURE = re.compile(r"^-- ?$", re.M)


def annotate(speaker: Speaker, rest: str) -> list[str]:
    number = rest.strip().lstrip("#")
    if not number.isdigit():
        raise Refused("write the game's number after `annotate`, e.g. `annotate 12`, and "
                      "the annotated record below it (or attached).")
    game = Game.get_or_none(Game.id == int(number))
    if game is None:
        raise Refused(f"there is no game #{number}.")
    text = record_in(speaker.mail)
    if text is None:
        raise Refused(f"no record found: put the annotated record of game #{number} below "
                      f"the `annotate` line, from its first tag ([Game \"…\"]) to its "
                      f"result, or attach it as a .txt file.")
    table = Table.load(game.id, lock=False)
    try:
        publish(table, speaker.player, text)
    except NotPublished as error:
        raise Refused(f"the annotation of game #{number} is not published: {error}") from None
    number_of = len(annotations_of(game.id))
    base = speaker.config.web_url.rstrip("/")
    return [f"Your annotation of game #{game.id} is published as annotation "
            f"{number_of}: {base}/games/{game.id}/annotated/{number_of}"]


def annotate_in_game(speaker: Speaker, table: Table, seat: int, rest: str) -> list[str]:
    """`annotate` in a game's reply: that game, unless the line names another."""
    return annotate(speaker, rest or str(table.game.id))


def record_in(mail) -> str | None:
    """The record of a mail: an attached text file with tags, else the body from its
    first tag line, without quoted lines and the signature; without control characters
    either way (notation.text)."""
    if mail is None:
        return None
    for attached in mail.text_attachments():
        if _TAG_LINE.search(attached):
            return clean_text(attached)
    body = clean_text(mail.body_text())
    start = _TAG_LINE.search(body)
    if start is None:
        return None
    text = body[start.start():].lstrip()  # from the tag line: errors count lines from it
    text = _SIGNATURE.split(text, maxsplit=1)[0]
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith(">"))
