"""Benchmarks: `python -m bench` prints throughput and memory. Never run by the tests."""


def emptied_postgres(url: str) -> str:
    """PBEM_BENCH_DATABASE_URL's database emptied (its public schema dropped and made
    again), so that each benchmark on it starts from an empty store, as on SQLite: `python
    -m bench` runs several on the one database. Returns the URL."""
    import psycopg
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("DROP SCHEMA public CASCADE")
        connection.execute("CREATE SCHEMA public")
    return url


def in_process_store(folder):
    """A server's settings for a benchmark run in process, on a new SQLite file in
    `folder`, with that store opened: mail kept in a maildir, no listener, no limit on
    mails an hour (a benchmark sends hundreds)."""
    from pathlib import Path

    from pbem.config import Config
    from pbem.store import open_database
    config = Config(domain="bench.test", secret_key="bench", rate_limit=10**9,
                    database_url=f"sqlite:///{Path(folder) / 'pbem.db'}",
                    maildir=str(Path(folder) / "mail"), smtp_listen="", http="127.0.0.1:0")
    open_database(config.database_url)
    return config
