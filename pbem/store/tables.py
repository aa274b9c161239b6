"""Every table of the store, in one tuple: what migrations are generated from, what a
new database is made of and what the schema checks compare with (pbem.store.database)."""

from __future__ import annotations

from pbem.store.competition_models import (Entrant, Pairing, Rating, RatingChange, Seek,
                                           Tournament)
from pbem.store.models import (Address, Annotation, Annotator, Backup, Ban, Bounce, Clock,
                               Comment, Condition, CounterEvent, CounterTotal, Follow, Game,
                               Inbound, Invitation, Move, Notice, Outbox, PagePost, Player,
                               Refusal, Request, Seat, TimeControl, Vacation, Worker)

MODELS = (Player, Game, Seat, Move, Comment, Inbound, Outbox, Request,
          TimeControl, Clock, Vacation, Address, Invitation, Ban, Bounce, Refusal, Notice,
          Rating, RatingChange, Tournament, Entrant, Pairing, Seek, Follow, Condition,
          Annotation, Annotator, PagePost, CounterTotal, CounterEvent, Worker, Backup)
