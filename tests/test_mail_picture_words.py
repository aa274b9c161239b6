"""What a game mail's picture says in words (#42 item 3), in real mail: the server's SMTP
listener takes the players' mail, the sink on loopback keeps what it sends.

- 6 nimmt!'s alt text says whom the game waits for, not only "…, round 1";
- the HTML part explains the picture's marks beside it: Onix's gems and the letters a
  player types for them, Gem Forge's `2+1vp` and its brown and blue tiles (the text
  part too, where Gem Forge never said it);
- Gem Forge's keep-phase picture shows the five tiles the mail asks about, in the seat's
  own mail only.
"""

import re

from mailtest import body, html
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.policy.delivery import deliver_due
from test_mail_pictures import img_tags

ONIX_LEGEND = ("Gems: O circle (red): Draw, S square (green): Hoard, D diamond (blue): "
               "Steal, X cross (purple): Destroy.")
GEM_FORGE_LEGEND = "A tile's 2+1vp: 2 points, and 1 more (its set bonus) when cashed in a set."


def started(config, players, engine_id: str, names: list[str], seed: str):
    people = players(*names)
    game_id = start_game(config, ENGINES[engine_id], {}, [p.address for p in people],
                         seed=seed)
    deliver_due(config)
    return game_id, people


def test_6_nimmts_alt_text_says_whom_the_round_waits_for(mail_server, players):
    _, (ann, ben) = started(mail_server, players, "baronoxx", ["ann", "ben"], "alt/6")
    [tag] = img_tags(html(ann.last))
    assert tag["alt"] == ("6 nimmt! Baron Oxx, 2 players, base game, round 1. Round 1: "
                          "waiting for cards from #1 ann (you), #2 ben.")
    [tag] = img_tags(html(ben.last))
    assert tag["alt"].endswith("Round 1: waiting for cards from #1 ann, #2 ben (you).")


def test_onix_explains_its_gems_beside_the_picture(mail_server, players):
    _, (ann, ben, cat) = started(mail_server, players, "onix", ["ann", "ben", "cat"],
                                 "legend/onix")
    markup = html(ann.last)
    assert f'<p style="margin: 0 0 0.6em; font-size: 90%">{ONIX_LEGEND}</p>' in markup
    assert markup.index("<img") < markup.index(ONIX_LEGEND)
    ann.reply("pictures off")
    ann.reply("board")
    assert "<img" not in html(ann.last) and ONIX_LEGEND not in html(ann.last)
    assert "O circle=Draw  S square=Hoard  D diamond=Steal  X cross=Destroy" in html(ann.last)


def test_gem_forge_shows_the_dealt_tiles_it_asks_about_and_explains_them(mail_server,
                                                                        players):
    from pbem.mail import pictures
    from pbem.vocabulary.words import named_view
    from pbem.play import Table
    game_id, (ann, ben) = started(mail_server, players, "gemforge", ["ann", "ben"],
                                  "legend/gemforge")
    assert "Dealt to you (keep 3):" in body(ann.last)
    dealt = re.findall(r"^ {4}(T\d\d) ", body(ann.last).replace("\r\n", "\n"), re.M)
    assert len(dealt) == 5
    assert GEM_FORGE_LEGEND.replace("'", "&#39;") in html(ann.last)
    assert GEM_FORGE_LEGEND in " ".join(body(ann.last).split())  # the text part: wrapped
    # The picture of that mail, drawn from ann's view: her five tiles; ben's has his own.
    table = Table.load(game_id, lock=False)
    drawn = [pictures.mail_sheet(table.engine, named_view(table, seat)).svg()
             for seat in (0, 1, None)]
    assert all(f">{tile} " in drawn[0] for tile in dealt)
    assert not any(f">{tile} " in drawn[1] or f">{tile} " in drawn[2] for tile in dealt)
    assert ">Keep 3<" in drawn[0] and ">Market<" in drawn[2]


def test_twin_worlds_differing_in_a_dealt_tile_differ_only_in_its_seats_picture():
    """The keep phase's hidden tiles (tests/test_mail_pictures.py's twin worlds, for the
    tiles now drawn): seat 1's first dealt tile swapped with the tile deck's top changes
    seat 1's picture, and no other seat's nor the public's, byte for byte."""
    import dataclasses
    import random

    from pbem.engines.game import Game
    from pbem.mail import pictures
    engine = ENGINES["gemforge"]
    game = Game(engine, {}, ["p0", "p1", "p2"], seed="twins/keep")
    rng = random.Random(3)
    while not game.state.dealt:
        seat = min(game.to_act)
        game.play(seat, engine.notation(game.state, seat,
                                        engine.random_decision(game.state, seat, rng)))
    state = game.state
    dealt = list(state.dealt)
    dealt[1] = (state.tiles[0],) + dealt[1][1:]
    other = dataclasses.replace(state, dealt=tuple(dealt),
                                tiles=(state.dealt[1][0],) + state.tiles[1:])
    assert other.dealt[1] != state.dealt[1]

    def png(world, seat):
        return pictures.picture(engine, engine.view(world, seat)).png
    assert png(state, 1) != png(other, 1)
    for seat in (0, 2, None):
        assert png(state, seat) == png(other, seat)
