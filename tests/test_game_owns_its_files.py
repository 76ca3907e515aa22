"""A game owns its files (issue 35, item 2): the test-only guessing game lives in
``tests/guessgame/`` entirely (engine, parser, model, kind, templates, refusal texts),
and nothing else of the repository names its files; pbp itself (its package, the
product's templates, its scripts and configuration) never writes its name. The tests
that play it import it by its module name and register it (:mod:`guessgame.kind`)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from guessgame.kind import GUESS

from pbp.games.core import registry

REPO = Path(__file__).resolve().parent.parent
PACKAGE = "tests/guessgame/"
#: Documentation that points a newcomer to the example (README, "Adding a game"), and
#: this test, which writes the patterns it looks for.
DOCS = {"README.md", Path(__file__).resolve().relative_to(REPO).as_posix()}


def _files() -> dict[str, str]:
    """Every text file git tracks, by its path in the repository."""
    listed = subprocess.run(
        ["git", "ls-files"], cwd=REPO, check=True, capture_output=True, text=True
    ).stdout.split()
    texts: dict[str, str] = {}
    for name in listed:
        path = REPO / name
        if not path.is_file():
            continue  # deleted in the work tree
        try:
            texts[name] = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
    return texts


def test_the_guessing_game_brings_every_text_in_its_package() -> None:
    (folder,) = GUESS.templates
    assert folder.is_absolute() and folder.is_relative_to(REPO / PACKAGE)
    assert sorted(p.name for p in folder.iterdir()) == ["errors", "mail", "parts", "posts"]
    assert GUESS.catalogs is not None and GUESS.catalogs.is_relative_to(REPO / PACKAGE)
    assert GUESS.kind not in registry.names()  # registered only by the tests that play it


def test_only_its_package_names_the_guessing_games_files() -> None:
    path = re.compile(r"guessgame[/\\]|/\s*\"guessgame\"")
    found = [
        name
        for name, text in _files().items()
        if not name.startswith(PACKAGE) and name not in DOCS and path.search(text)
    ]
    assert found == []


def test_pbp_never_writes_the_guessing_games_name() -> None:
    name = re.compile(rf"guessgame|[\"']{GUESS.kind}[\"']|kind:\s*{GUESS.kind}\b")
    found = [
        f"{path}:{text[: m.start()].count(chr(10)) + 1}"
        for path, text in _files().items()
        if not path.startswith("tests/") and path not in DOCS
        for m in name.finditer(text)
    ]
    assert found == []
