"""Mail held by a pause (rule D8) when the GM's PAUSE, the held mail and his RESUME
are read in one round, one group commit (issue 18), and when the replay crashes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from kits.table import GM, Table, crash_apply, utc

from pbp.store import GM_SEAT


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    # A trusted server: the GM's levers by mail apply at once (DMARC pass).
    table = Table(tmp_path, trusted="mx.example.test")
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def gm(table: Table, *lines: str, at: Any) -> None:
    token = table.store.player_token("seed-000", GM_SEAT)
    table.send("Кросс", *lines, at=at, sender=GM, to=f"gm+{token}@example.test")


def suggestions(table: Table) -> list[tuple[int, str, int | None]]:
    return [
        (s.event.data["number"], s.event.data["suggester"], s.day)
        for s in table.store.events("seed-000")
        if s.event.kind == "suggestion_made"
    ]


def pause_hold_resume(table: Table) -> None:
    gm(table, "PAUSE", at=utc(2026, 12, 1, 17, 5))
    table.send(
        "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 10)
    )
    gm(table, "RESUME", at=utc(2026, 12, 1, 17, 20))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 17, 25))


def test_D8_pause_held_mail_and_resume_in_one_group_apply_in_arrival_order(
    table: Table,
) -> None:
    pause_hold_resume(table)
    table.run(utc(2026, 12, 1, 17, 30))
    assert suggestions(table) == [(1, "Кросс", 1), (2, "Роза", 1)]
    mails = Counter((str(m["To"]), str(m["Subject"])) for m in table.new_mail())
    assert mails[("doug@example.test", "[seed-000] Предположение №1 от Кросса")] == 1
    # "held", then the replay's answer
    assert mails[("cross@example.test", "[seed-000] Re: ход")] == 2
    (held,) = [k for k in table.store.kept() if k.held_for]
    assert not held.waiting


def test_D8_a_pause_read_after_the_close_it_preceded_still_stops_it(table: Table) -> None:
    """PAUSE at 19:20, before the 19:30 close; a move at 19:40; RESUME at 20:00; all
    read at 20:05 in one group: day 1 did not close, the move counts on day 1."""
    gm(table, "PAUSE", at=utc(2026, 12, 1, 19, 20))
    table.send(
        "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 19, 40)
    )
    gm(table, "RESUME", at=utc(2026, 12, 1, 20, 0))
    table.run(utc(2026, 12, 1, 20, 5))
    assert "day_closed" not in [s.event.kind for s in table.store.events("seed-000")]
    assert suggestions(table) == [(1, "Кросс", 1)]


def test_a_held_mail_whose_replay_crashed_is_applied_by_pbp_retry_once(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The held mail's own "paused" row has its Message-ID and text: it is no copy of
    the mail ``pbp retry`` applies after its replay crashed (the move was lost)."""
    crash_apply(monkeypatch, "cluedo_days", 1)
    pause_hold_resume(table)
    table.run(utc(2026, 12, 1, 17, 30))
    assert suggestions(table) == [(1, "Роза", 1)]
    monkeypatch.undo()
    (error,) = [k for k in table.store.kept() if k.reason.startswith("error")]
    again = table.service.retry([error.id], utc(2026, 12, 1, 17, 40))
    assert [o.outcome for o in again] == ["applied"]
    assert suggestions(table) == [(1, "Роза", 1), (2, "Кросс", 1)]
    table.service.retry([k.id for k in table.store.kept()], utc(2026, 12, 1, 17, 41))
    assert suggestions(table) == [(1, "Роза", 1), (2, "Кросс", 1)]
