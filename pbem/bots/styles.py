"""A family of opponent styles for each card game: short rules a person might play by.

Beside the habit (pbem.bots.heuristic, `habit` here), each game has styles that punish a
different assumption of a bot that expects the habit:

- 6 nimmt! Baron Oxx (pbem.bots.styles_oxx): `dumper` dumps the highest card that fits;
  `keeper` keeps the lowest card to take a cheap row on purpose; `counter` counts the
  cards not seen yet; `careless` slips one time in three.
- Onix: `grabber` takes the gem that brings the most cards now; `hoarder` takes the
  Hoard gem whenever it shows; `spiteful` steals or destroys, from the leader; `careless`.
- Gem Forge: `drawer` draws an action card whenever it cannot complete an ornament and
  its hand has room; `miner` takes the mine's front gem whenever its cart has room,
  useful or not; `careless`.

Outside those rules each style plays the habit. Two uses:

- `pbem.bots.arena.style_decision`: a style as a player (`pbem arena`,
  contestant `style:NAME`; `mixed` seats the family in turn). It decides from the seat's
  own view only (`search.canonical`: everything hidden from the seat laid out in a fixed
  order), like the bots, and the decision is mapped back to the real state by its text.
- `sample(engine, players, seat, rng)` and `play(...)`: the bots' playouts seat each other
  seat with a style drawn from the family per sampled world, so the search does not bet
  on one habit (pbem.bots.search, onix_search, oxx_playout). There the world is already
  the search's sample, so a style reads it directly.
"""

from __future__ import annotations

import random

from notation.baronoxx import NO_PREF
from notation.onix import effect_of
from pbem.bots import heuristic, oxx_playout
from pbem.bots.heuristic_gemforge import gemforge, useful
from pbem.bots.styles_oxx import CARELESS, FAMILY as OXX_FAMILY
from pbem.engines.base import CHANCE, Decision, Engine, State
from pbem.engines.gemforge.state import CART, HAND_LIMIT, set_options
from pbem.engines.onix.state import TAKE, chains

HABIT = "habit"
CARELESS_NAME = "careless"
#: Each card game's family, the habit first.
FAMILIES = {
    "baronoxx": tuple(OXX_FAMILY),
    "onix": (HABIT, "grabber", "hoarder", "spiteful", CARELESS_NAME),
    "gemforge": (HABIT, "drawer", "miner", CARELESS_NAME),
}
#: Every style's name, in any game.
NAMES = tuple(dict.fromkeys(name for family in FAMILIES.values() for name in family))


def family(engine: Engine) -> tuple[str, ...]:
    if engine.id not in FAMILIES:
        raise ValueError(f"{engine.title} has no family of styles: it is for the card "
                         f"games.")
    return FAMILIES[engine.id]


def sample(engine: Engine, players: int, seat: int, rng: random.Random) -> tuple[str, ...]:
    """A style per seat for one sampled world: the habit for `seat` (the bot's own future
    play), one of the family at random for every other."""
    names = family(engine)
    return tuple(HABIT if s == seat else names[rng.randrange(len(names))]
                 for s in range(players))


def play(engine: Engine, world: State, seat: int, rng: random.Random, name: str,
         epsilon: float) -> Decision:
    """Style `name`'s decision for `seat` in `world`, or with chance `epsilon` (a third
    for `careless`) a random legal one. The dealer deals."""
    if seat == CHANCE:
        return engine.deal(world, rng)
    if name == CARELESS_NAME and engine.id != "baronoxx":  # 6 nimmt!'s slips its own
        epsilon = max(epsilon, CARELESS)
    if rng.random() < epsilon:  # drawn even at 0, as the habit's playouts always drew
        return engine.random_decision(world, seat, rng)
    if engine.id == "baronoxx":
        return _baronoxx(engine, world, seat, name, rng)
    if engine.id == "onix":
        return ONIX_STYLES.get(name, heuristic.onix)(engine, world, seat)
    if engine.id == "gemforge":
        return GEMFORGE_STYLES.get(name, gemforge)(engine, world, seat)
    raise ValueError(f"{engine.title} has no family of styles")


# -- 6 nimmt! Baron Oxx: the fast table's styles on an engine state ---------------------

def _baronoxx(engine, world, seat: int, name: str, rng: random.Random):
    style = OXX_FAMILY[name]
    if world.positive or name == HABIT:  # Variant 2 scores the other way: the habit
        return heuristic.baronoxx(engine, world, seat)
    table = oxx_playout.Table(world.rows, world.rule1)
    if seat == world.asked:
        card, kind, options = world.waiting()
        return (kind, style.row(table, kind, list(options), card, rng, 0.0))
    if world.chosen[seat] is not None:  # chosen already (N14a): keep it
        return ("play",) + world.chosen[seat]
    card = style.card(table, list(world.hands[seat]), oxx_playout.live_cards(world),
                      world.players, rng, 0.0)
    return ("play", card, NO_PREF)


# -- Onix ---------------------------------------------------------------------------------

def _best(engine, state, choices):
    """The habit's favourite among `choices`."""
    return max(choices, key=lambda choice: heuristic.onix_value(engine, state, choice))


def grabber(engine, state, seat: int):
    """Take the gem that brings the most cards now (ties: the habit's favourite)."""
    if state.phase != TAKE:
        return heuristic.onix(engine, state, seat)
    choices = engine.choices(state)
    length = {(c.gem, c.pile): len(next(ch for ch in chains(state, c.gem) if ch[0] == c.pile))
              for c in choices}
    most = max(length.values())
    return _best(engine, state, [c for c in choices if length[c.gem, c.pile] == most])


def hoarder(engine, state, seat: int):
    """Take the Hoard gem whenever it shows (a card won for sure)."""
    if state.phase == TAKE:
        hoards = [c for c in engine.choices(state) if effect_of(c.gem) == "hoard"]
        if hoards:
            return _best(engine, state, hoards)
    return heuristic.onix(engine, state, seat)


def spiteful(engine, state, seat: int):
    """Take a gem that steals or destroys when an opponent has a Collection, and aim it
    at the leader (the most Hoard cards, then the most gems shown)."""
    choices = engine.choices(state)
    if state.phase == TAKE:
        harmful = [c for c in choices if effect_of(c.gem) in ("steal", "destroy")]
        if harmful and any(state.collections[s] for s in range(state.players) if s != seat):
            return _best(engine, state, harmful)
    aimed = [c for c in choices if getattr(c, "seat", None) is not None]
    if aimed:
        def lead(s):
            return (len(state.hoards[s]),
                    sum(heuristic.POPCOUNT[heuristic._mask(c)] for _, c in
                        state.collections[s]))
        leader = max({c.seat for c in aimed}, key=lead)
        return _best(engine, state, [c for c in aimed if c.seat == leader])
    return heuristic.onix(engine, state, seat)


ONIX_STYLES = {"grabber": grabber, "hoarder": hoarder, "spiteful": spiteful}


# -- Gem Forge ------------------------------------------------------------------------------

def _completes(state, seat: int) -> bool:
    """Whether a gem of the cart completes an ornament now."""
    for gem, tile_id in set_options(state, seat):
        gems = next(g for t, g in state.ornaments[seat] if t == tile_id)
        if gems.count(".") == 1:
            return True
    return False


def drawer(engine, state, seat: int):
    """Draw an action card whenever no gem completes an ornament and the hand has room."""
    habit = gemforge(engine, state, seat)
    if (habit[0] in ("set", "take", "discard") and len(state.hands[seat]) < HAND_LIMIT
            and not _completes(state, seat) and ("draw",) in engine.legal(state, seat)):
        return ("draw",)
    return habit


def miner(engine, state, seat: int):
    """Take the mine's front gem whenever the cart has room, useful or not."""
    habit = gemforge(engine, state, seat)
    if (habit[0] in ("draw", "discard") and len(state.carts[seat]) < CART and state.mine
            and not useful(state.mine[0], state.carts[seat], state.ornaments[seat])
            and ("take",) in engine.legal(state, seat)):
        return ("take",)
    return habit


GEMFORGE_STYLES = {"drawer": drawer, "miner": miner}
