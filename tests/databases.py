"""Which databases the store tests run on: SQLite always, PostgreSQL when
PBEM_TEST_DATABASE_URL names one (`.ci/run` starts one and sets it)."""

import os

import pytest

POSTGRES = os.environ.get("PBEM_TEST_DATABASE_URL", "")
DATABASES = ["sqlite"] + (["postgresql"] * bool(POSTGRES))


def only_on(*kinds):
    """Run a test on these databases only (those configured): `@only_on("sqlite")`."""
    return pytest.mark.parametrize("store", [k for k in DATABASES if k in kinds],
                                   indirect=True)
