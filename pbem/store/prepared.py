"""Queries written once by peewee and run again with new values, for the hot paths.

peewee writes a statement's SQL anew every time it runs, and that costs more than SQLite
running it: ~180 µs to write a 13-column SELECT of a game, ~8 µs to execute it. A move
by mail runs about twenty statements. A `Prepared` query is built by the same peewee
expression as before, once per kind of database, with a placeholder in place of each
value that changes; later runs bind the new values to the SQL kept from the first, and
read the rows through the first query's own row reader, so they come back exactly as
that query would return them (models, joined models, tuples).

Only for values the database takes as they are (ids, numbers, text, times): a
placeholder bypasses the field's conversion (`db_value`). `Creates` is `Model.create`
so: the row's defaults and every field's conversion applied as peewee applies them,
only the INSERT is not written anew.

    SEAT = Prepared(lambda game, number: Seat.select(Seat, Player).join(Player)
                    .where((Seat.game == game) & (Seat.number == number)))
    seat = SEAT.first(game_id, 0)
"""

from __future__ import annotations

import re
from typing import Callable

from peewee import (SQL, FieldAccessor, ForeignKeyAccessor, Model,
                    ModelDictCursorWrapper, ModelObjectCursorWrapper)

from pbem.store.handle import database

_MARK = re.compile(r"/\*pbem:(\d+)\*/")


class Prepared:
    """A query from `build(*placeholders)`, written once per kind of database."""

    def __init__(self, build: Callable):
        self.build = build
        self._written: dict = {}  # (database class, arity) -> _Written
        self._readers: dict = {}  # id(query) -> how its rows are read (_reader_setup)

    def _write(self, arity: int) -> "_Written":
        key = (type(database.obj), arity)
        written = self._written.get(key)
        if written is None:
            param = database.obj.param
            query = self.build(*(SQL(f"{param}/*pbem:{n}*/") for n in range(arity)))
            sql, constants = query.sql()
            # Each placeholder is peewee's next constant (a LIMIT, a fixed value) or
            # one of ours, marked with its argument's number.
            slots, constants, at = [], iter(constants), 0
            while (at := sql.find(param, at)) >= 0:
                mark = _MARK.match(sql, at + len(param))
                slots.append(int(mark.group(1)) if mark else (next(constants),))
                at += len(param)
            written = self._written[key] = _Written(query, _MARK.sub("", sql), tuple(slots),
                                                    arity)
        return written

    def _run(self, args: tuple):
        written = self._write(len(args))
        params = args if written.in_order else written.params(args)
        return written.query, database.obj.execute_sql(written.sql, params)

    def rows(self, *args) -> list:
        """Every row, as the query would return them."""
        query, cursor = self._run(args)
        setup = self._readers.get(id(query))
        if setup is None:  # the first run: peewee's reader works out the columns
            reader = query._get_cursor_wrapper(cursor)
            found = list(reader)
            if reader.initialized:
                self._readers[id(query)] = _reader_setup(reader)
            return found
        kind, reader = setup
        fetched = cursor.fetchall()
        cursor.close()
        if kind is _PLAIN_MODEL:
            return [_plain_model(reader, row) for row in fetched]
        return [reader.process_row(row) for row in fetched]

    def first(self, *args):
        """The first row, or None (write the LIMIT into the query when it matters)."""
        found = self.rows(*args)
        return found[0] if found else None

    def get(self, *args):
        """The first row; the model's DoesNotExist when there is none, as peewee's get."""
        found = self.first(*args)
        if found is None:
            query = self._write(len(args)).query
            raise query.model.DoesNotExist(f"no {query.model.__name__} matches {args}")
        return found

    def execute(self, *args) -> int:
        """Run an UPDATE or DELETE; the number of rows it changed."""
        return self._run(args)[1].rowcount

    def scalar(self, *args):
        """The first column of the first row (a count, an EXISTS), or None."""
        _, cursor = self._run(args)
        row = cursor.fetchone()
        return None if row is None else row[0]


class _Written:
    """One query's SQL, and where each of its parameters comes from."""
    __slots__ = ("query", "sql", "slots", "in_order")

    def __init__(self, query, sql: str, slots: tuple, arity: int):
        self.query, self.sql, self.slots = query, sql, slots
        # Most queries take their arguments as given, each once, in order: passed on
        # as they are.
        self.in_order = slots == tuple(range(arity))

    def params(self, args: tuple) -> list:
        return [args[slot] if isinstance(slot, int) else slot[0] for slot in self.slots]


# What a peewee row reader works out from its first row (the columns, their
# conversions, the models to build), the same for every run of one query: kept, so that
# a later run does not work it out again (a fifth of reading a row). The reader kept is
# a copy without the cursor: its `process_row` reads only what it worked out, and builds
# each row afresh, so later runs, in any thread, turn their rows with it.
_PER_CURSOR = {"cursor", "count", "index", "initialized", "populated", "row_cache"}
_PLAIN_MODEL = "plain model"  # rows of one model, every column one of its fields


def _reader_setup(reader) -> tuple:
    kept = object.__new__(type(reader))
    kept.__dict__.update((name, value) for name, value in reader.__dict__.items()
                         if name not in _PER_CURSOR)
    kept.initialized = True
    model = getattr(reader, "constructor", None)
    plain = (type(reader) is ModelObjectCursorWrapper and reader.is_model
             and model.__init__ is Model.__init__
             and all(type(_accessor(model, column)) in (FieldAccessor, ForeignKeyAccessor)
                     for column in reader.unique_columns))
    return (_PLAIN_MODEL if plain else None), kept


def _accessor(model, name: str):
    """What `instance.name = value` goes through on `model` (None: nothing)."""
    return next((k.__dict__[name] for k in model.__mro__ if name in k.__dict__), None)


def _plain_model(reader, row):
    """`reader.process_row(row)` for a row of one model: the values as peewee's reader
    gathers them, and the instance it would build from them (`Model(__no_default__=1,
    **values)`, its dirty set cleared) with the values set straight into `__data__`, as
    the field accessors set them."""
    instance = object.__new__(reader.constructor)
    instance.__data__ = ModelDictCursorWrapper.process_row(reader, row)
    instance._dirty = set()
    instance.__rel__ = {}
    return instance


class Creates:
    """`model.create(**values)` with its INSERT written once (see the module)."""

    def __init__(self, model):
        self.model = model
        self.fields = [f for f in model._meta.sorted_fields if f is not model._meta.primary_key]
        self.insert = Prepared(self._build)

    def _build(self, *marks):
        query = self.model.insert(dict(zip(self.fields, marks)))
        return query.returning(self.model._meta.primary_key) if database.returning_clause \
            else query

    def __call__(self, **values):
        row = self.model(**values)  # the defaults, as create() gives them
        data = row.__data__
        cursor = self.insert._run(tuple(f.db_value(data.get(f.name)) for f in self.fields))[1]
        row._pk = cursor.fetchone()[0] if database.returning_clause else cursor.lastrowid
        row._dirty.clear()
        return row


_SAVES: dict = {}  # (model, field names) -> Prepared UPDATE


def save_changed(row) -> None:
    """`row.save(only=row.dirty_fields)` for a stored row, its UPDATE written once per
    model and set of changed fields; each value converted as peewee converts it."""
    fields = tuple(row.dirty_fields)
    if not fields:
        return
    model = type(row)
    key = (model, tuple(f.name for f in fields))
    update = _SAVES.get(key)
    if update is None:
        update = _SAVES[key] = Prepared(lambda *marks: model.update(
            dict(zip(fields, marks[:-1]))).where(model._meta.primary_key == marks[-1]))
    update.execute(*(f.db_value(row.__data__.get(f.name)) for f in fields), row._pk)
    row._dirty -= {f.name for f in fields}
