"""Helpers for tests that drive a Cluedo-by-rounds game through :class:`pbp.app.service.Service`.

The game is seed 000's worked example as a ``kind: cluedo_rounds`` game (rules C1–C7,
R1–R7): players Кросс, Дуг, Роза in this turn order, 3 suspects, 6 weapons, 3 rooms
(C1), the seed's fixed deal, Europe/Moscow, start 2026-12-01 20:00 Moscow (17:00 UTC),
24 hours for a turn and 12 for an answer (R7). The mailbox, clock and mail helpers are
those of :mod:`kits.table` (Maildir transports, a test-controlled clock).
"""

from __future__ import annotations

from pathlib import Path

from .games import game_keys, write_games_yaml
from .table import Table, utc

#: The game's item of ``games.yaml``.
ROUNDS_ITEM = """\
  - id: seed-000
    kind: cluedo_rounds
    locale: {locale}
    timezone: Europe/Moscow
    gm: gm-person@example.test
    seed: 1234
    start: "2026-12-01T20:00"
    turn_hours: 24
    answer_hours: 12
{extra}    players:
      - {{name: Кросс, email: cross@example.test, gender: m}}
      - {{name: Дуг, email: doug@example.test, gender: f}}
      - {{name: Роза, email: rosa@example.test, gender: f}}
    cards:
      suspects: [Маша, Петя, Ваня]
      weapons: [Топор, Пистолет, Канделябр, Молоток, Веревка, Нож]
      rooms: [Столовая, Спальня, Библиотека]
    deal:
      solution: [Маша, Топор, Столовая]
      hands:
        Кросс: [Петя, Ваня, Нож]
        Дуг: [Спальня, Пистолет, Молоток]
        Роза: [Библиотека, Канделябр, Веревка]
"""

#: The game starts here (20:00 Europe/Moscow); turn 1's deadline is a day later (R7).
START = utc(2026, 12, 1, 17)


class RoundsTable(Table):
    """The seed-000 rounds game on Maildir transports with a test-controlled clock.

    ``extra``: more game keys (YAML, unindented), e.g. ``"remind_hours_before: 2\\n"``
    or ``"auto_answer: none\\n"``. Sending, reading the outbox and ``run`` are
    :class:`kits.table.Table`'s.
    """

    def __init__(self, directory: Path, *, locale: str = "ru", extra: str = "") -> None:
        self.directory = directory
        path = write_games_yaml(
            directory, ROUNDS_ITEM.format(locale=locale, extra=game_keys(extra))
        )
        self._serve(path, START)

    def public_kinds(self) -> list[tuple[str, str]]:
        """``[(kind, ISO time logged), ...]`` of the public log, game_started left out."""
        return [
            (s.event.kind, s.at.isoformat())
            for s in self.store.events("seed-000", public_only=True)
            if s.event.kind != "game_started"
        ]
