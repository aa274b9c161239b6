"""What an operator installs (`pip install .`, deploy/README.md) is the whole server.

The packages are found (setup.py), and templates/, at the top of the repository, joins
them as pbem/templates; a template or data file not matched by package-data would work
in every editable checkout and be missing in production. So: build the wheel, and
compare it with the tree. (tests/test_install_upgrade.py: an install over an old
checkout leaves exactly the wheel's files.)
"""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> zipfile.ZipFile:
    out = tmp_path_factory.mktemp("wheel")
    # Built as pip builds it for an install: isolated, with the declared build backend.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out),
                    str(ROOT)],
                   check=True, capture_output=True, timeout=300)
    (built,) = out.glob("pbem-*.whl")
    return zipfile.ZipFile(built)


def test_the_wheel_carries_every_module_and_data_file(wheel):
    names = set(wheel.namelist())
    sources = [path for top in ("pbem", "notation") for path in (ROOT / top).rglob("*")
               if path.is_file() and path.suffix in (".py", ".csv", ".md")
               and "__pycache__" not in path.parts]
    missing = [str(path.relative_to(ROOT)) for path in sources
               if str(path.relative_to(ROOT)) not in names]
    assert sources and not missing


def test_the_wheel_carries_every_template_inside_the_package(wheel):
    names = set(wheel.namelist())
    templates = [path for path in (ROOT / "templates").rglob("*") if path.is_file()]
    missing = [str(path.relative_to(ROOT)) for path in templates
               if f"pbem/{path.relative_to(ROOT)}" not in names]
    assert len(templates) > 20 and not missing


def test_an_installed_wheel_finds_its_templates(wheel, tmp_path):
    """Unpacked on its own (no repository beside it), pbem renders a mail and a page."""
    wheel.extractall(tmp_path / "site")
    script = ("import pbem, pbem.web; from pbem.config import Config; "
              "app = pbem.web.create_app(Config(domain='pbem.test', secret_key='k')); "
              "print(pbem.TEMPLATES); "
              "print(app.jinja_env.get_template('web/game.html').name)")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True,
                          text=True, env={"PYTHONPATH": str(tmp_path / "site")}, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [str(tmp_path / "site" / "pbem" / "templates"),
                                        "web/game.html"]


def test_an_installed_wheel_names_the_commit_it_was_built_from(wheel, tmp_path):
    """What deploy/README.md installs (`pip install .`) has no .git beside it: the wheel
    carries pbem/COMMIT, written by setup.py as it was built, and the version is
    pbem.__version__ (pyproject.toml reads it there)."""
    from pbem import __version__, build
    head = build.checkout_commit(ROOT)
    assert Path(wheel.filename).name.startswith(f"pbem-{__version__}-")
    assert wheel.read("pbem/COMMIT").decode() == head + "\n"
    wheel.extractall(tmp_path / "site")
    done = subprocess.run([sys.executable, "-c", "from pbem import build; "
                           "print(build.describe())"], cwd=tmp_path, capture_output=True,
                          text=True, env={"PYTHONPATH": str(tmp_path / "site")}, timeout=60)
    assert done.stdout == f"{__version__} (commit {head[:12]})\n", done.stderr
