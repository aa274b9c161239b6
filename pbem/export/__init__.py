"""Exports of archived games: what `/games/ID.txt`, `.sgf`, `/ply/N.svg`, `/print` and
`/games/export.zip` serve, and what `pbem export` writes offline.

    source.py     a game loaded read-only from the store, and the state at any ply
    record.py     the game record (notation/README.md), as public as the game allows
    sgf.py        Onyx records as SGF (notation/sgf.md)
    diagram.py    the public SVG diagram of a ply, sized for the screen or for print
    printable.py  one HTML page of the whole game, for printing
    bulk.py       a zip of finished games' records
    command.py    `pbem export`, the same offline

Every export is public: while a game runs it shows only what everybody may see (the
engines' public view and public move texts), and a record with hidden information is
refused until the game ends; after the end, everything, with the seed. Players appear
by display name, never by address.

Nothing is imported here, so `pbem`'s parser can read command.py's arguments without
loading the store.
"""
