"""The deal checked from a record and notation/dealing.md alone, by the JavaScript
re-dealer (templates/web/deal_check.js, run by tests/deal_check.js): it is handed a
record file and nothing else, works out every population itself, and must agree with
pbem on every dealer's move of self-played games (every dealt game, at 2 and the most
players, a Baron Oxx match, Gem Forge's reshuffles of both piles) and of games played by
mail; a record with a card, the seed or the commitment changed fails, naming the ply.
The document's tables are the engines' tables and the script's.

node is part of the test environment (.ci/run installs it): a missing node fails here.
"""

import csv
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from notation.record import format_record, parse_record
from pbem.engines import get_engine
from pbem.engines.baronoxx.state import CARDS_EACH
from pbem.engines.dealing import HMAC_SHA256, PYTHON_RANDOM
from pbem.engines.game import Game, RecordError, seed_commitment, selfplay
from pbem.engines.gemforge.state import CARDS, tiles

ROOT = Path(__file__).resolve().parent.parent
CHECKER = ROOT / "tests" / "deal_check.js"
DOCUMENT = ROOT / "notation" / "dealing.md"


def node() -> str:
    found = shutil.which("node") or shutil.which("nodejs")
    assert found, "node is needed for this test (.ci/run installs nodejs)"
    return found


def check_files(*paths: Path) -> list[list[dict]]:
    """deal_check.js's reports: for each file, one per record in it."""
    done = subprocess.run([node(), str(CHECKER), *map(str, paths)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return [file["records"] for file in json.loads(done.stdout)]


def check_text(text: str, tmp_path: Path) -> dict:
    path = tmp_path / "game.txt"
    path.write_text(text)
    return check_files(path)[0][0]


def dealer_plies(text: str) -> dict[int, str]:
    return {ply: move.text for ply, move in enumerate(parse_record(text).moves, start=1)
            if move.actor == "Dealer"}


# -- self-played games -------------------------------------------------------------------

#: Every dealt game at 2 players and at the most; a Baron Oxx match of three games
#: (Variant 2); Gem Forge games that reshuffle their action cards (and, at 4, their tiles).
SELF_PLAYED = [("onix", {}, 2, "deals"), ("onix", {}, 6, "deals"),
               ("baronoxx", {}, 2, "deals"), ("baronoxx", {"variant": "2"}, 10, "deals"),
               ("baronoxx", {"variant": "2", "games": "3"}, 3, "match"),
               ("gemforge", {}, 2, "deals3"), ("gemforge", {}, 4, "deals0")]
IDS = [f"{game}-{players}-{seed}" for game, _, players, seed in SELF_PLAYED]


@pytest.fixture(scope="module")
def self_played(tmp_path_factory) -> dict[str, tuple[str, dict]]:
    """Each game's record and the checker's report on it, from one run of node."""
    folder = tmp_path_factory.mktemp("records")
    texts, paths = {}, []
    for (name, options, players, seed), key in zip(SELF_PLAYED, IDS):
        texts[key] = format_record(selfplay(get_engine(name), options, players, seed).record())
        paths.append(folder / f"{key}.txt")
        paths[-1].write_text(texts[key])
    reports = check_files(*paths)
    return {key: (texts[key], report[0]) for key, report in zip(IDS, reports)}


@pytest.mark.parametrize("key", IDS)
def test_every_dealers_move_of_a_self_played_game_is_re_dealt(self_played, key):
    text, report = self_played[key]
    assert report["ok"], report["problems"]
    assert report["commitmentOk"] and report["generator"] == "HMAC-SHA256-2"
    assert {deal["ply"]: deal["text"] for deal in report["deals"]} == dealer_plies(text)
    assert {deal["status"] for deal in report["deals"]} == {"ok"}
    assert all(deal["expected"] == deal["text"] for deal in report["deals"])


def test_the_games_hold_what_the_document_describes(self_played):
    """Not a check that passes by having nothing to check: the records hold a match's
    second and third deals, and reshuffles of both of Gem Forge's piles."""
    match, _ = self_played["baronoxx-3-match"]
    assert sum(text.startswith("rows") for text in dealer_plies(match).values()) == 3
    kinds = [text.split()[0] for key in IDS if key.startswith("gemforge")
             for text in dealer_plies(self_played[key][0]).values()]
    assert kinds.count("cards") >= 4 and kinds.count("tiles") >= 3  # 2 starts, reshuffles


# -- what fails --------------------------------------------------------------------------

def reshuffle_ply(text: str, kind: str) -> int:
    plies = [ply for ply, move in dealer_plies(text).items() if move.split()[0] == kind]
    return plies[1]


def swap_two(move: str, separator: str = " ") -> str:
    """The move with its first two different cards after the verb swapped."""
    verb, *cards = move.split(separator)
    first = next(i for i in range(1, len(cards)) if cards[i] != cards[0])
    cards[0], cards[first] = cards[first], cards[0]
    return separator.join([verb, *cards])


def changed(text: str, ply: int, move: str) -> str:
    """The record with the dealer's move at `ply` replaced (the Python way to the same
    place: parse, replace, write)."""
    record = parse_record(text)
    record.moves[ply - 1].text = move
    return format_record(record)


@pytest.mark.parametrize("key, kind", [("gemforge-4-deals0", "cards"),
                                       ("gemforge-4-deals0", "tiles")])
def test_a_reshuffle_with_two_cards_swapped_fails_at_its_ply(self_played, key, kind, tmp_path):
    text, _ = self_played[key]
    ply = reshuffle_ply(text, kind)
    forged = changed(text, ply, swap_two(dealer_plies(text)[ply]))
    report = check_text(forged, tmp_path)
    assert not report["ok"] and report["firstWrong"] == ply
    assert report["deals"][-1]["status"] == "wrong"
    assert report["problems"] == [f"ply {ply}: the seed deals {dealer_plies(text)[ply]}, "
                                  f"not {dealer_plies(forged)[ply]}"]
    with pytest.raises(RecordError, match="the seed deals") as refused:  # pbem agrees
        Game.from_record(parse_record(forged))
    assert refused.value.ply == ply


def test_a_baron_oxx_draw_with_one_card_changed_fails_at_its_ply(self_played, tmp_path):
    text, _ = self_played["baronoxx-2-deals"]
    ply, move = next((p, m) for p, m in dealer_plies(text).items() if m.startswith("draw")
                     and p > 3)
    words = move.split()
    unseen_elsewhere = next(c for c in range(1, 111) if str(c) not in text.split())
    forged = changed(text, ply, " ".join(words[:2] + [str(unseen_elsewhere)] + words[3:]))
    report = check_text(forged, tmp_path)
    assert not report["ok"] and report["firstWrong"] == ply
    assert [d["status"] for d in report["deals"]][-2:] == ["ok", "wrong"]


def test_an_onix_deal_with_two_cards_swapped_fails_at_ply_1(self_played, tmp_path):
    text, _ = self_played["onix-2-deals"]
    deal = dealer_plies(text)[1]
    words = deal.split(" ")  # deal first P1 A=… B=…
    words[3] = "A=" + swap_two("A," + words[3][2:], ",").split(",", 1)[1]  # two of A's cards
    assert words[3] != deal.split(" ")[3]
    report = check_text(changed(text, 1, " ".join(words)), tmp_path)
    assert not report["ok"] and report["firstWrong"] == 1


def test_another_seed_fails_its_commitment_and_deals_otherwise(self_played, tmp_path):
    text, _ = self_played["gemforge-2-deals3"]
    report = check_text(text.replace('[Seed "selfplay/deals3"]', '[Seed "selfplay/deals4"]'),
                        tmp_path)
    assert not report["ok"] and report["checkable"] and not report["commitmentOk"]
    assert report["seedHash"] == seed_commitment("selfplay/deals4")
    assert report["firstWrong"] == 1  # the first player drawn is another (or the mine)
    assert report["problems"][0] == (f"the SHA-256 of the seed is "
                                     f"{seed_commitment('selfplay/deals4')}, not the "
                                     f"commitment {seed_commitment('selfplay/deals3')}")


def test_another_commitment_fails_although_every_deal_checks(self_played, tmp_path):
    text, _ = self_played["onix-6-deals"]
    other = seed_commitment("something else")
    report = check_text(re.sub(r'\[SeedSHA256 "[0-9a-f]+"\]', f'[SeedSHA256 "{other}"]', text),
                        tmp_path)
    assert not report["ok"] and not report["commitmentOk"]
    assert report["firstWrong"] is None and [d["status"] for d in report["deals"]] == ["ok"]
    assert f"not the commitment {other}" in report["problems"][0]


# -- games dealt before HMAC-SHA256-2 ------------------------------------------------------

def test_an_hmac_sha256_gem_forge_game_checks_all_but_its_reshuffles(tmp_path):
    """The order discarded needs the whole rules: left to pbem record check, and said."""
    text = format_record(selfplay(get_engine("gemforge"), {}, 3, "deals0",
                                  generator=HMAC_SHA256).record())
    report = check_text(text, tmp_path)
    assert report["ok"], report["problems"]
    statuses = [deal["status"] for deal in report["deals"]]
    assert statuses[:4] == ["ok"] * 4 and set(statuses[4:]) == {"unchecked"}
    assert len(statuses) > 4
    assert "pbem record check" in report["deals"][4]["why"]


def test_a_python_random_game_is_left_to_pbem(tmp_path):
    game = Game(get_engine("onix"), {}, ["alice", "bob"], seed="old", generator=PYTHON_RANDOM)
    report = check_text(format_record(game.record(reveal_seed=True)), tmp_path)
    assert not report["ok"] and not report["checkable"] and report["commitmentOk"]
    assert "only pbem record check re-deals it" in report["problems"][0]


def test_a_running_game_has_no_seed_to_check(tmp_path):
    game = Game(get_engine("baronoxx"), {}, ["alice", "bob"], seed="secret")
    report = check_text(format_record(game.record()), tmp_path)
    assert not report["ok"] and not report["checkable"] and report["deals"] == []
    assert report["problems"] == ["the record has no Seed tag: the seed is revealed only "
                                  "when the game is over"]


# -- the document's vectors, re-dealt by the script ---------------------------------------

def setup_record(game: str, seats: int, moves: list[str]) -> str:
    tags = "".join(f'[Seat{n} "p{n}"]\n' for n in range(1, seats + 1))
    return (f'[Game "{game}"]\n{tags}[SeedSHA256 "{seed_commitment("club-2026")}"]\n'
            f'[DealGenerator "HMAC-SHA256-2"]\n[Seed "club-2026"]\n[Result "*"]\n\n'
            + " ".join(moves) + " *\n")


DOCUMENTED = {
    "6 nimmt! Baron Oxx": ["draw #1 19 42 45 70", "draw #2 10 24 39 66", "rows 33 44 74 63 85"],
    "Gem Forge": [
        "first P2", "mine YLRGYRYGLGLYYGRRRGLRGGGLLYGYLRLYYRGYLRRL",
        "cards take-from-ornament mine three-cards swap-ornaments take-from-cart copy-set "
        "swap-gems cancel discard-gems copy-take swap-gems mine mine mine mine mine "
        "discard-gems cancel set-two cancel discard-gems copy-set take-from-ornament "
        "copy-take take-from-cart discard-gems copy-set copy-take cancel swap-ornaments "
        "set-two three-cards copy-set copy-take",
        "tiles T20 T14 T30 T19 T17 T10 T15 T06 T09 T35 T31 T05 T27 T16 T24 T26 T36 T32 T33 "
        "T07 T04 T21 T25 T22 T03 T13 T28 T01 T18 T02 T08 T11 T12 T34 T29 T23"],
    "Onix": ["deal first P1 A=D,X,X,OS,D,OS,OD,OS,X,D,OD,S,SD,SX,O,S,S,S,D,O "
             "B=X,OX,S,S,O,D,S,D,O,X,S,S,X,OD,D,O,O,D,S C=O,X,O,O,SD,O,O,DX,X,OX,X,OD,X,D,DX,"
             "D,S,D,D D=X,X,S,SX,S,O,DX,D,S,X,D,X,D,X,O,X,X,OS,S E=SD,O,O,D,O,D,S,DX,S,OX,SD,"
             "SX,D,X,O,S,SX,O,OX"],
}


@pytest.mark.parametrize("game", DOCUMENTED)
def test_the_documented_first_deals(game, tmp_path):
    moves = DOCUMENTED[game]
    engine = get_engine(game)
    assert [ply.text for ply in Game(engine, {}, ["p1", "p2"], seed="club-2026").plies] == moves
    document = " ".join(DOCUMENT.read_text().split())
    assert all(move in document for move in moves)
    report = check_text(setup_record(game, 2, [f"Dealer: {m};" for m in moves]), tmp_path)
    assert report["ok"] and [d["status"] for d in report["deals"]] == ["ok"] * len(moves)


def test_the_documented_reshuffles_by_the_script(tmp_path):
    """The document's piles, at p = 40 and 41 after a setup: the script lists each in the
    table's order itself and deals the documented orders (the plies between are players'
    moves, which the script passes over)."""
    setup = [f"Dealer: {m};" for m in DOCUMENTED["Gem Forge"]]
    filler = ["p1: take;"] * (40 - len(setup))
    reshuffles = ["Dealer: cards copy-set cancel mine mine three-cards discard-gems;",
                  "Dealer: tiles T02 T11 T30 T17 T09;"]
    report = check_text(setup_record("Gem Forge", 2, setup + filler + reshuffles), tmp_path)
    assert report["ok"], report["problems"]
    assert [(d["ply"], d["status"]) for d in report["deals"][-2:]] == [(41, "ok"), (42, "ok")]
    swapped = reshuffles[0].replace("copy-set cancel", "cancel copy-set")
    report = check_text(setup_record("Gem Forge", 2, setup + filler + [swapped]), tmp_path)
    assert report["firstWrong"] == 41
    assert report["deals"][-1]["expected"] == reshuffles[0][len("Dealer: "):-1]


def test_the_script_computes_the_documented_stream(tmp_path):
    program = (f"const c = require({json.dumps(str(ROOT / 'templates/web/deal_check.js'))});"
               "const w = c.stream('club-2026', 7); const words = [];"
               "for (let i = 0; i < 9; i++) words.push(w.word());"
               "const n = c.stream('club-2026', 7);"
               "console.log(JSON.stringify({words,"
               " block: c.hex(c.hmacSha256(c.utf8('club-2026'), c.utf8('7/0'))),"
               " numbers: [2, 3, 6, 52, 1000].map((k) => n.below(k)),"
               " shuffle: c.stream('club-2026', 7).shuffle([1,2,3,4,5,6,7,8,9,10]),"
               " sample: c.stream('club-2026', 7).sample(Array.from({length: 104}, (_, i) => i + 1), 5),"
               " rejected: c.stream('club-2026', 8).below(3 * 2 ** 30),"
               " empty: c.hex(c.sha256(new Uint8Array(0)))}));")
    done = subprocess.run([node(), "-e", program], capture_output=True, text=True, timeout=60)
    assert json.loads(done.stdout) == {
        "words": [2443844837, 1540189423, 3436875028, 129162833, 2111400680, 3020494423,
                  281762734, 1984240715, 519675873],
        "block": "91aa1ce55bcd6cefccda8d1407b2de517dd96ae8b409165710cb5bae76451c4b",
        "numbers": [1, 1, 4, 33, 680], "shuffle": [1, 9, 10, 6, 4, 7, 3, 5, 2, 8],
        "sample": [6, 40, 25, 98, 85], "rejected": 48568414,
        "empty": "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"}


# -- the tables: the document's, the engines', the script's -------------------------------

def document_table(heading: str) -> list[list[str]]:
    """The rows of the markdown table whose first column is headed `heading`."""
    lines = DOCUMENT.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {heading} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip().strip("`") for cell in line.strip("|").split("|")])
    return rows


def test_the_documents_onix_table_is_the_card_file():
    letters = {"circle": "O", "square": "S", "diamond": "D", "cross": "X"}
    text = (ROOT / "pbem/engines/onix/cards.csv").read_text().splitlines()
    cards = {int(row["id"]): "".join(sorted((letters[g] for g in row["gems"].split()),
                                            key="OSDX".index))
             for row in csv.DictReader(line for line in text if not line.startswith("#"))}
    listed = 0
    for card, copies, ids in document_table("Onix card"):
        first, last = map(int, ids.split("–"))
        assert [cards[i] for i in range(first, last + 1)] == [card] * int(copies)
        listed += int(copies)
    assert listed == len(cards) == 104


def test_the_documents_gem_forge_and_baron_oxx_tables_are_the_engines():
    assert [(name, int(copies)) for name, copies in document_table("Gem Forge action card")] \
        == [(name, copies) for name, copies, _ in CARDS]
    assert list(tiles()) == [f"T{n:02}" for n in range(1, 37)]  # "T01, T02, … T36"
    lines = DOCUMENT.read_text().splitlines()  # | players | 2 | … / | cards in each deck | 24 | …
    players = next(line for line in lines if line.startswith("| players |"))
    sizes = lines[lines.index(players) + 2]
    assert sizes.startswith("| cards in each deck |")
    cells = [[c.strip() for c in line.strip("|").split("|")][1:] for line in (players, sizes)]
    assert dict(zip(map(int, cells[0]), map(int, cells[1]))) == CARDS_EACH


def test_the_scripts_tables_are_the_documents():
    program = (f"console.log(JSON.stringify(require("
               f"{json.dumps(str(ROOT / 'templates/web/deal_check.js'))}).tables))")
    done = subprocess.run([node(), "-e", program], capture_output=True, text=True, timeout=60)
    script = json.loads(done.stdout)
    assert [(c, n) for c, n in script["onix"]] == [
        (card, int(copies)) for card, copies, _ in document_table("Onix card")]
    assert [(c, n) for c, n in script["gemforgeCards"]] == [
        (name, int(copies)) for name, copies in document_table("Gem Forge action card")]
    assert script["gemforgeTiles"] == list(tiles())
    assert {int(k): v for k, v in script["baronoxxDeck"].items()} == CARDS_EACH
    assert "".join(script["gemforgeMine"]) == "RGYL" * 10


def test_the_script_deals_the_cards_left_in_decks_at_a_variant_2_end(tmp_path):
    """`left` ends a game whose decks still hide cards (N22), which random play seldom
    reaches: after the opening of the document's vectors and six plies of play, each
    deck's 20 hidden cards, drawn from the 97 unseen (p = 9, then p = 10)."""
    opening = [f"Dealer: {m};" for m in DOCUMENTED["6 nimmt! Baron Oxx"]]
    play = ["p1: play 19;", "p2: play 10;", "p1: play 42;", "p2: play 24;", "p1: play 45;",
            "p2: play 39;"]
    left = ["Dealer: left #1 1 6 9 20 25 27 38 49 54 57 62 67 68 83 84 92 96 98 107 110;",
            "Dealer: left #2 5 17 22 23 32 35 36 52 53 56 65 69 71 75 77 79 80 88 100 103;"]
    report = check_text(setup_record("6 nimmt! Baron Oxx", 2, opening + play + left), tmp_path)
    assert report["ok"], report["problems"]
    assert [(d["ply"], d["status"]) for d in report["deals"]][-2:] == [(10, "ok"), (11, "ok")]
    wrong = left[1].replace(" 103;", " 104;")  # 104 is unseen too, but not the seed's
    report = check_text(setup_record("6 nimmt! Baron Oxx", 2, opening + play + [left[0], wrong]),
                        tmp_path)
    assert report["firstWrong"] == 11


def test_a_reshuffle_with_a_card_the_table_has_not_is_refused(tmp_path):
    setup = [f"Dealer: {m};" for m in DOCUMENTED["Gem Forge"]]
    forged = "Dealer: cards cancel cancel cancel cancel cancel;"  # the table has 4
    report = check_text(setup_record("Gem Forge", 2, setup + ["p1: draw;", forged]), tmp_path)
    assert report["firstWrong"] == 6
    assert report["problems"] == ["ply 6 (cards cancel cancel cancel cancel cancel): a "
                                  "reshuffle holds cards of the table, none more often than "
                                  "the table has it"]
