"""A normal (non-editable) install ships every template (pyproject data-files)."""

from __future__ import annotations

import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def test_every_template_folder_is_installed_with_the_package() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    data_files = project["tool"]["setuptools"]["data-files"]
    installed = {
        path
        for patterns in data_files.values()
        for pattern in patterns
        for path in REPO.glob(pattern)
    }
    templates = {path for path in (REPO / "templates").rglob("*") if path.is_file()}
    assert sorted(templates - installed) == []
    assert all(key == "share/pbp/" + pats[0].rsplit("/", 1)[0] for key, pats in data_files.items())
