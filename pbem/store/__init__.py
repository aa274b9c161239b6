"""The store: peewee models, opening SQLite or PostgreSQL, and schema migrations."""

from pbem.store.database import open_database, transaction
from pbem.store.models import (Address, Comment, Game, Inbound, Move, Outbox, Player,
                               Request, Seat, database)
from pbem.store.tables import MODELS

__all__ = ["open_database", "transaction", "MODELS", "Address", "Comment", "Game",
           "Inbound", "Move", "Outbox", "Player", "Request", "Seat", "database"]
