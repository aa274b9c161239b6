"""The local mailbox's guard (#42 item 1): it reads everyone's mail and writes as anyone,
so it is served by `pbem serve` only, without a relay, with the web on loopback, to a
request from loopback that names a loopback host, and its form needs its CSRF token.
(tests/test_mailbox_browser.py plays a whole game through it in Chromium.)
"""

from dataclasses import replace

import pytest

from databases import only_on

pytestmark = only_on("sqlite")


def client(config, with_mailbox=True):
    from pbem.web import create_app
    return create_app(config, with_mailbox=with_mailbox).test_client()


def test_served_on_loopback_without_a_relay(config):
    page = client(config).get("/mailbox", environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert page.status_code == 200
    assert "No mail yet" in page.text
    assert page.headers["Cache-Control"] == "no-store"
    assert "Open the mailbox" in client(config).get("/").text


@pytest.mark.parametrize("where", [
    {"environ_base": {"REMOTE_ADDR": "192.0.2.7"}},  # from another machine
    {"environ_base": {"REMOTE_ADDR": "127.0.0.1"}, "headers": {"Host": "evil.example:8000"}},
    # a proxy on the machine forwarding the world (pbem.web.operator_proof)
    {"environ_base": {"REMOTE_ADDR": "127.0.0.1"},
     "headers": {"Host": "localhost:8000", "X-Forwarded-For": "203.0.113.9"}},
    {"environ_base": {"REMOTE_ADDR": "127.0.0.1"},
     "headers": {"Host": "127.0.0.1:8000", "X-Real-IP": "203.0.113.9",
                 "X-Forwarded-For": "203.0.113.9"}},
])
def test_never_to_a_stranger(config, where):
    assert client(config).get("/mailbox", **where).status_code == 404


@pytest.mark.parametrize("changes", [{"smtp_relay": "127.0.0.1:25"}, {"http": "0.0.0.0:8000"},
                                     {"http": "192.0.2.1:8000"}])
def test_never_with_a_relay_or_off_loopback(config, changes):
    app = client(replace(config, **changes))
    assert app.get("/mailbox", environ_base={"REMOTE_ADDR": "127.0.0.1"}).status_code == 404
    assert "Open the mailbox" not in app.get("/").text


def test_not_in_the_app_gunicorn_runs(config):
    app = client(config, with_mailbox=False)
    assert app.get("/mailbox", environ_base={"REMOTE_ADDR": "127.0.0.1"}).status_code == 404


def test_a_form_from_elsewhere_sends_nothing(config):
    app = client(replace(config, smtp_listen="127.0.0.1:9"))  # nothing listens: none tried
    form = {"sender": "alice@example.org", "to": "pbem@pbem.test", "body": "help"}
    answer = app.post("/mailbox/send", data=form, environ_base={"REMOTE_ADDR": "127.0.0.1"})
    assert answer.status_code == 400
    assert "Not sent: the form is not from this page" in answer.text
