"""`/healthz` and `/metrics` answer the operator only (#29 item 9): their counts moved
when a player made a secret choice (pbem_moves_total) or a reaction window asked
someone (the outbox backlog), so a stranger polling them learnt what the game hides.
From loopback (not forwarded by a proxy) or with PBEM_MONITOR_TOKEN they answer in
full; anyone else gets 404, the same before and after a secret choice. Real HTTP
through Flask's test client, a real store, a game played through the write path."""

import random
from dataclasses import replace

import pytest

from pbem.engines.base import CHANCE
from pbem.play import Table
from pbem.store import transaction
from pbem.web import create_app
from webgames import start

STRANGER = {"REMOTE_ADDR": "203.0.113.9"}
PROXIED = {"REMOTE_ADDR": "127.0.0.1"}  # nginx's `location /`: from loopback, but ...
FORWARDED = {"X-Forwarded-For": "203.0.113.9"}  # ... naming the client it forwards


def secret_choice(game_id: int, seat: int) -> None:
    with transaction():
        table = Table.load(game_id)
        assert seat in table.to_act and CHANCE not in table.to_act
        decision = table.engine.random_decision(table.state, seat, random.Random(1))
        table.play(seat, table.engine.notation(table.state, seat, decision))


@pytest.mark.parametrize("path", ["/metrics", "/healthz"])
def test_a_stranger_learns_nothing_from_the_operator_pages(config, path):
    game_id = start(config, "baronoxx", ["alice", "bob", "carol"])
    client = create_app(config).test_client()
    before = [client.get(path, environ_base=STRANGER),
              client.get(path, environ_base=PROXIED, headers=FORWARDED)]
    secret_choice(game_id, 0)  # alice chooses her card: nobody may know she has
    after = [client.get(path, environ_base=STRANGER),
             client.get(path, environ_base=PROXIED, headers=FORWARDED)]
    assert [r.status_code for r in before + after] == [404] * 4
    assert [r.data for r in before] == [r.data for r in after]


def test_the_operator_reads_both_from_loopback_or_with_the_token(config):
    config = replace(config, monitor_token="monitor-s3cret")
    game_id = start(config, "baronoxx", ["alice", "bob", "carol"])
    secret_choice(game_id, 0)
    client = create_app(config).test_client()
    local = client.get("/metrics")  # a monitor on the machine: loopback, no proxy
    assert local.status_code == 200
    assert 'pbem_moves_total{game="baronoxx"} 1.0' in local.text
    assert client.get("/healthz").get_json()["ok"] is True
    bearer = {"Authorization": "Bearer monitor-s3cret"}
    assert client.get("/metrics", environ_base=STRANGER, headers=bearer).status_code == 200
    assert client.get("/healthz", environ_base=PROXIED,
                      headers={**bearer, **FORWARDED}).status_code == 200
    wrong = {"Authorization": "Bearer monitor-s3cre"}
    assert client.get("/metrics", environ_base=STRANGER, headers=wrong).status_code == 404
    assert client.get("/healthz", environ_base=STRANGER,
                      headers={"X-Forwarded-For": "127.0.0.1"}).status_code == 404


def test_without_a_token_no_bearer_opens_them(config):
    client = create_app(config).test_client()  # monitor_token is empty: off
    assert client.get("/metrics", environ_base=STRANGER,
                      headers={"Authorization": "Bearer "}).status_code == 404
