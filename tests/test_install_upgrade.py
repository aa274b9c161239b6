"""The documented upgrade's install (`git pull && .venv/bin/pip install -q .`, in the same
checkout, deploy/README.md "Upgrades") leaves exactly the files of the version installed.

setuptools copies the packages into the checkout's build/lib and packs whatever is
there, so the install after a `git pull` carried the previous version's files that the
new one removed: pbem/engines/onyx.py beside pbem/engines/onyx/, the old pbem/mail/*.py,
a migration the new version dropped. Here an old tree (573b333, a version the issue
upgraded from) is installed from a directory, the directory is turned into this tree as
`git pull` would (tracked files replaced, build/ left), and installed again; the
installed files must be the wheel's.
"""

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path


ROOT = Path(__file__).resolve().parent.parent
OLD = "573b333"  # 0.14-era: pbem/engines/onyx.py, pbem/conversation.py, no onyx/ package


def git(*argv: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(ROOT), *argv], check=True, capture_output=True,
                          timeout=120, **kwargs)


def pip(python: Path, *argv: str) -> None:
    done = subprocess.run([str(python), "-m", "pip", *argv], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]


def this_tree(into: Path) -> None:
    """The working tree's files (tracked, and new ones not ignored), as a pull brings."""
    listed = git("ls-files", "-z", "--cached", "--others", "--exclude-standard").stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)


def installed(site: Path) -> set[str]:
    return {str(path.relative_to(site)) for top in ("pbem", "notation")
            for path in (site / top).rglob("*")
            if path.is_file() and "__pycache__" not in path.parts}


#: Files an old version had and this one removed, for a clone without OLD's history (a
#: shallow one): this tree with them added stands for the old version.
STALE = ("pbem/engines/onyx.py", "pbem/conversation.py", "pbem/migrations/0000_removed.py")


def old_tree(into: Path) -> None:
    """OLD's files where the clone has its history, else this tree with STALE added."""
    try:
        git("cat-file", "-e", f"{OLD}^{{commit}}")
    except subprocess.CalledProcessError:
        this_tree(into)
        for name in STALE:
            (into / name).write_text('"""Removed since."""\n')
        return
    archive = git("archive", "--format=tar", OLD).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)


def test_an_install_over_an_old_checkout_leaves_only_the_new_files(tmp_path):
    checkout = tmp_path / "pbem"
    checkout.mkdir()
    old_tree(checkout)
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / "venv")], check=True,
                   timeout=300)
    python = tmp_path / "venv" / "bin" / "python"
    pip(python, "install", "-q", "--no-deps", str(checkout))
    assert (checkout / "build" / "lib" / "pbem" / "engines" / "onyx.py").is_file()
    # git pull: the tracked files become this tree's (removed ones go); build/ stays
    for entry in checkout.iterdir():
        if entry.name != "build":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    this_tree(checkout)
    pip(python, "install", "-q", "--no-deps", str(checkout))

    wheels = tmp_path / "wheel"
    pip(Path(sys.executable), "wheel", "-q", "--no-deps", "-w", str(wheels), str(ROOT))
    (wheel,) = wheels.glob("pbem-*.whl")
    expected = {name for name in zipfile.ZipFile(wheel).namelist()  # (COMMIT: from .git,
                if name.startswith(("pbem/", "notation/")) and name != "pbem/COMMIT"}  # here none)
    site = next((tmp_path / "venv" / "lib").glob("python3*/site-packages"))
    got = installed(site)
    assert not sorted(got - expected), "files of the old version left installed"
    assert not sorted(expected - got)
    assert "pbem/engines/onyx/__init__.py" in got and "pbem/engines/onyx.py" not in got
    assert not os.path.exists(site / "pbem" / "conversation.py")
