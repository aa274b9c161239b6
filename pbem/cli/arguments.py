"""What several commands take alike: a game and its options (`GAME --option K=V`)."""

from __future__ import annotations

import argparse

from pbem.engines import ENGINES
from pbem.engines.base import OptionError


def game_parser(commands, name: str, help: str) -> argparse.ArgumentParser:
    """A command about one game: its name and its options."""
    parser = commands.add_parser(name, help=help)
    parser.add_argument("game", metavar="GAME", help=f"one of: {', '.join(ENGINES)}")
    parser.add_argument("--option", action="append", default=[], metavar="K=V",
                        help="a game option, e.g. board=16 or setup=open")
    return parser


def option_pair(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise OptionError(f"options are written K=V, such as board=16; not {text!r}")
    return key.strip(), value.strip()
