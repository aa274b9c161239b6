"""What the Gem Forge engine says to a player: why a decision is refused, what to do now.

Every refusal of a well-written decision names the condition that failed, in the
rulebook's words (your cart has room for one gem; T07 is complete and cannot be robbed),
then what would work, copied from the legal decisions so an example is never wrong.
Each function takes the engine first (as pbem.engines.onix.messages does); this module
imports nothing from pbem.engines.gemforge.engine, which imports it.
"""

from __future__ import annotations

from pbem.engines.gemforge.moves import decision_text
from pbem.engines.gemforge.rules import card_words
from pbem.engines.gemforge.state import (CART, COLOUR_NAMES, DEALT_TILES, HAND_LIMIT, KEEP,
                                         LIGHTNING, MARKET, OWN_TURN, PREFS, accepts,
                                         brown_waiting, owner_of, seat_name, tiles)


# What a whole turn looks like, first in every prompt of one: a player who sends one
# decision a mail learns from the first what the others will ask.
WHOLE_TURN = ("a turn is two actions, take, set, discard, draw or play; complete tiles "
              "cashed any time, each replaced by pick or refresh; then end; one mail may "
              "carry it all, a decision a line")


def prompt(engine, state, seat: int) -> str:
    """What to decide now, in a line or two, with texts to type."""
    answers = engine._answers(state, seat)
    head = state.pending[0] if state.pending else {}
    if not answers or seat not in engine.to_act(state):
        waiting = ("Your tiles are kept; waiting for the others to keep theirs. "
                   if state.dealt and state.kept[seat] else "Nothing to decide now. ")
        return (waiting + "Standing answers for reaction windows: pref cancel ask, "
                "pref copy-take auto, pref copy-set pass.")
    texts = [decision_text(d) for d in answers]
    examples = ", ".join(texts[::max(1, len(texts) // 4)][:4])
    if state.dealt:
        return f"Keep 3 of your 5 tiles, in any order, e.g. {texts[0]}."
    if engine._answering(state, seat):
        event = (f"{seat_name(head['links'][-1][0])} played "
                 f"{card_words(*head['links'][-1][1:])}" if head["step"] == "chain" else
                 f"{seat_name(state.active)} did a {head['card'][5:]} action")
        card = "cancel" if head["step"] == "chain" else head["card"]
        plays = [t for t in texts if t != "pass"]
        return (f"{event}. Reply pass, or {plays[0]}" if plays else
                f"{event}. Reply pass (you hold no {card})") + ", by the deadline."
    if head.get("step") == "limit":
        excess = len(state.hands[seat]) - HAND_LIMIT
        turn = f"Your turn goes on ({WHOLE_TURN}). " if seat == state.active else ""
        return (f"{turn}You hold {len(state.hands[seat])} action cards, more than "
                f"{HAND_LIMIT}: drop {excess}, face down, e.g. {texts[0]}.")
    if head.get("step") == "replace":
        return (f"Your turn goes on ({WHOLE_TURN}). Take a market tile for the one you "
                f"cashed: pick 1 to 4, or refresh N (discard market tile N and take the "
                f"tile deck's top one).")
    if state.actions == 2:
        return (f"Your turn, both actions done ({WHOLE_TURN}). Cash complete tiles or end. "
                f"For example: {examples}.")
    return (f"Your turn, action {state.actions + 1} of 2 ({WHOLE_TURN}). For example: "
            f"{examples}.")


def why_not(engine, state, seat: int, text: str, wanted: tuple[str, ...]) -> str:
    """The message of an IllegalMove: `text` (folded into `wanted`) fits no legal decision."""
    verb = wanted[0]
    reason = (_out_of_step(engine, state, seat, wanted) or _reason(state, seat, wanted)
              or "that is not possible now")
    same = [decision_text(d) for d in engine.legal(state, seat) if d[0] == verb]
    if verb == "play" and len(wanted) > 1:
        same = [t for t in same if t.split()[1] == wanted[1]] or same
    if same and not _out_of_step(engine, state, seat, wanted):
        step = max(1, len(same) // 6)
        return f"{text!r}: {reason}. Possible {verb} moves: {', '.join(same[::step][:6])}."
    return f"{text!r}: {reason}. {prompt(engine, state, seat)}"


def _out_of_step(engine, state, seat: int, wanted: tuple[str, ...]) -> str | None:
    """The game waits for another kind of decision, or for someone else."""
    verb = wanted[0]
    if state.winner is not None:
        return f"the game is over: {seat_name(state.winner)} won"
    if verb == "pref":
        return None
    head = state.pending[0] if state.pending else {}
    if state.dealt:
        if verb != "keep":
            return "the game starts with everyone keeping 3 of their 5 dealt tiles"
        return None
    if verb == "keep":
        return "the tiles were kept at the start of the game"
    if seat not in engine.to_act(state):
        if head.get("step") in ("chain", "copy"):  # G39: whom a window asks stays unsaid
            return "nothing is asked of you now: the game waits for a reaction window"
        who = ", ".join(seat_name(s) for s in sorted(engine.to_act(state)) if s >= 0)
        return f"nothing is asked of you now: the game waits for {who or 'the dealer'}"
    if engine._answering(state, seat):
        card = "cancel" if head["step"] == "chain" else head["card"]
        if verb == "play" and wanted[1:2] != (card,):
            return (f"this window is for {card}: answer pass or play {card}; other cards "
                    f"wait for their own window or your turn")
        if verb == "play" and card not in state.hands[seat]:
            return f"you hold no {card}, so you can only pass"
        return None if verb in ("pass", "play") else \
            f"a reaction window is open: answer pass or play {card}"
    if head.get("step") == "limit":
        return None if verb == "drop" else (
            f"you hold more than {HAND_LIMIT} action cards: drop the extra ones first")
    if head.get("step") == "replace":
        return None if verb in ("pick", "refresh") else (
            "take a market tile for the one you cashed first (pick or refresh)")
    if verb in ("pass", "drop", "pick", "refresh"):
        return {"pass": "there is no passing on your own turn: a turn is two actions (G10)",
                "drop": f"you hold no more than {HAND_LIMIT} action cards",
                }.get(verb, "you take a market tile only for a tile you have just cashed")
    return None


def _reason(state, seat: int, wanted: tuple[str, ...]) -> str | None:
    verb, args = wanted[0], list(wanted[1:])
    if verb == "keep":
        return _keep_reason(state, seat, args)
    if verb == "drop":
        return _drop_reason(state, seat, args)
    if verb == "cash":
        return _cash_reason(state, seat, args)
    if verb == "pref":
        return _pref_reason(state, seat, args)
    if verb in ("pick", "refresh"):
        return f"the market slots are 1 to {MARKET}"
    if verb == "pass":
        return None
    if verb == "end":
        if state.actions < 2:
            left = 2 - state.actions
            return f"you have {left} action{'s' * (left > 1)} left: a turn is two actions (G10)"
        if brown_waiting(state, seat):
            return "a complete brown tile must be cashed before the turn ends (G15)"
        return None
    if state.actions == 2 and verb in ("take", "set", "discard", "draw", "play") \
            and not (verb == "play" and args[:1] and args[0] in LIGHTNING):
        return "both actions are done: cash complete tiles or end"
    if verb == "take":
        if len(state.carts[seat]) >= CART:
            return f"your cart holds {CART} gems and is full (G11)"
        return "the mine is empty (G5)" if not state.mine else None
    if verb == "set":
        return _set_reason(state, seat, args[:1], args[1:2]) if len(args) == 2 else \
            "write set, a gem and one of your ornaments, e.g. set R T07"
    if verb == "discard":
        return _cart_lacks(state.carts[seat], args, "your cart")
    if verb == "play":
        return _play_reason(state, seat, args)
    return None


def _names(items) -> str:
    return " ".join(items) or "nothing"


def _upper(words) -> list[str]:
    return [w.upper() for w in words]


def _cart_lacks(cart: str, gems: list[str], whose: str, holds: str = "holds") -> str | None:
    """Which of `gems` (folded, lower case) the cart lacks, as `whose cart holds RG: no L`."""
    left = list(cart)
    for gem in _upper(gems):
        if gem not in left:
            return (f"{whose} {holds} {cart or 'no gems'}: no "
                    f"{'more ' if gem in cart else ''}{COLOUR_NAMES.get(gem, gem)} gem ({gem})")
        left.remove(gem)
    return None


def _keep_reason(state, seat: int, args: list[str]) -> str | None:
    dealt = state.dealt[seat]
    if state.kept[seat]:
        return (f"you have kept {_names(state.kept[seat])} already, and a keep is final; "
                f"the game waits for the others")
    unknown = [t for t in _upper(args) if t not in dealt]
    if unknown:
        known = unknown[0] in tiles()
        return (f"{unknown[0]} is {'not one of your dealt tiles' if known else 'no tile'} "
                f"(yours: {_names(dealt)})")
    if len(set(args)) != len(args):
        return "a tile is named twice: keep names 3 different tiles"
    if len(args) != KEEP:
        return (f"you keep {KEEP} of your {DEALT_TILES} tiles and named {len(args)} "
                f"({_names(_upper(args))})")
    return None


def _drop_reason(state, seat: int, args: list[str]) -> str | None:
    hand = list(state.hands[seat])
    excess = len(hand) - HAND_LIMIT
    if len(args) != excess:
        return (f"you hold {len(hand)} action cards, so you drop {excess} to keep "
                f"{HAND_LIMIT}, not {len(args)}")
    for card in args:
        if card not in hand:
            return f"you hold no {'more ' if card in state.hands[seat] else ''}{card}"
        hand.remove(card)
    return None


def _cash_reason(state, seat: int, args: list[str]) -> str | None:
    own = {t: gems for t, gems in state.ornaments[seat]}
    for tile in _upper(args):
        if tile not in own:
            return f"{tile} is not one of your ornaments (yours: {_names(own)})"
        if "." in own[tile]:
            return f"{tile} is not complete ({own[tile]}): only a complete tile is cashed"
    faces = [tiles()[t] for t in _upper(args)]
    if len(faces) > 1 and not all(f.light for f in faces):
        return "only light-blue tiles are cashed together, as a set (G16)"
    if len(faces) > 1 and len({own[t][0] for t in _upper(args)}) > 1:
        return "a set is light-blue tiles whose gems are all one colour (G16)"
    return None


def _pref_reason(state, seat: int, args: list[str]) -> str | None:
    if len(args) != 2 or args[0] not in PREFS or args[1] not in PREFS[args[0]]:
        return ("a standing answer names a window and an answer: "
                + "; ".join(f"pref {w} {'/'.join(v)}" for w, v in PREFS.items()))
    current = state.prefs[seat][list(PREFS).index(args[0])]
    return f"your standing answer for {args[0]} windows is {current} already"


def _set_reason(state, seat: int, gems: list[str], tiles_named: list[str],
                cart: str | None = None) -> str | None:
    cart = state.carts[seat] if cart is None else cart
    lacks = _cart_lacks(cart, gems, "your cart")
    if lacks:
        return lacks
    gem, tile = gems[0].upper(), tiles_named[0].upper()
    own = {t: g for t, g in state.ornaments[seat]}
    if tile not in own:
        return f"{tile} is not one of your ornaments (yours: {_names(own)})"
    if "." not in own[tile]:
        return f"{tile} is complete and takes no more gems (G13)"
    if not accepts(tile, own[tile], gem):
        face = tiles()[tile]
        if face.light and {g for g in own[tile] if g != "."} - {gem}:
            return (f"{tile} holds {own[tile]}: all gems of a light-blue tile are one "
                    f"colour (G12)")
        return f"{tile} has no empty {COLOUR_NAMES[gem]} slot (its slots {face.slots}, " \
               f"set {own[tile]})"
    return None


def _play_reason(state, seat: int, args: list[str]) -> str | None:
    card, rest = (args[0], args[1:]) if args else ("", [])
    if card not in OWN_TURN + LIGHTNING:
        return None
    if card not in state.hands[seat]:
        return f"you hold no {card}"
    if card in LIGHTNING:
        return f"{card} is a lightning card, played only in a reaction window (G34–G36)"
    free = CART - len(state.carts[seat])
    if card == "mine":
        return _mine_reason(state, rest, free)
    if card in ("take-from-cart", "discard-gems", "swap-gems"):
        return _cart_card_reason(state, seat, card, rest, free)
    if card == "take-from-ornament":
        if len(rest) != 2:
            return None
        tile, gem = rest[0].upper(), rest[1].upper()
        owner = owner_of(state, tile)
        if owner is None or owner == seat:
            return f"{tile} is not another player's ornament"
        gems = dict(state.ornaments[owner])[tile]
        if "." not in gems:
            return f"{tile} is complete and cannot be robbed (G13)"
        if free == 0:
            return f"your cart holds {CART} gems and has no room (G29)"
        return f"{tile} holds {gems}: no {COLOUR_NAMES.get(gem, gem)} gem ({gem})"
    if card == "set-two" and len(rest) in (2, 4):
        cart = state.carts[seat]
        lacks = _cart_lacks(cart, rest[0::2], "your cart")
        return lacks or next(filter(None, (_set_reason(state, seat, [g], [t])
                                           for g, t in zip(rest[0::2], rest[1::2]))), None)
    if card == "swap-ornaments" and len(rest) >= 2:
        own = {t: g for t, g in state.ornaments[seat]}
        mine, theirs = rest[0].upper(), rest[1].upper()
        if mine not in own or set(own[mine]) != {"."}:
            return f"{mine} is not one of your gem-free ornaments (G27)"
        owner = owner_of(state, theirs)
        if theirs not in state.market and (owner is None or owner == seat):
            return f"{theirs} is neither in the market nor another player's ornament"
        if owner is not None and set(dict(state.ornaments[owner])[theirs]) != {"."}:
            return f"{theirs} holds gems: only gem-free ornaments are swapped (G27)"
    return None


def _mine_reason(state, rest: list[str], free: int) -> str | None:
    if not rest or not rest[0].isdigit():
        return None
    n, kept = int(rest[0]), _upper(rest[2:] if rest[1:2] == ["keep"] else rest[1:])
    most = min(3, len(state.mine))
    if not 1 <= n <= most:
        return f"mine takes 1, 2 or 3 gems, at most the {len(state.mine)} in the mine (G32)"
    taken = state.mine[:n]
    if len(kept) > min(n - 1, free):  # the tighter of the two limits is the one to say
        if free <= n - 1:
            return (f"you may keep at most {free}: your cart has room for {free}"
                    if free else "your cart is full, so every gem taken goes back (G32)")
        return (f"at least one of the {n} gems taken goes back to the mine, so you keep at "
                f"most {n - 1} (G32)")
    lacks = _cart_lacks(taken, kept, f"the mine's first {n} gem{'s' * (n > 1)}",
                        "are" if n > 1 else "is")
    if lacks:
        return lacks
    if not kept:
        return (f"it would change nothing: the mine's first {n} gem{'s' * (n > 1)} "
                f"({taken}) would go back behind the rest and the mine stays "
                f"{state.mine} (G24)")
    return None


def _cart_card_reason(state, seat: int, card: str, rest: list[str],
                      free: int) -> str | None:
    if card == "swap-gems":
        if len(rest) != 3:
            return None
        mine, other, theirs = rest
        target = _seat(state, other)
        if target is None or target == seat:
            return "swap-gems swaps with another player's cart"
        if mine == theirs:
            return f"swapping {mine.upper()} for {theirs.upper()} changes nothing (G24)"
        return (_cart_lacks(state.carts[seat], [mine], "your cart")
                or _cart_lacks(state.carts[target], [theirs], f"{seat_name(target)}'s cart"))
    if not rest:
        return None
    target, gems = _seat(state, rest[0]), rest[1:]
    if target is None:
        return f"{rest[0].upper()} is no seat: the players are P1 to P{state.players}"
    whose = "your cart" if target == seat else f"{seat_name(target)}'s cart"
    if card == "discard-gems":
        if not 1 <= len(gems) <= 3:
            return "discard-gems returns 1 to 3 gems of one cart (G31)"
        return _cart_lacks(state.carts[target], gems, whose)
    if target == seat:
        return "take-from-cart takes from another player's cart (G33)"
    if not 1 <= len(gems) <= 2:
        return "take-from-cart moves 1 or 2 gems (G33)"
    lacks = _cart_lacks(state.carts[target], gems, whose)
    if lacks:
        return lacks
    if len(gems) > free:
        return (f"you may take at most {free}: your cart has room for {free}" if free
                else f"your cart holds {CART} gems and has no room")
    return None


def _seat(state, word: str) -> int | None:
    if word.startswith("p") and word[1:].isdigit() and 1 <= int(word[1:]) <= state.players:
        return int(word[1:]) - 1
    return None
