"""The daily digest: one mail a day listing every game waiting on a player, for players who
chose it (`digest on`) instead of a mail after each move.

What a digest player still gets at once (decided by the conversation policy,
`pbem.policy.conversation`, the one place that decides who is mailed): the answer to their own mail (their move's
confirmation, an error), a game's start and end, invitations and confirmations, comments
(`say`) and undo requests, mail they ask for (`board`, `remind`), the game clock's
reminders and timeouts, and a turn with less than a day to its deadline (a reaction
window, a short time control), which a digest would bring too late. Only the news of
others' moves, and of a turn that is now theirs, waits for the digest.

Once a day, from `PBEM_DIGEST_HOUR` (UTC) on, `send_digests` claims each digest player
for that day with one conditional UPDATE and queues their digest in the same
transaction. So a digest goes out at most once a day per player, even with two
schedulers running or a restart in between, and a day missed while the server was down
is sent at the next run. A player no game waits on gets no mail that day.
"""

from __future__ import annotations

import datetime as dt
import logging
from urllib.parse import quote

from pbem import clock
from pbem.config import Config
from pbem.mail import compose, letters
from pbem.vocabulary import words
from pbem.mail.outbox import queue
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.play import Table
from pbem.policy import conversation
from pbem.policy.letters import reachable
from pbem.policy.remind import WaitingGame, waiting_games
from pbem.store import Player, transaction
from pbem.timekeeping import display
from pbem.bookkeeping import controls

log = logging.getLogger(__name__)


def choose(config: Config, player: Player, on: bool) -> list[str]:
    """`digest on` / `digest off`: what the player is told."""
    Player.update(digest=on).where(Player.id == player.id).execute()
    player.digest = on
    if on:
        return [f"Daily digest on: once a day, at {config.digest_hour:02d}:00 UTC, one mail "
                f"lists every game waiting for you, instead of a mail after each move. "
                f"Starts, ends, comments, the answers to your own mails and turns due "
                f"within a day still come at once; `remind` mails the waiting games any "
                f"time; `digest off` ends it."]
    return ["Daily digest off: you get a mail after each move again."]


def digest_day(now: dt.datetime, hour: int) -> dt.date:
    """The day of the latest digest time at or before `now`: before the hour, yesterday."""
    return now.date() if now.hour >= hour else now.date() - dt.timedelta(days=1)


def send_digests(config: Config, now: dt.datetime | None = None) -> int:
    """Queue the digests that are due; returns how many were queued."""
    now = now or clock.now()
    day = digest_day(now, config.digest_hour)
    due = Player.select(Player.id).where(Player.digest & (Player.digest_sent.is_null()
                                                         | (Player.digest_sent < day)))
    queued = 0
    for row in list(due):
        try:
            with transaction():
                if _claim(row.id, day):
                    queued += _queue_digest(config, Player.get_by_id(row.id), day, now)
        except Exception:  # the claim is rolled back with it: the next run tries again
            log.exception("the digest for player %s failed", row.id)
    return queued


def _claim(player_id: int, day: dt.date) -> bool:
    """Mark the player's digest for `day` as ours; False if another run has it already.
    A second scheduler's UPDATE waits for this transaction, then matches no row."""
    claimed = (Player.update(digest_sent=day)
               .where((Player.id == player_id) & Player.digest
                      & (Player.digest_sent.is_null() | (Player.digest_sent < day)))
               .execute())
    return claimed == 1


def _queue_digest(config: Config, player: Player, day: dt.date, now: dt.datetime) -> int:
    if not reachable(player.email):  # a bouncing address: the news waits at the cursors
        return 0
    games = [game_entry(config, wait, now) for wait in waiting_games(player)]
    if not games:
        return 0
    images = {}
    for game in games:  # each game's position as a picture, drawn from the seat's view
        engine, view = game.pop("engine"), game.pop("view")
        if player.pictures:  # unless the player wrote `pictures off`
            game["picture"], image = letters.position_picture(
                config, engine, view, f"position.{game['id']}", game["identity"] or None)
            images.update(image)
    count = f"{len(games)} game{'s' if len(games) > 1 else ''}"
    subject = f"[pbem] daily digest: {count} waiting for you"
    message = compose.build(config, (player.name, player.email), subject, "digest",
                            {"games": games, "count": count, "day": day.isoformat()},
                            reply_to=letters.account_reply(config, player), images=images)
    queue(message, player.email)
    return 1


def game_entry(config: Config, wait: WaitingGame, now: dt.datetime) -> dict:
    """One game of the digest, drawn from the seat's own view, with its reply address and
    the news since the seat's last mail (which moves its cursor: the game is locked)."""
    table, seat = Table.load(wait.table.game.id), wait.seat
    engine, game = table.engine, table.game
    address = reply_address(seat_token(config.secret_key, game.id, seat), config.domain)
    subject = "Re: " + words.subject(table)
    view = words.named_view(table, seat)
    return {
        "id": game.id, "title": engine.title, "subject": words.subject(table),
        "news": conversation.news(table, seat),
        "players": words.players_line(table, seat),
        "diagram": engine.text_diagram(view).rstrip("\n"),
        "engine": engine, "view": view, "picture": None,  # the picture: _queue_digest
        "identity": engine.identity(table.state, seat),
        "status": words.status(table, seat),
        "prompt": engine.prompt(table.state, seat, names=table.names),
        "since": controls.when(wait.since) if wait.since else "",
        "clock": display.clock_line(table, seat, now),  # their own time, and what is public
        "move_number": table.next_number, "address": address,
        "mailto": f"mailto:{address}?subject={quote(subject)}",
        "url": f"{config.web_url}/games/{game.id}",
    }
