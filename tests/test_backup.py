"""`pbem backup`: a consistent copy while pbem runs, and the restore the README describes
(deploy/README.md, Backups): back up, restore into a new file, open it, the game is there.

SQLite through the online backup API; PostgreSQL through pg_dump and pg_restore when
PBEM_TEST_DATABASE_URL names a database (the store fixture runs each test on both).
"""

import os
import shutil
import subprocess
import sys

import pytest

from databases import POSTGRES
from pbem.operator.admin import start_game
from pbem.operator.backup import BackupError, backup
from pbem.engines import ENGINES
from pbem.play import Table
from pbem.store import Game, Move, open_database, transaction
from pbem.store.models import database

TIMEOUT = 120


@pytest.fixture
def played(config):
    """An Onyx game with two moves in it: F6, G5."""
    game_id = start_game(config, ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    with transaction():
        table = Table.load(game_id)
        table.play(0, "F6")
        table.play(1, "G5")
    return game_id


def reopened_moves(url: str, game_id: int) -> list[str]:
    database.close()
    open_database(url)
    return [m.text for m in Move.select().where(Move.game == game_id).order_by(Move.ply)]


def test_a_backup_restored_into_a_new_database_holds_the_game(played, config, tmp_path):
    target = tmp_path / "backups"
    target.mkdir()
    made = backup(config.database_url, target)
    assert made.parent == target and made.name.startswith("pbem-")
    if config.database_url.startswith("sqlite"):
        assert made.suffix == ".db"
        restored = tmp_path / "restored" / "pbem.db"  # the README: install the copy
        restored.parent.mkdir()
        shutil.copyfile(made, restored)
        url = f"sqlite:///{restored}"
    else:
        assert made.suffix == ".dump"
        database.close()
        from databases import empty_postgres
        empty_postgres(POSTGRES)  # the README: pg_restore --clean into the database
        done = subprocess.run(["pg_restore", "--no-owner", "--dbname", POSTGRES, str(made)],
                              capture_output=True, text=True, timeout=TIMEOUT)
        assert done.returncode == 0, done.stderr
        url = POSTGRES
    assert reopened_moves(url, played) == ["F6", "G5"]
    assert Game.get_by_id(played).status == "running"


def test_pbem_backup_writes_a_dated_file_and_leaves_other_files_alone(played, config,
                                                                       tmp_path):
    target = tmp_path / "backups"
    target.mkdir()
    (target / "notes.txt").write_text("mine")
    env = {**os.environ, "PBEM_DATABASE_URL": config.database_url}
    done = subprocess.run([sys.executable, "-m", "pbem", "backup", str(target), "--keep", "1"],
                          env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr
    made = sorted(p.name for p in target.iterdir())
    assert len(made) == 2 and made[0] == "notes.txt" and made[1].startswith("pbem-")
    assert done.stdout == f"backed up to {target / made[1]}\n"


def test_old_generations_beyond_keep_are_removed(played, config, tmp_path):
    import datetime as dt
    target = tmp_path / "backups"
    target.mkdir()
    for day in range(1, 5):
        backup(config.database_url, target, keep=2, now=dt.datetime(2026, 11, day, 3, 15))
    suffix = "db" if config.database_url.startswith("sqlite") else "dump"
    assert sorted(p.name for p in target.iterdir()) == [
        f"pbem-20261103-031500.{suffix}", f"pbem-20261104-031500.{suffix}"]


def test_keep_with_a_file_name_is_refused_rather_than_ignored(played, config, tmp_path):
    with pytest.raises(BackupError, match="prunes the dated backups in a directory"):
        backup(config.database_url, tmp_path / "tonight.db", keep=3)
    assert not any(p.name.startswith((".tonight", "tonight")) for p in tmp_path.iterdir())


def test_two_backups_to_one_name_at_once_each_finish_whole(played, config, tmp_path):
    """A cron backup and one by hand, to the same file at the same moment: each writes
    its own temporary file, so neither removes or renames the other's half copy."""
    from databases import at_once
    target = tmp_path / "tonight.backup"
    made = at_once(lambda: backup(config.database_url, target),
                   lambda: backup(config.database_url, target))
    assert made == [target, target]
    assert [p.name for p in tmp_path.iterdir() if "partial" in p.name] == []
    if config.database_url.startswith("sqlite"):
        assert reopened_moves(f"sqlite:///{target}", played) == ["F6", "G5"]


def test_a_database_whose_path_has_a_hash_is_backed_up(tmp_path):
    from pbem.config import Config
    home = tmp_path / "games #1"
    home.mkdir()
    url = f"sqlite:///{home / 'pbem.db'}"
    open_database(url)
    start_game(Config(domain="pbem.test", secret_key="k", database_url=url),
               ENGINES["onyx"], {}, ["alice@example.org", "bob@example.org"])
    made = backup(url, tmp_path / "copy.db")
    database.close()
    open_database(f"sqlite:///{made}")
    assert Game.select().count() == 1
    database.close()
    database.initialize(None)


def test_a_missing_sqlite_file_is_not_made_by_a_backup(tmp_path):
    with pytest.raises(BackupError, match="there is no database file"):
        backup(f"sqlite:///{tmp_path / 'pbem.db'}", tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_a_backup_taken_during_a_write_holds_only_what_was_committed(played, config,
                                                                      tmp_path):
    with transaction():  # a move being played while the backup runs
        Table.load(played).play(0, "E5")
        made = backup(config.database_url, tmp_path / "during.bak")
    if config.database_url.startswith("sqlite"):
        assert reopened_moves(f"sqlite:///{made}", played) == ["F6", "G5"]
    else:
        listing = subprocess.run(["pg_restore", "--data-only", "--table", "move", "--file",
                                  "-", str(made)], capture_output=True, text=True,
                                 timeout=TIMEOUT).stdout
        assert "\tF6\t" in listing and "\tE5\t" not in listing
