"""The templates a process started with, kept for as long as it runs.

A rolling upgrade installs the new version beside the running processes
(deploy/README.md, "Upgrades"): `pip install` replaces the files under the old web
and the old workers before they are restarted. A template read from disk after that is
the new version's, rendered by the old code: the new seat page named an endpoint the
old web did not have, and every `/play/…` link answered 500 until the web restarted. So
every template (mail bodies, pages, the stylesheet and scripts served beside them) is
read once, when the process starts, and served from memory: a process answers with its
own version's code and templates until it is restarted. They are 40 small files.
"""

from __future__ import annotations

from functools import cache

from jinja2 import DictLoader

from pbem import TEMPLATES


@cache
def snapshot() -> dict[str, str]:
    """Every template by its name (`web/seat.html`), read once per process."""
    return {path.relative_to(TEMPLATES).as_posix(): path.read_text(encoding="utf-8")
            for path in sorted(TEMPLATES.rglob("*")) if path.is_file()}


def loader() -> DictLoader:
    """A Jinja2 loader over the snapshot (the first call reads the files)."""
    return DictLoader(snapshot())


def source(name: str) -> str:
    """One file of the snapshot, for a file served as it is (the stylesheet, play.js)."""
    return snapshot()[name]
