"""Queued choices: a 6 nimmt! player's cards for the rounds to come, played the moment
each round asks, so a round needs no mail of theirs (issue #32 item 4).

    next 23 45                  23 in the next round that asks me, 45 in the round after
    next 23 row 2 low, 45       … a card may carry the preference a `play` may (commas)
    next                        the cards queued
    next off                    forget them

Each round that asks the player for a card takes the queue's first: the round waiting
for their card when the mail has run, if one is, else the next. The moment a round asks
(`play_queued`, run after every write that plays moves: a mail's, a page's, a bot's or
a timeout's, as `if` lines are), its card is played through `Table.play` like any
`play` (source `conditional`): secret until the reveal and replaceable until then, so a
`play` sent in the meantime is the player choosing otherwise, and the queue goes on with
the next round. A queued card no longer in the hand when its round asks (played
meanwhile) is dropped, and that round waits for the player as if nothing was queued:
their mail that asks for the card says so. A `next` with cards replaces the queue.

The queue is a secret until its cards are played: it is kept in the conditional moves'
table (pbem.store.models.Condition, one row per game and seat), read by nobody but this
module and pbem.commands.conditions, makes no ply, and nothing of it reaches anyone
else's mail or page. The engine says which round a seat chooses for next and what a
queued card plays (`next_choice`, `queued_move`: pbem.engines.correspondence).
"""

from __future__ import annotations

from pbem import access
from pbem.commands.speaker import Refused, Speaker
from pbem.engines.base import MoveError
from pbem.play import CONDITIONAL, Table
from pbem.policy.conversation import Notice
from pbem.store.models import Condition

MAX_PLAYED = 400  # queued cards played in one transaction, every seat together


# -- the command ---------------------------------------------------------------------------

def queue(speaker: Speaker, table: Table, seat: int, rest: str) -> list[str]:
    """`next 23 45` queues cards for the rounds to come; `next` lists them, `next off`
    forgets them."""
    engine = table.engine
    if not engine.queued_choices:
        raise Refused(f"{engine.title} has no rounds to queue cards for: "
                      + ("answer moves in advance with `if`, e.g. `if E5 F6`."
                         if engine.conditional_moves else "each decision is asked for "
                                                          "as it comes."))
    words = rest.strip()
    row = _row(table, seat)
    if words.lower() in ("off", "clear", "none"):
        if row is not None:
            row.delete_instance()
        return ["Your queued cards in this game are cleared."]
    if not words:
        return [listing(row.lines if row is not None else None)]
    if table.game.status != "running":
        raise Refused(f"game #{table.game.id} is {table.game.status}: no cards to queue.")
    coming = engine.next_choice(table.state, seat)
    if coming is None:
        raise Refused("you have no more cards to choose in this game.")
    moves = []
    for text in (part.strip() for part in (words.split(",") if "," in words
                                           else words.split())):
        if not text:
            continue
        try:
            move = engine.queued_move(table.state, seat, text)
        except MoveError as error:
            raise Refused(f"`next {words}`: {error}") from None  # its quotes kept whole
        if any(_card(move) == _card(kept) for kept in moves):
            raise Refused(f"`next {words}` names {_card(move)} twice: one card a round.")
        moves.append(move)
    replaced = " (your earlier queue is replaced)" if row is not None else ""
    # The game the cards were dealt in: a match's next deal may hand out the same numbers.
    queued = {"game": coming[0][:-1], "asked": None, "moves": moves}
    if row is None:
        Condition.create(game=table.game, seat=seat, lines=queued)
    else:
        row.lines = queued
        row.save()
    return [f"Queued{replaced}: {_order(moves, now=coming[1])}."]


def kept(table: Table, seat: int) -> list[str]:
    """The moves the seat has queued in this game, in order, for its own page only
    (pbem.web.advance)."""
    row = _row(table, seat)
    return list(row.lines["moves"]) if row is not None else []


def listing(queued: dict | None) -> str:
    """The queue in words, for `next` and `conditions`."""
    if not queued or not queued["moves"]:
        return ("You have no queued cards in this game. Write e.g. `next 23 45`: 23 is "
                "played for you the moment the next round asks for your card, 45 in the "
                "round after.")
    return f"Your queued cards in this game, one a round: {_order(queued['moves'])}."


def _order(moves: list[str], now: bool = False) -> str:
    """`play 23 for the next round that asks for your card, then play 45`."""
    first = ("for this round, which waits for your card: it is played at once" if now
             else "for the next round that asks for your card")
    return f"{moves[0]} {first}" + "".join(f", then {move}" for move in moves[1:])


def _row(table: Table, seat: int) -> Condition | None:
    return Condition.get_or_none((Condition.game == table.game) & (Condition.seat == seat))


def _card(move: str) -> str:
    return move.split()[1]


# -- what the game does by itself after a write --------------------------------------------

def play_queued(table: Table) -> int:
    """Play the queued card of every seat whose new round asks for it now, in this
    transaction; returns how many. A card no longer held is dropped, with a word to
    that seat alone, and the round waits for its card."""
    if not table.engine.queued_choices or table.game.status != "running":
        return 0
    rows = {row.seat: row for row in Condition.select().where(Condition.game == table.game)
            if not access.barred(table.seats[row.seat].player)}  # a barred player's wait
    played, progress = 0, True
    while rows and progress and played < MAX_PLAYED:
        progress = False
        for seat in sorted(rows):
            if table.game.status != "running":
                return played
            row = rows[seat]
            if _ask(table, row):
                played, progress = played + 1, True
            if not row.lines["moves"]:
                row.delete_instance()
                del rows[seat]
    return played


def _ask(table: Table, row: Condition) -> bool:
    """The queue's first card, if a round began to ask `row`'s seat for a card since the
    queue last gave one: played, or dropped when no longer held. True if played."""
    coming = table.engine.next_choice(table.state, row.seat)
    queued = dict(row.lines)
    if coming is None or not coming[1] or coming[0] == queued["asked"]:
        return False  # no round asks, or this one had its card from the queue
    key = coming[0]
    moves, gone, played = list(queued["moves"]), [], False
    earlier_game = key[:-1] != queued["game"]
    if earlier_game:
        gone, moves = moves, []  # dealt in a game of the match that is over
    else:
        move = moves.pop(0)
        try:
            table.play(row.seat, move, source=CONDITIONAL)
            played = True
        except MoveError:
            gone = [move]  # played meanwhile: the round waits for another
    row.lines = {**queued, "asked": key, "moves": moves}
    row.save()
    if gone:
        _tell(table, row.seat, gone, moves, earlier_game)
    return played


def _tell(table: Table, seat: int, gone: list[str], left: list[str],
          earlier_game: bool) -> None:
    """A word in the mail that asks the seat for its card, which goes now."""
    cards = ", ".join(_card(move) for move in gone)
    if earlier_game:
        words = (f"Your queued {'cards' if len(gone) > 1 else 'card'} {cards} "
                 f"{'were' if len(gone) > 1 else 'was'} dealt in an earlier game of the "
                 f"match, so the queue is dropped and this round waits for your card.")
    else:
        words = (f"Your queued card {cards} is no longer in your hand, so it is dropped "
                 f"and this round waits for your card.")
    if left:
        words += f" Still queued: {', then '.join(left)}."
    # Urgent: the round waits for a card its player thought was on its way, so the word
    # goes now whatever their mail setting (a digest too); it is theirs alone.
    table.notices.append(Notice(lambda viewer: words if viewer == seat else None,
                                urgent=True))
