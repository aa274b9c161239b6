"""Every log line about a mail names its Message-ID and, once routed, its game: the
pipeline's lines about a move coming in, the outbox's lines about the mail going out,
in the `key=value` text and the JSON that `pbem serve` and `pbem worker` write.
"""

import io
import json
import logging
from dataclasses import replace

import pytest

from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.logs import MailContext, install_logging
from pbem.policy.delivery import deliver_due
from pbem.intake.pipeline import receive
from pbem.vocabulary.tokens import reply_address, seat_token


@pytest.fixture
def game(config):
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    deliver_due(config)  # the starting mails: out of the way before the move
    return game_id


def move(config, game_id: int) -> bytes:
    to = reply_address(seat_token(config.secret_key, game_id, 0), config.domain)
    return (f"From: alice@example.org\r\n"
            f"To: {to}\r\n"
            f"Subject: Re: [pbem] Onyx #{game_id}\r\n"
            f"Message-ID: <log-1@example.org>\r\n"
            f"\r\n"
            f"F6\r\n").encode()


@pytest.fixture
def root_logger():
    """install_logging changes the root logger: put it back afterwards."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield root
    root.handlers[:] = handlers
    root.setLevel(level)


def test_lines_about_a_mail_name_its_message_id_and_game(config, game, caplog):
    caplog.handler.addFilter(MailContext())
    with caplog.at_level(logging.INFO):
        assert receive(config, move(config, game)) == "done: 1 line(s)"
        assert deliver_due(config) == 1  # the news to bob, whose turn it is
    incoming = [r for r in caplog.records if r.name == "pbem.intake.pipeline"]
    assert [r.getMessage() for r in incoming] == ["mail from alice@example.org: done: 1 line(s)"]
    assert (incoming[0].message_id, incoming[0].game) == ("<log-1@example.org>", game)
    outgoing = [r for r in caplog.records if r.name == "pbem.mail.outbox"]
    assert {r.getMessage() for r in outgoing} == {"sent to bob@example.org"}
    for record in outgoing:  # each names the game and its own outgoing Message-ID
        assert record.game == game
        assert record.message_id.startswith("<") and record.message_id != "<log-1@example.org>"


def test_a_line_not_about_a_mail_names_none(caplog):
    caplog.handler.addFilter(MailContext())
    with caplog.at_level(logging.INFO):
        logging.getLogger("pbem.test").info("starting")
    assert (caplog.records[0].message_id, caplog.records[0].game) == ("", "")


def test_text_logs_are_key_value_pairs(config, game, root_logger):
    stream = io.StringIO()
    install_logging(config, stream=stream)
    receive(config, move(config, game))
    line = next(line for line in stream.getvalue().splitlines() if "mail from" in line)
    assert " level=INFO logger=pbem.intake.pipeline " in line
    assert f" game={game} message_id=<log-1@example.org> " in line
    assert line.endswith(' msg="mail from alice@example.org: done: 1 line(s)"')


def test_json_logs_are_one_object_a_line(config, game, root_logger):
    stream = io.StringIO()
    install_logging(replace(config, log_format="json"), stream=stream)
    receive(config, move(config, game))
    entries = [json.loads(line) for line in stream.getvalue().splitlines()]
    entry = next(e for e in entries if e["msg"].startswith("mail from"))
    assert entry["game"] == game and entry["message_id"] == "<log-1@example.org>"
    assert (entry["level"], entry["logger"]) == ("INFO", "pbem.intake.pipeline")


def test_an_unknown_log_format_is_refused_with_the_choices(config, root_logger):
    with pytest.raises(ValueError, match="PBEM_LOG_FORMAT must be one of text, json, "
                                         "not 'xml'"):
        install_logging(replace(config, log_format="xml"))


# -- the journal's priority (deploy/README.md: journalctl -p warning) ---------------------

@pytest.mark.parametrize("log_format", ["text", "json"])
def test_under_systemd_each_line_starts_with_its_priority_for_journald(
        tmp_path, monkeypatch, log_format):
    """systemd connects standard error to the journal and names it in JOURNAL_STREAM
    (device:inode); journald reads `<4>` at a line's start as priority 4, warning."""
    from pbem.config import Config
    with open(tmp_path / "stream", "w") as stream:
        found = __import__("os").fstat(stream.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{found.st_dev}:{found.st_ino}")
        handler = install_logging(Config(log_format=log_format), stream=stream)
        try:
            logging.getLogger("pbem.mail.outbox").warning("delivery to a@example.org failed")
            logging.getLogger("pbem.worker").info("pbem worker stopping")
            logging.getLogger("pbem.mail.outbox").error("gave up on mail to b@example.org")
        finally:
            logging.getLogger().removeHandler(handler)
    lines = (tmp_path / "stream").read_text().splitlines()
    assert [line[:3] for line in lines] == ["<4>", "<6>", "<3>"]
    if log_format == "json":
        assert json.loads(lines[0][3:])["level"] == "WARNING"
    else:
        assert lines[0][3:].startswith("time=") and "level=WARNING" in lines[0]


def test_on_a_terminal_or_a_file_no_priority_is_written(tmp_path, monkeypatch):
    from pbem.config import Config
    monkeypatch.setenv("JOURNAL_STREAM", "1:2")  # another stream's: not this one
    with open(tmp_path / "stream", "w") as stream:
        handler = install_logging(Config(), stream=stream)
        try:
            logging.getLogger("pbem.worker").warning("careful")
        finally:
            logging.getLogger().removeHandler(handler)
    assert (tmp_path / "stream").read_text().startswith("time=")
