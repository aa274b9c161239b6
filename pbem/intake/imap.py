"""Mail in by IMAP polling: for a server without its own MX, pbem reads a mailbox.

When `PBEM_IMAP_HOST` is set, the scheduler runs `poll_mailbox` every
`PBEM_IMAP_INTERVAL` seconds: it logs in, looks for unseen messages in
`PBEM_IMAP_FOLDER`, and hands each one, raw, to the same inbound pipeline the SMTP and
LMTP listeners use. Only after the pipeline has stored a message is it marked \\Seen and
deleted from the mailbox, so a crash or a lost connection in between never loses mail;
it is fetched again at the next poll, and the pipeline drops the second copy by its
Message-ID. The mailbox must take every `pbem+TOKEN@` address of the domain (plus
addressing or a catch-all), since the token in the address routes the mail.

A message the pipeline cannot take (a bug, mail no parser reads) is marked \\Seen but
left in the mailbox for the administrator: it is not fetched again and again, and not
lost. When the database is unavailable, the poll stops and leaves the rest unseen.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from imapclient import IMAPClient

from pbem.config import Config
from pbem.intake.pipeline import TemporaryFailure, receive

log = logging.getLogger(__name__)

SEEN, DELETED = b"\\Seen", b"\\Deleted"
TIMEOUT = 60  # seconds for any one IMAP command: a hung server must not hang the job


@dataclass
class Poll:
    """What one poll did, for the log and the tests."""
    taken: int = 0  # stored by the pipeline, then removed from the mailbox
    kept: int = 0  # could not be read: marked seen, left for the administrator
    deferred: bool = False  # the store was unavailable: the rest waits for the next poll


def imap_configured(config: Config) -> bool:
    return bool(config.imap_host)


def connect(config: Config) -> IMAPClient:
    """A logged-in connection to the configured mailbox, its folder selected."""
    port = config.imap_port or (993 if config.imap_ssl else 143)
    client = IMAPClient(config.imap_host, port=port, ssl=config.imap_ssl, timeout=TIMEOUT)
    try:
        client.login(config.imap_user, config.imap_password)
        client.select_folder(config.imap_folder)
    except Exception:
        client.shutdown()
        raise
    return client


def poll_mailbox(config: Config) -> Poll:
    """Feed every unseen message of the mailbox to the pipeline, one at a time."""
    poll = Poll()
    client = connect(config)
    try:
        for uid in client.search(["UNSEEN", "NOT", "DELETED"]):
            if not take(config, client, uid, poll):
                poll.deferred = True
                break
        client.expunge()  # the deleted ones, also those a crash left flagged
    finally:
        try:
            client.logout()
        except Exception:  # the connection is gone anyway
            client.shutdown()
    if poll.taken or poll.kept:
        log.info("IMAP poll of %s: %d taken, %d kept unread", config.imap_folder,
                 poll.taken, poll.kept)
    return poll


def take(config: Config, client: IMAPClient, uid: int, poll: Poll) -> bool:
    """One message through the pipeline; False when the store asks to come back later."""
    # BODY.PEEK does not set \Seen: that flag is set only once the mail is stored.
    fetched = client.fetch([uid], ["BODY.PEEK[]"]).get(uid, {})
    raw = fetched.get(b"BODY[]")
    if raw is None:  # expunged by someone else meanwhile
        return True
    try:
        outcome = receive(config, raw)
    except TemporaryFailure as error:
        log.warning("IMAP message %s left for the next poll: %s", uid, error)
        return False
    except Exception:  # the pipeline records what it can; this mail could not even be read
        log.exception("IMAP message %s could not be taken; it stays in the mailbox, seen",
                      uid)
        client.add_flags([uid], [SEEN])
        poll.kept += 1
        return True
    log.debug("IMAP message %s: %s", uid, outcome)
    client.add_flags([uid], [SEEN, DELETED])
    poll.taken += 1
    return True
