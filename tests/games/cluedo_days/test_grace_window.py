"""Cluedo by game days with ``answer_grace_hours`` (rules D6, D7, P1), through
:class:`pbp.app.service.Service`: the public record shows every answer of a suggestion the
grace carried past its day, and every text names the close it is due at.

The seed-000 game of :mod:`kits.table` with a grace of 2 hours: day 1 closes at 22:30
Moscow (19:30 UTC), so a suggestion arriving after 20:30 Moscow (17:30 UTC) is due at
the close of day 2. The script: №1 (Кросс → Дуг, 17:05 UTC, due at the close of day 1,
answered by Дуг), №2 (Кросс → Дуг, 18:00 UTC, carried; Дуг answers it on day 2) and №3
(Роза → Кросс, 18:10 UTC, carried; nobody answers, the GM does at the close of day 2,
and Кросс has one suggestion fewer on day 3).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime, timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from kits.cli import pbp, run_ok
from kits.table import EMAILS, GM, Table, body, named_body, summary, utc

from pbp.app.gm.deadline import pass_deadline
from pbp.store import GM_SEAT
from pbp.text.gmcommands import PassDeadline

GRACE = "rules: {answer_grace_hours: 2}\n"
GAME = "seed-000"

CLOSE_1 = utc(2026, 12, 1, 19, 30)  # 22:30 Moscow


def day_one(table: Table) -> None:
    """Day 1 up to (not including) its close: №1 answered, №2 and №3 carried."""
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.send("Дуг", "ОПРОВЕРЖЕНИЕ 1 Пистолет", at=utc(2026, 12, 1, 17, 10))
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Дуг", at=utc(2026, 12, 1, 18))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 18, 10))
    table.run(utc(2026, 12, 1, 18, 20))


def day_two(table: Table) -> None:
    """Day 1 closes; on day 2 Дуг answers №2; day 2 closes (the GM answers №3)."""
    table.run(CLOSE_1 + timedelta(minutes=1))
    table.send("Дуг", "НЕТ ОПРОВЕРЖЕНИЯ 2", at=utc(2026, 12, 2, 10))
    table.run(utc(2026, 12, 2, 10, 1))
    table.run(utc(2026, 12, 2, 19, 31))


@pytest.fixture(params=["ru", "en"])
def locale(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _table(tmp_path: Path, locale: str, extra: str = "") -> Table:
    table = Table(tmp_path, locale=locale, extra=GRACE + extra)
    table.run(utc(2026, 12, 1, 17))
    return table


@pytest.fixture
def table(tmp_path: Path, locale: str) -> Iterator[Table]:
    table = _table(tmp_path, locale)
    yield table
    table.close()


def mail_to(mails: list[EmailMessage], to: str, subject: str) -> str:
    """The body of the one mail to ``to`` whose Subject ends with ``subject``."""
    found = [m for m in mails if m["To"] == to and str(m["Subject"]).endswith(subject)]
    assert len(found) == 1, [(m["To"], m["Subject"]) for m in mails]
    return body(found[0])


def post(table: Table, day: int) -> list[str]:
    """The lines of the day's summary post (BBCode) as it was kept at its close (P1)."""
    text = table.store.recorded_post(GAME, "day", day, "bbcode")
    assert text is not None
    return text.splitlines()


def section(lines: list[str], heading: str) -> list[str]:
    """The lines of a post under its bold ``heading``, up to the next blank line."""
    start = lines.index(f"[b]{heading}[/b]") + 1
    end = lines.index("", start) if "" in lines[start:] else len(lines)
    return lines[start:end]


# --- D7: the day it was made lists it as waiting ---

WAITING = {
    "ru": [
        "- №1, Кросс → Дуг: [b]Маша[/b], [b]Пистолет[/b], [b]Спальня[/b] — опровергнуто",
        "- №2, Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — ждёт ответа до закрытия "
        "дня 2",
        "- №3, Роза → Кросс: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — ждёт ответа до закрытия "
        "дня 2",
    ],
    "en": [
        "- #1, Кросс → Дуг: [b]Маша[/b], [b]Пистолет[/b], [b]Спальня[/b] — refuted",
        "- #2, Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — waiting for an answer "
        "until the close of day 2",
        "- #3, Роза → Кросс: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — waiting for an answer "
        "until the close of day 2",
    ],
}
HEADINGS = {
    "ru": {
        "today": "Предположения",
        "earlier": "Ответы на предположения прошлых дней",
        "by_gm": "Ответы ГМа за не ответивших до закрытия дня",
        "penalties": "Штрафы: на одно предположение меньше за каждое, оставшееся без ответа",
        "day 2": "Предположения на день 2",
        "day 3": "Предположения на день 3",
    },
    "en": {
        "today": "Suggestions",
        "earlier": "Answers to suggestions of earlier days",
        "by_gm": "The GM's answers for those who did not answer by the close",
        "penalties": "Penalties: one suggestion fewer for each left unanswered",
        "day 2": "Suggestions for day 2",
        "day 3": "Suggestions for day 3",
    },
}


def test_D7_carried_suggestion_listed_as_waiting_in_the_day_it_was_made(
    table: Table, locale: str
) -> None:
    """Day 1's summary lists №2 and №3 as waiting until the close of day 2: no GM answer
    and no penalty for them at this close (D6), everybody has 3 suggestions on day 2."""
    day_one(table)
    table.run(utc(2026, 12, 1, 19, 31))
    lines = post(table, 1)
    words = HEADINGS[locale]
    assert section(lines, words["today"]) == WAITING[locale]
    assert f"[b]{words['by_gm']}[/b]" not in lines
    assert f"[b]{words['penalties']}[/b]" not in lines
    three = {"ru": "3 предположения", "en": "3 suggestions"}[locale]
    assert section(lines, words["day 2"]) == [
        f"- {name}: {three}" for name in ("Кросс", "Дуг", "Роза")
    ]


# --- D7: the day it is answered in lists it, with its number and its day ---

EARLIER = {
    "ru": [
        "- №2 (день 1), Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — опровержения нет",
        "- №3 (день 1), Роза → Кросс: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — опровергнуто "
        "(за Кросса ответил ГМ)",
    ],
    "en": [
        "- #2 (day 1), Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — no refutation",
        "- #3 (day 1), Роза → Кросс: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — refuted "
        "(the GM answered for Кросс)",
    ],
}


def test_D7_carried_suggestion_answered_by_the_player_is_listed_in_the_day_it_is_answered(
    table: Table, locale: str
) -> None:
    """Дуг answers №2 (of day 1) on day 2: day 2's summary lists it with its number and
    its day, and the answer (never a card); it is no GM answer and costs nothing."""
    day_one(table)
    day_two(table)
    lines = post(table, 2)
    words = HEADINGS[locale]
    assert section(lines, words["earlier"])[0] == EARLIER[locale][0]
    none = {"ru": "- Предположений не было.", "en": "- No suggestions were made."}[locale]
    assert section(lines, words["today"]) == [none]
    assert len([line for line in lines if "№2" in line or "#2" in line]) == 1
    assert section(lines, words["penalties"]) == [
        {
            "ru": "- Кросс: 1 предположение осталось без ответа — в день 3 на 1 предположение "
            "меньше",
            "en": "- Кросс: 1 suggestion unanswered, 1 fewer on day 3",
        }[locale]
    ]  # Дуг is not there: he answered №2 in time


GM_ANSWER = {
    "ru": [
        "[b]Опровержение для Розы[/b] (за Кросса ответил ГМ)",
        "[quote][b]Предположение_1 для Кросса (№3)[/b]",
        "Карта показана приватом.",
    ],
    "en": [
        "[b]Refutation for Роза[/b] (the GM answered for Кросс)",
        "[quote][b]Suggestion_1 for Кросс (#3)[/b]",
        "The card was shown privately.",
    ],
}


def test_D7_carried_suggestion_answered_by_the_gm_is_listed_in_the_summary_of_that_close(
    table: Table, locale: str
) -> None:
    """Nobody answers №3 (of day 1): the GM does at the close of day 2 (C5). Day 2's
    summary lists it among the answers to earlier days, quotes the GM's answer as a
    player's is quoted (D4, the card said to be shown privately, never named), and
    Кросс has one suggestion fewer on day 3, the day after that close (D6), none fewer
    on day 2."""
    day_one(table)
    table.run(utc(2026, 12, 1, 19, 31))
    words = HEADINGS[locale]
    three = {"ru": "- Кросс: 3 предположения", "en": "- Кросс: 3 suggestions"}[locale]
    assert section(post(table, 1), words["day 2"])[0] == three
    day_two(table)
    lines = post(table, 2)
    assert section(lines, words["earlier"]) == EARLIER[locale]
    # The GM's answer as a player's (D4): its heading, the suggestion quoted (its
    # sentence is P2's), the card said to be shown, never named.
    start = lines.index(f"[b]{words['by_gm']}[/b]")
    heading, quoted, sentence, shown = lines[start + 2 : start + 6]
    assert [heading, quoted, shown] == GM_ANSWER[locale]
    assert sentence.endswith("[/quote]")
    assert section(lines, words["penalties"]) == [
        {
            "ru": "- Кросс: 1 предположение осталось без ответа — в день 3 на 1 предположение "
            "меньше",
            "en": "- Кросс: 1 suggestion unanswered, 1 fewer on day 3",
        }[locale]
    ]
    two = {"ru": "- Кросс: 2 предположения", "en": "- Кросс: 2 suggestions"}[locale]
    assert section(lines, words["day 3"])[0] == two


# --- D6/D7: the addressee's mail names the close it is due at ---

DUE = {
    "ru": {
        1: "Ответить нужно до закрытия дня 1 — 1 декабря 2026 г., 22:30 по Москве. Иначе за вас "
        "ответит ГМ (первой подходящей картой в порядке подозреваемый — орудие — комната), а в "
        "день 2 у вас будет на одно предположение меньше.",
        2: "Предположение пришло меньше чем за 2 часа до закрытия дня, поэтому ответить на него "
        "можно до закрытия следующего игрового дня — 2 декабря 2026 г., 22:30 по Москве. Иначе "
        "за вас ответит ГМ — «нет опровержения», а в день 3 у вас будет на одно предположение "
        "меньше.",
        3: "Предположение пришло меньше чем за 2 часа до закрытия дня, поэтому ответить на него "
        "можно до закрытия следующего игрового дня — 2 декабря 2026 г., 22:30 по Москве. Иначе "
        "за вас ответит ГМ (первой подходящей картой в порядке подозреваемый — орудие — "
        "комната), а в день 3 у вас будет на одно предположение меньше.",
    },
    "en": {
        1: "Answer before day 1 closes: December 1, 2026, 22:30 MSK. Otherwise the GM answers "
        "for you (with the first matching card in the order suspect, weapon, room) and you have "
        "one suggestion fewer on day 2.",
        2: "The suggestion arrived less than 2 hours before today's close, so you may answer it "
        "until the next game day closes: December 2, 2026, 22:30 MSK. Otherwise the GM answers "
        "for you that you hold none of these cards, and you have one suggestion fewer on day "
        "3.",
        3: "The suggestion arrived less than 2 hours before today's close, so you may answer it "
        "until the next game day closes: December 2, 2026, 22:30 MSK. Otherwise the GM answers "
        "for you (with the first matching card in the order suspect, weapon, room) and you have "
        "one suggestion fewer on day 3.",
    },
}
ADDRESSED = {
    "ru": {
        1: ("doug@example.test", "Предположение №1 от Кросса"),
        2: ("doug@example.test", "Предположение №2 от Кросса"),
        3: ("cross@example.test", "Предположение №3 от Розы"),
    },
    "en": {
        1: ("doug@example.test", "Suggestion #1 from Кросс"),
        2: ("doug@example.test", "Suggestion #2 from Кросс"),
        3: ("cross@example.test", "Suggestion #3 from Роза"),
    },
}


def test_D6_D7_addressee_mail_names_the_close_a_carried_suggestion_is_due_at(
    table: Table, locale: str
) -> None:
    """№2 and №3 arrived within the grace: their addressees are told the next day's
    close, date and time, and that a missed answer costs a suggestion on day 3 (the
    day after that close); №1 is due at today's close, as without a grace."""
    table.new_mail()
    day_one(table)
    mails = table.new_mail()
    for number, (to, subject) in ADDRESSED[locale].items():
        text = mail_to(mails, to, subject)
        assert text.splitlines()[-1] == DUE[locale][number], number


# --- D6: the opening post and the welcome mail say it ---

GRACE_RULE = {
    "ru": "Если предположение сделано меньше чем за 2 часа до закрытия дня, ответить на него "
    "можно до закрытия следующего дня; тогда и штраф за пропущенный ответ — на день позже.",
    "en": "A suggestion made less than 2 hours before a day's close may be answered until the "
    "next day's close; the penalty for a missed answer then comes a day later too.",
}
OPENING = {
    "ru": ("Первый пост игры (день 1) — BBCode", "Клуэдо: ваши карты"),
    "en": ("Opening post (day 1) — BBCode", "Cluedo: your cards"),
}


def test_D6_opening_post_and_welcome_tell_when_a_late_suggestion_is_due(
    table: Table, locale: str
) -> None:
    mails = table.new_mail()
    opening, welcome = OPENING[locale]
    lines = mail_to(mails, "gm-person@example.test", opening).splitlines()
    how = lines[lines.index({"ru": "[b]Ход игры[/b]", "en": "[b]How the days go[/b]"}[locale]) + 1]
    assert how.endswith(" " + GRACE_RULE[locale])
    assert GRACE_RULE[locale] in mail_to(mails, "rosa@example.test", welcome).splitlines()


def test_D6_without_a_grace_the_opening_post_says_nothing_of_it(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        text = mail_to(table.new_mail(), "gm-person@example.test", OPENING["ru"][0])
        assert "меньше чем за" not in text
    finally:
        table.close()


# --- D6: the reminders ---

REMINDED = {
    "ru": [
        "- Вы должны ответить Кроссу на предположение №1 (Ваня, Нож, Столовая) — до закрытия "
        "дня 2.",
        "- На сегодня у вас осталось 3 предположения.",
    ],
    "en": [
        "- You owe Кросс an answer to suggestion #1 (Ваня, Нож, Столовая) by the close of day 2.",
        "- 3 suggestions left today.",
    ],
}
REMINDED_DAY_2 = {
    "ru": [
        "- Вы должны ответить Кроссу на предположение №1 (Ваня, Нож, Столовая).",
        "- На сегодня у вас осталось 3 предположения.",
        "",
        "Если не ответить до закрытия дня, за вас ответит ГМ, а завтра у вас будет на одно "
        "предположение меньше за каждый такой ответ ГМа.",
    ],
    "en": [
        "- You owe Кросс an answer to suggestion #1 (Ваня, Нож, Столовая).",
        "- 3 suggestions left today.",
        "",
        "If you do not answer by the close, the GM answers for you and you have one suggestion "
        "fewer tomorrow for each such suggestion.",
    ],
}


def test_D6_reminder_gives_a_carried_suggestion_the_close_it_is_due_at(
    tmp_path: Path, locale: str
) -> None:
    """Reminders an hour before the close, a grace of 2 hours: №1 (21:00 Moscow) is
    owed at the reminder of 21:30, due at the close of day 2, so the reminder of day 1
    says so and threatens no penalty for tomorrow; the reminder of day 2 lists it as
    due at that day's close, with the penalty."""
    table = _table(tmp_path, locale, "remind_hours_before: 1\n")
    try:
        table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Дуг", at=utc(2026, 12, 1, 18))
        table.run(utc(2026, 12, 1, 18, 1))
        table.new_mail()
        table.run(utc(2026, 12, 1, 18, 31))  # 21:31 Moscow: the reminder of day 1
        subject = {"ru": "день закрывается", "en": "the day closes"}[locale]
        reminders = [m for m in table.new_mail() if m["To"] == "doug@example.test"]
        assert len(reminders) == 1 and subject in str(reminders[0]["Subject"])
        assert body(reminders[0]).splitlines()[-2:] == REMINDED[locale]
        table.run(utc(2026, 12, 2, 18, 31))  # the reminder of day 2
        reminders = [m for m in table.new_mail() if m["To"] == "doug@example.test"]
        assert body(reminders[-1]).splitlines()[-4:] == REMINDED_DAY_2[locale]
    finally:
        table.close()


# --- P1: the day's post is the record of its close ---


def test_P1_the_day_a_carried_suggestion_was_made_reads_as_at_its_close(
    table: Table, locale: str
) -> None:
    """Rendered again from the whole log after №2 and №3 were answered on day 2, day 1
    still shows them waiting, as its post did at its close; ``pbp post --day 1`` prints
    that post."""
    day_one(table)
    table.run(utc(2026, 12, 1, 19, 31))
    at_close = table.store.recorded_post(GAME, "day", 1, "bbcode")
    day_two(table)
    events = [s.event for s in table.store.events(GAME, public_only=True)]
    game = table.config.game(GAME)
    again = table.service.renderer.public_post(
        "day", events, locale=locale, fmt="bbcode", **table.service.mail.post_context(game), day=1
    )
    assert again == at_close
    assert section(again.splitlines(), HEADINGS[locale]["today"]) == WAITING[locale]
    printed = run_ok(table.directory / "games.yaml", "post", GAME, "--day", "1")
    assert printed.rstrip("\n") == at_close.rstrip("\n")


# --- D7: the final post of a game that ends on the day a carried one is answered ---

FINAL = {
    "ru": [
        "[b]Ответы на предположения прошлых дней[/b]",
        "- №2 (день 1), Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — опровержения нет",
    ],
    "en": [
        "[b]Answers to suggestions of earlier days[/b]",
        "- #2 (day 1), Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — no refutation",
    ],
}


def test_D7_final_post_lists_a_carried_suggestion_answered_on_the_last_day(
    table: Table, locale: str
) -> None:
    """Дуг answers №2 on day 2, then Роза's accusation ends the game before day 2 closes:
    the final post, which tells the thread the last day, lists that answer."""
    day_one(table)
    table.run(utc(2026, 12, 1, 19, 31))
    table.send("Дуг", "НЕТ ОПРОВЕРЖЕНИЯ 2", at=utc(2026, 12, 2, 10))
    table.send("Роза", "ОБВИНЕНИЕ Маша, Топор, Столовая", at=utc(2026, 12, 2, 11))
    table.run(utc(2026, 12, 2, 11, 1))
    final = table.store.recorded_post(GAME, "final", 2, "bbcode")
    assert final is not None
    lines = final.splitlines()
    start = lines.index(FINAL[locale][0])
    assert lines[start : start + 2] == FINAL[locale]


# --- D6: the GM moving the close does not take back a carried suggestion's day ---

#: №1 (Кросс → Дуг, 21:00 Moscow, 90 minutes before the close): carried to day 2.
CARRIED_ONE = {
    "ru": [
        "- №1, Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — ждёт ответа до закрытия "
        "дня 2",
    ],
    "en": [
        "- #1, Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — waiting for an answer "
        "until the close of day 2",
    ],
}


def _carried_then_moved(table: Table, locale: str) -> list[str]:
    """Кросс's №1 to Дуг arrives at 21:00 Moscow, within the grace; Дуг is told it is
    due at the close of day 2 (as the second mail of DUE says)."""
    table.new_mail()
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Дуг", at=utc(2026, 12, 1, 18))
    table.run(utc(2026, 12, 1, 18, 1))
    subject = {"ru": "Предположение №1 от Кросса", "en": "Suggestion #1 from Кросс"}[locale]
    return mail_to(table.new_mail(), "doug@example.test", subject).splitlines()


def _day_one_kept_its_promise(table: Table, locale: str) -> None:
    lines = post(table, 1)
    words = HEADINGS[locale]
    assert section(lines, words["today"]) == CARRIED_ONE[locale]
    assert f"[b]{words['by_gm']}[/b]" not in lines
    assert f"[b]{words['penalties']}[/b]" not in lines
    three = {"ru": "- Дуг: 3 предположения", "en": "- Дуг: 3 suggestions"}[locale]
    assert section(lines, words["day 2"])[1] == three


def test_D6_an_extended_close_keeps_a_carried_suggestion_due_at_the_next_close(
    table: Table, locale: str
) -> None:
    """№1 arrives 90 minutes before the close and Дуг is told it is due at the close of
    day 2; the GM then extends day 1 by 3 hours (it closes at 01:30). The close that
    comes does not answer it for Дуг nor cost him a suggestion: it stays due at the
    close of day 2, as his mail said (the grace counts from the close as scheduled)."""
    told = _carried_then_moved(table, locale)
    assert told[-1] == DUE[locale][2]
    table.service.gm.extend(GAME, 3, now=utc(2026, 12, 1, 18, 5), via="cli", note=None)
    table.run(utc(2026, 12, 1, 22, 31))  # 01:31 Moscow: day 1 closed
    _day_one_kept_its_promise(table, locale)


def test_D6_a_pause_keeps_a_carried_suggestion_due_at_the_next_close(
    table: Table, locale: str
) -> None:
    """№1 is carried (its mail says day 2); the GM pauses at 21:30 and resumes at 23:00
    Moscow, so day 1 closes at 00:00 with the hour it had left. That close leaves №1
    due at the close of day 2, as Дуг was told."""
    told = _carried_then_moved(table, locale)
    assert told[-1] == DUE[locale][2]
    gm = table.service.gm
    gm.pause(GAME, now=utc(2026, 12, 1, 18, 30), via="cli", note=None)
    done = gm.resume(GAME, now=utc(2026, 12, 1, 20), via="cli", note=None)
    assert done["deadline_at"] == "2026-12-01T21:00:00+00:00"
    table.run(utc(2026, 12, 1, 21, 1))
    _day_one_kept_its_promise(table, locale)


# --- D7: the final post of a game that ends while a carried suggestion waits ---

ENDED = {
    "ru": [
        "[b]День 2 (последний)[/b]",
        "- №4, Кросс → Роза: [b]Петя[/b], [b]Топор[/b], [b]Библиотека[/b] — ответа не было: игра "
        "окончена",
        "",
        "[b]Ответы на предположения прошлых дней[/b]",
        "- №2 (день 1), Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — ответа не было: "
        "игра окончена",
        "- №3 (день 1), Роза → Кросс: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — ответа не было: "
        "игра окончена",
        "",
    ],
    "en": [
        "[b]Day 2 (the last)[/b]",
        "- #4, Кросс → Роза: [b]Петя[/b], [b]Топор[/b], [b]Библиотека[/b] — no answer: the game "
        "is over",
        "",
        "[b]Answers to suggestions of earlier days[/b]",
        "- #2 (day 1), Кросс → Дуг: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — no answer: the "
        "game is over",
        "- #3 (day 1), Роза → Кросс: [b]Ваня[/b], [b]Нож[/b], [b]Столовая[/b] — no answer: the "
        "game is over",
        "",
    ],
}


def test_D7_final_post_lists_a_carried_suggestion_the_game_ended_before_its_answer(
    table: Table, locale: str
) -> None:
    """Day 1's post left №2 and №3 waiting until the close of day 2; Роза's right
    accusation ends the game on day 2 before anybody answers them, and before Роза
    answers Кросс's №4 of that day. The final post, the thread's last word on day 2,
    lists all three as never answered (not "no answer yet": no answer can come now),
    numbered as the day posts number them (#4 in English, №4 in Russian)."""
    day_one(table)
    table.run(utc(2026, 12, 1, 19, 31))
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Топор, Библиотека ДЛЯ Роза", at=utc(2026, 12, 2, 10))
    table.send("Роза", "ОБВИНЕНИЕ Маша, Топор, Столовая", at=utc(2026, 12, 2, 11))
    table.run(utc(2026, 12, 2, 11, 1))
    final = table.store.recorded_post(GAME, "final", 2, "bbcode")
    assert final is not None
    lines = final.splitlines()
    start = lines.index(ENDED[locale][0])
    assert lines[start : start + 7] == ENDED[locale]


# --- D6: a grace of a whole game day carries every suggestion ---


@pytest.mark.parametrize(("hours", "warned"), [(23.5, False), (24, True), (30, True)])
def test_D6_pbp_check_warns_of_a_grace_of_a_game_day_or_more(
    tmp_path: Path, hours: float, warned: bool
) -> None:
    """A grace of 24 hours or more is no grace for late suggestions: every suggestion,
    whenever it is made, is then due at the next day's close (and the texts tell the
    players "less than 30 hours before the close"). ``pbp check`` accepts it (a
    *config* of D6) with a warning naming the setting."""
    table = Table(tmp_path, extra=f"rules: {{answer_grace_hours: {hours}}}\n")
    table.close()
    result = pbp(tmp_path / "games.yaml", "check")
    assert result.code == 0
    warning = (
        f"{tmp_path / 'games.yaml'}: warning: seed-000: rules.answer_grace_hours: {hours:g} "
        "hours is a game day or more, so every suggestion is due at the next day's close "
        "whenever it is made (rule D6's grace is for suggestions made late in the day): "
        "give fewer than 24 hours"
    )
    assert [line for line in result.err if "warning" in line] == ([warning] if warned else [])


# --- D6: every view of an answer owed names the close the grace carries it to ---

#: Дуг's owed answers after №1 (17:05 UTC, due at the close of day 1) and №2 (18:00
#: UTC, carried): №1 as before, №2 with the close of day 2, date and time.
OWED = {
    "ru": [
        "  - на предположение №1 от Кросса (Маша, Пистолет, Спальня)",
        "  - на предположение №2 от Кросса (Ваня, Нож, Столовая) — до закрытия дня 2, "
        "2 декабря 2026 г., 22:30 по Москве",
    ],
    "en": [
        "  - an answer to suggestion #1 from Кросс (Маша, Пистолет, Спальня)",
        "  - an answer to suggestion #2 from Кросс (Ваня, Нож, Столовая) by the close of day 2, "
        "December 2, 2026, 22:30 MSK",
    ],
}
OWED_DAY_2 = {
    "ru": ["  - на предположение №2 от Кросса (Ваня, Нож, Столовая)"],
    "en": ["  - an answer to suggestion #2 from Кросс (Ваня, Нож, Столовая)"],
}
AWAITING = {
    "ru": [
        "  - №1 (Дуг): Маша, Пистолет, Спальня",
        "  - №2 (Дуг): Ваня, Нож, Столовая — ответ до закрытия дня 2, 2 декабря 2026 г., "
        "22:30 по Москве",
    ],
    "en": [
        "  - #1 (Дуг): Маша, Пистолет, Спальня",
        "  - #2 (Дуг): Ваня, Нож, Столовая — may be answered until the close of day 2, "
        "December 2, 2026, 22:30 MSK",
    ],
}
WORDS = {
    "ru": {"owed": "Вы должны ответить:", "awaiting": "Ваши предположения без ответа:"},
    "en": {"owed": "You owe:", "awaiting": "Your suggestions waiting for an answer:"},
}


def one_due_one_carried(table: Table) -> None:
    """Кросс's №1 to Дуг (20:05 Moscow, due at the close of day 1) and №2 (21:00
    Moscow, less than 2 hours before it: carried to the close of day 2)."""
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Ваня, Нож, Столовая ДЛЯ Дуг", at=utc(2026, 12, 1, 18))
    table.run(utc(2026, 12, 1, 18, 1))


def listed(text: str, heading: str) -> list[str]:
    """The ``  - `` lines of a mail under its line ``heading``."""
    lines = text.splitlines()
    start = lines.index(heading) + 1
    end = next((i for i in range(start, len(lines)) if not lines[i].startswith("  - ")), None)
    return lines[start:end]


def status_of(table: Table, player: str, at: datetime, locale: str) -> str:
    """The reply to ``player``'s STATUS mail arriving at ``at``."""
    table.new_mail()
    table.send(player, {"ru": "СТАТУС", "en": "STATUS"}[locale], at=at)
    table.run(at + timedelta(minutes=1))
    (reply,) = [m for m in table.new_mail() if m["To"] == EMAILS[player]]
    return body(reply)


def test_D6_status_gives_a_carried_answer_owed_the_close_it_is_due_at(
    table: Table, locale: str
) -> None:
    """Дуг's STATUS lists №2, which the grace carries, with the close of day 2 (as his
    mail and the reminder say), and №1, due at today's close, as before; on day 2 №2 is
    due at that day's close: nothing is added to it."""
    one_due_one_carried(table)
    text = status_of(table, "Дуг", utc(2026, 12, 1, 18, 5), locale)
    assert listed(text, WORDS[locale]["owed"]) == OWED[locale]
    table.run(utc(2026, 12, 1, 19, 31))  # day 1 closes: the GM answers №1
    text = status_of(table, "Дуг", utc(2026, 12, 2, 10), locale)
    assert listed(text, WORDS[locale]["owed"]) == OWED_DAY_2[locale]


def test_D6_status_gives_the_suggester_the_close_his_carried_suggestion_is_due_at(
    table: Table, locale: str
) -> None:
    """Кросс's STATUS lists his №2 waiting for an answer until the close of day 2, so he
    does not look for it at today's close; №1 as before."""
    one_due_one_carried(table)
    text = status_of(table, "Кросс", utc(2026, 12, 1, 18, 5), locale)
    assert listed(text, WORDS[locale]["awaiting"]) == AWAITING[locale]


@pytest.mark.parametrize("paused", [False, True])
def test_D6_substitute_briefing_gives_a_carried_answer_the_close_it_is_due_at(
    table: Table, locale: str, paused: bool
) -> None:
    """The GM gives Дуг's seat to Вова: the briefing lists what the seat owes as STATUS
    does, №2 with the close of day 2; so too while the GM's pause holds the game (the
    close as it stood when he paused, which the briefing says moves at his resume)."""
    one_due_one_carried(table)
    gm = table.service.gm
    if paused:
        gm.pause(GAME, now=utc(2026, 12, 1, 18, 2), via="cli", note=None)
    table.new_mail()
    gm.substitute(
        GAME, "Дуг", "Вова", "vova@example.test", now=utc(2026, 12, 1, 18, 3), via="cli", note=None
    )
    table.run(utc(2026, 12, 1, 18, 4))
    (briefing,) = [m for m in table.new_mail() if m["To"] == "vova@example.test"]
    assert listed(body(briefing), WORDS[locale]["owed"]) == OWED[locale]


PENDING = {
    "ru": [
        "  - №1 (день 1), Кросс → Дуг: Маша, Пистолет, Спальня",
        "  - №2 (день 1), Кросс → Дуг: Ваня, Нож, Столовая — ответ до закрытия дня 2",
    ],
    "en": [
        "  - #1 (day 1), Кросс → Дуг: Маша, Пистолет, Спальня",
        "  - #2 (day 1), Кросс → Дуг: Ваня, Нож, Столовая — due at the close of day 2",
    ],
}


def test_D6_gm_status_and_pbp_show_give_a_carried_suggestion_the_close_it_is_due_at(
    table: Table, locale: str
) -> None:
    """The GM's STATUS by mail (in the game's language) and ``pbp show`` (in English)
    list №2 as due at the close of day 2, №1 (due today) as before."""
    one_due_one_carried(table)
    table.new_mail()
    gm_address = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    table.send(
        "Кросс",
        {"ru": "СТАТУС", "en": "STATUS"}[locale],
        at=utc(2026, 12, 1, 18, 5),
        to=gm_address,
        sender=GM,
    )
    table.run(utc(2026, 12, 1, 18, 6))
    (status,) = [m for m in table.new_mail() if m["To"] == GM]
    waiting = {"ru": "Ждут ответа:", "en": "Waiting for an answer:"}[locale]
    assert listed(body(status), waiting) == PENDING[locale]
    shown = run_ok(table.directory / "games.yaml", "show", GAME)
    assert listed(shown, "Waiting for an answer:") == PENDING["en"]


# --- D6: the suggester's reply says when a carried suggestion may be answered ---

ACCEPTED = {
    "ru": (
        "Принято: предположение №1 для Дуг (Маша, Пистолет, Спальня). Дуг получит его по почте.",
        "Принято: предположение №2 для Дуг (Ваня, Нож, Столовая). Дуг получит его по почте. "
        "Оно пришло меньше чем за 2 часа до закрытия дня, поэтому ответить на него можно до "
        "закрытия следующего игрового дня — 2 декабря 2026 г., 22:30 по Москве.",
    ),
    "en": (
        "Accepted: suggestion #1 to Дуг (Маша, Пистолет, Спальня). Дуг gets it by mail.",
        "Accepted: suggestion #2 to Дуг (Ваня, Нож, Столовая). Дуг gets it by mail. It arrived "
        "less than 2 hours before today's close, so it may be answered until the next game day "
        "closes: December 2, 2026, 22:30 MSK.",
    ),
}


def test_D6_suggesters_reply_says_a_carried_suggestion_may_be_answered_until_the_next_close(
    table: Table, locale: str
) -> None:
    """The reply to Кросс's №2 (made within the grace) adds that it may be answered until
    the close of day 2, as Дуг's mail says; the reply to №1 (due today) adds nothing."""
    table.new_mail()
    one_due_one_carried(table)
    replies = [body(m) for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
    assert len(replies) == 2
    for reply, accepted in zip(replies, ACCEPTED[locale], strict=True):
        assert accepted in reply.splitlines()


# --- D6: an early close carries a suggestion due at it; its addressee is told ---

CARRIED_MAIL = {
    "ru": (
        "[seed-000] Предположение №1 от Кросса: ответ до закрытия дня 2",
        "Дуг, ГМ закрыл день 1 раньше срока. Предположение №1 от Кросса (Маша, Пистолет, "
        "Столовая) пришло меньше чем за 2 часа до этого закрытия, поэтому ответить на него "
        "можно до закрытия следующего игрового дня — 2 декабря 2026 г., 22:30 по Москве.\n\n"
        "Иначе за вас ответит ГМ (первой подходящей картой в порядке подозреваемый — орудие — "
        "комната), а в день 3 у вас будет на одно предположение меньше.\n",
    ),
    "en": (
        "[seed-000] Suggestion #1 from Кросс: answer by the close of day 2",
        "Дуг, the GM closed day 1 early. Suggestion #1 from Кросс (Маша, Пистолет, Столовая) "
        "arrived less than 2 hours before that close, so you may answer it until the next game "
        "day closes: December 2, 2026, 22:30 MSK.\n\n"
        "Otherwise the GM answers for you (with the first matching card in the order suspect, "
        "weapon, room) and you have one suggestion fewer on day 3.\n",
    ),
}
#: Day 1's post after the early close: both wait for the close of day 2.
EARLY_WAITING = {
    "ru": [
        "- №1, Кросс → Дуг: [b]Маша[/b], [b]Пистолет[/b], [b]Столовая[/b] — ждёт ответа до "
        "закрытия дня 2",
        "- №2, Роза → Кросс: [b]Маша[/b], [b]Нож[/b], [b]Столовая[/b] — ждёт ответа до закрытия "
        "дня 2",
    ],
    "en": [
        "- #1, Кросс → Дуг: [b]Маша[/b], [b]Пистолет[/b], [b]Столовая[/b] — waiting for an "
        "answer until the close of day 2",
        "- #2, Роза → Кросс: [b]Маша[/b], [b]Нож[/b], [b]Столовая[/b] — waiting for an answer "
        "until the close of day 2",
    ],
}


def told_today_and_carried(table: Table, locale: str) -> None:
    """№1 (Кросс → Дуг, 20:00 Moscow, 2½ hours before the close: Дуг is told it is due at
    today's close; he holds Пистолет) and №2 (Роза → Кросс, 21:00: Кросс is told the
    close of day 2)."""
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Столовая ДЛЯ Дуг", at=utc(2026, 12, 1, 17))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Маша, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 18))
    table.run(utc(2026, 12, 1, 18, 1))
    mails = table.new_mail()
    told = mail_to(mails, "doug@example.test", ADDRESSED[locale][1][1]).splitlines()[-1]
    assert told.startswith(
        {
            "ru": "Ответить нужно до закрытия дня 1 — 1 декабря 2026 г., 22:30",
            "en": "Answer before day 1 closes: December 1, 2026, 22:30",
        }[locale]
    )


def test_D6_an_early_close_tells_the_addressee_his_answer_is_due_at_the_next_close(
    table: Table, locale: str
) -> None:
    """The GM closes day 1 at 21:30 Moscow (``pbp close-day``), less than 2 hours after
    №1 arrived: №1 is carried to the close of day 2 (the grace counts from the close
    that came: Дуг could not foresee it), and Дуг, told today's close, is mailed the
    close of day 2 in that close's batch, once. Кросс, told the close of day 2 for №2
    already, gets nothing, nor does anybody else; neither the mail nor the day post names
    a card of Дуг's but as the suggestion named it (not which the GM would show). At the
    close of day 2 №1 is answered for Дуг by the GM, the penalty falling on day 3, as the
    mail says."""
    table.new_mail()
    told_today_and_carried(table, locale)
    pass_deadline(
        table.service, GAME, PassDeadline("close-day", 1), now=utc(2026, 12, 1, 18, 30), via="cli"
    )
    table.run(utc(2026, 12, 1, 18, 31))
    mails = table.new_mail()
    subject, text = CARRIED_MAIL[locale]
    day_post = {"ru": "[seed-000] Итоги дня 1 — BBCode", "en": "[seed-000] Day 1 summary — BBCode"}
    assert summary(mails) == [(GM, day_post[locale]), ("doug@example.test", subject)]
    assert named_body(mails[1], GAME) == text
    lines = post(table, 1)
    for said in (text, "\n".join(lines)):
        assert not {"Спальня", "Молоток"} & set(re.findall(r"\w+", said))
        assert said.count("Пистолет") == 1
    assert section(lines, HEADINGS[locale]["today"]) == EARLY_WAITING[locale]
    table.run(utc(2026, 12, 2, 19, 31))  # day 2 closes: the GM answers both
    answered = {"ru": "за вас ответил ГМ", "en": "the GM answered for you"}[locale]
    by_gm = [m["To"] for m in table.new_mail() if str(m["Subject"]).endswith(answered)]
    assert by_gm == ["doug@example.test", "cross@example.test"]
    assert section(post(table, 2), HEADINGS[locale]["penalties"]) == PENALTIES_DAY_3[locale]


PENALTIES_DAY_3 = {
    "ru": [
        "- Дуг: 1 предположение осталось без ответа — в день 3 на 1 предположение меньше",
        "- Кросс: 1 предположение осталось без ответа — в день 3 на 1 предположение меньше",
    ],
    "en": [
        "- Дуг: 1 suggestion unanswered, 1 fewer on day 3",
        "- Кросс: 1 suggestion unanswered, 1 fewer on day 3",
    ],
}


def test_D6_a_close_on_time_mails_nobody_of_a_carried_suggestion_again(
    table: Table, locale: str
) -> None:
    """The same suggestions, day 1 closing at its time: №1 is answered by the GM (Дуг
    was told today's close), №2 stays carried and Кросс gets no second mail of it."""
    table.new_mail()
    told_today_and_carried(table, locale)
    table.run(utc(2026, 12, 1, 19, 31))
    answered = {
        "ru": [
            "[seed-000] Предположение №1: за вас ответил ГМ",
            "[seed-000] Предположение №1: вам показали карту",
        ],
        "en": [
            "[seed-000] Suggestion #1: the GM answered for you",
            "[seed-000] Suggestion #1: a card was shown to you",
        ],
    }[locale]
    assert [s for to, s in summary(table.new_mail()) if to != GM] == answered
    assert section(post(table, 1), HEADINGS[locale]["today"])[1] == EARLY_WAITING[locale][1]


def test_D6_close_day_by_mail_tells_the_addressee_in_the_same_batch(tmp_path: Path) -> None:
    """ЗАКРЫТЬ ДЕНЬ by mail, confirmed at 21:30 Moscow: the close's mails are the day
    post, the GM's result and Дуг's mail that №1 is due at the close of day 2."""
    table = _table(tmp_path, "ru")
    try:
        table.new_mail()
        told_today_and_carried(table, "ru")
        gm_address = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
        table.send("Кросс", "ЗАКРЫТЬ ДЕНЬ", at=utc(2026, 12, 1, 18, 25), to=gm_address, sender=GM)
        table.run(utc(2026, 12, 1, 18, 26))
        (asked,) = table.new_mail()
        table.send("Кросс", "да", at=utc(2026, 12, 1, 18, 30), to=str(asked["Reply-To"]), sender=GM)
        table.run(utc(2026, 12, 1, 18, 31))
        mails = table.new_mail()
        assert summary(mails) == [
            (GM, "[seed-000] Итоги дня 1 — BBCode"),
            ("doug@example.test", CARRIED_MAIL["ru"][0]),
            (GM, "[seed-000] Re: ход"),
        ]
        assert named_body(mails[1], GAME) == CARRIED_MAIL["ru"][1]
    finally:
        table.close()
