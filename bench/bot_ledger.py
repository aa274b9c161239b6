"""A ledger of bench/bots.py games: one JSON line a game, pooled later by `--tally`.

A line of the bar (60 games of a hard bot at ~1 s of CPU a decision) costs an hour of
a core, more than one sitting of a shared 2-core machine gives to a dozen lines. So each
game is written down as it ends, with what makes it repeatable (the game, the table,
who sat, the game's number k: its seed and seating come from k alone) and a fingerprint
of the code that decided it (`code_fingerprint`: the bots, the engines, the notation,
less the modules only another game runs). `python -m bench.bots --tally FILE...` pools
the games of one line across parts, processes and sittings, each game number once, and
only games of the same code: a change to a game's bots starts its lines again, as it
should, and leaves the other games' lines standing.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import json
import math
import statistics
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pbem.bots.arena import Standing

ROOT = Path(__file__).resolve().parent.parent
#: What decides a game of the bench: the bots, the rules they play by, and the notation
#: a style's decision is named in.
DECIDING = ("pbem/bots", "pbem/engines", "notation")
#: The modules that only one game's decisions run. A game's fingerprint leaves out the
#: others' (a change to Gem Forge's habit cannot move a 6 nimmt! decision); the modules
#: every game runs (the search, the styles, the arena, the engines' base) are in all.
ONE_GAME = {
    "baronoxx": ("pbem/bots/oxx_playout.py", "pbem/bots/oxx_search.py",
                 "pbem/bots/styles_oxx.py",
                 "pbem/engines/baronoxx", "notation/baronoxx.py"),
    "gemforge": ("pbem/bots/heuristic_gemforge.py", "pbem/engines/gemforge"),
    "onix": ("pbem/bots/onix_search.py", "pbem/bots/onix_evaluation.py",
             "pbem/engines/onix", "notation/onix.py"),
    "onyx": ("pbem/bots/onyx.py", "pbem/engines/onyx", "notation/onyx.py"),
}
#: The games a line needs before its share is a finding (the bar of #46).
ENOUGH = 60
#: The bar of #46 for one hard bot: at 3 players a share of at least 1.5x the fair share;
#: at every table the lower bound of the 95% interval above the fair share.
BAR_FACTOR = {3: 1.5}
BAR_CONTESTANT = "bot:hard"
#: `--code now`: each game's code as it stands.
NOW = "now"


def code_fingerprint(root: Path = ROOT, game: str | None = None) -> str:
    """The first 12 hex digits of a sha256 over the deciding modules' paths and code:
    their syntax trees without docstrings, so a comment or a docstring mended while a
    line runs keeps its games, and any change to what runs starts it again. With a
    `game`, only the modules its decisions may run (`ONE_GAME`: not another game's)."""
    others = tuple(module for name, modules in ONE_GAME.items() if name != game
                   for module in modules) if game else ()
    digest = hashlib.sha256()
    for folder in DECIDING:
        for path in sorted((root / folder).rglob("*.py")):
            name = path.relative_to(root).as_posix()
            if any(name == module or name.startswith(module + "/") for module in others):
                continue
            digest.update(name.encode() + b"\0")
            digest.update(_code(path.read_text(encoding="utf-8")).encode() + b"\0")
    return digest.hexdigest()[:12]


@functools.cache
def current(game: str) -> str:
    """The fingerprint of `game`'s deciding code as it stands (read once a process)."""
    return code_fingerprint(game=game)


def _code(source: str) -> str:
    """A module's syntax tree, docstrings left out (comments never are in it)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                             ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                    and isinstance(first.value.value, str)):
                node.body = node.body[1:] or [ast.Pass()]
    return ast.dump(tree)


def record(path: str, entry: dict) -> None:
    """Add one game's entry (a line of JSON) to the ledger at `path`, on a line of its
    own even after an entry a stopped process left unfinished."""
    with open(path, "ab") as out:
        whole = out.tell() == 0 or _last_byte(path) == b"\n"
        out.write((("" if whole else "\n") + json.dumps(entry, sort_keys=True)
                   + "\n").encode())


def _last_byte(path: str) -> bytes:
    with open(path, "rb") as ledger:
        ledger.seek(-1, 2)
        return ledger.read(1)


def recorded(path: str, code: str, game: str, players: int, contestant: str, fill: str,
             seed: str) -> set[int]:
    """The game numbers of a line the ledger at `path` holds for `code` (none if there
    is no ledger yet)."""
    if not Path(path).exists():
        return set()
    key = Line(code, game, players, contestant, fill, seed).key
    for line in tally([path], code):
        if line.key == key:
            return set(line.games)
    return set()


@dataclass
class Line:
    """The games of one line of one code: a contestant at a table among `fill`."""
    code: str
    game: str
    players: int
    contestant: str
    fill: str
    seed: str
    games: dict[int, float] = field(default_factory=dict)
    seconds: list[float] = field(default_factory=list)

    @property
    def key(self) -> tuple:
        """What makes it a line apart from its code: the same key at two codes is the
        same deals and seatings, game number by game number (`changes`)."""
        return self.game, self.players, self.contestant, self.fill, self.seed

    @property
    def deals(self) -> tuple:
        """The deals and seatings its game numbers name, whoever the contestant: a bot
        of any level sits in the seat game k gives it, among the same other seats, so
        two levels' lines with the same deals pair game by game (`between`)."""
        return self.game, self.players, self.fill, self.seed

    def standing(self) -> Standing:
        return Standing(self.contestant, [self.games[k] for k in sorted(self.games)],
                        self.seconds)

    def verdict(self) -> str:
        """Its share against the fair share, and whether it is a finding yet."""
        standing, fair = self.standing(), 1 / self.players
        low, _ = standing.interval()
        bound = "above" if low > fair else "not above"
        shown = "" if len(self.games) >= ENOUGH else f"; under {ENOUGH} games: not shown"
        return f"{standing.mean / fair:.2f}x the fair share, lower bound {bound} it{shown}"

    def meets_bar(self) -> bool:
        """Whether its share clears the bar of #46 at its table, over enough games."""
        standing, fair = self.standing(), 1 / self.players
        low, _ = standing.interval()
        return (len(self.games) >= ENOUGH and low > fair
                and standing.mean >= BAR_FACTOR.get(self.players, 1) * fair)


def tally(paths: list[str], code: str | None = None) -> list[Line]:
    """The lines of the ledgers at `paths`, of `code` only when given (`now`: each
    game's code as it stands); a game number played twice (parts that overlap) counts
    once, its first entry."""
    lines: dict[tuple, Line] = {}
    for path in paths:
        for number, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(),
                                      1):
            if not text.strip():
                continue
            try:
                entry = json.loads(text)
            except json.JSONDecodeError:  # a process stopped while writing it
                print(f"{path}:{number}: not a whole entry, left out", file=sys.stderr)
                continue
            wanted = current(entry["game"]) if code == NOW else code
            if code is not None and entry["code"] != wanted:
                continue
            key = tuple(entry[name] for name in
                        ("code", "game", "players", "contestant", "fill", "seed"))
            line = lines.setdefault(key, Line(*key))
            if entry["k"] not in line.games:
                line.games[entry["k"]] = entry["share"]
                line.seconds += entry["seconds"]
    return sorted(lines.values(), key=lambda line: (line.code, line.game, line.players,
                                                    line.contestant, line.fill))


def report(lines: list[Line]) -> list[str]:
    """A row of a Markdown table per line, under its header."""
    rows = ["| code | game | players | contestant | other seats | games | share | "
            "95% CI | fair share | verdict | CPU p50, p99 |",
            "|---|---|---|---|---|---|---|---|---|---|---|"]
    for line in lines:
        standing = line.standing()
        low, high = standing.interval()
        numbers = sorted(line.games)
        span = f"{len(numbers)} ({numbers[0]}–{numbers[-1]})"
        cpu = (f"{standing.percentile(0.5) * 1000:.0f}, "
               f"{standing.percentile(0.99) * 1000:.0f} ms") if line.seconds else "—"
        rows.append(f"| {line.code} | {line.game} | {line.players} | {line.contestant} | "
                    f"{line.fill} | {span} | {standing.mean:.1%} | {low:.1%}–{high:.1%} "
                    f"| {1 / line.players:.1%} | {line.verdict()} | {cpu} |")
    return rows


def bar(lines: list[Line], tables: dict[str, tuple[int, ...]],
        families: dict[str, tuple[str, ...]]) -> list[str]:
    """Where the bar of #46 stands, a row per table it names (`tables`: each game's table
    sizes): which of its lines (each style of the game's family
    alone, and mixed tables) a hard bot meets it in, which not, which have too few games
    to tell, and which the ledger lacks. `lines` should be of one code."""
    rows = ["| game | players | the bar | met | not met | under "
            f"{ENOUGH} games (played) | not in the ledger |", "|---|---|---|---|---|---|---|"]
    for game, players, enough, short, lacking in _family_lines(lines, tables, families,
                                                               BAR_CONTESTANT):
        met, unmet = [], []
        for name, line in enough:
            (met if line.meets_bar() else unmet).append(name)
        factor = BAR_FACTOR.get(players)
        share = f"≥ {factor:.1f}x the fair share, " if factor else ""
        rows.append(f"| {game} | {players} | {share}lower bound above the fair share "
                    f"| {_names(met)} | {_names(unmet)} | {_names(short)} | "
                    f"{_names(lacking)} |")
    return rows


def measured(lines: list[Line], tables: dict[str, tuple[int, ...]],
             families: dict[str, tuple[str, ...]], contestant: str) -> list[str]:
    """How far the measuring of `contestant` (a level the bar does not judge, `normal`)
    has come, a row per table: the lines of the family with enough games, each with its
    share and interval, those with too few, and those the ledger lacks."""
    rows = [f"| game | players | {ENOUGH} games or more: share (95% CI) | under {ENOUGH} "
            "games (played) | not in the ledger |", "|---|---|---|---|---|"]
    for game, players, enough, short, lacking in _family_lines(lines, tables, families,
                                                               contestant):
        done = []
        for name, line in enough:
            standing = line.standing()
            low, high = standing.interval()
            done.append(f"{name} {standing.mean:.1%} ({low:.1%}–{high:.1%})")
        rows.append(f"| {game} | {players} | {_names(done)} | {_names(short)} | "
                    f"{_names(lacking)} |")
    return rows


@dataclass
class Change:
    """What a change did to one line on the same deals: the game numbers both sides
    played (the arena's game k is the same deal and seating at any code, and for a bot
    of any level), each game's share before and after (`pairs`), and from them the
    shares, the mean change per game with its standard error, and how many games it
    won more of and less of."""
    line: Line
    numbers: list[int]
    pairs: list[tuple[float, float]]

    @property
    def before(self) -> float:
        return statistics.mean(old for old, _ in self.pairs)

    @property
    def after(self) -> float:
        return statistics.mean(new for _, new in self.pairs)

    @property
    def change(self) -> float:
        return self.after - self.before

    @property
    def error(self) -> float:
        """The standard error of the mean change, the steps of one deal (game number)
        taken together. A pooled table (`pooled`) holds game k once a line: the same
        deal among other seats, and a deal that favours one side in one line tends to
        in the others, so its steps are not independent draws. With a step a deal (one
        line) this is the plain standard deviation over the root of the count."""
        steps = [new - old for old, new in self.pairs]
        mean = statistics.mean(steps)
        deals: dict[int, float] = {}
        for k, step in zip(self.numbers, steps):
            deals[k] = deals.get(k, 0.0) + step - mean
        count = len(deals)
        spread = count / (count - 1) * sum(total * total for total in deals.values())
        return math.sqrt(spread) / len(steps)

    @property
    def better(self) -> int:
        return sum(new > old for old, new in self.pairs)

    @property
    def worse(self) -> int:
        return sum(new < old for old, new in self.pairs)


def changes(lines: list[Line], before: list[Line],
            key: Callable[[Line], tuple] = lambda line: line.key) -> list[Change]:
    """Each line of `lines` against the line of `before` with the same `key` (by
    default the same line: game, table, contestant, other seats, seed), game by game
    over the game numbers both hold (two at least: one game has no error). Pairing the
    same deals leaves out the luck of the deal, which is most of a share's spread: a
    change that 60 games a line cannot tell apart from nothing may show here, and a
    change within about one standard error is none. The pairing holds while game k's
    deal and seating come from k alone (pbem.bots.arena); a change to how the arena
    seeds a game makes it meaningless."""
    earlier = {key(line): line for line in before}
    found = []
    for line in lines:
        old = earlier.get(key(line))
        numbers = sorted(set(line.games) & set(old.games)) if old else []
        if len(numbers) >= 2:
            found.append(Change(line, numbers,
                                [(old.games[k], line.games[k]) for k in numbers]))
    return found


def pooled(found: list[Change]) -> list[Change]:
    """The changes of `found` pooled a table at a time (game, players, contestant), for
    tables of two lines or more: every paired game of the table's lines at once, its
    other seats `all`. A change too small for any one line to tell may show over all of
    them. Game k of each line is the same deal (the seed is the game's, not the
    line's), so the error counts a deal's steps together (`Change.error`)."""
    tables: dict[tuple, list[Change]] = {}
    for step in found:
        line = step.line
        tables.setdefault((line.game, line.players, line.contestant), []).append(step)
    return [Change(Line(steps[0].line.code, *table, "all", steps[0].line.seed),
                   [k for step in steps for k in step.numbers],
                   [pair for step in steps for pair in step.pairs])
            for table, steps in tables.items() if len(steps) >= 2]


def between(lines: list[Line], contestant: str, other: str) -> list[Change]:
    """`contestant` (`bot:normal`) against `other` (`bot:hard`) in `lines` of one code,
    on the same deals: each of `contestant`'s lines paired game by game with `other`'s
    line among the same other seats, as `changes` pairs two codes ("before" is
    `other`'s share, "after" `contestant`'s). Two levels' shares over 60 games each
    differ by chance as much as by strength; paired, the luck of the deal cancels."""
    return changes([line for line in lines if line.contestant == contestant],
                   [line for line in lines if line.contestant == other],
                   key=lambda line: line.deals)


def compared(found: list[Change], before: str = "before",
             after: str = "after") -> list[str]:
    """A row of a Markdown table per line a change moved, under its header, then a row
    `all` per table of two lines or more (`pooled`: its span is the game numbers its
    lines share); `before` and `after` name the two columns of shares (two codes, or
    two levels)."""
    rows = [f"| game | players | contestant | other seats | same deals | {before} | "
            f"{after} | change (SE) | games better, worse |",
            "|---|---|---|---|---|---|---|---|---|"]
    for step in found + pooled(found):
        line, numbers = step.line, step.numbers
        rows.append(
            f"| {line.game} | {line.players} | {line.contestant} | {line.fill} | "
            f"{len(numbers)} ({min(numbers)}–{max(numbers)}) | {step.before:.1%} | "
            f"{step.after:.1%} | {step.change * 100:+.1f} ({step.error * 100:.1f}) | "
            f"{step.better}, {step.worse} |")
    return rows


def _family_lines(lines: list[Line], tables: dict[str, tuple[int, ...]],
                  families: dict[str, tuple[str, ...]], contestant: str):
    """For each table, `contestant`'s lines against the game's family (each style
    alone, then mixed): those with enough games (name, line), the names of those with
    too few ("name (games)"), and the names of those the ledger lacks."""
    for game in sorted(tables):
        for players in tables[game]:
            found = {line.fill: line for line in lines if line.game == game
                     and line.players == players and line.contestant == contestant}
            enough, short, lacking = [], [], []
            for fill in [f"style:{name}" for name in families[game]] + ["mixed"]:
                name, line = fill.removeprefix("style:"), found.get(fill)
                if line is None:
                    lacking.append(name)
                elif len(line.games) < ENOUGH:
                    short.append(f"{name} ({len(line.games)})")
                else:
                    enough.append((name, line))
            yield game, players, enough, short, lacking


def _names(names: list[str]) -> str:
    return ", ".join(names) or "—"
