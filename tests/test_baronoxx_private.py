"""6 nimmt!'s preferences are private (#35 item 3, N13, N14a): a standing preference, and
a secret choice replaced before the reveal, are counted by nobody and shown to nobody
while the game runs, as Gem Forge's standing answers are (G39). In twin worlds — the
same deal and the same public moves; in one, ben also sends a standing preference and a
choice he then replaces — every mail the others get is the same, number for number:
the news (`#N`), "move #N", the guard it offers, the ply its Message-ID carries; and
the guard the others were offered before ben's pref still works.

Real SMTP on loopback. Seed "private", 3 players; the deal: rows 23 43 6 36 48, ann
holds 26 82 91 101, ben 18 69 83 108, cat 31 32 89 106. Every card is played with
`low`, so its own preference places it and ben's standing one is never used.
"""

import datetime as dt
import re

from conversation import news_lines
from databases import emptied
from mailtest import body
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.play import Table
from pbem.policy.delivery import deliver_due
from pbem.store import Move, Seat
from pbem.store.models import Follow, Player

OXX = ENGINES["baronoxx"]


def normalised(mails) -> list[str]:
    return [re.sub(r"\.[0-9a-f]{12}@", ".@", f"{m['Message-ID']}\n{m['Subject']}\n") + body(m)
            for m in mails]


def test_a_pref_and_a_replaced_choice_change_no_mail_of_the_others(
        mail_server, players, store, frozen_time):
    def world(private: bool) -> tuple[list[str], list[str], list[str]]:
        frozen_time.now = dt.datetime(2026, 11, 30, 10, 0)
        ann, ben, cat, eve = players("ann", "ben", "cat", "eve")
        seen = [len(p.inbox) for p in (ann, cat, eve)]
        game_id = start_game(mail_server, OXX, {}, [ann.address, ben.address, cat.address],
                             seed="private")
        deliver_due(mail_server)
        Seat.update(mail="loud").where(Seat.number == 2).execute()  # cat hears every move
        Follow.create(game=game_id, player=Player.create(email=eve.address, name="eve",
                                                         confirmed=True))
        assert OXX.view(Table.load(game_id).state, 1)["hand"] == [18, 69, 83, 108]
        ann.reply("play 26 low", quote=False)
        if private:
            ben.reply("pref row 5 4 3 2 1 take 1 low", quote=False)
            ben.reply("play 18 low", quote=False)
        ben.reply("play 69 low", quote=False)
        cat.reply("play 31", quote=False)  # the reveal; 31 fits rows 1 and 3: she is asked
        asked = Table.load(game_id)
        assert asked.to_act == {2}
        guard = re.search(r"`(#\d+) YOUR-MOVE`", " ".join(body(cat.last).split())).group(1)
        if private:  # while cat places: a pref that settles nothing moves no number
            ben.reply("pref row 1 2 take 5 high", quote=False)
        row = OXX.notation(asked.state, 2, OXX.legal(asked.state, 2)[0])
        cat.reply(f"{guard} {row}", quote=False)  # the guard of her question
        table = Table.load(game_id)
        assert table.state.round == 1 and table.to_act == {0, 1, 2}  # round 2 begins
        if private:
            # ben reads his own: the choice everyone counted, the rest as his secrets
            assert news_lines(ben.last) == [
                "#6 You: play 18 low", "You, in secret: play 69 low",
                "#7 cat chose in secret.", "Round 1 revealed: 26 (#1), 31 (#3), 69 (#2)",
                "You, in secret: pref row 1 2 take 5 high", "#8 cat: row 1"]
        return tuple(normalised(p.inbox[n:]) for p, n in zip((ann, cat, eve), seen))

    told_private = world(private=True)
    assert Move.select().where(Move.anonymous).count() == 3  # two prefs, the replacement
    emptied(store)
    told_plain = world(private=False)
    assert Move.select().where(Move.anonymous).count() == 0
    for name, private, plain in zip(("ann", "cat", "eve"), told_private, told_plain):
        assert private == plain, name
    assert any("Round 1 revealed: " in mail for mail in told_plain[2])  # eve saw the round


def test_0036_counts_the_prefs_of_games_already_played_by_nobody(store):
    """A game played before 0036 numbered ben's pref and replaced choice for everyone;
    after it they are anonymous and the public numbers are counted again."""
    from playhouse.migrations import Runner

    from pbem.play import create_game
    from pbem.store import Game
    from pbem.store.database import MIGRATIONS
    from pbem.store.models import database
    people = [Player.create(email=f"{n}@example.org", name=n, confirmed=True)
              for n in ("ann", "ben", "cat")]
    game = create_game(OXX, {}, people, people[0], accepted=True, seed="private")
    table = Table.load(game.id)
    table.start()
    for seat, text in ((0, "play 26 low"), (1, "pref row 5 4 3 2 1 take 1 low"),
                       (1, "play 18 low"), (1, "play 69 low")):
        table.play(seat, text)
    runner = Runner(database.obj, directory=str(MIGRATIONS), table_name="pbem_schema")
    names = [m.name for m in runner.migrations()]
    runner.down(names[names.index("0036_oxx_private_prefs") - 1])
    # the fields the schema of the moment has (a later migration's column is not there)
    ply_of = {m.text: m.ply for m in Move.select(Move.text, Move.ply).where(Move.game == game.id)}
    Move.update(anonymous=False, shown=Move.ply).where(Move.game == game.id).execute()
    Game.update(shown_plies=Game.plies).where(Game.id == game.id).execute()  # as before
    runner.up()
    rows = {m.text: (m.anonymous, m.shown) for m in Move.select().where(Move.game == game.id)}
    first = ply_of["play 26 low"]
    assert rows["play 26 low"] == (False, first)
    assert rows["pref row 5 4 3 2 1 take 1 low"] == (True, first)
    assert rows["play 18 low"] == (False, first + 1)
    assert rows["play 69 low"] == (True, first + 1)
    assert Game.get_by_id(game.id).shown_plies == first + 1
