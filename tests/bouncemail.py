"""Delivery reports as relays write them, and a relay that keeps envelopes and refuses
what it is told to: for the bounce tests (test_bounces.py, test_bounces_counted.py).

`report` sends a literal report from the null sender through the server's real SMTP
listener; `EnvelopeSink` is the relay the outbox hands mail to.
"""

import email
import email.policy
import os
import smtplib
import subprocess
import sys

from mailtest import Sink

DSN = """\
From: MAILER-DAEMON@relay.example.org (Mail Delivery System)
To: {to}
Subject: Undelivered Mail Returned to Sender
Auto-Submitted: auto-replied
Message-ID: <{id}@relay.example.org>
MIME-Version: 1.0
Content-Type: multipart/report; report-type=delivery-status; boundary="B"

--B
Content-Type: text/plain

This is the mail system at host relay.example.org.
<{recipient}>: host mx.example.org said: {diagnostic}

--B
Content-Type: message/delivery-status

Reporting-MTA: dns; relay.example.org

Final-Recipient: rfc822; {recipient}
Original-Recipient: rfc822;{recipient}
Action: {action}
Status: {status}
Diagnostic-Code: smtp; {diagnostic}

--B
Content-Type: text/rfc822-headers

From: pbem <pbem@pbem.test>
To: bob <bob@example.org>
Subject: [pbem] Onyx #1: alice vs bob

--B--
"""

EXIM = """\
From: Mail Delivery System <Mailer-Daemon@mx.example.org>
To: {to}
Subject: Mail delivery failed: returning message to sender
Auto-Submitted: auto-replied
Message-ID: <{id}@mx.example.org>

This message was created automatically by mail delivery software.

A message that you sent could not be delivered to one or more of its
recipients. This is a permanent error. The following address(es) failed:

  {recipient}
    SMTP error from remote mail server after RCPT TO:<{recipient}>:
    {diagnostic}

------ This is a copy of the message, including all the headers. ------

From: pbem <pbem@pbem.test>
To: bob <bob@example.org>
Subject: [pbem] Onyx #1: alice vs bob
"""

QMAIL = """\
From: MAILER-DAEMON@mx.example.org
To: {to}
Subject: failure notice
Message-ID: <{id}@mx.example.org>

Hi. This is the qmail-send program at mx.example.org.
I'm afraid I wasn't able to deliver your message to the following addresses.
This is a permanent error; I've given up. Sorry it didn't work out.

<{recipient}>:
Sorry, no mailbox here by that name. (#5.1.1)

--- Below this line is a copy of the message.

From: pbem <pbem@pbem.test>
Subject: [pbem] Onyx #1: alice vs bob
"""

USER_UNKNOWN = "550 5.1.1 <bob@example.org>: User unknown"
GTUBE = "XJS*C4JDBQADN1.NSBN3*2IDNEN*GTUBE-STANDARD-ANTI-UBE-TEST-EMAIL*C.34X"


class EnvelopeSink(Sink):
    """The relay, keeping each message's envelope sender (its return path) too; it
    refuses the recipients in `refuse` with the reply given there, and at the end of
    DATA a message whose text quotes GTUBE, as a spam filter does."""

    def __init__(self):
        super().__init__()
        self.senders: list[tuple[str, list[str]]] = []
        self.refuse: dict[str, str] = {}

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        texts = [part.get_content() for part in message.walk()
                 if part.get_content_maintype() == "text"]
        if any(GTUBE in " ".join(text.split()) for text in texts):
            return "554 5.7.1 Message content rejected, UBE, id=1234"
        self.senders.append((envelope.mail_from, list(envelope.rcpt_tos)))
        return await super().handle_DATA(server, session, envelope)


def report(config, template: str, to: str, number: int = 1, action: str = "failed",
           status: str = "5.1.1", recipient: str = "bob@example.org",
           diagnostic: str = USER_UNKNOWN) -> None:
    """A relay's delivery report, from the null sender to `to`, through the listener."""
    text = template.format(to=to, id=f"report-{number}", action=action, status=status,
                           recipient=recipient, diagnostic=diagnostic)
    port = int(config.smtp_listen.rsplit(":", 1)[1])
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.sendmail("", [to], text.encode())


def last_return_path(sink, address: str) -> str:
    return [sender for sender, rcpts in sink.senders if address in rcpts][-1]


def outcome_of(number: int) -> str:
    from pbem.store import Inbound
    return Inbound.get(Inbound.message_id.contains(f"report-{number}@")).outcome


def run_pbem(*argv, cwd, env):
    """`python -m pbem ARGV…` with only these PBEM_* settings."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("PBEM_")}
    return subprocess.run([sys.executable, "-m", "pbem", *argv], cwd=cwd, env={**base, **env},
                          capture_output=True, text=True, timeout=120)
