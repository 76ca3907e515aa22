"""A whole game of Maniac by mail, through real servers and a real ``pbp run`` (issue 4,
last test item).

Dovecot (IMAP) and an aiosmtpd SMTP server delivering into it run on 127.0.0.1
(:mod:`kits.mailstack`). The daemon reads ``gm@example.test`` over IMAP (IDLE), sends
over SMTP, and its APScheduler date jobs wake it at the reminder, the day close and
the night end. ``day_closes`` and ``night_ends`` are local minutes (Europe/Moscow): the
two whole minutes before the test starts (:func:`kits.maniac_mail.past_deadlines`).
The start and day 1's mails are rounds of this test's own at a fixed moment an hour
before the close (however long they take, they move neither the reminder nor the
close); the reminder, day 1's close and night 1 are served by ``pbp run``'s loop in
this process (:func:`kits.daemon.serve`), its clock behind the wall clock so that day 1
closes 11 s after that loop starts and night 1 ends 5 s after a second loop starts (so
the scheduler's jobs come in seconds, not at real minute boundaries); from day 2 on the
real command ``python -m pbp -c games.yaml run`` serves in a subprocess on the wall
clock, which is then later than the game's; the GM's commands (``pbp post``, ``close-day``,
``end-night``) run beside it in this process (:mod:`kits.cli`). Players send their
moves with smtplib to their personal addresses (the Reply-To of their welcome mails);
the test reads every mailbox over IMAP.

Ten players, so that there is a fan (M1: from 10 players); a fixed deal (``roles:``):
Коля the maniac, Дима the duty officer, Лена the fan, the others civilians.
``vote_count_mail: true``; ``post_format: both`` (the Markdown posts are checked too);
reminders 3.6 s before a close. The game's data, subjects
and small helpers are in :mod:`kits.maniac_mail`.

1. Day 1 (M1, M3, M9): each player learns his role alone, the maniac and the fan each
   other's name. Вася's third vote on Петя is refused (M9); Катя, a civilian, orders
   a kill: refused without a word about who the maniac is; Коля orders Вася for
   night 1 and Петя for night 2. Катя alone has not voted: she alone is reminded.
2. The scheduler closes day 1 (M10): Лена goes to the cell; Коля's two orders stay open
   (M3: until night 1 ends).
3. The scheduler ends night 1 (M3, M6, M7, M8): Коля's order for night 2 is fixed; Вася
   is killed, and Лена, the fan, dies in the cell though the duty officer lives.
4. Day 2: Вася, dead, may not vote (M8); the town votes Коля into the cell; Коля orders
   a skip for night 3 (M4) and asks for his STATUS. ``pbp post`` shows the count;
   the GM closes the day with ``pbp close-day`` (the next scheduled close is a day away).
   Коля asks for his STATUS at night.
5. ``pbp end-night``: Коля sat in the cell, so his order is void (M6): nobody dies.
6. Day 3: the cell again for Коля, the second night in a row: prison (M11), and the
   town wins at that close (M12, ``pbp close-day``). The final post reveals every
   role; its fairness string hashes to the commitment of the opening post. A vote
   after the end is refused.

Then SIGTERM: ``pbp run`` exits 0, its log clean, and the loops in this process logged
no warning either. Takes about 25 s.
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from kits.cli import run_ok
from kits.daemon import TROUBLE, DaemonProcess, serve
from kits.mail import (
    AnyOrder,
    Mailboxes,
    Received,
    any_order,
    as_delivered,
    mailbox,
    send,
    subjects,
)
from kits.mailstack import Dovecot, SmtpServer
from kits.maniac_mail import (
    AFTER_COMMAND,
    APPLIED,
    DAEMON,
    DAEMON_PASSWORD,
    DAY_1,
    DAY_2,
    DAY_2_COUNT,
    DAY_3,
    DONE,
    DUTY,
    EMAIL,
    ENV,
    EVENING,
    EVENING_1,
    EVENING_2,
    EVENING_3,
    FAN,
    FINAL,
    FINAL_ROLES,
    FIX_THESE,
    FIXED,
    FOOTER,
    GAME,
    GAME_LINE,
    GAME_OVER,
    GM,
    KATYA,
    KILLED,
    LEAD,
    MANIAC,
    MASHA,
    MORNING,
    MORNING_1,
    MORNING_1_MARKDOWN,
    MORNING_2,
    MSK,
    NIGHT,
    NIGHT_LEAD,
    OLYA,
    OPENING,
    PASSWORD_ENV,
    PERSONAL,
    PETYA,
    PLAYERS,
    REFUSED,
    REMIND,
    ROLES,
    SASHA,
    SECRETS,
    SHEET,
    TAG,
    TANYA,
    VASYA,
    VOTES,
    WELCOME,
    accepted_vote,
    assert_on_time,
    facts,
    games_yaml,
    gm_only,
    md,
    past_deadlines,
    post,
    role_word,
)
from kits.table import moscow_text

from pbp.app.daemon import Daemon
from pbp.cli import _service
from pbp.config.loading import load_config
from pbp.store import Store


@dataclass
class Run:
    """The mailboxes the test reads, the servers, the config and the two deadlines the
    scheduler passes (aware, Moscow); ``daemons``: the ``pbp run`` processes started."""

    table: Mailboxes
    smtp: SmtpServer
    config: Path
    close_1: datetime
    dawn_1: datetime
    daemons: list[DaemonProcess] = field(default_factory=list)

    def pbp_run(self) -> DaemonProcess:
        """Start ``python -m pbp -c games.yaml run``; the mailboxes show its log."""
        daemon = DaemonProcess(self.config, env=ENV)
        self.daemons.append(daemon)
        self.table.log = daemon.output
        return daemon


@pytest.fixture
def run(
    dovecot: Dovecot, smtp_server: SmtpServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Run]:
    dovecot.add_user(DAEMON, DAEMON_PASSWORD)
    dovecot.add_user(GM, "gm-person-secret")
    for address in EMAIL.values():
        dovecot.add_user(address, "player-secret")
    monkeypatch.setenv(PASSWORD_ENV, DAEMON_PASSWORD)  # for the loops in this process
    close_1, dawn_1 = past_deadlines(datetime.now(UTC), MSK)
    config = tmp_path / "games.yaml"
    text = games_yaml(dovecot.port, smtp_server.port, f"{close_1:%H:%M}", f"{dawn_1:%H:%M}")
    config.write_text(text, encoding="utf-8")
    table = Mailboxes(dovecot, (GM, *EMAIL.values()))
    found = Run(table, smtp_server, config, close_1, dawn_1)
    try:
        yield found
    finally:
        for daemon in found.daemons:
            daemon.stop()


#: Day 1's mails, sent in this order (the maniac's orders, M3; a third cast, M9).
DAY_1_MOVES = {
    VASYA: ["ГОЛОС за Петю", "ГОЛОС Таня", "ГОЛОС Петя", "ГОЛОС Петю"],
    PETYA: ["ГОЛОС Лену"],
    TANYA: ["ГОЛОС за Лену"],
    OLYA: ["VOTE Лена"],
    SASHA: ["ГОЛОС: Лена"],
    MASHA: ["ГОЛОС Лена"],
    DUTY: ["ГОЛОС Колю"],
    FAN: ["ГОЛОС Петю"],
    MANIAC: ["УБИТЬ Васю", "KILL Петя NIGHT 2", "ГОЛОС Петю"],
    KATYA: ["УБИТЬ Машу"],
}
NIGHT_2, AFTER_END = f"{TAG} Re: ночь 2", f"{TAG} Re: после игры"
DAY_2_MOVES = {
    VASYA: ["ГОЛОС Колю"],
    DUTY: ["ГОЛОС Колю"],
    TANYA: ["ГОЛОС Колю"],
    KATYA: ["ГОЛОС Колю"],
    PETYA: ["ГОЛОС Колю"],
    MANIAC: ["ГОЛОС Катю", "ПРОПУСК", "СТАТУС"],
}
DAY_3_MOVES = {
    DUTY: ["ГОЛОС ТЮРЬМА Колю"],
    PETYA: ["ГОЛОС Колю"],
    KATYA: ["VOTE PRISON Коля"],
}


def send_all(run: Run, moves: dict[str, list[str]], subject: str, personal: dict[str, str]) -> None:
    """Each player of ``moves`` mails his lines (in order), as a new mail with ``subject``."""
    for name, lines in moves.items():
        send(run.smtp, EMAIL[name], personal[name], "\n".join(lines), subject=subject)


def test_whole_maniac_game_M1_M3_M4_M6_to_M12_through_dovecot_smtp_and_pbp_run(
    run: Run, caplog: pytest.LogCaptureFixture
) -> None:
    table, close_1, dawn_1 = run.table, run.close_1, run.dawn_1
    dovecot, smtp = table.dovecot, run.smtp
    welcome: dict[str, Received] = {}
    personal: dict[str, str] = {}
    reminder_subject = f"{TAG} Напоминание: день 1 закрывается {moscow_text(close_1)}"
    caplog.set_level(logging.INFO)
    table.log = lambda: caplog.text

    # The start and day 1 in rounds of this test's own, at a moment an hour of game time
    # before the close (as tests/test_daemon.py's scheduler test): how long they take on a
    # loaded machine moves neither the reminder nor the close. A player's mail is in
    # Dovecot once send() returns; a round counts it at its clock's moment (D8).
    early = close_1.astimezone(UTC) - timedelta(hours=1)
    service = _service(load_config(run.config), create=True)
    service.clock = lambda: early
    service.run_once(early)  # the game starts
    # --- start (M1): each his role alone; the maniac and the fan each other's name
    for name in PLAYERS:
        mail = table.one(EMAIL[name], WELCOME)
        assert mail.header("Auto-Submitted") == "auto-generated"
        reply_address = mail.header("Reply-To")
        assert reply_address is not None and PERSONAL.fullmatch(reply_address)
        assert f"Ваш личный адрес для ходов: {reply_address}" in mail.lines
        assert f"Здравствуйте, {name}!" in mail.lines
        role_lines = [line for line in mail.lines if line.startswith("Ваша роль: ")]
        assert role_lines == [f"Ваша роль: {role_word(name, ROLES[name]).upper()}."]
        assert (
            f"День закрывается в {close_1:%H:%M} по Москве, ночь заканчивается в "
            f"{dawn_1:%H:%M} по Москве. Голос или заказ относится к тому дню, в который "
            "пришло письмо." in mail.lines
        )
        assert [line for line in mail.lines if line.startswith("  - ")] == [
            f"  - {p}" for p in PLAYERS
        ]
        welcome[name], personal[name] = mail, reply_address
    assert len(set(personal.values())) == len(PLAYERS)
    assert (
        "Ваш фанат — Лена: ваш союзник, который знает, кто вы. Фанат не может убивать "
        "и помогает вам только голосованием." in welcome[MANIAC].lines
    )
    assert "Пропустить выстрел можно 3 раза за игру, но не две ночи подряд." in (
        welcome[MANIAC].lines
    )
    assert (
        "Маньяк — Коля. Вы играете на стороне маньяка, и маньяк знает, кто вы. "
        "Убивать вы не можете — помогайте голосованием." in welcome[FAN].lines
    )
    assert "Ваши роли знаете только вы двое и ГМ. Роли откроются в конце игры." in (
        welcome[FAN].lines
    )
    assert "Вашу роль знаете только вы и ГМ. Роли откроются в конце игры." in welcome[DUTY].lines
    sheet, opening, *_markdown_and_facts = table.until(GM, OPENING)
    assert sheet.subject == SHEET
    assert [line for line in sheet.lines if line.startswith("  - ")] == [
        f"  - {p}: {role_word(p, ROLES[p])}" for p in PLAYERS
    ]
    assert "Пропусков у маньяка: 3. Двойное убийство: нет (меньше 12 игроков)." in sheet.lines
    (commitment,) = re.findall(r"SHA-256: ([0-9a-f]{64})\n", post(opening))
    assert f"SHA-256 (опубликован в первом посте игры): {commitment}" in sheet.lines
    assert "[b]Маньяк «maniac-e2e»: день 1 открыт[/b]\n" in post(opening)
    assert "В игре один маньяк, один дежурный, один фанат, остальные — мирные жители." in (
        post(opening)
    )
    assert (
        f"- День закрывается в {close_1:%H:%M} по Москве, ночь заканчивается в "
        f"{dawn_1:%H:%M} по Москве.\n" in post(opening)
    )

    # --- day 1: every player mails once, answering his welcome mail
    for name, lines in DAY_1_MOVES.items():
        send(smtp, EMAIL[name], personal[name], "\n".join(lines), reply_to=welcome[name])
    service.run_once(early)  # day 1's mails, every one before the reminder
    replies = {name: table.one(EMAIL[name], DAY_1) for name in DAY_1_MOVES}
    remind_at = close_1 - REMIND
    # The reminder below goes to Катя alone: every vote came in before it.
    for answer in replies.values():
        assert answer.header("Auto-Submitted") == "auto-replied"
    for name in (PETYA, TANYA, OLYA, SASHA, MASHA):
        (line,) = DAY_1_MOVES[name]
        assert replies[name].body == (
            f"{GAME_LINE}{name}, вот что сделано по вашему письму.\n\n"
            f"{APPLIED}{accepted_vote(line, 'Лену')}\n{FOOTER}"
        )
    assert replies[VASYA].body == (  # M9: a third cast on Петя the same day is refused
        f"{GAME_LINE}Вася, вот что сделано по вашему письму.\n\n"
        f"{APPLIED}{accepted_vote('ГОЛОС за Петю', 'Петю')}\n"
        f"{accepted_vote('ГОЛОС Таня', 'Таню')}\n"
        f"{accepted_vote('ГОЛОС Петя', 'Петю', cast_no=2)}\n"
        f"{REFUSED}"
        "> ГОЛОС Петю\n"
        "Понял: ГОЛОС за Петю\n"
        "За Петю в день 1 вы уже голосовали максимальное число раз (2): "
        "больше за одного игрока в один день нельзя (голоса за камеру и за тюрьму считаются "
        "вместе). Проголосуйте за другого игрока или снимите голос: СНЯТЬ ГОЛОС.\n\n"
        f"{FIX_THESE}{FOOTER}"
    )
    assert replies[MANIAC].body == (  # M3: the orders for nights 1 and 2, to him alone
        f"{GAME_LINE}Коля, вот что сделано по вашему письму.\n\n"
        f"{APPLIED}"
        "> УБИТЬ Васю\n"
        "Понял: УБИТЬ Васю\n"
        "Принято: заказ на ночь 1 — убить Васю. Его можно изменить до конца ночи 1 — "
        f"до {moscow_text(dawn_1)}. Заказ видите только вы и ГМ — в "
        "тред его не пишите.\n\n"
        "> KILL Петя NIGHT 2\n"
        "Понял: УБИТЬ Петю НОЧЬ 2\n"
        "Принято: заказ на ночь 2 — убить Петю. Его можно изменить до конца ночи 1 — "
        f"до {moscow_text(dawn_1)}. Заказ видите только вы и ГМ — в "
        "тред его не пишите.\n\n"
        f"{accepted_vote('ГОЛОС Петю', 'Петю')}\n{FOOTER}"
    )
    assert replies[KATYA].body == (  # an order from a civilian: refused, nothing told
        f"{GAME_LINE}Катя, вот что сделано по вашему письму.\n\n"
        f"{REFUSED}"
        "> УБИТЬ Машу\n"
        "Понял: УБИТЬ Машу\n"
        "Заказы на убийство и пропуски (УБИТЬ, ПРОПУСК) делает только маньяк. "
        "Вы можете голосовать: ГОЛОС <игрок>.\n\n"
        f"{FOOTER}"  # nothing she could fix: not asked to resend
    )

    # Then ``pbp run``'s loop in this process, the game's clock LEAD before the close.
    def close_day_1(daemon: Daemon) -> None:
        # --- the reminder (remind_hours_before): Катя alone has not voted
        wait = (remind_at - daemon.clock()).total_seconds() + 10
        reminder = table.one(EMAIL[KATYA], reminder_subject, wait)
        assert reminder.lines == [
            f"Игра: {GAME}",
            "",
            f"Катя, день 1 закрывается {moscow_text(close_1)}.",
            "",
            "- Вы сегодня ещё не голосовали: ГОЛОС <игрок>.",
        ]
        assert_on_time(reminder, remind_at)

        # --- the scheduler closes day 1 (M10): Лена to the cell; no order fixed yet (M3)
        wait = (close_1 - daemon.clock()).total_seconds() + 15
        evening_1 = table.one(GM, EVENING[0], wait)
        assert post(evening_1) == EVENING_1
        assert post(table.one(GM, md(EVENING[0]))) == (
            EVENING_1.replace("[b]", "**").replace("[/b]", "**")
        )
        assert_on_time(evening_1, close_1)

    ahead = close_1 - LEAD - datetime.now(UTC)
    serve(service, close_day_1, ahead=ahead)

    # Night 1 in this process, the game's clock NIGHT_LEAD before its end.
    def night_1(daemon: Daemon) -> None:
        # --- the scheduler ends night 1 (M6, M7, M8): Вася killed; Лена, the fan, dies in
        # the cell though the duty officer lives; names only
        wait = (dawn_1 - daemon.clock()).total_seconds() + 15
        morning_1 = table.one(GM, MORNING[0], wait)
        assert post(morning_1) == MORNING_1
        assert post(table.one(GM, md(MORNING[0]))) == MORNING_1_MARKDOWN
        assert gm_only(table.one(GM, facts(MORNING[0]))) == (
            "Только для ГМа:\n"
            "  - Заказ маньяка на ночь 2 зафиксирован: убить Петю\n"
            "  - Ночь 1: Вася погибает; фанат Лена умирает в камере"
        )
        assert_on_time(morning_1, dawn_1)
        fixed_2 = table.one(EMAIL[MANIAC], FIXED[1])  # M3: fixed at the end of night 1
        assert fixed_2.lines == [
            f"Игра: {GAME}",
            "",
            "Коля, ночь 1 закончилась, и ваш заказ на ночь 2 изменить уже нельзя.",
            "Заказ: убить Петю.",
        ]
        assert_on_time(fixed_2, dawn_1)
        night_1 = table.one(GM, NIGHT[0])
        assert "Дежурный охраняет камеру: да." in night_1.lines
        for name in (VASYA, FAN):
            killed = table.one(EMAIL[name], KILLED)
            assert killed.lines[:2] == [f"Игра: {GAME}", ""]
            assert killed.lines[2] == (
                f"{name}, этой ночью (ночь 1) вас убили. В утреннем посте назовут только ваше"
                " имя, без роли."
            )
            assert_on_time(killed, dawn_1)

    ahead = dawn_1 - NIGHT_LEAD - datetime.now(UTC)
    serve(_service(load_config(run.config), create=True), night_1, ahead=ahead)

    # From day 2 on, the real ``pbp run`` on the wall clock (it is later than the game's).
    daemon = run.pbp_run()
    # --- day 2: the dead may not vote (M8); Коля to the cell; his skip for night 3 (M4)
    send_all(run, DAY_2_MOVES, "день 2", personal)
    replies = {name: table.one(EMAIL[name], DAY_2) for name in DAY_2_MOVES}
    assert replies[VASYA].body == (
        f"{GAME_LINE}Вася, вот что сделано по вашему письму.\n\n"
        f"{REFUSED}"
        "> ГОЛОС Колю\n"
        "Понял: ГОЛОС за Колю\n"
        "Вы убиты (Вася): убитые больше не участвуют в игре и голосовать не "
        "могут.\n\n"
        f"{FOOTER}"  # nothing he could fix: not asked to resend
    )
    for name in (DUTY, TANYA, KATYA, PETYA):
        assert accepted_vote("ГОЛОС Колю", "Колю") in replies[name].body
    status = replies[MANIAC].body
    assert accepted_vote("ГОЛОС Катю", "Катю") in status
    close_2 = close_1 + timedelta(days=1)  # the first day_closes after night 1 ended
    assert (
        "> ПРОПУСК\n"
        "Понял: ПРОПУСК\n"
        "Принято: заказ на ночь 3 — пропуск. Его можно изменить до закрытия дня 2 — до "
        f"{moscow_text(close_2)}." in status
    )
    assert (
        "> СТАТУС\n"
        "Понял: СТАТУС\n"
        "Идёт день 2.\n\n"
        "Ваша роль: маньяк.\n"
        "Ваш фанат — Лена.\n"
        "Убитые: Вася, Лена.\n" in status
    )
    assert (
        "Ваши заказы:\n"
        "  - ночь 1: убить Васю (зафиксирован)\n"
        "  - ночь 2: убить Петю (зафиксирован)\n"
        "  - ночь 3: пропуск (можно изменить до закрытия дня 2)\n"
        "Сейчас можно заказать или изменить: ночь 3.\n"
        "Пропусков осталось: 2.\n"
        "Двойное убийство: недоступно (меньше 12 игроков).\n" in status
    )
    assert run_ok(run.config, "post", GAME, env=ENV) == DAY_2_COUNT
    assert run_ok(run.config, "close-day", GAME, env=ENV) == f"{GAME}: day 2 closed\n"
    # Коля asks for his STATUS at night; his mail wakes the daemon, which sends what the
    # GM's command queued first (else it would do so within 10 s anyway)
    send(smtp, EMAIL[MANIAC], personal[MANIAC], "СТАТУС", subject="ночь 2")
    night_status = table.one(EMAIL[MANIAC], NIGHT_2)
    for line in (
        "Идёт ночь 2; день 3 откроется утром.",
        "В камере этой ночью: Коля.",
        "  - ночь 3: пропуск (зафиксирован)",
    ):
        assert line in night_status.lines
    # M3: the order for night 4 is given on day 3; no night is open during night 2.
    assert not [x for x in night_status.lines if x.startswith("Сейчас можно заказать")]
    assert (
        "Сейчас заказы не принимаются: заказ на ночь 4 делают в день 3, с утра и до "
        "закрытия дня." in night_status.lines
    )
    evening_2 = table.one(GM, EVENING[1], AFTER_COMMAND)
    assert post(evening_2) == EVENING_2
    assert gm_only(table.one(GM, facts(EVENING[1]))) == (
        "Только для ГМа:\n  - Заказ маньяка на ночь 3 зафиксирован: пропуск"
    )
    assert table.one(EMAIL[MANIAC], FIXED[2]).lines[3] == "Заказ: пропуск."

    # --- night 2 (M6): the maniac sat in the cell, his order is void; nobody is told why
    assert run_ok(run.config, "end-night", GAME, env=ENV) == f"{GAME}: night 2 ended\n"
    # day 3's votes go out at once (they wake the daemon; they arrive in day 3, D8)
    send_all(run, DAY_3_MOVES, "день 3", personal)
    morning_2 = table.one(GM, MORNING[1], AFTER_COMMAND)
    assert post(morning_2) == MORNING_2
    assert gm_only(table.one(GM, facts(MORNING[1]))) == (
        "Только для ГМа:\n"
        "  - Ночь 2: заказ (убить Петю) не исполнен — маньяк в камере или в тюрьме; "
        "никто не погиб"
    )
    night_2 = table.one(GM, NIGHT[1])
    assert "Маньяк в камере или в тюрьме: да — заказ не исполняется." in night_2.lines

    # --- day 3 (M11, M12): the cell again for Коля, the second night in a row: prison,
    # and the town wins at this close
    replies = {name: table.one(EMAIL[name], DAY_3) for name in DAY_3_MOVES}
    assert accepted_vote("ГОЛОС ТЮРЬМА Колю", "Колю", prison=True) in replies[DUTY].body
    assert accepted_vote("ГОЛОС Колю", "Колю") in replies[PETYA].body
    assert accepted_vote("VOTE PRISON Коля", "Колю", prison=True) in replies[KATYA].body
    assert run_ok(run.config, "close-day", GAME, env=ENV) == f"{GAME}: day 3 closed\n"
    # a vote after the end is refused (and wakes the daemon)
    send(smtp, EMAIL[PETYA], personal[PETYA], "ГОЛОС Таню", subject="после игры")
    assert table.one(EMAIL[PETYA], AFTER_END, AFTER_COMMAND).body == (
        f"{GAME_LINE}Петя, вот что сделано по вашему письму.\n\n"
        f"{REFUSED}"
        "> ГОЛОС Таню\n"
        "Понял: ГОЛОС за Таню\n"
        "Игра окончена: победил город, маньяк в тюрьме. Ходы больше не "
        "принимаются.\n\n"
        f"{FOOTER}"  # nothing to fix after the end
    )
    final = table.one(GM, FINAL)
    evening_3 = table.one(GM, EVENING[2])
    assert post(evening_3) == EVENING_3
    bbcode = post(final)
    assert bbcode.startswith(
        "[b]Игра окончена[/b]\n\n"
        "Победил город (мирные жители и дежурный): маньяк отправлен в тюрьму.\n\n"
        "Победители: Вася, Петя, Таня, Оля, Саша, Маша, Дима, Катя.\n\n" + FINAL_ROLES
    )
    (canonical,) = re.findall(r"\[code\](.*)\[/code\]", bbcode)
    assert hashlib.sha256(canonical.encode("utf-8")).hexdigest() == commitment
    assert f"В первом посте игры был опубликован SHA-256: {commitment}" in bbcode
    for name in PLAYERS:
        over = table.one(EMAIL[name], GAME_OVER)
        assert over.header("Reply-To") == personal[name]
        team = "Ваша команда проиграла." if name in (MANIAC, FAN) else "Вы в команде победителей!"
        assert over.lines[:7] == [
            f"Игра: {GAME}",
            "",
            f"{name}, игра «{GAME}» окончена: победил город (мирные жители и дежурный).",
            team,
            "",
            "Роли:",
            "  - Вася — мирный житель",
        ]
        assert "  - Коля — маньяк" in over.lines
        assert f"SHA-256: {commitment}" in over.lines

    # --- SIGTERM: a clean exit, and nothing went wrong on the way
    assert daemon.stop() == 0, daemon.output()
    log = daemon.output()
    assert not TROUBLE.search(log), log
    in_process = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert in_process == [], in_process

    # --- who received what, in order
    assert subjects(dovecot, EMAIL[VASYA]) == [WELCOME, DAY_1, KILLED, DAY_2, GAME_OVER]
    # What a lever queued from the command line (``close-day``) and the daemon's answers
    # to mail sent right after it go out side by side, in no fixed order (any_order).
    petya: list[str | AnyOrder] = [WELCOME, DAY_1, DAY_2, DAY_3, any_order(GAME_OVER, AFTER_END)]
    assert as_delivered(subjects(dovecot, EMAIL[PETYA]), petya) == petya
    assert subjects(dovecot, EMAIL[TANYA]) == [WELCOME, DAY_1, DAY_2, GAME_OVER]
    for name in (OLYA, SASHA, MASHA):
        assert subjects(dovecot, EMAIL[name]) == [WELCOME, DAY_1, GAME_OVER]
    maniac: list[str | AnyOrder] = [
        WELCOME,
        DAY_1,
        FIXED[1],
        DAY_2,
        any_order(FIXED[2], NIGHT_2),
        GAME_OVER,
    ]
    assert as_delivered(subjects(dovecot, EMAIL[MANIAC]), maniac) == maniac
    assert subjects(dovecot, EMAIL[DUTY]) == [WELCOME, DAY_1, DAY_2, DAY_3, GAME_OVER]
    assert subjects(dovecot, EMAIL[FAN]) == [WELCOME, DAY_1, KILLED, GAME_OVER]
    assert subjects(dovecot, EMAIL[KATYA]) == [
        WELCOME,
        DAY_1,
        reminder_subject,
        DAY_2,
        DAY_3,
        GAME_OVER,
    ]
    # vote_count_mail: the count after every accepted vote (3 of Вася's casts count)
    gm: list[str | AnyOrder] = [
        SHEET,
        *(OPENING, md(OPENING), facts(OPENING)),
        *[VOTES[0]] * 11,
        *(EVENING[0], md(EVENING[0])),
        *(MORNING[0], md(MORNING[0]), facts(MORNING[0])),
        NIGHT[0],
        *[VOTES[1]] * 5,
        *(EVENING[1], md(EVENING[1]), facts(EVENING[1])),
        # end-night's posts, and the counts of the day-3 votes sent right after it
        any_order(MORNING[1], md(MORNING[1]), facts(MORNING[1]), NIGHT[1], *[VOTES[2]] * 3),
        *(EVENING[2], md(EVENING[2])),
        *(FINAL, md(FINAL)),
    ]
    assert as_delivered(subjects(dovecot, GM), gm) == gm
    morning_2_mails = [MORNING[1], md(MORNING[1]), facts(MORNING[1]), NIGHT[1]]
    in_turn = [s for s in subjects(dovecot, GM) if s in morning_2_mails]
    assert in_turn == morning_2_mails  # among themselves, end-night's mails keep their order
    gm_box = mailbox(dovecot, GM)
    assert [m.body for m in gm_box[4:7]] == [
        f"{GAME_LINE}День 1: голоса на данный момент\n\n- {target} (1): Вася\n\n"
        "Не проголосовали: Петя, Таня, Оля, Саша, Маша, Коля, Дима, Лена, Катя.\n"
        for target in (PETYA, TANYA, PETYA)
    ]
    assert gm_box[14].body == (
        f"{GAME_LINE}День 1: голоса на данный момент\n\n"
        "- Лена (5): Петя, Таня, Оля, Саша, Маша\n"
        "- Петя (3): Вася, Лена, Коля\n"
        "- Коля (1): Дима\n\n"
        "Не проголосовали: Катя.\n"
    )
    # RFC 3834: every mail pbp sent is automatic; replies are exactly the Re: ones (after
    # the game's tag unless it was in the Subject answered).
    for address in (GM, *EMAIL.values()):
        for mail in mailbox(dovecot, address):
            reply = mail.subject.removeprefix(f"{TAG} ").startswith("Re: ")
            expected = "auto-replied" if reply else "auto-generated"
            assert mail.header("Auto-Submitted") == expected, (address, mail.subject)

    # --- M1, M6, M8: no role and nothing of the maniac's doings reached anyone else
    # before the end (the GM's own mails aside)
    told = [
        (name, mail.subject)
        for name in PLAYERS
        for mail in mailbox(dovecot, EMAIL[name])
        if mail.subject != GAME_OVER and any(secret in mail.body for secret in SECRETS)
    ]
    assert told == [
        (MANIAC, WELCOME),  # his fan
        (MANIAC, DAY_1),  # his orders
        (MANIAC, FIXED[1]),
        (MANIAC, DAY_2),  # his STATUS
        (MANIAC, NIGHT_2),  # his STATUS at night
        (FAN, WELCOME),  # her maniac
    ]
    # Nor any post mail of the GM's before the final one (issue 12: posts travel alone).
    before_final = gm_box[: next(i for i, m in enumerate(gm_box) if m.subject == FINAL)]
    posts = [m for m in before_final if m.subject.endswith((" — BBCode", " — Markdown"))]
    assert len(posts) == 12
    for mail in posts:
        assert not any(secret in post(mail) for secret in SECRETS), mail.subject

    # --- the daemon's mailbox: every move done, never marked \Seen
    processed = mailbox(dovecot, DAEMON)
    moves = [*DAY_1_MOVES, *DAY_2_MOVES, MANIAC, *DAY_3_MOVES, PETYA]
    assert [mail.header("Delivered-To") for mail in processed] == [personal[p] for p in moves]
    for mail in processed:
        assert DONE in mail.flags
        assert "\\Seen" not in mail.flags

    # --- the log: the scheduler passed day 1 and night 1 at their wall-clock minutes
    with Store(run.config.parent / "pbp.sqlite3") as store:
        logged = [stored.event for stored in store.events(GAME)]
    closes = [e.data for e in logged if e.kind == "day_closed"]
    dawns = [e.data for e in logged if e.kind == "night_ended"]
    assert [(c["day"], c["to_cell"], c["to_prison"], c["prison_reason"]) for c in closes] == [
        (1, FAN, None, None),
        (2, MANIAC, None, None),
        (3, None, MANIAC, "second_night"),
    ]
    assert closes[0]["closed_at"] == close_1.astimezone(UTC).isoformat()
    assert [(d["night"], d["dead"], d["released"]) for d in dawns] == [
        (1, [VASYA, FAN], None),
        (2, [], MANIAC),
    ]
    assert dawns[0]["ended_at"] == dawn_1.astimezone(UTC).isoformat()
    (result,) = [e.data for e in logged if e.kind == "game_over"]
    assert (result["winner_team"], result["canonical"]) == ("town", canonical)
    assert result["roles"] == ROLES
    resolutions = [e.data for e in logged if e.kind == "night_resolution"]
    assert [(r["outcome"], r["fan_in_cell"], r["dead"]) for r in resolutions] == [
        ("kill", FAN, [VASYA, FAN]),
        ("void", None, []),
    ]
