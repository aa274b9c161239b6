"""End to end through real mail servers: players → Postfix → pbem → Postfix → Dovecot.

pbem runs as deploy/'s systemd unit says (its ExecStart, user, directory, environment
file), behind a Postfix configured with deploy/'s snippets, on PostgreSQL when
PBEM_TEST_DATABASE_URL names one (as in CI) and on a SQLite file otherwise. Players send
with smtplib to Postfix and read their mail over IMAP from Dovecot. The worker is stopped
in the middle of a game: Postfix must keep the move sent meanwhile and hand it over after
the restart, and in the end every mail pbem sent has arrived exactly once. The pipe
alternative (`pbem ingest` run by Postfix) and the web unit (gunicorn) are run too.

Everything runs on loopback in a scratch directory (tests/loopback_services.py and the
servers beside it); Postfix delivers nowhere but the two test domains. Servers that
cannot start fail the test with their log.
"""

import email
import email.policy
import inspect
import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import urllib.request

from pathlib import Path

import pytest

from databases import POSTGRES, empty_postgres
from deployed_pbem import PbemService, Site, install_pbem
from dovecot_server import Dovecot
from loopback_services import (DEPLOY, PBEM_DOMAIN, PLAYERS_DOMAIN, REPO, free_port,
                               give_to_service_user, scratch_directory, wait_for)
from mail_player import MailPlayer, body
from postfix_server import (Postfix, lmtp_transport, pipe_main_cf, pipe_transport,
                            players_transport)
from sender_checks import LoopbackDNS, OpenDMARC

ALICE, BOB = f"alice@{PLAYERS_DOMAIN}", f"bob@{PLAYERS_DOMAIN}"


@pytest.fixture
def site():
    root = scratch_directory("pbem-e2e-")
    site = Site(root, lmtp_port=free_port(), relay_port=free_port())
    site.state.mkdir()
    give_to_service_user(site.state)  # /var/lib/pbem belongs to the service user
    install_pbem(site)
    settings = {"PBEM_SECRET_KEY": secrets.token_hex(32)}
    if POSTGRES:
        empty_postgres(POSTGRES)
        settings["PBEM_DATABASE_URL"] = POSTGRES
    site.write_env_file(settings)
    yield site
    shutil.rmtree(root, ignore_errors=True)


@pytest.fixture
def dovecot(site):
    server = Dovecot(site.root / "dovecot", [ALICE, BOB])
    try:
        yield server.start()
    finally:
        server.stop()


@pytest.fixture
def mta(site, dovecot):
    """Start Postfix with deploy/'s transport map as installed ('lmtp') or switched to
    its pipe alternative ('pipe': with master.cf.snippet's service and main.cf.snippet's
    lines for it uncommented, as their comments say); stopped at the end whatever
    happened."""
    servers = []

    def start(kind: str, main_extra: str = "") -> Postfix:
        if kind == "lmtp":
            transport, master = lmtp_transport(site), ""
        else:
            transport, master = pipe_transport(site), site.deployed("postfix/master.cf.snippet")
            main_extra = pipe_main_cf(site) + main_extra
        server = Postfix(site, transport + players_transport(dovecot), master_extra=master,
                         main_extra=main_extra)
        servers.append(server)
        return server.start()
    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def worker(site):
    service = PbemService(site, "systemd/pbem-worker.service")
    yield service
    service.stop()


def start_onyx(worker: PbemService) -> int:
    done = worker.pbem("new", "onyx", "--player", ALICE, "--player", BOB)
    return int(done.stdout.decode().split()[-1])


def delivered_everything(postfix: Postfix, worker: PbemService) -> bool:
    """Nothing waits, neither in Postfix's queue nor in pbem's outbox (`pbem status`,
    what deploy/README.md tells an operator to watch)."""
    if postfix.queue():
        return False
    return "outbox:       0 waiting" in worker.pbem("status").stdout.decode()


def check_exactly_once(site, game_id, queued_id, players):
    """Every mail pbem queued for a player is in their mailbox once; the move sent while
    the worker was down was taken once and played once."""
    from pbem.store import Game, Inbound, Move, Outbox, open_database
    from pbem.store.models import database
    db = open_database(site.settings["PBEM_DATABASE_URL"], migrate=False)
    try:
        moves = [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]
        assert moves == ["F6", "G5", "C3"]
        assert Game.get_by_id(game_id).result not in ("", None, "*")
        assert Inbound.select().where(Inbound.message_id == queued_id).count() == 1
        sent = {}
        for row in Outbox.select():
            assert row.sent is not None, f"never sent: {row.recipient}"
            message_id = _message_id(bytes(row.message))
            sent.setdefault(row.recipient, []).append(message_id)
    finally:
        db.close()
        database.initialize(None)
    for address, player in players.items():
        received = [m["Message-ID"] for m in player.mailbox()]
        assert len(received) == len(set(received)), f"{address} got a mail twice"
        assert sorted(received) == sorted(sent[address]), f"{address} is missing mail"


def _message_id(raw: bytes) -> str:
    return email.message_from_bytes(raw, policy=email.policy.default)["Message-ID"]


def test_a_game_through_postfix_survives_a_worker_restart_without_loss_or_duplicates(
        site, mta, worker, dovecot):
    postfix = mta("lmtp")
    assert postfix.warnings() == []  # nothing set that the LMTP set-up leaves unused
    worker.start()
    alice, bob = (MailPlayer(a, postfix, dovecot) for a in (ALICE, BOB))
    game_id = start_onyx(worker)

    first = alice.wait_for("It is your turn (move #1).")
    assert f"Onyx #{game_id}" in first["Subject"]
    alice.reply("F6", to=first)
    news = bob.wait_for("#1 alice: F6")
    assert "It is your turn (move #2)." in body(news)
    bob.reply("G5", to=news)
    news = alice.wait_for("#2 bob: G5")

    # The worker stops mid-game: Postfix takes alice's next move and keeps it.
    assert worker.stop() == 0
    queued = alice.reply("C3", to=news)
    deferred = wait_for(lambda: [m for m in postfix.queue() if m["queue_name"] == "deferred"],
                        "Postfix to defer the move while the worker is down",
                        log=postfix.log)
    assert [r["address"] for r in deferred[0]["recipients"]] == [news["Reply-To"].lower()]
    reason = deferred[0]["recipients"][0]["delay_reason"].lower()
    assert "refused" in reason or "lost connection" in reason, reason

    worker.start()
    postfix.flush()
    news = bob.wait_for("#3 alice: C3")
    bob.reply("resign", to=news)
    alice.wait_for("Game over")
    bob.wait_for("Game over")
    wait_for(lambda: delivered_everything(postfix, worker), "every mail to be delivered",
             log=lambda: postfix.log() + worker.log())
    assert worker.stop() == 0

    check_exactly_once(site, game_id, queued["Message-ID"], {ALICE: alice, BOB: bob})
    assert "status=bounced" not in postfix.log_path.read_text()
    assert "Traceback" not in "".join(worker.output)


def test_a_mail_postfix_accepts_and_then_bounces_comes_back_as_a_counted_bounce(
        site, mta, worker, dovecot):
    """Mail out through Postfix (deploy's set-up): Postfix accepts carol's start mail,
    then Dovecot has no such mailbox. Postfix's own delivery report goes to the mail's
    return path (pbem-bounce+…@), which the transport map hands back to the worker by
    LMTP; pbem reads it and counts the bounce (`pbem outbox bounces` shows it)."""
    postfix = mta("lmtp")
    worker.start()
    carol = f"carol@{PLAYERS_DOMAIN}"  # not one of Dovecot's users
    worker.pbem("new", "onyx", "--player", ALICE, "--player", carol)
    wait_for(lambda: "status=bounced" in postfix.log_path.read_text(),
             "Postfix to bounce carol's mail", log=postfix.log)
    bounces = wait_for(lambda: [line for line in worker.pbem("outbox", "bounces").stdout
                                .decode().splitlines() if line.startswith(carol)],
                       "pbem to count carol's bounce", log=lambda: postfix.log() + worker.log())
    assert "1 day of hard bounces" in bounces[0] and "still mailed" in bounces[0]
    assert "Traceback" not in "".join(worker.output)


def test_the_web_unit_serves_the_archive_under_gunicorn(site):
    """deploy/systemd/pbem-web.service as installed: gunicorn on PBEM_HTTP."""
    web = PbemService(site, "systemd/pbem-web.service")
    try:
        web.start(ready_port=site.http_port)
        with urllib.request.urlopen(f"http://127.0.0.1:{site.http_port}/healthz",
                                    timeout=30) as response:
            assert response.status == 200
            assert json.loads(response.read())["ok"] is True
    finally:
        assert web.stop() == 0, web.log()


def test_the_environment_file_explains_every_setting():
    """Every PBEM_* variable pbem reads has its line in deploy/pbem.env.example."""
    from pbem.config import Config
    read = set(re.findall(r'"(PBEM_[A-Z_]+)"', inspect.getsource(Config.from_environment)))
    example = (DEPLOY / "pbem.env.example").read_text()
    assert read and not [name for name in sorted(read)
                         if not re.search(rf"^#?{name}=", example, re.M)]


def test_the_pipe_alternative_hands_a_move_to_pbem_ingest(site, mta, worker, dovecot):
    """deploy/postfix/transport switched to its pipe line: no listener runs at all; each
    mail starts `pbem ingest` (deploy/pbem-ingest) as the service user, which plays the
    move and sends the news through Postfix at once."""
    postfix = mta("pipe")
    assert postfix.warnings() == []
    assert "pbem-ingest_destination_recipient_limit = 1" in postfix.run(
        "postconf", "-c", str(postfix.config_dir), "-n")  # the pipe's line, in force
    alice, bob = (MailPlayer(a, postfix, dovecot) for a in (ALICE, BOB))
    # deploy/README.md: the worker still runs, for the scheduler, without a listener; its
    # first start makes the store (no other command does)
    worker.drop_in["PBEM_LMTP_LISTEN"] = ""
    worker.start()
    game_id = start_onyx(worker)  # `pbem new` mails the players itself
    first = alice.wait_for("It is your turn (move #1).")
    alice.reply("F6", to=first)
    news = bob.wait_for("#1 alice: F6")
    assert f"Onyx #{game_id}" in news["Subject"]
    wait_for(lambda: not postfix.queue(), "Postfix's queue to empty", log=postfix.log)
    assert "status=bounced" not in postfix.log_path.read_text()


def test_header_checks_remove_an_authentication_result_forged_with_our_id(site, mta, worker,
                                                                          dovecot):
    """With PBEM_AUTHSERV_ID, pbem trusts the topmost Authentication-Results of the MTA's
    id; deploy/postfix/header_checks must take out one that a sender wrote themselves.
    No DMARC milter runs here, so once it is gone the mail carries no verdict of ours,
    and pbem ignores it: the forged `dmarc=pass` did not play the move."""
    authserv_id = f"mx.{PBEM_DOMAIN}"
    site.write_env_file({"PBEM_SECRET_KEY": site.settings["PBEM_SECRET_KEY"],
                         "PBEM_DATABASE_URL": site.settings["PBEM_DATABASE_URL"],
                         "PBEM_AUTHSERV_ID": authserv_id})
    checks = site.postfix_config / "header_checks"
    site.postfix_config.mkdir(parents=True, exist_ok=True)
    checks.write_text(site.deployed("postfix/header_checks").replace(
        r"mx\.example\.org", re.escape(authserv_id)))
    postfix = Postfix(site, lmtp_transport(site) + players_transport(dovecot),
                      main_extra=f"header_checks = regexp:{checks}\n").start()
    try:
        worker.start(ready_port=site.lmtp_port)
        alice = MailPlayer(ALICE, postfix, dovecot)
        game_id = start_onyx(worker)
        first = alice.wait_for("It is your turn (move #1).")
        forged = alice.reply("F6", to=first, headers={
            "Authentication-Results": f"{authserv_id}; dmarc=pass header.from={PLAYERS_DOMAIN}"})
        stored = wait_for(lambda: inbound_row(site, forged["Message-ID"]),
                          "pbem to store the forged mail", log=postfix.log)
    finally:
        postfix.stop()
    raw, outcome, moves = stored
    assert b"Authentication-Results" not in raw.split(b"\r\n\r\n")[0]
    assert outcome == f"ignored: no Authentication-Results from {authserv_id} (not through the MTA)"
    assert moves == 0, f"game {game_id}: the forged verdict played a move"


def inbound_row(site, message_id: str):
    """(raw, outcome, moves played) once pbem has stored the mail, else None."""
    from pbem.store import Inbound, Move, open_database
    db = open_database(site.settings["PBEM_DATABASE_URL"], migrate=False)
    try:
        row = Inbound.get_or_none(Inbound.message_id == message_id)
        if row is None or row.outcome == "received":
            return None
        return bytes(row.raw), row.outcome, Move.select().count()
    finally:
        db.close()


def test_reply_all_and_cc_reach_the_game_once_and_postfix_never_waits(site, mta, worker,
                                                                       dovecot):
    """A Reply-All (To the reply token, Cc pbem@) and a Cc (To pbem@, Cc the token): one
    LMTP transaction with two recipients each. pbem answers both recipients after the
    data (RFC 2033), so Postfix marks both delivered at once: nothing is deferred and
    delivered again, the move is played once, the opponent told once. (The short
    lmtp_data_done_timeout makes a server that answers once fail here in seconds, not
    after Postfix's default 600.)"""
    postfix = mta("lmtp", main_extra="lmtp_data_done_timeout = 20s\n")
    worker.start()
    alice, bob = (MailPlayer(a, postfix, dovecot) for a in (ALICE, BOB))
    start_onyx(worker)
    first = alice.wait_for("It is your turn (move #1).")
    reply_all = alice.reply("F6", to=first, cc=f"pbem@{PBEM_DOMAIN}")
    news = bob.wait_for("#1 alice: F6")
    cc = bob.reply("G5", to=news, to_address=f"pbem@{PBEM_DOMAIN}", cc=news["Reply-To"])
    alice.wait_for("#2 bob: G5")
    wait_for(lambda: delivered_everything(postfix, worker), "every mail to be delivered",
             log=lambda: postfix.log() + worker.log())
    log = postfix.log_path.read_text()
    lmtp = [line for line in log.splitlines() if "postfix/lmtp" in line]
    assert not [line for line in lmtp if "lost connection" in line or "deferred" in line], \
        "\n".join(lmtp)
    to_pbem = re.findall(rf"to=<pbem[^>]*@{re.escape(PBEM_DOMAIN)}>.*status=sent", log)
    assert len(to_pbem) == 4  # two mails, two recipients each, each delivered once
    for sent in (reply_all, cc):
        assert inbound_row(site, sent["Message-ID"])[1:] == ("done: 1 line(s)", 2)
    assert len([m for m in bob.mailbox() if "#1 alice: F6" in body(m)]) == 1
    assert len([m for m in alice.mailbox() if "#2 bob: G5" in body(m)]) == 1


def test_opendmarc_as_deployed_passes_a_player_and_refuses_a_forgery(site, worker, dovecot):
    """deploy/opendmarc/opendmarc.conf in front of pbem with PBEM_AUTHSERV_ID, SPF
    checked by OpenDMARC itself, DNS from a server on loopback (players.test publishes
    DMARC p=reject). alice's mail (envelope and From at players.test) passes and is
    played. A forger's mail with alice's From and his own envelope sender fails (SPF
    passes for his domain, which is not alice's: nothing aligns); it is refused and
    counted (`pbem status`), and alice, not the forger, is told. (OpenDMARC's own SPF
    check passes every loopback client, so a wrong SPF record cannot be what fails here;
    its sources are 127.0.0.2 and .3 because it does not judge mail from 127.0.0.1.)"""
    authserv_id = f"mx.{PBEM_DOMAIN}"
    site.write_env_file({"PBEM_SECRET_KEY": site.settings["PBEM_SECRET_KEY"],
                         "PBEM_DATABASE_URL": site.settings["PBEM_DATABASE_URL"],
                         "PBEM_AUTHSERV_ID": authserv_id})
    dns = LoopbackDNS({PLAYERS_DOMAIN: ["v=spf1 ip4:127.0.0.2 -all"],
                       f"_dmarc.{PLAYERS_DOMAIN}": ["v=DMARC1; p=reject"]}).start()
    dmarc = postfix = None
    try:
        dmarc = OpenDMARC(site, authserv_id, dns).start()
        checks = site.postfix_config / "header_checks"
        site.postfix_config.mkdir(parents=True, exist_ok=True)
        checks.write_text(site.deployed("postfix/header_checks").replace(
            r"mx\.example\.org", re.escape(authserv_id)))
        postfix = Postfix(site, lmtp_transport(site) + players_transport(dovecot), main_extra=(
            f"header_checks = regexp:{checks}\n"
            f"smtpd_milters = inet:127.0.0.1:{dmarc.port}\n"
            f"milter_default_action = tempfail\n")).start()
        worker.start(ready_port=site.lmtp_port)
        alice = MailPlayer(ALICE, postfix, dovecot, source="127.0.0.2")
        mallory = MailPlayer(f"mallory@{PLAYERS_DOMAIN}", postfix, dovecot, source="127.0.0.3")
        game_id = start_onyx(worker)
        first = alice.wait_for("It is your turn (move #1).")

        forged = mallory.reply("F6", to=first, sender=ALICE,
                               envelope_sender="mallory@forger.test")
        raw, outcome, moves = wait_for(lambda: inbound_row(site, forged["Message-ID"]),
                                       "pbem to store the forged mail",
                                       log=lambda: postfix.log() + dmarc.log())
        assert outcome == f"ignored: DMARC fail for {PLAYERS_DOMAIN} at {authserv_id}", \
            raw.split(b"\r\n\r\n")[0].decode() + dmarc.log() + str(dns.questions)
        assert moves == 0, f"game {game_id}: the forgery played a move"
        notice = alice.wait_for("could not confirm that it really came from you")
        assert notice["Subject"] == "[pbem] a mail in your name was not read"
        assert "dmarc-fail 1" in worker.pbem("status").stdout.decode()

        real = alice.reply("F6", to=first)
        raw, outcome, moves = wait_for(lambda: inbound_row(site, real["Message-ID"]),
                                       "pbem to take alice's own mail", log=postfix.log)
        assert (outcome, moves) == ("done: 1 line(s)", 1)
        headers = raw.split(b"\r\n\r\n")[0].decode()
        assert re.search(rf"Authentication-Results: {re.escape(authserv_id)};"
                         rf"[^:]*dmarc=pass", headers), headers
    finally:
        for server in (postfix, dmarc, dns):
            if server is not None:
                server.stop()


def test_the_tier_runs_from_a_checkout_the_service_user_cannot_read(tmp_path):
    """A clone in a directory only root may enter (a home directory, `mktemp -d`): /opt/pbem
    is installed from a wheel of its files, so the units, run as the service user, never
    read the checkout. The pipe alternative, run from such a copy, must pass."""
    private = Path(tempfile.mkdtemp(prefix="pbem-private-"))  # mode 0700
    try:
        assert (private.stat().st_mode & 0o077) == 0
        checkout = private / "pbem"
        shutil.copytree(REPO, checkout, ignore=shutil.ignore_patterns(
            ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache"))
        test = "tests/test_e2e_postfix.py::test_the_pipe_alternative_hands_a_move_to_pbem_ingest"
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                               "-x", test], cwd=checkout, capture_output=True, text=True,
                              timeout=1800, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
        assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    finally:
        shutil.rmtree(private, ignore_errors=True)


def test_two_template_workers_on_one_host_take_turns_when_one_stops(site, dovecot):
    """deploy/systemd/pbem-worker@.service: two instances on one host, each with its own
    LMTP address (/etc/pbem/pbem-worker-N.env) and name; Postfix's transport lists both
    in the form deploy/README.md gives (`lmtp:[a]:p, [b]:p`). `pbem status` shows both
    ticking; with the first stopped, a move still reaches pbem through the second, and
    the stopped one leaves the list."""
    import socket
    ports = {"1": site.lmtp_port, "2": free_port()}
    for instance, port in ports.items():
        path = site.env_file.parent / f"pbem-worker-{instance}.env"
        path.write_text(f"PBEM_LMTP_LISTEN=127.0.0.1:{port}\n")
        path.chmod(0o644)
    hops = ", ".join(f"[127.0.0.1]:{port}" for port in ports.values())
    postfix = Postfix(site, f"{PBEM_DOMAIN}    lmtp:{hops}\n" + players_transport(dovecot))
    workers = [PbemService(site, "systemd/pbem-worker@.service", instance=n) for n in ports]
    host = socket.gethostname()
    try:
        postfix.start()
        assert postfix.warnings() == []
        workers[0].start(ready_port=ports["1"])  # the first makes the store
        workers[1].start(ready_port=ports["2"])
        status = workers[0].pbem("status").stdout.decode()
        for instance in ports:
            assert re.search(rf"^worker: +{re.escape(host)}-{instance} \(.*: ticked .* ago, "
                             rf"1 of 1 listener\(s\) taking mail$", status, re.M), status
        alice, bob = (MailPlayer(a, postfix, dovecot) for a in (ALICE, BOB))
        start_onyx(workers[0])
        first = alice.wait_for("It is your turn (move #1).")
        assert workers[0].stop() == 0
        alice.reply("F6", to=first)
        bob.wait_for("#1 alice: F6")  # through the second worker
        status = workers[1].pbem("status").stdout.decode()
        assert f"{host}-2 (" in status and f"{host}-1 (" not in status
        assert "Traceback" not in "".join(workers[1].output)
    finally:
        for worker in workers:
            worker.stop()
        postfix.stop()


def test_the_transport_form_deploy_readme_warns_against_does_not_fail_over(site, dovecot,
                                                                          worker):
    """`lmtp:inet:A, inet:B` passes `postfix check`, yet with nothing listening at A
    Postfix's LMTP client dies on the second hop ("fatal: valid hostname or network
    address required") rather than try B, where the worker listens: the mail stays in
    the queue and pbem never sees it (deploy/README.md, "Several workers", warns of this
    and gives the form that works, which the test above runs)."""
    import smtplib
    down = free_port()  # nobody listens here: the first worker is down
    transport = (f"{PBEM_DOMAIN}    lmtp:inet:127.0.0.1:{down}, inet:127.0.0.1:{site.lmtp_port}\n"
                 + players_transport(dovecot))
    postfix = Postfix(site, transport)
    try:
        postfix.start()
        postfix.run("postfix", "-c", str(postfix.config_dir), "check")  # it passes
        worker.start()
        with smtplib.SMTP("127.0.0.1", postfix.port, timeout=30) as smtp:
            smtp.sendmail(ALICE, [f"pbem@{PBEM_DOMAIN}"],
                          f"From: {ALICE}\r\nTo: pbem@{PBEM_DOMAIN}\r\nSubject: games\r\n"
                          f"Message-ID: <failover@{PLAYERS_DOMAIN}>\r\n\r\ngames\r\n")
        wait_for(lambda: "valid hostname or network address required in server description"
                 in postfix.log_path.read_text(), "Postfix's LMTP client to die",
                 log=postfix.log)
        assert [m["queue_id"] for m in postfix.queue()]  # still Postfix's
        assert "last mail in: never" in worker.pbem("status").stdout.decode()
    finally:
        postfix.stop()
