"""The GM's closes and kept mail by mail (issue 31, items 1 and 5): CLOSE DAY / ЗАКРЫТЬ
ДЕНЬ, END NIGHT / ЗАВЕРШИТЬ НОЧЬ, KEPT / ОТЛОЖЕННЫЕ, RETRY / ПОВТОРИТЬ, DISMISS /
ОТКЛОНИТЬ, through the service and its Maildir mailboxes.

No trusted server here (:class:`kits.table.Table`'s default): every command that
changes a game waits for the GM's confirmation, a reply from his registered address to
pbp's ``gm_confirm`` mail, and takes effect at that reply's arrival (rule D8); KEPT
changes nothing and is answered at once. Seed 000's Cluedo by days (Кросс, Дуг, Роза;
day 1 closes 2026-12-01 22:30 Moscow = 19:30 UTC) and seed 002's Maniac
(:mod:`kits.maniac_table`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.maniac_table import ManiacTable, close
from kits.table import GM, Table, body, crash_apply, named_body, summary, utc

from pbp.app.keptview import REASONS
from pbp.cli import main
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT
from pbp.text.gmcommands import NewAddress, parse_gm

GAME = "seed-000"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def gm_mail(
    table: Table, *lines: str, at: datetime, game: str = GAME, sender: str = GM, to: str = ""
) -> None:
    """The GM mails ``lines`` to his personal GM address of ``game`` (or to ``to``)."""
    token = table.store.player_token(game, GM_SEAT)
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = to or f"gm+{token}@example.test"
    message["Subject"] = "команды"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content("\n".join(lines) + "\n")
    deliver(table.inbox_path, bytes(message), at=at)


def confirm(table: Table, asked: EmailMessage, at: datetime, sender: str = GM) -> None:
    """The GM replies "да" to pbp's ``gm_confirm`` mail ``asked`` (to its Reply-To)."""
    gm_mail(table, "да", at=at, sender=sender, to=str(asked["Reply-To"]))


def events(table: Table, game: str = GAME, since: int = 0) -> list[tuple[str, datetime, int]]:
    """``(kind, at, day)`` of the events of ``game`` after seq ``since``."""
    return [(s.event.kind, s.at, s.day or 0) for s in table.store.events(game) if s.seq > since]


def test_close_day_by_mail_asks_confirmation_and_the_reply_closes_the_day(table: Table) -> None:
    seq = table.store.events(GAME)[-1].seq
    gm_mail(table, "ЗАКРЫТЬ ДЕНЬ -- все походили", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (asked,) = table.new_mail()
    assert summary([asked]) == [(GM, "[seed-000] Подтвердите команды ГМа")]
    # What the GM confirms names the day it closes.
    assert "\n\n  ЗАКРЫТЬ ДЕНЬ 1 -- все походили\n\n" in body(asked)
    assert events(table, since=seq) == []
    confirm(table, asked, utc(2026, 12, 1, 18, 5))
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["gm_applied"]
    # Closed at the confirmation's arrival, as `pbp close-day` would then; the GM's
    # own GM-only event first (his STATUS's last lever, the story).
    closed = utc(2026, 12, 1, 18, 5)
    assert events(table, since=seq) == [("gm_close", closed, 1), ("day_closed", closed, 1)]
    gm_close = table.store.events(GAME)[-2]
    assert gm_close.event.visibility.value == "gm"
    assert dict(gm_close.event.data) == {
        "command": "close-day",
        "deadline": "day",
        "period": 1,
        "via": "mail",
        "note": "все походили",
    }
    mails = table.new_mail()
    assert summary(mails) == [
        (GM, "[seed-000] Итоги дня 1 — BBCode"),
        (GM, "[seed-000] Re: команды"),
    ]
    assert body(mails[0]) == (
        "[b]Итоги дня 1[/b]\n\n[b]Предположения[/b]\n- Предположений не было.\n\n"
        "[b]Предположения на день 2[/b]\n- Кросс: 3 предположения\n- Дуг: 3 предположения\n"
        "- Роза: 3 предположения\n"
    )
    assert named_body(mails[1], GAME).startswith(
        "> ЗАКРЫТЬ ДЕНЬ -- все походили\nДень 1 закрыт. Следующий срок: 2 декабря 2026 г., 22:30 "
        "по Москве. Посты придут отдельными письмами, как в любой срок.\n"
    )
    # The same confirmation once more closes nothing.
    confirm(table, asked, utc(2026, 12, 1, 18, 10))
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["gm_confirmed_already"]
    assert [k for k, _at, _d in events(table, since=seq)] == ["gm_close", "day_closed"]


def test_a_confirmed_close_day_does_not_close_the_next_day_when_its_own_closed_meanwhile(
    table: Table,
) -> None:
    """Rule D8: the GM asked for day 1; it closed at its time before he confirmed."""
    gm_mail(table, "CLOSE DAY", at=utc(2026, 12, 1, 19))
    assert table.run(utc(2026, 12, 1, 19, 1)) == ["gm_pending"]
    (asked,) = table.new_mail()
    confirm(table, asked, utc(2026, 12, 1, 20))
    assert table.run(utc(2026, 12, 1, 20, 1)) == ["gm_refused"]
    closes = [(k, at) for k, at, _d in events(table) if k == "day_closed"]
    assert closes == [("day_closed", utc(2026, 12, 1, 19, 30))]
    answer = body(table.new_mail()[-1])
    assert (
        "> CLOSE DAY\nНе выполнено. День 1 игры seed-000 уже закрыт (в свой срок или другой "
        "командой).\n"
    ) in answer


def test_end_night_by_mail_in_a_game_without_nights_or_paused_is_refused_at_once(
    table: Table,
) -> None:
    gm_mail(table, "ЗАВЕРШИТЬ НОЧЬ", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_refused"]
    (answer,) = table.new_mail()
    assert "> ЗАВЕРШИТЬ НОЧЬ\nНе выполнено. В игре seed-000 нет ночей.\n" in body(answer)
    table.service.gm.pause(GAME, now=utc(2026, 12, 1, 18, 2), via="cli", note=None)
    gm_mail(table, "ЗАКРЫТЬ ДЕНЬ", at=utc(2026, 12, 1, 18, 3))
    assert table.run(utc(2026, 12, 1, 18, 4)) == ["gm_refused"]
    answer = table.new_mail()[-1]
    assert "> ЗАКРЫТЬ ДЕНЬ\nНе выполнено. Игра seed-000 на паузе" in body(answer)
    assert [k for k, _at, _d in events(table) if k == "day_closed"] == []


def test_end_night_by_mail_on_maniac_ends_the_night_and_in_the_day_says_what_to_use(
    tmp_path: Path,
) -> None:
    table = ManiacTable(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 9))
        game = "seed-002"
        gm = "gm-person@example.test"
        table.new_mail()
        gm_mail(table, "END NIGHT", at=utc(2026, 12, 1, 10), game=game, sender=gm)
        assert table.run(utc(2026, 12, 1, 10, 1)) == ["gm_refused"]
        (answer,) = table.new_mail()
        assert (
            "> END NIGHT\nНе выполнено. В игре seed-002 сейчас день, а не ночь: его закрывает "
            "ЗАКРЫТЬ ДЕНЬ.\n"
        ) in body(answer)
        table.at(close(1))  # day 1 closes at its time: night 1
        seq = table.store.events(game)[-1].seq
        gm_mail(table, "ЗАВЕРШИТЬ НОЧЬ", at=utc(2026, 12, 1, 20), game=game, sender=gm)
        assert table.run(utc(2026, 12, 1, 20, 1)) == ["gm_pending"]
        (asked,) = table.new_mail()
        assert "\n\n  ЗАВЕРШИТЬ НОЧЬ 1\n\n" in body(asked)
        confirm(table, asked, utc(2026, 12, 1, 20, 30), sender=gm)
        assert table.run(utc(2026, 12, 1, 20, 31)) == ["gm_applied"]
        # Ended at the confirmation's arrival, as `pbp end-night` would then.
        assert events(table, game, seq) == [
            ("gm_close", utc(2026, 12, 1, 20, 30), 1),
            ("order_fixed", utc(2026, 12, 1, 20, 30), 1),
            ("night_resolution", utc(2026, 12, 1, 20, 30), 1),
            ("night_ended", utc(2026, 12, 1, 20, 30), 1),
        ]
        mails = table.new_mail()
        assert summary(mails) == [
            (gm, "[seed-002] Утро после ночи 1 — BBCode"),
            (gm, "[seed-002] Утро после ночи 1 — только для ГМа"),
            ("kolya@example.test", "[seed-002] Заказа на ночь 2 нет"),
            (gm, "[seed-002] Ночь 1: как она прошла"),
            (gm, "[seed-002] Re: команды"),
        ]
        assert named_body(mails[-1], game).startswith(
            "> ЗАВЕРШИТЬ НОЧЬ\nНочь 1 завершена. Следующий срок: 2 декабря 2026 г., 22:00 "
            "по Москве. Посты придут отдельными письмами, как в любой срок.\n"
        )
        # The GM's close is his, not the forum's: no post tells it.
        assert not [m for m in mails[:1] if "ГМ" in body(m) or "досрочно" in body(m)]
        # His STATUS names it as his last command.
        gm_mail(table, "СТАТУС", at=utc(2026, 12, 1, 20, 40), game=game, sender=gm)
        assert table.run(utc(2026, 12, 1, 20, 41)) == ["gm_applied"]
        (status,) = table.new_mail()
        assert (
            "\nПоследняя команда ГМа: завершение ночи, 1 декабря 2026 г., 23:30 по Москве, "
            "по почте.\n"
        ) in body(status)
    finally:
        table.close()


def keep_three(table: Table) -> None:
    """Kept 1: a stranger's mail; kept 2: Дуг's СТАТУС to Кросс's address; kept 3: an
    auto-reply from Роза (as tests/test_kept_retry.py keeps them)."""
    at = utc(2026, 12, 1, 18)
    table.send("Кросс", "СТАТУС", at=at, sender="stranger@example.test", to="gm@example.test")
    table.send(
        "Дуг", "СТАТУС", at=utc(2026, 12, 1, 18, 0, 1), to=f"gm+{table.token('Кросс')}@example.test"
    )
    table.send(
        "Роза",
        "В отпуске",
        at=utc(2026, 12, 1, 18, 0, 2),
        headers=[("Auto-Submitted", "auto-replied")],
    )
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["unknown_sender", "wrong_sender", "automatic"]
    table.new_mail()


def test_kept_by_mail_lists_the_waiting_rows_at_once_without_confirmation(table: Table) -> None:
    keep_three(table)
    gm_mail(table, "ОТЛОЖЕННЫЕ", at=utc(2026, 12, 1, 18, 10))
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["gm_applied"]
    (answer,) = table.new_mail()
    assert named_body(answer, GAME).startswith(
        "> ОТЛОЖЕННЫЕ\n"
        "Отложенные письма ждут (номер, когда пришло, отправитель, игра, причина):\n"
        "  1  1 декабря 2026 г., 21:00 по Москве  stranger@example.test  -  отправитель не "
        "играет ни в одной игре\n"
        "  2  1 декабря 2026 г., 21:00 по Москве  doug@example.test  seed-000  пришло на чужой "
        "личный адрес\n"
        "  3  1 декабря 2026 г., 21:00 по Москве  rosa@example.test  seed-000  автоматическое "
        "письмо: отказ доставки, автоответ, рассылка\n"
        "Ответьте ПОВТОРИТЬ <номер>, чтобы обработать письмо снова (после исправления), или "
        "ОТКЛОНИТЬ <номер>, чтобы закрыть его, не применяя.\n"
    )


def test_kept_and_help_repeated_in_one_mail_are_answered_once(table: Table) -> None:
    """KEPT reads every kept mail's headers: a forged mail of KEPT lines (no confirmation
    needed) gets one listing, the later lines "answered above"."""
    keep_three(table)
    gm_mail(table, "KEPT", "ОТЛОЖЕННЫЕ", "HELP", "KEPT", "ПОМОЩЬ", at=utc(2026, 12, 1, 18, 10))
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["gm_applied"]
    (answer,) = table.new_mail()
    text = body(answer)
    assert text.count("Отложенные письма ждут (номер, когда пришло") == 1
    assert text.count("Команды ГМа (по одной в строке") == 1
    above = "Ответ — выше: повторённая в письме команда получает один ответ.\n"
    assert f"> ОТЛОЖЕННЫЕ\n{above}" in text
    assert f"> KEPT\n{above}" in text
    assert f"> ПОМОЩЬ\n{above}" in text
    assert text.count(above) == 3


def test_kept_beside_a_lever_is_answered_in_the_confirmation_mail(table: Table) -> None:
    """Issue 31 review: KEPT and DISMISS in one mail; KEPT needs no confirmation, so
    the mail asking to confirm DISMISS lists the kept rows under ``> KEPT``."""
    keep_three(table)
    gm_mail(table, "KEPT", "DISMISS 1", at=utc(2026, 12, 1, 18, 10))
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["gm_pending"]
    (asked,) = table.new_mail()
    assert "\n\n  ОТКЛОНИТЬ 1\n\n" in body(asked)
    assert (
        "\n\n> KEPT\n"
        "Отложенные письма ждут (номер, когда пришло, отправитель, игра, причина):\n"
        "  1  1 декабря 2026 г., 21:00 по Москве  stranger@example.test  -  отправитель не "
        "играет ни в одной игре\n"
        "  2  1 декабря 2026 г., 21:00 по Москве  doug@example.test  seed-000  пришло на чужой "
        "личный адрес\n"
        "  3  1 декабря 2026 г., 21:00 по Москве  rosa@example.test  seed-000  автоматическое "
        "письмо: отказ доставки, автоответ, рассылка\n"
        "Ответьте ПОВТОРИТЬ <номер>, чтобы обработать письмо снова (после исправления), или "
        "ОТКЛОНИТЬ <номер>, чтобы закрыть его, не применяя.\n"
    ) in body(asked)


def test_dismiss_by_mail_asks_confirmation_then_closes_the_rows_for_good(table: Table) -> None:
    keep_three(table)
    gm_mail(table, "ОТКЛОНИТЬ 1, 3", at=utc(2026, 12, 1, 18, 10))
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["gm_pending"]
    (asked,) = table.new_mail()
    assert "\n\n  ОТКЛОНИТЬ 1, 3\n\n" in body(asked)
    assert [k.dismissed_at for k in table.store.kept()] == [None, None, None]
    confirm(table, asked, utc(2026, 12, 1, 18, 20))
    assert table.run(utc(2026, 12, 1, 18, 21)) == ["gm_applied"]
    (answer,) = table.new_mail()
    assert named_body(answer, GAME).startswith(
        "> ОТКЛОНИТЬ 1, 3\nОтклонено: 1, 3. Письма остаются в журнале и больше не ждут.\n"
    )
    kept = [(k.id, k.dismissed_at, k.waiting) for k in table.store.kept()]
    assert kept == [
        (1, utc(2026, 12, 1, 18, 20), False),
        (2, None, True),
        (3, utc(2026, 12, 1, 18, 20), False),
    ]
    result = CliRunner().invoke(main, ["-c", str(table.config.path), "kept", "--json"])
    assert [row["status"] for row in json.loads(result.output)] == [
        "dismissed 2026-12-01 21:20 MSK",
        "waiting",
        "dismissed 2026-12-01 21:20 MSK",
    ]
    # KEPT lists the one still waiting; a second DISMISS is refused at once.
    gm_mail(table, "KEPT", "DISMISS 3", at=utc(2026, 12, 1, 18, 30))
    assert table.run(utc(2026, 12, 1, 18, 31)) == ["gm_refused"]
    (answer,) = table.new_mail()
    text = body(answer)
    assert "\n  2  1 декабря 2026 г., 21:00 по Москве  doug@example.test  seed-000  " in text
    assert (
        "\n  1  " not in text
        and "\nЕщё 2 уже повторены, применены после паузы или отклонены.\n" in text
    )
    assert (
        "> DISMISS 3\nНе выполнено. Отложенное письмо 3 отклонено 1 декабря 2026 г., 21:20 "
        "по Москве: делать с ним больше нечего.\n"
    ) in text


def test_a_gm_can_neither_retry_nor_dismiss_a_row_of_another_game(table: Table) -> None:
    keep_three(table)
    with table.store.transaction():  # held for a game of another GM
        other = table.store.keep(
            "maildir:other",
            utc(2026, 12, 1, 18),
            "paused",
            b"From: a@example.test\n\n",
            utc(2026, 12, 1, 18),
            held_for="other-1",
        )
    assert other == 4
    gm_mail(table, "RETRY 4", "ОТКЛОНИТЬ 4", at=utc(2026, 12, 1, 18, 10))
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["gm_refused"]
    (answer,) = table.new_mail()
    refusal = (
        "Не выполнено. Среди отложенных писем ваших игр нет письма 4 (их перечисляет ОТЛОЖЕННЫЕ)."
    )
    assert f"> RETRY 4\n{refusal}\n" in body(answer)
    assert f"> ОТКЛОНИТЬ 4\n{refusal}\n" in body(answer)
    assert table.store.kept_message(4) == table.store.kept()[3]
    assert table.store.kept()[3].dismissed_at is None


def test_retry_by_mail_of_a_row_that_cannot_succeed_says_why_and_asks_nothing(
    table: Table,
) -> None:
    keep_three(table)
    gm_mail(table, "ПОВТОРИТЬ 2", at=utc(2026, 12, 1, 18, 10))
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["gm_refused"]
    (answer,) = table.new_mail()
    assert (
        "> ПОВТОРИТЬ 2\nНе выполнено. Отложенное письмо 2 в нынешнем виде не пройдёт: игрок Дуг "
        "написал его на личный адрес игрока Кросс (игра seed-000), и письмо снова отложится; "
        "внесите его ходы командой ЗА Дуг: <ход>.\n"
    ) in body(answer)
    assert table.store.kept_message(2) is not None
    assert table.store.kept()[1].retried_at is None


def test_retry_by_mail_after_a_fix_applies_the_kept_move_at_its_arrival_once_confirmed(
    table: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    crash_apply(monkeypatch, "cluedo_days", 1)
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["error"]
    notice = next(m for m in table.new_mail() if m["To"] == GM)
    # The GM's notice ends with the mail commands that act on it.
    assert body(notice).rstrip("\n").split("\n")[-1] == (
        "Ответьте ПОВТОРИТЬ 1, когда ошибку исправят (обновление pbp), или ОТКЛОНИТЬ 1, "
        "чтобы закрыть его, не применяя."
    )
    gm_mail(table, "ПОВТОРИТЬ 1", at=utc(2026, 12, 1, 17, 30))
    assert table.run(utc(2026, 12, 1, 17, 31)) == ["gm_pending"]
    (asked,) = table.new_mail()
    assert "\n\n  ПОВТОРИТЬ 1\n\n" in body(asked)
    confirm(table, asked, utc(2026, 12, 1, 17, 40))
    assert table.run(utc(2026, 12, 1, 17, 41)) == ["gm_applied"]
    made = [
        (s.event.data["suggester"], s.at, s.day)
        for s in table.store.events(GAME)
        if s.event.kind == "suggestion_made"
    ]
    assert made == [("Кросс", utc(2026, 12, 1, 17, 5), 1)]  # at its arrival (D8)
    mails = table.new_mail()
    assert summary(mails)[-1] == (GM, "[seed-000] Re: команды")
    assert named_body(mails[-1], GAME).startswith(
        "> ПОВТОРИТЬ 1\nОтложенное письмо 1 обработано снова: применено.\n"
    )
    (kept,) = table.store.kept()
    assert (kept.retried_at, kept.retry_outcome, kept.waiting) == (
        utc(2026, 12, 1, 17, 40),
        "applied",
        False,
    )


def test_pbp_dismiss_closes_rows_and_refuses_one_closed_already(table: Table) -> None:
    keep_three(table)
    config = str(table.config.path)
    result = CliRunner().invoke(main, ["-c", config, "dismiss", "2", "1"])
    assert (result.exit_code, result.output) == (0, "kept:2: dismissed\nkept:1: dismissed\n")
    result = CliRunner().invoke(main, ["-c", config, "dismiss", "3", "1"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: Kept mail 1 was dismissed on ")
    assert table.store.kept()[2].dismissed_at is None  # all or none
    result = CliRunner().invoke(main, ["-c", config, "retry", "1"])
    assert result.exit_code == 1
    assert result.output.startswith("Error: Kept mail 1 was dismissed on ")
    result = CliRunner().invoke(main, ["-c", config, "dismiss", "9"])
    assert (result.exit_code, result.output) == (1, "Error: no kept message 9 (see pbp kept)\n")


@pytest.mark.parametrize("command", ["retry", "dismiss"])
def test_pbp_retry_and_dismiss_refuse_an_id_past_sqlites_largest_integer(
    table: Table, command: str
) -> None:
    config = str(table.config.path)
    result = CliRunner().invoke(main, ["-c", config, command, "9223372036854775808"])
    assert result.exit_code == 2 and result.exception is not None
    assert result.output.rstrip("\n").split("\n")[-1] == (
        "Error: Invalid value for 'ID...': 9223372036854775808 is not in the range "
        "1<=x<=9223372036854775807."
    )


def test_pbp_kept_explain_prints_every_reason_with_what_to_do() -> None:
    result = CliRunner().invoke(main, ["kept", "--explain"])
    assert result.exit_code == 0
    blocks = result.output.rstrip("\n").split("\n\n")
    assert [b.split("\n")[0] for b in blocks] == list(REASONS)
    assert blocks[1] == (
        "wrong_sender\n  sent to someone else's personal address\n  what to do: the player "
        "at a new address: pbp readdress GAME PLAYER --email NEW (an ASCII one: pbp "
        "registers no other), then pbp retry ID; a move for that player: pbp act GAME "
        "PLAYER '...'; else pbp dismiss ID"
    )


def test_the_daily_digest_ends_with_the_mail_commands(table: Table) -> None:
    keep_three(table)
    table.run(utc(2026, 12, 2, 6, 1))  # 09:01 Moscow: the digest's hour
    (digest,) = [m for m in table.new_mail() if "Сводка" in str(m["Subject"])]
    assert "pbp " not in body(digest)
    assert body(digest).rstrip("\n").split("\n")[-3:] == [
        "№3  1 декабря 2026 г., 21:00 по Москве  rosa@example.test  автоматическое письмо: "
        "возврат, автоответ, рассылка (RFC 3834; без ответа)  [seed-000]",
        "",
        "Отвечать на это письмо не обязательно. Если нужно, ответьте на него командами: "
        "ОТЛОЖЕННЫЕ — список "
        "отложенных писем, ПОВТОРИТЬ <номер> — обработать письмо снова, ОТКЛОНИТЬ <номер> — "
        "закрыть его, не применяя.",
    ]


def test_the_daily_digest_marks_a_kept_mail_the_gm_dismissed_before_it(table: Table) -> None:
    """Issue 31 review: a kept mail dismissed before the digest is no longer shown as
    waiting for an answer."""
    keep_three(table)
    result = CliRunner().invoke(main, ["-c", str(table.config.path), "dismiss", "3"])
    assert (result.exit_code, result.output) == (0, "kept:3: dismissed\n")
    table.run(utc(2026, 12, 2, 6, 1))  # 09:01 Moscow: the digest's hour
    (digest,) = [m for m in table.new_mail() if "Сводка" in str(m["Subject"])]
    lines = body(digest).split("\n")
    assert [line for line in lines if line.startswith("№")] == [
        "№1  1 декабря 2026 г., 21:00 по Москве  stranger@example.test  отправитель не "
        "зарегистрирован ни в одной игре (без ответа)",
        "№3  1 декабря 2026 г., 21:00 по Москве  rosa@example.test  автоматическое письмо: "
        "возврат, автоответ, рассылка (RFC 3834; без ответа)  [seed-000] — после отклонено, "
        "больше не ждёт",
    ]


@pytest.mark.parametrize(
    ("locale", "unread"),
    [
        (
            "ru",
            "Эти строки вашего ответа не прочитаны: ответ на письмо с подтверждением только "
            "подтверждает. Пришлите их новым письмом на ваш адрес ГМа {address}.\n",
        ),
        (
            "en",
            "These lines of your reply were not read: a reply to a confirmation mail only "
            "confirms. Send them in a new mail to your GM address {address}.\n",
        ),
    ],
)
def test_command_lines_in_a_reply_to_a_confirmation_are_said_not_read(
    tmp_path: Path, locale: str, unread: str
) -> None:
    """Issue 31 review: the GM confirms and writes new commands under his "yes"; they
    are not read (a reply to a confirmation only confirms): his answer says so and
    names his GM address, in the confirming answer and in the "already done" one. A
    "thank you" is no command and is not named."""
    table = Table(tmp_path, locale=locale)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        address = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
        note = unread.format(address=address)
        gm_mail(table, "PAUSE", at=utc(2026, 12, 1, 18))
        assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
        (asked,) = table.new_mail()
        to = str(asked["Reply-To"])
        gm_mail(table, "да", "EXTEND 2", "Спасибо!", at=utc(2026, 12, 1, 18, 5), to=to)
        assert table.run(utc(2026, 12, 1, 18, 6)) == ["gm_applied"]
        answer = body(table.new_mail()[-1])
        assert f"\n\n{note}  EXTEND 2\n\n" in answer
        assert "Спасибо" not in answer
        assert [e.event.kind for e in table.store.events(GAME)][-1] == "gm_pause"
        gm_mail(table, "yes", "RESUME", at=utc(2026, 12, 1, 18, 10), to=to)
        assert table.run(utc(2026, 12, 1, 18, 11)) == ["gm_confirmed_already"]
        (again,) = table.new_mail()
        assert body(again).endswith(f"\n\n{note}  RESUME\n")
        # A plain confirmation says nothing of the kind.
        gm_mail(table, "RESUME", at=utc(2026, 12, 1, 18, 20))
        assert table.run(utc(2026, 12, 1, 18, 21)) == ["gm_pending"]
        (asked,) = table.new_mail()
        confirm(table, asked, utc(2026, 12, 1, 18, 25))
        assert table.run(utc(2026, 12, 1, 18, 26)) == ["gm_applied"]
        assert note.split(":")[0] not in body(table.new_mail()[-1])
    finally:
        table.close()


def test_new_address_by_mail_once_confirmed_gives_the_gm_a_new_address(table: Table) -> None:
    """Issue 31: a GM with only a mail client replaces a leaked GM address. НОВЫЙ АДРЕС
    waits for his confirmation (a forger who knows the old address must not rotate it),
    then rotates it as ``pbp rotate-token GAME --gm`` does: the result, at his registered
    address, has the new address as its Reply-To; the old one is answered as replaced."""
    seq = table.store.events(GAME)[-1].seq
    old = table.store.player_token(GAME, GM_SEAT)
    gm_mail(table, "НОВЫЙ АДРЕС", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (asked,) = table.new_mail()
    assert summary([asked]) == [(GM, "[seed-000] Подтвердите команды ГМа")]
    assert "\n\n  НОВЫЙ АДРЕС\n\n" in body(asked)
    assert (
        "Если вы не посылали этой команды, не отвечайте: её написал кто-то, кто знает ваш "
        "адрес ГМа. Чтобы получить новый адрес ГМа, пошлите НОВЫЙ АДРЕС отдельной строкой "
        "на ваш адрес ГМа с вашего зарегистрированного адреса и подтвердите.\n"
    ) in body(asked)
    assert table.store.player_token(GAME, GM_SEAT) == old
    confirm(table, asked, utc(2026, 12, 1, 18, 5))
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["gm_applied"]
    new = table.store.player_token(GAME, GM_SEAT)
    assert new not in (None, old)
    rotated = table.store.events(GAME)[-1]
    assert (rotated.seq > seq, rotated.event.kind, rotated.at) == (
        True,
        "gm_address_rotated",
        utc(2026, 12, 1, 18, 5),
    )
    assert dict(rotated.event.data) == {"player": GM_SEAT, "via": "mail"}
    (result,) = table.new_mail()
    assert (result["To"], result["Reply-To"]) == (GM, f"gm+{new}@example.test")
    assert named_body(result, GAME).startswith(
        "> НОВЫЙ АДРЕС\nВаш новый адрес ГМа: "
        f"gm+{new}@example.test (он в Reply-To этого письма). Старый больше не работает: "
        "на письмо туда придёт ответ, что он заменён.\n"
    )
    # The old address is retired: its commands are not read, the answer names the new one.
    gm_mail(table, "ПАУЗА", at=utc(2026, 12, 1, 18, 10), to=f"gm+{old}@example.test")
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["retired"]
    (retired,) = table.new_mail()
    assert (retired["To"], retired["Reply-To"]) == (GM, f"gm+{new}@example.test")
    assert (
        "Ваше письмо пришло на адрес ГМа для команд игры «seed-000», который заменён новым, "
        "поэтому ни одна команда из него не выполнена. Ваш адрес ГМа теперь "
        f"gm+{new}@example.test: пишите команды туда (проще всего ответом на это письмо)."
    ) in " ".join(body(retired).split())
    # The new one takes his commands.
    gm_mail(table, "ПАУЗА", at=utc(2026, 12, 1, 18, 15))
    assert table.run(utc(2026, 12, 1, 18, 16)) == ["gm_pending"]


def test_new_address_by_mail_with_words_after_it_is_a_syntax_error() -> None:
    (line,) = parse_gm("новый адрес пожалуйста")
    assert line.error is not None
    assert (line.name, line.lever, line.error.code, line.error.params) == (
        "new_address",
        None,
        "gm_syntax",
        {"lever": "new_address", "syntax": "NEW ADDRESS"},
    )
    assert [c.lever for c in parse_gm("NEW ADDRESS\nНовый  адрес")] == [NewAddress(), NewAddress()]


def test_maniac_void_result_mail_names_an_event_it_refuses_in_words_not_its_kind(
    tmp_path: Path,
) -> None:
    """Maniac's GM result mail said «Отменяются только: vote_cast, order_placed»; it says
    what the refused event is and which moves can be voided, in the catalog's words."""
    table = ManiacTable(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 9))
        game, gm = "seed-002", "gm-person@example.test"
        table.move("Вася", "ГОЛОС за Петю", at=utc(2026, 12, 1, 10))
        (vote,) = [s.seq for s in table.store.events(game) if s.event.kind == "vote_cast"]
        table.service.gm.void(game, vote, now=utc(2026, 12, 1, 10, 5), via="cli", note=None)
        (voided,) = [s.seq for s in table.store.events(game) if s.event.kind == "vote_voided"]
        table.service.flush_outbox(utc(2026, 12, 1, 10, 6))
        table.new_mail()
        gm_mail(table, f"ОТМЕНИТЬ {voided}", at=utc(2026, 12, 1, 10, 10), game=game, sender=gm)
        assert table.run(utc(2026, 12, 1, 10, 11)) == ["gm_pending"]
        (asked,) = table.new_mail()
        confirm(table, asked, utc(2026, 12, 1, 10, 20), sender=gm)
        table.run(utc(2026, 12, 1, 10, 21))
        (result,) = table.new_mail()
        assert named_body(result, game).split("\n")[:2] == [
            f"> ОТМЕНИТЬ {voided}",
            "Не выполнено. Это событие (отмена голоса ГМом) отменить нельзя. Отменить можно "
            "только: действующий голос текущего дня и заказ маньяка, пока он не зафиксирован.",
        ]
    finally:
        table.close()


def test_the_echo_of_a_gm_command_names_each_player_in_the_case_its_word_takes(
    tmp_path: Path,
) -> None:
    """Rule P2 in the echoes of commands that name a player: the GM enters the maniac's
    order and a vote by mail (ACT); what each player is told pbp understood reads «УБИТЬ
    Олю», «ГОЛОС за Таню» (as the command help writes them), never «УБИТЬ Оля»; the
    GM's confirmation names the seats as «ЗА Колю», «АДРЕС Пети»."""
    table = ManiacTable(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 9))
        game, gm = "seed-002", "gm-person@example.test"
        table.new_mail()
        gm_mail(
            table,
            "ЗА Колю: УБИТЬ Олю",
            "ЗА Васю: ГОЛОС Таню",
            "АДРЕС Петю petya.new@example.test",
            at=utc(2026, 12, 1, 10),
            game=game,
            sender=gm,
        )
        assert table.run(utc(2026, 12, 1, 10, 1)) == ["gm_pending"]
        (asked,) = table.new_mail()
        assert (
            "\n\n  ЗА Колю: УБИТЬ Олю\n  ЗА Васю: ГОЛОС Таню\n"
            "  АДРЕС Пети petya.new@example.test\n\n"
        ) in body(asked)
        confirm(table, asked, utc(2026, 12, 1, 10, 5), sender=gm)
        assert table.run(utc(2026, 12, 1, 10, 6)) == ["gm_applied"]
        told = {to: named_body(m, game) for m in table.new_mail() for to, _s in summary([m])}
        assert (
            "\n> УБИТЬ Олю\nПонял: УБИТЬ Олю\nПринято: заказ на ночь 1 — убить Олю."
            in (told["kolya@example.test"])
        )
        assert (
            "\n> ГОЛОС Таню\nПонял: ГОЛОС за Таню\nПринято: ваш голос — за Таню."
            in (told["vasya@example.test"])
        )
    finally:
        table.close()
