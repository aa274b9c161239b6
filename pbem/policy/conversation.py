"""The conversation policy: who is mailed what, and when. The one place that decides.

Every write transaction (a player's mail, the CLI, a deadline, a vacation) ends by
calling `after_write`, fed by what `pbem.play`'s table says happened in it: the plies
(`Table.happenings`), a start or an end, comments and notices. It decides which seats
get a mail; `pbem.mail.letters` only composes it and puts it in the outbox.

Each seat has a cursor in the move log (`Seat.told`, the ply it has been told up to;
`Seat.heard`, the last comment). Every game mail to a seat carries everything that seat
may see since its cursor — every player's turns, grouped by turn and named — then the
position and what the game waits for, and moves the cursor on. So nothing visible is
ever skipped and nothing is told twice, whatever the setting; the settings only decide
how often a mail goes out:

- `normal` (the default): when the game starts waiting for the seat (its turn, a new
  round's secret choice, a row question, a reaction window it is asked in, a discard),
  when the game starts or ends, when another player `say`s something, and as the answer
  to the seat's own mail when it needs one (something failed or is held, a command such
  as `history` answered). Others' moves arrive as news in the next mail, and so does
  the confirmation of a move that simply went in ("#12 You: F6").
- half a turn, in every setting: when the seat's own mail was carried out and the game
  still waits for it in the same wait (the rest of an Onix turn, Gem Forge's second
  action or the tile to pick), the answer goes at once with the prompt of now.
- `loud`: also after every move of the others that the seat can see, and an answer to
  every mail of its own at once.
- `quiet`: only when the game waits for the seat, at the start and end, and answers;
  comments wait for the next mail as news.
- the daily digest (`digest on`, the player's): the news of others' moves and new turns
  wait for the digest (pbem.policy.digest), unless the turn is due within a day.

Undo requests and their outcome are asked of everyone, whatever the setting: the game
cannot go on until they answer.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Callable

from pbem import clock
from pbem.engines.base import CHANCE
from pbem.export.public import as_public, shown_moves
from pbem.mail import letters
from pbem.vocabulary import words
from pbem.play import CONDITIONAL, Table, actor_name
from pbem.policy.letters import reachable
from pbem.policy.report import Report
from pbem.store import Comment, Move, Player, Seat
from pbem.store.models import Follow
from pbem.store.prepared import Prepared
from pbem.timekeeping import display
from pbem.bookkeeping import ledger

SETTINGS = ("loud", "normal", "quiet")


@dataclass
class Notice:
    """Words for some seats in this transaction's mail: `text_for(seat)` words them for
    each (None: not for that seat). An `urgent` notice is mailed whatever the setting (the
    game needs an answer: an undo request); others ride along with the mails that go."""
    text_for: Callable[[int], str | None]
    urgent: bool = False


def after_write(config, table: Table, answers: dict[int, Report] | None = None,
                in_reply_to: str | None = None) -> None:
    """Mail every seat that should hear of this transaction, each once."""
    answers = answers or {}
    for seat in table.seats:
        number = seat.number
        reason = why_mail(table, number, answers)
        if reason is None:
            continue
        report = answers.get(number)
        notes = list(report.notes) if report is not None else []
        notes += [text for text in (n.text_for(number) for n in table.notices) if text]
        send(config, table, number, report=report or None, notes=notes,
             in_reply_to=in_reply_to if number in answers else None)
    tell_followers(config, table)


def why_mail(table: Table, seat: int, answers: dict[int, Report]) -> str | None:
    """Why `seat` gets a mail after this transaction, in a word, or None."""
    if seat in answers and (answers[seat].needs_answer() or table.seats[seat].mail == "loud"):
        return "answer"
    if seat in answers and rest_of_turn(table, seat):
        return "rest"
    if table.game.status != table.status_before:
        return "start" if table.game.status == "running" else "end"
    if any(n.urgent and n.text_for(seat) for n in table.notices):
        return "asked"
    row = table.seats[seat]
    setting = row.mail
    digest = row.player.digest
    if wait_began(table, seat):
        if not digest or due_within_a_day(table, seat):
            return "turn"
    if digest:
        return "comment" if said_by_another(table, seat) else None
    if setting == "loud" and any(h.seat != seat and (h.seen_by(seat) or h.reveals)
                                 and not (h.anonymous and h.seat != seat)
                                 for h in table.happenings):
        return "loud"
    if setting != "quiet" and said_by_another(table, seat):
        return "comment"
    return None


def rest_of_turn(table: Table, seat: int) -> bool:
    """Whether the writer's own decisions went in and the game still waits for them, in
    the same wait (the rest of an Onix turn, Gem Forge's second action or the tile to
    pick after cashing, a discard): their only prompt is out of date, so they hear at
    once, whatever the setting, what was done and what is asked now. It is the mail of
    that wait: the cursor moves, so nothing in it is told again."""
    return (seat in table.to_act and seat in table.waiting_before
            and any(h.seat == seat for h in table.happenings))


def wait_began(table: Table, seat: int) -> bool:
    """Whether the game has begun, in this transaction, to wait for `seat`: it waits now,
    and did not when the transaction began or stopped waiting somewhere in between (a
    reaction window that closed, a new round of secret choices)."""
    if seat not in table.to_act:
        return False
    if seat not in table.waiting_before:
        return True
    if any(seat not in h.waiting_after for h in table.happenings):
        return True
    # Its own decision ended its wait and a new one began (the last choice of a 6 nimmt!
    # round, the last answer of a window before its own turn): the clocks' rule.
    return seat in ledger.ended_waits(table.happenings, table.to_act)


def waits_in_log(engine, start, moves, seat: int) -> int:
    """How many times a finished game began to wait for `seat`, read ply by ply from its
    move log (rows with `seat`, `text`, `state` and `visible`, from the start state on):
    `wait_began`'s rule one ply at a time. The benchmark and the tests weigh the mails a
    seat got against it; a write of several plies may begin fewer waits. A decision of
    its own after which the game still waits for it counts too: the rest of its turn is
    answered at once (`rest_of_turn`) when it sends one decision a mail."""
    count, state = int(seat in engine.to_act(start)), start
    for move in moves:
        before, after_state = engine.to_act(state), engine.from_json(move.state)
        after = engine.to_act(after_state)
        if seat in after and (seat not in before or move.seat == seat):
            count += 1  # a new wait, or the rest of its turn (or a new wait after its own)
        state = after_state
    return count


def due_within_a_day(table: Table, seat: int) -> bool:
    """A turn due within a day (a reaction window, a short time control): a digest
    would bring it too late."""
    deadline = next((w.deadline for w in ledger.waiting_on(table.game.id) if w.seat == seat),
                    None)
    return deadline is not None and deadline - clock.now() < dt.timedelta(days=1)


def said_by_another(table: Table, seat: int) -> bool:
    return any(speaker != seat for speaker in table.said)


def send(config, table: Table, seat: int, report: Report | None = None,
         notes: list[str] | tuple = (), in_reply_to: str | None = None) -> None:
    """The game mail for `seat`, with its news since its cursor; moves the cursor on.
    A bot's seat is never mailed (pbem.bot_turns moves for it)."""
    if not reachable(table.seats[seat].player.email):  # news waits at its cursor
        return
    lines = news(table, seat)
    clock_text = display.clock_line(table, seat)
    letters.send_game_mail(config, table, seat, news=lines, clock=clock_text, report=report,
                           notes=list(notes) + end_notes(table, seat),
                           in_reply_to=in_reply_to,
                           picture=table.seats[seat].player.pictures)


def tell(config, table: Table, seat: int, notes: list[str]) -> None:
    """A mail to one seat that it asked for or is due (a reminder, `remind`, `board`)."""
    send(config, table, seat, notes=notes)


def end_notes(table: Table, seat: int) -> list[str]:
    """At the start and at the end, what everyone is told: the dealer's commitment; who
    won, from this seat's side."""
    game = table.game
    notes = []
    if game.status != table.status_before and game.status == "running":
        notes.append(words.started_note(table))
    if game.status == "finished" and game.status != table.status_before:
        notes.append(your_result(table, seat))
    return notes


def your_result(table: Table, seat: int) -> str:
    """'You won.', 'You lost: bob won.', 'You share the win with carol.'"""
    shares = table.shares()
    if shares is None:
        return ""
    names = table.names
    winners = [s for s, share in enumerate(shares) if share > 0]
    others = [names[s] for s in winners if s != seat]
    if seat not in winners:
        won = " and ".join(others)
        return f"You lost: {won} {'won' if len(others) == 1 else 'shared the win'}."
    if not others:
        return "You won."
    return f"You share the win with {' and '.join(others)}."


# -- spectators ----------------------------------------------------------------------

def turn_ended(table: Table) -> bool:
    """Whether this write ended a turn the public may see: the start or the end; where
    the engine counts public turns (`public_turn`), a change of it (Gem Forge: a
    player's whole turn, windows and all; 6 nimmt!: a whole round, after its reveal and
    row questions, never a secret choice); elsewhere a ply that is not anonymous after
    which its maker's wait was over (Onyx: every move; Onix: a turn's last decision).
    A decision nobody may learn of brings nothing (RULINGS G39)."""
    if table.game.status != table.status_before:
        return True
    engine = table.engine
    if table.state_before is not None and engine.public_turn(table.state) is not None:
        return engine.public_turn(table.state) != engine.public_turn(table.state_before)
    return any(not h.anonymous and h.seat != CHANCE and h.seat not in h.waiting_after
               for h in table.happenings)


def tell_followers(config, table: Table) -> None:
    """Spectators (`follow N`) get the public view once per turn, with every public ply
    and every comment (`say`, public as on the game's page) since their last mail; each
    has cursors of its own (Follow.told, Follow.heard), as a seat has."""
    if not turn_ended(table):
        return
    followers = _FOLLOWERS.rows(table.game.id)
    if not followers:
        return
    shown = as_public(table.game)
    over = table.game.status == "finished"
    for follow in followers:
        if not reachable(follow.player.email):
            continue  # its cursor waits, as a player's does
        # Every public ply since the follower's last mail (`told`: the move log's ply),
        # numbered as everyone numbers them; once it is over, everything, in full.
        rows = list(shown_moves(shown, Move.ply, Move.shown, Move.seat, Move.text,
                                Move.visible, Move.anonymous, Move.revealed)
                    .where(Move.ply > follow.told))
        plies = [Told(m.ply, m.seat, m.text if over else m.visible.get("public"),
                      m.anonymous, m.revealed, m.shown) for m in rows]
        comments = _comments_since(table, follow.heard)
        letters.send_follower_mail(config, table, shown, follow.player,
                                  _lines(table, None, plies, comments),
                                  picture=follow.player.pictures)
        if rows or comments:
            Follow.update(told=rows[-1].ply if rows else follow.told,
                          heard=comments[-1].id if comments else follow.heard
                          ).where(Follow.id == follow.id).execute()


# -- the news since a seat's cursor ---------------------------------------------------

@dataclass
class Told:
    """One ply as a seat may read it: who, and what (None: a secret to this seat)."""
    ply: int
    seat: int
    text: str | None
    anonymous: bool
    revealed: str | None = None
    shown: int = 0  # its number as everyone may know it while the game runs (Move.shown)
    source: str = ""  # Move.source: CONDITIONAL when played from the seat's lines or queue


def numbered(told: Told, viewer: int, over: bool) -> str | None:
    """`#12`: the ply's number as `viewer` may read it. While the game runs that is its
    number among the plies everyone may know of, the same on the pages: an answer
    nobody may learn of is counted by nobody (RULINGS G39). Its maker reads their own
    without a number (None)."""
    if over:
        return f"#{told.ply}"
    if told.anonymous:
        return None
    return f"#{told.shown}"


def news(table: Table, seat: int, advance: bool = True) -> list[str]:
    """Every turn and comment `seat` may see since its cursor, grouped by turn; the
    cursor moves to now, unless only looked at (`advance=False`: a seat's page)."""
    row = table.seats[seat]
    plies = table.game.plies
    told = min(row.told, plies)  # an undo may have taken back what was told
    comments = _comments_since(table, row.heard)
    lines = _lines(table, seat, _plies_since(table, seat, told), comments)
    if advance:
        _advance(row, plies, comments[-1].id if comments else row.heard)
    return lines


_FOLLOWERS = Prepared(lambda game: Follow.select(Follow, Player).join(Player)
                      .where(Follow.game == game))
_PLIES_BETWEEN = Prepared(lambda game, told, first: Move.select(
    Move.ply, Move.seat, Move.visible, Move.anonymous, Move.revealed, Move.shown, Move.source)
    .where((Move.game == game) & (Move.ply > told) & (Move.ply < first)).order_by(Move.ply))
_SET_CURSOR = Prepared(lambda told, heard, id: Seat.update(told=told, heard=heard)
                       .where(Seat.id == id))
_COMMENTS_AFTER = Prepared(lambda game, heard: Comment.select(
    Comment.id, Comment.ply, Comment.seat, Comment.text)
    .where((Comment.game == game) & (Comment.id > heard)).order_by(Comment.id))


def _plies_since(table: Table, seat: int, told: int) -> list[Told]:
    """The plies after `told`: from this transaction's happenings where they cover it,
    else from the move log (a quiet seat a round behind; indexed by game and ply)."""
    key = str(seat)
    first = table.happenings[0].ply if table.happenings else table.game.plies + 1
    earlier = []
    if told < first - 1:
        rows = _PLIES_BETWEEN.rows(table.game.id, told, first)
        earlier = [Told(m.ply, m.seat, m.visible.get(key), m.anonymous, m.revealed, m.shown,
                        m.source or "") for m in rows]
    now = [Told(h.ply, h.seat, h.seen_by(seat), h.anonymous, h.revealed, h.shown, h.source)
           for h in table.happenings if h.ply > told]
    return earlier + now


def _comments_since(table: Table, heard: int) -> list[Comment]:
    return _COMMENTS_AFTER.rows(table.game.id, heard)


def _advance(row: Seat, plies: int, heard: int) -> None:
    """Move the seat's cursor to now (back, after an undo took plies away)."""
    if (row.told, row.heard) != (plies, heard):
        _SET_CURSOR.execute(plies, heard, row.id)
        row.told, row.heard = plies, heard


def _lines(table: Table, viewer: int, plies: list[Told], comments: list[Comment]) -> list[str]:
    over = table.game.status != "running"
    names = table.names
    lines: list[str] = []
    group: list[Told] = []

    ahead = "your queue" if table.engine.queued_choices else "your lines"
    # Another's move that names the reader's seat says so: "steal P1 (you) 3 -> 4".
    mine = (re.compile(rf"\b{re.escape(table.engine.seat_label(table.state, viewer))}\b")
            if viewer is not None and viewer >= 0 and table.state is not None else None)

    def flush():
        if group:
            line = _turn_line(group, viewer, names, over)
            if mine is not None and group[0].seat not in (viewer, CHANCE):
                head, colon, said = line.partition(": ")
                line = head + colon + mine.sub(lambda found: f"{found.group()} (you)", said)
            if group[0].seat == viewer and any(t.source == CONDITIONAL for t in group):
                line += f" (from {ahead})"  # played for you, not from this mail
            lines.append(line)
            group.clear()

    pending = list(comments)
    for told in plies:
        if told.anonymous and told.seat != viewer and not over:
            continue  # G39: not even that someone answered; the outcome is news of its own
        if group and not _same_turn(group[-1], told, over):
            flush()  # a turn is one player's plies in a row
        while pending and pending[0].ply < told.ply:
            flush()
            lines.append(_comment_line(pending.pop(0), viewer, names))
        group.append(told)
        if told.revealed:
            flush()
            lines.append(told.revealed)
    flush()
    lines += [_comment_line(c, viewer, names) for c in pending]
    return [line for line in lines if line]


def _same_turn(previous: Told, told: Told, over: bool) -> bool:
    """Whether `told` goes on the turn of `previous`: the same seat's next ply, as
    numbered for the reader (plies hidden from them never split a turn)."""
    if previous.seat != told.seat:
        return False
    if over:
        return previous.ply + 1 == told.ply
    if previous.anonymous or told.anonymous:  # the reader's own secret answers, together
        return previous.anonymous and told.anonymous
    return previous.shown + 1 == told.shown


def _turn_line(group: list[Told], viewer: int, names: list[str], over: bool) -> str:
    first, last = numbered(group[0], viewer, over), numbered(group[-1], viewer, over)
    if first is None:  # the reader's own answers nobody else may learn of
        texts = "; ".join(t.text or "(a secret choice)" for t in group)
        return f"You, in secret: {texts}"
    number = first if first == last else f"{first}-{last[1:]}"
    seat = group[0].seat
    texts = [t.text for t in group]
    if seat == CHANCE:
        shown = [t for t in texts if t]
        return f"{number} Dealer: {'; '.join(shown)}" if shown else "The dealer dealt."
    who = "You" if seat == viewer else actor_name(names, seat, group[0].anonymous, viewer, over)
    if not any(texts):
        return f"{number} {who} chose in secret."
    return f"{number} {who}: {'; '.join(t or '(a secret choice)' for t in texts)}"


def _comment_line(comment: Comment, viewer: int, names: list[str]) -> str:
    if comment.seat == viewer:
        return ""
    return f"{names[comment.seat]} says: {comment.text}"
