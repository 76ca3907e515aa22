"""Issue 34, item 3, the leftovers: names in the echo of a suggestion and in the STATUS
list of answers owed (rule P2), the mail a Cluedo player the GM removed gets (C5), and
how a removal names a substitute.

Each test is named after the fault it holds and asserts the corrected text exactly, in
both locales. The games are seed 000's Cluedo by days and by rounds (:mod:`kits.table`,
:mod:`kits.rounds_table`: Кросс a man, Дуг and Роза women) and seed 002's Maniac
(:mod:`kits.maniac_table`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

import pytest
from kits.maniac_table import EMAILS as MANIAC_EMAILS
from kits.maniac_table import GAME as MANIAC_GAME
from kits.maniac_table import START as MANIAC_START
from kits.maniac_table import ManiacTable, bbcode
from kits.rounds_table import START as ROUNDS_START
from kits.rounds_table import RoundsTable
from kits.table import GM, Table, body, named_body, summary, utc

from pbp.app.shapes import GmResult, LeverDone
from pbp.games.cluedo.wording import wording
from pbp.games.core.registry import KINDS
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT
from pbp.text.render import Renderer

TEMPLATES = Path(__file__).resolve().parent.parent / "templates"
GAME = "seed-000"
#: Every card of seed 000's game: none may reach a removed player's mail (C2, C4).
CARDS = (
    *("Маша", "Петя", "Ваня", "Топор", "Пистолет", "Канделябр", "Молоток", "Веревка"),
    *("Нож", "Столовая", "Спальня", "Библиотека"),
)


@pytest.fixture(scope="module")
def renderer() -> Renderer:
    return Renderer(TEMPLATES, kinds=KINDS)


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
    # A name whose form needs a gender nobody gave stays as written: the echo is a
    # command the player may send back as it stands.
    assert _echo(renderer, "Веталь") == said + "Веталь"
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


# --- 3. STATUS: «на предположение №2 от Веталя (…)», never «Дуг на предположение №2» ---


def _owed(renderer: Renderer, suggester: str, locale: str, genders: dict[str, str]) -> str:
    sugg: dict[str, object] = {"number": 2, "suggester": suggester, "addressee": "Неташка"}
    sugg |= {"suspect": "Краснова", "weapon": "Нож", "room": "Терраса", "due": None}
    status: dict[str, object] = {
        "day": 1,
        "out": False,
        "removed": False,
        "character": None,
        "hand": ["Нож"],
    }
    status |= {"shown_to_me": [], "shown_by_me": [], "owed": [sugg], "awaiting": []}
    status |= {"suggestions_left": 0, "per_addressee_left": {}, "over": False, "winner": None}
    results = [{"line": "СТАТУС", "private": "status", "status": status}]
    context: dict[str, Any] = {"player": "Неташка", "results": results}
    context |= {"done": results, "not_done": [], "genders": genders}
    _subject, text = mail(renderer, "cluedo_days/reply", locale, **context)
    lines = text.split("\n")
    heading = lines.index("Вы должны ответить:" if locale == "ru" else "You owe:")
    return lines[heading + 1]


@pytest.mark.parametrize(
    ("suggester", "locale", "genders", "line"),
    [
        (
            "Веталь",
            "ru",
            {"Веталь": "masc"},
            "  - на предположение №2 от Веталя (Краснова, Нож, Терраса)",
        ),
        ("Дуг", "ru", {"Дуг": "femn"}, "  - на предположение №2 от Дуг (Краснова, Нож, Терраса)"),
        ("Веталь", "ru", {}, "  - на предположение №2 от игрока Веталь (Краснова, Нож, Терраса)"),
        ("Дуг", "en", {}, "  - an answer to suggestion #2 from Дуг (Краснова, Нож, Терраса)"),
    ],
)
def test_D3_the_status_list_of_answers_owed_names_the_suggester_in_the_genitive(
    renderer: Renderer, suggester: str, locale: str, genders: dict[str, str], line: str
) -> None:
    assert _owed(renderer, suggester, locale, genders) == line


@pytest.mark.parametrize(
    ("locale", "status_line", "reminder_line"),
    [
        (
            "ru",
            "Вы должны ответить на предположение №1 от Кросса (Петя, Молоток, Спальня) до 3 "
            "декабря 2026 г., 06:40 по Москве.",
            "Дуг, напоминаем: вы должны ответить на предположение №1 от Кросса (Петя, Молоток, "
            "Спальня) до 3 декабря 2026 г., 06:40 по Москве.",
        ),
        (
            "en",
            "You must answer suggestion #1 from Кросс (Петя, Молоток, Спальня) by December 3, "
            "2026, 06:40 MSK.",
            "Дуг, a reminder: you must answer suggestion #1 from Кросс (Петя, Молоток, "
            "Спальня) by December 3, 2026, 06:40 MSK.",
        ),
    ],
)
def test_R2_status_and_reminder_of_an_answer_owed_name_the_suggester_in_the_genitive(
    tmp_path: Path, locale: str, status_line: str, reminder_line: str
) -> None:
    table = RoundsTable(tmp_path, locale=locale, extra="remind_hours_before: 2\n")
    try:
        table.run(ROUNDS_START)
        table.new_mail()
        table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня", at=utc(2026, 12, 2, 15, 40))
        assert table.run(utc(2026, 12, 2, 15, 41)) == ["applied"]
        table.new_mail()
        table.send("Дуг", "СТАТУС" if locale == "ru" else "STATUS", at=utc(2026, 12, 2, 16))
        assert table.run(utc(2026, 12, 2, 16, 1)) == ["status"]
        (status,) = table.new_mail()
        assert status_line in body(status).split("\n")
        table.run(utc(2026, 12, 3, 1, 41))
        (reminder,) = table.new_mail()
        assert reminder_line in body(reminder).split("\n")
    finally:
        table.close()


# --- 2. a Cluedo player the GM removed is told so, and that the GM answers for him ---

SEAT_STAYS = {
    "ru": "Ваше место остаётся в игре: когда предположение требует от вас ответа, за вас "
    "отвечает ГМ — показывает первую из названных карт, которая у вас есть, в порядке "
    "подозреваемый — орудие — комната, а если таких карт нет, так и отвечает. Делать "
    "предположения и обвинения вы больше не можете. Когда игра закончится, вам придёт "
    "письмо с её итогом.",
    "en": "Your seat stays in the game: whenever a suggestion asks you for a card, the GM "
    "answers for you, showing the first of the named cards you hold in the order suspect, "
    "weapon, room, or no refutation when you hold none. You can no longer suggest or "
    "accuse. When the game ends, you get its result by mail.",
}


@pytest.mark.parametrize(
    ("variant", "locale", "subject", "first"),
    [
        ("days", "ru", "Вы исключены из игры", "Дуг, ГМ исключил вас из игры «seed-000» в день 1."),
        (
            "days",
            "en",
            "You have been removed from the game",
            'Дуг, the GM has removed you from the game "seed-000" on day 1.',
        ),
        (
            "rounds",
            "ru",
            "Вы исключены из игры",
            "Дуг, ГМ исключил вас из игры «seed-000» (ход 1).",
        ),
        (
            "rounds",
            "en",
            "You have been removed from the game",
            'Дуг, the GM has removed you from the game "seed-000" on turn 1.',
        ),
    ],
)
def test_C5_a_removed_cluedo_player_is_told_the_gm_answers_for_his_seat(
    tmp_path: Path, variant: str, locale: str, subject: str, first: str
) -> None:
    """The GM removes Дуг, who owes an answer (by days) or is asked (by rounds): she
    gets one mail, right after the announcement, naming the game and the moment and
    saying that her seat stays and the GM answers for it (C5); no card, hers or anyone
    else's, and nothing of the answer the GM gave for her."""
    table = (
        Table(tmp_path, locale=locale)
        if variant == "days"
        else RoundsTable(tmp_path, locale=locale)
    )
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        move = "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня" + (" ДЛЯ Дуг" if variant == "days" else "")
        table.send("Кросс", move, at=utc(2026, 12, 1, 17, 5))
        assert table.run(utc(2026, 12, 1, 17, 6)) == ["applied"]
        table.new_mail()
        table.service.gm.remove(GAME, "Дуг", now=utc(2026, 12, 1, 18), via="cli", note="пропала")
        mails = flushed(table)
        told = [m for m in mails if m["To"] == "doug@example.test"]
        assert summary(told) == [("doug@example.test", f"[seed-000] {subject}")]
        assert mails.index(told[0]) == 1  # after the announcement: it is its consequence
        text = named_body(told[0], GAME)
        assert text == f"{first}\n\n{SEAT_STAYS[locale]}\n"
        assert not [card for card in CARDS if card in text]
        assert "пропала" not in text  # the GM's note is his (the log and the post)
    finally:
        table.close()


@pytest.mark.parametrize(
    ("name", "locale", "first", "over"),
    [
        (
            "cluedo_days/removed",
            "ru",
            "Роза, ГМ исключил вас из игры «g-1» в день 2.",
            "Больше не осталось никого, кто мог бы предлагать и обвинять, поэтому игра окончена "
            "— её итог придёт следующим письмом.",
        ),
        (
            "cluedo_rounds/removed",
            "en",
            'Роза, the GM has removed you from the game "g-1" on turn 4.',
            "With that nobody is left who may suggest or accuse, so the game is over: its "
            "result comes in the next mail.",
        ),
    ],
)
def test_C7_a_removal_that_leaves_nobody_tells_the_removed_player_the_game_is_over(
    renderer: Renderer, name: str, locale: str, first: str, over: str
) -> None:
    removed = {"player": "Роза", "day": 2, "turn": 4}
    _subject, text = mail(renderer, name, locale, player="Роза", removed=removed, over=True)
    assert text == f"{first}\n\n{over}\n"


# --- 4. ИСКЛЮЧИТЬ Вову after ЗАМЕНА: «Вова (вместо Розы) исключён из игры» ---


def gm_mail(table: Table, *lines: str, at: datetime, to: str = "") -> None:
    """The GM mails ``lines`` to his personal GM address (or to ``to``); no trusted
    server here: each lever waits for his confirmation."""
    token = table.store.player_token(GAME, GM_SEAT)
    message = EmailMessage(policy=SMTP)
    message["From"] = GM
    message["To"] = to or f"gm+{token}@example.test"
    message["Subject"] = "команды"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content("\n".join(lines) + "\n")
    deliver(table.inbox_path, bytes(message), at=at)


@pytest.fixture
def days(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def test_removing_a_substitute_names_him_as_he_is_known_now_in_his_gender(days: Table) -> None:
    """Вова takes Роза's seat; the GM removes him by his own name: the confirmation, the
    GM's result and the post name him as the posts do, «Вова (вместо Розы)», in his
    gender (P2), never «Роза исключена»; his own mail calls him Вова."""
    gm = days.service.gm
    gm.substitute(
        GAME,
        "Роза",
        "Вова",
        "vova@example.test",
        now=utc(2026, 12, 1, 17, 30),
        via="cli",
        note=None,
    )
    flushed(days)
    gm_mail(days, "ИСКЛЮЧИТЬ Вову -- пропал", at=utc(2026, 12, 1, 18))
    assert days.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (asked,) = days.new_mail()
    assert "\n\n  ИСКЛЮЧИТЬ Вову (вместо Розы) -- пропал\n\n" in body(asked)
    gm_mail(days, "да", at=utc(2026, 12, 1, 18, 5), to=str(asked["Reply-To"]))
    assert days.run(utc(2026, 12, 1, 18, 6)) == ["gm_applied"]
    by_subject = {str(m["Subject"]): m for m in days.new_mail()}
    result = body(by_subject["[seed-000] Re: команды"])
    assert "> ИСКЛЮЧИТЬ Вову -- пропал\nВова (вместо Розы) исключён из игры.\n" in result
    post = bbcode(by_subject["[seed-000] Объявление для форума: игрок выбывает — BBCode"])
    assert post.startswith(
        "[b]ГМ исключил Вову (вместо Розы) из игры.[/b]\n\nПримечание ГМа: пропал\n\n"
        "Его место остаётся в игре: за него отвечает ГМ"
    )
    told = by_subject["[seed-000] Вы исключены из игры"]
    assert (str(told["To"]), named_body(told, GAME).split("\n")[0]) == (
        "vova@example.test",
        "Вова, ГМ исключил вас из игры «seed-000» в день 1.",
    )
    # pbp remove prints the result in English: the same name, the seat in its words.
    done: LeverDone = {"lever": "remove", "player": "Роза", "name": "Вова", "over": False}
    text = gm.result_text(
        days.service.game_config(GAME),
        [{"line": "", "lever": "remove", "done": done}],
        locale="en",
        cli=True,
    )
    assert text.startswith("Вова (for Роза) is removed.\n")


def test_removing_a_maniac_substitute_names_him_as_he_is_known_now(tmp_path: Path) -> None:
    """Maniac: Вова takes Маша's seat and is removed: the post says «Вова (вместо Маши)
    покидает игру», the GM's result «Вова (вместо Маши) исключён из игры»."""
    table = ManiacTable(tmp_path)
    try:
        table.run(MANIAC_START)
        table.new_mail()
        gm = table.service.gm
        gm.substitute(
            MANIAC_GAME,
            "Маша",
            "Вова",
            "vova@example.test",
            now=utc(2026, 12, 1, 10),
            via="cli",
            note=None,
        )
        flushed(table)
        done = gm.remove(MANIAC_GAME, "Вову", now=utc(2026, 12, 1, 11), via="cli", note=None)
        assert done == {"lever": "remove", "player": "Маша", "name": "Вова", "over": False}
        mails = flushed(table)
        post = bbcode(mails[0])
        assert post.startswith("[b]Вова (вместо Маши) покидает игру.[/b]\n\n")
        assert "Голоса, поданные им и за него, сняты." in post
        assert summary(mails[1:]) == [("vova@example.test", "[seed-002] Вы исключены из игры")]
        assert MANIAC_EMAILS["Маша"] not in {str(m["To"]) for m in mails}
        game = table.service.game_config(MANIAC_GAME)
        results: list[GmResult] = [{"line": "ИСКЛЮЧИТЬ Вову", "lever": "remove", "done": done}]
        assert "\nВова (вместо Маши) исключён из игры.\n" in gm.result_text(game, results)
    finally:
        table.close()
