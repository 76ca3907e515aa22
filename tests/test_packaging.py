"""A normal (non-editable) install ships every template, catalog and keywords file (the
data package ``pbp.templates`` and pbp's package data, pyproject.toml), and registers
every game of pbp's by its entry point."""

from __future__ import annotations

import configparser
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """pbp's wheel, built from the checkout as ``pip wheel`` builds it."""
    out = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
    subprocess.run([*pip, "-w", str(out), str(REPO)], check=True, capture_output=True)
    (built,) = out.glob("pbp-*.whl")
    return zipfile.ZipFile(built)


def test_every_template_is_installed_with_the_package(wheel: zipfile.ZipFile) -> None:
    shipped = set(wheel.namelist())
    templates = [p for p in (REPO / "templates").rglob("*") if p.is_file()]
    assert len(templates) > 200
    wanted = {f"pbp/templates/{p.relative_to(REPO / 'templates').as_posix()}" for p in templates}
    assert sorted(wanted - shipped) == []


def test_every_catalog_and_keywords_file_is_installed(wheel: zipfile.ZipFile) -> None:
    """pbp's catalogs and keywords, and each game's words (``keywords/<locale>.yaml`` in
    its package)."""
    shipped = set(wheel.namelist())
    files = [p for p in (REPO / "pbp" / "locale").rglob("*") if p.suffix in (".po", ".yaml")]
    games = list((REPO / "pbp" / "games").glob("*/keywords/*.yaml"))
    assert files and games
    files += games
    assert sorted({p.relative_to(REPO).as_posix() for p in files} - shipped) == []


def test_every_game_package_is_registered_by_its_entry_point(wheel: zipfile.ZipFile) -> None:
    """A package of ``pbp/games/`` with a ``kind.py`` that makes a ``KIND`` is a game: its
    entry point (group ``pbp.games``) names that object under the kind's name."""
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/entry_points.txt")]
    points = configparser.ConfigParser(delimiters=("=",))
    points.read_string(wheel.read(name).decode())
    games = {
        path.parent.name
        for path in (REPO / "pbp" / "games").glob("*/kind.py")
        if "\nKIND = " in path.read_text(encoding="utf-8")
    }
    assert games
    assert dict(points["pbp.games"]) == {
        game: f"pbp.games.{game}.kind:KIND" for game in sorted(games)
    }
