"""6 nimmt! Baron Oxx: the rules engine (RULINGS.md N1–N23), from the deal to a match's end.

Each round every seat chooses a hand card in secret (`play 23`, replaceable until the
reveal, with an optional preference for where it goes); the last choice reveals them all
and the cards are placed in ascending order. A placement asks its player only when there
is a real choice that their preferences do not settle (N11, N13). Options: `variant`
(base, 1, 2 or 1+2) and `games` (a match: the scores add up, N18).

Chance is dealt as it is needed. A personal deck is a count of cards nobody has seen, and
the dealer names the cards when they are drawn (`draw #2 ...`): taking the top cards of a
shuffled deck and taking random cards from all the unseen ones (decks and set-aside
together) are the same lottery, and so a physical game can be transcribed as it is
played. Cards that Variant 2 puts under a deck are public and drawn last (N6, N20); at a
Variant 2 end the dealer shows the unseen cards still in decks (`left #2 ...`, N23).

This module holds the engine: whom the game waits for, reading decisions, views. The
rules that change the state are in pbem.engines.baronoxx.rules, the state and its helpers
in pbem.engines.baronoxx.state, what the engine says to players (refusals, prompts) in
pbem.engines.baronoxx.messages, the card table in pbem.engines.baronoxx.cards, the
diagrams in pbem.engines.baronoxx.render.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import fields

from notation.baronoxx import (NO_PREF, ROWS, NotationError, decision_text, pref_text,
                               read_decision)
from pbem.engines.base import (CHANCE, Engine, IllegalMove, InvalidMove, Option, Outcome,
                               move_text)
from pbem.engines.core import change
from pbem.engines.baronoxx import rules
from pbem.engines.baronoxx.cards import penalty
from pbem.engines.baronoxx.messages import prompt, task_words, why_not
from pbem.engines.baronoxx.state import (CHOOSE, DEAL, HAND, OVER, PLACE, PREFS, REVEAL,
                                         Decisions, OxxState, new_game, pref_at,
                                         random_pref, to_lists, to_tuples, without)


def _check_games(value: str) -> str | None:
    return None if value.isascii() and value.isdigit() and 1 <= int(value) <= 99 else \
        "the number of games in the match is from 1 to 99"


class BaronOxx(Engine):
    id = "baronoxx"
    title = "6 nimmt! Baron Oxx"
    min_players, max_players = 2, 10
    dealt = True
    queued_choices = True  # `next 23 45`: every round asks every seat for one hand card
    decision_words = ("play", "next", "pref")  # `row 4, play 49`; `row 2,4` is one
    options = (
        Option("variant", "base", "base, 1 (no sixth-card rule), 2 (positive points) "
               "or 1+2", choices=("base", "1", "2", "1+2")),
        Option("games", "1", "games in the match, scores added up", check=_check_games),
    )

    def start(self, options: dict[str, str], players: int = 2,
              seed: str | None = None) -> OxxState:
        options = self.resolve_options(options)
        state = OxxState(players, options["variant"], int(options["games"]),
                         standing=(NO_PREF,) * players)
        return new_game(state, 1)

    # -- whom the game waits for --------------------------------------------------------

    def to_act(self, state: OxxState) -> frozenset[int]:
        return rules.to_act(state)

    def legal(self, state: OxxState, seat: int) -> Sequence:
        if seat == CHANCE or state.phase == OVER:
            return []
        plain: tuple = ()
        if seat == state.asked:
            _, kind, options = state.waiting()
            plain = tuple((kind, r) for r in options)
        cards = state.hands[seat] if state.phase == CHOOSE else ()
        # N20: in Variant 2 Rule 3 takes no row, so a take list means nothing there.
        return Decisions(plain, cards, takes=not state.positive)

    def offered(self, state: OxxState, seat: int) -> list:
        legal = self.legal(state, seat)
        return legal.one_of_each() if legal else []

    def deal(self, state: OxxState, rng: random.Random) -> tuple:
        task = rules.dealer_task(state)
        if task[0] == "rows":
            return ("rows", tuple(rng.sample(state.unseen, ROWS)))
        seat = task[1]
        if task[0] == "left":
            return ("left", seat, tuple(sorted(rng.sample(state.unseen,
                                                          state.unknown[seat]))))
        count = min(HAND, state.unknown[seat])
        return ("draw", seat, tuple(sorted(rng.sample(state.unseen, count))),
                state.bottoms[seat][:HAND - count])

    # -- reading and writing decisions --------------------------------------------------

    def parse(self, state: OxxState, seat: int, text: str, names=None) -> tuple:
        try:
            read = read_decision(move_text(text))
        except NotationError as error:
            raise InvalidMove(str(error)) from None
        if state.phase == OVER:
            raise IllegalMove("The match is over.")
        if seat == CHANCE:
            return self._parse_dealer(state, read)
        if read[0] in ("draw", "left", "rows"):
            raise IllegalMove(f"{text.strip()!r} is the dealer's move, not a player's.")
        if read[0] == "number":  # a row when asked where a card goes, else a card
            if seat == state.asked and 1 <= read[1] <= ROWS:
                read = (state.waiting()[1], read[1] - 1)
            else:
                read = ("play", read[1], NO_PREF)
        if read not in self.legal(state, seat):
            raise IllegalMove(why_not(self, state, seat, read))
        return read

    def _parse_dealer(self, state: OxxState, read: tuple) -> tuple:
        if state.phase not in (DEAL, REVEAL):
            raise IllegalMove("The dealer has nothing to deal now: the game waits for "
                              "the players.")
        task = rules.dealer_task(state)
        if read[0] != task[0] or (task[0] != "rows" and read[1] != task[1]):
            raise IllegalMove(f"The dealer's move now is {task_words(task)}.")
        cards = read[-1]
        if len(set(cards)) != len(cards):
            raise IllegalMove("A card is named twice.")
        if task[0] == "rows":
            count, bottom = ROWS, ()
        elif task[0] == "left":
            count, bottom = state.unknown[task[1]], ()
        else:
            count = min(HAND, state.unknown[task[1]])
            bottom = state.bottoms[task[1]][:HAND - count]
            cards = tuple(c for c in cards if c not in bottom)
            if len(cards) + len(bottom) != len(read[-1]):
                raise IllegalMove(f"The draw must end with the cards under the deck: "
                                  f"{' '.join(map(str, bottom))}.")
        seen = [c for c in cards if c not in state.unseen]
        if len(cards) != count or seen:
            why = (f"{seen[0]} is not among the unseen cards" if seen
                   else f"it takes {count} unseen cards")
            raise IllegalMove(f"{task_words(task).capitalize()}: {why}.")
        if task[0] == "rows":
            return ("rows", cards)
        if task[0] == "left":
            return ("left", task[1], tuple(sorted(cards)))
        return ("draw", task[1], tuple(sorted(cards)), bottom)

    def notation(self, state: OxxState, seat: int, decision: tuple) -> str:
        return decision_text(decision)

    def visible_notation(self, state, seat, decision, viewer):
        """Choices, preferences and drawn cards are their author's alone (N6, N13)."""
        if decision[0] in ("play", "pref", "draw") and viewer != (
                decision[1] if decision[0] == "draw" else seat):
            return None
        return self.notation(state, seat, decision)

    def anonymous(self, state: OxxState, seat: int, decision: tuple) -> bool:
        """Preferences are private (N13): a standing preference that settles nothing, and
        a secret choice that replaces one already made before the reveal (N14a), are
        counted by nobody and shown to nobody while the game runs — the others learn
        only that the seat has chosen, once (as Gem Forge's standing answers, G39). A
        `pref` that settles the placement waiting for it is that seat's public answer."""
        if seat == CHANCE:
            return False
        if decision[0] == "pref":
            return not self.reveals(state, seat, decision)
        return (decision[0] == "play" and state.phase == CHOOSE
                and state.chosen[seat] is not None)

    def public_turn(self, state: OxxState) -> int:
        """The rounds carried out: a round's secret choices, its reveal and its row
        questions are one turn for a spectator, which ends when the next round's
        choices begin (the reveal counts the round up as it begins placing, N8)."""
        return state.round - 1 if state.phase == PLACE else state.round

    def reveals(self, state: OxxState, seat: int, decision: tuple) -> bool:
        """A replaceable choice shows nothing; the last one shows every card (N8)."""
        if decision[0] == "play":
            return self.to_act(state) == {seat}
        if decision[0] == "pref":  # when it settles the placement that waits for it
            return self.apply(state, seat, decision).queue != state.queue
        return True

    def seat_label(self, state, seat: int) -> str:
        """As the dealer's notation and the diagram write a seat: `#2`."""
        return f"#{seat + 1}"

    def revelation(self, before: OxxState, seat: int, decision: tuple,
                   after: OxxState) -> str | None:
        """The last choice of a round shows every card (N8): which, and whose."""
        if decision[0] != "play" or self.to_act(before) != {seat}:
            return None
        cards = ", ".join(f"{card} ({self.seat_label(after, owner)})"
                          for card, owner in after.revealed)
        return f"Round {after.round} revealed: {cards}" if cards else None

    # -- queued choices (`next 23 45`: pbem.commands.queued) -----------------------------

    def next_choice(self, state: OxxState, seat: int) -> tuple[list[int], bool] | None:
        """The round `seat` chooses a card for next, as [game, round] (rounds counted as
        the diagram does), and whether it waits for that card now."""
        if state.phase in (OVER, REVEAL):
            return None
        waiting = state.phase == CHOOSE and seat in self.to_act(state)
        later = state.phase == CHOOSE and not waiting  # chosen: its card for this round is in
        return [state.game, state.round + 1 + later], waiting

    def queued_move(self, state: OxxState, seat: int, text: str) -> str:
        """`play 23 row 2 low` for a queued `23 row 2 low`: a card of the seat's hand, with
        the preference a `play` may carry (N13), other than its choice for this round."""
        words = move_text(text).split()
        if words and words[0].lower() == "play":
            words = words[1:]
        try:
            read = read_decision("play " + " ".join(words))
        except NotationError as error:
            raise InvalidMove(str(error)) from None
        card, hand = read[1], state.hands[seat]
        if card not in hand:
            raise IllegalMove(f"You have no {card}: your hand is "
                              f"{' '.join(map(str, hand)) or 'empty'}.")
        if state.phase == CHOOSE and (state.chosen[seat] or (None,))[0] == card:
            raise IllegalMove(f"{card} is your card for this round already: queue the "
                              f"cards for the rounds after it.")
        if state.positive and read[2][1]:
            raise IllegalMove(why_not(self, state, seat, read))
        return decision_text(read)

    # -- the rules (pbem.engines.baronoxx.rules) ----------------------------------------

    def apply(self, state: OxxState, seat: int, decision: tuple) -> OxxState:
        return rules.apply(state, seat, decision)

    def cost(self, state: OxxState, kind: str, row: int, card: int) -> int:
        """rules.cost, for the prompts (messages) and the bots."""
        return rules.cost(state, kind, row, card)

    def totals(self, state: OxxState) -> list[int]:
        return rules.totals(state)

    def outcome(self, state: OxxState) -> Outcome | None:
        if state.phase != OVER:
            return None
        totals = self.totals(state)
        best = (max if state.positive else min)(totals)
        winners = [s for s, t in enumerate(totals) if t == best]
        games = f" over {state.games} games" if state.games > 1 else ""
        what = "most points" if state.positive else "fewest bullheads"
        return Outcome.shared_by(winners, state.players, f"the {what}{games}: " + ", ".join(
            f"#{s + 1} {t}" for s, t in enumerate(totals)))

    # -- defaults and random play -------------------------------------------------------

    def default_decision(self, state: OxxState, seat: int) -> tuple:
        """N14, at a deadline: the lowest card with LOW (Variant 2: HIGH); for a waiting
        placement the same choice."""
        pick = "high" if state.positive else "low"
        if seat == state.asked:
            card, kind, options = state.waiting()
            return (kind, rules.preferred(state, kind, options, card, [((), (), pick)]))
        return ("play", state.hands[seat][0], ((), (), pick))

    def random_decision(self, state: OxxState, seat: int, rng: random.Random) -> tuple:
        """Mostly plain cards and rows; now and then a preference, to exercise them."""
        legal = self.legal(state, seat)
        roll = rng.random()
        if legal.plain and roll < 0.85:
            return rng.choice(legal.plain)
        if legal.cards and roll < 0.8:
            return ("play", rng.choice(legal.cards), NO_PREF)
        if legal.cards and roll < 0.97:
            return ("play", rng.choice(legal.cards), random_pref(rng, legal.takes))
        return ("pref", random_pref(rng, legal.takes))

    def automatic(self, state: OxxState) -> list[tuple[int, str]]:
        """Cards placed without asking: one legal row, or a preference decided (N11,
        N13); Variant 2's card under the deck (N20)."""
        return list(state.automatic)

    def prompt(self, state: OxxState, seat: int, names=None) -> str:
        return prompt(self, state, seat)

    # -- what players see ---------------------------------------------------------------

    def view(self, state: OxxState, seat: int | None) -> dict:
        """N6: rows, piles, sizes, who has chosen; a seat's own hand and choice."""
        over = state.phase == OVER
        view = {
            "game": self.id, "variant": state.variant, "players": state.players,
            "match": {"game": state.game, "games": state.games,
                      "results": [list(r) for r in state.results],
                      "totals": self.totals(state)},
            # the round being chosen or placed, as the diagram numbers it; the cards in
            # `revealed` are those of round `revealed_in`
            "phase": state.phase, "round": state.round + (state.phase == CHOOSE),
            "revealed_in": state.round,
            "rows": [list(row) for row in state.rows],
            "piles": [list(pile) for pile in state.piles],
            # two names: the bullheads in each Oxx pile, public all game; the score of
            # this game, known at its end (Variant 2: less the bullheads still held)
            "bullheads": [penalty(p) for p in state.piles],
            "score": rules.scores(state) if over else None,
            "automatic": [{"seat": s, "text": t} for s, t in state.automatic],
            "hand_sizes": [len(hand) for hand in state.hands],
            "deck_sizes": [state.deck_size(s) for s in range(state.players)],
            "known_in_hand": [list(k) for k in state.known],
            "under_decks": [list(b) for b in state.bottoms],
            "chosen": [c is not None for c in state.chosen],
            "waiting_for": sorted(s for s in self.to_act(state) if s != CHANCE),
            "revealed": [list(r) for r in state.revealed],
            "placed": [{"seat": s, "card": c, "row": r, "taken": list(t), "how": how}
                       for s, c, r, t, how in state.events],
            "to_place": [[c, s] for c, s, _ in state.queue],
            "asking": None,
        }
        if state.asked is not None:
            card, kind, options = state.waiting()
            view["asking"] = {"seat": state.asked, "card": card, "kind": kind, "options": [
                [r, self.cost(state, kind, r, card)] for r in options]}
        if seat is not None:
            mine = state.chosen[seat]
            view.update(you=seat, hand=list(state.hands[seat]),
                        choice=None if mine is None else decision_text(("play",) + mine),
                        preference=pref_text(state.standing[seat]) or None)
        if over:
            view.update(hands=[list(h) for h in state.hands],
                        set_aside=list(state.unseen),
                        preferences=[pref_text(p) or None for p in state.standing])
        outcome = self.outcome(state)
        view["winner"] = sorted(outcome.winners) if outcome else None
        view["result"] = outcome.reason if outcome else None
        return view

    def determinize(self, state: OxxState, viewer: int | None,
                    rng: random.Random) -> OxxState:
        """Redeal what `viewer` cannot see: others' hidden hand cards, the unseen cards,
        others' choices and preferences (but not one that leaves a card waiting)."""
        if state.phase == OVER:
            return state
        others = [s for s in range(state.players) if s != viewer]
        pool = list(state.unseen)
        for s in others:
            pool += without(state.hands[s], state.known[s])
        rng.shuffle(pool)
        hands, chosen, standing = list(state.hands), list(state.chosen), list(state.standing)
        for s in others:
            hidden = len(state.hands[s]) - len(state.known[s])
            hands[s] = tuple(sorted(state.known[s] + tuple(pool.pop() for _ in range(hidden))))
            if chosen[s] is not None:
                chosen[s] = (rng.choice(hands[s]), pref_at(rng.randrange(PREFS)))
            if s != state.asked:
                standing[s] = pref_at(rng.randrange(PREFS))
        queue = tuple((c, s, p if i == 0 or s == viewer else pref_at(rng.randrange(PREFS)))
                      for i, (c, s, p) in enumerate(state.queue))
        return change(state, hands=tuple(hands), chosen=tuple(chosen), queue=queue,
                       standing=tuple(standing), unseen=tuple(sorted(pool)))

    # -- snapshots ----------------------------------------------------------------------

    def to_json(self, state: OxxState) -> dict:
        return {f.name: to_lists(getattr(state, f.name)) for f in fields(state)}

    def from_json(self, data: dict) -> OxxState:
        return OxxState(**{f.name: to_tuples(data[f.name]) for f in fields(OxxState)
                           if f.name in data})  # a field added later keeps its default

    # -- diagrams -----------------------------------------------------------------------

    def text_diagram(self, view: dict) -> str:
        from pbem.engines.baronoxx.render import text_diagram
        return text_diagram(view)

    def svg_diagram(self, view: dict, size: int = 480, caption: str | None = None) -> str:
        from pbem.engines.baronoxx.render import svg_diagram
        return svg_diagram(view, size=size, caption=caption)

    def sheet(self, view: dict, size: int = 480, caption: str | None = None):
        from pbem.engines.baronoxx.render import sheet
        return sheet(view, size, caption)
