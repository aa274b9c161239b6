"""The sender checks of PBEM_AUTHSERV_ID for the end-to-end tests: an authoritative DNS
server for the test domains on loopback (SPF and DMARC records) and OpenDMARC run from
deploy/opendmarc/opendmarc.conf with that DNS server as its resolver.
"""

from __future__ import annotations

import secrets
import shutil
import socket
import subprocess
import threading

from deployed_pbem import Site
from loopback_services import (SERVICE_USER, ServiceFailed, free_port, listening, tail,
                               terminate, wait_for)

class LoopbackDNS:
    """An authoritative DNS server for the test domains on port 53 of a loopback address
    of its own: TXT records (SPF, DMARC) from `records`; a name it does not hold is
    NXDOMAIN. Just enough of RFC 1035 for OpenDMARC's lookups."""

    def __init__(self, records: dict[str, list[str]]):
        self.records = {name.lower().rstrip("."): texts for name, texts in records.items()}
        self.address = f"127.53.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}"
        self.socket = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.socket.bind((self.address, 53))
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.questions: list[tuple[str, int]] = []

    def start(self) -> "LoopbackDNS":
        self.thread.start()
        return self

    def _serve(self) -> None:
        while True:
            try:
                query, client = self.socket.recvfrom(4096)
            except OSError:  # closed by stop()
                return
            try:
                self.socket.sendto(self.answer(query), client)
            except (OSError, ValueError, IndexError):
                continue

    def answer(self, query: bytes) -> bytes:
        labels, offset = [], 12
        while query[offset]:
            length = query[offset]
            labels.append(query[offset + 1:offset + 1 + length].decode("ascii").lower())
            offset += 1 + length
        qtype = int.from_bytes(query[offset + 1:offset + 3], "big")
        question = query[12:offset + 5]
        name = ".".join(labels)
        self.questions.append((name, qtype))
        texts = self.records.get(name)
        answers = b""
        if texts is not None and qtype in (16, 255):  # TXT, ANY
            for text in texts:
                data = bytes([len(text)]) + text.encode("ascii")
                answers += (b"\xc0\x0c" + (16).to_bytes(2, "big") + (1).to_bytes(2, "big")
                            + (60).to_bytes(4, "big") + len(data).to_bytes(2, "big") + data)
        rcode = 3 if texts is None else 0  # NXDOMAIN, or NOERROR (perhaps no answer)
        flags = 0x8400 | (query[2] & 0x01) << 8 | rcode  # response, authoritative, RD copied
        count = answers.count(b"\xc0\x0c") if answers else 0
        header = (query[:2] + flags.to_bytes(2, "big") + (1).to_bytes(2, "big")
                  + count.to_bytes(2, "big") + bytes(4))
        return header + question + answers

    def stop(self) -> None:
        self.socket.close()


class OpenDMARC:
    """deploy/opendmarc/opendmarc.conf as installed, with the operator's values replaced,
    run in the foreground; its resolver is the LoopbackDNS (a mount namespace of its own
    with its own /etc/resolv.conf: nothing else on the machine is touched)."""

    def __init__(self, site: Site, authserv_id: str, dns: LoopbackDNS):
        self.site, self.dns = site, dns
        self.root = site.root / "opendmarc"
        self.port = free_port()
        self.authserv_id = authserv_id
        self.process: subprocess.Popen | None = None

    def start(self) -> "OpenDMARC":
        if shutil.which("opendmarc") is None:
            raise ServiceFailed("OpenDMARC is not installed (apt-get install opendmarc)")
        self.root.mkdir(parents=True, exist_ok=True)
        self.root.chmod(0o777)  # it writes its pid file after switching to the user
        conf = self.site.deployed("opendmarc/opendmarc.conf")
        for operator_value, here in (("mx.example.org", self.authserv_id),
                                     ("inet:8893@127.0.0.1", f"inet:{self.port}@127.0.0.1"),
                                     ("/run/opendmarc/opendmarc.pid",
                                      str(self.root / "opendmarc.pid")),
                                     ("UserID opendmarc", f"UserID {SERVICE_USER}"),
                                     ("Syslog true", "Syslog false")):
            if operator_value not in conf:
                raise AssertionError(f"deploy/opendmarc/opendmarc.conf has no {operator_value}")
            conf = conf.replace(operator_value, here)
        (self.root / "opendmarc.conf").write_text(conf)
        (self.root / "resolv.conf").write_text(f"nameserver {self.dns.address}\n")
        self.errors = open(self.root / "opendmarc.err", "wb")
        script = (f"mount --bind {self.root / 'resolv.conf'} /etc/resolv.conf && "
                  f"exec opendmarc -f -c {self.root / 'opendmarc.conf'}")
        self.process = subprocess.Popen(["unshare", "--mount", "sh", "-c", script],
                                        stdout=self.errors, stderr=subprocess.STDOUT)
        try:
            wait_for(lambda: self.process.poll() is not None or listening(self.port),
                     "OpenDMARC to listen", log=self.log)
        except AssertionError as error:
            self.stop()
            raise ServiceFailed(str(error)) from None
        if self.process.poll() is not None:
            raise ServiceFailed(f"OpenDMARC exited with {self.process.returncode}\n{self.log()}")
        return self

    def log(self) -> str:
        return tail(self.root / "opendmarc.err")

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process)
            self.process = None
            self.errors.close()
