"""Promise 8 of issue 6: a day close that falls into a DST change of the game's zone
happens once, and a daemon down across several closes (one of them the DST night)
catches up mail and closes interleaved in time order, each close once (rule D8).

The seed-000 game of tests/kits/table.py, moved to Europe/Berlin with its days closing
at 02:30 local time: the hour that is skipped in spring (2026-03-29, 02:00 CET ->
03:00 CEST) and repeated in autumn (2026-10-25, 03:00 CEST -> 02:00 CET). The
service runs on Maildirs with the time given to each round.
"""

from __future__ import annotations

from pathlib import Path

from kits.table import GM, Table, summary, utc

from pbp.config.loading import load_config

GAME = "seed-000"


def berlin_table(directory: Path, start: str) -> Table:
    """The seed-000 table in Europe/Berlin, days closing at 02:30 local time; an outage
    of up to 5 days is caught up (``catch_up_limit``, rule P3)."""
    table = Table(directory, start=start, extra="catch_up_limit: 5\n")
    path = directory / "games.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("timezone: Europe/Moscow", "timezone: Europe/Berlin")
    text = text.replace('day_closes: "22:30"', 'day_closes: "02:30"')
    path.write_text(text, encoding="utf-8")
    table.config = load_config(path)
    table.service.config = table.config
    return table


def closes(table: Table) -> list[tuple[int, object]]:
    """(day, at) of every day_closed event."""
    return [(s.day or 0, s.at) for s in table.store.events(GAME) if s.event.kind == "day_closed"]


def test_a_close_in_the_repeated_autumn_hour_happens_once(tmp_path: Path) -> None:
    table = berlin_table(tmp_path, "2026-10-24T12:00")
    try:
        table.run(utc(2026, 10, 24, 10))  # the game starts: day 1 closes on the 25th
        # 02:30 happens twice that night: 00:30 UTC (CEST) and 01:30 UTC (CET). The
        # daemon wakes every few minutes around both.
        for hour, minute in ((0, 29), (0, 30), (0, 31), (1, 0), (1, 29), (1, 30), (1, 31), (2, 0)):
            if (hour, minute) == (1, 0):  # between the two 02:30s: already day 2 (D8)
                table.send(
                    "Роза",
                    "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс",
                    at=utc(2026, 10, 25, 1, 0),
                )
            table.run(utc(2026, 10, 25, hour, minute))
        table.run(utc(2026, 10, 26, 1, 31))  # 02:30 CET the next night
        assert closes(table) == [(1, utc(2026, 10, 25, 0, 30)), (2, utc(2026, 10, 26, 1, 30))]
        made = [s for s in table.store.events(GAME) if s.event.kind == "suggestion_made"]
        assert [s.day for s in made] == [2]
        subjects = [
            s
            for to, s in summary(table.new_mail())
            if to == GM and "Итоги" in s and s.endswith("BBCode")
        ]
        assert subjects == [f"[{GAME}] Итоги дня {day} — BBCode" for day in (1, 2)]
    finally:
        table.close()


def test_a_daemon_down_across_the_spring_gap_catches_up_mail_and_closes_in_time_order(
    tmp_path: Path,
) -> None:
    table = berlin_table(tmp_path, "2026-03-27T12:00")
    try:
        table.run(utc(2026, 3, 27, 11))  # the game starts; then the daemon is down
        table.new_mail()
        # 02:30 does not exist on 03-29: that close is at 03:30 CEST (01:30 UTC).
        table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 3, 27, 20))
        table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 3, 29, 1))
        table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Спальня ДЛЯ Роза", at=utc(2026, 3, 29, 2))

        assert table.run(utc(2026, 3, 31, 12)) == ["applied", "applied", "applied"]

        rows = [
            (s.day, s.at, s.event.kind, s.event.data.get("number"))
            for s in table.store.events(GAME, public_only=True)
            if s.event.kind != "game_started"
        ]
        assert rows == [
            (1, utc(2026, 3, 27, 20), "suggestion_made", 1),
            (1, utc(2026, 3, 28, 1, 30), "refuted", 1),  # 02:30 CET
            (1, utc(2026, 3, 28, 1, 30), "day_closed", None),
            (2, utc(2026, 3, 29, 1), "suggestion_made", 2),  # 03:00 CEST, before the close
            (2, utc(2026, 3, 29, 1, 30), "refuted", 2),  # 03:30 CEST: the gap moved it
            (2, utc(2026, 3, 29, 1, 30), "day_closed", None),
            (3, utc(2026, 3, 29, 2), "suggestion_made", 3),
            (3, utc(2026, 3, 30, 0, 30), "not_refuted", 3),  # 02:30 CEST; Роза has none
            (3, utc(2026, 3, 30, 0, 30), "day_closed", None),
            (4, utc(2026, 3, 31, 0, 30), "day_closed", None),
        ]
        # Once each: more rounds, the same night or later that day, change nothing.
        assert table.run(utc(2026, 3, 31, 12)) == []
        assert table.run(utc(2026, 3, 31, 23)) == []
        assert len(closes(table)) == 4
        subjects = [
            s
            for to, s in summary(table.new_mail())
            if to == GM and "Итоги" in s and s.endswith("BBCode")
        ]
        assert subjects == [f"[{GAME}] Итоги дня {day} — BBCode" for day in (1, 2, 3, 4)]
    finally:
        table.close()
