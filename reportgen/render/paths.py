"""Where the built-in templates live; stdlib only, so the no-op build check can hash them
without importing Jinja2."""

from __future__ import annotations

from pathlib import Path


def default_templates() -> Path:
    """`reportgen/templates` in an installed wheel, else the repository's `templates/`."""
    here = Path(__file__).resolve().parent.parent
    installed = here / "templates"
    if installed.is_dir():
        return installed
    return here.parent / "templates"
