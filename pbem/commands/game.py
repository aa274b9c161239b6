"""The commands of a game's reply: board, history, say, undo, resign, the invitation's
answers and the seat's mail setting. Each runs inside the mail's transaction on the
game's `Table`, returns notes for the writer, and leaves what the others are to be told
as notices for the conversation policy (pbem.policy.conversation), which mails them.
"""

from __future__ import annotations

import re

from notation.record import format_record
from pbem.commands.conditions import CONDITIONAL, forget_for_game
from pbem.commands.invited import named, waiting
from pbem.commands.speaker import Refused, Speaker
from pbem.engines.base import CHANCE
from pbem.play import Table, actor_name
from pbem.policy.conversation import SETTINGS, Notice, Told, numbered, your_result
from pbem.store import Move, Request, Seat

#: Plain answers to an invitation, understood where they are unambiguous.
YES = re.compile(r"\b(yes|yeah|yep|ok|okay|sure|join|joining|accept|accepted|count me in|"
                 r"i'm in|im in|gladly|let's play|lets play)\b", re.I)
NO = re.compile(r"\b(no|nope|decline|declined|can't|cannot|can not|won't|not this time|"
                r"sorry)\b", re.I)


def board(speaker, table, seat, rest):
    """The answer to every mail carries the position; nothing more to do."""


def history(speaker, table, seat, rest):
    if table.game.status == "finished":
        return ["The record so far:\n\n" + format_record(table.record())]
    key = str(seat)
    moves = Move.select(Move.ply, Move.seat, Move.visible, Move.anonymous, Move.shown).where(
        Move.game == table.game).order_by(Move.ply)
    lines = []
    for move in moves:
        if move.anonymous and move.seat != seat:
            continue  # G39: not even that someone answered
        told = Told(move.ply, move.seat, move.visible.get(key), move.anonymous, shown=move.shown)
        number = numbered(told, seat, over=False) or "(in secret)"
        lines.append(f"{number} {actor_name(table.names, move.seat, False)}: "
                     f"{told.text or '(hidden)'}")
    return ["The moves so far, as you may see them:\n\n" + "\n".join(lines or ["(none)"])]


def resign(speaker, table, seat, rest):
    if table.game.status != "running":
        raise Refused(f"game #{table.game.id} is {table.game.status}; there is nothing to resign.")
    table.resign(seat)


def say(speaker, table, seat, rest):
    if not rest:
        raise Refused("write what to say after `say`, e.g. `say good luck!`")
    table.say(seat, rest[:500])


def undo(speaker, table, seat, rest):
    """Ask to take back the last move; when every player has asked or agreed, it is undone.
    The last move everyone may know of: an answer nobody may learn of (RULINGS G39) is
    neither named nor asked about, and goes with the move it answered."""
    last = (Move.select().where((Move.game == table.game) & ~Move.anonymous)
            .order_by(Move.ply.desc()).first())
    if table.game.status != "running" or last is None:
        raise Refused("there is no move to take back.")
    answer = None
    if last.source == CONDITIONAL and table.engine.conditional_moves and last.ply > 1:
        # An answer played in advance goes back with the move it answered: taking back
        # the answer alone would leave its author to answer again what they answered.
        answer = last
        last = Move.get((Move.game == table.game) & (Move.ply == last.ply - 1))
    request = Request.get_or_none((Request.game == table.game) & (Request.kind == "undo")
                                  & Request.open & (Request.ply == last.ply))
    if request is None:
        _check_undoable(table, last)
        request = Request.create(kind="undo", player=speaker.player, game=table.game,
                                 ply=last.ply, agreed=[])
    request.agreed = sorted(set(request.agreed) | {seat})
    request.save()

    # As each player may read it (a secret stays one), the move as its notation writes
    # it (`C3`, not str.capitalize's `c3`); `word` starts a sentence with "Move".
    def move(viewer: int, word: str = "move") -> str:
        words = f"{word} #{last.shown} ({last.visible.get(str(viewer)) or 'a secret choice'})"
        if answer is not None:
            words += f" and the answer to it, #{answer.shown} ({answer.text})"
        return words
    name = table.names[seat]
    if len(request.agreed) < len(table.seats):
        table.notices.append(Notice(lambda viewer: None if viewer == seat else (
            f"{name} asks to take back {move(viewer)}. Reply `undo` to agree; the next "
            f"move declines."), urgent=True))
        return [f"Undo asked: to take back {move(seat)}; waiting for the others to agree."]
    request.open = False
    request.save()
    table.take_back(last.ply)
    if table.engine.conditional_moves:  # a queued card (`next`) waits for its round still
        forget_for_game(table, "A move was taken back, so your conditional moves in this "
                               "game are cleared: send them again for the position now.")
    table.notices.append(Notice(lambda viewer: None if viewer == seat else (
        f"{move(viewer, 'Move')} was taken back: all players agreed."), urgent=True))
    return [f"{move(seat, 'Move')} was taken back."]


def _check_undoable(table: Table, last: Move) -> None:
    if last.seat == CHANCE:
        raise Refused("the last move was the dealer's; a deal cannot be taken back.")
    before = (Move.get((Move.game == table.game) & (Move.ply == last.ply - 1)).state
              if last.ply > 1 else None)
    engine = table.engine
    state = (engine.from_json(before) if before is not None
             else engine.start(table.game.options, len(table.seats), table.game.seed))
    if engine.reveals(state, last.seat, engine.parse(state, last.seat, last.text)):
        raise Refused(f"move #{last.shown} showed the players something they did not know; "
                      f"it cannot be taken back.")


def accept(speaker, table, seat, rest):
    if table.game.status != "inviting":
        raise Refused(f"game #{table.game.id} is {table.game.status}; there is nothing to "
                      f"accept in it.{_others_waiting(speaker)}")
    Seat.update(answer="accepted").where(Seat.id == table.seats[seat].id).execute()
    table.seats[seat].answer = "accepted"
    speaker.player.confirmed = True
    speaker.player.save()
    if all(s.answer == "accepted" for s in table.seats):
        table.start()  # the start is news for everyone (pbem.policy.conversation)
        return []
    return ["You accepted. The game starts when everyone has."]


def decline(speaker, table, seat, rest):
    if table.game.status != "inviting":
        raise Refused(f"game #{table.game.id} is {table.game.status}; there is nothing to "
                      f"decline in it.{_others_waiting(speaker)}")
    name = table.names[seat]
    table.cancel(f"{name} declined")
    table.notices.append(Notice(lambda viewer: (
        f"{name} declined the invitation; game #{table.game.id} is cancelled.")))


def _others_waiting(speaker) -> str:
    """The invitations that do wait for the writer's answer, where a reply reached an
    old one: what they meant to answer, most likely."""
    seats = waiting(speaker.player)
    if not seats:
        return ""
    return (f" Waiting for your answer: {named(seats)}; reply to its invitation, or write "
            f"`accept {seats[0].game.id}` to pbem.")


def invitation_answer(line: str) -> str | None:
    """`accept` or `decline` for an answer in plain words ("Sure, count me in!"), or None
    where it is not plain which (both, or neither)."""
    yes, no = bool(YES.search(line)), bool(NO.search(line))
    if yes != no:
        return "accept" if yes else "decline"
    return None


def mail_setting(choice: str):
    """`loud`, `normal` and `quiet`: how often this game mails the seat."""
    def set_mail(speaker, table, seat, rest):
        Seat.update(mail=choice).where(Seat.id == table.seats[seat].id).execute()
        table.seats[seat].mail = choice
        return [MAIL_WORDS[choice]]
    return set_mail


def mail(speaker, table, seat, rest):
    """`mail loud|normal|quiet`, or `mail` alone to be told the setting."""
    choice = rest.strip().lower()
    if choice not in SETTINGS:
        current = table.seats[seat].mail
        raise Refused(f"write `mail loud`, `mail normal` or `mail quiet`; this game's is "
                      f"{current}: {MAIL_WORDS[current]}")
    return mail_setting(choice)(speaker, table, seat, rest)


MAIL_WORDS = {
    "loud": "You will get a mail after every move you can see, as well as when the game "
            "waits for you.",
    "normal": "You will get a mail when the game waits for you, when a player says "
              "something, and at the start and end; each carries every move since your "
              "last mail.",
    "quiet": "You will get mail from this game only when it waits for you, and at its "
             "start and end; each carries every move and comment since your last mail.",
}


def over_note(table: Table, seat: int) -> str:
    """What a move sent to a finished game is answered with."""
    game = table.game
    result = your_result(table, seat)
    return (f"game #{game.id} is over: {game.termination or 'it has ended'} "
            f"({game.result}). {result}".strip())


def remind_from_game(speaker: Speaker, table: Table, seat: int, rest: str):
    """`remind` in a game's reply: that game's position is in the answer already."""
    from pbem.commands.account import remind_me
    return remind_me(speaker, table)

