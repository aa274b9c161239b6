"""A zip of the records of finished games that pass the archive index's filters.

One `pbem-ID-GAME.txt` per game, in pbem's record layout, newest game first. Only
finished games: their records are complete and public (a running card game's record is
not). The zip is streamed: each record is written into it and handed on, so memory holds
one record, not the archive; `MAX_GAMES` still bounds one download, since a request that
runs for minutes is better narrowed by a filter.
"""

from __future__ import annotations

import zipfile
from typing import BinaryIO, Iterator

from pbem.engines import ENGINES
from pbem.export.record import file_name, record_text
from pbem.export.search import GameFilters, find_games
from pbem.export.source import ExportError, load_table
from pbem.store import Game

MAX_GAMES = 10_000


def finished_games(filters: GameFilters):
    """The finished games that pass `filters`, newest first; ExportError when the
    filters ask for other games, match none, or match more than one zip holds."""
    if filters.status not in (None, "finished"):
        raise ExportError(400, f"The zip holds the records of finished games only, not "
                               f"status={filters.status}: leave status out or write "
                               f"status=finished.")
    query = find_games(filters).where((Game.status == "finished")
                                      & Game.engine.in_(list(ENGINES)))
    count = query.count()
    if count == 0:
        raise ExportError(404, "No finished game matches these filters.")
    if count > MAX_GAMES:
        raise ExportError(400, f"{count} finished games match; one zip holds at most "
                               f"{MAX_GAMES}. Narrow it with game=, player= or result=.")
    return query


class _Spool:
    """A file that zipfile writes to and that gives up what it holds: no seek, so
    zipfile streams (sizes follow each file in a data descriptor)."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.position = 0

    def write(self, data) -> int:
        self.parts.append(bytes(data))
        self.position += len(data)
        return len(data)

    def tell(self) -> int:
        return self.position

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data = b"".join(self.parts)
        self.parts.clear()
        return data


def zip_chunks(games) -> Iterator[bytes]:
    """The zip of these games' records, in pieces as it is written."""
    spool = _Spool()
    with zipfile.ZipFile(spool, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for game in games:
            table = load_table(game)
            info = zipfile.ZipInfo(file_name(table, "txt"),
                                   date_time=game.updated.timetuple()[:6])
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, record_text(table))
            yield spool.take()
    yield spool.take()


def write_zip(games, file: BinaryIO) -> None:
    for chunk in zip_chunks(games):
        file.write(chunk)
