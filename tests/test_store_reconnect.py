"""PostgreSQL: a connection the server drops (restart, failover) is opened again.

`pbem serve` keeps one connection per thread for as long as it runs; SQLite has no
connection to lose, so these tests run on PostgreSQL only (PBEM_TEST_DATABASE_URL).
"""

from email.message import EmailMessage

import psycopg

from databases import only_on
from pbem.operator.admin import start_game
from pbem.engines import ENGINES
from pbem.intake.pipeline import receive
from pbem.vocabulary.tokens import reply_address, seat_token
from pbem.store import Move
from pbem.store.models import database

PLAYERS = ["alice@example.org", "bob@example.org"]


def drop_connection(url: str) -> None:
    """What a server restart does to the connection this thread holds."""
    pid = database.execute_sql("SELECT pg_backend_pid()").fetchone()[0]
    with psycopg.connect(url, autocommit=True) as other:
        other.execute("SELECT pg_terminate_backend(%s)", (pid,))


@only_on("postgresql")
def test_mail_after_the_server_dropped_the_connection_is_played(config):
    game_id = start_game(config, ENGINES["onyx"], {}, PLAYERS)
    message = EmailMessage()
    message["From"] = PLAYERS[0]
    message["To"] = reply_address(seat_token(config.secret_key, game_id, 0), config.domain)
    message["Subject"] = "Re: [pbem] Onyx"
    message["Message-ID"] = "<after-restart@example.org>"
    message.set_content("F6\n")
    drop_connection(config.database_url)
    assert receive(config, bytes(message)) == "done: 1 line(s)"
    assert [m.text for m in Move.select()] == ["F6"]
