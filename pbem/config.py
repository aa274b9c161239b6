"""The server's settings: one `Config` built from `PBEM_*` environment variables.

Every setting has a default that works on a fresh machine: loopback addresses, SQLite in
the working directory, mail kept in a local maildir when no relay is configured. The
`Config` is built once (`Config.from_environment()`) and passed down; nothing else reads
`os.environ`.
"""

from __future__ import annotations

import os
import secrets
from dataclasses import dataclass, replace
from pathlib import Path


def host_port(text: str, default_port: int) -> tuple[str, int]:
    """'127.0.0.1:2525' -> ('127.0.0.1', 2525); a bare host takes the default port."""
    host, _, port = text.rpartition(":") if ":" in text else (text, "", "")
    return host or "127.0.0.1", int(port) if port else default_port


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

    @property
    def address(self) -> str:
        return f"pbem@{self.domain}"

    @property
    def web_url(self) -> str:
        return self.base_url or f"http://{self.http}"

    @classmethod
    def from_environment(cls, environ=None, workdir: str | Path = ".") -> "Config":
        environ = os.environ if environ is None else environ
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
        )
        if not config.secret_key:
            config = replace(config, secret_key=local_secret(Path(workdir)))
        return config


def _file_text(path: str) -> str:
    """A secret kept in a file (a systemd credential, a mounted secret); '' for no path."""
    return Path(path).read_text().strip() if path else ""


def local_secret(workdir: Path) -> str:
    """A secret kept in `pbem-secret.key` beside the database when none is configured.

    Reply tokens must survive a restart, so a fresh machine gets one random key, written
    once, readable only by its owner.
    """
    path = workdir / "pbem-secret.key"
    if path.exists():
        return path.read_text().strip()
    key = secrets.token_hex(32)
    path.touch(mode=0o600)
    path.write_text(key + "\n")
    return key
