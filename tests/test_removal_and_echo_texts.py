"""Issue 34, item 3, the leftovers: names in the echo of a suggestion and in the STATUS
list of answers owed (rule P2), the mail a Cluedo player the GM removed gets (C5), and
how a removal names a substitute.

Each test is named after the fault it holds and asserts the corrected text exactly, in
both locales. The games are seed 000's Cluedo by days and by rounds (:mod:`kits.table`,
:mod:`kits.rounds_table`: Кросс a man, Дуг and Роза women) and seed 002's Maniac
(:mod:`kits.maniac_table`).
"""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from kits.table import Table, body, utc

from pbp.games.cluedo.wording import wording
from pbp.render import Renderer

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
GAME = "seed-000"
#: Every card of seed 000's game: none may reach a removed player's mail (C2, C4).
CARDS = (
    *("Маша", "Петя", "Ваня", "Топор", "Пистолет", "Канделябр", "Молоток", "Веревка"),
    *("Нож", "Столовая", "Спальня", "Библиотека"),
)


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(TEMPLATES)


def mail(renderer: Renderer, name: str, locale: str, **context: Any) -> tuple[str, str]:
    """A mail with the context every mail of a Cluedo game gets."""
    base: dict[str, Any] = {"game": "g-1", "timezone": "UTC", "genders": {}}
    base["wording"] = wording(locale)
    return renderer.private_mail(name, locale=locale, **{**base, **context})


def flushed(table: Table) -> list[EmailMessage]:
    """Send what the levers queued (the CLI or the daemon does); the new mails."""
    table.service.flush_outbox(utc(2026, 12, 31))
    return table.new_mail()


# --- 1. the echo of a suggestion: «ДЛЯ Веталя», as the help writes it ---


def _echo(
    renderer: Renderer,
    addressee: str,
    locale: str = "ru",
    genders: dict[str, str] | None = None,
    substitutes: dict[str, str] | None = None,
) -> str:
    move = {"type": "suggest", "suspect": "Белова", "weapon": "Пистолет", "room": "Спальня"}
    results = [{"line": "…", "move": {**move, "addressee": addressee}, "events": []}]
    context: dict[str, Any] = {"player": "Неташка", "results": results}
    context |= {"done": results, "not_done": [], "genders": genders or {}}
    if substitutes:
        context |= {"substitutes": substitutes, "reader": "Неташка"}
    _subject, text = mail(renderer, "cluedo_days/reply", locale, **context)
    (line,) = [x for x in text.split("\n") if x.startswith(("Понял:", "Understood:"))]
    return line


def test_P2_the_echo_of_a_suggestion_names_its_addressee_in_the_genitive(
    renderer: Renderer,
) -> None:
    said = "Понял: ПРЕДПОЛОЖЕНИЕ Белова, Пистолет, Спальня ДЛЯ "
    assert _echo(renderer, "Веталь", genders={"Веталь": "masc"}) == said + "Веталя"
    assert _echo(renderer, "Неташка") == said + "Неташки"
    assert _echo(renderer, "Дуг", genders={"Дуг": "femn"}) == said + "Дуг"
    # A name whose form needs a gender nobody gave: framed, never «ДЛЯ Веталь».
    assert _echo(renderer, "Веталь") == said + "игрока Веталь"
    # A seat a substitute plays: his name declined, the seat's in its parenthesis.
    substitutes = {"Роза": "Вова"}
    assert _echo(renderer, "Роза", substitutes=substitutes) == said + "Вовы (вместо Розы)"
    assert _echo(renderer, "Веталь", "en", {"Веталь": "masc"}) == (
        "Understood: SUGGEST Белова, Пистолет, Спальня TO Веталь"
    )


def test_P2_the_echo_of_a_suggestion_by_mail_names_its_addressee_in_the_genitive(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        table.send(
            "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Розы", at=utc(2026, 12, 1, 18)
        )
        assert table.run(utc(2026, 12, 1, 18, 1)) == ["applied"]
        (reply,) = [m for m in table.new_mail() if m["To"] == "cross@example.test"]
        assert (
            "> ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Розы\n"
            "Понял: ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Розы\n"
            "Принято: предположение №1 для Розы (Маша, Пистолет, Спальня)."
        ) in body(reply)
    finally:
        table.close()
