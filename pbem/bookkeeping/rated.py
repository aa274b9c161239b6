"""Ratings in the store: written in the transaction that ends a game, and rebuilt.

`game_ended(table)` runs inside `pbem.play`'s write whenever a game becomes finished (a
last move, a resignation, a timeout's forfeit, the administrator's adjudication), so a
rating never disagrees with the archive: both commit or neither does. Every finished game
counts unless it was created `rated=no`; a cancelled game never finishes, and an undo
cannot take back an end (it acts only while the game runs). Bots are players like any.

Results nobody played for do not count (as Lichess, against rating farms: two addresses
of one person, one seeking, the other joining and resigning at once). A game ends
unrated, and its players are told why in its last mail, when

    a player made fewer than MIN_OWN_MOVES moves of their own (the server's moves for
        a player out of time are not theirs), or
    two of its players have PAIR_GAMES_A_DAY rated games of that game together already,
        ended within the day before this one (a tournament's games are the organiser's
        schedule: they count towards it, but are rated whatever it says).

The administrator's adjudication is rated as given. A game that ends unrated is marked
so (`rated` false), so the archive says which games counted and `rebuild()` follows it.

`rebuild()` computes every rating again from the archive's finished games, in the order
they ended (`Game.updated`, then id), with the same pure function (`ratings.rate`), so it
gives the live numbers exactly.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from fractions import Fraction

from peewee import fn

from pbem.competition.ratings import Rating, by_player, rate
from pbem.engines.base import OptionError
from pbem.store import Game, Move, Player, Seat
from pbem.store.database import is_postgres
from pbem.store.competition_models import Pairing, RatingChange
from pbem.store.competition_models import Rating as RatingRow

YES, NO = ("yes", "on", "true", "1"), ("no", "off", "false", "0")
MIN_OWN_MOVES = 2  # each player's, for a game to be rated
PAIR_GAMES_A_DAY = 2  # rated games of one game between two players, a rolling day
DAY = dt.timedelta(days=1)
# Moves the server made for a player (pbem.bookkeeping.ledger.AUTOMATIC: time ran out);
# a sibling room, so named here, and a test checks they agree.
NOT_OWN_SOURCES = ("timeout",)


def split_rated(options: dict[str, str]) -> tuple[dict[str, str], bool]:
    """(the other options, whether the game is rated) from a game's options: `rated=no`
    makes a friendly game. The engine never sees the option."""
    rest = {k: v for k, v in options.items() if k.strip().lower() != "rated"}
    given = [v for k, v in options.items() if k.strip().lower() == "rated"]
    if not given:
        return rest, True
    value = given[-1].strip().lower()
    if value not in YES + NO:
        raise OptionError(f"rated={given[-1]} is not a choice: write rated=yes (the "
                          f"default: the result counts for the ratings) or rated=no (a "
                          f"friendly game).")
    return rest, value in YES


@dataclass
class Unrated:
    """Why a game ended unrated, told to every player in the mail of its end (read as
    pbem.policy.conversation reads a Notice)."""
    why: str
    urgent: bool = False

    def text_for(self, seat: int) -> str:
        return f"This game is not rated: {self.why}"


def game_ended(table, adjudicated: bool = False) -> None:
    """Rate the game `table` has just finished (once; nothing for a friendly game, nor
    for one nobody played for: `unrated_because`)."""
    game = table.game
    if not game.rated or game.status != "finished":
        return
    if RatingChange.select().where(RatingChange.game == game.id).exists():
        return
    shares = table.shares()
    if not shares:
        return
    players, shares = by_player([seat.player.id for seat in table.seats], shares)
    if len(players) < 2:
        return
    why = None if adjudicated else unrated_because(game, table.names, players,
                                                   [seat.player.id for seat in table.seats])
    if why is not None:
        game.rated = False
        Game.update(rated=False).where(Game.id == game.id).execute()
        table.notices.append(Unrated(why))
        return
    current = _current(game.engine, players)
    after = rate([current.get(p, Rating()) for p in players], shares)
    _write(game, players, after, current)


def unrated_because(game: Game, names: list[str], players: list[int],
                    by_seat: list[int]) -> str | None:
    """Why the finished `game` must not count for the ratings, in words for its players;
    None when it counts. `players` are its distinct players, `by_seat` each seat's."""
    own = dict(Move.select(Move.seat, fn.COUNT(Move.id))
               .where((Move.game == game.id) & (Move.seat >= 0)
                      & Move.source.not_in(NOT_OWN_SOURCES))
               .group_by(Move.seat).tuples())
    short = [names[seat] for seat in range(len(by_seat)) if own.get(seat, 0) < MIN_OWN_MOVES]
    if short:
        return (f"{' and '.join(short)} made fewer than {MIN_OWN_MOVES} moves of their own; "
                f"a game counts once every player has made {MIN_OWN_MOVES}.")
    if Pairing.select().where(Pairing.game == game.id).exists():
        return None  # a tournament's game: the pairings are not the players' choice
    for first, one in enumerate(players):
        for other in players[first + 1:]:
            if _rated_together(game, one, other) >= PAIR_GAMES_A_DAY:
                pair = [names[by_seat.index(p)] for p in (one, other)]
                return (f"{pair[0]} and {pair[1]} have played {PAIR_GAMES_A_DAY} rated games "
                        f"of this game together within a day already; at most "
                        f"{PAIR_GAMES_A_DAY} a day count.")
    return None


def _rated_together(game: Game, one: int, other: int) -> int:
    """Rated games of `game`'s engine with both players in, ended within the day before
    it (itself left out)."""
    mine, theirs = Seat.alias(), Seat.alias()
    return (Game.select(fn.COUNT(fn.DISTINCT(Game.id)))
            .join(mine, on=(mine.game == Game.id)).switch(Game)
            .join(theirs, on=(theirs.game == Game.id))
            .where((mine.player == one) & (theirs.player == other) & (Game.id != game.id)
                   & (Game.engine == game.engine) & (Game.status == "finished") & Game.rated
                   & (Game.updated >= game.updated - DAY) & (Game.updated <= game.updated))
            .scalar())


def _current(engine: str, players: list[int]) -> dict[int, Rating]:
    """The players' ratings in this game now, locked until the commit on PostgreSQL (two
    games of one player ending at once must not both start from the same rating)."""
    query = RatingRow.select().where((RatingRow.engine == engine)
                                     & RatingRow.player.in_(players))
    if is_postgres():
        query = query.for_update()
    return {row.player_id: Rating(row.mu, row.sigma, row.games) for row in query}


def _write(game: Game, players: list[int], after: list[Rating],
           current: dict[int, Rating]) -> None:
    for player, rating in zip(players, after):
        if player in current:
            RatingRow.update(mu=rating.mu, sigma=rating.sigma, games=rating.games,
                             updated=game.updated).where(
                (RatingRow.player == player) & (RatingRow.engine == game.engine)).execute()
        else:
            RatingRow.create(player=player, engine=game.engine, mu=rating.mu,
                             sigma=rating.sigma, games=rating.games, updated=game.updated)
        RatingChange.create(game=game.id, player=player, engine=game.engine, mu=rating.mu,
                            sigma=rating.sigma, at=game.updated)


def finished_games(engine: str | None = None):
    """The rated finished games in the order they ended, with each seat's player and
    share: ((game row, [player id by seat], [share by seat]), …). One query, read as it
    goes: the archive may hold any number of games."""
    query = (Seat.select(Seat.number, Seat.player, Seat.share, Game.id, Game.engine,
                         Game.updated)
             .join(Game).where((Game.status == "finished") & Game.rated)
             .order_by(Game.updated, Game.id, Seat.number))
    if engine is not None:
        query = query.where(Game.engine == engine)
    game, seats = None, []
    for seat in query.iterator():
        if game is not None and seat.game.id != game.id:
            yield from _complete(game, seats)
            seats = []
        game = seat.game
        seats.append(seat)
    if game is not None:
        yield from _complete(game, seats)


def _complete(game: Game, seats: list):
    """The game if every seat has its share (all finished games since shares were kept)."""
    if all(seat.share is not None for seat in seats):
        yield game, [s.player_id for s in seats], [Fraction(s.share) for s in seats]


def rebuild() -> int:
    """Every rating and its history again from the archive; returns the games rated. Run
    inside one transaction (`pbem ratings rebuild`)."""
    RatingChange.delete().execute()
    RatingRow.delete().execute()
    table: dict[tuple[str, int], Rating] = {}
    counted = 0
    for game, players, shares in finished_games():
        players, shares = by_player(players, shares)
        if len(players) < 2:
            continue
        before = {p: table[(game.engine, p)] for p in players if (game.engine, p) in table}
        after = rate([before.get(p, Rating()) for p in players], shares)
        _write(game, players, after, before)
        table.update({(game.engine, p): r for p, r in zip(players, after)})
        counted += 1
    return counted


def ratings_of(player: Player) -> list[tuple[str, Rating]]:
    """A player's rating in each game they have a rated result in, by game id."""
    rows = RatingRow.select().where(RatingRow.player == player).order_by(RatingRow.engine)
    return [(row.engine, Rating(row.mu, row.sigma, row.games)) for row in rows]


def history(player_id: int, engine: str) -> list[tuple[object, float, float]]:
    """(when, mu, sigma) after each of the player's rated games of `engine`, oldest first."""
    rows = (RatingChange.select(RatingChange.at, RatingChange.mu, RatingChange.sigma)
            .where((RatingChange.player == player_id) & (RatingChange.engine == engine))
            .order_by(RatingChange.at, RatingChange.id))
    return [(row.at, row.mu, row.sigma) for row in rows]


def leaders(engine: str, minimum_games: int, limit: int = 100) -> list[tuple[Player, Rating]]:
    """The best rated players of `engine` with at least `minimum_games` rated games, by
    the cautious estimate (mu − 3 sigma), then by more games."""
    rows = (RatingRow.select(RatingRow, Player).join(Player)
            .where((RatingRow.engine == engine) & (RatingRow.games >= minimum_games)))
    ranked = sorted(((row.player, Rating(row.mu, row.sigma, row.games)) for row in rows),
                    key=lambda pr: (-pr[1].cautious, -pr[1].games, pr[0].id))
    return ranked[:limit]
