"""Mail that fits a phone (#42 item 2): every kind of mail's HTML part, read at 390 px in
headless Chromium, has no sideways scroll.

Each game is played from its start mail to its end mail by real mail over SMTP on
loopback (the `mail_server` fixture): random but honest players answer their latest game
mail; a spectator follows the game; the players get a daily digest once; a player asks for
`help` and `history` (answers). Every mail the sink received is then shown as a mail
client shows it, and the page may be no wider than the phone. The mail's pictures are
not loaded (their `<img>` has its own width and `max-width`, so the box is the same).
"""

import datetime as dt
import random

import pytest

from databases import only_on
from mailtest import body, html
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.engines.base import CHANCE
from pbem.play import Table
from pbem.policy.delivery import deliver_due
from pbem.policy.digest import send_digests
from pbem.store import Game, Player
from test_mail_engines import latest_game_mail
from test_web_browser import browser  # noqa: F401  (fixture)

pytestmark = only_on("sqlite")
PHONE = 390
#: How much wider than the viewport the page is, and the innermost elements that stick out.
OVERFLOW = """() => {
  const over = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  const out = [...document.body.querySelectorAll('*')]
    .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1);
  const inner = out.filter(e => !out.some(o => o !== e && e.contains(o)));
  return [over, inner.map(e => e.outerHTML.slice(0, 80)).join(' | ')];
}"""
PLAYERS = {"onyx": 2, "onix": 4, "baronoxx": 3, "gemforge": 2}


@pytest.fixture
def phone(browser):  # noqa: F811
    context = browser.new_context(viewport={"width": PHONE, "height": 844})
    yield context.new_page()
    context.close()


def played_by_mail(mail_server, players, engine_id: str) -> list:
    """A whole game by mail, with a spectator, a digest reader and answers; every mail."""
    engine = ENGINES[engine_id]
    people = players(*["ann", "ben", "cat", "dan"][:PLAYERS[engine_id]])
    watcher, = players("wes")
    game_id = start_game(mail_server, engine, {}, [p.address for p in people],
                         seed=f"width/{engine_id}")
    deliver_due(mail_server)
    watcher.write(f"follow {game_id}")
    people[0].write("help")
    rng = random.Random(f"width/{engine_id}")
    while Game.get_by_id(game_id).status == "running":
        table = Table.load(game_id)
        seat = rng.choice(sorted(table.to_act - {CHANCE}))
        text = engine.notation(table.state, seat, engine.random_decision(table.state, seat, rng))
        people[seat].reply(text, to=latest_game_mail(people[seat]), quote=False)
        assert Game.get_by_id(game_id).plies > table.game.plies, body(people[seat].last)
        if table.game.plies == 6:  # a daily digest for everyone, once
            Player.update(digest=True).execute()
            send_digests(mail_server, now=dt.datetime.now() + dt.timedelta(days=1))
            deliver_due(mail_server)
            Player.update(digest=False).execute()
            people[1].reply("history", to=latest_game_mail(people[1]), quote=False)
    return [message for _, message in people[0].sink.messages]


@pytest.mark.parametrize("engine_id", sorted(PLAYERS))
def test_every_mail_of_a_game_fits_a_phone(mail_server, players, phone, engine_id):
    mails = played_by_mail(mail_server, players, engine_id)
    subjects = {m["Subject"].split(":")[0] for m in mails}
    assert any("digest" in s for s in subjects) and len(mails) > 20, subjects
    too_wide = []
    for message in mails:
        phone.set_content(html(message))
        over, widest = phone.evaluate(OVERFLOW)
        if over > 0:
            too_wide.append(f"{message['Subject']} to {message['To']}: {over} px ({widest})")
    assert not too_wide, "\n".join(too_wide[:10])
