"""Mail in over the network: an SMTP listener (`pbem serve`) and an LMTP one for an MTA.

Both hand each message to the inbound pipeline in a worker thread (the pipeline talks to
the database and must not block the listener's event loop) and answer the sending server
only after the mail is stored: 250 when it was taken, 451 when the database is down so
the sender retries later. Only addresses of our own domain are accepted as recipients.
"""

from __future__ import annotations

import asyncio
from typing import Callable

from aiosmtpd.controller import Controller
from aiosmtpd.lmtp import LMTP

from pbem.config import Config, host_port
from pbem.mail.pipeline import TemporaryFailure, receive


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


class LMTPController(Controller):
    def factory(self):
        return LMTP(self.handler, **self.SMTP_kwargs)


def start_listener(config: Config, listen: str, lmtp: bool = False,
                   after_receive: Callable[[], None] | None = None) -> Controller:
    """Start listening on `host:port` in a background thread; `.stop()` ends it."""
    host, port = host_port(listen, 24 if lmtp else 2525)
    controller_class = LMTPController if lmtp else Controller
    # Far above the refusal limit: oversized mail is still read, kept and answered;
    # only absurd sizes are turned away at the door.
    hard_limit = max(10 * config.max_message_bytes, 10_000_000)
    controller = controller_class(PipelineHandler(config, after_receive), hostname=host,
                                  port=port, data_size_limit=hard_limit,
                                  server_hostname=config.domain)
    controller.start()
    return controller
