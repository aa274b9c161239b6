"""A submission server on loopback for the outbox's tests: aiosmtpd with STARTTLS or
implicit TLS and AUTH, its certificate signed by a throwaway CA made with the `openssl`
command in a temporary directory.

`Certificates(dir)` makes a CA and a certificate for 127.0.0.1 (and localhost) signed by
it, and a second, self-signed one nobody trusts. `SubmissionServer` keeps what it
receives, like tests/mailtest.py's Sink, and says who logged in.
"""

from __future__ import annotations

import email
import email.policy
import shutil
import ssl
import subprocess
import threading
from pathlib import Path

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

from mailtest import free_port

USER, PASSWORD = "pbem@pbem.test", "correct horse battery staple"


class Certificates:
    """ca.pem signs relay.pem (for 127.0.0.1 and localhost); stranger.pem signs itself."""

    def __init__(self, directory: Path):
        if shutil.which("openssl") is None:
            raise AssertionError("these tests make certificates with the openssl command; "
                                 "install openssl")
        self.dir = directory
        self.ca, self.ca_key = directory / "ca.pem", directory / "ca.key"
        self.cert, self.key = directory / "relay.pem", directory / "relay.key"
        self.stranger, self.stranger_key = directory / "stranger.pem", directory / "stranger.key"
        self._make()

    def _openssl(self, *args: str) -> None:
        subprocess.run(["openssl", *args], check=True, capture_output=True, timeout=60,
                       cwd=self.dir)

    def _make(self) -> None:
        key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        self._openssl("req", "-x509", *key, "-keyout", str(self.ca_key), "-out", str(self.ca),
                      "-days", "2", "-subj", "/CN=pbem test CA",
                      "-addext", "basicConstraints=critical,CA:TRUE",
                      "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        csr = self.dir / "relay.csr"
        self._openssl("req", *key, "-keyout", str(self.key), "-out", str(csr),
                      "-subj", "/CN=127.0.0.1")
        extensions = self.dir / "relay.ext"
        extensions.write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                              "basicConstraints=CA:FALSE\n"
                              "keyUsage=digitalSignature\n"
                              "extendedKeyUsage=serverAuth\n"
                              "subjectKeyIdentifier=hash\n"
                              "authorityKeyIdentifier=keyid\n")
        self._openssl("x509", "-req", "-in", str(csr), "-CA", str(self.ca), "-CAkey",
                      str(self.ca_key), "-CAcreateserial", "-out", str(self.cert),
                      "-days", "2", "-extfile", str(extensions))
        self._openssl("req", "-x509", *key, "-keyout", str(self.stranger_key),
                      "-out", str(self.stranger), "-days", "2", "-subj", "/CN=127.0.0.1",
                      "-addext", "subjectAltName=IP:127.0.0.1")

    def server_context(self, trusted: bool = True) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        if trusted:
            context.load_cert_chain(self.cert, self.key)
        else:
            context.load_cert_chain(self.stranger, self.stranger_key)
        return context


class SubmissionServer:
    """mode 'starttls' (STARTTLS required before AUTH and mail), 'tls' (implicit TLS) or
    'plain' (no TLS offered at all); AUTH PLAIN/LOGIN with USER and PASSWORD required."""

    def __init__(self, certificates: Certificates, mode: str, trusted: bool = True):
        self.port = free_port()
        self.mode = mode
        self.messages: list[tuple[list[str], email.message.EmailMessage]] = []
        self.logins: list[tuple[str, bool]] = []  # (user, accepted)
        self.tls_seen: list[bool] = []  # was each message received over TLS
        self.lock = threading.Lock()
        context = certificates.server_context(trusted)
        kwargs = dict(hostname="127.0.0.1", port=self.port, authenticator=self.authenticate,
                      auth_required=True)
        if mode == "starttls":
            kwargs.update(tls_context=context, require_starttls=True)
        elif mode == "tls":  # aiosmtpd cannot tell implicit TLS from none: AUTH on
            kwargs.update(ssl_context=context, auth_require_tls=False)
        else:
            kwargs.update(auth_require_tls=False)
        self.controller = Controller(self, **kwargs)

    def authenticate(self, server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword) and auth_data.login.decode() == USER
              and auth_data.password.decode() == PASSWORD)
        with self.lock:
            self.logins.append((auth_data.login.decode() if isinstance(auth_data, LoginPassword)
                                else "?", ok))
        return AuthResult(success=ok, handled=False)  # aiosmtpd says 535 when not ok

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.original_content or envelope.content,
                                           policy=email.policy.default)
        with self.lock:
            self.messages.append((list(envelope.rcpt_tos), message))
            self.tls_seen.append(session.ssl is not None or self.mode == "tls")
        return "250 2.0.0 OK: queued"

    def start(self) -> "SubmissionServer":
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"
