"""Conditional moves: answer the likely replies in advance, so a game by mail moves at the
speed of thought (as ICCF players write "if 23...Nf6 then 24.Bg5").

    if E5 F6            if the opponent plays E5, answer F6
    if E5 F6 G7 H8      … then, if they play G7, answer H8
    conditions          the lines kept, as a tree
    conditions off      forget them

A line is the opponent's move and the answer, in turn, as many as the player likes; the
lines of one mail form a tree (two lines that answer the same move differently are
refused), and the first `if` of a mail replaces the lines sent before. Each line is
checked when it is sent by playing it on the engine from the position it will meet, so
an answer that would be illegal is refused at once with the ply named.

When the opponent moves, in the same transaction (`play_answers`, run after every write
that plays moves: a mail's, a page's, a bot's or a timeout's), a line that foresaw the
move plays its answer through `Table.play`, like any move (source `conditional`), and
keeps the rest of the line; a move no line foresaw clears them, and the player's next
mail says so. Both players' lines may answer each other, so one mail can carry several
moves. The lines are secret until played: they are kept in their own table, read by
nobody but this module (and pbem.commands.queued, whose 6 nimmt! queues share it), and
nothing of them reaches anyone else's mail or page.
"""

from __future__ import annotations

from pbem import access
from pbem.commands import queued
from pbem.commands.speaker import Refused, Speaker
from pbem.engines.base import MoveError
from pbem.play import CONDITIONAL, Table
from pbem.policy.conversation import Notice
from pbem.store.models import Condition
from pbem.store.prepared import Prepared

MAX_LINES = 20  # lines a player keeps in one game
MAX_PLIES = 40  # plies in one line (20 of the opponent's moves, 20 answers)
MAX_ANSWERS = 200  # conditional answers played in one transaction, both players together


# -- the commands ------------------------------------------------------------------------

def set_line(speaker: Speaker, table: Table, seat: int, rest: str) -> list[str]:
    """`if E5 F6 …`: one line of the tree; the mail's first replaces the earlier ones."""
    engine = table.engine
    if not engine.conditional_moves:
        raise Refused(f"{engine.title} takes no conditional moves: "
                      + ("queue your cards for the rounds to come instead, e.g. `next 23 "
                         "45`." if engine.queued_choices else "each turn is asked for as "
                                                               "it comes."))
    if table.game.status != "running":
        raise Refused(f"game #{table.game.id} is {table.game.status}: no conditional moves.")
    line = checked_line(table, seat, rest)
    row = Condition.get_or_none((Condition.game == table.game) & (Condition.seat == seat))
    first = table.game.id not in speaker.conditions_set
    lines = [] if first or row is None else list(row.lines)
    clash = _clash(lines, line)
    if clash:
        raise Refused(clash)
    if line not in lines:
        lines.append(line)
    if len(lines) > MAX_LINES:
        raise Refused(f"at most {MAX_LINES} lines a game; `conditions` lists yours.")
    _keep(table, seat, row, lines)
    speaker.conditions_set.add(table.game.id)
    replaced = " (your earlier lines are replaced)" if first and row is not None else ""
    return [f"Kept{replaced}: {describe(line)}."]


def show(speaker: Speaker, table: Table, seat: int, rest: str) -> list[str]:
    """`conditions` lists the lines; `conditions off` forgets them. In a game of queued
    cards (`next 23 45`, pbem.commands.queued) the same for the queue."""
    if table.engine.queued_choices and rest.strip().lower() in ("", "off", "clear", "none"):
        return queued.queue(speaker, table, seat, rest)
    row = Condition.get_or_none((Condition.game == table.game) & (Condition.seat == seat))
    word = rest.strip().lower()
    if word in ("off", "clear", "none"):
        if row is not None:
            row.delete_instance()
        return ["Your conditional moves in this game are cleared."]
    if word:
        raise Refused("write `conditions` to list your conditional moves, or `conditions "
                      "off` to clear them.")
    if row is None or not row.lines:
        return ["You have no conditional moves in this game. Write e.g. `if E5 F6`: if "
                "your opponent plays E5, F6 is played for you at once."]
    return ["Your conditional moves in this game:\n" + "\n".join(tree(row.lines))]


def kept_lines(table: Table, seat: int) -> list[list[str]]:
    """The seat's lines in this game, for its own page only (pbem.web.advance)."""
    row = Condition.get_or_none((Condition.game == table.game) & (Condition.seat == seat))
    return list(row.lines) if row is not None else []


def checked_line(table: Table, seat: int, text: str) -> list[str]:
    """The line's plies in the engine's notation, each played from the position it will
    meet; Refused names the first that cannot be."""
    plies = text.split()
    if not plies:
        raise Refused("write the opponent's move and your answer after `if`, e.g. `if E5 F6`.")
    if len(plies) % 2:
        raise Refused(f"`if {text}` ends with your opponent's move: say your answer to it "
                      f"too, e.g. `if {text} F6`.")
    if len(plies) > MAX_PLIES:
        raise Refused(f"a line holds at most {MAX_PLIES} moves ({MAX_PLIES // 2} answers).")
    engine, state = table.engine, table.state
    opponent = 1 - seat
    if engine.to_act(state) != {opponent}:
        raise Refused("it is your turn: send your move first, then your `if` lines for the "
                      "replies to it (they may go in the same mail, below the move).")
    canonical = []
    for number, text_ in enumerate(plies, start=1):
        mover = opponent if number % 2 else seat
        whose = "your opponent's move" if mover == opponent else "your answer"
        if not engine.to_act(state):
            raise Refused(f"`if {text}`: the game would be over before move {number} "
                          f"({text_}).")
        try:
            decision = engine.parse(state, mover, text_, names=table.names)
        except MoveError as error:
            raise Refused(f"`if {text}`: move {number} ({text_}, {whose}) cannot be played "
                          f"there: {str(error).strip(chr(39) + chr(34))}") from None
        canonical.append(engine.notation(state, mover, decision))
        state = engine.apply(state, mover, decision)
    return canonical


def _clash(lines: list[list[str]], line: list[str]) -> str | None:
    """Why `line` cannot join the tree: it answers a move the tree answers otherwise."""
    for kept in lines:
        for at in range(0, min(len(kept), len(line)), 2):
            if kept[at] != line[at]:
                break  # the opponent's moves part: two branches
            if kept[at + 1] != line[at + 1]:
                return (f"you answer {line[at]} with {kept[at + 1]} already ({describe(kept)}); "
                        f"one answer to one move. `conditions off` clears them.")
    return None


def _keep(table: Table, seat: int, row: Condition | None, lines: list[list[str]]) -> None:
    if row is None:
        Condition.create(game=table.game, seat=seat, lines=lines)
    else:
        row.lines = lines
        row.save()


def describe(line: list[str]) -> str:
    """`if E5 then F6, then if G7 then H8`."""
    return ", then ".join(f"if {line[at]} then {line[at + 1]}" for at in range(0, len(line), 2))


def tree(lines: list[list[str]], indent: str = "  ") -> list[str]:
    """The lines as a tree: each opponent's move with its answer, the replies below."""
    out, branches = [], {}
    for line in lines:
        branches.setdefault((line[0], line[1]), []).append(line[2:])
    for (move, answer), rests in branches.items():
        out.append(f"{indent}if {move}: {answer}")
        out += tree([rest for rest in rests if rest], indent + "    ")
    return out


# -- what the game does by itself after a write -----------------------------------------

def play_answers(table: Table) -> int:
    """Play every answer the lines foresaw, in this transaction; returns how many. A move
    that no line of the player to move foresaw clears that player's lines."""
    if not table.engine.conditional_moves or table.game.status != "running":
        return 0
    rows = {row.seat: row for row in _CONDITIONS.rows(table.game.id)}
    played = 0
    while rows and played < MAX_ANSWERS and table.game.status == "running":
        (owner,) = table.to_act or (None,)
        row = rows.get(owner)
        last = _last_move(table, 1 - owner) if row is not None else None
        if last is None or access.barred(table.seats[owner].player):
            break  # a barred player (pbem.access) acts in no way: their lines wait
        matching = [line for line in row.lines if line[0] == last]
        if not matching:
            # Urgent: a player on the digest counted on the server to answer for them,
            # and the game waits for them now; they hear at once, not the next day.
            _clear(table, row, f"Your conditional moves did not foresee {last}; they are "
                               f"cleared.", urgent=True)
            del rows[owner]
            break
        table.play(owner, matching[0][1], source=CONDITIONAL)
        played += 1
        rest = [line[2:] for line in matching if len(line) > 2]
        if rest:
            row.lines = rest
            row.save()
        else:
            row.delete_instance()
            del rows[owner]
    return played


# Asked after every move of a game with conditional moves: written once (peewee wrote it
# anew each time, a tenth of a move's CPU).
_CONDITIONS = Prepared(lambda game: Condition.select().where(Condition.game == game))


def _last_move(table: Table, opponent: int) -> str | None:
    """The opponent's move this write played, if its last ply is theirs: what the lines
    of the player now to move are asked about."""
    if not table.happenings or table.happenings[-1].seat != opponent:
        return None
    return table.happenings[-1].text


def _clear(table: Table, row: Condition, words: str, urgent: bool = False) -> None:
    owner = row.seat
    row.delete_instance()
    table.notices.append(Notice(lambda viewer: words if viewer == owner else None, urgent))


def forget_for_game(table: Table, words: str) -> None:
    """A move taken back (`undo`): the lines no longer meet the position they were checked
    on, so every player's are cleared, and each is told in their next mail."""
    for row in Condition.select().where(Condition.game == table.game):
        _clear(table, row, words)
