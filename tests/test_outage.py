"""Rule P3 (issue 31, item 7): no flood after an outage.

When more of a game's deadlines fell due while pbp was away than its
``catch_up_limit`` allows (default: the deadlines of one game day), the game is
paused as of the first missed deadline, the mail that arrived since is held, and
the GM is told; ``resume`` goes on from now with the time the deadline had left,
and ``pbp run --catch-up GAME`` passes them in time order (D8). Within the limit
pbp catches up as before. The seed-000 table (Cluedo by game days, days closing
22:30 MSK, 19:30 UTC), driven through the service with the test's clock.
"""

from __future__ import annotations

import logging
import shutil
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.table import GM, Table, named_body, summary, utc

from pbp.cli import main
from pbp.config.loading import load_config
from pbp.games.core.events import LeverRefused

REPO = Path(__file__).resolve().parent.parent
GAME = "seed-000"
FIRST_CLOSE = utc(2026, 12, 1, 19, 30)

NOTICE_RU = """\
Пока pbp не работал (остановлен, машина выключена или её часы скакнули), в этой игре \
наступили 3 срока, первый — 1 декабря 2026 г., 22:30 по Москве.
Это больше, чем позволяет catch_up_limit (1): чтобы не завалить тему постами, игра \
поставлена на паузу с этого срока, а письма, пришедшие после него, отложены.

Продолжить с этой минуты, вернув сроку оставшиеся 1 ч 30 мин: ПРОДОЛЖИТЬ (письмом) или \
pbp resume seed-000.
Или пройти пропущенные сроки по порядку, каждый со своими постами: pbp run --catch-up \
seed-000.
"""


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """The game started at 20:00 MSK on 2026-12-01; Кросс's suggestion at 21:00 MSK
    (its last event before the outage: 1 h 30 min before the close), Роза's on day 2
    at 13:00 MSK, while pbp is away until day 3, 23:00 MSK (three closes due)."""
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 18))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 2, 10))
    yield table
    table.close()


def kinds(table: Table) -> list[tuple[int | None, object, str]]:
    """(day, at, kind) of every public event after the start."""
    return [
        (s.day, s.at, s.event.kind)
        for s in table.store.events(GAME, public_only=True)
        if s.event.kind != "game_started"
    ]


def test_P3_three_missed_closes_pause_the_game_as_of_the_first_and_tell_the_gm(
    table: Table, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="pbp.app.outage"):
        outcomes = table.run(utc(2026, 12, 3, 20))

    # The mail before the first missed close is applied in its day; the one after it
    # is held, as in any pause; no day is closed.
    assert outcomes == ["applied", "paused"]
    assert kinds(table) == [
        (1, utc(2026, 12, 1, 18), "suggestion_made"),
        (1, FIRST_CLOSE, "gm_pause"),
    ]
    pause = table.store.events(GAME)[-1]
    assert pause.source == "gm:outage"
    assert pause.event.data == {
        "period": 1,
        "deadline_name": "day",
        "deadline_at": "2026-12-01T19:30:00+00:00",
        "remaining_seconds": 5400,
        "via": "outage",
        "note": None,
        "missed": 3,
        "since": "2026-12-01T19:30:00+00:00",
    }
    schedule = table.store.schedule(GAME)
    assert schedule is not None and schedule.deadline_at is None
    assert [k.held_for for k in table.store.kept()] == [GAME]
    mails = table.new_mail()
    assert summary(mails) == [
        ("cross@example.test", "[seed-000] Re: ход"),
        ("doug@example.test", "[seed-000] Предположение №1 от Кросса"),
        (GM, "[seed-000] Пауза: 3 срока прошли, пока pbp не работал"),
        ("rosa@example.test", "[seed-000] Re: ход"),
    ]
    assert named_body(mails[2], GAME) == NOTICE_RU
    assert caplog.messages == [
        "game seed-000: 3 deadlines fell due while pbp was away, the first at "
        "2026-12-01T19:30:00+00:00 (catch_up_limit 1): paused as of it; `pbp resume "
        "seed-000` goes on from now with 5400 s left, `pbp run --catch-up seed-000` passes "
        "them in time order"
    ]
    # Later rounds post nothing more and tell the GM nothing more.
    assert table.run(utc(2026, 12, 3, 21)) == []
    assert table.new_mail() == []


def test_P3_resume_goes_on_from_now_with_the_time_the_deadline_had_left(table: Table) -> None:
    table.run(utc(2026, 12, 3, 20))
    table.new_mail()
    resumed_at = utc(2026, 12, 3, 20, 10)

    done = table.service.gm.resume(GAME, now=resumed_at, via="cli", note=None)
    table.run(resumed_at)

    assert done["deadline_at"] == "2026-12-03T21:40:00+00:00"  # 20:10 + 1 h 30 min
    schedule = table.store.schedule(GAME)
    assert schedule is not None and schedule.deadline_at == resumed_at + timedelta(hours=1.5)
    # Роза's held suggestion is applied in day 1, which goes on (logged at the game's
    # clock, the resume; the move keeps its arrival).
    assert kinds(table)[-2:] == [
        (1, resumed_at, "gm_resume"),
        (1, resumed_at, "suggestion_made"),
    ]
    assert table.store.events(GAME)[-1].event.data["at"] == "2026-12-02T10:00:00+00:00"
    table.run(utc(2026, 12, 3, 21, 41))
    closes = [s.at for s in table.store.events(GAME) if s.event.kind == "day_closed"]
    assert closes == [utc(2026, 12, 3, 21, 40)]


def test_P3_catch_up_passes_the_missed_closes_in_time_order(table: Table) -> None:
    table.run(utc(2026, 12, 3, 20))
    table.new_mail()
    now = utc(2026, 12, 3, 20, 10)

    done = table.service.outages.catch_up(GAME, now)
    table.run(now)

    assert done == {"resumed": True, "deadline_at": FIRST_CLOSE}
    public = [
        (s.day, s.at, s.event.kind)
        for s in table.store.events(GAME, public_only=True)
        if s.event.kind not in ("game_started", "gm_pause", "gm_resume")
    ]
    # D8: Роза's held mail belongs to day 2, after day 1's close at its own time.
    assert public == [
        (1, utc(2026, 12, 1, 18), "suggestion_made"),
        (1, FIRST_CLOSE, "refuted"),
        (1, FIRST_CLOSE, "day_closed"),
        (2, utc(2026, 12, 2, 10), "suggestion_made"),
        (2, utc(2026, 12, 2, 19, 30), "refuted"),
        (2, utc(2026, 12, 2, 19, 30), "day_closed"),
        (3, utc(2026, 12, 3, 19, 30), "day_closed"),
    ]
    summaries = [s for to, s in summary(table.new_mail()) if to == GM and "Итоги дня" in s]
    # Day 3 had no suggestion: no GM-only facts, no mail of them.
    assert summaries == [
        f"[seed-000] Итоги дня {day} — {part}"
        for day in (1, 2, 3)
        for part in ("BBCode", "только для ГМа")
        if (day, part) != (3, "только для ГМа")
    ]
    # Caught up: the next close is at its time, and it is no outage.
    table.run(utc(2026, 12, 4, 19, 31))
    assert [s.event.kind for s in table.store.events(GAME)][-1] == "day_closed"


def test_P3_catch_up_refuses_a_game_the_gm_paused(table: Table) -> None:
    table.run(utc(2026, 12, 1, 18, 30))
    table.service.gm.pause(GAME, now=utc(2026, 12, 1, 18, 40), via="cli", note=None)

    with pytest.raises(ValueError) as refused:
        table.service.outages.catch_up(GAME, utc(2026, 12, 3, 20))

    assert str(refused.value) == (
        "game seed-000 was paused by the GM, not after an outage: `pbp resume seed-000` goes on"
    )


def test_P3_a_lever_after_an_outage_finds_the_game_paused(table: Table) -> None:
    table.run(utc(2026, 12, 1, 18, 30))

    with pytest.raises(LeverRefused) as refused:
        table.service.gm.act(
            GAME, "Дуг", "ОПРОВЕРЖЕНИЕ 1 Пистолет", now=utc(2026, 12, 3, 20), via="cli", note=None
        )

    assert refused.value.code == "gm_paused"
    assert [s.event.kind for s in table.store.events(GAME)][-1] == "gm_pause"


def test_P3_within_the_limit_the_missed_closes_are_caught_up_as_before(tmp_path: Path) -> None:
    table = Table(tmp_path, extra="catch_up_limit: 3\n")
    try:
        table.run(utc(2026, 12, 1, 17))
        table.run(utc(2026, 12, 3, 20))
        closes = [s.at for s in table.store.events(GAME) if s.event.kind == "day_closed"]
        assert closes == [FIRST_CLOSE, utc(2026, 12, 2, 19, 30), utc(2026, 12, 3, 19, 30)]
        assert not any(s.event.kind == "gm_pause" for s in table.store.events(GAME))
    finally:
        table.close()


def test_P3_one_missed_close_is_caught_up_by_default(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.run(utc(2026, 12, 2, 12))  # away over one close: one game day
        closes = [s.at for s in table.store.events(GAME) if s.event.kind == "day_closed"]
        assert closes == [FIRST_CLOSE]
    finally:
        table.close()


def test_P3_the_default_limit_is_the_deadlines_of_one_game_day(tmp_path: Path) -> None:
    bundled = tmp_path / "games.yaml"
    shutil.copy(REPO / "games.yaml", bundled)
    games = {game.id: game for game in load_config(bundled).games}

    # A day close; Maniac's day and night; turns of 24 h and answers of 12 h.
    assert {gid: g.catch_up_deadlines for gid, g in games.items()} == {
        "exler-1": 1,
        "maniac-1": 2,
        "table-1": 2,
    }
    text = bundled.read_text(encoding="utf-8").replace(
        "# catch_up_limit: 1 ", "catch_up_limit: 7  "
    )
    bundled.write_text(text, encoding="utf-8")
    assert load_config(bundled).game("exler-1").catch_up_deadlines == 7


def test_P3_the_notice_in_english(tmp_path: Path) -> None:
    table = Table(tmp_path, locale="en")
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        table.run(utc(2026, 12, 2, 20))  # two closes due, the game's last event at 20:00 MSK

        (notice,) = table.new_mail()
        assert (notice["To"], notice["Subject"]) == (
            GM,
            "[seed-000] Paused: 2 deadlines passed while pbp was away",
        )
        assert named_body(notice, GAME) == (
            "While pbp was away (stopped, the machine down, or its clock jumped), 2 deadlines "
            "of this game fell due, the first at December 1, 2026, 22:30 MSK.\n"
            "That is more than catch_up_limit (1) allows: so as not to flood the thread, the "
            "game is paused as of that deadline, and mail that arrived since is held.\n\n"
            "To go on from now, with the 2 h 30 min the deadline had left: RESUME (by mail), "
            "or pbp resume seed-000.\n"
            "To pass the missed deadlines in time order instead, each with its posts: pbp run "
            "--catch-up seed-000.\n"
        )
    finally:
        table.close()


def test_P3_pbp_run_catch_up_resumes_a_game_paused_after_an_outage(table: Table) -> None:
    table.run(utc(2026, 12, 3, 20))
    assert table.config.path is not None

    result = CliRunner().invoke(
        main,
        [
            "-c",
            str(table.config.path),
            "run",
            "--once",
            "--now",
            "2026-12-03T23:10:00+03:00",
            "--catch-up",
            GAME,
        ],
    )

    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[0] == (
        "seed-000: catching up from the deadline of 2026-12-01T19:30:00+00:00, in time order"
    )
    closes = [s.at for s in table.store.events(GAME) if s.event.kind == "day_closed"]
    assert closes == [FIRST_CLOSE, utc(2026, 12, 2, 19, 30), utc(2026, 12, 3, 19, 30)]
