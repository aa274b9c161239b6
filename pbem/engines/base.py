"""The contract every game engine keeps, put together, and the errors it speaks in.

An engine is pure rules: no Flask, no database, no clock, no global random. A game is
options + seed + the ordered list of (seat, move text); replaying them gives the same
state, always. The server knows exactly one turn concept, `to_act(state)`: the set of
seats the game waits for (one seat for turn-based play, several for simultaneous secret
choices — 6 nimmt!'s cards, Gem Forge's setup keeps and hand-limit discards —, the seats
asked in a reaction window, `CHANCE` when the dealer must act, and the empty set once
the game is over).

States are opaque to the server. An engine promises that `apply` never changes the state
it is given (it returns a new one), and that `to_json`/`from_json` round-trip a state
exactly, so the server can keep a snapshot instead of replaying the game for every move.

The contract comes in four parts, one module each, so an engine author reads the small
core first and each optional concern, with its defaults, on its own:

- **the rules** (pbem.engines.core, `GameRules`; required): `resolve_options`, `start`,
  then while `to_act` is not empty: `legal` / `parse` a seat's text into a decision,
  `notation` for its canonical text, `apply`; `automatic` says what that `apply` did
  by itself (forced steps, an ended turn, a tile cashed for its owner); `outcome` at
  the end; `view(state, seat)`, everything a seat may see as JSON-able data (with the
  key `automatic`); `to_json` / `from_json` for snapshots.
  `legal` holds only real decisions: what the game waits for from a seat in `to_act`,
  and for any seat what the rulings allow at any time (standing answers, G38 and N13;
  replacing a secret choice before the reveal, N14a). `parse` matches the legal
  decisions, takes the players' display names (`names`) so a seat may be named as
  people do, ignores trailing punctuation (`move_text`), and may accept the echo of an
  automatic step (X24), which is not in `legal` and changes nothing. Names are the
  server's, not the game's (a player may rename mid-game; a record replays without
  them), so they are an argument of `parse` and `prompt`, never part of the state, and
  canonical texts name seats by number.
- **chance and secrecy** (pbem.engines.chance, `ChanceAndSecrecy`): `deal`,
  `visible_notation`, `anonymous`, `determinize`, `random_decision`.
- **play by correspondence** (pbem.engines.correspondence, `Correspondence`): `prompt`,
  `identity`, `split_line`, `default_decision`, `mail_done`, `holds_commands`,
  `interrupts`, `shown_to_act`, `reveals`, `revelation`.
- **records and pictures** (pbem.engines.records, `RecordsAndPictures`): the tags, the
  result token, `seat_label`, `position`, `text_diagram` and `svg_diagram` (drawn from
  views only).
  Records and replay (`replay(record) -> state`) live in pbem.engines.game.

Chance is part of the game (as in OpenSpiel): when `to_act` is `{CHANCE}` the dealer
moves. The server produces that move with `deal(state, rng)` from the game's secret seed;
a record states it explicitly, so a game dealt with physical cards can be transcribed.
"""

from __future__ import annotations

from pbem.engines.chance import ChanceAndSecrecy
from pbem.engines.core import (CHANCE, AmbiguousMove, Decision, GameRules, IllegalMove,
                               InvalidMove, MoveError, Option, OptionError, Outcome, State,
                               move_text)
from pbem.engines.correspondence import Correspondence
from pbem.engines.records import RecordsAndPictures

__all__ = ["CHANCE", "AmbiguousMove", "ChanceAndSecrecy", "Correspondence", "Decision",
           "Engine", "GameRules", "IllegalMove", "InvalidMove", "MoveError", "Option",
           "OptionError", "Outcome", "RecordsAndPictures", "State", "move_text"]


class Engine(GameRules, ChanceAndSecrecy, Correspondence, RecordsAndPictures):
    """A whole engine: the rules core and the three optional concerns with their
    defaults. Subclasses fill in the rules and override the defaults they need."""
