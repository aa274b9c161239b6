"""The dealer's documented generators (notation/dealing.md): the stream's test vectors,
records that name their generator, and the records dealt before it that still check —
Python-Random, and HMAC-SHA256, whose Gem Forge reshuffles keep the order discarded
while HMAC-SHA256-2 lists a pile in its table's order. The independent re-dealer in
JavaScript is tested in tests/test_deal_check.py.
"""

from pathlib import Path

import pytest

from notation.record import format_record, parse_record
from pbem.cli import main
from pbem.engines import get_engine
from pbem.engines.base import CHANCE
from pbem.engines.dealing import (CURRENT, HMAC_SHA256, HMAC_SHA256_2, PYTHON_RANDOM,
                                  HmacStream, TableOrderStream, pile_order)
from pbem.engines.game import Game, RecordError, selfplay
from pbem.engines.gemforge.state import DECK

ROOT = Path(__file__).resolve().parent.parent


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


def test_the_document_prints_the_same_vectors():
    readme = (ROOT / "notation" / "dealing.md").read_text()
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
    assert '[DealGenerator "HMAC-SHA256-2"]' in recorded
    path = tmp_path / "game.txt"
    path.write_text(recorded)
    assert main(["record", "check", str(path)]) == 0
    assert "ok" in capsys.readouterr().out


def test_another_generator_named_in_the_tag_does_not_deal_this_game(recorded):
    record = parse_record(recorded.replace('"HMAC-SHA256-2"', f'"{PYTHON_RANDOM}"'))
    with pytest.raises(RecordError, match="the seed deals"):
        Game.from_record(record)
    with pytest.raises(RecordError, match="DealGenerator tag names 'MT19937'"):
        Game.from_record(parse_record(recorded.replace('"HMAC-SHA256-2"', '"MT19937"')))


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


# -- HMAC-SHA256 and HMAC-SHA256-2: a discard pile in the order discarded, or the table's --

def test_a_pile_is_listed_in_the_table_order_only_by_the_new_generator():
    pile = ["cancel", "mine", "mine", "three-cards", "copy-set", "discard-gems"]
    assert pile_order(TableOrderStream("club-2026", 40), pile, DECK) == [
        "three-cards", "discard-gems", "mine", "mine", "cancel", "copy-set"]
    assert pile_order(HmacStream("club-2026", 40), pile, DECK) == pile


def test_the_documented_reshuffles():
    """notation/dealing.md's vectors: a pile of cards and one of tiles, HMAC-SHA256-2."""
    cards = pile_order(TableOrderStream("club-2026", 40), ["cancel", "mine", "mine",
                       "three-cards", "copy-set", "discard-gems"], DECK)
    TableOrderStream("club-2026", 40).shuffle(cards)
    assert " ".join(cards) == "copy-set cancel mine mine three-cards discard-gems"
    tiles = pile_order(TableOrderStream("club-2026", 41), "T30 T02 T17 T09 T11".split(),
                       [f"T{n:02}" for n in range(1, 37)])
    TableOrderStream("club-2026", 41).shuffle(tiles)
    assert " ".join(tiles) == "T02 T11 T30 T17 T09"
    document = " ".join((ROOT / "notation" / "dealing.md").read_text().split())
    assert ("deals `cards copy-set cancel mine mine three-cards discard-gems`" in document)
    assert "deals `tiles T02 T11 T30 T17 T09`" in document


def test_the_documented_baron_oxx_moves_on_their_own():
    """notation/dealing.md: a draw that ends with cards from under the deck, and `left`."""
    from pbem.engines.baronoxx.state import OxxState
    unseen = (3, 18, 40, 41, 77, 90, 104)
    state = OxxState(players=3, variant="2", games=1, phase="choose", hands=((), (), ()),
                     unknown=(0, 0, 1), bottoms=((), (), (55, 7, 60, 12)), unseen=unseen)
    engine = get_engine("baronoxx")
    assert engine.notation(state, CHANCE, engine.deal(state, HmacStream("club-2026", 41))) \
        == "draw #3 3 55 7 60"
    state = OxxState(players=3, variant="2", games=1, phase="reveal", hands=((), (), ()),
                     unknown=(0, 2, 0), bottoms=((), (), ()), unseen=unseen)
    assert engine.notation(state, CHANCE, engine.deal(state, HmacStream("club-2026", 40))) \
        == "left #2 3 90"
    document = " ".join((ROOT / "notation" / "dealing.md").read_text().split())
    assert "is `draw #3 3 55 7 60`" in document and "are `left #2 3 90`" in document


def reshuffles(text: str) -> list[int]:
    """The plies of a Gem Forge record's reshuffles (a `cards` or `tiles` after the first)."""
    plies, seen = [], set()
    for ply, move in enumerate(parse_record(text).moves, start=1):
        kind = move.text.split()[0]
        if move.actor == "Dealer" and kind in ("cards", "tiles"):
            if kind in seen:
                plies.append(ply)
            seen.add(kind)
    return plies


def test_a_gem_forge_game_dealt_by_hmac_sha256_keeps_its_discard_order():
    """Stored games go on dealing as they began: under HMAC-SHA256 a reshuffle is the
    pile in the order discarded, which the new generator would deal otherwise."""
    old = format_record(selfplay(get_engine("gemforge"), {}, 3, "deals0",
                                 generator=HMAC_SHA256).record())
    assert '[DealGenerator "HMAC-SHA256"]' in old and len(reshuffles(old)) >= 2
    Game.from_record(parse_record(old))  # every reshuffle is the seed's, in the old order
    with pytest.raises(RecordError, match="the seed deals") as refused:
        Game.from_record(parse_record(old.replace('"HMAC-SHA256"', '"HMAC-SHA256-2"')))
    assert refused.value.ply == reshuffles(old)[0]  # the setup deals alike: only a pile differs


def test_a_new_gem_forge_record_refuses_the_old_generator_at_its_first_reshuffle():
    new = format_record(selfplay(get_engine("gemforge"), {}, 3, "deals0").record())
    Game.from_record(parse_record(new))
    with pytest.raises(RecordError, match="the seed deals") as refused:
        Game.from_record(parse_record(new.replace('"HMAC-SHA256-2"', '"HMAC-SHA256"')))
    assert refused.value.ply == reshuffles(new)[0]


@pytest.mark.parametrize("name, options, players", [("onix", {}, 4), ("baronoxx", {"variant": "2"}, 3)])
def test_both_hmac_generators_deal_onix_and_baron_oxx_alike(name, options, players):
    new = format_record(selfplay(get_engine(name), options, players, "alike").record())
    Game.from_record(parse_record(new.replace('"HMAC-SHA256-2"', '"HMAC-SHA256"')))


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
    assert GameRow.generator.default == HMAC_SHA256_2 == CURRENT  # what new games deal with
