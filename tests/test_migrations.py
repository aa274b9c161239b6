"""The migrations build exactly the schema the models describe, on SQLite and PostgreSQL.

The schema is only ever created by pbem/migrations/ (so that existing databases upgrade
in place); a field added to a model without its migration would work in no test that
creates tables from the models, and fail on the first real database. This compares what
the migrations made, column by column and index by index, with the models.
"""

import pytest

from pbem.store.models import MODELS, database


def _migrated_columns(table: str) -> dict[str, bool]:
    return {column.name: column.null for column in database.obj.get_columns(table)}


def _model_columns(model) -> dict[str, bool]:
    return {field.column_name: field.null for field in model._meta.sorted_fields}


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model._meta.table_name)
def test_every_table_has_the_models_columns(store, model):
    table = model._meta.table_name
    assert _migrated_columns(table) == _model_columns(model)


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model._meta.table_name)
def test_every_declared_index_exists(store, model):
    migrated = {(tuple(index.columns), index.unique)
                for index in database.obj.get_indexes(model._meta.table_name)}
    declared = {(tuple(model._meta.fields[name].column_name for name in fields), unique)
                for fields, unique in model._meta.indexes}
    declared |= {((field.column_name,), bool(field.unique))
                 for field in model._meta.sorted_fields
                 if (field.index or field.unique) and not field.primary_key}
    assert declared <= migrated, f"missing: {declared - migrated}"


def test_no_table_without_a_model(store):
    tables = set(database.obj.get_tables()) - {"pbem_schema"}
    assert tables == {model._meta.table_name for model in MODELS}
