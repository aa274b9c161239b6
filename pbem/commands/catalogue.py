"""Every command a player can write, in one table by topic: its name, its handler, what
it takes and what it does. `help` is written from this table, and so is the README's
list (tests/test_commands_help.py checks they agree), so a new command is one row.

A game command runs on the game of the reply it came in (`handler(speaker, table, seat,
rest)`); an account command runs anywhere, in a game's reply or in mail to `pbem@`
(`handler(speaker, rest)`). Any other first word in a game's reply is a move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from pbem import authority
from pbem.commands import account, conditions, game, queued, seeks, tournaments, web
from pbem.commands.annotate import annotate, annotate_in_game
from pbem.commands.new import new_game


@dataclass(frozen=True)
class Command:
    name: str
    handler: Callable
    usage: str  # as a player writes it
    help: str
    topic: str
    in_game: bool  # run on the reply's game (else: anywhere)
    # An account command that, in a game's reply, knows that game (`remind` does not mail
    # its position twice): handler(speaker, table, seat, rest).
    in_reply: Callable | None = None
    # The rest of the mail is what it reads (`annotate`: the record below its line), so
    # no line after it runs: a record's tag lines are neither commands nor talk.
    reads_below: bool = False


IN_A_GAME, MAIL, ANYWHERE, TIME = ("In a game", "How much mail", "Anywhere", "Time")
COMPETITION = "Ratings and tournaments"

COMMANDS = (
    Command("move", None, "move TEXT", "play TEXT even if it looks like a command",
            IN_A_GAME, True),
    Command("board", game.board, "board", "mail me the position again", IN_A_GAME, True),
    Command("history", game.history, "history", "the moves so far, as I may see them",
            IN_A_GAME, True),
    Command("say", game.say, "say TEXT", "a comment to every player; kept in the record",
            IN_A_GAME, True),
    Command("undo", game.undo, "undo", "ask to take back the last move (all must agree; "
            "never after a deal or a reveal)", IN_A_GAME, True),
    Command("if", conditions.set_line, "if MOVE ANSWER …", "answer my opponent's likely "
            "move in advance, e.g. `if E5 F6`, or a whole line `if E5 F6 G7 H8` (Onyx); "
            "several lines form a tree, and a mail's first `if` replaces the earlier ones",
            IN_A_GAME, True),
    Command("next", queued.queue, "next CARD …", "queue my cards for the rounds to come, "
            "e.g. `next 23 45`: 23 is played the moment the next round asks for my card, "
            "45 in the round after (6 nimmt!); `next` lists them, `next off` clears them",
            IN_A_GAME, True),
    Command("conditions", conditions.show, "conditions [off]", "list my conditional moves "
            "(or queued cards) in this game, or clear them", IN_A_GAME, True),
    Command("resign", game.resign, "resign", "give up: two players, the other wins; more, "
            "the others share the win", IN_A_GAME, True),
    Command("accept", game.accept, "accept [N]", "accept an invitation: in its reply, or "
            "to `pbem@…` the one waiting for me (`accept 12`: game 12's)", IN_A_GAME, True),
    Command("decline", game.decline, "decline [N]", "decline an invitation (the game is "
            "cancelled); to `pbem@…` as `accept`", IN_A_GAME, True),
    Command("quiet", game.mail_setting("quiet"), "quiet", "mail me only when this game "
            "waits for me, and at its start and end", MAIL, True),
    Command("normal", game.mail_setting("normal"), "normal", "the default: also when a "
            "player says something", MAIL, True),
    Command("loud", game.mail_setting("loud"), "loud", "also after every move I can see",
            MAIL, True),
    Command("mail", game.mail, "mail loud|normal|quiet", "the same, in one word; `mail` "
            "alone says which I have", MAIL, True),
    Command("digest", account.set_digest, "digest on|off", "one mail a day listing every "
            "game waiting for me, instead of a mail each time", MAIL, False),
    Command("web", web.web, "web on|off", "link my seat's private page, where I can also "
            "move, in each game mail (the default), or mail only", MAIL, False),
    Command("link", web.link, "link new", "new private links to all my seats' pages, "
            "mailed in the answer; every link mailed before stops working at once", MAIL,
            False),
    Command("pictures", web.pictures, "pictures on|off", "show the position as a picture "
            "in each game mail (the default; the text part stays as it is), or as text only",
            MAIL, False),
    Command("games", account.games, "games", "my games and whose turn it is", ANYWHERE,
            False),
    Command("follow", web.follow, "follow N", "mail me the public view of game N once per "
            "turn, as a spectator", ANYWHERE, False),
    Command("unfollow", web.unfollow, "unfollow N", "stop following game N", ANYWHERE,
            False),
    Command("new", new_game, "new GAME with ADDRESS… [option=value …]", "start a game, "
            "e.g. `new onyx with bob@example.org board=16`; the others are invited; "
            "`bot:easy`, `bot:normal` or `bot:hard` seats a bot",
            ANYWHERE, False),
    Command("name", account.name, "name NAME", "my display name, e.g. `name Alice B.`",
            ANYWHERE, False),
    Command("address", account.address, "address add|remove ADDRESS", "mail from a "
            "second address of mine counts as mine once it confirms; `address` lists them",
            ANYWHERE, False),
    Command("remind", account.remind_anywhere, "remind", "mail me again every game waiting "
            "for me, one mail each", ANYWHERE, False, game.remind_from_game),
    Command("annotate", annotate, "annotate GAME", "publish an annotated record of a "
            "finished game you played (comments, variations), written below this line or "
            "attached; its moves must be the game's", ANYWHERE, False, annotate_in_game,
            reads_below=True),
    Command("help", None, "help", "this list", ANYWHERE, False),
    Command("vacation", account.vacation, "vacation 7d|off", "stop the clocks of all my "
            "games for 7 days (30 days a year), or start them again; `vacation` alone says "
            "what is left", TIME, False),
    Command("tournament", tournaments.show, "tournament N", "the standings of tournament N; "
            "start one with `new tournament onyx round-robin with ADDRESS…` (`double=yes`: "
            "both colours) or `new tournament onyx swiss rounds=5 with ADDRESS…`; the "
            "invited answer `accept` or `decline`", COMPETITION, False),
    Command("withdraw", tournaments.withdraw, "withdraw tournament N|seek N", "play no "
            "more games in tournament N (the running ones are lost), or take back my seek N",
            COMPETITION, False),
    Command("seek", seeks.seek, "seek GAME [option=value …]", "an open challenge anyone may "
            "join, e.g. `seek onyx board=16 time=3d`; `rating=20-30` limits who, `days=7` "
            "how long it stays open", COMPETITION, False),
    Command("seeks", seeks.seeks, "seeks", "the open challenges, with their writers' "
            "ratings", COMPETITION, False),
    Command("join", seeks.join, "join seek N", "take seek N: the game starts now",
            COMPETITION, False),
)

BY_NAME = {command.name: command for command in COMMANDS}
GAME_COMMANDS = {c.name: c for c in COMMANDS if c.in_game}
ACCOUNT_COMMANDS = {c.name: c for c in COMMANDS if not c.in_game}
TOPICS = (IN_A_GAME, MAIL, ANYWHERE, TIME, COMPETITION)


def lines_to_run(lines: list[str]) -> list[str]:
    """A mail's command lines up to the first command that reads the rest of the mail
    (`reads_below`), which is its last."""
    for index, line in enumerate(lines):
        command = BY_NAME.get(line.partition(" ")[0].lower())
        if command is not None and command.reads_below:
            return lines[:index + 1]
    return lines


def help_text() -> list[str]:
    """The commands by topic, from the table; the games and how to start one."""
    from pbem.engines import games_line
    games = games_line()
    paragraphs = [
        "In a game, reply to its latest mail with your move on the first line; several "
        "lines run in order until one fails, and the first blank line ends them. "
        "`#12 MOVE` plays MOVE only as move 12.",
        f"The games: {games}.",
    ]
    for topic in TOPICS:
        rows = [f"  {c.usage} — {c.help}" for c in COMMANDS if c.topic == topic]
        where = " (in a game's reply)" if topic in (IN_A_GAME,) else ""
        paragraphs.append(f"{topic}{where}:\n" + "\n".join(rows))
    paragraphs.append("Time controls: `new … time=3d` (per move), `time=10d+2d` (a bank "
                      "plus an increment) or `time=none`, and `timeout=forfeit` or "
                      "`timeout=auto`.")
    return paragraphs


def readme_table() -> str:
    """The README's table of commands, from the same rows."""
    rows = ["| command | what it does |", "| --- | --- |"]
    for c in COMMANDS:
        usage, what = (cell.replace("|", "\\|") for cell in (c.usage, c.help))
        rows.append(f"| `{usage}` | {what}{'' if c.in_game else ' (also to `pbem@…`)'} |")
    return "\n".join(rows)


def proof_table() -> str:
    """The README's table of what each command needs and which proofs carry it out at
    once (pbem.authority): the others ask the registered address to confirm it first."""
    rows = ["| command | needs | carried out at once with |", "| --- | --- | --- |"]
    for c in COMMANDS:
        usage = c.usage.replace("|", "\\|")
        power = authority.needs(f"{c.name} x")  # as written with its argument
        alone = authority.needs(c.name)
        if alone != power:
            power += f" ({c.name} alone: {alone})"
        proofs = [kind for kind, powers in authority.MAY.items()
                  if authority.needs(f"{c.name} x") in powers and kind != authority.SHELL]
        rows.append(f"| `{usage}` | {power} | {', '.join(proofs)} |")
    return "\n".join(rows)
