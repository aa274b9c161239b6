"""A mail's lines, run in order until one fails: moves and commands.

Mail to a game (through its reply token) may carry moves and every command; mail to
`pbem@domain` carries the commands that are not about one game. Each line is looked up
in the command table (pbem.commands.catalogue); any other line in a game's reply is a
move. Lines after the last one that did something, which are neither a command nor a
move the game could take now ("Cheers", "Bob" under a move), are talk: ignored with one
short note, never reported as a failed command. Everything runs inside the caller's
transaction; the conversation policy then mails whoever should hear of it.
"""

from __future__ import annotations

import re

from pbem import access, authority
from pbem.commands.catalogue import (ACCOUNT_COMMANDS, BY_NAME, GAME_COMMANDS, help_text,
                                     lines_to_run)
from pbem.commands.conditions import play_answers
from pbem.commands.confirm import hold_for_confirmation
from pbem.commands import invited
from pbem.commands.game import invitation_answer, over_note
from pbem.commands.queued import play_queued
from pbem.commands.speaker import WEB, Refused, Speaker
from pbem.config import Config
from pbem.engines import UnknownGame
from pbem.engines.base import CHANCE, InvalidMove, MoveError, OptionError
from pbem.vocabulary.words import status
from pbem.play import Table
from pbem.policy import conversation, letters
from pbem.policy.report import Report
from pbem.store import Move, Player, Request

GUARD = re.compile(r"(?:^|\s)#(\d+)(?=\s|$)")
#: Commands that answer later moves in advance: beside a move they are confirmed by what
#: they do, as the move is (`_with_advance`).
IN_ADVANCE = ("if", "next")


# -- mail to a game ----------------------------------------------------------------------

def run_game_mail(speaker: Speaker, game_id: int, seat: int, lines: list[str],
                  seats: list | None = None) -> Report:
    """Run the lines of a seat's mail against its game, then answer everyone concerned;
    returns what became of the seat's lines (the pipeline caps error-only answers).
    `seats`: the game's, read already under the store's write lock (Table.load)."""
    table = Table.load(game_id, seats=seats)
    table.seats[seat].player = speaker.player
    lines = lines_to_run(_plain_invitation_answer(table, seat, lines))
    reports = {seat: run_lines(speaker, table, seat, lines)}
    if not lines:
        reports[seat].failed.append(("(nothing)", "No command was found in your mail. Write "
                                     "your move on the first line of the reply; `help` "
                                     "lists the commands."))
    after_moves(speaker.config, table, reports)
    conversation.after_write(speaker.config, table, reports, in_reply_to=speaker.message_id)
    return reports[seat]


def _plain_invitation_answer(table: Table, seat: int, lines: list[str]) -> list[str]:
    """"Sure, count me in!" to an invitation means `accept`, "Sorry, can't" `decline`."""
    if table.game.status != "inviting" or table.seats[seat].answer is not None or not lines:
        return lines
    word = lines[0].partition(" ")[0].lower()
    if word in BY_NAME:
        return lines
    answer = invitation_answer(lines[0])
    return [answer] if answer else lines  # else: answered with what to write


def run_lines(speaker: Speaker, table: Table, seat: int, lines: list[str]) -> Report:
    """Run lines in order until one fails. A move that must wait because the player's own
    move has just opened a window for the others (Gem Forge reactions) is held, with the
    lines after it, and runs when the game comes back to them (RULINGS G41)."""
    report, advance = Report(), Report()
    for index, line in enumerate(lines):
        try:
            notes = run_game_line(speaker, table, seat, line) or []
            report.applied.append(line)
            if line.partition(" ")[0].lower() in IN_ADVANCE:
                advance.notes += notes
            else:
                report.notes += notes
                report.asked = report.asked or not _is_move(line)
        except (Refused, MoveError, OptionError, UnknownGame) as error:
            if _waits_for_others_after(table, seat) and _is_move(line):
                Request.create(kind="held", player=speaker.player, game=table.game,
                               ply=table.game.plies, lines=lines[index:])
                report.held = lines[index:]
            elif report.applied and _is_talk(table, seat, line, error):
                report.notes.append("Read as talk, not as commands (nothing was done with "
                                    "it): " + " / ".join(lines[index:]))
                _finish_mail(table, seat, report)
            else:
                report.failed.append((line, why(error)))
                report.skipped = lines[index + 1:]
            return _with_advance(report, advance)
    _finish_mail(table, seat, report)
    return _with_advance(report, advance)


def _with_advance(report: Report, advance: Report) -> Report:
    """Lines that answer later moves (`if`, `next`) beside a move that went in ask for no
    answer of their own, as the move does not: what they do is the news of the next mail
    (an answer played, lines cleared, a card dropped), and `conditions` lists them.
    Sent alone, or where the mail is answered anyway, they are confirmed in it."""
    moved = any(_is_move(line) for line in report.applied)
    if advance.notes and (not moved or report.needs_answer()):
        report.notes += advance.notes
    return report


def why(error: Exception) -> str:
    """What a refusal says, as written: a KeyError (UnknownGame) would wrap its message in
    quotes, but a message that starts by quoting what was read ('take': …) keeps them."""
    if isinstance(error, KeyError) and error.args and isinstance(error.args[0], str):
        return error.args[0]
    return str(error)


def _is_talk(table: Table, seat: int, line: str, error: Exception) -> bool:
    """A line after the commands that did something, which is no command and not the
    game's notation for anyone the game waits for: a greeting, a signature. ("G5" when it
    is not your turn is notation, and fails as a move.)"""
    if not _is_move(line) or GUARD.search(line):
        return False
    if table.game.status != "running":
        return True  # the game ended with this mail: nothing more can be played
    if seat in table.to_act:
        return isinstance(error, InvalidMove)  # not the game's notation at all
    for other in table.to_act - {CHANCE}:
        try:
            table.engine.parse(table.state, other, line)
            return False
        except InvalidMove:
            continue
        except MoveError:
            return False  # notation, but not possible now: a failed move
    return True


def _waits_for_others_after(table: Table, seat: int) -> bool:
    waiting = table.to_act
    return (table.engine.holds_commands and bool(waiting) and seat not in waiting
            and any(h.seat == seat for h in table.happenings))


def _is_move(line: str) -> bool:
    word = line.partition(" ")[0].lower()
    return word == "move" or word not in BY_NAME


def _finish_mail(table: Table, seat: int, report: Report) -> None:
    """What the game does by itself when a player's commands are used up (G41's END)."""
    if table.game.status != "running":
        return
    decision = table.engine.mail_done(table.state, seat)
    if decision is not None:
        text = table.engine.notation(table.state, seat, decision)
        table.play(seat, text, source="mail done")
        report.applied.append(f"{text} (your mail had no more commands)")


def after_moves(config: Config, table: Table, reports: dict[int, Report]) -> None:
    """What the game does by itself once a write's moves are in, whoever wrote them (a
    mail, a page, a bot, a timeout): the conditional answers the lines foresaw
    (pbem.commands.conditions), the queued cards of the rounds that now ask for them
    (pbem.commands.queued), then the held commands the game may have freed."""
    play_answers(table)
    play_queued(table)
    resume_held(config, table, reports)


def resume_held(config: Config, table: Table, reports: dict[int, Report]) -> None:
    """Run held commands of players the game waits for again, unless they have since
    seen something happen (a card played in the window): then they decide anew. Only
    a game that holds commands (Gem Forge's windows, G41) ever has any: the others need
    not ask."""
    if not table.engine.holds_commands:
        return
    for _ in range(len(table.seats) * 4):  # each pass may free another player's commands
        ready = [(r, table.seat_of(r.player.email)) for r in Request.select(Request, Player)
                 .join(Player).where((Request.game == table.game) & (Request.kind == "held")
                                     & Request.open)]
        ready = [(r, s) for r, s in ready
                 if s in table.to_act and not access.barred(r.player)]  # pbem.access
        if not ready:
            return
        for request, seat in ready:
            request.open = False
            request.save()
            report = reports.setdefault(seat, Report())
            if _interrupted(table, seat, request.ply):
                report.dropped = request.lines
                continue
            # Held from a seat's reply (or, one move alone, from its page): its proof.
            proof = authority.Proof(authority.SEAT_REPLY, table.game.id, seat)
            more = run_lines(Speaker(config, request.player, proof=proof), table, seat,
                             request.lines)
            report.extend(more)


def run_game_line(speaker: Speaker, table: Table, seat: int, line: str) -> list[str] | None:
    if not authority.allows(speaker.proof, line, table.game.id, seat):
        raise Refused(authority.refusal(speaker.proof, line))
    word, _, rest = line.partition(" ")
    word = word.lower()
    if word in ACCOUNT_COMMANDS:
        command = ACCOUNT_COMMANDS[word]
        if command.in_reply is not None:
            return command.in_reply(speaker, table, seat, rest.strip())
        return run_account_line(speaker, line)
    if table.game.status == "inviting" and table.seats[seat].answer is None \
            and word not in GAME_COMMANDS:
        raise Refused("you are invited to this game: write `accept` or `decline` on the "
                      "first line of your reply.")
    command = GAME_COMMANDS.get(word)
    if command is not None and command.handler is not None:
        return command.handler(speaker, table, seat, rest.strip())
    return play_move(speaker, table, seat, rest.strip() if word == "move" else line)


def play_move(speaker: Speaker, table: Table, seat: int, text: str) -> None:
    if table.game.status == "finished":
        raise Refused(over_note(table, seat))
    if table.game.status == "cancelled":
        raise Refused(f"game #{table.game.id} was cancelled: {table.game.termination}.")
    if table.game.status == "inviting":
        raise Refused("the game has not started: everyone must accept first.")
    guard = GUARD.search(text)
    if guard:
        text = GUARD.sub(" ", text).strip()
        if int(guard.group(1)) != table.next_number:
            raise Refused(f"you wrote move #{guard.group(1)}, but the game is at move "
                          f"#{table.next_number}; {_what_now(table, seat)}")
    elif _stale(speaker, table, seat):
        answered = "your page showed" if speaker.message_id == WEB else "you answered the mail of"
        raise Refused(f"{answered} move #{speaker.replied_ply + 1}, but others "
                      f"have moved since; {_what_now(table, seat)}")
    for part in table.engine.split_line(text):
        table.play(seat, part, source=speaker.message_id)
        speaker.replied_ply = None  # the next part follows this one, not the old mail
    # An undo request names the ply it would take back; after this move it matches no
    # longer, which is how a move declines it (no write needed here).


def _what_now(table: Table, seat: int) -> str:
    """After a stale move: send again where the game waits for the seat; else whom it
    waits for (sending again would only be told it is not your turn)."""
    if seat in table.to_act:
        return "look at the position below and send again."
    said = status(table, seat).rstrip(".")  # "Waiting for bob (move #3)"
    return (f"it is not your turn now ({said[:1].lower()}{said[1:]}); your next mail comes "
            f"when it is your turn.")


def _stale(speaker: Speaker, table: Table, seat: int) -> bool:
    """Whether someone else has made a move this player could see since the mail they
    answered. Secret choices of others do not count: they changed nothing the player was
    shown, and simultaneous choices may arrive in any order."""
    number = speaker.replied_ply  # as everyone numbers the plies (Move.shown)
    if number is None or number >= table.game.shown_plies:
        return False
    since = Move.select(Move.visible).where(
        (Move.game == table.game) & (Move.shown > number) & Move.seat.not_in([seat, CHANCE]))
    return any(move.visible.get(str(seat)) for move in since)


def _interrupted(table: Table, seat: int, ply: int) -> bool:
    """Whether a move by another player since `ply` stops `seat`'s held commands."""
    engine, game = table.engine, table.game
    moves = list(Move.select().where((Move.game == game) & (Move.ply >= ply))
                 .order_by(Move.ply))
    for before, move in zip(moves, moves[1:]):
        if move.seat in (seat, CHANCE):
            continue
        state = engine.from_json(before.state)
        if engine.interrupts(state, move.seat, engine.parse(state, move.seat, move.text), seat):
            return True
    return False


# -- mail to pbem@ (not about one game) ------------------------------------------------

def run_global_mail(speaker: Speaker, lines: list[str]) -> Report:
    """Run the lines of a mail to `pbem@` (or of one whose lines were just confirmed),
    and answer the writer at their registered address. Lines that need more proof than
    the mail carried (pbem.authority) are not run: the whole mail waits for the
    registered address to confirm it (pbem.commands.confirm), and nothing else is said."""
    paragraphs, report = [], Report()
    lines = lines_to_run(lines)
    if any(line.partition(" ")[0].lower() in BY_NAME  # talk needs no proof: it fails
           and not authority.allows(speaker.proof, line) for line in lines):
        return hold_for_confirmation(speaker, lines)
    for index, line in enumerate(lines):
        try:
            paragraphs += run_account_line(speaker, line, direct=True) or []
            report.applied.append(line)
        except (Refused, OptionError, UnknownGame) as error:
            if report.applied and line.partition(" ")[0].lower() not in BY_NAME:
                paragraphs.append("Read as talk, not as commands (nothing was done with "
                                  "it): " + " / ".join(lines[index:]))
                break
            report.failed.append((line, why(error)))
            report.skipped = lines[index + 1:]
            break
    if not lines:
        paragraphs.append("Your mail had no command in it.")
        paragraphs += help_text()
    summary = ([f"Done: {line}" for line in report.applied]
               + [f"Not done: {line}\n  {why}" for line, why in report.failed]
               + [f"Not applied (after the failure above): {line}" for line in report.skipped])
    player = speaker.player
    letters.answer(speaker.config, player, "[pbem] your commands",
                   ["\n".join(summary)] * bool(summary) + paragraphs,
                   in_reply_to=speaker.message_id)
    return report


def run_account_line(speaker: Speaker, line: str, direct: bool = False) -> list[str] | None:
    word, _, rest = line.partition(" ")
    word = word.lower()
    if word == "help":
        return help_text()
    command = ACCOUNT_COMMANDS.get(word)
    if command is not None:
        return command.handler(speaker, rest)
    if direct and word in ("accept", "decline"):  # the invitation waiting, or which
        return invited.answer_waiting(speaker, word, rest, GAME_COMMANDS[word].handler)
    if direct:
        names = ", ".join(ACCOUNT_COMMANDS)
        raise Refused(f"{word!r} is not a command. Moves go in a reply to your game's latest "
                      f"mail; here you can use: {names}.")
    raise Refused(f"{word!r} is not a command here.")
