"""Records and pictures in the engine contract: the tags naming a game, the result
token, and the diagrams drawn from views (text for mail, SVG for the web, and where
a game needs one a narrow SVG for phones).

The record format itself is notation/record.py; replaying a record is
pbem.engines.game. Diagrams are drawn from views only, so they can show no secret.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from pbem.engines.core import State


class RecordsAndPictures:
    """Defaults: options as tags by name, seats as `Seat1`…, PGN-style result shares."""

    #: Whether a move may change how a seat is named (`seat_label`): Onyx's swap. Where
    #: it may not, a listing names the seats without reading any game's state.
    labels_change = False

    def record_tags(self, options: dict[str, str], players: Sequence[str]) -> list[tuple[str, str]]:
        """The tags naming the game, its options and its players, in the order written."""
        tags = [("Game", self.title)]
        tags += [(option.name.capitalize(), options[option.name]) for option in self.options]
        tags += [(f"Seat{seat + 1}", name) for seat, name in enumerate(players)]
        return tags

    def result_tags(self, state: State, players: Sequence[str],
                    result: str) -> list[tuple[str, str]]:
        """Tags a reader needs beside the seats' and the result to know who won (Onyx
        after a swap); none by default, where the result's shares are in seat order."""
        return []

    def options_from_tags(self, tags: dict[str, str]) -> dict[str, str]:
        return {option.name: tags[option.name.capitalize()]
                for option in self.options if option.name.capitalize() in tags}

    def players_from_tags(self, tags: dict[str, str]) -> list[str]:
        players = []
        while f"Seat{len(players) + 1}" in tags:
            players.append(tags[f"Seat{len(players) + 1}"])
        return players

    def resigned_result(self, state: State, seat: int) -> str:
        """The result token when `seat` gives up (or runs out of time): with two players
        the other wins; with more, the others share the win."""
        players = state.players
        share = str(Fraction(1, players - 1))
        return "-".join("0" if other == seat else share for other in range(players))

    def result_token(self, state: State) -> str:
        """PGN-style: each seat's share of the win in seat order, `*` while running."""
        outcome = self.outcome(state)
        if outcome is None:
            return "*"
        return "-".join(str(share) for share in outcome.shares)

    def numbered_record(self) -> bool:
        """Whether the movetext numbers pairs of plies (two seats that alternate)."""
        return False

    def seat_label(self, state: State | None, seat: int) -> str:
        """How the notation and the diagrams name a seat: `P1`, `P2` … (Onyx: its colour).
        Mail writes it beside the player's name: "P2 bob"."""
        return f"P{seat + 1}"

    def position(self, state: State) -> dict:
        """The position in a few public keys, for `pbem record show --json`."""
        view = self.view(state, None)
        outcome = self.outcome(state)
        view.setdefault("to_move", sorted(self.to_act(state)) or None)
        view.setdefault("winner", sorted(outcome.winners) if outcome else None)
        return view

    def text_diagram(self, view: dict) -> str:
        raise NotImplementedError

    def svg_diagram(self, view: dict, size: int = 480, caption: str | None = None) -> str:
        raise NotImplementedError

    def legend(self) -> str:
        """What the pictures' marks mean, in words, for the mail's HTML beside its
        picture (the text diagram has its own lines for it): Onix's gem shapes and the
        letters a player types for them. '' where a picture needs none, as by default."""
        return ""

    def narrow_svg_diagram(self, view: dict, size: int = 360,
                           caption: str | None = None) -> str | None:
        """The SVG diagram laid out again for a phone's width, for a game whose one
        diagram scaled down to a phone would draw its text too small to read (Gem Forge's
        rows of tiles); None where the one diagram serves every width (a board, a table
        of cards), as by default."""
        return None

    def narrow_sheet(self, view: dict, size: int = 360, caption: str | None = None):
        """The narrow diagram's Sheet (narrow_svg_diagram in its parts), or None where the
        game has no narrow diagram: a mail's picture is read on phones first, so it is
        drawn from this one where there is one (pbem.mail.pictures)."""
        return None

    def sheet(self, view: dict, size: int = 480, caption: str | None = None):
        """The SVG diagram in its parts, for a picture (pbem.engines.svg.Sheet). By
        default one part, rasterised whole; a game whose pieces are many (stones,
        cards) lists them, so that a picture places them instead of drawing them."""
        import re

        from pbem.engines.svg import Sheet
        svg = self.svg_diagram(view, size=size, caption=caption)
        found = re.match(r'<svg[^>]*\bwidth="([\d.]+)" height="([\d.]+)"', svg)
        return Sheet.whole(svg, float(found.group(1)), float(found.group(2)))
