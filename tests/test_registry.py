"""The registry finds the games by their entry points (issue 35): pbp's own games win a
clash of names, and a plugin's broken entry point is a warning, not a dead pbp."""

from __future__ import annotations

import importlib
import logging
import sys
from importlib.metadata import EntryPoint
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from guessgame.kind import GUESS

from pbp.games.core import registry
from pbp.games.core.kind import AnyKind
from pbp.games.maniac.kind import KIND as MANIAC


def point(name: str, value: str, distribution: str) -> EntryPoint:
    """An entry point of :data:`registry.GROUP` that ``distribution`` declares."""
    made = EntryPoint(name, value, registry.GROUP)
    return made._for(SimpleNamespace(name=distribution))  # type: ignore[attr-defined,no-any-return]


def kinds_of(monkeypatch: pytest.MonkeyPatch, *points: EntryPoint) -> dict[str, AnyKind]:
    """The kinds the registry loads when exactly ``points`` are installed."""
    monkeypatch.setattr(registry, "entry_points", lambda group: list(points))
    return registry._entry_point_kinds()


OWN = point("maniac", "pbp.games.maniac.kind:KIND", "pbp")
GUESSING = point("guess", "guessgame.kind:GUESS", "guessplug")


@pytest.mark.parametrize("evil_first", [True, False])
def test_a_plugin_named_like_a_bundled_game_does_not_replace_it(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, evil_first: bool
) -> None:
    evil = point("maniac", "guessgame.kind:GUESS", "evilplug")
    points = (evil, OWN, GUESSING) if evil_first else (OWN, evil, GUESSING)
    with caplog.at_level(logging.WARNING, logger=registry.__name__):
        kinds = kinds_of(monkeypatch, *points)
    assert kinds == {"guess": GUESS, "maniac": MANIAC}
    [warning] = caplog.records
    assert "evilplug" in warning.getMessage()
    assert "maniac = 'guessgame.kind:GUESS'" in warning.getMessage()


def test_an_entry_point_of_a_missing_module_is_left_out_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    broken = point("broken", "nosuchplugin.kind:KIND", "brokenplug")
    with caplog.at_level(logging.WARNING, logger=registry.__name__):
        kinds = kinds_of(monkeypatch, broken, OWN, GUESSING)
    assert kinds == {"guess": GUESS, "maniac": MANIAC}
    [warning] = caplog.records
    assert "brokenplug" in warning.getMessage()
    assert "broken = 'nosuchplugin.kind:KIND'" in warning.getMessage()
    assert "nosuchplugin" in warning.getMessage().rpartition("loaded")[2]


def test_an_entry_point_named_unlike_its_kind_is_left_out_with_a_warning(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    misnamed = point("guessing", "guessgame.kind:GUESS", "guessplug")
    with caplog.at_level(logging.WARNING, logger=registry.__name__):
        kinds = kinds_of(monkeypatch, misnamed, OWN)
    assert kinds == {"maniac": MANIAC}
    [warning] = caplog.records
    assert "guessplug" in warning.getMessage()
    assert "guessing = 'guessgame.kind:GUESS'" in warning.getMessage()


def test_no_game_at_all_is_a_lookup_error_with_the_advice(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(LookupError, match="install pbp again"):
        kinds_of(monkeypatch)


def test_a_stale_install_is_one_line_of_advice_and_pbp_version_still_works(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Found by a hostile tester: without entry points (an install older than its
    pyproject.toml) every command died with a traceback at import of the CLI."""
    for module in [m for m in sys.modules if m == "pbp.cli" or m.startswith("pbp.cli.")]:
        monkeypatch.delitem(sys.modules, module)
    monkeypatch.setattr(registry, "entry_points", lambda group: [])
    monkeypatch.setattr(registry, "KINDS", registry._Kinds())
    cli = importlib.import_module("pbp.cli")
    version = CliRunner().invoke(cli.main, ["--version"])
    assert version.exit_code == 0 and version.output.startswith("pbp ")
    for args in (["close-day", "g"], ["--help"]):
        result = CliRunner().invoke(cli.main, ["-c", str(tmp_path / "games.yaml"), *args])
        assert result.exit_code == 1, (args, result.output, result.exception)
        [line] = result.output.splitlines()
        assert line.startswith("Error: no game kinds: ") and "install pbp again" in line
