"""Which pbem this is: the version (CHANGELOG.md's newest release) and the commit, said
alike by `pbem --version`, `pbem status`, `/healthz` and `/metrics` (pbem/build.py).

The commit is read from git's own files; these tests lay out those files literally (a
branch as a loose ref, a packed one, a detached HEAD, a worktree) rather than trusting a
`git` on the machine, and check the checkout the tests run from against `git rev-parse`.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from pbem import __version__, build

ROOT = Path(__file__).resolve().parent.parent
A = "94d917296934a1b2c3d4e5f60718293a4b5c6d7e"
B = "0123456789abcdef0123456789abcdef01234567"


def test_the_version_is_the_changelogs_newest_release():
    changelog = (ROOT / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d\d-\d\d)$", changelog, re.M)
    assert releases[0][0] == __version__ == build.version()
    # newest first, each version once, dates never going forward down the file
    versions = [tuple(map(int, v.split("."))) for v, _ in releases]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    assert [d for _, d in releases] == sorted((d for _, d in releases), reverse=True)


def test_pyproject_takes_the_version_from_the_package():
    text = (ROOT / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in text
    assert 'version = { attr = "pbem.__version__" }' in text


def test_a_branch_held_as_a_loose_ref(tmp_path):
    (tmp_path / ".git" / "refs" / "heads").mkdir(parents=True)
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / ".git" / "refs" / "heads" / "main").write_text(A + "\n")
    assert build.checkout_commit(tmp_path) == A


def test_a_branch_held_in_packed_refs(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (tmp_path / ".git" / "packed-refs").write_text(
        f"# pack-refs with: peeled fully-peeled sorted\n{B} refs/heads/ops\n"
        f"{A} refs/heads/main\n")
    assert build.checkout_commit(tmp_path) == A


def test_a_detached_head(tmp_path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text(B + "\n")
    assert build.checkout_commit(tmp_path) == B


def test_a_worktree_reads_its_own_head_and_the_main_repositorys_refs(tmp_path):
    main = tmp_path / "main" / ".git"
    (main / "refs" / "heads").mkdir(parents=True)
    (main / "refs" / "heads" / "ops").write_text(B + "\n")
    own = main / "worktrees" / "wt-ops"
    own.mkdir(parents=True)
    (own / "HEAD").write_text("ref: refs/heads/ops\n")
    (own / "commondir").write_text("../..\n")
    tree = tmp_path / "wt-ops"
    tree.mkdir()
    (tree / ".git").write_text(f"gitdir: {own}\n")
    assert build.checkout_commit(tree) == B


@pytest.mark.parametrize("head", ["ref: refs/heads/gone\n", "not a commit\n"])
def test_no_commit_is_made_up(tmp_path, head):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "HEAD").write_text(head)
    assert build.checkout_commit(tmp_path) == ""
    assert build.checkout_commit(tmp_path / "elsewhere") == ""


def test_version_names_the_commit_of_the_checkout_it_runs_from(tmp_path):
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True, timeout=30).stdout.strip()
    assert re.fullmatch(r"[0-9a-f]{40}", head), "the tests run from a git checkout"
    done = subprocess.run([sys.executable, "-m", "pbem", "--version"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert done.stdout == f"pbem {__version__} (commit {head[:12]})\n"


def test_status_healthz_and_metrics_say_the_same(store, config, tmp_path, capsys):
    from test_metrics import scrape

    from pbem.operator.status import print_status
    from pbem.web import create_app
    lines = []
    print_status(config, out=lines.append, workdir=tmp_path)
    assert lines[1] == f"version:      pbem {build.describe()}"
    health = create_app(config).test_client().get("/healthz").get_json()
    assert (health["version"], health["commit"]) == (__version__, build.commit()[:12])
    assert scrape(config)[("pbem_build_info", ("commit", build.commit()[:12]),
                           ("version", __version__))] == 1
