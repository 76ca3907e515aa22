"""The GM's STATUS by mail (issue 31, item 1) and ``pbp games`` (item 2): where each game
stands, for the GM only.

Two games of one GM (gm-person@example.test) in one ``games.yaml``: seed 002's Maniac
(:mod:`kits.maniac_table`: ten players, Коля the maniac; day 1 closes 22:00 Moscow =
19:00 UTC) and seed 000's Cluedo by game days (:mod:`kits.table`: Кросс, Дуг, Роза; day
1 closes 22:30 Moscow = 19:30 UTC). Both have started by 17:00 UTC.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from kits import maniac_table
from kits.games import games_yaml
from kits.rounds_table import RoundsTable
from kits.table import (
    EMAILS,
    GM,
    Table,
    body,
    named_body,
    seed_000,
    summary,
    utc,
)

from pbp.app.gmview import game_status
from pbp.cli import main
from pbp.config.model import Config
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT, Store

MANIAC, CLUEDO = "seed-002", "seed-000"
ALL_EMAILS = {**EMAILS, **maniac_table.EMAILS}
NOT_VOTED = ("Петя", "Таня", "Оля", "Саша", "Маша", "Коля", "Дима", "Лена", "Катя")


def maniac_item(locale: str, extra: str = "") -> str:
    """Seed 002's Maniac game as an item of ``games.yaml``, with the key lines ``extra``
    (``"    title: Maniac 2\n"``)."""
    players = maniac_table.PLAYERS
    return maniac_table.GAME_ITEM.format(
        locale=locale,
        extra=extra,
        players="\n".join(
            f"      - {{name: {p}, email: {maniac_table.EMAILS[p]}}}" for p in players
        ),
        roles="\n".join(f"      {p}: {maniac_table.ROLES[p]}" for p in players),
    )


class TwoGames(Table):
    """Both games on Maildir transports with a test-controlled clock (Table's helpers);
    ``maniac``: key lines added to the Maniac game's item."""

    def __init__(
        self, directory: Path, *, locale: str = "ru", third: str = "", maniac: str = ""
    ) -> None:
        self.directory = directory
        self.trusted = None
        path = directory / "games.yaml"
        items = (maniac_item(locale, maniac), seed_000(locale=locale), third)
        path.write_text(games_yaml(*items), encoding="utf-8")
        self._serve(path, utc(2026, 12, 1, 17))

    def mail(
        self, game: str, sender: str, *lines: str, at: datetime, player: str = GM_SEAT
    ) -> None:
        """``sender`` mails ``lines`` to ``player``'s personal address in ``game`` (the
        GM's by default)."""
        deliver_to(self, game, sender, *lines, at=at, player=player)


def deliver_to(
    table: Table, game: str, sender: str, *lines: str, at: datetime, player: str = GM_SEAT
) -> None:
    """``sender`` mails ``lines`` to ``player``'s personal address in ``game`` of
    ``table`` (the GM's by default), arriving at ``at``."""
    token = table.store.player_token(game, player)
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = f"gm+{token}@example.test"
    message["Subject"] = "как дела"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content("\n".join(lines) + "\n")
    deliver(table.inbox_path, bytes(message), at=at)


def mid_day(table: TwoGames) -> None:
    """Вася votes (Maniac); Кросс asks Дуг (Cluedo): suggestion 1 waits for his answer."""
    table.mail(MANIAC, ALL_EMAILS["Вася"], "ГОЛОС Петя", at=utc(2026, 12, 1, 17, 5), player="Вася")
    suggestion = "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг"
    table.mail(CLUEDO, ALL_EMAILS["Кросс"], suggestion, at=utc(2026, 12, 1, 17, 6), player="Кросс")
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["applied", "applied"]
    table.new_mail()


@pytest.fixture
def table(tmp_path: Path) -> Iterator[TwoGames]:
    table = TwoGames(tmp_path)
    assert table.run(utc(2026, 12, 1, 17)) == []
    table.new_mail()
    yield table
    table.close()


#: The commands closing a STATUS mail of the Maniac game (game days and nights).
COMMANDS_RU = (
    "Только для вас: не вставляйте это письмо на форум.\n"
    "Команды: ЗА <игрок>: <ход> · ПАУЗА · ПРОДОЛЖИТЬ · ПРОДЛИТЬ <часы> · "
    "ЗАМЕНА <игрок> НА <имя> <адрес> · АДРЕС <игрок> <новый адрес> · ИСКЛЮЧИТЬ <игрок> · "
    "ОТМЕНИТЬ <номер события> · ЗАКРЫТЬ ДЕНЬ · ЗАВЕРШИТЬ НОЧЬ · ОТЛОЖЕННЫЕ · "
    "ПОВТОРИТЬ <номер> · ОТКЛОНИТЬ <номер> · ЭКСПОРТ markdown|bbcode|html · ПОМОЩЬ · "
    "СТАТУС [ВСЕ] · НОВЫЙ АДРЕС (пояснение — после « -- »).\n"
)
#: The same, of the Cluedo game by days: no nights, no ЗАВЕРШИТЬ НОЧЬ.
CLUEDO_COMMANDS_RU = COMMANDS_RU.replace(" · ЗАВЕРШИТЬ НОЧЬ", "")
SEATS_RU = "\nИгроки (кто сейчас за кого играет, с какого адреса, кто играл раньше):\n"
#: The GM's STATUS lists each seat's player and his registered address (GM-only).
MANIAC_SEATS_RU = SEATS_RU + "".join(
    f"- {p} <{maniac_table.EMAILS[p]}>\n" for p in maniac_table.PLAYERS
)
CLUEDO_SEATS_RU = SEATS_RU + "".join(f"- {p} <{EMAILS[p]}>\n" for p in EMAILS)
#: Seed 002 at 18:00 UTC of day 1: Вася's vote, nobody else's; the maniac's orders for
#: nights 1 and 2 due (M3); the day closes in an hour.
MANIAC_RU = (
    "Игра «seed-002»: идёт день 1.\n"
    "Ближайший срок: 1 декабря 2026 г., 22:00 по Москве, через 1 ч.\n"
    "Нет заказа маньяка (Коля) на ночи 1 и 2.\n"
    "Голоса дня 1:\n"
    "- Петя (1): Вася\n"
    "\n"
    f"Не проголосовали: {', '.join(NOT_VOTED)}.\n"
) + MANIAC_SEATS_RU
#: Seed 000 at 18:00 UTC of day 1: Дуг owes the answer to suggestion 1 (D3).
CLUEDO_RU = (
    "Игра «seed-000»: идёт день 1.\n"
    "Ближайший срок: 1 декабря 2026 г., 22:30 по Москве, через 1 ч 30 мин.\n"
    "Ждут ответа:\n"
    "  - №1 (день 1), Кросс → Дуг: Маша, Пистолет, Спальня\n"
) + CLUEDO_SEATS_RU


def gm_only(mails: list[EmailMessage]) -> None:
    """Every mail went to the GM, and none is a post to paste."""
    assert {str(m["To"]) for m in mails} == {GM}
    assert not [m for m in mails if "Объявление для форума" in str(m["Subject"])]


def test_a_gm_status_mail_gets_one_gm_only_answer_at_his_registered_address(
    table: TwoGames,
) -> None:
    mid_day(table)
    seq = table.store.events(MANIAC)[-1].seq
    table.mail(MANIAC, GM, "СТАТУС", at=utc(2026, 12, 1, 17, 59))
    assert table.run(utc(2026, 12, 1, 18)) == ["gm_applied"]
    (answer,) = table.new_mail()
    assert summary([answer]) == [(GM, "[seed-002] Только для ГМа: состояние игры")]
    # A reply to it carries commands: its Reply-To is the GM's personal address.
    assert answer["Reply-To"] == f"gm+{table.store.player_token(MANIAC, GM_SEAT)}@example.test"
    assert named_body(answer, MANIAC) == MANIAC_RU + "\n" + COMMANDS_RU
    # STATUS changes nothing: no event logged, no confirmation asked.
    assert table.store.events(MANIAC)[-1].seq == seq


def test_a_mail_of_many_status_lines_is_computed_and_answered_once(
    table: TwoGames, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each STATUS reads every kept mail: a forged mail of 200 STATUS lines (no
    confirmation needed) must not stall the daemon. Only the widest asked (ALL), as the
    last such line reads the games, is computed and mailed."""
    mid_day(table)
    computed: list[list[str]] = []

    def counted(config: Config, store: Store | None, ids: list[str], *rest: Any) -> Any:
        computed.append(ids)
        return game_status(config, store, ids, *rest)

    monkeypatch.setattr("pbp.app.gm.by_mail.game_status", counted)
    lines = ["СТАТУС"] * 100 + ["СТАТУС ВСЕ"] + ["STATUS"] * 99
    table.mail(MANIAC, GM, *lines, at=utc(2026, 12, 1, 17, 59))
    assert table.run(utc(2026, 12, 1, 18)) == ["gm_applied"]
    assert computed == [[MANIAC, CLUEDO]]
    (answer,) = table.new_mail()
    assert summary([answer]) == [(GM, "[seed-002, seed-000] Только для ГМа: состояние ваших игр")]


def test_a_cluedo_status_shows_the_answer_owed(table: TwoGames) -> None:
    mid_day(table)
    table.mail(CLUEDO, GM, "status", at=utc(2026, 12, 1, 17, 59))
    assert table.run(utc(2026, 12, 1, 18)) == ["gm_applied"]
    (answer,) = table.new_mail()
    assert summary([answer]) == [(GM, "[seed-000] Только для ГМа: состояние игры")]
    assert named_body(answer, CLUEDO) == CLUEDO_RU + "\n" + CLUEDO_COMMANDS_RU


def test_status_all_gives_every_game_of_the_gm_in_one_mail(tmp_path: Path) -> None:
    # A third game of another GM is not his: it is not shown.
    other = seed_000(start="2026-12-09T20:00").replace("seed-000", "other-1")
    other = other.replace("gm-person@example.test", "another-gm@example.test")
    table = TwoGames(tmp_path, third=other)
    try:
        assert table.run(utc(2026, 12, 1, 17)) == []
        mid_day(table)
        table.mail(CLUEDO, GM, "СТАТУС ВСЁ", at=utc(2026, 12, 1, 17, 59))
        assert table.run(utc(2026, 12, 1, 18)) == ["gm_applied"]
        (answer,) = table.new_mail()
        # The Subject and first line name every game shown: the game asked first, then
        # his others in games.yaml's order.
        assert summary([answer]) == [
            (GM, "[seed-000, seed-002] Только для ГМа: состояние ваших игр")
        ]
        assert body(answer) == (
            "Игры: seed-000, seed-002\n\n"
            + CLUEDO_RU
            + "\n"
            + MANIAC_RU
            + "\n"
            + CLUEDO_COMMANDS_RU
        )
    finally:
        table.close()


def test_status_with_a_lever_asks_to_confirm_the_lever_only(table: TwoGames) -> None:
    mid_day(table)
    table.mail(MANIAC, GM, "ПАУЗА", "СТАТУС", at=utc(2026, 12, 1, 17, 59))
    assert table.run(utc(2026, 12, 1, 18)) == ["gm_pending"]
    status, confirm = table.new_mail()
    gm_only([status, confirm])
    assert str(status["Subject"]) == "[seed-002] Только для ГМа: состояние игры"
    assert (
        named_body(status, MANIAC) == MANIAC_RU + "\n" + COMMANDS_RU
    )  # not paused: nothing applied
    assert str(confirm["Subject"]) == "[seed-002] Подтвердите команды ГМа"
    pending, _, rest = named_body(confirm, MANIAC).partition("\n\nЧтобы выполнить её")
    assert pending.endswith(":\n\n  ПАУЗА")
    assert rest.endswith("\n> СТАТУС\nСостояние игры — отдельным письмом.\n")
    stored = table.store.confirmation(confirm_code(confirm))
    assert stored is not None
    assert json.loads(stored.commands) == [
        {"line": "ПАУЗА", "lever": "pause", "args": {}, "note": None}
    ]


def confirm_code(mail: EmailMessage) -> str:
    """The confirmation code of a ``gm_confirm`` mail (its Reply-To's token)."""
    return str(mail["Reply-To"]).removeprefix("gm+").removesuffix("@example.test")


def test_a_paused_game_shows_its_pause_kept_mail_and_last_lever(table: TwoGames) -> None:
    mid_day(table)
    table.service.gm.pause(MANIAC, now=utc(2026, 12, 1, 18, 10), via="cli", note="уехал")
    table.mail(MANIAC, ALL_EMAILS["Петя"], "ГОЛОС Вася", at=utc(2026, 12, 1, 18, 15), player="Петя")
    table.mail(MANIAC, GM, "Статус", at=utc(2026, 12, 1, 18, 19))
    assert table.run(utc(2026, 12, 1, 18, 20)) == ["paused", "gm_applied"]
    status = table.new_mail()[-1]
    kept = [k.id for k in table.store.kept()]
    assert len(kept) == 1
    assert named_body(status, MANIAC) == (
        "Игра «seed-002»: идёт день 1.\n"
        "Игра на паузе с 1 декабря 2026 г., 21:10 по Москве. "
        "После команды ПРОДОЛЖИТЬ до срока останется 50 мин.\n"
        + MANIAC_RU.split("через 1 ч.\n")[1]
        + "\n"
        f"Отложенные письма этой игры ждут решения: 1 (№{kept[0]}).\n"
        "Последняя команда ГМа: пауза, 1 декабря 2026 г., 21:10 по Москве, из консоли. "
        "Пояснение: уехал\n"
        "\n" + COMMANDS_RU
    )


def test_status_before_the_start_and_after_the_end(tmp_path: Path) -> None:
    # The Maniac game has a title: the Subject, the first line and the body name it by
    # its title, the Cluedo game (none) by its id.
    table = TwoGames(tmp_path, locale="en", maniac="    title: Maniac 2\n")
    try:
        assert table.run(utc(2026, 12, 1, 10)) == []  # Maniac only: Cluedo starts at 17:00
        table.new_mail()
        table.mail(MANIAC, GM, "STATUS ALL", at=utc(2026, 12, 1, 10, 1))
        assert table.run(utc(2026, 12, 1, 10, 2)) == ["gm_applied"]
        (answer,) = table.new_mail()
        assert summary([answer]) == [(GM, "[Maniac 2, seed-000] GM only: the state of your games")]
        text = body(answer)
        assert text.startswith(
            'Games: Maniac 2, seed-000\n\nGame "Maniac 2": day 1.\n'
            "Next deadline: December 1, 2026, 22:00 MSK"
        )
        assert (
            '\n\nGame "seed-000" has not started yet; it starts December 1, 2026, '
            "20:00 MSK.\n\nFor your eyes only: do not paste this mail into the forum.\n"
        ) in text
    finally:
        table.close()


def test_a_players_status_is_his_own_and_the_gms_never_reaches_a_player(
    table: TwoGames,
) -> None:
    mid_day(table)
    # A player's STATUS to his own address: his own status, as before.
    table.mail(MANIAC, ALL_EMAILS["Вася"], "СТАТУС", at=utc(2026, 12, 1, 17, 50), player="Вася")
    assert table.run(utc(2026, 12, 1, 17, 51)) == ["status"]
    (own,) = table.new_mail()
    assert summary([own]) == [(ALL_EMAILS["Вася"], "[seed-002] Re: как дела")]
    assert "Ваш голос: за Петю." in body(own)
    assert "Только для ГМа" not in body(own) and "заказа маньяка" not in body(own)
    # A player who learnt the GM's address: his STATUS there is kept, and he is told
    # only that he wrote to someone else's address.
    table.mail(MANIAC, ALL_EMAILS["Вася"], "СТАТУС ВСЕ", at=utc(2026, 12, 1, 17, 52))
    assert table.run(utc(2026, 12, 1, 17, 53)) == ["wrong_sender"]
    told, notice = table.new_mail()
    assert summary([told]) == [(ALL_EMAILS["Вася"], "[seed-002] Re: как дела")]
    assert named_body(told, MANIAC).startswith(
        "Здравствуйте! Письмо с адреса vasya@example.test пришло на личный адрес другого"
    )
    assert "seed-000" not in body(told) and "заказа маньяка" not in body(told)
    assert str(notice["To"]) == GM and "Только для ГМа" not in str(notice["Subject"])
    # The GM's own STATUS goes to him alone, in no post.
    table.mail(MANIAC, GM, "СТАТУС", at=utc(2026, 12, 1, 17, 59))
    assert table.run(utc(2026, 12, 1, 18)) == ["gm_applied"]
    gm_only(table.new_mail())


def test_a_status_with_a_word_after_it_is_refused_with_its_syntax(table: TwoGames) -> None:
    table.mail(MANIAC, GM, "СТАТУС игры", at=utc(2026, 12, 1, 17, 59))
    assert table.run(utc(2026, 12, 1, 18)) == ["gm_refused"]
    (answer,) = table.new_mail()
    assert str(answer["Subject"]) == "[seed-002] Re: как дела"
    assert (
        "> СТАТУС игры\nНе выполнено. Команда ГМа записана не так. Пишите так: СТАТУС [ВСЕ].\n"
    ) in body(answer)


def test_a_rounds_status_says_whose_turn_or_answer_it_is(tmp_path: Path) -> None:
    table = RoundsTable(tmp_path)  # seed 000 by turns: Кросс first, 24 h a turn (R7)
    try:
        assert table.run(utc(2026, 12, 1, 17)) == []
        table.new_mail()
        deliver_to(table, CLUEDO, GM, "СТАТУС", at=utc(2026, 12, 1, 18))
        assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
        (turn,) = table.new_mail()
        assert named_body(turn, CLUEDO).startswith(
            "Игра «seed-000»: идёт ход 1.\n"
            "Ближайший срок: 2 декабря 2026 г., 20:00 по Москве, через 22 ч 59 мин.\n"
            "Ходит Кросс (ход 1).\n" + CLUEDO_SEATS_RU + "\nТолько для вас"
        )
        suggestion = "ПРЕДПОЛОЖЕНИЕ Петя, Молоток, Спальня"
        deliver_to(
            table, CLUEDO, EMAILS["Кросс"], suggestion, at=utc(2026, 12, 1, 18, 5), player="Кросс"
        )
        deliver_to(table, CLUEDO, GM, "СТАТУС", at=utc(2026, 12, 1, 18, 6))
        assert table.run(utc(2026, 12, 1, 18, 10)) == ["applied", "gm_applied"]
        answer = table.new_mail()[-1]
        assert named_body(answer, CLUEDO).startswith(
            "Игра «seed-000»: идёт ход 1.\n"
            "Ближайший срок: 2 декабря 2026 г., 09:05 по Москве, через 11 ч 55 мин.\n"
            "Сейчас отвечает Дуг на предположение №1.\n" + CLUEDO_SEATS_RU + "\nТолько для вас"
        )
    finally:
        table.close()


def test_help_lists_status(table: TwoGames) -> None:
    table.mail(MANIAC, GM, "ПОМОЩЬ", at=utc(2026, 12, 1, 17, 59))
    assert table.run(utc(2026, 12, 1, 18)) == ["gm_applied"]
    (answer,) = table.new_mail()
    assert (
        "  СТАТУС [ВСЕ] — состояние игры (ВСЕ: всех ваших игр), отдельным письмом\n"
        "  НОВЫЙ АДРЕС — новый адрес ГМа, если ваш стал известен другим (старый перестаёт "
        "работать)\n"
        "  ПОМОЩЬ — этот список\n"
    ) in body(answer)


# --- pbp games -------------------------------------------------------------------------


def test_pbp_games_shows_every_game_on_one_screen(table: TwoGames) -> None:
    mid_day(table)
    table.service.gm.pause(CLUEDO, now=utc(2026, 12, 1, 18, 10), via="cli", note=None)
    config = str(table.directory / "games.yaml")
    runner = CliRunner()
    result = runner.invoke(main, ["-c", config, "games", "--now", "2026-12-01T21:30+03:00"])
    assert result.exit_code == 0, result.output
    voters = ", ".join(NOT_VOTED)
    assert result.output == (
        "GAME      KIND         PHASE  NEXT DEADLINE         LEFT        PAUSED  KEPT  OWES\n"
        "seed-002  maniac       day 1  2026-12-01 22:00 MSK  0 h 30 min  no      -     "
        f"vote: {voters}; order: Коля (1, 2)\n"
        "seed-000  cluedo_days  day 1  -                     1 h 20 min  yes     -     "
        "answer: Дуг (1)\n"
    )
    result = runner.invoke(
        main, ["-c", config, "games", "--json", "--now", "2026-12-01T21:30+03:00"]
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    assert [r["game"] for r in rows] == [MANIAC, CLUEDO]
    assert rows[0]["deadline_at"] == "2026-12-01T22:00+03:00"
    assert rows[0]["left_seconds"] == 1800
    order = {"player": "Коля", "duty": "order", "numbers": [1, 2]}
    votes = [{"player": p, "duty": "vote", "numbers": []} for p in NOT_VOTED]
    assert rows[0]["owed"] == [*votes[:6], order, *votes[6:]]  # in seat order
    assert rows[0]["open"]["votes"]["candidates"][0]["voters"] == ["Вася"]
    assert rows[1]["paused"] is True and rows[1]["deadline_at"] is None
    assert rows[1]["paused_at"] == "2026-12-01T21:10+03:00"
    assert rows[1]["paused_left_seconds"] == 80 * 60
    assert rows[1]["owed"] == [{"player": "Дуг", "duty": "answer", "numbers": [1]}]
    assert rows[1]["last_lever"] == {
        "lever": "pause",
        "at": "2026-12-01T21:10+03:00",
        "via": "cli",
        "note": None,
        "player": None,
    }


def test_pbp_games_before_any_start_shows_each_game_not_started(tmp_path: Path) -> None:
    path = tmp_path / "games.yaml"
    path.write_text(games_yaml(maniac_item("ru"), seed_000(start=None)), encoding="utf-8")
    result = CliRunner().invoke(main, ["-c", str(path), "games"])
    assert result.exit_code == 0, result.output
    assert result.output == (
        "GAME      KIND         PHASE        NEXT DEADLINE         LEFT  PAUSED  KEPT  OWES\n"
        "seed-002  maniac       not started  2026-12-01 12:00 MSK  -     no      -     -\n"
        "seed-000  cluedo_days  not started  -                     -     no      -     -\n"
    )
    assert not (tmp_path / "pbp.sqlite3").exists()  # only read: no store made


def seats_changed(table: TwoGames) -> None:
    """Mid-day, Дуг's seat goes to Вова (20:20 Moscow, from the console) and Роза's to a
    new address (20:30, by mail, with a note)."""
    mid_day(table)
    gm = table.service.gm
    at = utc(2026, 12, 1, 17, 20)
    gm.substitute(CLUEDO, "Дуг", "Вова", "vova@example.test", now=at, via="cli", note=None)
    at = utc(2026, 12, 1, 17, 30)
    gm.readdress(CLUEDO, "Роза", "rosa.new@example.test", now=at, via="mail", note="опечатка")
    table.service.flush_outbox(at)
    table.new_mail()


def test_status_lists_each_seats_player_address_and_earlier_players(table: TwoGames) -> None:
    seats_changed(table)
    table.mail(CLUEDO, GM, "СТАТУС", at=utc(2026, 12, 1, 17, 59))
    assert table.run(utc(2026, 12, 1, 18)) == ["gm_applied"]
    (answer,) = table.new_mail()
    assert named_body(answer, CLUEDO) == (
        # Дуг's seat owes the answer: named as the posts name it (his substitute).
        CLUEDO_RU.split(SEATS_RU)[0].replace("Кросс → Дуг", "Кросс → Вова (вместо Дуг)")
        + SEATS_RU
        + "- Кросс <cross@example.test>\n"
        "- Дуг: Вова <vova@example.test> с 1 декабря 2026 г., 20:20 по Москве; раньше: "
        "Дуг <doug@example.test> до 1 декабря 2026 г., 20:20 по Москве\n"
        "- Роза <rosa.new@example.test>\n"
        "\n"
        # The readdress is the last lever (issue 31: ADDRESS by mail).
        "Последняя команда ГМа: новый адрес игрока (Роза), 1 декабря 2026 г., 20:30 по "
        "Москве, по почте. Пояснение: опечатка\n"
        "\n" + CLUEDO_COMMANDS_RU
    )


def test_status_lists_the_seats_in_english(tmp_path: Path) -> None:
    table = TwoGames(tmp_path, locale="en")
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        seats_changed(table)
        table.mail(CLUEDO, GM, "STATUS", at=utc(2026, 12, 1, 17, 59))
        assert table.run(utc(2026, 12, 1, 18)) == ["gm_applied"]
        (answer,) = table.new_mail()
        assert (
            "\n\nSeats (who plays each now, from which address; who played it before):\n"
            "- Кросс <cross@example.test>\n"
            "- Дуг: Вова <vova@example.test> since December 1, 2026, 20:20 MSK; earlier: "
            "Дуг <doug@example.test> until December 1, 2026, 20:20 MSK\n"
            "- Роза <rosa.new@example.test>\n"
            "\n"
            "Last GM command: a new address (Роза), December 1, 2026, 20:30 MSK, by mail. "
            "Note: опечатка\n\n"
        ) in body(answer)
    finally:
        table.close()


def test_pbp_games_json_lists_the_seats(table: TwoGames) -> None:
    seats_changed(table)
    config = str(table.directory / "games.yaml")
    result = CliRunner().invoke(
        main, ["-c", config, "games", "--json", "--now", "2026-12-01T21:30+03:00"]
    )
    assert result.exit_code == 0, result.output
    cluedo = json.loads(result.output)[1]
    assert cluedo["seats"][1:] == [
        {
            "seat": "Дуг",
            "player": "Вова",
            "email": "vova@example.test",
            "since": "2026-12-01T20:20+03:00",
            "earlier": [
                {
                    "name": "Дуг",
                    "email": "doug@example.test",
                    "since": "2026-12-01T20:00+03:00",
                    "until": "2026-12-01T20:20+03:00",
                }
            ],
        },
        {
            "seat": "Роза",
            "player": "Роза",
            "email": "rosa.new@example.test",
            "since": "2026-12-01T20:00+03:00",
            "earlier": [],
        },
    ]
    assert cluedo["last_lever"] == {
        "lever": "readdress",
        "at": "2026-12-01T20:30+03:00",
        "via": "mail",
        "note": "опечатка",
        "player": "Роза",
    }


def test_status_and_pbp_games_name_a_substituted_seat_as_the_posts_do(table: TwoGames) -> None:
    """Issue 31 review: Лена's seat, played by Света, owes a vote: «Света (вместо Лены)»,
    not «Лена», in the count, the list of who has not voted and ``pbp games``."""
    mid_day(table)
    at = utc(2026, 12, 1, 17, 20)
    table.service.gm.substitute(
        MANIAC, "Лена", "Света", "sveta@example.test", now=at, via="cli", note=None
    )
    table.service.flush_outbox(at)
    table.new_mail()
    table.mail(MANIAC, GM, "СТАТУС", at=utc(2026, 12, 1, 17, 59))
    assert table.run(utc(2026, 12, 1, 18)) == ["gm_applied"]
    (answer,) = table.new_mail()
    voters = ", ".join(NOT_VOTED).replace("Лена", "Света (вместо Лены)")
    assert f"\nНе проголосовали: {voters}.\n" in body(answer)
    assert "Лена," not in body(answer).split("Места")[0]
    config = str(table.directory / "games.yaml")
    result = CliRunner().invoke(main, ["-c", config, "games", "--now", "2026-12-01T21:30+03:00"])
    assert result.exit_code == 0, result.output
    assert f"vote: {voters}; order: Коля (1, 2)\n" in result.output
