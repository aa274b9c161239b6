"""Open challenges, as players write them: a game anyone may join.

    seek onyx board=16 time=3d [rating=20-30] [days=7]   post one (mail to pbem@)
    seeks                                                 the open ones, with ratings
    join seek 7                                           take it: the game starts now
    withdraw seek 7                                       take one's own back

The seeker takes the first seat (Black in Onyx), the joiner the second. A seek limited to
a rating range (openskill's scale, pbem.competition.ratings: a newcomer is 25) takes
joiners whose rating in that game lies within it, a newcomer counting as 25. A seek
lasts `days` days (7 unless asked; 1 to 30), then expires and its writer is told.
"""

from __future__ import annotations

import datetime as dt
import re

from pbem import clock
from pbem.commands.speaker import OPTION, Refused, Speaker
from pbem.competition.games import start_now
from pbem.bookkeeping.rated import split_rated
from pbem.competition.seeks import bound, describe, open_seeks, rating_of
from pbem.engines import get_engine
from pbem.play import display_name
from pbem.policy import invitations
from pbem.store.competition_models import Seek
from pbem.bookkeeping import controls

OWN = ("rating", "days")  # the seek's options, not the game's
DAYS, MAX_DAYS, MAX_OPEN = 7, 30, 5
RANGE = re.compile(r"^(\d+(?:\.\d+)?)?-(\d+(?:\.\d+)?)?$")


def seek(speaker: Speaker, rest: str) -> list[str]:
    """`seek GAME [option=value …]`: post an open challenge."""
    words = rest.split()
    if not words:
        raise Refused("say which game, e.g. `seek onyx board=16 time=3d`.")
    engine = get_engine(words[0])
    if engine.min_players > 2:
        raise Refused(f"{engine.title} needs more than two; a seek finds one opponent.")
    given = dict(OPTION.findall(rest))
    own = {k.lower(): given.pop(k) for k in list(given) if k.lower() in OWN}
    options, _ = split_rated(dict(given))
    options, time_options = controls.split_options(options)
    controls.resolve(engine.id, time_options)
    engine.resolve_options(options)  # OptionError names a wrong one
    low, high = _range(own.get("rating"))
    days = own.get("days", str(DAYS))
    if not days.isdigit() or not 1 <= int(days) <= MAX_DAYS:
        raise Refused(f"days={days}: a seek lasts 1 to {MAX_DAYS} days.")
    mine = Seek.select().where((Seek.player == speaker.player) & (Seek.status == "open"))
    if mine.count() >= MAX_OPEN:
        raise Refused(f"you have {MAX_OPEN} open seeks already; `withdraw seek N` one first.")
    now = clock.now()
    row = Seek.create(engine=engine.id, options=given, player=speaker.player, low=low,
                      high=high, created=now, expires=now + dt.timedelta(days=int(days)))
    return [f"Seek #{row.id} is posted: {describe(row)}. Anyone may write `join seek "
            f"{row.id}` to play it, until {row.expires:%Y-%m-%d %H:%M} UTC; `withdraw seek "
            f"{row.id}` takes it back."]


def _range(text: str | None) -> tuple[float | None, float | None]:
    if text is None:
        return None, None
    found = RANGE.match(text.strip())
    if not found or not any(found.groups()):
        raise Refused(f"rating={text}: write a range on the rating scale (a newcomer is "
                      f"25), e.g. rating=20-30, rating=22- or rating=-28.")
    low, high = (float(v) if v else None for v in found.groups())
    if low is not None and high is not None and low > high:
        raise Refused(f"rating={text}: the lower bound comes first.")
    return low, high


def seeks(speaker: Speaker, rest: str) -> list[str]:
    """`seeks`: the open ones."""
    found = open_seeks()
    if not found:
        return ["No seek is open. Post one: `seek onyx board=16 time=3d`."]
    return ["Open seeks (write `join seek N` to play one):\n" + "\n".join(
        f"  #{row.id} {describe(row)} — {name} ({rating}), until {row.expires:%Y-%m-%d}"
        for row, name, rating in found)]


def join(speaker: Speaker, rest: str) -> list[str]:
    """`join seek 7`: the game starts now, the seeker first."""
    found = re.fullmatch(r"\s*seek\s+#?(\d+)\s*", rest, re.I)
    if not found:
        raise Refused("write `join seek 7` with the number `seeks` lists.")
    row = Seek.get_or_none(Seek.id == int(found.group(1)))
    if row is None or row.status != "open" or row.expires <= clock.now():
        raise Refused(f"seek #{found.group(1)} is not open (any more); `seeks` lists the "
                      f"open ones.")
    if row.player_id == speaker.player.id:
        raise Refused(f"seek #{row.id} is yours; `withdraw seek {row.id}` takes it back.")
    mine = rating_of(speaker.player.id, row.engine)
    if (row.low is not None and mine.mu < row.low) or (row.high is not None
                                                        and mine.mu > row.high):
        raise Refused(f"seek #{row.id} is for ratings {bound(row.low)}-{bound(row.high)}; "
                      f"yours in {get_engine(row.engine).title} is {mine}.")
    refusal = invitations.refusal(speaker.config, invitations.SEEK, speaker.player,
                                  [row.player.email])  # the same door as every invitation
    if refusal:
        raise Refused(refusal)
    claimed = (Seek.update(status="joined").where((Seek.id == row.id) & (Seek.status == "open"))
               .execute())
    if not claimed:
        raise Refused(f"seek #{row.id} was just taken by someone else.")
    game = start_now(speaker.config, row.engine, row.options, [row.player, speaker.player],
                     row.player, f"This game is seek #{row.id}, joined by "
                                 f"{display_name(speaker.player.name)}.")
    Seek.update(game=game).where(Seek.id == row.id).execute()
    invitations.to_seek(speaker.player, row.player, game.id)
    return [f"You joined seek #{row.id}: game #{game.id} ({describe(row)}) against "
            f"{display_name(row.player.name)} has started; its first mail is on its way."]


def withdraw(speaker: Speaker, number: int) -> list[str]:
    row = Seek.get_or_none((Seek.id == number) & (Seek.player == speaker.player))
    if row is None or row.status != "open":
        raise Refused(f"you have no open seek #{number}; `seeks` lists the open ones.")
    row.status = "withdrawn"
    row.save()
    return [f"Seek #{number} is withdrawn."]
