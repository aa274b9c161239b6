"""Annotated records of finished games: who may publish one, checking it, keeping it.

A player of a finished game, or an address the server has as that game's annotator
(`pbem admin annotator`), mails `annotate 12` with a record holding comments, glyphs
and variations (notation/README.md). It is published only if its main line is exactly
the game, move for move, and every variation is legal where it stands. A running game
is never annotated: its hidden cards and choices are in no record until it ends, and a
cancelled game keeps them for good. An annotation is refused past its limits (LIMITS: its
size, the moves in all its variations, how deep they nest), each named in the refusal,
so that checking one, and showing it, costs about what a plain record does. Several annotations of one game are kept, each with
its author; the author's display name is read from the player at display time, so a
rename (or `pbem admin forget`) reaches every page.
"""

from __future__ import annotations

from notation.record import (MAX_DEPTH, Record, RecordSyntaxError, RecordTooLarge,
                             format_record, parse_record, parse_records)
from pbem.engines.game import Game as GameRecord
from pbem.engines.game import RecordError
from pbem.play import Table
from pbem.store import Address, Player
from pbem.store.models import Annotation, Annotator

MAX_ANNOTATION = 200_000  # characters: a long game with many variations fits in a tenth
# Moves in all the variations of one annotation: each is replayed to check it (~20 µs
# for Onyx), and each is a link on its page, so this bounds both: at the limit, checking
# costs about 2.5 times a plain annotation of a 60-ply game (bench/annotations.py); a
# thorough annotation of a long game has a few hundred. Variations nest at most
# notation.record.MAX_DEPTH deep.
MAX_VARIATION_MOVES = 400
LIMITS = (f"at most {MAX_ANNOTATION:,} characters, {MAX_VARIATION_MOVES:,} moves in all "
          f"variations, variations nested {MAX_DEPTH} deep")


class NotPublished(ValueError):
    """Why an annotation is not published, in words for its author."""


class PastLimits(ValueError):
    """An annotation published before the limits, which goes past them: not shown."""


def may_annotate(table: Table, player: Player) -> bool:
    """A player of the game, or an annotator address (the player's own or a confirmed
    second address of theirs)."""
    if any(seat.player.id == player.id for seat in table.seats):
        return True
    addresses = [player.email] + [a.email for a in Address.select(Address.email).where(
        (Address.player == player) & Address.confirmed)]
    return Annotator.select().where((Annotator.game == table.game.id)
                                    & Annotator.email.in_(addresses)).exists()


def checked_record(table: Table, text: str) -> Record:
    """The annotated record, with the game's own tags, once it is the game's; raises
    NotPublished naming what differs."""
    game = table.game
    if game.status != "finished":
        raise NotPublished(
            f"game #{game.id} is {game.status}; a game is annotated once it has ended"
            + (", so that nothing hidden is shown while it runs." if game.status != "cancelled"
               else ", and a cancelled game keeps its secrets."))
    if len(text) > MAX_ANNOTATION:
        raise NotPublished(f"the record is {len(text):,} characters; at most "
                           f"{MAX_ANNOTATION:,}.")
    try:
        records = parse_records(text, MAX_VARIATION_MOVES)
    except RecordTooLarge as error:
        raise NotPublished(f"{error} (an annotation holds {LIMITS}).") from None
    except RecordSyntaxError as error:
        raise NotPublished(f"the record cannot be read: {error}") from None
    if len(records) != 1:
        raise NotPublished(f"the mail holds {len(records)} records; send one per `annotate`.")
    record = records[0]
    official = table.record()
    try:
        annotated = GameRecord.from_record(_with_tags(record, official))
    except RecordError as error:
        raise NotPublished(f"{error} (every move, in the game and in its variations, must "
                           f"be legal where it stands)") from None
    _same_moves(table, [(ply.seat, ply.text) for ply in annotated.plies])
    return _with_tags(record, official)


def _with_tags(record: Record, official: Record) -> Record:
    """The game's own tags (players, options, seed, result), then the annotator's others
    (Annotator, Event, …) as written; the result is the game's."""
    own = {name for name, _ in official.tags}
    tags = list(official.tags) + [(n, v) for n, v in record.tags if n not in own]
    return Record(tags, record.moves, official.result, record.comments,
                  numbered=official.numbered)


def _same_moves(table: Table, moves: list[tuple[int, str]]) -> None:
    game_moves = [(ply.seat, ply.text) for ply in table.record_game().plies]
    for number, (mine, theirs) in enumerate(zip(moves, game_moves), start=1):
        if mine != theirs:
            raise NotPublished(f"ply {number} of your record is {mine[1]!r}, but the game's "
                               f"is {theirs[1]!r}: the main line must be the game, move for "
                               f"move; alternatives go in variations ( ... ).")
    if len(moves) != len(game_moves):
        raise NotPublished(f"your record's main line has {len(moves)} plies, the game "
                           f"{len(game_moves)}: the main line must be the whole game.")


def publish(table: Table, author: Player, text: str) -> Annotation:
    """Check and keep an annotation; raises NotPublished."""
    if not may_annotate(table, author):
        raise NotPublished(f"only the players of game #{table.game.id}, and annotators the "
                           f"server names, may annotate it.")
    record = checked_record(table, text)
    return Annotation.create(game=table.game, author=author, text=format_record(record))


def annotations_of(game_id: int) -> list[Annotation]:
    """The game's annotations, oldest first (number 1 is the first published)."""
    return list(Annotation.select(Annotation, Player).join(Player)
                .where(Annotation.game == game_id).order_by(Annotation.id))


def published_record(annotation: Annotation) -> Record:
    """The annotation's record, as its page and exports show it; raises PastLimits for
    one published before the limits that goes past them (its size is looked at before
    a word is read, and reading stops at the limit on moves), so that no record a page
    reads costs more than one within the limits."""
    number = f"this annotation of game #{annotation.game_id}"
    if len(annotation.text) > MAX_ANNOTATION:
        raise PastLimits(f"{number} was published before pbem limited annotations ({LIMITS}),"
                         f" and at {len(annotation.text):,} characters it goes past them; it "
                         f"is not shown.")
    try:
        return parse_record(annotation.text, MAX_VARIATION_MOVES)
    except RecordSyntaxError as error:
        raise PastLimits(f"{number} was published before pbem limited annotations ({LIMITS}),"
                         f" and it goes past them ({error}); it is not shown.") from None


def annotated_text(annotation: Annotation) -> str:
    """The published record, naming its author in an `Annotator` tag unless it has one;
    raises PastLimits as published_record does."""
    record = published_record(annotation)
    if record.tag("Annotator") is None:
        result = record.tags.pop() if record.tags and record.tags[-1][0] == "Result" else None
        record.tags.append(("Annotator", annotation.author.name))
        if result is not None:
            record.tags.append(result)
    return format_record(record)
