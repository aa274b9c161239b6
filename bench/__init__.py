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
