"""Duel: a tiny dealt game with secret simultaneous choices, for testing the contract.

Not a product game. It exercises what Onyx cannot: the dealer's moves (`Dealer: deal
...;` in records, checked against a revealed seed), several seats to act at once, a
choice hidden until every choice is in, and `determinize` for the secrecy test.

Rules: cards 1–9. The dealer deals two cards to each player. In each of two rounds every
player secretly plays a card (`play 7`, replaceable until the reveal); when the last
choice is in, all are revealed and the highest card scores a point. Most points win;
ties share.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from pbem.engines.base import CHANCE, Engine, IllegalMove, InvalidMove, Outcome

DECK = tuple(range(1, 10))
HAND = 2


@dataclass(frozen=True)
class DuelState:
    players: int
    hands: tuple[tuple[int, ...], ...] = ()
    chosen: tuple[int | None, ...] = ()
    scores: tuple[int, ...] = ()
    revealed: tuple[int, ...] = ()
    unseen: tuple[int, ...] = field(default=DECK)  # undealt cards


class Duel(Engine):
    id = "duel"
    title = "Duel"
    min_players, max_players = 2, 3
    dealt = True

    def start(self, options, players=2, seed=None):
        return DuelState(players, scores=(0,) * players)

    def to_act(self, state):
        if not state.hands:
            return frozenset({CHANCE})
        if not any(state.hands):
            return frozenset()
        return frozenset(s for s, c in enumerate(state.chosen) if c is None)

    def legal(self, state, seat):
        if seat == CHANCE or not state.hands or not any(state.hands):
            return []
        return [("play", card) for card in state.hands[seat]]

    def deal(self, state, rng):
        cards = list(state.unseen)
        rng.shuffle(cards)
        return ("deal", tuple(cards[:HAND * state.players]))

    def parse(self, state, seat, text, names=None):
        words = text.lower().split()
        if seat == CHANCE:
            if state.hands:
                raise IllegalMove("the cards are already dealt")
            try:
                cards = tuple(int(w) for w in words[1:])
            except ValueError:
                raise InvalidMove(f"{text!r}: write deal and the cards, two per player")
            if (words[:1] != ["deal"] or len(cards) != HAND * state.players
                    or len(set(cards)) != len(cards) or not set(cards) <= set(DECK)):
                raise InvalidMove(f"{text!r}: deal {HAND * state.players} different cards "
                                  f"from 1 to 9")
            return ("deal", cards)
        if len(words) != 2 or words[0] != "play" or not words[1].isdigit():
            raise InvalidMove(f"{text!r} is not a Duel move; write play and a card, e.g. "
                              f"play 7")
        decision = ("play", int(words[1]))
        if decision not in self.legal(state, seat):
            raise IllegalMove(f"you cannot play {words[1]}: your hand is "
                              f"{' '.join(map(str, state.hands[seat])) or 'empty'}")
        return decision

    def notation(self, state, seat, decision):
        return " ".join(map(str, (decision[0], *(decision[1] if seat == CHANCE
                                                  else (decision[1],)))))

    def visible_notation(self, state, seat, decision, viewer):
        return self.notation(state, seat, decision) if viewer == seat else None

    def apply(self, state, seat, decision):
        if seat == CHANCE:
            cards = decision[1]
            hands = tuple(tuple(sorted(cards[HAND * s:HAND * s + HAND]))
                          for s in range(state.players))
            return replace(state, hands=hands, chosen=(None,) * state.players,
                           unseen=tuple(c for c in state.unseen if c not in cards))
        chosen = list(state.chosen)
        chosen[seat] = decision[1]
        if None in chosen:
            return replace(state, chosen=tuple(chosen))
        best = max(chosen)
        scores = tuple(s + (c == best) for s, c in zip(state.scores, chosen))
        hands = tuple(tuple(x for x in h if x != c) for h, c in zip(state.hands, chosen))
        return replace(state, hands=hands, scores=scores, revealed=tuple(chosen),
                       chosen=(None,) * state.players)

    def outcome(self, state):
        if not state.hands or any(state.hands):
            return None
        top = max(state.scores)
        winners = [s for s, score in enumerate(state.scores) if score == top]
        return Outcome.shared_by(winners, state.players, f"{top} points")

    def view(self, state, seat):
        over = self.outcome(state) is not None
        return {"scores": list(state.scores), "revealed": list(state.revealed),
                "hand_sizes": [len(h) for h in state.hands],
                "chosen": [c is not None for c in state.chosen],
                "hand": list(state.hands[seat]) if seat is not None and state.hands else None,
                "my_choice": state.chosen[seat] if seat is not None and state.hands else None,
                "hands": [list(h) for h in state.hands] if over else None,
                "automatic": []}

    def determinize(self, state, viewer, rng):
        if not state.hands:
            return state
        known = set(state.hands[viewer]) if viewer is not None else set()
        pool = [c for h in state.hands for c in h if c not in known] + list(state.unseen)
        rng.shuffle(pool)
        hands, chosen = [], []
        for seat, hand in enumerate(state.hands):
            if seat == viewer:
                hands.append(hand)
                chosen.append(state.chosen[seat])
                continue
            new = tuple(sorted(pool.pop() for _ in hand))
            hands.append(new)
            chosen.append(None if state.chosen[seat] is None else rng.choice(new))
        return replace(state, hands=tuple(hands), chosen=tuple(chosen), unseen=tuple(pool))

    def to_json(self, state):
        return {"players": state.players, "hands": [list(h) for h in state.hands],
                "chosen": list(state.chosen), "scores": list(state.scores),
                "revealed": list(state.revealed), "unseen": list(state.unseen)}

    def from_json(self, data):
        return DuelState(data["players"], tuple(map(tuple, data["hands"])),
                         tuple(data["chosen"]), tuple(data["scores"]),
                         tuple(data["revealed"]), tuple(data["unseen"]))

    def text_diagram(self, view):
        return f"scores {view['scores']}, your hand {view['hand']}"
