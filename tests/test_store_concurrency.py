"""Two deliveries at the same moment, on SQLite and on PostgreSQL (the `store` fixture).

Each delivery runs in a thread of its own, so with a connection of its own (peewee keeps
one per thread), released together by a barrier: the same mail twice, two different
moves for one seat, two outbox deliverers. SQLite serialises writers (IMMEDIATE
transactions); PostgreSQL relies on row locks (`for_update`) and on the outbox's
compare-and-set claim. The mail that follows goes out over real SMTP to a sink.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from email.message import EmailMessage

from databases import at_once
from mailtest import body
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.intake import pipeline
from pbem.policy.delivery import deliver_due
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.store import Game, Inbound, Move, Outbox

PLAYERS = ["alice@example.org", "bob@example.org"]


def move_mail(config, game_id: int, seat: int, text: str, message_id: str) -> bytes:
    """A player's reply carrying a move, as it arrives: raw RFC 822 bytes."""
    message = EmailMessage()
    message["From"] = PLAYERS[seat]
    message["To"] = reply_address(seat_token(config.secret_key, game_id, seat), config.domain)
    message["Subject"] = f"Re: [pbem] Onyx #{game_id}: alice vs bob"
    message["Message-ID"] = message_id
    message.set_content(f"{text}\n")
    return bytes(message)


def moves_of(game_id: int) -> list[str]:
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def mail_to(config, sink, address: str) -> list[str]:
    """Deliver the outbox to the sink over SMTP; the bodies `address` received."""
    deliver_due(replace(config, smtp_relay=sink.address))
    return [body(message) for message in sink.to(address)]


def test_the_same_mail_arriving_twice_at_once_is_played_once(config, sink):
    game_id = start_game(config, ENGINES["onyx"], {}, PLAYERS)
    raw = move_mail(config, game_id, 0, "F6", "<twice@example.org>")
    outcomes = at_once(lambda: pipeline.receive(config, raw),
                       lambda: pipeline.receive(config, raw))
    assert sorted(outcomes) == ["done: 1 line(s)", "duplicate"]
    assert moves_of(game_id) == ["F6"]
    assert Inbound.select().count() == 1
    news = [text for text in mail_to(config, sink, PLAYERS[1]) if "alice: F6" in text]
    assert len(news) == 1  # bob hears of it once


def test_a_copy_stored_by_one_delivery_and_run_first_by_the_other_runs_once(
        config, sink, monkeypatch):
    """The delivery that stored the mail comes second to the lock: it must still look."""
    stored, storers = threading.Barrier(2), set()
    record, create = pipeline.record, Inbound.create

    def create_and_note(**fields):  # which thread's copy was the one stored
        row = create(**fields)
        storers.add(threading.get_ident())
        return row

    def record_then_wait(intake):
        record(intake)
        stored.wait(timeout=30)  # both copies have stored or found the row
        if threading.get_ident() in storers:
            time.sleep(0.3)  # the copy that found the row goes first

    monkeypatch.setattr(Inbound, "create", create_and_note)
    monkeypatch.setattr(pipeline, "record", record_then_wait)
    game_id = start_game(config, ENGINES["onyx"], {}, PLAYERS)
    raw = move_mail(config, game_id, 0, "F6", "<twice@example.org>")
    outcomes = at_once(lambda: pipeline.receive(config, raw),
                       lambda: pipeline.receive(config, raw))
    assert sorted(outcomes) == ["done: 1 line(s)", "duplicate"]
    assert moves_of(game_id) == ["F6"]
    assert not [text for text in mail_to(config, sink, PLAYERS[0]) if "Not played" in text]


def test_two_moves_for_one_seat_at_once_play_only_one(config, sink):
    game_id = start_game(config, ENGINES["onyx"], {}, PLAYERS)
    first = move_mail(config, game_id, 0, "F6", "<first@example.org>")
    second = move_mail(config, game_id, 0, "G5", "<second@example.org>")
    at_once(lambda: pipeline.receive(config, first), lambda: pipeline.receive(config, second))
    played = moves_of(game_id)
    assert played in (["F6"], ["G5"])
    assert Game.get_by_id(game_id).plies == 1
    other = "G5" if played == ["F6"] else "F6"
    answers = mail_to(config, sink, PLAYERS[0])
    assert sum(f"Not played: {other}" in text for text in answers) == 1  # the refusal
    assert not any(f"Done: {other}" in text for text in answers)
    assert sum(f"alice: {played[0]}" in text for text in mail_to(config, sink, PLAYERS[1])) == 1


def test_two_deliverers_at_once_send_each_message_once(config, sink):
    for _ in range(15):
        start_game(config, ENGINES["onyx"], {}, PLAYERS)
    queued = Outbox.select().count()
    assert queued >= 30
    relay = replace(config, smtp_relay=sink.address)
    sent = at_once(lambda: deliver_due(relay), lambda: deliver_due(relay))
    assert sum(sent) == queued
    ids = [message["Message-ID"] for _, message in sink.messages]
    assert len(ids) == queued and len(set(ids)) == queued
    assert Outbox.select().where(Outbox.sent.is_null() | (Outbox.attempts != 1)).count() == 0
