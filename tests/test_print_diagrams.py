"""Diagrams for print: Onyx stones numbered over a range of plies (`numbers=11-40`),
captured stones crossed out, points an annotator marks (`[%mark E5]`), and captions that
fit inside every diagram at every size, whatever the number of players.
"""

import html
import re

import pytest

from notation.marks import marks_in, without_marks
from pbem.engines import get_engine
from pbem.engines.game import selfplay
from pbem.web import create_app

from export_games import ONYX_6, onyx_game, say

TEXT = re.compile(r'<text x="([\d.]+)" y="([\d.]+)"([^>]*)>([^<]*)</text>')
LONG_CAPTION = ("6 nimmt! Baron Oxx #1234, alexandra v bartholomew v christina v dominique: "
                "after ply 150 of 300 (play 35 row 4 take 2)")


@pytest.fixture
def client(config):
    return create_app(config).test_client()


def texts(svg: str, fill: str | None = None) -> list[str]:
    return [html.unescape(text) for _, _, attrs, text in TEXT.findall(svg)
            if fill is None or f'fill="{fill}"' in attrs]


def numbered(svg: str) -> set[int]:
    """The move numbers written on stones (white on black, black on white)."""
    return {int(t) for t in texts(svg, "#fafafa") + texts(svg, "#111") if t.isdigit()}


def test_stones_of_a_range_of_plies_are_numbered_and_captures_crossed(client):
    game_id = onyx_game(plies=40)
    svg = client.get(f"/games/{game_id}/ply/40.svg?numbers=11-40&caption=1").get_data(
        as_text=True)
    # Ply 18's C4 was captured by ply 31's C5* and C4 played again at ply 33.
    assert numbered(svg) == set(range(11, 41)) - {18}
    caption = " ".join(texts(svg)[-3:])
    assert caption.endswith("plies 11-40 numbered; 18 at C4, captured")
    assert svg.count('stroke="#d22" stroke-width="2"/>') == 1  # D5: taken by C5*, empty
    assert 'stroke="#d22" stroke-width="' not in svg.replace(
        'stroke="#d22" stroke-width="2"/>', "")  # no last-move ring when numbered
    plain = client.get(f"/games/{game_id}/ply/40.svg").get_data(as_text=True)
    assert numbered(plain) == set()


@pytest.mark.parametrize("query, words", [
    ("numbers=41-60", "from 1 up to this diagram's ply 40"),
    ("numbers=30-20", "FIRST-LAST"),
    ("numbers=all", "FIRST-LAST"),
])
def test_a_range_that_does_not_end_in_the_diagram_is_refused(client, query, words):
    game_id = onyx_game(plies=40)
    answer = client.get(f"/games/{game_id}/ply/40.svg?{query}")
    assert answer.status_code == 400 and words in answer.get_data(as_text=True)


def test_a_comment_marks_points_on_the_diagram_after_its_ply(client):
    game_id = onyx_game(plies=40)
    say(game_id, 0, "the threat [%mark E5 F6=x A1]")
    svg = client.get(f"/games/{game_id}/ply/40.svg").get_data(as_text=True)
    assert texts(svg, "#1560bd") == ["A", "x", "C"]
    assert texts(client.get(f"/games/{game_id}/ply/39.svg").get_data(as_text=True),
                 "#1560bd") == []


def test_mark_commands_are_read_from_comments():
    assert marks_in(["look [%mark e5 F6=x] and [%mark DE34]", "no command"]) == {
        "E5": "A", "F6": "x", "DE34": "C"}
    assert without_marks("the threat [%mark E5]  here") == "the threat here"


def test_the_print_page_numbers_each_diagrams_plies(client):
    game_id = onyx_game()
    page = client.get(f"/games/{game_id}/print?every=20&numbers=1").get_data(as_text=True)
    figures = re.findall(r"<svg.*?</svg>", page, re.S)
    assert [min(numbered(svg)) for svg in figures] == [1, 21, 41]
    assert max(numbered(figures[-1])) == len(ONYX_6)
    assert client.get(f"/games/{game_id}/print?numbers=2").status_code == 400


@pytest.mark.parametrize("name, players", [
    ("onyx", 2), ("onix", 2), ("onix", 3), ("onix", 4), ("baronoxx", 2), ("baronoxx", 3),
    ("baronoxx", 4), ("gemforge", 2), ("gemforge", 4)])
@pytest.mark.parametrize("size", [100, 240, 360, 480, 960, 4000])
def test_captions_fit_inside_the_diagram_at_every_size(name, players, size):
    """Every text stays inside the drawing, measured at 0.55 em a character."""
    engine = get_engine(name)
    game = selfplay(engine, {}, players, "captions")
    svg = engine.svg_diagram(engine.view(game.state, None), size=size, caption=LONG_CAPTION)
    width, height = map(float, re.search(r'viewBox="0 0 ([\d.]+) ([\d.]+)"', svg).groups())
    shown = []
    for x, y, attrs, text in TEXT.findall(svg):
        font = float(re.search(r'font-size="([\d.]+)"', attrs).group(1)) if (
            "font-size" in attrs) else 12
        anchor = re.search(r'text-anchor="(\w+)"', attrs)
        wide = len(html.unescape(text)) * font * 0.55
        left = float(x) - {"middle": wide / 2, "end": wide}.get(
            anchor.group(1) if anchor else "start", 0)
        assert 0 <= left and left + wide <= width, f"{text!r} runs off the {width} wide diagram"
        assert float(y) <= height, f"{text!r} is below the diagram"
        shown.append(html.unescape(text))
    assert " ".join(LONG_CAPTION.split()) in " ".join(" ".join(shown).split())


def test_a_card_games_compact_form_shows_the_hands_only_after_the_end(client):
    from export_games import new_game, play_as, play_randomly
    from pbem.engines.baronoxx.render import card_text
    game_id = new_game("baronoxx")  # alice holds 25 32 49 75, bob 6 41 50 81
    play_as(game_id, 0, "play 25")
    running = client.get(f"/games/{game_id}/ply/3.svg?form=compact&caption=1")
    assert running.status_code == 200
    svg = running.get_data(as_text=True)
    assert "Row 1  68 " in " ".join(texts(svg)) and "hand:" not in svg
    assert card_text(32) not in svg and card_text(41) not in svg
    play_randomly(game_id)
    svg = client.get(f"/games/{game_id}/ply/3.svg?form=compact").get_data(as_text=True)
    shown = [line.rstrip() for line in texts(svg)]
    assert f"#1 alice, hand: {'   '.join(card_text(c) for c in (25, 32, 49, 75))}" in shown
    assert any(line.startswith("#2 bob, hand: ") for line in shown)
    page = client.get(f"/games/{game_id}/print?every=5&form=compact").get_data(as_text=True)
    assert "#1 alice, hand: " in page
    assert client.get(f"/games/{onyx_game(plies=2)}/ply/2.svg?form=compact").status_code == 400
