"""Mail in over the network: an SMTP listener (`pbem serve`) and an LMTP one for an MTA.

Both hand each message to the inbound pipeline in a worker thread (the pipeline talks to
the database and must not block the listener's event loop) and answer the sending server
only after the mail is stored: 250 when it was taken, 451 when the database is down so
the sender retries later. Only addresses of our own domain are accepted as recipients.

A mail with several of our addresses as recipients (To pbem@, Cc pbem+TOKEN@: a
Reply-All) goes through the pipeline once, with all of them, so the token routes it. An
LMTP server then answers once per accepted recipient (RFC 2033, 4.2), each with the
mail's outcome: a server that answers once leaves the MTA waiting for the rest until
it times out and delivers the mail again.

Each listener takes at most PBEM_MAX_CONNECTIONS connections at once, and at most
PBEM_MAX_CONNECTIONS_PER_CLIENT from one address; beyond that a client is answered 421
(try later) and the connection closed, so idle connections cannot use up the process's
file descriptors and stop the web and the other listener with it.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from typing import Callable

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP
from aiosmtpd.smtp import SMTP

from pbem.config import Config, host_port
from pbem.intake.pipeline import TemporaryFailure, receive


class PipelineHandler:
    """aiosmtpd handler: accept our addresses, feed each message to the pipeline."""

    def __init__(self, config: Config, after_receive: Callable[[], None] | None = None):
        self.config = config
        self.after_receive = after_receive or (lambda: None)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if not address.lower().endswith("@" + self.config.domain.lower()):
            return f"550 5.1.1 <{address}>: this server only takes mail for {self.config.domain}"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.original_content or envelope.content
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(None, receive, self.config, raw, envelope.mail_from,
                                       list(envelope.rcpt_tos))
        except TemporaryFailure:
            return "451 4.3.0 pbem cannot store mail just now; please try again later"
        self.after_receive()
        return "250 2.0.0 OK: taken"


class Doorman:
    """The open connections of one listener, in all and by client address. Used from the
    listener's event loop only, so it needs no lock."""

    def __init__(self, most: int, most_per_client: int):
        self.most, self.most_per_client = most, most_per_client
        self.open: Counter[str] = Counter()

    def admit(self, client: str) -> str | None:
        """None: come in (and be counted); otherwise the reply that turns the client away."""
        if sum(self.open.values()) >= self.most:
            return "421 4.7.0 pbem has too many connections just now; try again later"
        if self.open[client] >= self.most_per_client:
            return "421 4.7.0 too many connections from your address; try again later"
        self.open[client] += 1
        return None

    def leave(self, client: str) -> None:
        self.open[client] -= 1
        if self.open[client] <= 0:
            del self.open[client]


class CountedConnections:
    """Mixed into aiosmtpd's SMTP and LMTP: a new connection passes the Doorman first."""
    doorman: Doorman
    client = ""
    turned_away = False

    def connection_made(self, transport) -> None:
        if self.transport is None:  # a new connection (after STARTTLS it is the same one)
            peer = transport.get_extra_info("peername")
            self.client = str(peer[0]) if peer else ""
            refusal = self.doorman.admit(self.client)
            if refusal is not None:
                self.turned_away = True
                transport.write(refusal.encode() + b"\r\n")
                transport.close()
                return
        super().connection_made(transport)

    def connection_lost(self, error) -> None:
        if self.turned_away:
            return
        self.doorman.leave(self.client)
        super().connection_lost(error)

    def eof_received(self):
        return False if self.turned_away else super().eof_received()


class CountedSMTP(CountedConnections, SMTP):
    pass


class PerRecipientLMTP(CountedConnections, LMTP):
    """LMTP as RFC 2033 has it: after the data, one reply per accepted recipient, in
    their order. aiosmtpd's LMTP answers once; here every reply after the 354 (the
    handler's outcome, or aiosmtpd's own 552 for mail over the size limit) is said once
    for each recipient."""
    replies_due = 0  # recipients to answer, from the 354 on
    in_data = False

    async def smtp_DATA(self, arg: str) -> None:
        self.in_data = True
        try:
            await super().smtp_DATA(arg)
        finally:
            self.in_data, self.replies_due = False, 0

    async def push(self, status) -> None:
        text = status.decode() if isinstance(status, bytes) else status
        if self.replies_due:
            text = "\r\n".join([text] * self.replies_due)
        await super().push(text)
        if self.in_data and text.startswith("354"):
            self.replies_due = len(self.envelope.rcpt_tos)


class ListenerController(Controller):
    """aiosmtpd's controller, each connection counted by one Doorman."""

    def __init__(self, handler, doorman: Doorman, lmtp: bool = False, **kwargs):
        super().__init__(handler, **kwargs)
        self.doorman, self.lmtp = doorman, lmtp

    def factory(self):
        server = (PerRecipientLMTP if self.lmtp else CountedSMTP)(self.handler,
                                                                 **self.SMTP_kwargs)
        server.doorman = self.doorman
        return server


def start_listener(config: Config, listen: str, lmtp: bool = False,
                   after_receive: Callable[[], None] | None = None) -> Controller:
    """Start listening on `host:port` in a background thread; `.stop()` ends it."""
    host, port = host_port(listen, 24 if lmtp else 2525)
    # Far above the refusal limit: oversized mail is still read, kept and answered;
    # only absurd sizes are turned away at the door.
    hard_limit = max(10 * config.max_message_bytes, 10_000_000)
    doorman = Doorman(config.max_connections, config.max_connections_per_client)
    controller = ListenerController(PipelineHandler(config, after_receive), doorman,
                                    lmtp=lmtp, hostname=host, port=port,
                                    data_size_limit=hard_limit, server_hostname=config.domain)
    controller.start()
    return controller
