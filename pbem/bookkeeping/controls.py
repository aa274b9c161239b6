"""Time controls: the `time=` and `timeout=` server options, their defaults, their words.

Written with the game's options but kept apart from them (the engine never sees them):
`time=3d` gives every wait 3 days; `time=10d+2d` gives each seat a bank of 10 days that
its waits use up, plus 2 days after each of its moves (as correspondence servers do);
`time=none` has no limit. No limit, increment or bank goes past `LONGEST` (a year).
`timeout=forfeit` ends the game when a seat's time runs out; `timeout=auto` plays a move
for them instead; `timeout=bot` has the `normal` bot (pbem.bots) play that move. Where the rulings name a default for the decision (6 nimmt!'s lowest
card, Gem Forge's pass, Onix's part 2) it is played either way. A reaction window has
its own short deadline, `WINDOW`, whatever the control.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from pbem.engines.base import OptionError
from pbem.store.models import Game, TimeControl
from pbem.store.prepared import Prepared

NAMES = ("time", "timeout")
TIMEOUTS = ("forfeit", "auto", "bot")
WINDOW = 12 * 3600  # seconds: a reaction window's deadline; silence then counts as a pass
UNITS = {"d": 86400, "h": 3600, "m": 60}
SPAN = re.compile(r"^(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?$")
SHORTEST, LONGEST = 3600, 365 * 86400

#: Per game: games whose every decision has a ruled default play on by themselves; the
#: abstract games wait for the player and end by forfeit.
DEFAULTS = {
    "onyx": ("3d", "forfeit"),
    "onix": ("3d", "forfeit"),
    "baronoxx": ("2d", "auto"),
    "gemforge": ("2d", "auto"),
}
FALLBACK = ("3d", "forfeit")


@dataclass(frozen=True)
class Control:
    per_move: int = 0  # seconds
    bank: int = 0
    increment: int = 0
    timeout: str = "forfeit"

    @property
    def limited(self) -> bool:
        return bool(self.per_move or self.bank)

    @property
    def text(self) -> str:
        """As written in options: `3d`, `10d+2d` or `none`."""
        if self.per_move:
            return span_text(self.per_move)
        if self.bank:
            return f"{span_text(self.bank)}+{span_text(self.increment)}"
        return "none"

    def describe(self) -> str:
        """In words, for mail: 'time: 3 days per move; when it runs out: forfeit'."""
        if self.per_move:
            limit = f"{words(self.per_move)} per move"
        elif self.bank:
            limit = f"{words(self.bank)} in all, plus {words(self.increment)} per move"
        else:
            return "no time limit"
        ending = {"forfeit": "the game is lost (forfeit)",
                  "bot": "a bot moves for you"}.get(self.timeout, "the server moves for you")
        return f"{limit}; when it runs out, {ending}"


def parse_span(text: str) -> int:
    """'3d' -> seconds; '1d12h', '36h', '90m' too. Raises OptionError."""
    match = SPAN.match(text.strip().lower())
    if not match or not any(match.groups()):
        raise OptionError(f"{text!r} is not a time: write days, hours or minutes, "
                          f"such as 3d, 36h or 1d12h.")
    return sum(int(n or 0) * UNITS[u] for n, u in zip(match.groups(), "dhm"))


def parse(time: str, timeout: str) -> Control:
    """`time=` and `timeout=` values -> a Control; raises OptionError with an example."""
    time, timeout = time.strip().lower(), timeout.strip().lower()
    if timeout not in TIMEOUTS:
        raise OptionError(f"timeout={timeout} is not allowed: choose forfeit, auto or bot.")
    if time in ("none", "off", "0"):
        return Control(timeout=timeout)
    try:
        if "+" in time:
            bank_text, _, increment_text = time.partition("+")
            control = Control(bank=parse_span(bank_text),
                              increment=parse_span(increment_text) if increment_text else 0,
                              timeout=timeout)
            limit = control.bank
        else:
            control = Control(per_move=parse_span(time), timeout=timeout)
            limit = control.per_move
    except OptionError as error:
        raise OptionError(f"time={time}: {error} E.g. time=3d (per move), time=10d+2d "
                          f"(a bank plus an increment) or time=none.") from None
    if not SHORTEST <= limit <= LONGEST:
        raise OptionError(f"time={time}: a limit is between 1 hour and 365 days.")
    if control.increment > LONGEST:  # a deadline past the calendar's end would crash
        raise OptionError(f"time={time}: an increment is at most 365 days.")
    return control


def split_options(options: dict[str, str]) -> tuple[dict[str, str], dict[str, str]]:
    """(the engine's options, the time options) from options written together."""
    engine_options = {k: v for k, v in options.items() if k.strip().lower() not in NAMES}
    time_options = {k.strip().lower(): v for k, v in options.items()
                    if k.strip().lower() in NAMES}
    return engine_options, time_options


def resolve(engine_id: str, time_options: dict[str, str]) -> Control:
    """The control for a new game: what was written, the game's defaults for the rest."""
    time, timeout = DEFAULTS.get(engine_id, FALLBACK)
    return parse(time_options.get("time", time), time_options.get("timeout", timeout))


def keep(game: Game, control: Control) -> None:
    TimeControl.create(game=game, per_move=control.per_move, bank=control.bank,
                       increment=control.increment, timeout=control.timeout)


_CONTROL = Prepared(lambda game: TimeControl.select().where(TimeControl.game == game).limit(1))


def of(game_id: int) -> Control:
    """A game's control; games made before clocks existed have no limit."""
    return of_row(_CONTROL.first(game_id))


def of_row(row: TimeControl | None) -> Control:
    """The control a game's TimeControl row holds (None: no limit)."""
    if row is None:
        return Control()
    return Control(row.per_move, row.bank, row.increment, row.timeout)


def span_text(seconds: int) -> str:
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    text = "".join(f"{n}{u}" for n, u in ((days, "d"), (hours, "h"), (minutes, "m")) if n)
    return text or "0h"


def words(seconds: float) -> str:
    """'2 days 5 hours', '1 hour', '35 minutes': two units at most, rounded down."""
    seconds = max(0, int(seconds))
    parts = []
    for name, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count} {name}{'s' if count != 1 else ''}")
    return " ".join(parts[:2]) or "less than a minute"


def when(moment: dt.datetime) -> str:
    """A deadline as players read it: 'Thu 3 Dec 2026 10:00 UTC'."""
    return f"{moment:%a} {moment.day} {moment:%b %Y %H:%M} UTC"
