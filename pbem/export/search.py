"""Which games the archive lists: the index's filters read from a URL, and their query.

The index (`/games`) and the zip of finished records (`/games/export.zip`) take the same
query arguments — `game`, `player`, `status`, `result`, `q`, `page` — so both build a
`GameFilters` with `GameFilters.from_args(request.args)` and ask `find_games` for the rows.

Bad values are refused, not ignored: `from_args` raises `FilterError` (a ValueError whose
message is written for the reader), which the pages answer with 400; so is any value
holding a control character (PostgreSQL cannot even compare a NUL). An ignored filter
would silently list games the reader did not ask for. Empty values (a form's blank
fields) mean "any".

The search box `q` matches a game id (`12` or `#12`), a part of a player's display name,
or a player's whole address. An address must match exactly (any case): someone who knows
an address can find its games, but nobody can list the players of a domain by typing
`@example.org`, and no page ever shows an address back.

A page is found in two steps within one statement: the ids of the page first, from an
index alone (the filters' columns are all in the indexes of migration 0006), then the
listed columns of those 50 games only. OFFSET still steps over the earlier matches, but
over compact index entries, not over game rows that each hold a snapshot; so page 200
costs about what page 1 does, on SQLite and PostgreSQL, and `?page=N` stays the URL.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass, replace

from peewee import fn

from pbem.engines import ENGINES
from pbem.store import Game, Player, Seat

PAGE_SIZE = 50  # games per index page
STATUSES = ("inviting", "running", "finished", "cancelled")
#: A result token as the engines write it: each seat's share, `1-0`, `0-1/2-1/2`; `*` runs.
RESULT = re.compile(r"^(\*|\d+(/\d+)?(-\d+(/\d+)?)+)$")
GAME_ID = re.compile(r"^#?([0-9]{1,9})$")
MAX_QUERY = 200  # characters of the search box; more is not a name or an address


class FilterError(ValueError):
    """A query argument the index cannot use; the message names it and what would work."""


@dataclass(frozen=True)
class GameFilters:
    engine: str | None = None  # an engine id, `onyx` (URL: game=)
    player: int | None = None  # a Player id (never an address in a URL)
    status: str | None = None  # one of STATUSES
    result: str | None = None  # a result token, `1-0`
    q: str | None = None  # the search box
    page: int = 1  # 1-based

    @classmethod
    def from_args(cls, args) -> "GameFilters":
        """The filters from a URL's query arguments (a dict or Flask's `request.args`);
        raises FilterError for a value that names nothing."""
        get = lambda name: _text(args.get(name), name)  # noqa: E731
        engine, player, status = get("game"), get("player"), get("status")
        result, q, page = get("result"), get("q"), get("page")
        if engine is not None:
            engine = engine.lower()
            if engine not in ENGINES:
                raise FilterError(f"game={engine!r} is not a game here; the games are: "
                                  f"{', '.join(ENGINES)}.")
        if status is not None:
            status = status.lower()
            if status not in STATUSES:
                raise FilterError(f"status={status!r} is not a status; use one of "
                                  f"{', '.join(STATUSES)}.")
        if result is not None and not RESULT.match(result):
            raise FilterError(f"result={result!r} is not a result; write each seat's share "
                              f"of the win, such as 1-0, 0-1 or 1/2-1/2-0, or * for running.")
        if q is not None and len(q) > MAX_QUERY:
            raise FilterError(f"the search is {len(q)} characters long; at most {MAX_QUERY}.")
        return cls(engine=engine, player=_positive(player, "player"), status=status,
                   result=result, q=q, page=_positive(page, "page") or 1)

    def to_args(self, **changes) -> dict[str, str]:
        """The query arguments that give these filters (changed by `changes`), for links;
        empty ones and page 1 are left out, so URLs stay short."""
        values = asdict(replace(self, **changes))
        values = {"game": values.pop("engine"), **values}
        return {name: str(value) for name, value in values.items()
                if value is not None and not (name == "page" and value == 1)}

    @property
    def any(self) -> bool:
        """Whether anything but the page narrows the list."""
        return any(v is not None for v in (self.engine, self.player, self.status,
                                           self.result, self.q))


def _text(value: str | None, name: str) -> str | None:
    """A query argument stripped (None when empty); FilterError when it holds a control
    character or an undecodable byte (the CLI passes those on as lone surrogates). No
    game, name or address has one, and PostgreSQL refuses NUL outright: a search for it
    would crash, not find nothing."""
    value = (value or "").strip() or None
    for char in value or "":
        kind = unicodedata.category(char)
        if kind in ("Cc", "Cs"):  # the value is not echoed: the search may be an address
            what = "a control character" if kind == "Cc" else "a byte that is not UTF-8"
            raise FilterError(f"{name}= holds {what} (U+{ord(char):04X}), which no game, "
                              f"name or address has; type it without.")
    return value


def _positive(text: str | None, name: str) -> int | None:
    if text is None:
        return None
    # ASCII only: str.isdigit takes '²', which int() refuses. Ids are 32-bit in PostgreSQL.
    if not (text.isascii() and text.isdigit()) or not 0 < int(text) < 2 ** 31:
        raise FilterError(f"{name}={text!r} is not a number; {name} is 1, 2, 3 …")
    return int(text)


def find_games(filters: GameFilters, *fields):
    """The games that pass `filters`, newest first, as a peewee query of Game rows (all
    columns, or only `fields`). Not paged: the index slices it with `paginate`."""
    query = Game.select(*fields).order_by(Game.id.desc())
    if filters.engine is not None:
        query = query.where(Game.engine == filters.engine)
    if filters.status is not None:
        query = query.where(Game.status == filters.status)
    if filters.result is not None:
        query = query.where(Game.result == filters.result)
    if filters.player is not None:
        query = query.where(Game.id.in_(Seat.select(Seat.game)
                                        .where(Seat.player == filters.player)))
    if filters.q is not None:
        query = query.where(_search(filters.q))
    return query


def _search(q: str):
    """The condition for the search box: a game id, a part of a name, a whole address."""
    if "@" in q:
        players = Player.select(Player.id).where(Player.email == q.lower())
    else:
        players = Player.select(Player.id).where(fn.LOWER(Player.name).contains(q.lower()))
    condition = Game.id.in_(Seat.select(Seat.game).where(Seat.player.in_(players)))
    number = GAME_ID.match(q)
    if number:
        condition = condition | (Game.id == int(number.group(1)))
    return condition


def page_of(filters: GameFilters, *fields) -> tuple[list, bool]:
    """The Game rows of `filters.page` (all columns, or only `fields`), newest first, and
    whether another page follows (one row more is fetched instead of counting every
    match, which costs a scan of them all)."""
    # The page's ids come from an index (no snapshot is read, however deep the page);
    # the subquery keeps it one statement, so a page still costs two queries in all.
    ids = (find_games(filters, Game.id).offset((filters.page - 1) * PAGE_SIZE)
           .limit(PAGE_SIZE + 1))
    rows = list(Game.select(*fields).where(Game.id.in_(ids)).order_by(Game.id.desc()))
    return rows[:PAGE_SIZE], len(rows) > PAGE_SIZE


__all__ = ["GameFilters", "FilterError", "find_games", "page_of", "PAGE_SIZE", "STATUSES"]
