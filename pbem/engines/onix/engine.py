"""Onix: the rules engine (RULINGS.md X1–X26), from the deal to the Hoard count.

A card is the set of its gems as bits (circle 1, square 2, diamond 4, cross 8): copies of
a card are alike, so the state holds gem sets, not card ids. A turn is a sequence of
decisions, each an `OnixText` (notation/onix.py): `take`, one `place` per card taken,
then the effect (`draw`, `hoard`, `steal`, `destroy`). A step with exactly one legal
decision is made by the engine itself (X24), as is placing cards that can only start new
Collections (X13a); such automatic decisions are logged (`automatic`), and the player may
still send them: an echo that agrees with what was done is accepted as a ply that
changes nothing, one that says otherwise is refused with what was done (X13a). Echoes
are not decisions, so `legal` never lists them. The dealer's one move lays out the five
piles and names the first player; the starting Collections need no chance (X2).

This module holds the engine: the decisions, reading them, playing them, views. The
cards, the state and their pure helpers are in pbem.engines.onix.state, what the engine
says to players (refusals, prompts) in pbem.engines.onix.messages, the diagrams in
pbem.engines.onix.render.
"""

from __future__ import annotations

import random
from dataclasses import replace
from itertools import islice

from notation.onix import (GEMS, NEW, PILES, NotationError, OnixText, card_text, effect_of,
                           format_decision, matches, read_decision, seat_text)
from pbem.engines.base import (CHANCE, AmbiguousMove, Engine, IllegalMove, InvalidMove,
                               Option, Outcome, move_text)
from pbem.engines.core import change
from pbem.engines.onix.messages import contrary_placement, hoarded, prompt, why_not
from pbem.engines.onix.state import (ALL_GEMS, DEAL, DESTROY, DRAW, EFFECT, HOARD, OVER,
                                     PLACE, REPEAT, STEAL, TAKE, OnixState, chains, draw_deck,
                                     gems_in, in_circle, pile_sizes, symbols, to_lists,
                                     to_tuples)

# -- the engine --------------------------------------------------------------------------

class Onix(Engine):
    id = "onix"
    title = "Onix"
    min_players, max_players = 2, 6
    dealt = True
    options = (Option("advanced", "false", "Advanced Mode: a player left with no Gems in "
                      "Collections wins at once", choices=("false", "true")),)

    def start(self, options: dict[str, str], players: int = 2,
              seed: str | None = None) -> OnixState:
        options = self.resolve_options(options)
        starting = tuple((i + 1, (gem,)) for i, gem in enumerate((1, 2, 4, 8)))
        return OnixState(players, options["advanced"] == "true", (starting,) * players,
                         (5,) * players, ((),) * players)

    def to_act(self, state: OnixState) -> frozenset[int]:
        if state.phase == OVER:
            return frozenset()
        return frozenset((CHANCE if state.phase == DEAL else state.turn,))

    # -- the decisions -----------------------------------------------------------------

    def choices(self, state: OnixState) -> list[OnixText]:
        """The active seat's legal decisions in this step (not counting repeats)."""
        return list(self._each_choice(state))

    def _more_than_one_choice(self, state: OnixState) -> bool:
        """Whether the step leaves a choice: after every step the engine asks before
        making a forced decision itself, and a six-player steal lists a hundred."""
        return len(list(islice(self._each_choice(state), 2))) > 1

    def _each_choice(self, state: OnixState):
        """`choices`, one at a time, in their order."""
        if state.phase == TAKE:
            return (OnixText("take", gem=gem, pile=chain[0])
                    for gem in (1, 2, 4, 8) for chain in chains(state, gem))
        if state.phase == PLACE:
            targets = self._targets(state)
            return (OnixText("place", pile=pile, target=target)
                    for pile, card in state.retrieved
                    for target in targets(card))
        if state.phase != EFFECT:
            return iter(())
        effect = effect_of(state.gem)
        if effect in (DRAW, HOARD):
            targets = self._targets(state)
            return (OnixText(effect, pile=p, target=target) for p in in_circle(state)
                    for target in (targets(state.piles[p][-1])
                                   if effect == DRAW else (None,)))
        targets = self._targets(state)
        return (OnixText(effect, seat=seat, collection=number, target=target)
                for seat in self._opponents(state)
                for number, cards in state.collections[seat]
                for target in (targets(cards[-1]) if effect == STEAL else (None,)))

    def _targets(self, state: OnixState):
        """X11: `targets(card)`, the active seat's Collections that take `card`, then a
        new one. Each Collection's gems are gathered once, and each card's answer kept:
        a steal with five opponents asks for the top card of each of their Collections,
        and asking anew was most of a six-player game's time."""
        own = [(number, gems_in(cards)) for number, cards in state.collections[state.turn]]
        answers: dict[int, list] = {}

        def targets(card: int) -> list[int | str]:
            found = answers.get(card)
            if found is None:
                found = answers[card] = [number for number, gems in own
                                         if not gems & card] + [NEW]
            return found
        return targets

    def _opponents(self, state: OnixState) -> list[int]:
        return [(state.turn + k) % state.players for k in range(1, state.players)]

    def legal(self, state: OnixState, seat: int) -> list:
        """The active seat's decisions in this step; echoes of automatic steps are
        accepted by `parse` (X24) but are no decisions."""
        return self.choices(state) if seat == state.turn and state.phase != DEAL else []

    def random_decision(self, state: OnixState, seat: int, rng: random.Random):
        """Self-play and overdue defaults never send repeats."""
        if seat == CHANCE:
            return self.deal(state, rng)
        return rng.choice(self.choices(state))

    def default_decision(self, state: OnixState, seat: int) -> OnixText | None:
        """X26: what an overdue part (2) does; None for a take, which has no default.

        Each card taken starts a new Collection, clockwise; Draw and Hoard use the first
        non-empty pile from A; Steal and Destroy hit the lowest-numbered Collection of
        the first opponent clockwise with two or more cards (else with one); a drawn or
        stolen card starts a new Collection.
        """
        if seat != state.turn or state.phase not in (PLACE, EFFECT):
            return None
        found = [d for d in self.choices(state) if d.target in (None, NEW)]
        if state.phase == EFFECT and effect_of(state.gem) in (STEAL, DESTROY):
            def cards(victim: int) -> int:
                return sum(len(c) for _, c in state.collections[victim])
            victim = next((s for s in self._opponents(state) if cards(s) >= 2),
                          next(s for s in self._opponents(state) if cards(s)))
            return next(d for d in found if d.seat == victim)
        return found[0]

    def deal(self, state: OnixState, rng: random.Random) -> OnixText:
        cards = list(draw_deck(state.players))
        rng.shuffle(cards)
        piles = tuple(tuple(cards[p::5]) for p in range(5))  # the last dealt is the top
        return OnixText("deal", first=rng.randrange(state.players), piles=piles)

    # -- reading and writing -----------------------------------------------------------

    def parse(self, state: OnixState, seat: int, text: str, names=None):
        text = move_text(text)
        try:
            written = read_decision(text, names)
        except NotationError as error:
            raise InvalidMove(str(error)) from None
        if seat == CHANCE or written.verb == "deal":
            return self._check_deal(state, seat, written)
        if seat == state.turn and state.phase not in (DEAL, OVER):
            wanted = self.normalised(state, seat, written)
            found = [d for d in self.choices(state) if matches(wanted, d)]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                raise AmbiguousMove(f"{text.strip()!r} could mean "
                                    f"{' or '.join(map(format_decision, found[:6]))}; "
                                    f"say which.")
        echo = self._echo(state, seat, text, written)
        if echo is not None:
            return echo
        raise IllegalMove(why_not(self, state, seat, text, written, names))

    def _echo(self, state: OnixState, seat: int, text: str, written: OnixText):
        """X24, X13a: a step made automatically, sent again by its player, once. A card
        placed automatically agrees when named with the number it got, or with `new` in
        the order the cards were placed; any other placement of it is refused, saying
        which number each card got, so a mail never plays with another meaning."""
        autos = [(i, auto) for i, auto in enumerate(state.autos) if auto[0] == seat]
        waiting = [(i, auto) for i, auto in autos if auto[1] not in state.echoed]
        for i, (_, canonical, aliases) in waiting:
            done = read_decision(canonical)
            if written.verb == "place" == done.verb and written.pile == done.pile:
                earlier = [a for j, a in waiting if j < i and a[1].startswith("place")]
                number = read_decision(aliases[0]).target
                if written.target in (None, number) or (written.target == NEW
                                                         and not earlier):
                    return (REPEAT, canonical)
            elif any(matches(written, read_decision(form)) for form in (canonical, *aliases)):
                return (REPEAT, canonical)
        placed = [(read_decision(canonical).pile, read_decision(aliases[0]).target,
                   canonical in state.echoed)
                  for _, (_, canonical, aliases) in autos if canonical.startswith("place")]
        for pile, number, echoed in placed:
            if written.verb == "place" and written.pile == pile:
                if echoed and written.target in (None, NEW, number):
                    raise IllegalMove(f"{text!r}: the card from pile {PILES[pile]} is placed "
                                      f"already, as Collection {number}.")
                raise IllegalMove(contrary_placement(text, pile, [p[:2] for p in placed]))
        return None

    def normalised(self, state: OnixState, seat: int, written: OnixText) -> OnixText:
        """As the legal decisions say it: `-> 7` is `-> new` when 7 is the next number
        (X13); a take names the first pile of its chain (X9)."""
        if written.target == state.next_number[seat]:
            written = replace(written, target=NEW)
        if written.verb == "take" and written.pile is not None and state.phase == TAKE:
            for chain in chains(state, written.gem):
                if written.pile in chain:
                    written = replace(written, pile=chain[0])
        return written

    def _check_deal(self, state: OnixState, seat: int, written: OnixText) -> OnixText:
        if seat != CHANCE or state.phase != DEAL:
            raise IllegalMove("Only the dealer deals, once, before the first turn.")
        if written.verb != "deal":
            raise IllegalMove("The dealer's move is the deal: deal first P1 A=… B=… C=… "
                              "D=… E=…")
        if not 0 <= written.first < state.players:
            raise IllegalMove(f"the first player is one of P1–P{state.players}.")
        sizes = [len(pile) for pile in written.piles]
        if sizes != pile_sizes(state.players):
            raise IllegalMove(f"with {state.players} players the piles hold "
                              f"{'/'.join(map(str, pile_sizes(state.players)))} cards "
                              f"(A to E), not {'/'.join(map(str, sizes))}.")
        dealt = sorted(card for pile in written.piles for card in pile)
        if dealt != sorted(draw_deck(state.players)):
            raise IllegalMove("the piles must hold exactly the cards left once every "
                              "player has their four starting cards (see onix-cards.csv).")
        return written

    def notation(self, state: OnixState, seat: int, decision) -> str:
        if _is_repeat(decision):
            return decision[1]
        return format_decision(decision)

    def visible_notation(self, state, seat, decision, viewer):
        """Everyone reads every decision; of the deal, only what lies face up."""
        if seat != CHANCE:
            return self.notation(state, seat, decision)
        tops = " ".join(f"{PILES[p]}={card_text(pile[-1])}"
                        for p, pile in enumerate(decision.piles))
        return f"deal first {seat_text(decision.first)}, tops {tops}"

    def revelation(self, before: OnixState, seat: int, decision, after: OnixState):
        return hoarded(before, seat, after) if seat != CHANCE else None

    def reveals(self, state: OnixState, seat: int, decision) -> bool:
        """A decision reveals when it (or what follows by itself) uncovers a pile card."""
        after = self.apply(state, seat, decision)
        return after.phase == OVER or list(map(len, after.piles)) != list(map(len, state.piles))

    # -- playing -----------------------------------------------------------------------

    def apply(self, state: OnixState, seat: int, decision) -> OnixState:
        if _is_repeat(decision):  # an echo: nothing happens but that it was sent
            return change(state, echoed=state.echoed + (decision[1],), automatic=())
        state = change(state, automatic=())
        if seat == CHANCE:
            state = change(state, piles=decision.piles, turn=decision.first, phase=TAKE)
        else:
            state = self._step(change(state, autos=(), echoed=()), decision,
                               automatic=False)
        return self._advance(state)

    def automatic(self, state: OnixState) -> list[tuple[int, str]]:
        """Steps with one legal option (X24), cards that can only start new Collections
        (X13a), an effect with no target skipped (X17)."""
        return list(state.automatic)

    def _advance(self, state: OnixState) -> OnixState:
        """Make the decisions that leave no choice, and skip an effect with no target."""
        while state.phase in (TAKE, PLACE, EFFECT):
            # Asked first: the decisions are all built only when one is left to make.
            if state.phase != PLACE and self._more_than_one_choice(state):
                return state
            found = self.choices(state)
            if state.phase == EFFECT and not found:
                skipped = f"{effect_of(state.gem)}: no target"
                state = change(state, automatic=state.automatic + ((state.turn, skipped),))
                state = self._end_turn(self._logged(state, skipped, True))
                continue
            if state.phase == PLACE and all(d.target == NEW for d in found):
                found = found[:1]  # each card starts a Collection, in clockwise order
            if len(found) != 1:
                return state
            text = format_decision(found[0])
            state = change(state, autos=state.autos + (
                (state.turn, text, self._aliases(state, found[0])),),
                automatic=state.automatic + ((state.turn, text),))
            state = self._step(state, found[0], automatic=True)
        return state

    def _aliases(self, state: OnixState, decision: OnixText) -> tuple[str, ...]:
        """Other texts a player may send for an automatic decision: the chain's other
        piles, the new Collection's number."""
        if decision.verb == "take":
            chain = next(c for c in chains(state, decision.gem) if c[0] == decision.pile)
            return tuple(format_decision(replace(decision, pile=p)) for p in chain[1:])
        if decision.target == NEW:
            return (format_decision(replace(decision, target=state.next_number[state.turn])),)
        return ()

    def _logged(self, state: OnixState, text: str, automatic: bool) -> OnixState:
        return change(state, log=state.log + ((state.turn, text, automatic),))

    def _step(self, state: OnixState, decision: OnixText, automatic: bool) -> OnixState:
        state = self._logged(state, format_decision(decision), automatic)
        verb = decision.verb
        if verb == "take":
            chain = next(c for c in chains(state, decision.gem) if c[0] == decision.pile)
            retrieved = tuple((p, state.piles[p][-1]) for p in chain)
            piles = tuple(pile[:-1] if p in chain else pile
                          for p, pile in enumerate(state.piles))
            return change(state, piles=piles, gem=decision.gem, retrieved=retrieved,
                           phase=PLACE)
        if verb == "place":
            card = next(c for p, c in state.retrieved if p == decision.pile)
            state = self._put(state, card, decision.target)
            left = tuple(r for r in state.retrieved if r[0] != decision.pile)
            return change(state, retrieved=left, phase=PLACE if left else EFFECT)
        if verb in (DRAW, HOARD):
            card, state = self._from_pile(state, decision.pile)
            if verb == HOARD:
                hoards = list(state.hoards)
                hoards[state.turn] += (card,)
                return self._end_turn(change(state, hoards=tuple(hoards)))
            return self._end_turn(self._put(state, card, decision.target))
        card, state = self._from_collection(state, decision.seat, decision.collection)
        if verb == STEAL:
            return self._end_turn(self._put(state, card, decision.target))
        return self._end_turn(change(state, discard=state.discard + (card,)))

    def _put(self, state: OnixState, card: int, target: int | str) -> OnixState:
        """The active seat places `card` on Collection `target` or a new one (X11, X13)."""
        seat = state.turn
        own = list(state.collections[seat])
        numbers = list(state.next_number)
        if target == NEW:
            own.append((numbers[seat], (card,)))
            numbers[seat] += 1
        else:
            own = [(n, cards + (card,)) if n == target else (n, cards) for n, cards in own]
        return self._with_collections(change(state, next_number=tuple(numbers)), seat, own)

    def _with_collections(self, state: OnixState, seat: int, own) -> OnixState:
        collections = list(state.collections)
        collections[seat] = tuple(own)
        return change(state, collections=tuple(collections))

    def _from_pile(self, state: OnixState, pile: int) -> tuple[int, OnixState]:
        piles = list(state.piles)
        card, piles[pile] = piles[pile][-1], piles[pile][:-1]
        return card, change(state, piles=tuple(piles))

    def _from_collection(self, state: OnixState, seat: int,
                         number: int) -> tuple[int, OnixState]:
        """X16: the top card leaves; an emptied Collection ceases to exist."""
        own, card = [], 0
        for n, cards in state.collections[seat]:
            if n == number:
                card, cards = cards[-1], cards[:-1]
            if cards:
                own.append((n, cards))
        return card, self._with_collections(state, seat, own)

    def _end_turn(self, state: OnixState) -> OnixState:
        """X18–X23: validate, then the end checks, then the next player."""
        seat = state.turn
        complete = [cards for _, cards in state.collections[seat]
                    if gems_in(cards) == ALL_GEMS]
        if complete:
            hoards = list(state.hoards)
            hoards[seat] += tuple(card for cards in complete for card in cards)
            own = [c for c in state.collections[seat] if gems_in(c[1]) != ALL_GEMS]
            state = self._with_collections(change(state, hoards=tuple(hoards)), seat, own)
        state = change(state, retrieved=(), last_turn=state.log, log=())
        bare = [s for s in range(state.players) if not state.collections[s]]
        if state.advanced and bare:
            return self._finish(state, bare, tie_break=False,
                                why="Advanced Mode: no Gems left in Collections")
        empty = sum(not pile for pile in state.piles)
        if empty >= (1 if state.players <= 4 else 2):
            return self._finish(state, range(state.players), tie_break=True,
                                why=f"{empty} Draw Pile{'s' * (empty > 1)} empty")
        return change(state, turn=(seat + 1) % state.players, phase=TAKE, gem=0)

    def _finish(self, state: OnixState, candidates, tie_break: bool, why: str) -> OnixState:
        """X21, X23: most Hoard cards; then fewest gems in Collections; then shared."""
        def rank(s: int):
            return (len(state.hoards[s]),
                    -symbols(state.collections[s]) if tie_break else 0)
        best = max(map(rank, candidates))
        winners = tuple(s for s in candidates if rank(s) == best)
        names = ", ".join(seat_text(s) for s in winners)
        reason = f"{why}; {names} {'win' if len(winners) > 1 else 'wins'} with " \
                 f"{best[0]} Hoard card{'s' * (best[0] != 1)}"
        tied = [s for s in candidates if len(state.hoards[s]) == best[0]]
        if tie_break and len(tied) > 1:
            reason += (f" (tie broken by the fewest Gems in Collections: {-best[1]})"
                       if len(winners) < len(tied) else
                       f" (tied on Hoard cards and Gems in Collections: {-best[1]})")
        return change(state, phase=OVER, winners=winners, reason=reason)

    def outcome(self, state: OnixState) -> Outcome | None:
        if state.phase != OVER:
            return None
        return Outcome.shared_by(state.winners, state.players, state.reason)

    # -- what players see --------------------------------------------------------------

    def view(self, state: OnixState, seat: int | None) -> dict:
        """X6, X7: the same for every seat; the order below the tops only at the end."""
        over = state.phase == OVER
        view = {
            "game": self.id, "players": state.players, "advanced": state.advanced,
            "you": seat, "step": state.phase,
            "turn": None if state.phase in (DEAL, OVER) else state.turn,
            "to_move": sorted(self.to_act(state)) or None,
            "gem": GEMS[state.gem.bit_length() - 1] if state.gem else None,
            "piles": [{"name": PILES[p], "size": len(pile),
                       "top": card_text(pile[-1]) if pile else None}
                      for p, pile in enumerate(state.piles)],
            "discard": len(state.discard),
            "retrieved": [{"pile": PILES[p], "card": card_text(c)}
                          for p, c in state.retrieved],
            "collections": [[{"number": n, "cards": [card_text(c) for c in cards]}
                             for n, cards in own] for own in state.collections],
            "next_number": list(state.next_number),
            "hoards": [len(h) for h in state.hoards],
            "gems_in_collections": [symbols(own) for own in state.collections],
            "automatic": [{"seat": s, "text": text} for s, text in state.automatic],
            "this_turn": self._log_view(state.log),
            "last_turn": self._log_view(state.last_turn),
            "winner": list(state.winners) if over else None,
            "result": state.reason if over else None,
            "revealed": None,
        }
        if over:
            view["revealed"] = {
                "piles": [[card_text(c) for c in pile] for pile in state.piles],
                "hoards": [[card_text(c) for c in hoard] for hoard in state.hoards],
                "discard": [card_text(c) for c in state.discard]}
        return view

    def _log_view(self, log) -> list[dict]:
        return [{"seat": s, "move": text, "automatic": auto} for s, text, auto in log]

    def determinize(self, state: OnixState, viewer: int | None,
                    rng: random.Random) -> OnixState:
        """Everyone sees the same: what nobody sees is the order below the tops."""
        if state.phase in (DEAL, OVER):
            return state
        hidden = [card for pile in state.piles for card in pile[:-1]]
        rng.shuffle(hidden)
        piles = []
        for pile in state.piles:
            below, hidden = hidden[:max(0, len(pile) - 1)], hidden[max(0, len(pile) - 1):]
            piles.append(tuple(below) + pile[-1:])
        return change(state, piles=tuple(piles))

    def prompt(self, state: OnixState, seat: int, names=None) -> str:
        return prompt(self, state, seat, names)

    # -- snapshots ---------------------------------------------------------------------

    def to_json(self, state: OnixState) -> dict:
        return {name: to_lists(getattr(state, name)) for name in OnixState.__dataclass_fields__}

    def from_json(self, data: dict) -> OnixState:
        return OnixState(**{name: to_tuples(value) for name, value in data.items()})

    # -- diagrams ----------------------------------------------------------------------

    def split_line(self, text: str) -> list[str]:
        """A line may hold a whole turn, its decisions separated by commas; a deal, whose
        piles are written with commas, stays whole."""
        if text.strip().lower().startswith("deal"):
            return [text]
        return [part.strip() for part in text.split(",") if part.strip()]

    def text_diagram(self, view: dict) -> str:
        from pbem.engines.onix.render import text_diagram
        return text_diagram(view)

    def legend(self) -> str:
        from pbem.engines.onix.render import PICTURE_LEGEND
        return PICTURE_LEGEND

    def svg_diagram(self, view: dict, size: int = 480, caption: str | None = None) -> str:
        from pbem.engines.onix.render import svg_diagram
        return svg_diagram(view, size=size, caption=caption)

    def sheet(self, view: dict, size: int = 480, caption: str | None = None):
        from pbem.engines.onix.render import sheet
        return sheet(view, size, caption)


def _is_repeat(decision) -> bool:
    return isinstance(decision, tuple) and decision[0] == REPEAT
