"""A game's record (notation/README.md) as the archive publishes it.

The record is the one `Table.record_game` writes for the players at the end, so the
download and the mail agree byte for byte: display names, never addresses; the players'
`say` comments as `{comments}` after the ply they follow (and before the first move, for
those said before it). While a game with hidden information runs, its record would show
every hand dealt, so it is refused (403) until the game ends; a running Onyx game has no
secrets and its record is served with the result `*`. After the end the seed is in it,
so anyone can check the deal against the commitment published at the start.
"""

from __future__ import annotations

from notation.record import Record, format_record
from pbem.export.source import ExportError, hides_information, is_over
from pbem.play import Table


def game_record(table: Table) -> Record:
    """The publishable record of the game; ExportError 403 while it hides anything."""
    if hides_information(table):
        game, title = table.game, table.engine.title
        if game.status == "cancelled":  # it never ended, so nobody agreed to show hands
            raise ExportError(403, f"Game #{game.id} ({title}) was cancelled before it "
                                   f"ended; its record would show the cards in the "
                                   f"players' hands, so it stays private.")
        raise ExportError(403, f"Game #{game.id} ({title}) is {game.status}, and its "
                               f"record would show the cards in the players' hands. The "
                               f"full record, with the seed, is published when the game "
                               f"ends; until then the game's page shows the public move "
                               f"list.")
    record = table.record(reveal_seed=is_over(table))
    return record


def record_text(table: Table) -> str:
    """The record in pbem's layout, ready for `pbem record check`."""
    return format_record(game_record(table))


def file_name(table: Table, suffix: str) -> str:
    """`pbem-12-onyx.txt`: the id first, so a folder of them sorts by game."""
    return f"pbem-{table.game.id}-{table.engine.id}.{suffix}"
