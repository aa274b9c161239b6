"""What pyproject.toml cannot say: a wheel built from a git checkout carries the commit
it was built from, as the file pbem/COMMIT, so that an installed pbem names it
(`pbem --version`, `pbem status`, `/healthz`, `pbem_build_info`; pbem/build.py); the
packages are found, not listed (templates/ joins them as pbem.templates); and a build
starts from an empty build/lib, so that `git pull && pip install .` installs exactly the
files of the version pulled, never a module or migration the previous one had and this
one removed (setuptools copies into build/lib and packs whatever is there).
Everything else about the package is in pyproject.toml."""

import re
import shutil
import subprocess
from pathlib import Path

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


def checkout_commit() -> str:
    """HEAD of the checkout being built ('' outside one, or without git)."""
    try:
        done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"],
                              capture_output=True, text=True, timeout=30)
    except OSError:
        return ""
    found = done.stdout.strip()
    return found if done.returncode == 0 and re.fullmatch(r"[0-9a-f]{40,64}", found) else ""


PACKAGES = find_packages(where=str(ROOT), include=["pbem", "pbem.*", "notation", "notation.*"])


class build_py_with_commit(build_py):
    def run(self):
        if not getattr(self, "editable_mode", False):
            for top in {name.split(".")[0] for name in PACKAGES}:  # the last build's copy
                shutil.rmtree(Path(self.build_lib) / top, ignore_errors=True)
        super().run()
        commit = checkout_commit()
        if commit and not getattr(self, "editable_mode", False):  # editable: .git is read
            target = Path(self.build_lib) / "pbem" / "COMMIT"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(commit + "\n")


setup(packages=PACKAGES + ["pbem.templates"], cmdclass={"build_py": build_py_with_commit})
