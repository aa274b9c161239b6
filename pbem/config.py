"""The server's settings: one `Config` built from `PBEM_*` environment variables.

Every setting has a default that works on a fresh machine: loopback addresses, SQLite in
the working directory, mail kept in a local maildir when no relay is configured. The
`Config` is built once (`Config.from_environment()`) and passed down; nothing else reads
`os.environ`. Every variable is checked first against `CHECKS` (one line per setting:
what it must be), so a bad value stops the start with a sentence naming the variable and
what would work, never a traceback from deep inside.
"""

from __future__ import annotations

import difflib
import os
import ipaddress
import re
import secrets
import socket
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable


def host_port(text: str, default_port: int) -> tuple[str, int]:
    """'127.0.0.1:2525' -> ('127.0.0.1', 2525); a bare host takes the default port."""
    host, _, port = text.rpartition(":") if ":" in text else (text, "", "")
    return host or "127.0.0.1", int(port) if port else default_port


def is_loopback(host: str) -> bool:
    """Whether a configured host is this machine's loopback (a relay may then go without
    TLS; the local mailbox serves only there): `localhost` or a loopback address."""
    return host == "localhost" or is_loopback_address(host)


def is_loopback_address(address: str | None) -> bool:
    """Whether an address (a peer's, a proxy's header) is a loopback one; a name is not."""
    try:
        ip = ipaddress.ip_address(address or "")
    except ValueError:  # not an address at all: "unknown", "", a name
        return False
    # ::ffff:127.0.0.1, as a dual-stack socket names an IPv4 loopback peer
    return (getattr(ip, "ipv4_mapped", None) or ip).is_loopback


@dataclass(frozen=True)
class Config:
    domain: str = "localhost"                    # PBEM_DOMAIN: the server is pbem@domain
    secret_key: str = ""                         # PBEM_SECRET_KEY: signs reply tokens
    database_url: str = "sqlite:///pbem.db"      # PBEM_DATABASE_URL
    http: str = "127.0.0.1:8000"                 # PBEM_HTTP: the web archive
    smtp_listen: str = "127.0.0.1:2525"          # PBEM_SMTP_LISTEN: mail in ('' = off)
    lmtp_listen: str = ""                        # PBEM_LMTP_LISTEN: mail in from an MTA
    smtp_relay: str = ""                         # PBEM_SMTP_RELAY: mail out (host:port)
    smtp_tls: str = ""                           # PBEM_SMTP_TLS: starttls, tls or no ('' = by port)
    smtp_user: str = ""                          # PBEM_SMTP_USER: AUTH at the relay ('' = none)
    smtp_password: str = ""                      # PBEM_SMTP_PASSWORD (or _PASSWORD_FILE)
    smtp_ca_file: str = ""                       # PBEM_SMTP_CA_FILE: CAs for the relay's cert
    max_connections: int = 100                   # PBEM_MAX_CONNECTIONS: per listener
    max_connections_per_client: int = 20         # PBEM_MAX_CONNECTIONS_PER_CLIENT
    maildir: str = "mail"                        # PBEM_MAILDIR: mail out when no relay
    base_url: str = ""                           # PBEM_BASE_URL: links in mail
    max_message_bytes: int = 1_000_000           # PBEM_MAX_MESSAGE_BYTES
    rate_limit: int = 120                        # PBEM_RATE_LIMIT: mails per sender per hour
    digest_hour: int = 7                         # PBEM_DIGEST_HOUR: daily digests (UTC)
    authserv_id: str = ""                        # PBEM_AUTHSERV_ID: trust this MTA's DMARC
    log_format: str = "text"                     # PBEM_LOG_FORMAT: text or json
    imap_host: str = ""                          # PBEM_IMAP_HOST: poll a mailbox ('' = off)
    imap_port: int = 0                           # PBEM_IMAP_PORT: 0 = 993 with SSL, else 143
    imap_user: str = ""                          # PBEM_IMAP_USER
    imap_password: str = ""                      # PBEM_IMAP_PASSWORD (or _PASSWORD_FILE)
    imap_folder: str = "INBOX"                   # PBEM_IMAP_FOLDER: where pbem's mail lands
    imap_ssl: bool = True                        # PBEM_IMAP_SSL: IMAP over TLS (port 993)
    imap_interval: int = 60                      # PBEM_IMAP_INTERVAL: seconds between polls
    # Hostile mail (pbem.policy.limits, pbem.intake.retention): mail to addresses that never
    # confirmed, error replies, and how long raw mail is kept.
    invitations_per_day: int = 20                # PBEM_INVITATIONS_PER_DAY: per inviter
    invitations_total_per_day: int = 200         # PBEM_INVITATIONS_TOTAL_PER_DAY
    unconfirmed_per_hour: int = 100              # PBEM_UNCONFIRMED_MAIL_PER_HOUR: all told
    keep_unanswered_days: int = 7                # PBEM_KEEP_UNANSWERED_DAYS: strangers' …
    keep_player_days: int = 365                  # PBEM_KEEP_PLAYER_MAIL_DAYS
    keep_sent_days: int = 30                     # PBEM_KEEP_SENT_MAIL_DAYS: delivered mail
    bounce_threshold: int = 3                    # PBEM_BOUNCE_THRESHOLD: days of hard bounces
    # Bot load (pbem.commands.new): running games with a bot seat, per player and in all.
    bot_games_per_player: int = 5                # PBEM_BOT_GAMES_PER_PLAYER
    bot_games_total: int = 50                    # PBEM_BOT_GAMES_TOTAL
    # The operator's pages (/healthz, /metrics: pbem.web.operator_proof): from anywhere
    # with this token (Authorization: Bearer …), or from a loopback the proxy confirms.
    monitor_token: str = ""                      # PBEM_MONITOR_TOKEN (or _TOKEN_FILE)
    # This worker's name in the metrics and `pbem status` (pbem.store.workers): one per
    # worker process; '' = the host's name, enough for one worker a host.
    worker_name: str = ""                        # PBEM_WORKER_NAME

    @property
    def address(self) -> str:
        return f"pbem@{self.domain}"

    @property
    def worker(self) -> str:
        """This worker's name: PBEM_WORKER_NAME, or the host's."""
        return self.worker_name or socket.gethostname()

    @property
    def web_url(self) -> str:
        return self.base_url or f"http://{self.http}"

    @classmethod
    def from_environment(cls, environ=None, workdir: str | Path = ".",
                         make_secret: bool = True) -> "Config":
        """The settings; raises SettingsError naming every bad variable. Without
        `make_secret`, a missing key file is left missing (`pbem status` creates nothing)."""
        environ = os.environ if environ is None else environ
        problems = validate(environ)
        if problems:
            raise SettingsError(problems)
        get = environ.get
        config = cls(
            domain=get("PBEM_DOMAIN", cls.domain),
            secret_key=get("PBEM_SECRET_KEY", ""),
            database_url=get("PBEM_DATABASE_URL", cls.database_url),
            http=get("PBEM_HTTP", cls.http),
            smtp_listen=get("PBEM_SMTP_LISTEN", cls.smtp_listen),
            lmtp_listen=get("PBEM_LMTP_LISTEN", cls.lmtp_listen),
            smtp_relay=get("PBEM_SMTP_RELAY", cls.smtp_relay),
            smtp_tls=get("PBEM_SMTP_TLS", cls.smtp_tls).strip().lower(),
            smtp_user=get("PBEM_SMTP_USER", cls.smtp_user),
            smtp_password=(get("PBEM_SMTP_PASSWORD")
                           or _file_text(get("PBEM_SMTP_PASSWORD_FILE", ""))),
            smtp_ca_file=get("PBEM_SMTP_CA_FILE", cls.smtp_ca_file).strip(),
            max_connections=int(get("PBEM_MAX_CONNECTIONS") or cls.max_connections),
            max_connections_per_client=int(get("PBEM_MAX_CONNECTIONS_PER_CLIENT")
                                           or cls.max_connections_per_client),
            maildir=get("PBEM_MAILDIR", cls.maildir),
            base_url=get("PBEM_BASE_URL", cls.base_url),
            max_message_bytes=int(get("PBEM_MAX_MESSAGE_BYTES", cls.max_message_bytes)),
            rate_limit=int(get("PBEM_RATE_LIMIT", cls.rate_limit)),
            digest_hour=int(get("PBEM_DIGEST_HOUR", cls.digest_hour)) % 24,
            authserv_id=get("PBEM_AUTHSERV_ID", cls.authserv_id).strip(),
            log_format=get("PBEM_LOG_FORMAT", cls.log_format).strip().lower() or "text",
            imap_host=get("PBEM_IMAP_HOST", cls.imap_host).strip(),
            imap_port=int(get("PBEM_IMAP_PORT") or cls.imap_port),
            imap_user=get("PBEM_IMAP_USER", cls.imap_user),
            imap_password=(get("PBEM_IMAP_PASSWORD")
                           or _file_text(get("PBEM_IMAP_PASSWORD_FILE", ""))),
            imap_folder=get("PBEM_IMAP_FOLDER") or cls.imap_folder,
            imap_ssl=get("PBEM_IMAP_SSL", "yes").strip().lower() not in ("0", "no", "false", "off"),
            imap_interval=max(int(get("PBEM_IMAP_INTERVAL") or cls.imap_interval), 1),
            monitor_token=(get("PBEM_MONITOR_TOKEN")
                           or _file_text(get("PBEM_MONITOR_TOKEN_FILE", ""))).strip(),
            worker_name=get("PBEM_WORKER_NAME", "").strip(),
            **_hostile_settings(get),
        )
        if not config.secret_key and (make_secret or secret_path(workdir).exists()):
            config = replace(config, secret_key=local_secret(Path(workdir)))
        return config


class SettingsError(ValueError):
    """Settings pbem cannot use: one sentence per bad variable, for the operator."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = problems


# -- what each setting must be ------------------------------------------------------------
# A check takes the value and returns None when it will do, else what is wanted. A new
# setting adds its line here (tests/test_config.py fails for a PBEM_* variable read above
# without one).

def _host_port(optional: bool, port_needed: bool = True,
               example: str = "127.0.0.1:8024") -> Callable[[str], str | None]:
    def check(value: str) -> str | None:
        if optional and not value.strip():
            return None
        host, colon, port = value.strip().rpartition(":")
        if not colon:
            host, port = value.strip(), ""
        ok = (re.fullmatch(r"[\w.\-\[\]:]*", host) is not None
              and (port == "" and not port_needed or port.isdigit() and int(port) < 65536))
        if ok:
            return None
        what = (f"host:port, such as {example}" if port_needed
                else f"host or host:port, such as {example}")
        return what + (", or empty for off" if optional else "")
    return check


def _whole(low: int, high: int | None = None, optional: bool = False):
    def check(value: str) -> str | None:
        if optional and not value.strip():
            return None
        text = value.strip()
        if text.isdigit() and int(text) >= low and (high is None or int(text) <= high):
            return None
        return (f"a whole number from {low} to {high}" if high is not None
                else f"a whole number, at least {low}") + (", or empty" if optional else "")
    return check


def _one_of(*words: str):
    def check(value: str) -> str | None:
        return None if value.strip().lower() in words else f"one of: {', '.join(words)}"
    return check


def _domain(value: str) -> str | None:
    if re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9\-]*[A-Za-z0-9])?(\.[A-Za-z0-9\-]+)*", value):
        return None
    return "a domain name such as pbem.example.org (no @, no spaces)"


def _optional(check):
    return lambda value: None if not value.strip() else check(value)


def _database_url(value: str) -> str | None:
    if re.match(r"(sqlite:///.|postgres(ql)?://.)", value):
        return None
    return ("sqlite:///FILE (sqlite:////var/lib/pbem/pbem.db for an absolute path) or "
            "postgresql://user:password@host/database")


def _base_url(value: str) -> str | None:
    if not value or re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
        return None
    return "the archive's public address, such as https://pbem.example.org, or empty"


def _readable_file(value: str) -> str | None:
    if not value:
        return None
    try:
        Path(value).read_text()
    except (OSError, UnicodeDecodeError) as error:
        reason = getattr(error, "strerror", None) or error
        return f"a file this user can read (it cannot: {reason})"
    return None


def _no_spaces(value: str) -> str | None:
    return None if not re.search(r"\s", value.strip()) else "one word, without spaces"


def _anything(value: str) -> str | None:
    return None


CHECKS: dict[str, Callable[[str], str | None]] = {
    "PBEM_DOMAIN": _domain,
    "PBEM_SECRET_KEY": _anything,
    "PBEM_DATABASE_URL": _database_url,
    "PBEM_HTTP": _host_port(optional=False, example="127.0.0.1:8000"),
    "PBEM_SMTP_LISTEN": _host_port(optional=True, example="127.0.0.1:2525"),
    "PBEM_LMTP_LISTEN": _host_port(optional=True, example="127.0.0.1:8024"),
    "PBEM_SMTP_RELAY": _host_port(optional=True, port_needed=False, example="127.0.0.1:25"),
    "PBEM_MAILDIR": lambda v: None if v.strip() else "a directory, such as /var/lib/pbem/mail",
    "PBEM_BASE_URL": _base_url,
    "PBEM_MAX_MESSAGE_BYTES": _whole(1000),
    "PBEM_RATE_LIMIT": _whole(1),
    "PBEM_DIGEST_HOUR": _whole(0, 23),
    "PBEM_AUTHSERV_ID": _no_spaces,
    "PBEM_WORKER_NAME": _no_spaces,
    "PBEM_LOG_FORMAT": _optional(_one_of("text", "json")),
    "PBEM_IMAP_HOST": _optional(lambda v: _domain(v.strip()) and "a host name, or empty for off"),
    "PBEM_IMAP_PORT": _whole(1, 65535, optional=True),
    "PBEM_IMAP_USER": _anything,
    "PBEM_IMAP_PASSWORD": _anything,
    "PBEM_IMAP_PASSWORD_FILE": _readable_file,
    "PBEM_IMAP_FOLDER": _anything,
    "PBEM_IMAP_SSL": _one_of("yes", "no", "true", "false", "on", "off", "1", "0"),
    "PBEM_IMAP_INTERVAL": _whole(1, optional=True),
    "PBEM_SMTP_TLS": _optional(_one_of("starttls", "tls", "no")),
    "PBEM_SMTP_USER": _anything,
    "PBEM_SMTP_PASSWORD": _anything,
    "PBEM_SMTP_PASSWORD_FILE": _readable_file,
    "PBEM_SMTP_CA_FILE": _readable_file,
    "PBEM_MAX_CONNECTIONS": _whole(1, optional=True),
    "PBEM_MAX_CONNECTIONS_PER_CLIENT": _whole(1, optional=True),
    "PBEM_INVITATIONS_PER_DAY": _whole(0, optional=True),
    "PBEM_INVITATIONS_TOTAL_PER_DAY": _whole(0, optional=True),
    "PBEM_UNCONFIRMED_MAIL_PER_HOUR": _whole(0, optional=True),
    "PBEM_KEEP_UNANSWERED_DAYS": _whole(1, optional=True),
    "PBEM_KEEP_PLAYER_MAIL_DAYS": _whole(1, optional=True),
    "PBEM_KEEP_SENT_MAIL_DAYS": _whole(1, optional=True),
    "PBEM_BOUNCE_THRESHOLD": _whole(1, optional=True),
    "PBEM_BOT_GAMES_PER_PLAYER": _whole(0, optional=True),
    "PBEM_BOT_GAMES_TOTAL": _whole(0, optional=True),
    "PBEM_MONITOR_TOKEN": _no_spaces,
    "PBEM_MONITOR_TOKEN_FILE": _readable_file,
}

#: Values never repeated in a message: they are secrets.
SECRET = ("PBEM_SECRET_KEY", "PBEM_IMAP_PASSWORD", "PBEM_SMTP_PASSWORD", "PBEM_MONITOR_TOKEN")


def validate(environ) -> list[str]:
    """One sentence per PBEM_* variable whose value will not do; [] when all are fine."""
    problems = []
    for name, check in CHECKS.items():
        value = environ.get(name)
        if value is None:
            continue  # the default
        wanted = check(value)
        if wanted:
            shown = "(hidden)" if name in SECRET else repr(value)
            problems.append(f"{name}={shown} cannot be used: wanted {wanted}.")
    return problems


#: Settings an earlier version read, and why they went (CHANGELOG.md says when).
RETIRED = {
    "PBEM_ERROR_REPLIES_PER_HOUR": "error replies are limited only in a row, with nothing "
                                   "carried out between them (an hourly count silenced "
                                   "newcomers); README \"Hostile mail and retention\"",
}


def unknown_settings(environ) -> list[str]:
    """A warning for each PBEM_* variable pbem does not read (a typo is otherwise silent:
    PBEM_DATABSE_URL would leave the default database in use). PBEM_TEST_* are the
    tests' own."""
    warnings = []
    for name in sorted(environ):
        if name in RETIRED:
            warnings.append(f"{name} is no longer read and is ignored: {RETIRED[name]}")
        elif name.startswith("PBEM_") and name not in CHECKS and not name.startswith("PBEM_TEST_"):
            close = difflib.get_close_matches(name[5:], [c[5:] for c in CHECKS], n=1)
            warnings.append(f"{name} is not a pbem setting and is ignored"
                            + (f" (did you mean PBEM_{close[0]}?)" if close else ""))
    return warnings


def secret_path(workdir: str | Path) -> Path:
    return Path(workdir) / "pbem-secret.key"


def missing_secret_key(workdir: str | Path = ".") -> str:
    """Why a command that signs or reads reply addresses cannot run without a key: for
    every command but `serve` and `worker`, which make the key file at their first start."""
    return (f"there is no secret key: PBEM_SECRET_KEY is not set and there is no "
            f"{secret_path(workdir).resolve()} (nothing was created).\n"
            f"              The first `pbem worker` or `pbem serve` makes the file. If pbem "
            f"runs already, these are not its settings:\n              run "
            f"`pbem --env-file /etc/pbem/pbem.env ...` in its directory (/var/lib/pbem)")


def existing_store_config() -> "Config":
    """The settings and the store for a command other than `serve` and `worker`, which
    alone create a store: raises NoStore, having created nothing (no database file, no
    key file), when the database or the secret key is not there."""
    from pbem.store.database import NoStore, open_existing  # the store only when asked
    config = Config.from_environment(make_secret=False)
    open_existing(config.database_url)
    if not config.secret_key:
        raise NoStore(missing_secret_key())
    return config


HOSTILE = {"invitations_per_day": "PBEM_INVITATIONS_PER_DAY",
           "invitations_total_per_day": "PBEM_INVITATIONS_TOTAL_PER_DAY",
           "unconfirmed_per_hour": "PBEM_UNCONFIRMED_MAIL_PER_HOUR",
           "keep_unanswered_days": "PBEM_KEEP_UNANSWERED_DAYS",
           "keep_player_days": "PBEM_KEEP_PLAYER_MAIL_DAYS",
           "keep_sent_days": "PBEM_KEEP_SENT_MAIL_DAYS",
           "bounce_threshold": "PBEM_BOUNCE_THRESHOLD",
           "bot_games_per_player": "PBEM_BOT_GAMES_PER_PLAYER",
           "bot_games_total": "PBEM_BOT_GAMES_TOTAL"}


def _hostile_settings(get) -> dict[str, int]:
    """The limits and retention days (checked in CHECKS: whole numbers; days at least 1)."""
    return {name: int(get(variable) or getattr(Config, name))
            for name, variable in HOSTILE.items()}


def _file_text(path: str) -> str:
    """A secret kept in a file (a systemd credential, a mounted secret); '' for no path."""
    return Path(path).read_text().strip() if path else ""


def local_secret(workdir: Path) -> str:
    """A secret kept in `pbem-secret.key` beside the database when none is configured.

    Reply tokens must survive a restart, so a fresh machine gets one random key, written
    once, readable only by its owner.
    """
    path = secret_path(workdir)
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_hex(32)
    path.touch(mode=0o600)
    path.write_text(key + "\n")
    return key


def read_env_file(path: str | Path) -> dict[str, str]:
    """An environment file as systemd's EnvironmentFile= reads it: KEY=value a line, `#`
    and `;` start comments, one pair of surrounding quotes is dropped, and nothing is
    expanded (`$`, spaces and backslashes mean themselves). Raises SettingsError."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SettingsError([f"cannot read the environment file {path}: "
                             f"{getattr(error, 'strerror', None) or error}"]) from None
    settings, problems = {}, []
    for number, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith(("#", ";")):
            continue
        key, equals, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            problems.append(f"{path} line {number}: {line[:60]!r} is not KEY=value")
            continue
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        settings[key] = value
    if problems:
        raise SettingsError(problems)
    return settings
