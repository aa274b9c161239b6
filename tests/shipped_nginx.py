"""The shipped nginx configuration (deploy/nginx/pbem.conf) run on loopback, in front of
a pbem web server, for tests of what reaches the app through it.

Its HTTPS server block is used as it is, with what a test machine must change: it
listens on two loopback ports without TLS (TLS decides nothing here), passes to the
app's port, and lets in one monitor machine (`allow 198.51.100.7;`, the edit the
block's comment asks of an operator with a monitor elsewhere). Requests from other
machines are stood in for by the PROXY protocol on the second port: the test says
which address a request comes from, and nginx (its realip module, trusting loopback
only) takes it as the client's, as it would take a real one's; the first port takes
plain loopback requests. nginx runs from a temporary directory (`-p`, `-e`), not as
a daemon, and `stop()` ends it even after a failure.
"""

from __future__ import annotations

import grp
import http.client
import os
import pwd
import re
import subprocess
from pathlib import Path

from loopback_services import free_port, listening, tail, terminate, wait_for

REPO = Path(__file__).resolve().parent.parent
SHIPPED = REPO / "deploy" / "nginx" / "pbem.conf"
NGINX = "/usr/sbin/nginx"
MONITOR = "198.51.100.7"  # the operator's monitor machine, let into the two blocks
TIMEOUT = 5  # seconds for one request: generous on loopback


def served_block(app_port: int, plain: int, proxied: int) -> str:
    """The shipped HTTPS server block, changed only as the module's docstring says."""
    blocks = re.findall(r"^server \{\n.*?^\}\n", SHIPPED.read_text(), re.S | re.M)
    block = next(block for block in blocks if "listen 443" in block)
    edits = [(r"    listen 443 ssl http2;\n", f"    listen 127.0.0.1:{plain};\n"
              f"    listen 127.0.0.1:{proxied} proxy_protocol;\n"
              "    set_real_ip_from 127.0.0.1;\n    real_ip_header proxy_protocol;\n"),
             (r"    listen \[::\]:443 ssl http2;\n", ""),
             (r"    ssl_[a-z_]+ [^\n]*;\n", ""),
             (r"http://127\.0\.0\.1:8000;", f"http://127.0.0.1:{app_port};"),
             (r"        allow ::1;\n", f"        allow ::1;\n        allow {MONITOR};\n")]
    for pattern, replacement in edits:
        block, found = re.subn(pattern, replacement, block)
        assert found, f"deploy/nginx/pbem.conf changed: no {pattern!r} to replace"
    return block


class Nginx:
    """nginx with the shipped block, in front of the app on `app_port`."""

    def __init__(self, app_port: int, root: Path):
        self.app_port = app_port
        self.plain, self.proxied = free_port(), free_port()
        self.root = root  # its configuration, pid, logs and temp files
        self.process: subprocess.Popen | None = None

    def config(self) -> str:
        user = pwd.getpwuid(os.geteuid()).pw_name  # as root, workers stay root: the
        group = grp.getgrgid(os.getegid()).gr_name  # temp dirs are root's (else ignored)
        temp = "\n".join(f"    {kind}_temp_path {self.root}/{kind};"
                         for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        return (f"user {user} {group};\nworker_processes 1;\npid {self.root}/nginx.pid;\n"
                f"events {{ worker_connections 64; }}\nhttp {{\n"
                f"    access_log {self.root}/access.log;\n{temp}\n"
                f"{served_block(self.app_port, self.plain, self.proxied)}}}\n")

    def log(self) -> str:
        return tail(self.root / "error.log")

    def start(self) -> "Nginx":
        self.root.mkdir(parents=True, exist_ok=True)
        conf = self.root / "nginx.conf"
        conf.write_text(self.config())
        self.process = subprocess.Popen(
            [NGINX, "-p", str(self.root), "-e", str(self.root / "error.log"),
             "-c", str(conf), "-g", "daemon off;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: self.process.poll() is not None or (
            listening(self.plain) and listening(self.proxied)), "nginx", log=self.log)
        if self.process.poll() is not None:
            raise AssertionError(f"nginx did not start\n{self.log()}")
        return self

    def stop(self) -> None:
        if self.process is not None:
            terminate(self.process)

    def status(self, path: str, headers: dict, client: str | None = None) -> int:
        """The status nginx answers `path` with: asked on loopback, or from `client`."""
        if client is None:
            connection = http.client.HTTPConnection("127.0.0.1", self.plain, timeout=TIMEOUT)
        else:
            connection = FromAddress("127.0.0.1", self.proxied, client)
        return ask(connection, path, headers)


class FromAddress(http.client.HTTPConnection):
    """A connection that says, in the PROXY protocol's first line, it comes from `client`."""

    def __init__(self, host: str, port: int, client: str):
        super().__init__(host, port, timeout=TIMEOUT)
        self.client = client

    def connect(self) -> None:
        super().connect()
        self.sock.sendall(f"PROXY TCP4 {self.client} 127.0.0.1 40000 {self.port}\r\n"
                          .encode())


def ask(connection: http.client.HTTPConnection, path: str, headers: dict) -> int:
    """GET `path` with `headers`, once, bounded in time; its status."""
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()
