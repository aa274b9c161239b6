"""Gem Forge: the engine contract (RULINGS.md G1–G43) — decisions, their text, views.

The rules themselves are pure functions on the state in pbem.engines.gemforge.rules; this
module says which decisions each seat has, reads them by matching the legal ones, what
each seat may see, and what is done for a seat at a deadline. How decisions are written
(and the dealer's moves read) is in pbem.engines.gemforge.moves; the grammar is in
notation/gemforge.md. Standing answers for reaction windows (G38) are decisions too
(`pref cancel ask`): any seat may send one at any time; they are secret, and the rules
apply them whenever a window opens, so windows close without mail and the record shows
why.
"""

from __future__ import annotations

import random
from itertools import combinations

from pbem.engines.base import CHANCE, AmbiguousMove, Engine, IllegalMove, InvalidMove, \
    Outcome, move_text
from pbem.engines.dealing import pile_order
from pbem.engines.gemforge.messages import prompt, why_not
from pbem.engines.gemforge.moves import (VERBS, deal_text, decision_text, meaning,
                                         read_deal, to_shuffle, words)
from pbem.engines.gemforge.random_play import own_turn, plain_random, turn_options, turn_random
from pbem.engines.gemforge.rules import (advance, answer_window, card_options, card_words, cash,
                                         chance_need, copy_step, next_turn, play_card,
                                         reveal_tiles)
from pbem.engines.gemforge.state import (
    CARD_NAMES, CART, DECK, DEALT_TILES, GEMS, HAND_LIMIT, KEEP, MARKET, OWN_TURN,
    PREFS, SETUP, WINDOWS, brown_waiting, cash_options, change, clockwise, empty_ornament,
    GemState, limit_seats, pop, push, put, remove_cards, say, seat_name, set_gem,
    shuffled, tiles, without)


class GemForge(Engine):
    id = "gemforge"
    title = "Gem Forge"
    min_players, max_players = 2, 4
    dealt = True
    holds_commands = True  # G41: a mail's commands pause at each reaction window
    decision_words = tuple(v for v in VERBS if v != "keep")  # `take R, end`; not `cash T1, T2`

    def start(self, options: dict[str, str], players: int = 2,
              seed: str | None = None) -> GemState:
        n = players
        return GemState(players=n, carts=("",) * n, hands=((),) * n, ornaments=((),) * n,
                        points=(0,) * n, prefs=(tuple(v[0] for v in PREFS.values()),) * n)

    # -- whom the game waits for ------------------------------------------------------

    def to_act(self, state: GemState) -> frozenset[int]:
        if state.winner is not None:
            return frozenset()
        if chance_need(state):
            return frozenset({CHANCE})
        if state.dealt:
            return frozenset(s for s in range(state.players) if not state.kept[s])
        if state.pending:
            head = state.pending[0]
            if head["step"] == "limit":  # G25a: every seat over the limit at once
                return frozenset(limit_seats(state, head))
            return frozenset(head["asked"] if "asked" in head else {head["seat"]})
        return frozenset({state.active})

    def legal(self, state: GemState, seat: int) -> list[tuple]:
        if state.winner is not None or seat == CHANCE or chance_need(state):
            return []
        found = self._answers(state, seat)
        prefs = state.prefs[seat]
        return found + [("pref", w, v) for i, w in enumerate(WINDOWS) for v in PREFS[w]
                        if v != prefs[i]]

    def _answers(self, state: GemState, seat: int) -> list[tuple]:
        """The decisions of the moment, standing answers aside. A keep is final: once
        it is in, the seat waits for the others (G8) and has no keep decisions left."""
        if state.dealt:
            return ([] if state.kept[seat] else
                    [("keep", k) for k in combinations(state.dealt[seat], KEEP)])
        head = state.pending[0] if state.pending else None
        if head is None:
            return self._turn(state, seat) if seat == state.active else []
        if head["step"] in ("chain", "copy") and seat in head["asked"]:
            card = "cancel" if head["step"] == "chain" else head["card"]
            plays = card_options(state, seat, card) if card in state.hands[seat] else []
            return [("pass",)] + [("play", card, args) for args in plays]
        if head["step"] == "limit" and seat in limit_seats(state, head):
            hand = sorted(state.hands[seat], key=CARD_NAMES.index)
            excess = len(hand) - HAND_LIMIT
            return [("drop", c) for c in dict.fromkeys(combinations(hand, excess))]
        if head["step"] == "replace" and head["seat"] == seat:
            return ([("pick", i) for i in range(MARKET)]
                    + [("refresh", i) for i in range(MARKET)])
        return []

    def _turn(self, state: GemState, seat: int) -> list[tuple]:
        found = [("cash", c) for c in cash_options(state, seat)]
        if state.actions == 2:
            return found + ([] if brown_waiting(state, seat) else [("end",)])
        can_take = len(state.carts[seat]) < CART and state.mine
        kinds = ["take"] * bool(can_take) + ["set", "discard", "draw"]
        for kind in kinds + [card for card in OWN_TURN if card in state.hands[seat]]:
            found += turn_options(state, seat, kind)
        return found

    # -- notation ---------------------------------------------------------------------

    def notation(self, state: GemState, seat: int, decision: tuple) -> str:
        return deal_text(decision) if seat == CHANCE else decision_text(decision)

    def parse(self, state: GemState, seat: int, text: str, names=None) -> tuple:
        """Match the legal decisions; a set of tiles, cards or kept gems may be written
        in any order (only discard-gems' order means something, G4a)."""
        text = move_text(text)
        if seat == CHANCE:
            return read_deal(state, text)
        wanted = words(text, names)
        if not wanted:
            raise InvalidMove("an empty move: write what you do, e.g. take, draw or pass")
        legal = self.legal(state, seat)
        # A decision's canonical text folds to its kind first (decision_text), so only
        # those of the kind written are folded and compared: folding every legal
        # decision was most of the time a game replayed from its record took.
        sense = meaning(wanted)
        found = [d for d in legal
                 if d[0] == wanted[0] and meaning(words(decision_text(d))) == sense]
        if len(found) == 1:
            return found[0]
        if found:
            raise AmbiguousMove(f"{text!r} could mean "
                                f"{' or '.join(map(decision_text, found))}; say which.")
        if wanted[0] not in VERBS:
            raise InvalidMove(f"{text!r} is not a Gem Forge move: a move starts with one of "
                              f"{', '.join(VERBS)} (see notation/gemforge.md).")
        raise IllegalMove(why_not(self, state, seat, text, wanted))

    def visible_notation(self, state: GemState, seat: int, decision: tuple,
                         viewer: int | None) -> str | None:
        """Secret: the cards and tiles the dealer shuffles, kept tiles until the reveal,
        window answers (only their outcome is told), hand-limit discards, standing answers."""
        if viewer == seat and seat != CHANCE:
            return self.notation(state, seat, decision)
        if seat == CHANCE:
            return self.notation(state, seat, decision) if decision[0] in ("first", "mine") \
                else None
        if decision[0] in ("keep", "pass", "drop", "pref") or self._answering(state, seat):
            return None
        return self.notation(state, seat, decision)

    def anonymous(self, state: GemState, seat: int, decision: tuple) -> bool:
        """G39: who was asked in a window, and who answered, is never told; G38: standing
        answers are private."""
        return seat != CHANCE and (decision[0] == "pref" or self._answering(state, seat))

    @staticmethod
    def _answering(state: GemState, seat: int) -> bool:
        head = state.pending[0] if state.pending else {}
        return head.get("step") in ("chain", "copy") and seat in head["asked"]

    def reveals(self, state: GemState, seat: int, decision: tuple) -> bool:
        """Standing answers reveal nothing; a secret choice or a window answer reveals
        only when it is the last one awaited."""
        if decision[0] == "pref":
            return False
        if decision[0] == "keep":
            return self.to_act(state) == {seat}
        if self._answering(state, seat):
            return state.pending[0]["asked"] == (seat,)
        return True

    # -- playing ----------------------------------------------------------------------

    def deal(self, state: GemState, rng: random.Random) -> tuple:
        need = chance_need(state)
        if need == "first":
            return ("first", rng.randrange(state.players))
        if need == "mine":
            return ("mine", "".join(shuffled(GEMS, rng)))
        if need in ("cards", "tiles"):
            table = DECK if need == "cards" else tuple(tiles())
            return (need, shuffled(pile_order(rng, to_shuffle(state, need), table), rng))
        raise IllegalMove("the dealer has nothing to deal now")

    def apply(self, state: GemState, seat: int, decision: tuple) -> GemState:
        # Every way on changes the state, so one copy is enough: no need for another here.
        if state.automatic:
            state = change(state, automatic=())
        if seat == CHANCE:
            return advance(self._apply_deal(state, decision))
        kind = decision[0]
        if kind == "pref":
            i = WINDOWS.index(decision[1])
            return change(state, prefs=put(state.prefs, seat,
                                           put(state.prefs[seat], i, decision[2])))
        if kind == "keep":
            state = change(state, kept=put(state.kept, seat, decision[1]))
            return advance(reveal_tiles(state)) if all(state.kept) else state
        if self._answering(state, seat):
            return advance(answer_window(state, seat, decision))
        return advance(self._apply_own(state, seat, decision))

    def automatic(self, state: GemState) -> list[tuple[int, str]]:
        """An ended turn (`end`) and a lone brown tile cashed for its owner (G15, G41)."""
        return list(state.automatic)

    def _apply_deal(self, state: GemState, decision: tuple) -> GemState:
        """Setup (G4, G6–G8): each player's first gem, card and 5 tiles are dealt from the
        first player clockwise off the new piles; later, a reshuffled pile replaces one."""
        kind, what = decision
        n, setup = state.players, state.setup
        if kind == "first":
            return say(change(state, first=what, active=what, setup=1),
                       f"{seat_name(what)} is the first player")
        if kind == "mine":
            carts = tuple(c + g for c, g in zip(state.carts, self._round(state, what, 1)))
            return change(state, mine=what[n:], carts=carts, setup=2)
        if kind == "cards" and setup < len(SETUP):
            hands = tuple(h + c for h, c in zip(state.hands, self._round(state, what, 1)))
            return change(state, deck=what[n:], hands=hands, setup=3)
        if kind == "cards":
            return say(change(state, deck=what, discard=()),
                       "the action cards are reshuffled")
        if setup < len(SETUP):
            return change(state, tiles=what[DEALT_TILES * n:], kept=((),) * n, setup=4,
                          dealt=self._round(state, what, DEALT_TILES))
        kept = tuple(t for t in state.tile_discard if t in state.fresh)
        return say(change(state, tiles=what, tile_discard=kept), "the tiles are reshuffled")

    @staticmethod
    def _round(state: GemState, pile, size: int) -> tuple:
        """Per seat, what a deal of `size` each from the first player clockwise gives."""
        given = [pile[:0]] * state.players
        for k, seat in enumerate(clockwise(state, state.first)):
            given[seat] = pile[size * k:size * (k + 1)]
        return tuple(given)

    def _apply_own(self, state: GemState, seat: int, decision: tuple) -> GemState:
        """A decision of the seat the game waits for outside a window."""
        kind = decision[0]
        if kind == "drop":
            hand = remove_cards(state.hands[seat], decision[1])
            # The limit step ends when nobody is over the limit any more (G25a).
            text = f"{seat_name(seat)} discards {len(decision[1])} card(s) face down"
            return say(state, text, hands=put(state.hands, seat, hand),
                       discard=state.discard + decision[1])
        if kind in ("pick", "refresh"):
            slot = decision[1]
            tile = state.market[slot]
            state = change(pop(state), market=put(state.market, slot, None))
            if kind == "pick":
                row = state.ornaments[seat] + (empty_ornament(tile),)
                state = change(state, ornaments=put(state.ornaments, seat, row))
                return push(say(state, f"{seat_name(seat)} takes {tile} from the market"),
                            {"step": "refill", "slot": slot})
            state = change(state, tile_discard=state.tile_discard + (tile,),
                           fresh=state.fresh + (tile,))
            return push(say(state, f"{seat_name(seat)} discards {tile} from the market and "
                                   f"takes the top tile"),
                        {"step": "deal-tile", "seat": seat}, {"step": "refill", "slot": slot})
        if kind == "cash":
            return cash(state, seat, decision[1])
        if kind == "end":
            return next_turn(state)
        return self._action(state, seat, decision)

    def _action(self, state: GemState, seat: int, decision: tuple) -> GemState:
        """One of the five actions (G11, G12), with the copy window it opens (G36). The
        action is counted in the same copy of the state as its effect and its news."""
        kind, cart, who = decision[0], state.carts[seat], seat_name(seat)
        actions = state.actions + 1
        if kind == "take":
            gem = state.mine[0]
            state = say(state, f"{who} takes {gem}", actions=actions, mine=state.mine[1:],
                        carts=put(state.carts, seat, cart + gem))
            window = copy_step(state, "copy-take")
        elif kind == "set":
            state = say(set_gem(state, seat, decision[1], decision[2]),
                        f"{who} sets {decision[1]} in {decision[2]}", actions=actions)
            window = copy_step(state, "copy-set")
        elif kind == "discard":
            return say(state, f"{who} discards {decision[1]}", actions=actions,
                       carts=put(state.carts, seat, without(cart, decision[1])),
                       mine=state.mine + decision[1])
        elif kind == "draw":
            steps = ({"step": "draw", "seat": seat, "n": 1},
                     {"step": "limit", "seats": (seat,)})
            return say(state, f"{who} takes an action card", actions=actions,
                       pending=steps + state.pending)
        else:
            return play_card(change(state, actions=actions), seat, decision[1], decision[2])
        return push(state, window) if window else state

    def outcome(self, state: GemState) -> Outcome | None:
        if state.winner is None:
            return None
        return Outcome.shared_by([state.winner], state.players,
                                 f"{seat_name(state.winner)} reached "
                                 f"{state.points[state.winner]} points")

    # -- what players see (G9) --------------------------------------------------------

    def view(self, state: GemState, seat: int | None) -> dict:
        """Public: mine, carts, ornaments, market, points, hand and pile sizes, cards in
        play, news. Own: hand, standing answers, dealt tiles, the question asked of you.
        Never: another's cards or answers, whom a window waits for, any pile's order."""
        over = state.winner is not None
        head = state.pending[0] if state.pending else {}
        view = {
            "game": self.id, "players": state.players, "first": state.first,
            "active": state.active, "actions_left": 2 - state.actions,
            "phase": ("over" if over else "dealing" if state.setup < len(SETUP)
                      else "keep" if state.dealt else "play"),
            "mine": state.mine, "carts": list(state.carts), "points": list(state.points),
            "hand_sizes": [len(h) for h in state.hands],
            "ornaments": [[{**tiles()[t].face(), "gems": gems, "complete": "." not in gems}
                           for t, gems in row] for row in state.ornaments],
            "market": [tiles()[t].face() if t else None for t in state.market],
            "action_deck": len(state.deck), "action_discard": len(state.discard),
            "tile_deck": len(state.tiles), "tile_discard": len(state.tile_discard),
            "chain": [{"seat": s, "card": c, "text": card_words(c, a)}
                      for s, c, a in head.get("links", ())],
            "waiting": ({"seats": sorted(self.to_act(state)), "for": head["step"]}
                        if head.get("step") in ("limit", "replace") else None),
            "news": [list(item) for item in state.news],
            "automatic": [{"seat": s, "text": t} for s, t in state.automatic],
            "winner": state.winner,
        }
        if seat is not None:
            view.update(you=seat, hand=list(state.hands[seat]),
                        prefs=dict(zip(WINDOWS, state.prefs[seat])),
                        asked=(("cancel" if head["step"] == "chain" else head["card"])
                               if self._answering(state, seat) else None))
            if state.dealt:
                view.update(dealt=[tiles()[t].face() for t in state.dealt[seat]],
                            kept=list(state.kept[seat]))
        if over:
            view.update(hands=[list(h) for h in state.hands], deck=list(state.deck),
                        discard=list(state.discard), tile_order=list(state.tiles),
                        tile_discard_order=list(state.tile_discard),
                        all_prefs=[dict(zip(WINDOWS, p)) for p in state.prefs])
        return view

    def determinize(self, state: GemState, viewer: int | None,
                    rng: random.Random) -> GemState:
        """Redeal what `viewer` cannot see: others' action cards and the deck's order
        (a card promised in an open window stays with its player), the tile deck's order,
        and in the setup others' dealt tiles and choices."""
        if state.winner is not None:
            return state
        others = [s for s in range(state.players) if s != viewer]
        promised = {s: [] for s in others}
        head = state.pending[0] if state.pending else {}
        for s in head.get("cancels", ()):
            promised.setdefault(s, []).append("cancel")
        for s, _ in head.get("plays", ()):
            promised.setdefault(s, []).append(head["card"])
        pool = list(state.deck)
        for s in others:
            pool += remove_cards(state.hands[s], promised[s])
        rng.shuffle(pool)
        hands = list(state.hands)
        for s in others:
            count = len(hands[s]) - len(promised[s])
            hands[s], pool = tuple(promised[s]) + tuple(pool[:count]), pool[count:]
        state = change(state, hands=tuple(hands), deck=tuple(pool))
        tile_pool = list(state.tiles)
        if state.dealt:
            tile_pool += [t for s in others for t in state.dealt[s]]
        rng.shuffle(tile_pool)
        if state.dealt:
            dealt, kept = list(state.dealt), list(state.kept)
            for s in others:
                dealt[s], tile_pool = tuple(tile_pool[:DEALT_TILES]), tile_pool[DEALT_TILES:]
                kept[s] = dealt[s][:KEEP] if kept[s] else ()
            state = change(state, dealt=tuple(dealt), kept=tuple(kept))
        return change(state, tiles=tuple(tile_pool))

    # -- snapshots --------------------------------------------------------------------

    def to_json(self, state: GemState) -> dict:
        return {name: plain(getattr(state, name)) for name in GemState.__dataclass_fields__}

    def from_json(self, data: dict) -> GemState:
        return GemState(**{name: frozen(value) for name, value in data.items()})

    # -- helping players --------------------------------------------------------------

    def public_turn(self, state: GemState):
        """Whose turn it is, as a spectator counts them: the setup's keeps are one turn,
        then each player's turn, its actions, cashing and reaction windows, is one."""
        return "keep" if state.dealt else state.active

    def prompt(self, state: GemState, seat: int, names=None) -> str:
        """What to decide now, in a line or two, with texts to type."""
        return prompt(self, state, seat)

    def default_decision(self, state: GemState, seat: int) -> tuple | None:
        """At a deadline (G8, G15, G25, G39, G42): keep the first three tiles dealt; pass
        in a window; drop the cards just drawn; take market slot 1; a missing action is
        Take an Action Card, then a waiting brown tile is cashed, then the turn ends."""
        if seat not in self.to_act(state) or seat == CHANCE:
            return None
        if state.dealt:
            return ("keep", state.dealt[seat][:KEEP])
        if self._answering(state, seat):
            return ("pass",)
        head = state.pending[0] if state.pending else {}
        if head.get("step") == "limit":
            hand = state.hands[seat]
            drop = hand[HAND_LIMIT:]
            return ("drop", tuple(sorted(drop, key=CARD_NAMES.index)))
        if head.get("step") == "replace":
            return ("pick", 0)
        if state.actions < 2:
            return ("draw",)
        brown = [c for c in cash_options(state, seat) if not tiles()[c[0]].light]
        return ("cash", brown[0]) if brown else ("end",)

    def shown_to_act(self, state: GemState, viewer: int | None) -> frozenset[int] | None:
        """G39: nobody is told whom a reaction window waits for."""
        head = state.pending[0] if state.pending else {}
        return None if head.get("step") in ("chain", "copy") else self.to_act(state)

    def interrupts(self, state: GemState, actor: int, decision: tuple, waiting: int) -> bool:
        """G41: a card played in the window stops the active player's held commands."""
        return decision[0] == "play"

    def mail_done(self, state: GemState, seat: int) -> tuple | None:
        """G41: the turn ends after the second action once the mail has no commands left
        and no brown tile is waiting (then `end` is legal; light-blue tiles may wait)."""
        if (seat in self.to_act(state) and not state.pending and not state.dealt
                and seat == state.active and ("end",) in self._turn(state, seat)):
            return ("end",)
        return None

    def random_decision(self, state: GemState, seat: int, rng: random.Random) -> tuple:
        """Random but lively: standing answers now and then, cashing and reacting often,
        otherwise a random kind of decision, then a random one of that kind (the policy
        is in pbem.engines.gemforge.random_play)."""
        if own_turn(state, seat):
            return turn_random(state, seat, rng)
        return plain_random(self, state, seat, rng)

    # -- diagrams ---------------------------------------------------------------------

    def text_diagram(self, view: dict) -> str:
        from pbem.engines.gemforge.render import text_diagram
        return text_diagram(view)

    def legend(self) -> str:
        from pbem.engines.gemforge.render import PICTURE_LEGEND
        return PICTURE_LEGEND

    def svg_diagram(self, view: dict, size: int = 480, caption: str | None = None) -> str:
        from pbem.engines.gemforge.render import svg_diagram
        return svg_diagram(view, size=size, caption=caption)

    def narrow_svg_diagram(self, view: dict, size: int = 360,
                           caption: str | None = None) -> str:
        from pbem.engines.gemforge.render import svg_diagram
        return svg_diagram(view, size=size, caption=caption, narrow=True)

    def sheet(self, view: dict, size: int = 480, caption: str | None = None):
        from pbem.engines.gemforge.render import sheet
        return sheet(view, size, caption)

    def narrow_sheet(self, view: dict, size: int = 360, caption: str | None = None):
        from pbem.engines.gemforge.render import sheet
        return sheet(view, size, caption, narrow=True)


def plain(value):
    """Tuples to lists, all the way down, for JSON."""
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    return value


def frozen(value):
    """Lists back to tuples, all the way down."""
    if isinstance(value, list):
        return tuple(frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: frozen(v) for k, v in value.items()}
    return value
