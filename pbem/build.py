"""Which pbem this is: the release and, where it can be known, the commit it was built from.

The release is `pbem.__version__` (pyproject.toml reads it from there; CHANGELOG.md says
what each one brought). The commit is read, in this order, from:

1. the git checkout the package runs from (an editable install, `python -m pbem` in the
   tree): its HEAD, read from the files under `.git` rather than by running git, which
   refuses a checkout owned by another user (the pbem user running root's /opt/pbem);
2. the file `pbem/COMMIT` that setup.py writes into a wheel built from a checkout (what
   `pip install .` in /opt/pbem installs, deploy/README.md);
3. pip's record of a `pip install git+https://…@COMMIT` (direct_url.json's vcs_info).

Otherwise it is unknown (''), and nothing pretends otherwise. `pbem --version`, `pbem
status`, `/healthz` and the `pbem_build_info` metric all say what this module says.
"""

from __future__ import annotations

import json
import re
from functools import cache
from importlib import metadata
from pathlib import Path

from pbem import __version__

PACKAGE = Path(__file__).resolve().parent
COMMIT_FILE = PACKAGE / "COMMIT"
SHORT = 12  # hex digits of a commit shown to people (unique in any repository this size)


def version() -> str:
    return __version__


@cache
def commit() -> str:
    """The full commit hash this code is, or '' when it cannot be known."""
    return (checkout_commit(PACKAGE.parent) or _file_commit() or _pip_commit())


def describe() -> str:
    """'0.17.0 (commit 94d9172a1b2c)', or '0.17.0' when the commit is unknown."""
    found = commit()
    return f"{version()} (commit {found[:SHORT]})" if found else version()


def info() -> dict[str, str]:
    """For JSON and metrics: {"version": "0.17.0", "commit": "94d9…" or ""}."""
    return {"version": version(), "commit": commit()[:SHORT]}


def checkout_commit(root: Path) -> str:
    """HEAD of the git checkout at `root` ('' when it is none), from git's own files: a
    `.git` directory or a worktree's `.git` file, a detached HEAD or a branch whose ref is
    a loose file or a line of packed-refs."""
    gitdir = _gitdir(root)
    if gitdir is None:
        return ""
    try:
        head = (gitdir / "HEAD").read_text().strip()
        if not head.startswith("ref:"):
            return head if _is_hash(head) else ""
        ref = head.split(":", 1)[1].strip()
        common = gitdir
        if (gitdir / "commondir").is_file():  # a worktree keeps its refs in the main .git
            common = (gitdir / (gitdir / "commondir").read_text().strip()).resolve()
        for place in (gitdir, common):
            loose = place / ref
            if loose.is_file():
                found = loose.read_text().strip()
                return found if _is_hash(found) else ""
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                found, _, name = line.partition(" ")
                if name == ref and _is_hash(found):
                    return found
    except OSError:  # unreadable to this user: unknown, not a failure
        return ""
    return ""


def _gitdir(root: Path) -> Path | None:
    dot_git = root / ".git"
    try:
        if dot_git.is_dir():
            return dot_git
        if dot_git.is_file():  # `gitdir: /path/.git/worktrees/NAME`
            text = dot_git.read_text().strip()
            if text.startswith("gitdir:"):
                return (root / text.split(":", 1)[1].strip()).resolve()
    except OSError:
        pass
    return None


def _is_hash(text: str) -> bool:
    return re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", text) is not None


def _file_commit() -> str:
    try:
        found = COMMIT_FILE.read_text().strip()
    except OSError:
        return ""
    return found if _is_hash(found) else ""


def _pip_commit() -> str:
    try:
        text = metadata.distribution("pbem").read_text("direct_url.json")
    except metadata.PackageNotFoundError:
        return ""
    try:
        found = json.loads(text or "{}").get("vcs_info", {}).get("commit_id", "")
    except (ValueError, AttributeError):
        return ""
    return found if isinstance(found, str) and _is_hash(found) else ""
