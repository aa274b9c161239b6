"""A tournament's rounds: paired (pbem.competition.pairing), played as ordinary games,
scored (pbem.competition.standings), and announced.

A round starts when the tournament starts (everyone answered, and the organiser's
`start=` day has come) and when every game of the round before has ended; the scheduler
looks every minute (`advance`), claiming the round by moving the tournament's round
number on in one UPDATE, so two schedulers never start it twice. After each round every
player gets the standings and the next round's pairings; after the last, the final
standings.

As directors do: a bye in a Swiss scores 1 point (a round-robin's rest scores none: all
rest alike); a player who withdraws loses their running games, is paired no more, and in
a round-robin their later games are forfeits won by the opponent (not rated: no game is
played). A player who lost a game without making a single move (let the clock run out)
is withdrawn after that round, so the others are not paired with a player who is gone.
"""

from __future__ import annotations

from fractions import Fraction

from pbem import clock
from pbem.competition import pairing, ratings, standings
from pbem.competition.games import start_now
from pbem.competition.tournaments import describe, subject
from pbem.engines import get_engine
from pbem.play import Table, display_name
from pbem.policy import conversation, letters
from pbem.store import Game, Move, Player, Seat, transaction
from pbem.store.competition_models import Entrant, Pairing, Rating, Tournament
from pbem.bookkeeping import ledger

TIMED_OUT = "ran out of time"  # the end a timeout's forfeit writes (timekeeping.deadlines)


# -- the start ---------------------------------------------------------------------------

def start_when_answered(config, tournament: Tournament) -> None:
    """Once nobody's answer is missing: start (or wait for the start day), or cancel when
    too few accepted."""
    entrants = list(tournament.entrants)
    if any(e.answer is None for e in entrants):
        return
    accepted = [e for e in entrants if e.answer == "accepted"]
    if len(accepted) < max(2, tournament.table):
        tournament.status = "cancelled"
        tournament.save()
        _mail_all(config, tournament, [f"Tournament #{tournament.id} ({describe(tournament)}) "
                                       f"is cancelled: only {len(accepted)} accepted."])
        return
    tournament.status = "running"
    if tournament.kind == "round-robin":
        tournament.rounds = len(pairing.round_robin(range(len(accepted)), tournament.double))
    tournament.save()
    if tournament.starts is None or tournament.starts <= clock.now():
        begin_round(config, tournament)


# -- each round ----------------------------------------------------------------------------

def advance(config) -> int:
    """The scheduler's job: start every round that is due, finish tournaments whose last
    round ended; returns how many rounds began or tournaments ended."""
    done = 0
    for row in Tournament.select(Tournament.id).where(Tournament.status == "running"):
        with transaction():
            tournament = Tournament.get_by_id(row.id)
            if tournament.status == "running" and _round_over(tournament):
                done += _next(config, tournament)
    return done


def _round_over(tournament: Tournament) -> bool:
    if tournament.round == 0:
        return tournament.starts is None or tournament.starts <= clock.now()
    games = (Pairing.select(Game.status).join(Game)
             .where((Pairing.tournament == tournament) & (Pairing.round == tournament.round)))
    return all(game.status in ("finished", "cancelled") for game in games.objects())


def _next(config, tournament: Tournament) -> int:
    if tournament.round:
        _withdraw_no_shows(config, tournament)
    if tournament.round >= tournament.rounds:
        return _finish(config, tournament)
    return begin_round(config, tournament)


def begin_round(config, tournament: Tournament) -> int:
    """Pair and start the next round; 1 if it began (another scheduler may have)."""
    number = tournament.round + 1
    claimed = (Tournament.update(round=number)
               .where((Tournament.id == tournament.id) & (Tournament.round == number - 1))
               .execute())
    if not claimed:
        return 0
    tournament.round = number
    try:
        planned = _pairings(tournament, number)
    except (pairing.NoPairing, ValueError) as why:  # nobody left to meet: it ends here
        Tournament.update(round=number - 1).where(Tournament.id == tournament.id).execute()
        tournament.round = number - 1
        return _finish(config, tournament, f"No round {number} could be paired ({why}).")
    lines = []
    for players, shares in planned:
        lines.append(_play(config, tournament, number, players, shares))
    if number > 1 or lines:
        _mail_standings(config, tournament, f"Round {number} has begun.", lines)
    return 1


def _active(tournament: Tournament, number: int) -> list[Entrant]:
    """The entrants who play in round `number`, in seeding order."""
    return [e for e in tournament.entrants.order_by(Entrant.number)
            if e.answer == "accepted" and (e.withdrawn is None or e.withdrawn >= number)]


def _pairings(tournament: Tournament, number: int) -> list[tuple[list[int], list | None]]:
    """Round `number` as (player ids in seat order, shares or None for a game to play)."""
    if tournament.kind == "round-robin":
        seeded = [e for e in tournament.entrants.order_by(Entrant.number)
                  if e.answer == "accepted"]
        active = {e.player_id for e in _active(tournament, number)}
        schedule = pairing.round_robin([e.player_id for e in seeded], tournament.double)
        planned = []
        this = schedule[number - 1]
        for a, b in this.games:
            if a in active and b in active:
                planned.append(([a, b], None))
            elif a in active or b in active:  # a forfeit: the one still here wins
                planned.append(([a, b], ["1" if a in active else "0",
                                         "1" if b in active else "0"]))
        planned += [([p], ["0"]) for p in this.byes if p in active]
        return planned
    entrants = _swiss_entrants(tournament, number)
    if tournament.table > 2:
        engine = get_engine(tournament.engine)
        drawn = pairing.tables(entrants, tournament.table, engine.min_players)
    else:
        drawn = pairing.swiss(entrants)
    return ([(list(game), None) for game in drawn.games]
            + [([p], ["1"]) for p in drawn.byes])


def _swiss_entrants(tournament: Tournament, number: int) -> list[pairing.Entrant]:
    results = results_of(tournament)
    score = standings.points([], results)
    by_player = {}
    for entrant in _active(tournament, number):
        pid = entrant.player_id
        met = {q for r in results if pid in r.players and r.played
               for q in r.players if q != pid}
        seats = [1 if r.players[0] == pid else -1 for r in results
                 if pid in r.players and r.played and len(r.players) > 1]
        byes = sum(1 for r in results if r.players == (pid,))
        rating = Rating.get_or_none((Rating.player == pid) & (Rating.engine == tournament.engine))
        by_player[pid] = pairing.Entrant(pid, float(score.get(pid, 0)),
                                         rating.mu if rating else ratings.START_MU, met, seats,
                                         byes)
    return list(by_player.values())


def _play(config, tournament: Tournament, number: int, players: list[int],
          shares: list | None) -> str:
    """One pairing of the round: a game started now (its players get their first mail),
    or a bye or forfeit written down. Returns its line for the round's mail."""
    names = _names(players)
    if shares is not None:
        Pairing.create(tournament=tournament, round=number, players=players, shares=shares)
        if len(players) == 1:
            return f"{names[0]} rests" + (" (1 point)" if shares == ["1"] else "")
        winner = names[shares.index("1")] if "1" in shares else "nobody"
        return f"{' – '.join(names)}: not played, {winner} wins by forfeit"
    seated = [Player.get_by_id(p) for p in players]
    game = start_now(config, tournament.engine, tournament.options, seated, tournament.organiser,
                     f"This is your game of round {number} of tournament #{tournament.id}.")
    Pairing.create(tournament=tournament, round=number, game=game, players=players)
    return f"{' – '.join(names)}: game #{game.id}"


def _names(player_ids) -> list[str]:
    found = {p.id: display_name(p.name) for p in Player.select().where(Player.id.in_(player_ids))}
    return [found[p] for p in player_ids]


# -- results and standings ------------------------------------------------------------------

def results_of(tournament: Tournament, through: int | None = None) -> list[standings.Result]:
    """Every finished result of the tournament (through round `through`): games by the
    shares kept on their seats, byes and forfeits as written; a cancelled game counts
    for nobody."""
    rows = Pairing.select().where(Pairing.tournament == tournament).order_by(Pairing.id)
    if through is not None:
        rows = rows.where(Pairing.round <= through)
    results = []
    for row in rows:
        if row.game_id is None:
            results.append(standings.Result(tuple(row.players),
                                            tuple(Fraction(s) for s in row.shares), False))
            continue
        seats = list(Seat.select(Seat.player, Seat.share).join(Game)
                     .where((Seat.game == row.game_id) & (Game.status == "finished"))
                     .order_by(Seat.number))
        if seats and all(seat.share is not None for seat in seats):
            results.append(standings.Result(tuple(seat.player_id for seat in seats),
                                            tuple(Fraction(seat.share) for seat in seats)))
    return results


def table_of(tournament: Tournament) -> tuple[list[standings.Standing], dict[int, str]]:
    """The standings now, and the players' display names by id."""
    entrants = [e for e in tournament.entrants if e.answer == "accepted"]
    names = {e.player_id: display_name(e.player.name) for e in entrants}
    rows = standings.standings([e.player_id for e in entrants], results_of(tournament),
                               swiss=tournament.kind == "swiss",
                               withdrawn=[e.player_id for e in entrants
                                          if e.withdrawn is not None], names=names)
    return rows, names


def _mail_standings(config, tournament: Tournament, headline: str, lines: list[str],
                    final: bool = False) -> None:
    rows, names = table_of(tournament)
    done = tournament.round - (0 if final else 1)
    title = ("Final standings" if final else
             f"Standings after round {done}" if done else "The players")
    paragraphs = [f"Tournament #{tournament.id} ({describe(tournament)}): {headline}",
                  f"{title}:\n\n" + standings.table_text(rows, names,
                                                         tournament.kind == "swiss")]
    if lines:
        paragraphs.append(f"Round {tournament.round}:\n" + "\n".join(f"  {l}" for l in lines))
    paragraphs.append(f"{config.web_url}/tournaments/{tournament.id}")
    _mail_all(config, tournament, paragraphs, title)


def _mail_all(config, tournament: Tournament, paragraphs: list[str], title: str = "") -> None:
    """The tournament's news; who hears of it is the policy's (pbem.policy.letters)."""
    letters.tournament_news(config, tournament,
                            subject(tournament) + (f": {title.lower()}" if title else ""),
                            paragraphs)


def _finish(config, tournament: Tournament, why: str = "") -> int:
    """The end: claimed like a round (one UPDATE), so the final mail goes out once."""
    claimed = (Tournament.update(status="finished")
               .where((Tournament.id == tournament.id) & (Tournament.status == "running"))
               .execute())
    if not claimed:
        return 0
    tournament.status = "finished"
    rows, names = table_of(tournament)
    winners = [names[r.player] for r in rows if r.place == 1]
    headline = (f"{why} " if why else "") + (
        f"The tournament is over: {' and '.join(winners)} "
        f"{'wins' if len(winners) == 1 else 'share first place'}.")
    _mail_standings(config, tournament, headline, [], final=True)
    return 1


# -- withdrawals ----------------------------------------------------------------------------

def withdraw(config, tournament: Tournament, entrant: Entrant, why: str) -> list[int]:
    """`entrant` plays no more: their running games of the tournament are lost (the
    others share the win); returns those games' ids."""
    entrant.withdrawn, entrant.why = tournament.round, why
    entrant.save()
    lost = []
    running = (Pairing.select(Pairing.game).join(Game)
               .where((Pairing.tournament == tournament) & (Game.status == "running")))
    for row in running:
        table = Table.load(row.game_id)
        seat = next((s.number for s in table.seats if s.player.id == entrant.player_id), None)
        if seat is None:
            continue
        table.resign(seat, why=f"{table.names[seat]} withdrew from tournament #{tournament.id}")
        conversation.after_write(config, table)
        lost.append(row.game_id)
    return lost


def _withdraw_no_shows(config, tournament: Tournament) -> None:
    """Whoever lost a game of this round on time without a single move of their own (the
    clock's moves made for them do not count) is withdrawn."""
    rows = (Pairing.select(Pairing, Game).join(Game)
            .where((Pairing.tournament == tournament) & (Pairing.round == tournament.round)))
    for row in rows:
        if not row.game.termination.endswith(TIMED_OUT):
            continue
        for seat in Seat.select().where((Seat.game == row.game_id) & (Seat.share == "0")):
            moved = Move.select().where((Move.game == row.game_id) & (Move.seat == seat.number)
                                        & (Move.source != ledger.AUTOMATIC)).exists()
            entrant = Entrant.get_or_none((Entrant.tournament == tournament)
                                          & (Entrant.player == seat.player_id))
            if not moved and entrant is not None and entrant.withdrawn is None:
                entrant.withdrawn = tournament.round
                entrant.why = "lost a game on time without a move"
                entrant.save()
