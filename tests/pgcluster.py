"""A throwaway PostgreSQL cluster that asks for passwords, as a production one does.

The suite's own PostgreSQL (PBEM_TEST_DATABASE_URL, started by .ci/run) trusts every
connection; the tests of what an operator writes in PBEM_DATABASE_URL (a password with
`@ : / % #`, a wrong one) and of `pbem restore` need a server that checks the password
and a role that is not a superuser. `Cluster` starts one in a temporary directory on a
free loopback port (initdb refuses root: it then runs as the `postgres` user), with
scram-sha-256 over TCP and trust on its own Unix socket for the superuser's set-up.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from urllib.parse import quote

import pytest

from mailtest import free_port


def pg_bin() -> Path | None:
    """The newest PostgreSQL's programs (Debian keeps them per major version)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"),
                   key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit()
                   else 0)
    return found[-1].parent if found else None


class Cluster:
    """`with Cluster() as pg:` a running server; `pg.role("pbem", password)` makes a role
    owning a database of its name; `pg.url(...)` the URL an operator would write."""

    def __init__(self):
        self.bin = pg_bin()
        if self.bin is None:
            # as every program the tests drive: fail, never skip (README "The database")
            pytest.fail("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin): "
                        "apt install postgresql")
        self.dir = Path(tempfile.mkdtemp(prefix="pbem-pg-"))
        self.port = free_port()

    def _as_postgres(self, *command: str, **kwargs) -> subprocess.CompletedProcess:
        prefix = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        return subprocess.run(prefix + list(command), check=True, capture_output=True,
                              text=True, **kwargs)

    def __enter__(self) -> "Cluster":
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        self._as_postgres(str(self.bin / "initdb"), "-D", str(self.dir / "data"),
                          "-U", "postgres", "--auth-local=trust",
                          "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C.UTF-8")
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-l",
                          str(self.dir / "server.log"), "-w", "-t", "60", "start", "-o",
                          f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.dir} "
                          f"-c fsync=off")
        return self

    def __exit__(self, *exc) -> None:
        try:
            self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"),
                              "-m", "immediate", "stop")
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)

    def sql(self, statement: str, database: str = "postgres") -> str:
        """Run SQL as the superuser over the cluster's Unix socket."""
        return self._as_postgres(str(self.bin / "psql"), "-h", str(self.dir), "-p",
                                 str(self.port), "-U", "postgres", "-d", database, "-At",
                                 "-v", "ON_ERROR_STOP=1", "-c", statement).stdout

    def role(self, name: str, password: str) -> None:
        """A login role with `password` (no superuser), owning a database of its name."""
        literal = password.replace("'", "''")
        self.sql(f"CREATE ROLE {name} LOGIN PASSWORD '{literal}'")
        self.sql(f"CREATE DATABASE {name} OWNER {name} ENCODING 'UTF8' TEMPLATE template0")

    def url(self, user: str, password: str, database: str | None = None) -> str:
        """As deploy/README.md says to write it: the password %-encoded."""
        return (f"postgresql://{user}:{quote(password, safe='')}@127.0.0.1:{self.port}/"
                f"{database or user}")
