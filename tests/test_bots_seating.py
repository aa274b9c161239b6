"""Bots at the table: seated by mail and by `pbem new`, never mailed, moved by the
scheduler's job through pbem.play (once, whatever the number of schedulers), and
playing for a player whose time ran out under `timeout=bot`.

The bots here are `easy` ones on small boards: what is tested is the seating and the
write path, not the strength (bench/bots.py measures that).
"""

from mailtest import body
from pbem import bot_turns
from pbem.operator.admin import start_game
from pbem.commands.server_moves import move_bots
from pbem.engines import ENGINES
from pbem.policy.delivery import deliver_due
from pbem.store import transaction
from pbem.store.models import Game, Move, Outbox, Player, Seat
from pbem.commands.server_moves import run_due


def moves_of(game_id):
    return [(m.seat, m.text, m.source) for m in
            Move.select().where(Move.game == game_id).order_by(Move.ply)]


def flat(message):
    return " ".join(body(message).split())


def no_mail_to_bots():
    return not Outbox.select().where(Outbox.recipient.startswith("bot")).exists()


def test_a_bot_seated_by_mail_needs_no_invitation_and_answers_through_the_job(
        players, mail_server):
    (carol,) = players("carol")
    carol.write("new onyx with bot:easy board=6 setup=open")
    carol.reply("yes, that was me")
    game = Game.get()
    assert game.status == "running"  # carol and a bot: nobody to wait for
    seats = list(Seat.select().where(Seat.game == game).order_by(Seat.number))
    assert [(s.player.email, s.player.name, s.answer) for s in seats] == [
        ("carol@example.org", "carol", "accepted"), ("bot:easy", "Bot (easy)", "accepted")]
    (started,) = [m for m in carol.inbox if f"#{game.id}" in m["Subject"]]
    assert "Bot (easy)" in flat(started)
    carol.reply("C3", to=started)
    assert move_bots(mail_server) == 1
    deliver_due(mail_server)
    (black, white) = moves_of(game.id)
    assert black == (0, "C3", black[2]) and white[0] == 1 and white[2] == "bot"
    assert f"Bot (easy): {white[1]}" in flat(carol.last)
    assert move_bots(mail_server) == 0  # now carol is to move: nothing to do
    assert no_mail_to_bots()


def test_a_bot_among_people_is_not_invited_and_the_people_are(players):
    carol, bob = players("carol", "bob")
    carol.write("new onix with bob@example.org, bot")
    carol.reply("yes")
    game = Game.get()
    assert game.status == "inviting"
    answers = [(s.player.email, s.answer) for s in
               Seat.select().where(Seat.game == game).order_by(Seat.number)]
    assert answers == [("carol@example.org", "accepted"), ("bob@example.org", None),
                       ("bot:normal", "accepted")]
    assert "invites you to play Onix" in flat(bob.last)
    bob.reply("accept")
    assert Game.get_by_id(game.id).status == "running"
    assert no_mail_to_bots()


def test_a_bot_level_that_does_not_exist_is_refused_with_the_levels(players):
    (carol,) = players("carol")
    carol.write("new onyx with bot:genius")
    carol.reply("yes")
    assert Game.select().count() == 0
    assert "names no bot level: write bot:easy, bot:normal or bot:hard" in flat(carol.last)


def test_bots_only_by_the_cli_play_the_whole_game_mailing_nobody(config):
    game_id = start_game(config, ENGINES["onyx"], {"board": "6", "setup": "open"},
                         ["bot:easy", "bot:easy"])
    played = move_bots(config)
    game = Game.get_by_id(game_id)
    assert game.status == "finished" and played == game.plies
    assert {source for _, _, source in moves_of(game_id)} == {"bot"}
    assert Player.select().where(Player.email == "bot:easy").count() == 1
    assert no_mail_to_bots()
    record = bot_turns_record(game_id)
    assert '[Black "Bot (easy)"]' in record and '[White "Bot (easy)"]' in record


def bot_turns_record(game_id):
    from notation.record import format_record
    from pbem.play import Table
    return format_record(Table.load(game_id, lock=False).record())


def test_a_bot_move_claimed_by_one_scheduler_is_not_made_by_another(config, frozen_time):
    game_id = start_game(config, ENGINES["onyx"], {"board": "6", "setup": "open"},
                         ["bot:easy", "alice@example.org"])
    (bot_seat,) = Seat.select().where((Seat.game == game_id) & (Seat.number == 0))
    assert bot_turns.claim(bot_seat.id, frozen_time.now)  # the first scheduler
    assert bot_turns.move_once(config, game_id, frozen_time.now) == 0  # the second
    assert moves_of(game_id) == []
    Seat.update(claimed_until=None).where(Seat.id == bot_seat.id).execute()
    with transaction():  # a search that began before a move came in is not played
        assert bot_turns.play_if_current(config, game_id, 0, plies=5, text="C3") == 0
    assert bot_turns.move_once(config, game_id, frozen_time.now) == 1
    assert bot_turns.move_once(config, game_id, frozen_time.now) == 0  # alice's turn
    assert len(moves_of(game_id)) == 1


def test_timeout_bot_has_a_bot_play_for_a_player_whose_time_ran_out(config, frozen_time):
    game_id = start_game(config, ENGINES["onyx"], {"board": "6", "setup": "open",
                                                  "time": "3d", "timeout": "bot"},
                         ["alice@example.org", "bob@example.org"])
    frozen_time.move(days=3, minutes=1)
    assert run_due(config) == 1
    ((seat, text, source),) = moves_of(game_id)
    assert (seat, source) == (0, "timeout")
    assert Game.get_by_id(game_id).status == "running"


def test_timeout_bot_thinks_before_the_game_is_locked(config, frozen_time, monkeypatch):
    """The bot's search for a player out of time runs before the deadline's transaction:
    under the game's lock its turn is only played, unless the game moved on meanwhile."""
    from pbem import bots
    from pbem.store.models import Clock
    from pbem.timekeeping import deadlines
    game_id = start_game(config, ENGINES["onyx"], {"board": "6", "setup": "open",
                                                  "time": "3d", "timeout": "bot"},
                         ["alice@example.org", "bob@example.org"])
    (row,) = Clock.select().where((Clock.game == game_id) & (Clock.seat == 0))
    assert deadlines.bot_turn(row.id, frozen_time.now) is None  # not out of time
    frozen_time.move(days=3, minutes=1)
    turn = deadlines.bot_turn(row.id, frozen_time.now)
    assert turn.plies == 0 and len(turn.texts) == 1
    searches = []
    decide = bots.decide
    monkeypatch.setattr(bots, "decide", lambda *a, **k: searches.append(1) or decide(*a, **k))
    stale = deadlines.BotTurn(plies=7, texts=["A1"])  # thought out on another position
    with transaction():
        assert deadlines.act(config, row.id, frozen_time.now, turn) == 1
    assert moves_of(game_id) == [(0, turn.texts[0], "timeout")] and searches == []
    (bob,) = Clock.select().where((Clock.game == game_id) & (Clock.seat == 1))
    frozen_time.move(days=3, minutes=1)
    with transaction():
        assert deadlines.act(config, bob.id, frozen_time.now, stale) == 1
    assert len(moves_of(game_id)) == 2 and searches == [1]  # it thought again, locked
    (row,) = Clock.select().where((Clock.game == game_id) & (Clock.seat == 0))
    frozen_time.move(days=3, minutes=1)
    unreadable = deadlines.BotTurn(plies=2, texts=["Z99"])  # this position, a wrong text
    with transaction():
        assert deadlines.act(config, row.id, frozen_time.now, unreadable) == 1
    assert len(moves_of(game_id)) == 3 and searches == [1, 1]  # dropped, thought again



def test_pbem_new_seats_a_bot_and_refuses_a_level_that_does_not_exist(store, tmp_path,
                                                                      monkeypatch, capsys):
    from pbem.cli import main
    monkeypatch.chdir(tmp_path)
    for name, value in {"PBEM_DATABASE_URL": store, "PBEM_SECRET_KEY": "k",
                        "PBEM_MAILDIR": str(tmp_path / "mail")}.items():
        monkeypatch.setenv(name, value)
    assert main(["new", "onix", "--player", "alice@example.org", "--player",
                 "bot:normal"]) == 0
    assert "mail went to alice@example.org\n" in capsys.readouterr().out
    game = Game.get()
    assert [s.player.name for s in Seat.select().where(Seat.game == game)
            .order_by(Seat.number)] == ["alice", "Bot (normal)"]
    assert main(["new", "onix", "--player", "alice@example.org", "--player",
                 "bot:strong"]) == 2
    assert "names no bot level" in capsys.readouterr().err


def test_pbem_arena_prints_each_contestants_share_with_its_interval(capsys):
    from pbem.cli import main
    assert main(["arena", "onyx", "--players", "bot:easy,random", "--games", "2",
                 "--option", "board=6", "--option", "setup=open"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Onyx, 2 players, 2 games:\n")
    assert "bot:easy:" in out and "random:" in out and "95% CI" in out
    assert main(["arena", "onyx", "--players", "bot:easy,human"]) == 2
    assert "'human' is not a contestant" in capsys.readouterr().err


def test_the_job_looks_only_at_games_waiting_for_an_unclaimed_bot(config, frozen_time):
    """A person's turn is no work for the bot job: it never loads that game."""
    people_first = start_game(config, ENGINES["onyx"], {"board": "6", "setup": "open"},
                              ["alice@example.org", "bot:easy"])
    bot_first = start_game(config, ENGINES["onyx"], {"board": "6", "setup": "open"},
                           ["bot:easy", "bob@example.org"])
    assert bot_turns.candidate_games() == [bot_first]
    with transaction():
        seat = Seat.get((Seat.game == bot_first) & (Seat.number == 0))
        assert bot_turns.claim(seat.id, frozen_time.now)  # another scheduler has it
    assert bot_turns.candidate_games() == []
    assert people_first not in bot_turns.candidate_games()
