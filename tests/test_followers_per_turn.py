"""Spectators are not flooded (#35 item 2): a follower (`follow N`) gets at most one mail
per public turn, carrying the news since their last, as players do. In 6 nimmt!, a game
of simultaneous rounds, that is one mail a round, after its reveal (and its row
questions), never one per secret choice; in Gem Forge, one per player's turn, whatever
its reaction windows.

Real SMTP on loopback; seeded games played by mail to the end by honest random players
who send one decision a mail.
"""

import random
import re

import pytest

from conversation import news_lines
from mailtest import body
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.play import Table
from pbem.policy.delivery import deliver_due
from pbem.store import Game, Move

NAMES = ["ann", "ben", "cat", "dan"]


def play_to_the_end(config, people, game_id, rng, limit=3000):
    for _ in range(limit):
        table = Table.load(game_id, lock=False)
        if table.game.status != "running":
            return
        seat = rng.choice(sorted(table.to_act - {CHANCE}))
        decision = table.engine.random_decision(table.state, seat, rng)
        text = table.engine.notation(table.state, seat, decision)
        address = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
        people[seat].send(people[seat].compose(text, to=address, subject="Re: our game"))
    raise AssertionError("the game did not end")


def follow(person, game_id):
    person.write(f"follow {game_id}")
    person.reply("yes")  # a new address confirms first
    assert f"You follow game #{game_id}" in body(person.last)
    return len(person.inbox)


def test_a_follower_of_6_nimmt_gets_one_mail_a_round_after_its_reveal(mail_server, players):
    people = players(*NAMES)
    (eve,) = players("eve")
    game_id = start_game(mail_server, ENGINES["baronoxx"], {}, [p.address for p in people],
                         seed="followers")
    deliver_due(mail_server)
    seen = follow(eve, game_id)
    table = Table.load(game_id, lock=False)
    hand = table.engine.view(table.state, 0)["hand"]
    people[0].reply(f"play {hand[0]}")  # a secret choice: nothing for a spectator
    assert len(eve.inbox) == seen
    play_to_the_end(mail_server, people, game_id, random.Random("followers"))
    mails = eve.inbox[seen:]
    rounds = Table.load(game_id, lock=False).state.round
    assert len(mails) == rounds  # the last round's mail is the end's
    for number, message in enumerate(mails[:-1], start=1):
        lines = news_lines(message)
        assert f"Round {number} revealed: " in "\n".join(lines), lines
        assert not any(re.match(rf"Round {number + 1} revealed", line) for line in lines)
    assert "Game over" in body(mails[-1])
    # Every public ply reaches the follower exactly once, under its running number.
    told = [line for message in mails[:-1] for line in news_lines(message)]
    secret = [line for line in told if line.endswith("chose in secret.")]
    assert len(secret) == len(set(secret))
    named = [int(n) for line in told for n in re.findall(r"^#(\d+)", line)]
    assert named == sorted(named) and len(named) == len(set(named))


def test_a_follower_of_gem_forge_gets_one_mail_a_turn(mail_server, players):
    people = players(*NAMES[:3])
    (eve,) = players("eve")
    game_id = start_game(mail_server, ENGINES["gemforge"], {}, [p.address for p in people],
                         seed="followers")
    deliver_due(mail_server)
    seen = follow(eve, game_id)
    play_to_the_end(mail_server, people, game_id, random.Random("forge followers"))
    mails = eve.inbox[seen:]
    engine = ENGINES["gemforge"]
    turns, state = 0, None
    for move in Move.select().where(Move.game == game_id).order_by(Move.ply):
        after = engine.from_json(move.state)
        if state is not None and engine.public_turn(after) != engine.public_turn(state):
            turns += 1
        state = after
    assert Game.get_by_id(game_id).status == "finished"
    # one mail a turn, and the end's (a turn's last write may be the end: one mail)
    assert turns <= len(mails) <= turns + 1, (len(mails), turns)
    for message in mails[:-1]:  # each carries one player's turn (a discard it forced
        # on another is a secret choice of theirs), or the setup's keeps
        who = {found.group(1) for line in news_lines(message)
               if (found := re.match(r"^#\d+(?:-\d+)? (\w+): ", line))} - {"Dealer"}
        assert len(who) <= 1, news_lines(message)
