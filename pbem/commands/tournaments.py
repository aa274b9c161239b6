"""Tournaments by mail, as players write them (pbem.competition plays the rounds):

    new tournament onyx round-robin with a@x b@y c@z d@w [double=yes] [time=3d] [board=13]
    new tournament onyx swiss rounds=5 with a@x b@y … [start=2026-12-10]
    new tournament baronoxx swiss rounds=4 table=5 with …   (tables of five)
    tournament 3                                             its standings
    withdraw tournament 3

The organiser's mail names the players (the organiser plays if they name themselves);
each invited player gets an invitation and answers it as they answer a game's: `accept`
or `decline` (or plainly: "Sure, count me in"). The same limits as a game's invitations
hold for addresses that never wrote to pbem (pbem.policy.invitations). When nobody's
answer is missing, the tournament starts with those who accepted
(pbem.competition.rounds plays the rounds). Every other option is the games' own (the
engine's, `time=`, `timeout=`, `rated=`), checked now, so a round never fails to start
for a typing mistake.
"""

from __future__ import annotations

import datetime as dt
import re

from pbem import clock
from pbem.commands.game import invitation_answer
from pbem.commands.seeks import withdraw as withdraw_seek
from pbem.commands.speaker import OPTION, Refused, Speaker, named_players
from pbem.competition import rounds
from pbem.bookkeeping.rated import split_rated
from pbem.competition.standings import table_text
from pbem.competition.tournaments import describe, subject
from pbem.engines import get_engine
from pbem.players import player_for
from pbem.policy import invitations, letters
from pbem.policy.report import Report
from pbem.store import Request
from pbem.store.competition_models import Entrant, Tournament
from pbem.bookkeeping import controls

KINDS = ("round-robin", "swiss")
OWN = ("rounds", "double", "table", "start")  # the tournament's options, not the games'
MAX_PLAYERS = 64
MAX_ROUNDS = 30


def new_tournament(speaker: Speaker, rest: str) -> list[str]:
    """`new tournament GAME round-robin|swiss … with ADDRESS…`: invite the players."""
    words = [w for w in rest.split() if "=" not in w]
    if len(words) < 2 or words[1].lower() not in KINDS:
        raise Refused("write e.g. `new tournament onyx round-robin with a@example.org "
                      "b@example.org c@example.org` or `new tournament onyx swiss rounds=5 "
                      "with …`.")
    engine, kind = get_engine(words[0]), words[1].lower()
    given = dict(OPTION.findall(rest))
    own = {k.lower(): given.pop(k) for k in list(given) if k.lower() in OWN}
    options = _game_options(engine, given)
    table = _number(own, "table", 2, engine.min_players, engine.max_players)
    rounds = _number(own, "rounds", 0, 1, MAX_ROUNDS) if kind == "swiss" else 0
    if kind == "swiss" and not rounds:
        raise Refused("a Swiss tournament needs its number of rounds: `rounds=5`.")
    if kind == "round-robin" and table != 2:
        raise Refused(f"a round-robin seats two at each game; for tables of {table} write "
                      f"`swiss rounds=N table={table}`.")
    double = own.get("double", "no").lower() in ("yes", "on", "true", "1")
    invited, robots = named_players(_after_with(rest), "")
    if robots:
        raise Refused("bots do not play tournaments; name people's addresses.")
    mine = speaker.player.email
    plays = mine in invited
    others = [a for a in invited if a != mine]
    if not table <= len(invited) <= MAX_PLAYERS:
        raise Refused(f"a tournament of {engine.title} at tables of {table} needs {table} to "
                      f"{MAX_PLAYERS} players; you named {len(invited)} (name yourself too "
                      f"if you play).")
    refusal = invitations.refusal(speaker.config, invitations.TOURNAMENT, speaker.player,
                                  others)
    if refusal:
        raise Refused(refusal)
    tournament = Tournament.create(engine=engine.id, kind=kind, options=options,
                                   rounds=rounds, double=double, table=table,
                                   organiser=speaker.player, starts=_start(own))
    for number, address in enumerate(invited):
        player = player_for(address)
        entrant = Entrant.create(tournament=tournament, player=player, number=number,
                                 answer="accepted" if address == mine else None)
        if address != mine:
            request = Request.create(kind="tournament", player=player, lines=[tournament.id])
            invitations.to_tournament(speaker.config, tournament, entrant, request,
                                      subject(tournament), describe(tournament))
    return [f"Tournament #{tournament.id} ({describe(tournament)}) is created; invitations "
            f"went to {', '.join(others) or 'nobody'}. "
            + ("You play in it. " if plays else "You organise it and do not play. ")
            + "It starts when everyone has answered."]


def _after_with(rest: str) -> list[str]:
    """The words after `with`: the players' addresses (and options, which name nobody)."""
    parts = re.split(r"\swith\s", f" {rest} ", maxsplit=1, flags=re.I)
    return parts[1].split() if len(parts) == 2 else []


def _game_options(engine, given: dict[str, str]) -> dict[str, str]:
    """The games' options, checked as a game's would be (OptionError says what is wrong)."""
    options, _rated = split_rated(dict(given))
    options, time_options = controls.split_options(options)
    controls.resolve(engine.id, time_options)
    engine.resolve_options(options)
    return given


def _number(own: dict, name: str, default: int, low: int, high: int) -> int:
    text = own.get(name)
    if text is None:
        return default
    if not text.isdigit() or not low <= int(text) <= high:
        raise Refused(f"{name}={text}: write a number from {low} to {high}.")
    return int(text)


def _start(own: dict) -> dt.datetime | None:
    text = own.get("start")
    if text is None:
        return None
    try:
        day = dt.datetime.strptime(text, "%Y-%m-%d")
    except ValueError:
        raise Refused(f"start={text}: write the day the first round starts, e.g. "
                      f"start=2026-12-10.") from None
    if day - clock.now() > dt.timedelta(days=365):
        raise Refused(f"start={text} is more than a year away.")
    return day


def answer_invitation(speaker: Speaker, request: Request, lines: list[str]) -> Report:
    """A reply to a tournament's invitation: `accept`, `decline` or plain words."""
    report = Report()
    line = lines[0] if lines else ""
    word = line.split()[0].lower() if line.split() else ""
    choice = word if word in ("accept", "decline") else invitation_answer(line)
    tournament = Tournament.get_by_id(request.lines[0])
    entrant = Entrant.get((Entrant.tournament == tournament)
                          & (Entrant.player == request.player))
    if tournament.status != "inviting" or entrant.answer is not None:
        report.failed.append((line, f"tournament #{tournament.id} has your answer already "
                                    f"({entrant.answer or 'none'}); it is {tournament.status}."))
    elif choice is None:
        report.failed.append((line or "(nothing)", "write `accept` or `decline` on the "
                                                   "first line of your reply."))
    else:
        entrant.answer = "accepted" if choice == "accept" else "declined"
        entrant.save()
        request.open = False
        request.save()
        if choice == "accept":
            speaker.player.confirmed = True
            speaker.player.save()
        report.applied.append(line)
        last = not any(e.answer is None for e in tournament.entrants)
        report.notes.append(f"You {entrant.answer} tournament #{tournament.id}."
                            + ((f" Everyone has answered: {_when(tournament)}." if last else
                                " It starts when everyone has answered; your games come "
                                "by mail.") if choice == "accept" else ""))
    _answer(speaker, tournament, report)
    if report.applied:  # after the answer, so that it is read before the first round's
        rounds.start_when_answered(speaker.config, tournament)
    return report


def _when(tournament: Tournament) -> str:
    if tournament.starts is not None and tournament.starts > clock.now():
        return f"the first round starts on {tournament.starts:%Y-%m-%d}"
    return "it starts now"


def _answer(speaker: Speaker, tournament: Tournament, report: Report) -> None:
    summary = ([f"Not done: {line}\n  {why}" for line, why in report.failed] + report.notes)
    letters.answer(speaker.config, speaker.player, subject(tournament), summary,
                   in_reply_to=speaker.message_id)


def withdraw(speaker: Speaker, rest: str) -> list[str]:
    """`withdraw tournament 3`: play no more games in it; the games running are lost.
    (`withdraw seek 7` takes back an open challenge: pbem.commands.seeks.)"""
    own_seek = re.fullmatch(r"\s*seek\s+#?(\d+)\s*", rest, re.I)
    if own_seek:
        return withdraw_seek(speaker, int(own_seek.group(1)))
    found = re.fullmatch(r"\s*tournament\s+#?(\d+)\s*", rest, re.I)
    if not found:
        raise Refused("write `withdraw tournament 3` or `withdraw seek 7` (the number is in "
                      "its mails).")
    tournament = Tournament.get_or_none(Tournament.id == int(found.group(1)))
    entrant = (Entrant.get_or_none((Entrant.tournament == tournament)
                                   & (Entrant.player == speaker.player))
               if tournament is not None else None)
    if entrant is None or entrant.answer != "accepted":
        raise Refused(f"you do not play in tournament #{found.group(1)}.")
    if entrant.withdrawn is not None or tournament.status in ("finished", "cancelled"):
        raise Refused(f"tournament #{tournament.id} is {tournament.status}"
                      + (" and you withdrew already." if entrant.withdrawn is not None else "."))
    lost = rounds.withdraw(speaker.config, tournament, entrant, "withdrew")
    return [f"You withdrew from tournament #{tournament.id}; you play no more games in it."
            + (f" Your running games ({', '.join(f'#{g}' for g in lost)}) are lost."
               if lost else "")]


def show(speaker: Speaker, rest: str) -> list[str]:
    """`tournament 3`: its standings and the round being played."""
    found = re.fullmatch(r"\s*#?(\d+)\s*", rest)
    tournament = Tournament.get_or_none(Tournament.id == int(found.group(1))) if found else None
    if tournament is None:
        raise Refused("write `tournament 3` with the number of a tournament (it is in its "
                      "mails); start one with `new tournament onyx round-robin with …`.")
    rows, names = rounds.table_of(tournament)
    return [f"Tournament #{tournament.id} ({describe(tournament)}) is {tournament.status}"
            + (f", round {tournament.round} of {tournament.rounds}." if tournament.round
               else "."),
            table_text(rows, names, tournament.kind == "swiss")]
