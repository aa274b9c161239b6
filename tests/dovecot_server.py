"""A throwaway Dovecot for the end-to-end tests: the players' mailboxes, with LMTP (Postfix
delivers here) and IMAP (players read here), on loopback, from its own directory
(`dovecot -F -c FILE`).
"""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path

from imapclient import IMAPClient

from loopback_services import (SERVICE_USER, ServiceFailed, free_port, give_to_service_user,
                               listening, tail, terminate, wait_for)

PASSWORD = "loopback-only"  # every player's IMAP password


class Dovecot:
    """Dovecot with LMTP (Postfix delivers here) and IMAP (players read here)."""

    def __init__(self, root: Path, users: list[str]):
        self.root = root
        self.lmtp_port, self.imap_port = free_port(), free_port()
        self.users = list(users)
        self.process: subprocess.Popen | None = None

    @property
    def log_path(self) -> Path:
        return self.root / "dovecot.log"

    def log(self) -> str:
        return tail(self.log_path)

    def start(self) -> "Dovecot":
        if not Path("/usr/sbin/dovecot").exists():
            raise ServiceFailed("Dovecot is not installed (.ci/run installs dovecot-imapd "
                                "and dovecot-lmtpd)")
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "run").mkdir(exist_ok=True)
        mail = self.root / "mail"
        mail.mkdir(exist_ok=True)
        give_to_service_user(mail)
        self.write_users()
        conf = self.root / "dovecot.conf"
        conf.write_text(self.config())
        self.errors = open(self.root / "dovecot.err", "wb")
        self.process = subprocess.Popen(["/usr/sbin/dovecot", "-F", "-c", str(conf)],
                                        stdout=subprocess.DEVNULL, stderr=self.errors)
        try:
            wait_for(lambda: self.process.poll() is not None
                     or (listening(self.lmtp_port) and listening(self.imap_port)),
                     "Dovecot to listen", log=self.full_log)
        except AssertionError as error:
            self.stop()
            raise ServiceFailed(str(error)) from None
        if self.process.poll() is not None:
            raise ServiceFailed(f"Dovecot exited with {self.process.returncode}\n"
                                f"{self.full_log()}")
        return self

    def full_log(self) -> str:
        return self.log() + "\n" + tail(self.root / "dovecot.err")

    def write_users(self) -> None:
        """passwd-file: user:{PLAIN}password:uid:gid::home (mail as the unprivileged user)."""
        user = pwd.getpwnam(SERVICE_USER) if os.geteuid() == 0 else pwd.getpwuid(os.geteuid())
        lines = [f"{name}:{{PLAIN}}{PASSWORD}:{user.pw_uid}:{user.pw_gid}::"
                 f"{self.root / 'mail' / name}" for name in self.users]
        (self.root / "users").write_text("\n".join(lines) + "\n")

    def add_user(self, name: str) -> None:
        """Dovecot rereads the passwd-file when it changes."""
        self.users.append(name)
        self.write_users()

    def config(self) -> str:
        root = self.root
        return f"""\
# A throwaway Dovecot for tests: loopback only, plaintext logins (never beyond loopback).
base_dir = {root}/run
state_dir = {root}/state
log_path = {self.log_path}
protocols = imap lmtp
listen = 127.0.0.1
ssl = no
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:~/Maildir
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {root}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {root}/users
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {self.imap_port}
  }}
  inet_listener imaps {{
    port = 0
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {self.lmtp_port}
  }}
}}
service anvil {{
  chroot =
}}
"""

    def imap(self, user: str) -> IMAPClient:
        client = IMAPClient("127.0.0.1", port=self.imap_port, ssl=False, timeout=30)
        client.login(user, PASSWORD)
        return client

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process)  # Dovecot's master stops its children, then itself
            self.process = None
            self.errors.close()
