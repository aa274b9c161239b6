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

from peewee import (SQL, FieldAccessor, ForeignKeyAccessor, Model, ModelCursorWrapper,
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
        if kind is not None:  # models joined: _Joined
            return [kind.row(row) for row in fetched]
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
    if plain:
        return _PLAIN_MODEL, kept
    return (_Joined.of(kept) if type(reader) is ModelCursorWrapper else None), kept


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


class _Joined:
    """`reader.process_row(row)` for models joined (a seat with its player, the clocks
    with the game's time control): the instances built bare and their values set
    straight into `__data__`, as the field accessors set them (peewee builds each
    through `Model.__init__` and sets every column through `setattr`, a third of a
    move's row reading); then joined as peewee joins them, dirty sets cleared."""

    def __init__(self, reader, models: tuple, spec: tuple):
        self.reader, self.models, self.spec = reader, models, spec

    @classmethod
    def of(cls, reader) -> "_Joined | None":
        """How to read the reader's rows so; None where a column or a model is not plain
        (an alias, a value that is no field, a model with its own __init__)."""
        models = tuple((key, constructor) for key, constructor, is_model
                       in reader._constructor_list)
        if not all(is_model and constructor.__init__ is Model.__init__
                   for _, constructor, is_model in reader._constructor_list):
            return None
        spec = []
        for idx, key, column, converter in reader._row_spec:
            key = key if key in reader.key_to_constructor else reader.model
            accessor = _accessor(reader.key_to_constructor[key][0], column)
            if type(accessor) not in (FieldAccessor, ForeignKeyAccessor) \
                    or accessor.name != column:
                return None
            spec.append((idx, key, column, converter))
        return cls(reader, models, tuple(spec))

    def row(self, row):
        objects = {}
        for key, constructor in self.models:
            instance = objects[key] = object.__new__(constructor)
            instance.__data__, instance._dirty, instance.__rel__ = {}, set(), {}
        set_keys = set()
        for idx, key, column, converter in self.spec:
            value = row[idx]
            if value is not None:
                set_keys.add(key)
            objects[key].__data__[column] = value if converter is None else converter(value)
        reader = self.reader
        for src, attr, dest, is_dict, is_outer, is_fk in reader.src_to_dest:
            # peewee's ModelCursorWrapper.process_row, as it joins the instances
            instance, joined = objects.get(src), objects.get(dest)
            if joined is None and dest not in objects:
                continue
            assign = False
            if dest not in set_keys and dest in reader._dest_reachable:
                assign = bool(reader._dest_reachable[dest] & set_keys)
            if dest not in set_keys and not assign:
                if is_outer:
                    joined = None
                else:
                    continue
            if src not in set_keys and dest not in set_keys and is_outer:
                continue
            if is_dict:
                instance[attr] = joined
            elif is_fk and joined is None:
                instance.__rel__[attr] = None
            else:
                setattr(instance, attr, joined)
        for instance in objects.values():
            instance._dirty.clear()
        return objects[reader.model]


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
