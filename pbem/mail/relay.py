"""The SMTP relay pbem's mail goes out through, and how pbem talks to it.

`PBEM_SMTP_TLS` says how: `starttls` (submission, port 587: plain connection, then
STARTTLS before anything else), `tls` (implicit TLS, port 465), or `no` (plain SMTP, for
a relay on loopback or a trusted network). Left empty, the relay's address decides:
port 465 is `tls`, a loopback host is `no`, anything else is `starttls` — mail to a
relay across a network is never sent in plain text unless the operator says so. The
relay's certificate is checked against the system's CAs, or `PBEM_SMTP_CA_FILE` for a
private CA, and must name the relay's host. With `PBEM_SMTP_USER`, pbem logs in (AUTH)
with `PBEM_SMTP_PASSWORD` or the password in `PBEM_SMTP_PASSWORD_FILE`, and never over a
plain connection to another machine.

What can go wrong is told apart, because the outbox acts on it differently:
`RelayUnavailable` (no connection, TLS or login failed, the relay refuses our sender):
nothing can go out now, every message waits; `Refused` (the relay answered one message
with an error): a 4xx is retried, a 5xx is permanent for that message and gives it up.
So does a 5.7.x policy refusal of a recipient ("relay access denied", "authentication
required"), although it is the relay's opinion of us rather than of the address: retried
for five days it would only hide a misconfigured relay, while mail given up raises the
operator's alert and goes again with `pbem outbox retry --all-failed` once the relay is
mended. Whose fault a refusal is, its status code says (`status`, pbem.vocabulary.statuses);
the policy counts only a failure of the mailbox against the player.
"""

from __future__ import annotations

import re
import smtplib
import ssl
from typing import Callable

from notation.text import clean_text
from pbem.config import Config, host_port, is_loopback
from pbem.vocabulary.statuses import reply_status

TIMEOUT = 30  # seconds for any one SMTP exchange
MODES = ("starttls", "tls", "no")
PORTS = {"starttls": 587, "tls": 465, "no": 25}


class RelayUnavailable(Exception):
    """Nothing can be sent just now (connection, TLS, login, our sender refused)."""


class Refused(Exception):
    """The relay answered one message with an error code."""

    def __init__(self, code: int, text: str, stage: str):
        self.code, self.text, self.stage = code, text, stage
        super().__init__(f"{code} {text} (after {stage})")

    @property
    def permanent(self) -> bool:
        """A 5xx: trying again would get the same answer."""
        return self.code >= 500

    @property
    def status(self) -> str:
        """Its enhanced status code ('5.1.1', '5.7.1'), or the reply code without one."""
        return reply_status(self.code, self.text)


def security(config: Config) -> str:
    """starttls, tls or no, as PBEM_SMTP_TLS says or, when empty, the relay's address."""
    if config.smtp_tls:
        if config.smtp_tls not in MODES:
            raise RelayUnavailable(f"PBEM_SMTP_TLS={config.smtp_tls!r} is not one of "
                                   f"{', '.join(MODES)}")
        return config.smtp_tls
    host, port = host_port(config.smtp_relay, 0)
    if port == 465:
        return "tls"
    return "no" if is_loopback(host) else "starttls"


def tls_context(config: Config) -> ssl.SSLContext:
    """Certificate and host name checked; a private CA from PBEM_SMTP_CA_FILE."""
    return ssl.create_default_context(cafile=config.smtp_ca_file or None)


class Relay:
    """One connection to the relay, opened at the first message, kept for a batch."""

    def __init__(self, config: Config):
        self.config = config
        self.mode = security(config)
        self.host, self.port = host_port(config.smtp_relay, PORTS[self.mode])
        self.smtp: smtplib.SMTP | None = None

    @property
    def name(self) -> str:
        return f"{self.host}:{self.port}"

    def connect(self) -> smtplib.SMTP:
        config, name = self.config, self.name
        try:
            if self.mode == "tls":
                smtp = smtplib.SMTP_SSL(self.host, self.port, timeout=TIMEOUT,
                                        context=tls_context(config))
            else:
                smtp = smtplib.SMTP(self.host, self.port, timeout=TIMEOUT)
        except ssl.SSLCertVerificationError as error:
            raise RelayUnavailable(_untrusted(name, error)) from error
        except (OSError, smtplib.SMTPException) as error:
            raise RelayUnavailable(f"cannot reach the relay {name}: {error}") from error
        try:
            self._greet(smtp)
        except BaseException:
            smtp.close()
            raise
        return smtp

    def _greet(self, smtp: smtplib.SMTP) -> None:
        config, name = self.config, self.name
        try:
            smtp.ehlo(config.domain)
            if self.mode == "starttls":
                if not smtp.has_extn("starttls"):
                    raise RelayUnavailable(
                        f"the relay {name} does not offer STARTTLS, and pbem sends nothing "
                        f"in plain text across a network: use its submission port (587) "
                        f"or PBEM_SMTP_TLS=tls for port 465; PBEM_SMTP_TLS=no only for a "
                        f"relay on a network you trust")
                smtp.starttls(context=tls_context(config))
                smtp.ehlo(config.domain)
            if config.smtp_user:
                self._log_in(smtp)
        except ssl.SSLCertVerificationError as error:
            raise RelayUnavailable(_untrusted(name, error)) from error
        except smtplib.SMTPAuthenticationError as error:
            raise RelayUnavailable(
                f"the relay {name} refused the login of PBEM_SMTP_USER={config.smtp_user} "
                f"({error.smtp_code} {_text(error.smtp_error)}): check PBEM_SMTP_PASSWORD "
                f"or PBEM_SMTP_PASSWORD_FILE") from error
        except (OSError, smtplib.SMTPException) as error:
            raise RelayUnavailable(f"the relay {name} failed at the greeting: {error}") from error

    def _log_in(self, smtp: smtplib.SMTP) -> None:
        config = self.config
        if self.mode == "no" and not is_loopback(self.host):
            raise RelayUnavailable(
                f"PBEM_SMTP_USER is set but PBEM_SMTP_TLS=no: pbem will not send the "
                f"password to {self.name} in plain text; use starttls or tls")
        if not smtp.has_extn("auth"):
            raise RelayUnavailable(f"the relay {self.name} offers no AUTH, but "
                                   f"PBEM_SMTP_USER={config.smtp_user} is set")
        smtp.user, smtp.password = config.smtp_user, config.smtp_password
        if "PLAIN" in smtp.esmtp_features["auth"].upper().split():
            # One try: smtplib's login() would go on to the next mechanism after a 535
            # and say only how the last one failed.
            smtp.auth("PLAIN", smtp.auth_plain)
        else:
            smtp.login(config.smtp_user, config.smtp_password)

    def send(self, sender: str, recipient: str, message: bytes,
             handed_over: Callable[[], None] = lambda: None) -> None:
        """Hand one message over; `handed_over()` runs once all of it is written to the
        relay and before its answer is read (from then on the relay may have it).

        Raises RelayUnavailable, Refused, or OSError/SMTPException for a connection lost
        mid-message (the message is retried, the connection opened again)."""
        if self.smtp is None:
            self.smtp = self.connect()
        smtp = self.smtp
        try:
            options = [f"SIZE={len(message)}"] if smtp.has_extn("size") else []
            code, text = smtp.mail(sender, options)
            if code != 250:
                raise RelayUnavailable(f"the relay {self.name} refused the sender {sender}: "
                                       f"{code} {_text(text)}")
            code, text = smtp.rcpt(recipient)
            if code not in (250, 251):
                raise Refused(code, _text(text), "RCPT TO")
            smtp.putcmd("data")
            code, text = smtp.getreply()
            if code != 354:
                raise Refused(code, _text(text), "DATA")
            smtp.send(dot_stuffed(message))
            handed_over()
            code, text = smtp.getreply()
            if code != 250:
                raise Refused(code, _text(text), "the message")
        except (Refused, RelayUnavailable):
            self._reset()
            raise
        except (OSError, smtplib.SMTPException):
            self.close()
            raise

    def _reset(self) -> None:
        """Ready for the next message after a refused one (or start afresh)."""
        try:
            self.smtp.rset()
        except (OSError, smtplib.SMTPException):
            self.close()

    def close(self) -> None:
        if self.smtp is not None:
            try:
                self.smtp.quit()
            except (OSError, smtplib.SMTPException):
                self.smtp.close()
            self.smtp = None


def dot_stuffed(message: bytes) -> bytes:
    """The DATA section as RFC 5321 (4.5.2) wants it: CRLF lines, a leading dot doubled,
    the lone dot at the end."""
    text = re.sub(rb"(?:\r\n|\n|\r(?!\n))", b"\r\n", message)
    text = re.sub(rb"(?m)^\.", b"..", text)
    if not text.endswith(b"\r\n"):
        text += b"\r\n"
    return text + b".\r\n"


def _untrusted(name: str, error: ssl.SSLCertVerificationError) -> str:
    return (f"the certificate of the relay {name} is not trusted "
            f"({error.verify_message or error}): for a private CA, name its certificate in "
            f"PBEM_SMTP_CA_FILE; PBEM_SMTP_RELAY must be the host the certificate names")


def _text(reply: bytes | str) -> str:
    """The relay's words on one line, kept without control characters (they are shown to
    the operator, and may quote what a stranger wrote)."""
    text = reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)
    return " ".join(clean_text(text).split())[:400]

