"""The SQLite connection's settings, as a server opens the store (pbem.store.database)."""

from pbem.store.database import open_database
from pbem.store.models import database


def test_sqlite_runs_in_wal_with_its_temporary_data_in_memory(tmp_path):
    open_database(f"sqlite:///{tmp_path}/pbem.db")
    try:
        def pragma(name):
            return database.execute_sql(f"PRAGMA {name}").fetchone()[0]
        assert pragma("journal_mode") == "wal"
        assert pragma("synchronous") == 1  # normal
        assert pragma("temp_store") == 2  # memory: a savepoint's pages never go to a file
        assert pragma("foreign_keys") == 1
    finally:
        database.obj.close()
        database.initialize(None)
