"""pbem: a play-by-email and notation server for four tabletop games."""

from pathlib import Path

__version__ = "0.17.0"  # the release: CHANGELOG.md; pyproject.toml reads it here

_HERE = Path(__file__).resolve().parent
#: The Jinja2 templates (mail bodies, web pages). The repository keeps them at its top,
#: beside the package; an installed wheel carries them inside it (pyproject.toml maps
#: templates/ to pbem/templates).
TEMPLATES = _HERE / "templates" if (_HERE / "templates").is_dir() else _HERE.parent / "templates"
