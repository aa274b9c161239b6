"""What an upgrade asks of the files an operator copied from deploy/ (#43 item 6):
CHANGELOG.md lists, per version, the ones that changed, and every such file is named in
some version's list; deploy/README.md's upgrade says to merge them. An upgrade from
573b333 (0.12.0) missed `pbem-worker@.service` and kept a `main.cf` line that makes
every `postconf` warn, because nothing said either had changed."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHANGELOG = (ROOT / "CHANGELOG.md").read_text()
COPIED = sorted(str(p.relative_to(ROOT / "deploy")) for p in (ROOT / "deploy").rglob("*")
                if p.is_file() and p.name != "README.md")


def deploy_lists() -> dict[str, str]:
    """Each version's "### deploy/" list, by version."""
    lists = {}
    for section in re.split(r"^## \[", CHANGELOG, flags=re.M)[1:]:
        version = section.split("]", 1)[0]
        found = re.search(r"^### deploy/\n(.*?)(?=^##|\Z)", section, re.M | re.S)
        if found:
            lists[version] = found.group(1)
    return lists


def test_every_file_an_operator_copies_is_in_some_versions_list():
    named = " ".join(deploy_lists().values())
    assert COPIED and [path for path in COPIED if f"`{path}`" not in named] == []


def test_this_versions_list_names_the_new_unit_and_the_postfix_line_to_take_out():
    unreleased = deploy_lists()["Unreleased"]
    assert "`systemd/pbem-worker@.service` (new)" in unreleased
    assert "`pbem-ingest_destination_recipient_limit = 1`" in unreleased
    assert "remove it from your\n  `main.cf`" in unreleased
    assert "`prometheus/pbem.rules.yml` (new)" in unreleased


def test_the_upgrade_says_to_merge_them():
    readme = (ROOT / "deploy" / "README.md").read_text()
    upgrades = readme.split("## Upgrades and schema migrations", 1)[1].split("\n## ", 1)[0]
    assert "**The files you copied from deploy/**" in upgrades
    assert "git diff OLD -- deploy/" in upgrades
