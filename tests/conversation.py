"""Reading a player's game mails as a person would: the news lines of each, in order.

A game mail's news sits under "Since your last mail:", one line a turn:
`#12 bob: play 23`, `#12-14 bob: take; draw; end`, `#7 bob chose in secret.`,
`Round 2 revealed: …`, `bob says: …`. `mentions` counts, for each ply, how many of a
player's mails name it, so a test can check that every move a player may see reaches
them exactly once, whatever their mail setting. While the game runs, mail numbers a ply
as everyone may know it (`Move.shown`: answers nobody may learn of are not counted); the
mail that ends the game, by its place in the record (`Move.ply`).
"""

from __future__ import annotations

import re
from collections import Counter

from mailtest import body
from pbem.engines.base import CHANCE
from pbem.store import Move

TURN = re.compile(r"^#(\d+)(?:-(\d+))? (.+?)(?:: (.*)| chose in secret\.)$")


def news_lines(message) -> list[str]:
    text = body(message).replace("\r\n", "\n")
    if "Since your last mail:\n" not in text:
        return []
    section = text.split("Since your last mail:\n", 1)[1].split("\n\n", 1)[0]
    return [line.strip() for line in section.splitlines()]


def mentions(mails) -> Counter:
    """How many times each ply is named in these mails' news, by (numbering, number,
    who, text): numbering "shown" in mails of the running game, "ply" after its end."""
    seen: Counter = Counter()
    for message in mails:
        numbering = "ply" if "Game over: " in body(message) else "shown"
        for line in news_lines(message):
            found = TURN.match(line)
            if not found:
                continue
            first, last = int(found.group(1)), int(found.group(2) or found.group(1))
            # the reader's own seat, named in another's move, is marked "(you)" (#42)
            said = (found.group(4) or "").replace(" (you)", "")
            texts = said.split("; ") if said else []
            for offset, ply in enumerate(range(first, last + 1)):
                text = texts[offset] if offset < len(texts) else None
                seen[(numbering, ply, found.group(3), text)] += 1
    return seen


def check_told_once(game_id: int, seat: int, name_of, mails) -> int:
    """Every move of another player that `seat` may see is named exactly once in its
    mails, with its text; a move it may not see never with its text. Returns how many
    visible moves were checked."""
    seen = mentions(mails)
    checked = 0
    for move in Move.select().where((Move.game == game_id) & (Move.seat != CHANCE)):
        if move.seat == seat:
            continue
        text = move.visible.get(str(seat))
        who = name_of(move.seat)
        if text is None or move.anonymous:
            for key in (("shown", move.shown, who, move.text), ("ply", move.ply, who, move.text)):
                assert key not in seen or text == move.text
            continue
        told = seen[("shown", move.shown, who, text)] + seen[("ply", move.ply, who, text)]
        assert told == 1, (
            f"#{move.ply} (#{move.shown} while running) {who}: {text} was told {told} times: "
            + repr([k for k in seen if k[1] in (move.ply, move.shown)]))
        checked += 1
    return checked
