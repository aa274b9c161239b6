"""A mail's events are counted in one INSERT at the end of its transaction (issue #44:
pbem.store.counters.gathered): the same rows, in the order counted, as one INSERT each
would write; none when the transaction is rolled back; none of a savepoint rolled back
within it, as a silenced mail's commands are (pbem.intake.running.run_commands)."""

import pytest

from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.intake.pipeline import receive
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.store import counters, transaction
from pbem.store.models import CounterEvent, database


def events() -> list[tuple[str, str, int]]:
    return [(e.name, e.label, e.amount) for e in CounterEvent.select().order_by(CounterEvent.id)]


def inserts(monkeypatch) -> list[str]:
    seen: list[str] = []
    execute = database.obj.execute_sql
    monkeypatch.setattr(database.obj, "execute_sql",
                        lambda sql, *a, **k: (seen.append(sql), execute(sql, *a, **k))[1])
    return seen


def test_events_gathered_are_written_together_in_order(store, monkeypatch):
    seen = inserts(monkeypatch)
    with transaction(), counters.gathered():
        counters.count("moves", "onyx")
        counters.count("mails_in", "done")
        counters.count("refusals", "x" * 300, amount=3)
        assert events() == []  # not yet
    assert events() == [("moves", "onyx", 1), ("mails_in", "done", 1),
                        ("refusals", "x" * 255, 3)]
    assert sum(sql.startswith('INSERT INTO "counter_event"') for sql in seen) == 1
    counters.count("bounces")  # not gathered: at once, as before
    assert events()[-1] == ("bounces", "", 1)


def test_a_rollback_takes_the_gathered_events_back(store):
    with pytest.raises(RuntimeError):
        with transaction(), counters.gathered():
            counters.count("moves", "onyx")
            raise RuntimeError("a bug")
    assert events() == []
    with transaction(), counters.gathered():
        counters.count("mails_in", "done")
        with database.atomic() as savepoint:
            at = counters.mark()
            counters.count("moves", "onyx")
            savepoint.rollback()
            counters.forget_since(at)
        with counters.gathered():  # nested: the outermost writes
            counters.count("mails_in", "ignored")
    assert events() == [("mails_in", "done", 1), ("mails_in", "ignored", 1)]


def test_a_move_by_mail_counts_its_move_and_its_outcome_in_one_insert(config, monkeypatch):
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    address = reply_address(seat_token(config.secret_key, game_id, 0), config.domain)
    raw = (f"From: alice@example.org\r\nTo: {address}\r\nSubject: Re: [pbem] Onyx\r\n"
           f"Message-ID: <move.1@example.org>\r\n\r\nF6\r\n").encode()
    before = events()
    seen = inserts(monkeypatch)
    assert receive(config, raw) == "done: 1 line(s)"
    assert events()[len(before):] == [("moves", "onyx", 1), ("mails_in", "done", 1)]
    assert sum(sql.startswith('INSERT INTO "counter_event"') for sql in seen) == 1
