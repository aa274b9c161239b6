"""Which databases the store tests run on: SQLite always, PostgreSQL when
PBEM_TEST_DATABASE_URL names one (`.ci/run` starts one and sets it)."""

import os
import threading

import pytest

POSTGRES = os.environ.get("PBEM_TEST_DATABASE_URL", "")
DATABASES = ["sqlite"] + (["postgresql"] * bool(POSTGRES))


def empty_postgres(url: str) -> None:
    import psycopg
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP SCHEMA public CASCADE")
        connection.execute("CREATE SCHEMA public")


def emptied(url: str):
    """The test's database emptied and migrated again, under the same URL: a second world
    for a test to compare with the first (same ids, same times)."""
    from pbem.store import open_database
    from pbem.store.models import database
    database.close()
    if url.startswith("sqlite:///"):
        path = url.removeprefix("sqlite:///")
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.remove(path + suffix)
    else:
        empty_postgres(url)
    return open_database(url)


def only_on(*kinds):
    """Run a test on these databases only (those configured): `@only_on("sqlite")`."""
    return pytest.mark.parametrize("store", [k for k in DATABASES if k in kinds],
                                   indirect=True)


def at_once(*calls):
    """Run each call in its own thread, all released at the same moment, each on its own
    database connection (as two processes would be); their results, or the first error."""
    from pbem.store.models import database
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)
    errors: list[BaseException] = []

    def run(index, call):
        try:
            barrier.wait(timeout=30)
            results[index] = call()
        except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
            errors.append(error)
        finally:
            database.close()  # this thread's own connection

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a call hangs"
    if errors:
        raise errors[0]
    return results


def first_start(workdir, url: str | None = None) -> str:
    """What the first `pbem worker` or `pbem serve` leaves in `workdir`: a migrated store
    (`pbem.db` there unless `url` names another) and the key file, made in this process
    and closed again, for the commands that refuse to make either. Returns the URL."""
    from pathlib import Path

    from pbem.config import local_secret
    from pbem.store import open_database
    from pbem.store.models import database
    url = url or f"sqlite:///{Path(workdir) / 'pbem.db'}"
    open_database(url).close()
    database.initialize(None)
    local_secret(Path(workdir))
    return url
