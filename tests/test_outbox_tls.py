"""Authenticated mail out: the outbox through a submission server on loopback that speaks
STARTTLS (port 587's way) or implicit TLS (465's), with a certificate from a private CA,
and wants AUTH. What must not happen is tested too: a wrong password, a certificate
nobody vouches for, and a server that offers no TLS when TLS is asked for — each leaves
the mail in the outbox, sends no password where it should not go, and says why.
"""

from dataclasses import replace
from email.message import EmailMessage

import pytest

from pbem.config import Config
from pbem.mail.outbox import queue
from pbem.policy.delivery import deliver_due
from pbem.mail.relay import Relay, RelayUnavailable, security
from pbem.store import Outbox
from tlsrelay import PASSWORD, USER, Certificates, SubmissionServer


@pytest.fixture(scope="module")
def certificates(tmp_path_factory):
    return Certificates(tmp_path_factory.mktemp("certificates"))


@pytest.fixture
def submission(certificates):
    servers = []

    def start(mode: str, trusted: bool = True) -> SubmissionServer:
        server = SubmissionServer(certificates, mode, trusted).start()
        servers.append(server)
        return server
    yield start
    for server in servers:
        server.stop()


def a_mail() -> Outbox:
    message = EmailMessage()
    message["From"] = "pbem@pbem.test"
    message["To"] = "alice@example.org"
    message["Subject"] = "[pbem] Onyx #1: alice vs bob"
    message["Message-ID"] = "<tls-1@pbem.test>"
    message.set_content("It is your turn (move #1).\n")
    return queue(message, "alice@example.org")


def relayed(config, server, certificates, **settings):
    return replace(config, smtp_relay=server.address, smtp_user=USER, smtp_password=PASSWORD,
                   smtp_ca_file=str(certificates.ca), **settings)


def test_starttls_with_a_private_ca_and_a_login_delivers(config, submission, certificates):
    server = submission("starttls")
    config = relayed(config, server, certificates, smtp_tls="starttls")
    row = a_mail()
    assert deliver_due(config) == 1
    assert [rcpt for rcpt, _ in server.messages] == [["alice@example.org"]]
    assert server.messages[0][1]["Message-ID"] == "<tls-1@pbem.test>"
    assert server.tls_seen == [True] and server.logins == [(USER, True)]
    assert Outbox.get_by_id(row.id).sent is not None


def test_implicit_tls_delivers(config, submission, certificates):
    server = submission("tls")
    config = relayed(config, server, certificates, smtp_tls="tls")
    a_mail()
    assert deliver_due(config) == 1
    assert len(server.messages) == 1 and server.logins == [(USER, True)]


def test_a_wrong_password_keeps_the_mail_and_says_which_setting(config, submission,
                                                                 certificates):
    server = submission("starttls")
    config = replace(relayed(config, server, certificates, smtp_tls="starttls"),
                     smtp_password="wrong")
    row = a_mail()
    assert deliver_due(config) == 0
    assert server.messages == [] and server.logins == [(USER, False)]
    row = Outbox.get_by_id(row.id)
    assert row.sent is None and row.failed is None  # retried: the operator fixes it
    assert "refused the login of PBEM_SMTP_USER=pbem@pbem.test" in row.last_error
    assert "PBEM_SMTP_PASSWORD" in row.last_error


def test_an_untrusted_certificate_gets_no_password_and_no_mail(config, submission,
                                                               certificates):
    server = submission("starttls", trusted=False)  # self-signed, not by our CA
    config = relayed(config, server, certificates, smtp_tls="starttls")
    row = a_mail()
    assert deliver_due(config) == 0
    assert server.messages == [] and server.logins == []
    row = Outbox.get_by_id(row.id)
    assert row.sent is None and "is not trusted" in row.last_error
    assert "PBEM_SMTP_CA_FILE" in row.last_error


def test_the_systems_cas_alone_do_not_vouch_for_a_private_ca(config, submission,
                                                             certificates):
    server = submission("tls")
    config = replace(relayed(config, server, certificates, smtp_tls="tls"), smtp_ca_file="")
    a_mail()
    assert deliver_due(config) == 0
    assert server.messages == [] and server.logins == []


def test_a_server_without_starttls_gets_nothing_in_plain_text(config, submission,
                                                               certificates):
    server = submission("plain")  # offers AUTH without TLS: a stripped or broken server
    config = relayed(config, server, certificates, smtp_tls="starttls")
    row = a_mail()
    assert deliver_due(config) == 0
    assert server.messages == [] and server.logins == []  # the password never went out
    assert "does not offer STARTTLS" in Outbox.get_by_id(row.id).last_error


def test_no_password_in_plain_text_to_another_machine(config):
    config = replace(config, smtp_relay="192.0.2.1:25", smtp_tls="no", smtp_user=USER,
                     smtp_password=PASSWORD)
    with pytest.raises(RelayUnavailable, match="in plain text"):
        Relay(config)._log_in(smtp=None)  # refused before the connection is asked anything


@pytest.mark.parametrize("relay, tls, expected", [
    ("smtp.example.net:587", "", "starttls"),
    ("smtp.example.net:465", "", "tls"),
    ("smtp.example.net", "", "starttls"),  # across a network: never plain unless asked
    ("127.0.0.1:25", "", "no"),  # the local Postfix of deploy/
    ("localhost:25", "", "no"),
    ("10.0.0.2:25", "no", "no"),  # a trusted network, said so
    ("127.0.0.1:2525", "starttls", "starttls"),
])
def test_the_relays_address_chooses_tls_unless_told(relay, tls, expected):
    assert security(Config(smtp_relay=relay, smtp_tls=tls)) == expected


def test_the_password_may_come_from_a_file(tmp_path):
    secret = tmp_path / "smtp-password"
    secret.write_text(PASSWORD + "\n")
    ca = tmp_path / "private-ca.pem"
    ca.write_text("-----BEGIN CERTIFICATE-----\n")
    config = Config.from_environment({
        "PBEM_SMTP_RELAY": "smtp.example.net:587", "PBEM_SMTP_TLS": "starttls",
        "PBEM_SMTP_USER": USER, "PBEM_SMTP_PASSWORD_FILE": str(secret),
        "PBEM_SMTP_CA_FILE": str(ca), "PBEM_SECRET_KEY": "k"}, tmp_path)
    assert (config.smtp_user, config.smtp_password) == (USER, PASSWORD)
    assert config.smtp_tls == "starttls" and config.smtp_ca_file == str(ca)


def test_bad_transport_settings_are_named_at_start():
    from pbem.config import validate
    problems = validate({"PBEM_SMTP_TLS": "ssl", "PBEM_SMTP_CA_FILE": "/nonexistent/ca.pem",
                         "PBEM_MAX_CONNECTIONS": "many", "PBEM_SMTP_PASSWORD": "hunter2"})
    assert [p.split("=", 1)[0] for p in problems] == [
        "PBEM_SMTP_TLS", "PBEM_SMTP_CA_FILE", "PBEM_MAX_CONNECTIONS"]
    assert "one of: starttls, tls, no" in problems[0]
    assert not any("hunter2" in p for p in problems)
