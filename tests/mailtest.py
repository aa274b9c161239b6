"""Real mail for tests: an SMTP sink (aiosmtpd) standing in for the relay, and players
who read what it received and answer through the server's own SMTP listener.

No mocks: the server's listener and its delivery speak SMTP on loopback. The pipeline
finishes before the listener says 250, and the listener delivers the outbox right after,
so when a player's `send` returns, every answer is already in the sink.
"""

from __future__ import annotations

import email
import email.policy
import re
import smtplib
import socket
import threading
import time
from dataclasses import dataclass, field
from email.message import EmailMessage

from aiosmtpd.controller import Controller


def poll(check, what: str, timeout: float = 60):
    """`check()`'s first true answer, asked every 50 ms; fails after `timeout` seconds (a
    limit for a loaded machine, not a measurement: a pass takes far less)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"gave up waiting for {what}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Sink:
    """An SMTP server on loopback that keeps every message it receives."""

    def __init__(self):
        self.port = free_port()
        self.messages: list[tuple[list[str], EmailMessage]] = []
        self.lock = threading.Lock()
        self.controller = None

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content or envelope.content,
                                           policy=email.policy.default)
        with self.lock:
            self.messages.append((list(envelope.rcpt_tos), message))
        return "250 OK"

    def start(self) -> "Sink":
        self.controller = Controller(self, hostname="127.0.0.1", port=self.port)
        self.controller.start()
        return self

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [m for rcpt, m in self.messages if address.lower() in rcpt]


def body(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


def record_in(text: str) -> str:
    """The game record in a game-end mail's text: after its heading, up to the deal check
    (dealt games) or the signature."""
    record = text.replace("\r\n", "\n").split("The record of the game:", 1)[1]
    return record.split("Checking the deal", 1)[0].split("\n-- \n", 1)[0].strip("\n") + "\n"


def is_game_mail(message: EmailMessage) -> bool:
    """Whether a mail is a seat's (its reply address carries a game's seat token, not an
    account's `pbem+a-…` or a request's `pbem+r-…`)."""
    return re.match(r"pbem\+\d+-\d+-", str(message["Reply-To"] or "")) is not None


def latest_game_mail(person: "Player") -> EmailMessage:
    """The player's latest mail from one of their games: what they reply to with a move."""
    return next(m for m in reversed(person.inbox) if is_game_mail(m))


def html(message: EmailMessage) -> str:
    return message.get_body(("html",)).get_content()


@dataclass
class Player:
    """Someone with a mail address who reads their mail in the sink and answers it."""
    address: str
    sink: Sink
    server_port: int
    domain: str
    sent: int = 0
    read: int = field(default=0)
    secret: str = ""  # the server's PBEM_SECRET_KEY: their account's token is known

    @property
    def inbox(self) -> list[EmailMessage]:
        return self.sink.to(self.address)

    @property
    def last(self) -> EmailMessage:
        return self.inbox[-1]

    def unread(self) -> list[EmailMessage]:
        new = self.inbox[self.read:]
        self.read += len(new)
        return new

    def reply(self, text: str, to: EmailMessage | None = None, quote: bool = True,
              **headers) -> EmailMessage:
        """Answer `to` (default: the latest mail) the way a mail client does."""
        original = to if to is not None else self.last
        quoted = "\n".join("> " + line for line in body(original).splitlines()[:8])
        text = f"{text}\n\nOn Mon, 30 Nov 2026 at 10:00, pbem wrote:\n{quoted}\n" if quote else text
        message = self.compose(text, to=original["Reply-To"] or f"pbem@{self.domain}",
                               subject="Re: " + original["Subject"], **headers)
        message["In-Reply-To"] = original["Message-ID"]
        message["References"] = f"{original['References'] or ''} {original['Message-ID']}".strip()
        return self.send(message)

    def write(self, text: str, **headers) -> EmailMessage:
        """A new mail to pbem, as a player who has had mail from it writes one: to the
        reply address of pbem's latest mail to them that carries their account token
        (what their client's reply, or its address book, does: the token proves the
        mail theirs, pbem.authority), else to the server's own address."""
        return self.send(self.compose(text, to=self.account_address or f"pbem@{self.domain}",
                                      subject="pbem", **headers))

    def write_unproven(self, text: str, **headers) -> EmailMessage:
        """A new mail to the server's own address, `pbem@`: its From alone says who wrote."""
        return self.send(self.compose(text, to=f"pbem@{self.domain}", subject="pbem",
                                      **headers))

    @property
    def account_address(self) -> str | None:
        """The account reply address of pbem's latest mail to them that has one; for a
        confirmed player who has had no such mail yet, the one it would carry (the
        reply address of any mail pbem sends them: what `write` stands for)."""
        for message in reversed(self.inbox):
            reply_to = str(message["Reply-To"] or "")
            if reply_to.startswith("pbem+a-"):
                return reply_to
        if not self.secret:
            return None
        from pbem.vocabulary.tokens import account_token, reply_address
        from pbem.players import owner_of
        player = owner_of(self.address)
        if player is None or not player.confirmed:
            return None
        return reply_address(account_token(self.secret, player.id, player.links), self.domain)

    def compose(self, text: str, to: str, subject: str, **headers) -> EmailMessage:
        self.sent += 1
        message = EmailMessage()
        message["From"] = self.address
        message["To"] = to
        message["Subject"] = subject
        message["Message-ID"] = f"<{self.sent}.{self.address}.{id(self)}@client.test>"
        for name, value in headers.items():
            message[name.replace("_", "-")] = value
        message.set_content(text)
        return message

    def send(self, message: EmailMessage, sender: str | None = None) -> EmailMessage:
        with smtplib.SMTP("127.0.0.1", self.server_port, timeout=30) as smtp:
            smtp.send_message(message, from_addr=sender if sender is not None else self.address,
                              to_addrs=[str(message["To"]).split("<")[-1].strip(">")])
        return message
