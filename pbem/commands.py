"""What a player's lines mean: moves and commands, run in order until one fails.

Mail to a game (through its reply token) may carry moves and the game commands; mail to
`pbem@domain` carries the commands that are not about one game (`new`, `games`, `name`,
`remind`, `digest`, `help`). The administrator's CLI calls the same functions. Every
function here runs inside the caller's transaction and writes its answers to the outbox.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from notation.record import format_record
from pbem import digest, remind
from pbem.config import Config
from pbem.engines import ENGINES, UnknownGame, get_engine
from pbem.engines.base import CHANCE, MoveError, OptionError
from pbem.mail import notify
from pbem.mail.tokens import reply_address, seat_token
from pbem.play import Table, actor_name, create_game
from pbem.store import Comment, Game, Move, Player, Request, Seat
from pbem.timekeeping import controls, vacations

GAME_WORDS = ("board", "history", "resign", "say", "undo", "accept", "decline", "quiet",
              "loud", "move", "remind")
GLOBAL_WORDS = ("help", "games", "name", "new", "digest", "vacation")
GUARD = re.compile(r"(?:^|\s)#(\d+)(?=\s|$)")
ADDRESS = re.compile(r"[\w.+'-]+@[\w-]+(?:\.[\w-]+)+")
OPTION = re.compile(r"(\w+)=(\S+)")
NAME = re.compile(r"^[\w][\w .'-]{0,29}$")
MAX_LINES = 20


class Refused(Exception):
    """A line that cannot be carried out; the message is for the player."""


@dataclass
class Speaker:
    """Who wrote, and about which mail: what every command needs to answer them."""
    config: Config
    player: Player
    message_id: str = ""
    replied_ply: int | None = None  # the ply of our mail they answered, if known


def command_lines(text: str) -> list[str]:
    """The command lines of a mail's new text: up to the first blank line after some."""
    lines = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            if lines:
                break
            continue
        lines.append(line)
    return lines[:MAX_LINES]


def player_for(email: str, name: str = "") -> Player:
    """The player with this address, created (unconfirmed) on first sight."""
    email = email.lower()
    player = Player.get_or_none(Player.email == email)
    if player is None:
        player = Player.create(email=email, name=clean_name(name) or email.split("@")[0])
    return player


def clean_name(name: str) -> str:
    name = " ".join(name.split())[:30]
    return name if NAME.match(name) else ""


# -- mail to a game ----------------------------------------------------------------------

def run_game_mail(speaker: Speaker, game_id: int, seat: int, lines: list[str]) -> None:
    """Run the lines of a seat's mail against its game, then answer everyone concerned."""
    table = Table.load(game_id)
    table.seats[seat].player = speaker.player
    waiting_before = table.to_act
    reports = {seat: run_lines(speaker, table, seat, lines)}
    if not lines:
        reports[seat].failed.append(("(nothing)", "No command was found in your mail. Write "
                                     "your move on the first line of the reply; `help` "
                                     "lists the commands."))
    resume_held(speaker.config, table, reports)
    notify.after_moves(speaker.config, table, reports, waiting_before,
                       in_reply_to=speaker.message_id)


def run_lines(speaker: Speaker, table: Table, seat: int, lines: list[str]) -> notify.Report:
    """Run lines in order until one fails. A move that must wait because the player's own
    move has just opened a window for the others (Gem Forge reactions) is held, with the
    lines after it, and runs when the game comes back to them (RULINGS G41)."""
    report = notify.Report()
    for index, line in enumerate(lines):
        try:
            report.notes += run_game_line(speaker, table, seat, line) or []
            report.applied.append(line)
        except (Refused, MoveError, OptionError) as error:
            if _waits_for_others_after(table, seat) and _is_move(line):
                Request.create(kind="held", player=speaker.player, game=table.game,
                               ply=table.game.plies, lines=lines[index:])
                report.held = lines[index:]
            else:
                report.failed.append((line, str(error)))
                report.skipped = lines[index + 1:]
            return report
    _finish_mail(table, seat, report)
    return report


def _waits_for_others_after(table: Table, seat: int) -> bool:
    waiting = table.to_act
    return (table.engine.holds_commands and bool(waiting) and seat not in waiting
            and any(h.seat == seat for h in table.happenings))


def _is_move(line: str) -> bool:
    word = line.partition(" ")[0].lower()
    return word == "move" or (word not in GAME_COMMANDS and word not in GLOBAL_WORDS)


def _finish_mail(table: Table, seat: int, report: notify.Report) -> None:
    """What the game does by itself when a player's commands are used up (G41's END)."""
    if table.game.status != "running":
        return
    decision = table.engine.mail_done(table.state, seat)
    if decision is not None:
        text = table.engine.notation(table.state, seat, decision)
        table.play(seat, text, source="mail done")
        report.applied.append(f"{text} (your mail had no more commands)")


def resume_held(config: Config, table: Table, reports: dict[int, notify.Report]) -> None:
    """Run held commands of players the game waits for again, unless they have since
    seen something happen (a card played in the window): then they decide anew."""
    for _ in range(len(table.seats) * 4):  # each pass may free another player's commands
        ready = [(r, table.seat_of(r.player.email)) for r in Request.select(Request, Player)
                 .join(Player).where((Request.game == table.game) & (Request.kind == "held")
                                     & Request.open)]
        ready = [(r, s) for r, s in ready if s in table.to_act]
        if not ready:
            return
        for request, seat in ready:
            request.open = False
            request.save()
            report = reports.setdefault(seat, notify.Report())
            if _interrupted(table, seat, request.ply):
                report.dropped = request.lines
                continue
            more = run_lines(Speaker(config, request.player), table, seat, request.lines)
            report.extend(more)


def run_game_line(speaker: Speaker, table: Table, seat: int, line: str) -> list[str] | None:
    word, _, rest = line.partition(" ")
    word = word.lower()
    if word in GLOBAL_WORDS:
        return run_global_line(speaker, line)
    handler = GAME_COMMANDS.get(word)
    if handler is not None and word != "move":
        return handler(speaker, table, seat, rest.strip())
    return play_move(speaker, table, seat, rest.strip() if word == "move" else line)


def play_move(speaker: Speaker, table: Table, seat: int, text: str) -> None:
    guard = GUARD.search(text)
    if guard:
        text = GUARD.sub(" ", text).strip()
        if int(guard.group(1)) != table.next_ply:
            raise Refused(f"you wrote move #{guard.group(1)}, but the game is at move "
                          f"#{table.next_ply}; look at the position below and send again.")
    elif _stale(speaker, table, seat):
        raise Refused(f"you answered the mail of move #{speaker.replied_ply + 1}, but others "
                      f"have moved since; look at the position below and send again.")
    if table.game.status == "inviting":
        raise Refused("the game has not started: everyone must accept first.")
    for part in table.engine.split_line(text):
        table.play(seat, part, source=speaker.message_id)
        speaker.replied_ply = None  # the next part follows this one, not the old mail
    # An undo request names the ply it would take back; after this move it matches no
    # longer, which is how a move declines it (no write needed here).


def _stale(speaker: Speaker, table: Table, seat: int) -> bool:
    """Whether someone else has made a move this player could see since the mail they
    answered."""
    if speaker.replied_ply is None:
        return False
    return _seen_since(table, seat, speaker.replied_ply)


def _seen_since(table: Table, seat: int, ply: int) -> bool:
    """Whether another player made a move `seat` could see after `ply`. Secret choices
    of others do not count: they changed nothing the player was shown, and simultaneous
    choices may arrive in any order."""
    if ply >= table.game.plies:
        return False
    since = Move.select(Move.visible).where(
        (Move.game == table.game) & (Move.ply > ply) & Move.seat.not_in([seat, CHANCE]))
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


def board(speaker, table, seat, rest):
    """The answer to every mail carries the position; nothing more to do."""


def history(speaker, table, seat, rest):
    if table.game.status == "finished":
        return ["The record so far:\n\n" + format_record(table.record_game().record())]
    key = str(seat)
    moves = Move.select(Move.ply, Move.seat, Move.visible, Move.anonymous).where(
        Move.game == table.game).order_by(Move.ply)
    lines = []
    for move in moves:
        who = actor_name(table.names, move.seat, move.anonymous, viewer=seat)
        lines.append(f"#{move.ply} {who}: {move.visible.get(key) or '(hidden)'}")
    return ["The moves so far, as you may see them:\n\n" + "\n".join(lines or ["(none)"])]


def resign(speaker, table, seat, rest):
    if table.game.status != "running":
        raise Refused(f"game #{table.game.id} is {table.game.status}; there is nothing to resign.")
    table.resign(seat)
    return [f"{table.names[seat]} resigned."]


def say(speaker, table, seat, rest):
    if not rest:
        raise Refused("write what to say after `say`, e.g. `say good luck!`")
    Comment.create(game=table.game, ply=table.game.plies, seat=seat, text=rest[:500])
    notify.to_everyone(speaker.config, table,
                       lambda viewer: [f"{table.names[seat]} says: {rest[:500]}"], skip=seat)


def undo(speaker, table, seat, rest):
    """Ask to take back the last move; when every player has asked or agreed, it is undone."""
    last = Move.select().where(Move.game == table.game).order_by(Move.ply.desc()).first()
    if table.game.status != "running" or last is None:
        raise Refused("there is no move to take back.")
    request = Request.get_or_none((Request.game == table.game) & (Request.kind == "undo")
                                  & Request.open & (Request.ply == last.ply))
    if request is None:
        _check_undoable(table, last)
        request = Request.create(kind="undo", player=speaker.player, game=table.game,
                                 ply=last.ply, agreed=[])
    request.agreed = sorted(set(request.agreed) | {seat})
    request.save()
    def move(viewer: int) -> str:  # as each player may read it: a secret stays one
        return f"move #{last.ply} ({last.visible.get(str(viewer)) or 'a secret choice'})"
    if len(request.agreed) < len(table.seats):
        notify.to_everyone(speaker.config, table, lambda viewer: [
            f"{table.names[seat]} asks to take back {move(viewer)}. Reply `undo` to agree; "
            f"the next move declines."], skip=seat)
        return ["Undo asked; waiting for the others to agree."]
    request.open = False
    request.save()
    table.take_back(last.ply)
    notify.to_everyone(speaker.config, table, lambda viewer: [
        f"{move(viewer).capitalize()} was taken back: all players agreed."], skip=seat)
    return [f"{move(seat).capitalize()} was taken back."]


def _check_undoable(table: Table, last: Move) -> None:
    if last.seat == CHANCE:
        raise Refused("the last move was the dealer's; a deal cannot be taken back.")
    before = (Move.get((Move.game == table.game) & (Move.ply == last.ply - 1)).state
              if last.ply > 1 else None)
    engine = table.engine
    state = (engine.from_json(before) if before is not None
             else engine.start(table.game.options, len(table.seats), table.game.seed))
    if engine.reveals(state, last.seat, engine.parse(state, last.seat, last.text)):
        raise Refused(f"move #{last.ply} showed the players something they did not know; "
                      f"it cannot be taken back.")


def accept(speaker, table, seat, rest):
    if table.game.status != "inviting":
        raise Refused(f"game #{table.game.id} is {table.game.status}; there is nothing to accept.")
    Seat.update(answer="accepted").where(Seat.id == table.seats[seat].id).execute()
    table.seats[seat].answer = "accepted"
    speaker.player.confirmed = True
    speaker.player.save()
    if all(s.answer == "accepted" for s in table.seats):
        table.start()
        return [notify.started_note(table)]
    return ["You accepted. The game starts when everyone has."]


def decline(speaker, table, seat, rest):
    if table.game.status != "inviting":
        raise Refused(f"game #{table.game.id} is {table.game.status}; there is nothing to decline.")
    table.cancel(f"{table.names[seat]} declined")
    return [f"{table.names[seat]} declined the invitation; game #{table.game.id} is cancelled."]


def quiet(speaker, table, seat, rest):
    Seat.update(quiet=True).where(Seat.id == table.seats[seat].id).execute()
    table.seats[seat].quiet = True
    return ["You will get mail from this game only when it waits for you, and at its end."]


def loud(speaker, table, seat, rest):
    Seat.update(quiet=False).where(Seat.id == table.seats[seat].id).execute()
    table.seats[seat].quiet = False
    return ["You will get mail after every move you can see again."]


def remind_from_game(speaker, table, seat, rest):
    """`remind` in a game's reply: that game's position is in the answer already."""
    return remind_me(speaker, table)


GAME_COMMANDS = {"board": board, "history": history, "resign": resign, "say": say,
                 "undo": undo, "accept": accept, "decline": decline, "quiet": quiet,
                 "loud": loud, "move": play_move, "remind": remind_from_game}


# -- mail to pbem@ (not about one game) ------------------------------------------------

def run_global_mail(speaker: Speaker, lines: list[str]) -> None:
    paragraphs, report = [], notify.Report()
    for index, line in enumerate(lines):
        try:
            paragraphs += run_global_line(speaker, line, direct=True) or []
            report.applied.append(line)
        except (Refused, OptionError, UnknownGame) as error:
            report.failed.append((line, str(error).strip("'\"")))
            report.skipped = lines[index + 1:]
            break
    if not lines:
        paragraphs.append("Your mail had no command in it.")
        paragraphs += help_text()
    summary = ([f"Done: {line}" for line in report.applied]
               + [f"Not done: {line}\n  {why}" for line, why in report.failed]
               + [f"Not applied (after the failure above): {line}" for line in report.skipped])
    player = speaker.player
    notify.note(speaker.config, (player.name, player.email), "[pbem] your commands",
                ["\n".join(summary)] * bool(summary) + paragraphs, in_reply_to=speaker.message_id)


def run_global_line(speaker: Speaker, line: str, direct: bool = False) -> list[str] | None:
    word, _, rest = line.partition(" ")
    word = word.lower()
    if word == "help":
        return help_text()
    if word == "games":
        return [games_text(speaker.player)]
    if word == "name":
        return set_name(speaker.player, rest)
    if word == "new":
        return new_game(speaker, rest)
    if word == "remind":
        return remind_me(speaker)
    if word == "digest":
        return set_digest(speaker, rest)
    if word == "vacation":
        return vacation(speaker, rest)
    if direct:
        raise Refused(f"{word!r} is not a command. Moves go in a reply to your game's latest "
                      f"mail; here you can use: new, games, name, remind, digest, help.")
    raise Refused(f"{word!r} is not a command here.")


def help_text() -> list[str]:
    games = ", ".join(f"{e.id} ({e.title}, {e.min_players}-{e.max_players} players)"
                      for e in ENGINES.values())
    return [
        "Start a game: `new GAME with ADDRESS[, ADDRESS…] [option=value …]`, e.g. "
        "`new onyx with bob@example.org board=16`. You play first; the others are invited "
        "and the game starts when all accept.",
        f"The games: {games}.",
        "In a game, reply to its latest mail with your move on the first line, or one of: "
        "board, history, say TEXT, undo, resign, quiet, loud. Anywhere: games, name NAME, "
        "remind (mail me every game waiting for me), digest on|off (one mail a day "
        "instead of one per move), help.",
        "Time: `new … time=3d` (per move), `time=10d+2d` (a bank plus an increment) or "
        "`time=none`, and `timeout=forfeit` or `timeout=auto`. `vacation 7d` stops the "
        "clocks of all your games (30 days a year); `vacation off` starts them again.",
    ]


def games_text(player: Player) -> str:
    seats = (Seat.select(Seat, Game).join(Game).where((Seat.player == player)
             & Game.status.in_(["inviting", "running"])).order_by(Game.id))
    lines = []
    for seat in seats:
        table = Table.load(seat.game.id)
        lines.append(f"#{table.game.id} {table.engine.title} ({' vs '.join(table.names)}): "
                     + notify.status(table, seat.number))
    return "Your games:\n" + ("\n".join(lines) if lines else "(none running)")


def remind_me(speaker: Speaker, here: Table | None = None) -> list[str]:
    return remind.remind(speaker.config, speaker.player, here) or [
        "No game is waiting for you.", games_text(speaker.player)]


def vacation(speaker: Speaker, rest: str) -> list[str]:
    """`vacation 7d` / `vacation off`: the clocks of all the player's games stand still."""
    try:
        return vacations.command(speaker.config, speaker.player, rest)
    except vacations.NotPossible as error:
        raise Refused(str(error)) from None


def set_digest(speaker: Speaker, rest: str) -> list[str]:
    choice = rest.strip().lower()
    if choice not in ("on", "off"):
        state = "on" if speaker.player.digest else "off"
        raise Refused(f"write `digest on` (one mail a day listing the games waiting for "
                      f"you, instead of a mail after each move) or `digest off`; yours is "
                      f"{state}.")
    return digest.choose(speaker.config, speaker.player, choice == "on")


def set_name(player: Player, rest: str) -> list[str]:
    name = clean_name(rest)
    if not name:
        raise Refused("a name is 1 to 30 letters, digits, spaces, dots, hyphens or "
                      "apostrophes, e.g. `name Alice B.`")
    player.name = name
    player.save()
    return [f"Your name is now {name}."]


def new_game(speaker: Speaker, rest: str) -> list[str]:
    """`new GAME with ADDRESS… [k=v …]`: create the game and invite the others."""
    words = rest.split()
    if not words:
        raise Refused("say which game, e.g. `new onyx with bob@example.org`.")
    engine = get_engine(words[0])
    options, time_options = controls.split_options(dict(OPTION.findall(rest)))
    control = controls.resolve(engine.id, time_options)  # the server's options, not the game's
    invited = [a.lower() for a in ADDRESS.findall(rest) if a.lower() != speaker.player.email]
    invited = list(dict.fromkeys(invited))
    count = len(invited) + 1
    if not engine.min_players <= count <= engine.max_players:
        raise Refused(f"{engine.title} is for {engine.min_players} to {engine.max_players} "
                      f"players; you named {count} (you and {len(invited)} others).")
    engine.check_options(engine.resolve_options(options))
    players = [speaker.player] + [player_for(address) for address in invited]
    game = create_game(engine, options, players, speaker.player, accepted=False)
    controls.keep(game, control)
    table = Table.load(game.id)
    for seat in table.seats[1:]:
        invite(speaker.config, table, seat.number)
    return [f"Game #{game.id} ({engine.title}, {describe_options(table)}) is created; "
            f"invitations went to {', '.join(invited)}. It starts when all accept."]


def describe_options(table: Table) -> str:
    control = controls.of(table.game.id)
    return ", ".join([f"{k}={v}" for k, v in table.game.options.items()]
                     + [f"time={control.text}", f"timeout={control.timeout}"])


def invite(config: Config, table: Table, seat: int) -> None:
    player = table.seats[seat].player
    host = table.seats[0].player
    token = seat_token(config.secret_key, table.game.id, seat)
    notify.note(config, (player.name, player.email), notify.subject(table), [
        f"{host.name} <{host.email}> invites you to play {table.engine.title} "
        f"({describe_options(table)}) with {', '.join(table.names)}.",
        "Reply to this mail with `accept` or `decline` on the first line.",
        "You got this because someone typed your address; if you do not know them, "
        "ignore this mail and nothing more will come.",
    ], reply_to=reply_address(token, config.domain))
