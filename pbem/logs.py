"""Logs an operator can search: every line about a mail names its Message-ID and game.

The pipeline and the outbox say which mail they are handling with `about_mail` (a
context variable, so each thread and each task has its own), and `MailContext`, a
logging filter, copies it onto every record logged meanwhile, by any module. So a line
from deep inside the commands still says which mail and which game caused it, without
passing ids down. `install_logging` sets this up for `pbem serve` and `pbem worker`, as
`key=value` text (the default) or one JSON object a line (`PBEM_LOG_FORMAT=json`).

Under systemd, standard error is the journal's stream (systemd sets JOURNAL_STREAM to
its device and inode), and journald reads a line's priority from a `<N>` before it
(sd-daemon(3); SyslogLevelPrefix=, on by default): each line then starts with its
level's number (`<4>` for a warning), so `journalctl -p warning` finds pbem's warnings.
On a terminal or in a file, nothing is added.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import sys
from contextlib import contextmanager
from contextvars import ContextVar

from pbem.config import Config

#: The mail being handled in this thread or task: {'message_id': …, 'game': …}.
CURRENT_MAIL: ContextVar[dict] = ContextVar("pbem_current_mail", default={})

FIELDS = ("game", "message_id")  # what every record carries ('' when not about a mail)


@contextmanager
def about_mail(message_id: str, game: int | None = None):
    """Lines logged inside are about this mail (and game, when known)."""
    token = CURRENT_MAIL.set({"message_id": message_id, "game": game})
    try:
        yield
    finally:
        CURRENT_MAIL.reset(token)


def about_game(game: int | None) -> None:
    """The mail being handled turned out to be about this game (the pipeline routed it)."""
    current = CURRENT_MAIL.get()
    if current:
        CURRENT_MAIL.set({**current, "game": game})


class MailContext(logging.Filter):
    """Adds `game` and `message_id` to every record; fields set explicitly (`extra=`) win."""

    def filter(self, record: logging.LogRecord) -> bool:
        current = CURRENT_MAIL.get()
        for name in FIELDS:
            if getattr(record, name, None) in (None, ""):
                value = current.get(name)
                setattr(record, name, "" if value is None else value)
        return True


def _time(record: logging.LogRecord) -> str:
    moment = dt.datetime.fromtimestamp(record.created, dt.timezone.utc)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


class KeyValueFormatter(logging.Formatter):
    """`time=… level=INFO logger=pbem.intake.pipeline game=3 message_id=<…> msg="…"`."""

    def format(self, record: logging.LogRecord) -> str:
        pairs = [("time", _time(record)), ("level", record.levelname),
                 ("logger", record.name)]
        pairs += [(name, getattr(record, name, "")) for name in FIELDS
                  if getattr(record, name, "") not in (None, "")]
        pairs.append(("msg", record.getMessage()))
        if record.exc_info:
            pairs.append(("error", self.formatException(record.exc_info)))
        return " ".join(f"{key}={_quoted(value)}" for key, value in pairs)


def _quoted(value) -> str:
    text = str(value)
    if text and not any(c in text for c in ' "=\\\n\t'):
        return text
    return json.dumps(text, ensure_ascii=False)  # quotes, and escapes line breaks


class JSONFormatter(logging.Formatter):
    """One JSON object a line, for a log collector."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {"time": _time(record), "level": record.levelname, "logger": record.name}
        entry.update({name: getattr(record, name) for name in FIELDS
                      if getattr(record, name, "") not in (None, "")})
        entry["msg"] = record.getMessage()
        if record.exc_info:
            entry["error"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


FORMATTERS = {"text": KeyValueFormatter, "json": JSONFormatter}

#: sd-daemon(3)'s prefixes: syslog priorities by logging level.
PRIORITIES = {logging.CRITICAL: 2, logging.ERROR: 3, logging.WARNING: 4, logging.INFO: 6,
              logging.DEBUG: 7}


class JournalPriority(logging.Formatter):
    """Another formatter's line, with `<N>` in front: its priority, for journald."""

    def __init__(self, inner: logging.Formatter):
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        priority = next((n for level, n in sorted(PRIORITIES.items(), reverse=True)
                         if record.levelno >= level), 7)
        return f"<{priority}>{self.inner.format(record)}"


def to_journal(stream) -> bool:
    """Whether `stream` is the journal's stream systemd connected (JOURNAL_STREAM)."""
    expected = os.environ.get("JOURNAL_STREAM", "")
    try:
        found = os.fstat(stream.fileno())
    except (AttributeError, OSError, ValueError):  # a StringIO, a closed stream
        return False
    return expected == f"{found.st_dev}:{found.st_ino}"


def install_logging(config: Config, stream=None, level: int = logging.INFO) -> logging.Handler:
    """Log to standard error (the service manager's journal) in the configured format.

    Called again, it replaces the handler it installed before rather than adding one.
    """
    if config.log_format not in FORMATTERS:
        raise ValueError(f"PBEM_LOG_FORMAT must be one of {', '.join(FORMATTERS)}, "
                         f"not {config.log_format!r}")
    stream = stream if stream is not None else sys.stderr
    handler = logging.StreamHandler(stream)
    handler.addFilter(MailContext())
    formatter = FORMATTERS[config.log_format]()
    handler.setFormatter(JournalPriority(formatter) if to_journal(stream) else formatter)
    handler.set_name("pbem")
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == "pbem"]:
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level)
    # APScheduler says "Running job …" at every tick of every job, aiosmtpd ("mail.log")
    # at every connection, even its own start-up probe: noise, not news.
    for chatty in ("apscheduler", "mail.log"):
        logging.getLogger(chatty).setLevel(max(level, logging.WARNING))
    return handler
