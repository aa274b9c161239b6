"""The dealer's documented generator (notation/README.md, *Checking the deal*): its test
vectors, records that name it, the records dealt before it that still check, and an
independent JavaScript re-dealer (tests/deal_check.js, written from the document) that
agrees with pbem on every dealer's move of recorded Onix, Baron Oxx and Gem Forge games.

node is part of the test environment (.ci/run installs it): a missing node fails here.
"""

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from notation.record import format_record, parse_record
from pbem.cli import main
from pbem.engines import get_engine
from pbem.engines.base import CHANCE
from pbem.engines.dealing import HMAC_SHA256, PYTHON_RANDOM, HmacStream
from pbem.engines.game import Game, RecordError, selfplay

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "pbem" / "engines"  # the card tables: onix/cards.csv, gemforge/tiles.csv


def test_the_documented_test_vectors():
    words = HmacStream("club-2026", 7)
    assert [words.word() for _ in range(9)] == [
        2443844837, 1540189423, 3436875028, 129162833, 2111400680, 3020494423, 281762734,
        1984240715, 519675873]
    numbers = HmacStream("club-2026", 7)
    assert [numbers.randrange(n) for n in (2, 3, 6, 52, 1000)] == [1, 1, 4, 33, 680]
    cards = list(range(1, 11))
    HmacStream("club-2026", 7).shuffle(cards)
    assert cards == [1, 9, 10, 6, 4, 7, 3, 5, 2, 8]
    assert HmacStream("club-2026", 7).sample(range(1, 105), 5) == [6, 40, 25, 98, 85]
    assert HmacStream("club-2026", 8).randrange(3 * 2 ** 30) == 48568414  # one rejected


def test_the_readme_prints_the_same_vectors():
    readme = (ROOT / "notation" / "README.md").read_text()
    for line in ("= 91aa1ce55bcd6cefccda8d1407b2de517dd96ae8b409165710cb5bae76451c4b",
                 "numbers below 2, 3, 6, 52, 1000, drawn one after another: 1 1 4 33 680",
                 "shuffle of 1 2 3 4 5 6 7 8 9 10:                          1 9 10 6 4 7 3 5 2 8",
                 "sample of 5 of 1 … 104:                                   6 40 25 98 85"):
        assert line in readme


def test_rejection_keeps_a_range_unbiased():
    """2**32 is not a multiple of 3: a word at or above 3 * (2**32 // 3) is thrown away."""
    stream = HmacStream("club-2026", 8)
    assert stream.word() == 3643068712
    assert HmacStream("club-2026", 8).randrange(3 * 2 ** 30) == 48568414
    with pytest.raises(ValueError, match="32-bit"):
        HmacStream("x", 0).randrange(2 ** 32 + 1)


# -- records ---------------------------------------------------------------------------

#: Self-played games; Gem Forge's "deals0" reshuffles both discard piles.
GAMES = [("onix", {}, 3, "deals"), ("baronoxx", {"variant": "2"}, 3, "deals"),
         ("gemforge", {}, 3, "deals0")]


@pytest.fixture(scope="module", params=GAMES, ids=[game for game, _, _, _ in GAMES])
def recorded(request):
    """A finished game's record text, dealt by HMAC-SHA256."""
    name, options, players, seed = request.param
    return format_record(selfplay(get_engine(name), options, players, seed).record())


def test_a_new_record_names_its_generator_and_checks(recorded, tmp_path, capsys):
    assert '[DealGenerator "HMAC-SHA256"]' in recorded
    path = tmp_path / "game.txt"
    path.write_text(recorded)
    assert main(["record", "check", str(path)]) == 0
    assert "ok" in capsys.readouterr().out


def test_another_generator_named_in_the_tag_does_not_deal_this_game(recorded):
    record = parse_record(recorded.replace('"HMAC-SHA256"', f'"{PYTHON_RANDOM}"'))
    with pytest.raises(RecordError, match="the seed deals"):
        Game.from_record(record)
    with pytest.raises(RecordError, match="DealGenerator tag names 'MT19937'"):
        Game.from_record(parse_record(recorded.replace('"HMAC-SHA256"', '"MT19937"')))


def test_a_record_dealt_before_the_tag_still_checks(tmp_path, capsys):
    """Records written before issue 22 carry no DealGenerator tag: Python's random."""
    game = Game(get_engine("baronoxx"), {}, ["alice", "bob"], seed="old-club",
                generator=PYTHON_RANDOM)
    text = format_record(game.record(reveal_seed=True))
    assert '[DealGenerator "Python-Random"]' in text
    old = text.replace('[DealGenerator "Python-Random"]\n', "")
    assert "DealGenerator" not in old
    Game.from_record(parse_record(old))  # checks every dealer's move against the seed
    with pytest.raises(RecordError, match="the seed deals"):
        Game.from_record(parse_record(text.replace('"Python-Random"', '"HMAC-SHA256"')))


# -- the independent re-dealer ----------------------------------------------------------

def dealer_jobs(text: str) -> tuple[list[dict], list[str]]:
    """Each dealer's move of a record as a job for deal_check.js, with what the record
    alone does not say (the unseen cards, the discard pile), and the moves recorded."""
    record = parse_record(text)
    tags = record.tag_dict()
    engine = get_engine(tags["Game"])
    game = Game(engine, engine.options_from_tags(tags), engine.players_from_tags(tags))
    jobs, recorded = [], []
    for move in record.moves:
        seat = game.seat_for(move.actor) if move.actor else next(iter(game.to_act))
        if seat == CHANCE:
            jobs.append(dict(game=engine.id, seed=tags["Seed"], ply=len(game.plies),
                             recorded=move.text, players=len(game.players),
                             **what_is_drawn(engine.id, game.state, move.text)))
            recorded.append(move.text)
        game.play(seat, move.text)
    return jobs, recorded


def what_is_drawn(game: str, state, text: str) -> dict:
    """The population a dealer's move draws from, as the document describes it."""
    kind = text.split()[0]
    if game == "baronoxx":
        seat = int(text.split()[1][1:]) - 1 if kind != "rows" else 0
        return dict(unseen=list(state.unseen), hidden=state.unknown[seat],
                    bottoms=list(state.bottoms[seat]))
    if game == "gemforge" and kind in ("cards", "tiles"):
        if state.setup < 4:
            return dict(discard=None)
        discard = (state.discard if kind == "cards"
                   else [t for t in state.tile_discard if t not in state.fresh])
        return dict(discard=list(discard))
    return {}


def test_node_re_deals_every_dealers_move_from_the_document(recorded):
    jobs, moves = dealer_jobs(recorded)
    assert len(jobs) >= (1 if '"Onix"' in recorded else 4)
    assert run_node(jobs) == moves
    if '"Gem Forge"' in recorded:
        reshuffled = {job["recorded"].split()[0] for job in jobs if job.get("discard")}
        assert reshuffled == {"cards", "tiles"}


def run_node(jobs: list[dict]) -> list[str]:
    node = shutil.which("node") or shutil.which("nodejs")
    assert node, "node is needed for this test (.ci/run installs nodejs)"
    answer = subprocess.run([node, str(ROOT / "tests" / "deal_check.js")],
                            input=json.dumps({"data": str(DATA), "jobs": jobs}),
                            capture_output=True, text=True, check=True)
    return json.loads(answer.stdout)


def test_node_deals_baron_oxx_moves_self_play_seldom_reaches():
    """Variant 2's end (`left`) and a hand filled from known cards under the deck."""
    unseen = [3, 18, 40, 41, 77, 90, 104]
    left = sorted(HmacStream("end", 40).sample(unseen, 2))
    drawn = sorted(HmacStream("end", 41).sample(unseen, 1))
    jobs = [dict(game="baronoxx", seed="end", ply=40, recorded="left #2 …", players=3,
                 unseen=unseen, hidden=2, bottoms=[]),
            dict(game="baronoxx", seed="end", ply=41, recorded="draw #3 …", players=3,
                 unseen=unseen, hidden=1, bottoms=[55, 7, 60, 12])]
    assert run_node(jobs) == [f"left #2 {left[0]} {left[1]}", f"draw #3 {drawn[0]} 55 7 60"]


def test_games_stored_before_the_generator_keep_dealing_as_they_began(tmp_path):
    """The migration marks every stored game Python-Random: a running game must go on
    dealing as it started, or its record would no longer check."""
    from peewee import SqliteDatabase
    from playhouse.migrations import Runner

    from pbem.store.database import MIGRATIONS
    db = SqliteDatabase(str(tmp_path / "old.db"))
    runner = Runner(db, directory=str(MIGRATIONS), table_name="pbem_schema")
    runner.up("0012_sender_history_index")
    db.execute_sql("INSERT INTO game (engine, options, seed, commitment, status, plies, "
                   "result, termination, created, updated) VALUES ('onix', '{}', 's', 'c', "
                   "'running', 1, '*', '', '2026-01-01', '2026-01-01')")
    runner.up()
    assert db.execute_sql("SELECT generator FROM game").fetchall() == [(PYTHON_RANDOM,)]
    from pbem.store.models import Game as GameRow
    assert GameRow.generator.default == HMAC_SHA256  # what new games deal with
