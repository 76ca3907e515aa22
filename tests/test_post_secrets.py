"""Issue 12, item 6: the paste-ready post and the GM-only facts travel apart.

For every game kind, after a day, a turn or a night that creates private facts (a card
shown, a GM answer, an accusation, a kill order, how a night went, the roles), the GM
gets each public post in one mail per format of the game's ``post_format`` (BBCode by
default; both here but in the first test), whose bodies are exactly what ``pbp post``
prints, and the private facts in a mail of their own whose Subject says "GM only";
that mail is not sent when there is no such fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from click.testing import CliRunner
from kits.maniac_table import ManiacTable, close, dawn
from kits.rounds_table import START as ROUNDS_START
from kits.rounds_table import RoundsTable
from kits.table import GM, Table, body, summary, utc

from pbp.cli import main

GM_ONLY = {"ru": "только для ГМа", "en": "GM only"}
#: The game key that mails the GM each post in BBCode and in Markdown.
BOTH = "post_format: both\n"


def pbp_post(directory: Path, game: str, *args: str) -> str:
    """What ``pbp post GAME ARGS…`` prints for the games.yaml in ``directory``."""
    result = CliRunner().invoke(main, ["-c", str(directory / "games.yaml"), "post", game, *args])
    assert result.exit_code == 0, result.output
    return result.output


def post_mails(mails: Sequence[EmailMessage], title: str) -> dict[str, str]:
    """The GM's mails whose Subject is ``title — PART``: ``{PART: body}``, in order."""
    found = {}
    for mail in mails:
        subject = str(mail["Subject"])
        if mail["To"] == GM and subject.startswith(f"{title} — "):
            found[subject.removeprefix(f"{title} — ")] = body(mail)
    return found


def assert_apart(
    mails: Sequence[EmailMessage],
    title: str,
    bbcode: str,
    markdown: str | None,
    facts: Sequence[str] | None,
    locale: str = "ru",
) -> None:
    """The post ``title`` reached the GM as its BBCode and Markdown text alone (no
    Markdown mail: ``markdown`` None, the default ``post_format``), and the GM-only
    ``facts`` (lines, all of them, in order) in their own mail, or no such mail
    (``facts`` None); no line of the facts is in a post mail."""
    found = post_mails(mails, title)
    formats = ["BBCode", *(["Markdown"] if markdown is not None else [])]
    assert list(found) == [*formats, *([GM_ONLY[locale]] if facts is not None else [])]
    assert found["BBCode"] == bbcode
    assert found.get("Markdown") == markdown
    if facts is not None:
        secret = found[GM_ONLY[locale]]
        assert [line for line in secret.splitlines() if line.startswith("  - ")] == list(facts)
        for fact in facts:
            assert fact.strip("- ") not in bbcode + (markdown or "")


# --- Cluedo by game days ------------------------------------------------------------------


def test_cluedo_days_the_day_post_alone_and_shown_cards_and_gm_answers_apart(
    tmp_path: Path,
) -> None:
    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        start = table.new_mail()
        # The opening: no GM-only mail (the GM sheet holds the deal); the default
        # post_format: BBCode alone.
        assert summary(start)[3:] == [
            (GM, "[seed-000] Лист ГМа: решение и карты"),
            (GM, "[seed-000] Первый пост игры (день 1) — BBCode"),
        ]
        assert_apart(
            start,
            "[seed-000] Первый пост игры (день 1)",
            pbp_post(tmp_path, "seed-000", "--which", "opening"),
            None,
            None,
        )
        # Роза asks Кросс, who shows a card; Кросс asks Дуг, who never answers (C5, D6).
        table.send(
            "Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 17, 1)
        )
        table.run(utc(2026, 12, 1, 17, 2))
        table.send("Кросс", "ОПРОВЕРЖЕНИЕ Петя", at=utc(2026, 12, 1, 17, 3))
        table.send(
            "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 4)
        )
        assert table.run(utc(2026, 12, 1, 17, 5)) == ["applied", "applied"]
        table.new_mail()
        table.run(utc(2026, 12, 1, 19, 31))
        mails = table.new_mail()
        assert_apart(
            mails,
            "[seed-000] Итоги дня 1",
            pbp_post(tmp_path, "seed-000", "--day", "1"),
            None,
            [
                "  - №1: Розе показана карта «Петя» (от Кросса)",
                "  - №2 (Кросс → Дуг): ГМ ответил за Дуг — показана карта «Пистолет»",
            ],
        )
    finally:
        table.close()


def test_cluedo_days_in_english_the_gm_only_subject_says_so(tmp_path: Path) -> None:
    table = Table(tmp_path, locale="en", extra=BOTH)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        table.send("Кросс", "SUGGEST Маша, Пистолет, Спальня TO Дуг", at=utc(2026, 12, 1, 17, 4))
        table.run(utc(2026, 12, 1, 17, 5))
        table.new_mail()
        table.run(utc(2026, 12, 1, 19, 31))
        mails = table.new_mail()
        assert_apart(
            mails,
            "[seed-000] Day 1 summary",
            pbp_post(tmp_path, "seed-000", "--day", "1"),
            pbp_post(tmp_path, "seed-000", "--day", "1", "--format", "markdown"),
            [
                "  - #1 (Кросс → Дуг): the GM answered for Дуг — showed Пистолет",
            ],
            locale="en",
        )
    finally:
        table.close()


# --- Cluedo by rounds ---------------------------------------------------------------------


def test_cluedo_rounds_the_turn_post_alone_and_the_card_shown_apart(tmp_path: Path) -> None:
    table = RoundsTable(tmp_path, extra=BOTH)
    try:
        table.run(ROUNDS_START)
        table.new_mail()
        minute = timedelta(minutes=1)
        table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", at=ROUNDS_START + 5 * minute)
        table.run(ROUNDS_START + 6 * minute)
        table.send("Дуг", "ОПРОВЕРЖЕНИЕ Молоток", at=ROUNDS_START + 10 * minute)
        table.run(ROUNDS_START + 11 * minute)
        mails = table.new_mail()
        assert_apart(
            mails,
            "[seed-000] Итоги хода 1",
            pbp_post(tmp_path, "seed-000", "--turn", "1"),
            pbp_post(tmp_path, "seed-000", "--turn", "1", "--format", "markdown"),
            ["  - №1: Дуг → Кросс, карта «Молоток»"],
        )
        # Дуг's own hand (Молоток, Спальня) is never listed in a post.
        posts = post_mails(mails, "[seed-000] Итоги хода 1")
        assert "Спальня, Молоток" not in posts["BBCode"] + posts["Markdown"]
    finally:
        table.close()


# --- Maniac -------------------------------------------------------------------------------


def test_maniac_roles_orders_and_the_night_never_travel_with_a_post(tmp_path: Path) -> None:
    table = ManiacTable(tmp_path, extra=BOTH)
    try:
        table.run(utc(2026, 12, 1, 9))
        start = table.new_mail()
        roles = (
            "  - Роли: Вася — мирный житель, Петя — мирный житель, Таня — мирная жительница, "
            "Оля — мирная жительница, Саша — мирный житель, Маша — мирная жительница, "
            "Коля — маньяк, Дима — дежурный, Лена — фанат, Катя — мирная жительница"
        )
        assert_apart(
            start,
            "[seed-002] Первый пост игры (день 1)",
            pbp_post(tmp_path, "seed-002", "--which", "opening"),
            pbp_post(tmp_path, "seed-002", "--which", "opening", "--format", "markdown"),
            [roles],
        )
        table.move("Коля", "УБИТЬ Сашу", at=utc(2026, 12, 1, 10))
        table.move("Вася", "ГОЛОС Таню", at=utc(2026, 12, 1, 10, 5))
        evening = table.at(close(1))
        assert_apart(
            evening,
            "[seed-002] Вечер дня 1: итоги голосования",
            pbp_post(tmp_path, "seed-002", "--which", "evening", "--day", "1"),
            pbp_post(
                tmp_path, "seed-002", "--which", "evening", "--day", "1", "--format", "markdown"
            ),
            None,  # M3: the close of day 1 fixes no order (nights 1, 2: at the end of night 1)
        )
        morning = table.at(dawn(1))
        assert_apart(
            morning,
            "[seed-002] Утро после ночи 1",
            pbp_post(tmp_path, "seed-002", "--which", "morning", "--day", "2"),
            pbp_post(
                tmp_path, "seed-002", "--which", "morning", "--day", "2", "--format", "markdown"
            ),
            [
                "  - Заказа маньяка на ночь 2 нет (промах)",
                "  - Ночь 1: Саша погибает",
            ],
        )
        # No post mail names a role, the order or the maniac.
        posts = [
            text
            for mails, title in (
                (start, "[seed-002] Первый пост игры (день 1)"),
                (evening, "[seed-002] Вечер дня 1: итоги голосования"),
                (morning, "[seed-002] Утро после ночи 1"),
            )
            for part, text in post_mails(mails, title).items()
            if part in ("BBCode", "Markdown")
        ]
        assert len(posts) == 6
        for text in posts:
            for secret in ("Коля — маньяк", "убить Сашу", "Дима — дежурный", "Лена — фанат"):
                assert secret not in text, (secret, text)
    finally:
        table.close()
