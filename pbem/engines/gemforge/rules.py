"""Gem Forge: the rules that change the state, as pure functions (RULINGS G1–G43).

Everything that happens between two decisions and may have to wait for someone — a
reaction window, a card draw from an empty pile (the dealer reshuffles), a hand-limit
discard, a tile taken from the market — is a *step* in `pending`, a queue whose head runs
first; a step that spawns others puts them in front. `advance` runs steps until one needs
a decision, so whom the game waits for is read off the head. The state and its helpers
are in pbem.engines.gemforge.state; pbem.engines.gemforge.engine wraps both in the engine contract.
"""

from __future__ import annotations

from pbem.engines.gemforge.state import (
    accepts, brown_waiting, CART, cash_options, change, clockwise, COLOURS, complete,
    empty_ornament, GemState, MARKET, multisets, ornament, owner_of, pop, push,
    put, remove_cards, return_gems, say, score, seat_name, sequences, set_gem, set_options,
    SETUP, tiles, WINDOWS, without, limit_seats)


# -- action cards: their choices (G23–G24, G27–G35) -------------------------------------

def card_options(state: GemState, seat: int, card: str) -> list[tuple]:
    """Every way `seat` may play `card` now, as argument tuples."""
    return list(_card_ways(state, seat, card))


def card_playable(state: GemState, seat: int, card: str) -> bool:
    """Whether `seat` has a way to play `card` now: the first of `card_options`, not
    all of them (a random decision asks it of every card in hand, and plays one)."""
    return next(_card_ways(state, seat, card), None) is not None


def _card_ways(state: GemState, seat: int, card: str):
    """`card_options`, one at a time, in their order."""
    cart, others = state.carts[seat], [s for s in range(state.players) if s != seat]
    free = CART - len(cart)
    if card == "swap-ornaments":
        mine = [o[0] for o in state.ornaments[seat] if set(o[1]) == {"."}]
        theirs = [o[0] for s in others for o in state.ornaments[s] if set(o[1]) == {"."}]
        yield from ((m, t, g) for m in mine for t in theirs + list(state.market)
                    for g in ["", *(g for g, _ in set_options(state, seat,
                                                              row=(empty_ornament(t),)))])
    elif card == "swap-gems":
        yield from ((g, s, h) for g in sorted(set(cart), key=COLOURS.index) for s in others
                    for h in sorted(set(state.carts[s]), key=COLOURS.index) if g != h)
    elif card == "take-from-ornament":
        yield from ((o[0], g) for s in others for o in state.ornaments[s] if free
                    and not complete(o) for g in sorted(set(o[1]) - {"."}, key=COLOURS.index))
    elif card == "discard-gems":
        yield from ((s, gems) for s in range(state.players)
                    for gems in sequences(state.carts[s], 3))
    elif card == "mine":
        # G24: keeping nothing only turns the mine round; that must change its order.
        yield from ((n, keep) for n in range(1, min(3, len(state.mine)) + 1)
                    for keep in ("", *multisets(state.mine[:n], min(n - 1, free)))
                    if keep or state.mine[n:] + state.mine[:n] != state.mine)
    elif card == "take-from-cart":
        yield from ((s, gems) for s in others for gems in multisets(state.carts[s], min(2, free)))
    elif card == "set-two":
        meanings = set()
        for gem, tile in set_options(state, seat):
            yield gem, tile
            after = set_gem(state, seat, gem, tile)
            for g, t in set_options(after, seat):
                meaning = frozenset({(gem, tile), (g, t)}) if (gem, tile) != (g, t) \
                    else (gem, tile)
                if meaning not in meanings:  # the same two sets in the other order
                    meanings.add(meaning)
                    yield gem, tile, g, t
    elif card == "copy-take":
        if free and state.mine:
            yield ()
    elif card == "copy-set":
        yield from set_options(state, seat)
    else:
        yield ()  # three-cards, cancel


def card_words(card: str, args: tuple) -> str:
    """The move text after `play`."""
    if card == "swap-ornaments":
        mine, theirs, gem = args
        return f"{card} {mine} {theirs}" + (f" set {gem}" if gem else "")
    if card == "swap-gems":
        return f"{card} {args[0]} {seat_name(args[1])} {args[2]}"
    if card in ("discard-gems", "take-from-cart"):
        return f"{card} {seat_name(args[0])} {' '.join(args[1])}"
    if card == "mine":
        return f"{card} {args[0]}" + (f" keep {' '.join(args[1])}" if args[1] else "")
    return " ".join((card, *map(str, args)))


def card_targets(state: GemState, seat: int, card: str, args: tuple) -> set[int]:
    """The seats a card names: their cart or their ornaments (for ASK-IF-TARGETED)."""
    if card in ("swap-gems", "discard-gems", "take-from-cart"):
        return {args[1] if card == "swap-gems" else args[0]} - {seat}
    if card in ("swap-ornaments", "take-from-ornament"):
        owner = owner_of(state, args[1] if card == "swap-ornaments" else args[0])
        return {owner} - {seat, None}
    return set()


def card_effect(state: GemState, seat: int, card: str, args: tuple) -> GemState:
    """What an uncancelled card does (G27–G34); a 1-VP gift comes last."""
    cart = state.carts[seat]
    if card == "swap-ornaments":
        mine, theirs, gem = args
        owner = owner_of(state, theirs)
        row = tuple(empty_ornament(theirs) if o[0] == mine else o
                    for o in state.ornaments[seat])
        state = change(state, ornaments=put(state.ornaments, seat, row))
        if owner is None:
            state = change(state, market=put(state.market, state.market.index(theirs), mine))
        else:
            row = tuple(empty_ornament(mine) if o[0] == theirs else o
                        for o in state.ornaments[owner])
            state = change(state, ornaments=put(state.ornaments, owner, row))
        return set_gem(state, seat, gem, theirs) if gem else state
    if card == "swap-gems":
        gem, other, theirs = args
        carts = put(state.carts, seat, without(cart, gem) + theirs)
        carts = put(carts, other, without(carts[other], theirs) + gem)
        return change(state, carts=carts)
    if card == "take-from-ornament":
        tile_id, gem = args
        owner = owner_of(state, tile_id)
        gems = ornament(state, owner, tile_id)[1]
        i = gems.rindex(gem)
        row = tuple((o[0], gems[:i] + "." + gems[i + 1:]) if o[0] == tile_id else o
                    for o in state.ornaments[owner])
        state = change(state, ornaments=put(state.ornaments, owner, row),
                       carts=put(state.carts, seat, cart + gem))
        return score(state, owner, 1)
    if card == "three-cards":
        return push(state, {"step": "draw", "seat": seat, "n": 3},
                    {"step": "limit", "seats": (seat,)})
    if card in ("discard-gems", "take-from-cart"):
        other, gems = args
        left = state.carts[other]
        for gem in gems:
            left = without(left, gem)
        state = change(state, carts=put(state.carts, other, left))
        if card == "discard-gems":
            state = return_gems(state, gems)
        else:
            state = change(state, carts=put(state.carts, seat, cart + gems))
        return score(state, other, 1) if other != seat else state
    if card == "mine":
        n, keep = args
        taken, back = state.mine[:n], ""
        for gem in taken:
            if gem in keep:
                keep = without(keep, gem)
                cart += gem
            else:
                back += gem
        return change(state, mine=state.mine[n:] + back, carts=put(state.carts, seat, cart))
    if card == "set-two" or card == "copy-set":
        for gem, tile_id in zip(args[::2], args[1::2]):
            state = set_gem(state, seat, gem, tile_id)
        return state
    if card == "copy-take":
        return change(state, mine=state.mine[1:],
                      carts=put(state.carts, seat, cart + state.mine[0]))
    return state  # cancel: its work is done by the chain


def auto_copy(state: GemState, seat: int, card: str) -> tuple | None:
    """What AUTO plays (G38): copy-take as is; copy-set the oldest cart gem that fits
    into the first ornament, in the order held, that takes it."""
    if card not in state.hands[seat]:
        return None
    if card == "copy-take":
        return () if len(state.carts[seat]) < CART and state.mine else None
    for gem in state.carts[seat]:
        for o in state.ornaments[seat]:
            if accepts(o[0], o[1], gem):
                return (gem, o[0])
    return None


# -- reaction windows (G34–G40) --------------------------------------------------------

def chain_step(state: GemState, links: tuple) -> dict:
    """A card chain and the cancel window on its last card (G35, G37, G38)."""
    seat, card, args = links[-1]
    if len(links) == 1:
        candidates = [s for s in clockwise(state, state.active) if s != seat]
        targeted = card_targets(state, seat, card, args)
    else:
        candidates = targeted = {links[-2][0]}  # only the cancelled card's player
    asked = []
    for other in candidates:
        want = state.prefs[other][WINDOWS.index("cancel")]
        if state.hands[other] and (want == "ask" or (want == "ask-if-targeted"
                                                     and other in targeted)):
            asked.append(other)
    return {"step": "chain", "links": links, "asked": tuple(asked), "cancels": ()}


def copy_step(state: GemState, card: str) -> dict | None:
    """The copy window after the active player's Take or Set action, or None."""
    asked, plays = [], []
    for other in clockwise(state, state.active)[1:]:
        able = (len(state.carts[other]) < CART and bool(state.mine) if card == "copy-take"
                else bool(set_options(state, other)))
        if not (state.hands[other] and able):
            continue
        want = state.prefs[other][WINDOWS.index(card)]
        if want == "ask":
            asked.append(other)
        elif want == "auto" and (args := auto_copy(state, other, card)) is not None:
            plays.append((other, args))
    if not asked and not plays:
        return None
    return {"step": "copy", "card": card, "asked": tuple(asked), "plays": tuple(plays)}


def answer_window(state: GemState, seat: int, decision: tuple) -> GemState:
    head = dict(state.pending[0])
    head["asked"] = tuple(s for s in head["asked"] if s != seat)
    if decision[0] == "play":
        if head["step"] == "chain":
            head["cancels"] = head["cancels"] + (seat,)
        else:
            head["plays"] = head["plays"] + ((seat, decision[2]),)
    return change(state, pending=(head,) + state.pending[1:])


def close_chain(state: GemState, head: dict) -> GemState:
    """Every answer is in: the first Cancel in turn order extends the chain; otherwise
    the chain resolves, the first card taking effect after an even number of Cancels."""
    links = head["links"]
    if head["cancels"]:
        order = clockwise(state, state.active)
        canceller = min(head["cancels"], key=order.index)
        state = change(state, hands=put(state.hands, canceller,
                                        remove_cards(state.hands[canceller], ["cancel"])))
        state = say(state, f"{seat_name(canceller)} plays cancel on "
                           f"{seat_name(links[-1][0])}'s {links[-1][1]}")
        links = links + ((canceller, "cancel", ()),)
        return change(state, pending=(chain_step(state, links),) + state.pending[1:])
    # G23, G26: the chain's cards join the discard once it has resolved, so a draw it
    # causes (three-cards, a threshold bonus) never reshuffles them back into the deck.
    state = push(pop(state), {"step": "resolved", "cards": tuple(link[1] for link in links)})
    seat, card, args = links[0]
    if (len(links) - 1) % 2:
        return say(state, f"{seat_name(seat)}'s {card} is cancelled")
    return card_effect(state, seat, card, args)


def play_card(state: GemState, seat: int, card: str, args: tuple) -> GemState:
    """A card leaves the hand, is shown to everyone, and its cancel window opens."""
    hand = remove_cards(state.hands[seat], [card])
    state = change(state, hands=put(state.hands, seat, hand))
    state = say(state, f"{seat_name(seat)} plays {card_words(card, args)}")
    return push(state, chain_step(state, ((seat, card, args),)))


def react(state: GemState, step: dict) -> GemState:
    """A copy card's turn to be played (G40): void, staying in hand, if no longer possible."""
    seat, card, args = step["seat"], step["card"], step["args"]
    state = pop(state)
    if card not in state.hands[seat] or args not in card_options(state, seat, card):
        return state
    return play_card(state, seat, card, args)


# -- running the pending steps ---------------------------------------------------------

def chance_need(state: GemState) -> str | None:
    """Which dealer's move the game waits for: a setup move or a reshuffle."""
    if state.winner is not None:
        return None
    if state.setup < len(SETUP):
        return SETUP[state.setup]
    head = state.pending[0] if state.pending else {}
    if head.get("step") == "draw" and not state.deck and state.discard:
        return "cards"
    if head.get("step") in ("refill", "deal-tile") and not state.tiles:
        return "tiles"
    return None


def advance(state: GemState) -> GemState:
    """Run pending steps until one needs a decision; end the turn when it is over."""
    while state.winner is None and state.setup == len(SETUP) and not state.dealt:
        after = run_step(state) if state.pending else after_actions(state)
        if after is None:
            break
        state = after
    if state.fresh and not any(p["step"] in ("replace", "refill", "deal-tile")
                               for p in state.pending):
        state = change(state, fresh=())
    return state


def after_actions(state: GemState) -> GemState | None:
    """Nothing pending: the turn ends once both actions are done and nothing can be
    cashed; a lone brown tile is cashed for its owner; else (None) the player decides."""
    if state.actions < 2:
        return None
    options, seat = cash_options(state, state.active), state.active
    if not options:
        return done_by_itself(next_turn(state), seat, ("end",))
    if len(options) == 1 and brown_waiting(state, seat):
        return done_by_itself(cash(state, seat, options[0]), seat, ("cash", options[0]))
    return None


def done_by_itself(state: GemState, seat: int, decision: tuple) -> GemState:
    """Note a decision the rules made for `seat` (the engine's `automatic`)."""
    text = " ".join((decision[0], *decision[1])) if len(decision) > 1 else decision[0]
    return change(state, automatic=state.automatic + ((seat, text),))


def run_step(state: GemState) -> GemState | None:
    """The state after the head step has run, or None while it waits for a decision
    (a window's answers, a discard, a replacement) or for the dealer (an empty pile)."""
    head = state.pending[0]
    step = head["step"]
    if (step in ("chain", "copy") and head["asked"]) or step == "replace" or (
            step == "limit" and limit_seats(state, head)):
        return None
    if step == "resolved":
        return change(state, pending=state.pending[1:], discard=state.discard + head["cards"])
    if step == "chain":
        return close_chain(state, head)
    if step == "copy":
        order = clockwise(state, state.active)
        plays = sorted(head["plays"], key=lambda play: order.index(play[0]))
        return push(pop(state), *[{"step": "react", "seat": s, "card": head["card"],
                                   "args": args} for s, args in plays])
    if step == "react":
        return react(state, head)
    if step == "limit":
        return pop(state)
    if step == "draw":
        if not state.deck:  # the dealer reshuffles; with no discard either, no card
            return None if state.discard else pop(state)
        seat, rest = head["seat"], head["n"] - 1
        state = change(state, pending=state.pending[1:], deck=state.deck[1:],
                       hands=put(state.hands, seat, state.hands[seat] + state.deck[:1]))
        return push(state, {**head, "n": rest}) if rest else state
    if not state.tiles:  # refill a market slot, or deal the deck's top tile to a seat
        return None
    top, state = state.tiles[0], change(state, pending=state.pending[1:], tiles=state.tiles[1:])
    if step == "refill":
        return change(state, market=put(state.market, head["slot"], top))
    row = state.ornaments[head["seat"]] + (empty_ornament(top),)
    return change(state, ornaments=put(state.ornaments, head["seat"], row))


def next_turn(state: GemState) -> GemState:
    active = (state.active + 1) % state.players
    return say(state, f"{seat_name(active)}'s turn", active=active, actions=0)


def cash(state: GemState, seat: int, chosen: tuple) -> GemState:
    """Cash complete tiles (G14–G17): gems back to the mine in slot order, points, then
    one replacement from the market per tile."""
    faces = [tiles()[t] for t in chosen]
    gems = "".join(ornament(state, seat, t)[1] for t in chosen)
    total = sum(f.points for f in faces) + (sum(f.set_bonus for f in faces)
                                            if len(faces) > 1 else 0)
    row = tuple(o for o in state.ornaments[seat] if o[0] not in chosen)
    state = change(state, ornaments=put(state.ornaments, seat, row), mine=state.mine + gems,
                   tile_discard=state.tile_discard + chosen, fresh=state.fresh + chosen)
    state = say(state, f"{seat_name(seat)} cashes {' '.join(chosen)} for {total} points")
    state = push(state, *[{"step": "replace", "seat": seat} for _ in chosen])
    return score(state, seat, total)


def reveal_tiles(state: GemState) -> GemState:
    """All kept tiles are in (G8): show them, discard the rest face down, open the market."""
    rejected = tuple(t for dealt, kept in zip(state.dealt, state.kept)
                     for t in dealt if t not in kept)
    state = change(state, ornaments=tuple(tuple(map(empty_ornament, k)) for k in state.kept),
                   dealt=(), kept=(), tile_discard=state.tile_discard + rejected,
                   market=state.tiles[:MARKET], tiles=state.tiles[MARKET:])
    return say(state, f"{seat_name(state.first)} begins")


