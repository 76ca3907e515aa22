"""Time in a game only moves forward (issue 14, item 8).

``pbp run --once --now`` may pass a game's deadlines ahead of the real clock
(a GM replaying or testing a day). Afterwards nothing may act on that game at an
earlier time: a real-clock command (``close-day``, a lever) or an earlier
``--now`` is refused with a sentence naming the game's last event; ``--game``
limits such a run to the games named; and a move that arrives meanwhile is
logged at the game's clock, so the log and the export stay in time order.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner, Result

from pbp.games.core.events import Event, Visibility
from pbp.store import Store

REPO = Path(__file__).resolve().parent.parent
MSK = ZoneInfo("Europe/Moscow")


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A copy of the bundled ``games.yaml`` (three games, days closing 22:30 MSK),
    its games started on the real clock."""
    config = tmp_path / "games.yaml"
    shutil.copy(REPO / "games.yaml", config)
    monkeypatch.setenv("PBP_CONFIG", str(config))
    started = pbp_cli("run", "--once")
    assert started.exit_code == 0, started.output
    return config


def pbp_cli(*args: str) -> Result:
    from pbp.cli import main

    return CliRunner().invoke(main, list(args))


def ahead() -> tuple[str, str]:
    """(``--now`` two days ahead at noon MSK, the local time of the day close before
    it: the next day's 22:30, the game's last event after that run)."""
    today = datetime.now(MSK).date()
    noon = datetime(today.year, today.month, today.day, 12, 0, tzinfo=MSK) + timedelta(days=2)
    close = noon - timedelta(hours=13, minutes=30)
    return noon.isoformat(), close.strftime("%Y-%m-%d %H:%M MSK")


def events_of(config: Path, game_id: str) -> list[tuple[int, datetime]]:
    with Store(config.parent / "pbp.sqlite3") as store:
        return [(e.seq, e.at) for e in store.events(game_id)]


def test_close_day_on_the_real_clock_after_a_later_now_is_refused(bundled: Path) -> None:
    later, close = ahead()
    moved = pbp_cli("run", "--once", "--now", later, "--game", "exler-1", "--catch-up", "exler-1")
    assert moved.exit_code == 0, moved.output
    before = events_of(bundled, "exler-1")

    refused = pbp_cli("close-day", "exler-1")

    assert refused.exit_code == 1
    prefix = f"Error: game exler-1 has run ahead of this clock: its last event is at {close}, "
    assert refused.output.startswith(prefix)
    assert refused.output.endswith(
        ", and time in a game only moves forward: wait until then (or use pbp run --once --now)\n"
    )
    assert events_of(bundled, "exler-1") == before


def test_a_lever_on_the_real_clock_after_a_later_now_is_refused(bundled: Path) -> None:
    later, close = ahead()
    pbp_cli("run", "--once", "--now", later, "--game", "exler-1", "--catch-up", "exler-1")
    before = events_of(bundled, "exler-1")

    refused = pbp_cli("pause", "exler-1")

    assert refused.exit_code == 1
    assert f"its last event is at {close}, " in refused.output
    assert refused.output.endswith("time in a game only moves forward: wait until then\n")
    assert events_of(bundled, "exler-1") == before


def test_an_earlier_now_is_refused_naming_the_games_last_event(bundled: Path) -> None:
    later, close = ahead()
    pbp_cli("run", "--once", "--now", later, "--game", "exler-1", "--catch-up", "exler-1")
    earlier = (datetime.fromisoformat(later) - timedelta(hours=14)).isoformat()

    refused = pbp_cli("run", "--once", "--now", earlier)

    assert refused.exit_code == 1
    assert refused.output.startswith(
        f"Error: game exler-1 has run ahead of this clock: its last event is at {close}, "
        f"later than {datetime.fromisoformat(earlier).strftime('%Y-%m-%d %H:%M')} MSK"
    )
    assert refused.output.endswith(": give --now at or after it\n")


def test_game_option_passes_the_deadlines_of_the_named_game_only(bundled: Path) -> None:
    later, _ = ahead()
    maniac_before = events_of(bundled, "maniac-1")
    exler_before = events_of(bundled, "exler-1")

    moved = pbp_cli("run", "--once", "--now", later, "--game", "exler-1", "--catch-up", "exler-1")

    assert moved.exit_code == 0, moved.output
    assert events_of(bundled, "maniac-1") == maniac_before
    assert len(events_of(bundled, "exler-1")) > len(exler_before)
    # The other games still act on the real clock.
    assert pbp_cli("pause", "maniac-1").exit_code == 0


def test_game_option_names_a_configured_game_and_goes_with_once(bundled: Path) -> None:
    unknown = pbp_cli("run", "--once", "--game", "exler-2")
    alone = pbp_cli("run", "--game", "exler-1")

    assert unknown.exit_code == 2
    assert "Error: Invalid value for --game: no game 'exler-2' in " in unknown.output
    assert alone.exit_code == 2
    assert alone.output.endswith("Error: --game only goes with --once\n")


def test_an_event_earlier_than_the_games_last_is_logged_at_the_games_clock(
    tmp_path: Path,
) -> None:
    first = datetime(2026, 3, 3, 19, 30, tzinfo=UTC)
    arrived = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
    vote = Event("vote", Visibility.PUBLIC, {"voter": "Вася"})
    with Store(tmp_path / "pbp.sqlite3") as store:
        store.add_game("g-1", "maniac", 1, b"salt", {}, first, None)
        store.append_events("g-1", [vote], at=first, day=1)
        store.append_events("g-1", [vote, vote], at=arrived, day=2)

        assert [(e.seq, e.at) for e in store.events("g-1")] == [(1, first), (2, first), (3, first)]
        assert store.clock("g-1") == first
        assert store.clock("g-2") is None


def test_last_seq_is_the_seq_of_last_event_without_its_data(tmp_path: Path) -> None:
    at = datetime(2026, 3, 3, 19, 30, tzinfo=UTC)
    start = Event("game_started", Visibility.GM, {"hands": {"Лев": ["нож"]}})
    vote = Event("vote", Visibility.PUBLIC, {"voter": "Вася"})
    with Store(tmp_path / "pbp.sqlite3") as store:
        store.add_game("g-1", "maniac", 1, b"salt", {}, at, None)
        assert store.last_seq("g-1", ["game_started"]) is None
        store.append_events("g-1", [vote, start, vote, start, vote], at=at, day=1)
        last = store.last_event("g-1", ["game_started"])
        assert last is not None and last.seq == 4
        assert store.last_seq("g-1", ["game_started"]) == 4
        assert store.last_seq("g-1", ["game_started", "vote"]) == 5
        assert store.last_seq("g-2", ["vote"]) is None
