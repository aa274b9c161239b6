"""Players at players.test in the end-to-end tests: they write to Postfix over SMTP and
read their mail from Dovecot over IMAP, as a mail client does.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import smtplib
from dataclasses import dataclass
from email.message import EmailMessage

from dovecot_server import Dovecot
from loopback_services import PLAYERS_DOMAIN, wait_for
from postfix_server import Postfix

@dataclass
class MailPlayer:
    """Someone at players.test: sends through Postfix, reads over IMAP."""
    address: str
    postfix: Postfix
    dovecot: Dovecot
    sent: int = 0
    source: str = "127.0.0.1"  # the address the player's mail server sends from

    def mailbox(self) -> list[EmailMessage]:
        """Every message in the INBOX, oldest first (read without marking it seen)."""
        with self.dovecot.imap(self.address) as client:
            client.select_folder("INBOX", readonly=True)
            uids = sorted(client.search(["ALL"]))
            fetched = client.fetch(uids, ["BODY.PEEK[]"]) if uids else {}
        return [email.message_from_bytes(fetched[uid][b"BODY[]"], policy=email.policy.default)
                for uid in uids]

    def wait_for(self, text: str, what: str = "") -> EmailMessage:
        """The newest mail whose text holds `text`, once it has arrived."""
        def find():
            found = [m for m in self.mailbox() if text in body(m)]
            return found[-1] if found else None
        return wait_for(find, what or f"mail to {self.address} saying {text!r}",
                        log=self.postfix.log)

    def reply(self, text: str, to: EmailMessage, headers: dict[str, str] | None = None,
              cc: str | None = None, sender: str | None = None,
              to_address: str | None = None, envelope_sender: str | None = None
              ) -> EmailMessage:
        """Answer `to` as a mail client does: to its Reply-To, the original quoted
        (`headers`: more, written first, as a forger would put them; `cc`: a Reply-All's
        other address; `sender`: a From other than the player's, as a forger writes it;
        `to_address`: instead of the Reply-To; `envelope_sender`: MAIL FROM, if not the
        From)."""
        self.sent += 1
        message = EmailMessage()
        for name, value in (headers or {}).items():
            message[name] = value
        message["From"] = sender or self.address
        message["To"] = to_address or to["Reply-To"]
        if cc:
            message["Cc"] = cc
        message["Subject"] = "Re: " + to["Subject"]
        message["Message-ID"] = f"<{self.sent}.{self.address}@{PLAYERS_DOMAIN}>"
        message["Date"] = email.utils.formatdate()
        message["In-Reply-To"] = to["Message-ID"]
        quoted = "\n".join("> " + line for line in body(to).splitlines()[:6])
        message.set_content(f"{text}\n\nOn Monday, pbem wrote:\n{quoted}\n")
        with smtplib.SMTP("127.0.0.1", self.postfix.port, timeout=30,
                          source_address=(self.source, 0)) as smtp:
            smtp.send_message(message, from_addr=envelope_sender)
        return message


def body(message: EmailMessage) -> str:
    part = message.get_body(("plain",))
    return part.get_content() if part is not None else ""
