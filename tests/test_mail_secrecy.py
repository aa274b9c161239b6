"""Hidden information in mail: nobody's mail shows what only another player may know.

The card games are played by email only, by random but honest players who read the
server's state (as a referee would let a test peek) to choose legal moves, and send them
as text. Then every mail a player got is checked against what the engine lets that player
see: the diagram in it is the one drawn from their own view, and no line that only
another seat's view holds (their hand, their choice, their dealt tiles) is in it, and no
move hidden from them is named. After the end everything may be shown, and is: the seed
and the record go to everyone.
"""

import random
import re
import threading

from mailtest import body, latest_game_mail
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE
from pbem.policy.delivery import deliver_due
from pbem.play import Table
from pbem.store import Game, Move

NAMES = ["ann", "ben", "cat", "dan"]
OUR_ID = re.compile(r"<pbem\.(\d+)\.(\d+)\.(\d+)\.")


def start(mail_server, players, engine_id, count):
    people = players(*NAMES[:count])
    game_id = start_game(mail_server, ENGINES[engine_id], {}, [p.address for p in people],
                         seed=f"secrecy/{engine_id}/{count}")
    deliver_due(mail_server)
    return game_id, people


def text(message) -> str:
    return body(message).replace("\r\n", "\n")




def send_random_move(game_id, people, rng):
    table = Table.load(game_id)
    engine = table.engine
    seat = rng.choice(sorted(table.to_act - {CHANCE}))
    move = engine.notation(table.state, seat, engine.random_decision(table.state, seat, rng))
    people[seat].reply(move, to=latest_game_mail(people[seat]), quote=False)
    assert Game.get_by_id(game_id).plies > table.game.plies, text(people[seat].last)
    return seat, move


def play_to_the_end(game_id, people, rng, after_each=lambda: None):
    while Game.get_by_id(game_id).status == "running":
        send_random_move(game_id, people, rng)
        after_each()


def state_at(game_id, ply):
    game = Game.get_by_id(game_id)
    engine = ENGINES[game.engine]
    if ply == 0:
        return engine.start(game.options, len(list(game.seats)), game.seed)
    return engine.from_json(Move.get((Move.game == game_id) & (Move.ply == ply)).state)


def diagram(engine, state, viewer, names):
    """A seat's diagram as its mail draws it: its view, the players named (notify)."""
    return engine.text_diagram({**engine.view(state, viewer), "names": names})


def others_secret_lines(engine, state, seat, names):
    """Diagram lines that another seat's view has and neither `seat`'s nor the public's."""
    def lines(viewer):
        return {line.strip() for line in diagram(engine, state, viewer, names).splitlines()
                if line.strip()}
    seen = lines(seat) | lines(None)
    return {other: lines(other) - seen for other in range(len(names)) if other != seat}


def assert_no_mail_shows_another_players_secrets(game_id, people):
    """Every running-game mail to a seat holds that seat's own diagram, no line of
    another seat's private view, and no move hidden from it; returns how many were read."""
    game = Game.get_by_id(game_id)
    engine = ENGINES[game.engine]
    names = [p.address.split("@")[0] for p in people]
    moves = list(Move.select().where(Move.game == game_id).order_by(Move.ply))
    checked = 0
    for seat, person in enumerate(people):
        for message in person.inbox:
            found = OUR_ID.match(message["Message-ID"] or "")
            if not found or int(found[1]) != game_id:
                continue
            mail = text(message)
            if "Game over:" in mail:  # after the end, everything is shown
                continue
            number = int(found[2])  # the ply as everyone numbers it: the public one, or an
            assert int(found[3]) == seat  # answer nobody may learn of just after it
            plies = [m.ply for m in moves if m.shown == number] or [0]
            ply = next((ply for ply in plies if diagram(
                engine, state_at(game_id, ply), seat, names).rstrip("\n") in mail), None)
            assert ply is not None, f"mail to {names[seat]} at #{number} lacks their own diagram"
            state = state_at(game_id, ply)
            mail_lines = {line.strip() for line in mail.splitlines()}
            for other, secrets in others_secret_lines(engine, state, seat, names).items():
                leaked = secrets & mail_lines
                assert not leaked, f"{names[seat]} was shown {names[other]}'s {leaked}"
            for move in moves[:ply]:
                shown = move.visible.get(str(seat))
                if move.seat == seat or shown == move.text:
                    continue
                who = "Dealer" if move.seat == CHANCE else names[move.seat]
                assert f"#{move.ply} {who}: {move.text}\n" not in mail
                if move.seat == CHANCE and len(move.text) > 20:
                    assert move.text not in mail
            checked += 1
    return checked


def assert_the_end_reveals_the_seed_and_the_record(game_id, people):
    game = Game.get_by_id(game_id)
    for person in people:
        final = text(person.last)
        assert "Game over:" in final
        assert f"Checking the deal: the dealer's secret seed was\n  {game.seed}" in final
        assert game.commitment in final
        assert "The record of the game:" in final


# -- 6 nimmt! Baron Oxx: simultaneous secret choices ---------------------------------

def hand_faces(mail: str) -> dict[int, str]:
    """`Your hand: 22 BW   23 YGR` -> {22: '22 BW', 23: '23 YGR'}."""
    line = next(l for l in mail.splitlines() if l.startswith("Your hand:"))
    faces = [face.strip() for face in line[len("Your hand:"):].split("   ") if face.strip()]
    return {int(face.split()[0]): face for face in faces}


def mentions(mail: str, face: str) -> bool:
    return re.search(rf"(?<!\d){re.escape(face)}(?![A-Z])", mail) is not None


def test_two_secret_choices_sent_at_the_same_moment_both_land_and_reveal_once(
        mail_server, players):
    game_id, (ann, ben) = start(mail_server, players, "baronoxx", 2)
    cards = [min(hand_faces(text(latest_game_mail(p)))) for p in (ann, ben)]
    before = [len(p.inbox) for p in (ann, ben)]
    start_line = threading.Barrier(2)
    failures = []

    def choose(person, card):
        try:
            start_line.wait(timeout=10)
            person.reply(f"play {card}", to=latest_game_mail(person), quote=False)
        except Exception as error:  # shown below, not lost in the thread
            failures.append(error)
    threads = [threading.Thread(target=choose, args=(p, c)) for p, c in zip((ann, ben), cards)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures

    plays = [(m.seat, m.text) for m in Move.select().where(
        (Move.game == game_id) & Move.text.startswith("play")).order_by(Move.ply)]
    assert sorted(plays) == [(0, f"play {cards[0]}"), (1, f"play {cards[1]}")]
    view = Table.load(game_id).engine.view(Table.load(game_id).state, None)
    assert view["round"] == 1
    assert sorted(map(tuple, view["revealed"])) == sorted(zip(cards, (0, 1)))
    revealed = "Round 1 revealed: " + ", ".join(
        f"{card} (#{seat + 1})" for card, seat in sorted(zip(cards, (0, 1))))
    for person, card, count in zip((ann, ben), cards, before):
        if len(person.inbox) == count:  # not asked anything yet (a row question for the
            person.reply("board", to=latest_game_mail(person), quote=False)  # other)
        new = [text(m) for m in person.inbox[count:]]
        assert sum(f"You: play {card}" in mail for mail in new) == 1  # in the reveal's
        assert sum(revealed in mail for mail in new) == 1  # the order of delivery may vary
        assert not any("Round 2 revealed" in mail for mail in new)


def test_before_the_reveal_no_mail_to_a_player_shows_anothers_card_or_hand(
        mail_server, players):
    game_id, (ann, ben, cat) = start(mail_server, players, "baronoxx", 3)
    ann_hand = hand_faces(text(latest_game_mail(ann)))
    assert not any(mentions(text(m), face) for m in ben.inbox + cat.inbox
                   for face in ann_hand.values())
    card = min(ann_hand)
    seen = [len(ben.inbox), len(cat.inbox)]
    ann.reply(f"play {card}", quote=False)
    ben.reply(f"play {min(hand_faces(text(latest_game_mail(ben))))}", quote=False)
    assert "ann chose in secret" not in text(ann.last)  # a choice is news to nobody
    for person in (ben, cat):  # what each is shown now, asked for
        person.reply("board", to=latest_game_mail(person), quote=False)
    before_reveal = [text(m) for m in ben.inbox[seen[0]:] + cat.inbox[seen[1]:]]
    assert len(before_reveal) == 2
    for mail in before_reveal:
        assert not any(mentions(mail, face) for face in ann_hand.values())
        assert f"play {card}" not in mail
    seen = [len(person.inbox) for person in (ann, ben, cat)]
    cat.reply(f"play {min(hand_faces(text(latest_game_mail(cat))))}", quote=False)
    for person, count in zip((ann, ben, cat), seen):  # the last choice reveals the round
        if len(person.inbox) == count:  # to everyone, in their next mail
            person.reply("board")
        news = text(latest_game_mail(person)).split("Players:")[0]
        assert "Round 1 revealed: " in news and f"{card} (#1)" in news


def test_a_whole_baronoxx_game_never_mails_anyone_anothers_hand(mail_server, players):
    game_id, people = start(mail_server, players, "baronoxx", 3)
    play_to_the_end(game_id, people, random.Random("oxx"))
    assert assert_no_mail_shows_another_players_secrets(game_id, people) > 20
    assert_the_end_reveals_the_seed_and_the_record(game_id, people)


# -- Onix: the piles are face down below their tops ----------------------------------

def test_no_onix_mail_shows_a_card_below_a_piles_top(mail_server, players):
    game_id, people = start(mail_server, players, "onix", 3)
    engine = ENGINES["onix"]
    play_to_the_end(game_id, people, random.Random("onix"))
    for move in Move.select().where(Move.game == game_id):
        state = engine.from_json(move.state)
        for seat in (None, 0, 1, 2):
            for pile in engine.view(state, seat)["piles"]:
                assert set(pile) == {"name", "size", "top"}
    deal = Move.get((Move.game == game_id) & (Move.seat == CHANCE))
    assert deal.visible["0"] != deal.text  # the order of the piles is the dealer's secret
    assert assert_no_mail_shows_another_players_secrets(game_id, people) > 20
    assert_the_end_reveals_the_seed_and_the_record(game_id, people)


# -- Gem Forge: action cards in hand, and the reaction windows ------------------------

def test_gem_forge_mail_never_shows_anothers_action_cards_and_windows_ask_alike(
        mail_server, players):
    game_id, people = start(mail_server, players, "gemforge", 3)
    engine = ENGINES["gemforge"]
    windows = []

    def look_at_an_open_window():
        table = Table.load(game_id)
        asked = [s for s in range(3) if table.state is not None and table.to_act
                 and engine.view(table.state, s).get("asked")]
        if len(asked) < 2:
            return
        questions = {s: _question(text(latest_game_mail(people[s]))) for s in asked}
        windows.append(questions)

    play_to_the_end(game_id, people, random.Random("forge"), look_at_an_open_window)
    assert windows, "no reaction window asked two players at once"
    for questions in windows:
        assert len(set(questions.values())) == 1, questions
    assert assert_no_mail_shows_another_players_secrets(game_id, people) > 20
    assert_the_end_reveals_the_seed_and_the_record(game_id, people)


def _question(mail: str) -> str:
    """What a reaction window asks, without the part about the reader's own hand."""
    line = next(l for l in mail.splitlines() if ". Reply pass" in l)
    return line.split(". Reply pass")[0]


def test_a_gem_forge_window_does_not_tell_the_others_whom_it_waits_for(mail_server, players):
    game_id, people = start(mail_server, players, "gemforge", 3)
    engine, rng = ENGINES["gemforge"], random.Random("window")
    while Game.get_by_id(game_id).status == "running":
        send_random_move(game_id, people, rng)
        table = Table.load(game_id)
        asked = {s for s in range(3) if engine.view(table.state, s).get("asked")}
        if asked:
            break
    names = [p.address.split("@")[0] for p in people]
    for seat in set(range(3)) - asked:  # what each is shown now, asked for
        people[seat].reply("board", to=latest_game_mail(people[seat]), quote=False)
        waiting = [line for line in text(latest_game_mail(people[seat])).splitlines()
                   if line.startswith("Waiting for")]
        assert waiting  # told that the game waits, and for what
        for other in asked:
            assert not any(names[other] in line for line in waiting)
