"""Bots cannot take a core by mail (#29 item 7): one player may have
PBEM_BOT_GAMES_PER_PLAYER games with a bot running (or starting) at once, the server
PBEM_BOT_GAMES_TOTAL; beyond either, `new … with bot` is refused with a reply naming the
limit, and the mail's later lines are not run. Real SMTP on loopback, a real store."""

from mailtest import body

from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.store import Game


def text(message) -> str:
    return " ".join(body(message).split())


def test_one_player_may_have_only_so_many_bot_games_at_once(server_with):
    config, person = server_with(bot_games_per_player=2)
    carol = person("carol")
    carol.write("new onyx with bot:hard board=12\n" * 3
                + "new gemforge with bot:hard bot:hard bot:hard")
    carol.reply("yes, that was me")
    answer = text(carol.last)
    assert Game.select().where(Game.status == "running").count() == 2
    assert ("you have 2 games with a bot running or starting, and a player may have at "
            "most 2 at once (the server's limit on bot games per player); finish or "
            "`resign` one first.") in answer
    assert Game.select().count() == 2  # neither the third nor the Gem Forge game
    first = [m for m in carol.inbox if "Onyx #1" in m["Subject"]][-1]
    carol.reply("resign", to=first)
    carol.write("new onyx with bot:easy board=12")
    assert "Game #3 (Onyx" in text(carol.last) and "has started" in text(carol.last)


def test_the_server_runs_only_so_many_bot_games_in_all(server_with):
    config, person = server_with(bot_games_total=3)
    for _ in range(3):  # the operator's `pbem new` is not refused, but it counts
        start_game(config, ENGINES["onyx"], {"board": "12"}, ["bot:easy", "bot:hard"])
    dave = person("dave")
    dave.write("new onyx with bot:normal")
    dave.reply("yes, that was me")
    assert ("the server runs its limit of 3 games with a bot (all players together) "
            "already; try again when one has ended.") in text(dave.last)
    assert Game.select().count() == 3
    dave.write("new onyx with erin@example.org")  # a game between people is not limited
    assert "Game #4 (Onyx" in text(dave.last)
