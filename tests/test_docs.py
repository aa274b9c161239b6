"""The records shown in the documentation are real: each one passes `pbem record check`."""

import re
from pathlib import Path

import pytest

from notation.record import parse_record
from pbem.engines.game import Game

ROOT = Path(__file__).parent.parent
DOCS = sorted((ROOT / "notation").glob("*.md"))
RECORD_BLOCK = re.compile(r"```\n(\[Game .*?)```", re.S)


def records_in_docs():
    for doc in DOCS:
        for number, text in enumerate(RECORD_BLOCK.findall(doc.read_text())):
            yield pytest.param(text, id=f"{doc.name}#{number + 1}")


def test_the_docs_show_records():
    assert len(list(records_in_docs())) >= 2


@pytest.mark.parametrize("text", list(records_in_docs()))
def test_every_record_in_the_docs_checks(text):
    record = parse_record(text)
    Game.from_record(record).check_result(record)
