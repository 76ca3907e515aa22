"""The GM's levers (pbp.app.gm) in Cluedo by game days: act, pause/resume/extend, substitute.

Seed 000's game (kits.table): Кросс, Дуг, Роза; Дуг holds Спальня, Пистолет, Молоток.
Day 1 closes 2026-12-01 22:30 Moscow = 19:30 UTC. Every lever is an event in the
log, announced where a human GM would, the same from the CLI and by mail.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from kits.table import GM, Table, body, named_body, summary, utc

from pbp.app.story import story
from pbp.games.core.events import LeverRefused, MoveError, Visibility
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT

GAME = "seed-000"
SUGGESTION = "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг"
ANNOUNCE = "[seed-000] Объявление для форума: {} — BBCode"
RESULT = "[seed-000] Команды ГМа: результат"
TRUSTED = "mx.example.test"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    # The GM's mail passes DMARC at the trusted server: his levers need no confirmation
    # (the confirmation itself: tests/test_forgery.py).
    table = Table(tmp_path, trusted=TRUSTED)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def gm_mail(table: Table, *lines: str, at: datetime, sender: str = GM) -> str:
    """The GM (or ``sender``) mails ``lines`` to the GM's personal address."""
    token = table.store.player_token(GAME, GM_SEAT)
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = f"gm+{token}@example.test"
    message["Subject"] = "команды"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    message["Authentication-Results"] = table.passed()
    message.set_content("\n".join(lines) + "\n")
    deliver(table.inbox_path, bytes(message), at=at)
    return str(message["Message-ID"])


def log(table: Table, since: int = 0) -> list[tuple[str, str, str | None, dict[str, object]]]:
    """``[(kind, visibility, source, data)]`` of the events after seq ``since``."""
    return [
        (s.event.kind, s.event.visibility.value, s.source, dict(s.event.data))
        for s in table.store.events(GAME)
        if s.seq > since
    ]


def last_seq(table: Table) -> int:
    return table.store.events(GAME)[-1].seq


def flushed(table: Table) -> list[EmailMessage]:
    """Send what the levers queued (they do not send: the CLI or daemon does); the new mails."""
    table.service.flush_outbox(utc(2026, 12, 31))
    return table.new_mail()


def suggest(table: Table) -> None:
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["applied"]
    table.new_mail()


# --- act ---------------------------------------------------------------------------


def test_act_enters_a_lost_refutation_with_the_same_private_mails(table: Table) -> None:
    suggest(table)
    seq = last_seq(table)
    done = table.service.gm.act(
        GAME, "Дуга", "опровержение спальня", now=utc(2026, 12, 1, 18), via="cli", note="письмо"
    )
    assert done["player"] == "Дуг" and done["lever"] == "act"
    rows = log(table, seq)
    assert [(k, v, src) for k, v, src, _ in rows] == [
        ("refuted", "public", "gm:cli"),
        ("card_shown", "player", "gm:cli"),
        ("gm_act", "gm", "gm:cli"),
    ]
    assert rows[2][3] == {
        "player": "Дуг",
        "move": "опровержение спальня",
        "via": "cli",
        "note": "письмо",
    }
    # The shown card stays private: no public event names it.
    assert all("card" not in data for _k, vis, _s, data in rows if vis == "public")
    mails = flushed(table)
    assert summary(mails) == [
        ("doug@example.test", "[seed-000] ГМ внёс за вас ход"),
        ("cross@example.test", "[seed-000] Предположение №1: вам показали карту"),
    ]
    assert "Дуг, ГМ внёс за вас ход — вот что сделано." in body(mails[0])
    assert "Карта показана приватом." in body(mails[0])
    assert "Дуг показывает вам карту «Спальня»." in body(mails[1])
    assert mails[0]["Reply-To"] == f"gm+{table.token('Дуг')}@example.test"


def test_act_is_checked_like_the_players_own_mail_and_refused_whole(table: Table) -> None:
    suggest(table)
    seq = last_seq(table)
    with pytest.raises(LeverRefused) as refused:
        table.service.gm.act(
            GAME, "Дуг", "НЕТ ОПРОВЕРЖЕНИЯ", now=utc(2026, 12, 1, 18), via="cli", note=None
        )
    assert refused.value.code == "gm_act_refused"
    assert refused.value.params["player"] == "Дуг"
    assert "Пистолет, Спальня" in refused.value.params["errors"][0]
    assert log(table, seq) == []
    assert flushed(table) == []
    with pytest.raises(MoveError) as unknown:
        table.service.gm.act(
            GAME, "Вова", "НЕТ ОПРОВЕРЖЕНИЯ", now=utc(2026, 12, 1, 18), via="cli", note=None
        )
    assert unknown.value.code == "unknown_name"


@pytest.mark.parametrize("move", ["СТАТУС", "привет, Дуг"])
def test_act_without_a_move_says_why_nothing_was_entered(table: Table, move: str) -> None:
    """ACT with only STATUS (or no command at all) used to answer "nothing was entered:"
    with an empty reason."""
    seq = last_seq(table)
    with pytest.raises(LeverRefused) as refused:
        table.service.gm.act(GAME, "Дуг", move, now=utc(2026, 12, 1, 18), via="cli", note=None)
    assert refused.value.code == "gm_act_refused"
    text = table.service.renderer.error(refused.value.code, refused.value.params, locale="ru")
    assert text == (
        f"За игрока Дуг ничего не внесено: в «{move}» нет хода, меняющего игру (СТАТУС и "
        "ПОМОЩЬ только отвечают игроку). Пишите ход так, как его написал бы сам игрок."
    )
    assert last_seq(table) == seq and flushed(table) == []


def test_act_by_mail_from_the_gm_address_answers_the_gm(table: Table) -> None:
    suggest(table)
    sent = gm_mail(table, "Привет!", "ЗА Дуга: опровержение спальня", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
    mails = table.new_mail()
    assert summary(mails) == [
        ("doug@example.test", "[seed-000] ГМ внёс за вас ход"),
        ("cross@example.test", "[seed-000] Предположение №1: вам показали карту"),
        (GM, "[seed-000] Re: команды"),
    ]
    answer = body(mails[2])
    assert mails[2]["In-Reply-To"] == sent
    assert "> ЗА Дуга: опровержение спальня\nВнесено за Дуг:\n" in answer
    assert "  опровержение спальня — принято" in answer
    assert [k for k, *_ in log(table) if k == "gm_act"] == ["gm_act"]
    assert log(table)[-1][3]["via"] == "mail"


def test_act_by_mail_keeps_the_note_after_the_dashes_out_of_the_move(table: Table) -> None:
    """``ACT Дуг: REFUTE нож -- письмо потерялось`` used to read the note as a card."""
    suggest(table)
    seq = last_seq(table)
    gm_mail(table, "ACT Дуг: REFUTE спальня -- письмо Дуга потерялось", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
    assert [(k, d) for k, _v, _s, d in log(table, seq) if k == "gm_act"] == [
        (
            "gm_act",
            {
                "player": "Дуг",
                "move": "REFUTE спальня",
                "via": "mail",
                "note": "письмо Дуга потерялось",
            },
        )
    ]
    answer = body(next(m for m in table.new_mail() if m["Subject"] == "[seed-000] Re: команды"))
    assert "  REFUTE спальня — принято" in answer


def test_a_gm_mail_read_again_is_a_duplicate_and_its_lever_is_not_repeated(
    table: Table,
) -> None:
    """A renumbered mailbox (new UIDVALIDITY) shows the GM's mail again: by its
    Message-ID it is recognised, so a lever is never pulled twice (issue 6, promise 3)."""
    suggest(table)
    message = EmailMessage(policy=SMTP)
    message["From"] = GM
    message["To"] = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    message["Subject"] = "команды"
    message["Message-ID"] = make_msgid(domain="example.test")
    message["Authentication-Results"] = table.passed()
    message.set_content("ЗА Дуга: опровержение спальня\n")
    deliver(table.inbox_path, bytes(message), at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
    deliver(table.inbox_path, bytes(message), at=utc(2026, 12, 1, 18, 2))
    assert table.run(utc(2026, 12, 1, 18, 3)) == ["duplicate"]
    assert [k for k, *_ in log(table) if k in ("gm_act", "refuted")] == ["refuted", "gm_act"]


def test_a_gm_mail_that_does_not_fit_is_refused_with_the_syntax(table: Table) -> None:
    gm_mail(table, "ПРОДЛИТЬ много", "ПАУЗА", "ПАУЗА", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
    mails = table.new_mail()
    answer = body(next(m for m in mails if m["Subject"] == "[seed-000] Re: команды"))
    assert "> ПРОДЛИТЬ много\nНе выполнено. Команда ГМа записана не так. Пишите так: " in answer
    assert (
        "Игра на паузе. До срока оставалось 1 ч 30 мин; это время вернётся по команде "
        "ПРОДОЛЖИТЬ." in answer
    )
    assert "> ПАУЗА\nНе выполнено. Игра seed-000 уже на паузе" in answer


def test_lines_that_are_no_gm_command_are_answered_and_help_lists_the_commands(
    table: Table,
) -> None:
    seq = last_seq(table)
    gm_mail(table, "SHOW", "ПОМОЩЬ", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
    assert log(table, seq) == []
    answer = body(next(m for m in table.new_mail() if m["Subject"] == "[seed-000] Re: команды"))
    # Cluedo by days has game days and no nights: ЗАКРЫТЬ ДЕНЬ, no ЗАВЕРШИТЬ НОЧЬ.
    commands = (
        "ЗА <игрок>: <ход> · ПАУЗА · ПРОДОЛЖИТЬ · ПРОДЛИТЬ <часы> · "
        "ЗАМЕНА <игрок> НА <имя> <адрес> · АДРЕС <игрок> <новый адрес> · ИСКЛЮЧИТЬ <игрок> · "
        "ОТМЕНИТЬ <номер события> · ЗАКРЫТЬ ДЕНЬ · ОТЛОЖЕННЫЕ · "
        "ПОВТОРИТЬ <номер> · ОТКЛОНИТЬ <номер> · ЭКСПОРТ markdown|bbcode|html · ПОМОЩЬ · "
        "СТАТУС [ВСЕ] · НОВЫЙ АДРЕС"
    )
    refusal = f"Не выполнено. Это не команда ГМа. Команды ГМа, по одной в строке: {commands}."
    assert f"> SHOW\n{refusal}\n" in answer
    assert (
        "> ПОМОЩЬ\nКоманды ГМа (по одной в строке, пояснение — после « -- »):\n"
        "  ЗА <игрок>: <ход> — внести ход за игрока (потерянное письмо)\n"
    ) in answer
    assert (
        "  ОТМЕНИТЬ <номер события> — отменить ход по номеру события (номера — в pbp show)\n"
    ) in answer
    assert "  ЗАКРЫТЬ ДЕНЬ — закрыть игровой день сейчас" in answer
    assert "ЗАВЕРШИТЬ НОЧЬ" not in answer


def test_a_gm_mail_of_unknown_lines_only_is_refused_line_by_line(table: Table) -> None:
    gm_mail(table, "BACKUP", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_refused"]
    answer = body(next(m for m in table.new_mail() if m["Subject"] == "[seed-000] Re: команды"))
    assert "> BACKUP\nНе выполнено. Это не команда ГМа." in answer


def test_the_gm_address_from_another_sender_is_refused(table: Table) -> None:
    gm_mail(table, "ПАУЗА", at=utc(2026, 12, 1, 18), sender="cross@example.test")
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["wrong_sender"]
    assert table.store.last_event(GAME, ("gm_pause",)) is None


def test_gm_mail_to_a_players_address_points_him_to_his_own(table: Table) -> None:
    """A careless GM replies to a player's mail with a command: nothing is done, and he
    is told where commands go (not "write from your registered address", nor a
    separate notice about his own mail)."""
    table.send("Дуг", "ПАУЗА", at=utc(2026, 12, 1, 18), sender=GM)
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_wrong_address"]
    assert table.store.last_event(GAME, ("gm_pause",)) is None
    assert table.store.kept() == []
    (answer,) = table.new_mail()
    assert summary([answer]) == [(GM, "[seed-000] Re: ход")]
    gm_address = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    assert answer["Reply-To"] == gm_address  # a reply to it goes where commands go
    # ПАУЗА is a GM command already: it just goes to his address, no ACT hint.
    assert named_body(answer, GAME) == (
        "Письмо пришло на личный адрес Дуг, поэтому ничего не выполнено. Команды "
        f"ГМа пишите на ваш адрес ГМа: {gm_address}.\n"
    )


def test_gm_move_to_a_players_address_is_shown_act_with_the_name_as_act_reads_it(
    table: Table,
) -> None:
    """A move (not a GM command) written to a player's address: he is shown ACT, the
    name in the accusative as ACT reads it (ЗА Розу: …)."""
    move = "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс"
    table.send("Роза", move, at=utc(2026, 12, 1, 18), sender=GM)
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_wrong_address"]
    (answer,) = table.new_mail()
    gm_address = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    assert named_body(answer, GAME) == (
        "Письмо пришло на личный адрес Розы, поэтому ничего не выполнено. Команды "
        f"ГМа пишите на ваш адрес ГМа: {gm_address}. Чтобы внести ход за игрока, "
        "напишите туда строку\n    ЗА Розу: <ход>\n"
    )


# --- pause, resume, extend -----------------------------------------------------------


def test_D8_a_paused_game_does_not_close_and_held_mail_is_applied_on_resume(
    table: Table,
) -> None:
    table.service.gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note="выходные")
    row = table.store.game(GAME)
    assert row is not None and row.deadline_at is None
    mails = flushed(table)
    assert summary(mails) == [(GM, ANNOUNCE.format("пауза"))]
    assert "[b]Игра приостановлена.[/b]\n\nПримечание ГМа: выходные\n" in body(mails[0])
    # Mail during the pause is held, answered, and nothing closes at 19:30.
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 18))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 18, 5))
    assert table.run(utc(2026, 12, 2, 9)) == ["paused", "paused"]
    held = table.new_mail()
    assert summary(held) == [
        ("cross@example.test", "[seed-000] Re: ход"),
        ("rosa@example.test", "[seed-000] Re: ход"),
    ]
    assert "ГМ приостановил игру" in body(held[0])
    assert [k for k, *_ in log(table) if k in ("day_closed", "suggestion_made")] == []
    # Resume the next morning: 2 h 20 min were left, so day 1 closes at 12:20 UTC.
    done = table.service.gm.resume(GAME, now=utc(2026, 12, 2, 10), via="cli", note=None)
    assert done["deadline_at"] == "2026-12-02T12:20:00+00:00"
    assert done["paused_seconds"] == 16 * 3600 + 50 * 60
    assert done["held"] == 2
    row = table.store.game(GAME)
    assert row is not None and row.deadline_at == utc(2026, 12, 2, 12, 20)
    outcomes = table.run(utc(2026, 12, 2, 10))
    assert outcomes == ["applied", "applied"]
    made = [
        (s.day, s.at, s.event.data["suggester"])
        for s in table.store.events(GAME)
        if s.event.kind == "suggestion_made"
    ]
    # Both count in day 1, when they arrived (D8), in arrival order; the log, which
    # never runs backwards, records them at the resume.
    assert made == [
        (1, utc(2026, 12, 2, 10), "Кросс"),
        (1, utc(2026, 12, 2, 10), "Роза"),
    ]
    # A second round applies nothing twice; day 1 closes once, at its moved time.
    assert table.run(utc(2026, 12, 2, 12, 19)) == []
    table.run(utc(2026, 12, 2, 12, 21))
    closes = [s.at for s in table.store.events(GAME) if s.event.kind == "day_closed"]
    assert closes == [utc(2026, 12, 2, 12, 20)]
    row = table.store.game(GAME)
    assert row is not None and row.deadline_at == utc(2026, 12, 2, 19, 30)


def test_D8_held_mail_is_applied_once_by_resume_never_by_pbp_retry(table: Table) -> None:
    table.service.gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["paused"]
    (kept,) = table.store.kept()
    assert (kept.reason, kept.held_for) == ("paused", GAME)
    # pbp retry leaves a held message to the resume, before and after it.
    before = table.service.retry([kept.id], utc(2026, 12, 1, 18, 2))
    assert [(o.outcome, o.notes) for o in before] == [("held", ["applied on resume"])]
    table.service.gm.resume(GAME, now=utc(2026, 12, 2, 10), via="cli", note=None)
    assert table.run(utc(2026, 12, 2, 10)) == ["applied"]
    after = table.service.retry([kept.id], utc(2026, 12, 2, 10, 1))
    assert [(o.outcome, o.notes) for o in after] == [("resumed", ["applied"])]
    made = [
        s.event.data["suggester"]
        for s in table.store.events(GAME)
        if s.event.kind == "suggestion_made"
    ]
    assert made == ["Кросс"]


def replay_statements(table: Table, now: datetime) -> tuple[list[str], list[str]]:
    """``(outcomes, SQL statements run)`` of one replay of the held mail at ``now``
    (:meth:`pbp.app.intake.Intake.replay_held`)."""
    statements: list[str] = []
    table.store._db.set_trace_callback(statements.append)
    try:
        outcomes = table.service.replay_held(now)
    finally:
        table.store._db.set_trace_callback(None)
    return [o.outcome for o in outcomes], statements


def test_D8_replay_held_asks_nothing_of_each_game_when_no_mail_is_held(table: Table) -> None:
    # Every round calls it: with nothing held, one indexed query, whatever the games.
    outcomes, statements = replay_statements(table, utc(2026, 12, 1, 17, 1))
    assert outcomes == []
    assert len(statements) == 1 and "held_for IS NOT NULL" in statements[0]
    # Nor after the held mail was replayed.
    table.service.gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["paused"]
    table.service.gm.resume(GAME, now=utc(2026, 12, 2, 10), via="cli", note=None)
    assert table.run(utc(2026, 12, 2, 10)) == ["applied"]
    outcomes, statements = replay_statements(table, utc(2026, 12, 2, 10, 1))
    assert outcomes == []
    assert len(statements) == 1


def test_D8_held_mail_of_a_resumed_game_is_replayed_exactly_once(table: Table) -> None:
    table.service.gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["paused"]
    # Still paused: held, not replayed.
    assert replay_statements(table, utc(2026, 12, 1, 18, 2))[0] == []
    # Resumed without a round (another process's `pbp resume`): the next call replays it,
    # the ones after it never again.
    table.service.gm.resume(GAME, now=utc(2026, 12, 2, 10), via="cli", note=None)
    assert replay_statements(table, utc(2026, 12, 2, 10))[0] == ["applied"]
    assert replay_statements(table, utc(2026, 12, 2, 10, 1))[0] == []
    assert table.run(utc(2026, 12, 2, 10, 2)) == []
    made = [
        s.event.data["suggester"]
        for s in table.store.events(GAME)
        if s.event.kind == "suggestion_made"
    ]
    assert made == ["Кросс"]
    (kept,) = table.store.kept()
    assert not kept.waiting


def test_D8_held_mail_of_a_player_substituted_during_the_pause_is_not_applied_and_he_is_told(
    table: Table,
) -> None:
    """The weekend case: the GM pauses, finds a substitute, resumes. The old player's
    held mail used to hit his dead token on resume (a misleading "wrong address"
    answer after the promise "it will be applied"); now he is told at the substitution
    and the GM gets the kept id to ACT it if it should count."""
    gm = table.service.gm
    gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
    table.send("Дуг", SUGGESTION.replace("ДЛЯ Дуг", "ДЛЯ Роза"), at=utc(2026, 12, 1, 18))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 18, 5))
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["paused", "paused"]
    doug_kept, _rosa_kept = (k.id for k in table.store.kept())
    table.new_mail()
    done = gm.substitute(
        GAME, "Дуг", "Вова", "vova@example.test", now=utc(2026, 12, 1, 19), via="cli", note=None
    )
    assert done["dropped"] == [doug_kept]
    mails = flushed(table)
    assert summary(mails) == [
        ("doug@example.test", "[seed-000] Re: ход"),
        ("vova@example.test", "[seed-000] Вы занимаете место Дуг"),
        (GM, ANNOUNCE.format("замена игрока")),
    ]
    assert named_body(mails[0], GAME) == (
        "Пока игра стояла на паузе, ГМ передал ваше место Вове. Поэтому ваше письмо, "
        "сохранённое на время паузы, учтено не будет, а ваш личный адрес для этой игры "
        "больше не действует. ГМ об этом знает; если ход должен засчитаться, ГМ внесёт его "
        "сам.\n"
    )
    assert (
        f"Письма прежнего игрока, сохранённые на время паузы, учтены не будут (ему объяснили "
        f"почему); в списке ОТЛОЖЕННЫЕ это №{doug_kept}. Если ход должен засчитаться, внесите его "
        "командой ЗА."
        in gm.result_text(
            table.service.game_config(GAME), [{"line": "", "lever": "substitute", "done": done}]
        )
    )
    assert gm.resume(GAME, now=utc(2026, 12, 2, 10), via="cli", note=None)["held"] == 1
    assert table.run(utc(2026, 12, 2, 10)) == ["applied"]
    assert [to for to, _subject in summary(table.new_mail())] == [
        GM,  # the resume's announcement, in BBCode
        "rosa@example.test",
        "cross@example.test",  # Роза's suggestion to him
    ]
    made = [
        s.event.data["suggester"]
        for s in table.store.events(GAME)
        if s.event.kind == "suggestion_made"
    ]
    assert made == ["Роза"]


def test_pause_and_resume_refuse_what_does_not_fit(table: Table) -> None:
    gm = table.service.gm
    with pytest.raises(LeverRefused) as error:
        gm.resume(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
    assert error.value.code == "gm_not_paused"
    gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
    with pytest.raises(LeverRefused) as error:
        gm.pause(GAME, now=utc(2026, 12, 1, 17, 20), via="cli", note=None)
    assert error.value.code == "gm_already_paused"
    with pytest.raises(LeverRefused) as error:
        gm.act(GAME, "Кросс", SUGGESTION, now=utc(2026, 12, 1, 17, 20), via="cli", note=None)
    assert error.value.code == "gm_paused"


def test_already_paused_refusal_gives_the_time_in_the_games_zone_not_iso(table: Table) -> None:
    """The GM's result mail said «уже на паузе (с 2026-12-01T18:02:00+00:00)»: a stored
    time as the machine writes it. It is given in the game's zone, as every GM text."""
    gm = table.service.gm
    gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
    with pytest.raises(LeverRefused) as error:
        gm.pause(GAME, now=utc(2026, 12, 1, 17, 20), via="cli", note=None)
    refused = error.value
    assert [
        table.service.renderer.error(refused.code, refused.params, locale=locale)
        for locale in ("ru", "en")
    ] == [
        "Игра seed-000 уже на паузе (с 1 декабря 2026 г., 20:10 по Москве).",
        "Game seed-000 is already paused (since December 1, 2026, 20:10 MSK).",
    ]


def test_extend_moves_the_close_and_its_reminder(tmp_path: Path) -> None:
    table = Table(tmp_path, extra="remind_hours_before: 2\n")
    try:
        table.run(utc(2026, 12, 1, 17))
        table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5))
        table.run(utc(2026, 12, 1, 17, 6))
        table.new_mail()
        done = table.service.gm.extend(GAME, 3, now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
        assert done["deadline_at"] == "2026-12-01T22:30:00+00:00"
        mails = flushed(table)
        assert summary(mails) == [
            (GM, ANNOUNCE.format("продление срока")),
        ]
        assert (
            "[b]Закрытие дня 1 отложено на 3 часа.[/b]\n\nДень 1 закроется 2 декабря 2026 г., "
            "01:30 по Москве." in body(mails[0])
        )
        # The old reminder time (17:30) passes quietly; the new one is at 20:30.
        table.run(utc(2026, 12, 1, 17, 31))
        assert table.new_mail() == []
        table.run(utc(2026, 12, 1, 19, 31))
        assert [k for k, *_ in log(table) if k == "day_closed"] == []
        table.run(utc(2026, 12, 1, 20, 31))
        reminders = summary(table.new_mail())
        assert [to for to, _subject in reminders] == [
            "cross@example.test",
            "doug@example.test",
            "rosa@example.test",
        ]
        assert {subject for _to, subject in reminders} == {
            "[seed-000] Напоминание: день закрывается 2 декабря 2026 г., 01:30 по Москве"
        }
        table.run(utc(2026, 12, 1, 22, 31))
        closes = [s.at for s in table.store.events(GAME) if s.event.kind == "day_closed"]
        assert closes == [utc(2026, 12, 1, 22, 30)]
        row = table.store.game(GAME)
        assert row is not None and row.deadline_at == utc(2026, 12, 2, 19, 30)
    finally:
        table.close()


@pytest.mark.parametrize("hours", [720.5, 99999999.0, 1e12, float("inf")])
def test_extend_refuses_more_than_30_days_instead_of_crashing(table: Table, hours: float) -> None:
    """A typo (2000 for 20) or a date past the calendar used to crash the lever
    (OverflowError); it is refused with the limit, the deadline unchanged."""
    seq = last_seq(table)
    with pytest.raises(LeverRefused) as error:
        table.service.gm.extend(GAME, hours, now=utc(2026, 12, 1, 18), via="cli", note=None)
    assert error.value.code == "gm_extend_too_long"
    assert error.value.params == {"hours": hours, "max": 720, "game": GAME}
    row = table.store.game(GAME)
    assert row is not None and row.deadline_at == utc(2026, 12, 1, 19, 30)
    assert last_seq(table) == seq and flushed(table) == []


@pytest.mark.parametrize(
    ("locale", "hours", "text"),
    [
        (
            "ru",
            1.5,
            "Продлить можно не больше чем на 720 часов за раз, а не на 1,5 часа. "
            "Для долгого перерыва — ПАУЗА и ПРОДОЛЖИТЬ.",
        ),
        (
            "ru",
            721.0,
            "Продлить можно не больше чем на 720 часов за раз, а не на 721 час. "
            "Для долгого перерыва — ПАУЗА и ПРОДОЛЖИТЬ.",
        ),
        (
            "ru",
            99999999.0,
            "Продлить можно не больше чем на 720 часов за раз, а не на 99\u00a0999\u00a0999 "
            "часов. Для долгого перерыва — ПАУЗА и ПРОДОЛЖИТЬ.",
        ),
        (
            "en",
            1.5,
            "An extension is at most 720 hours at a time, not 1.5 hours. "
            "For a long break: PAUSE, then RESUME.",
        ),
        (
            "en",
            721.0,
            "An extension is at most 720 hours at a time, not 721 hours. "
            "For a long break: PAUSE, then RESUME.",
        ),
        (
            "en",
            99999999.0,
            "An extension is at most 720 hours at a time, not 99,999,999 hours. "
            "For a long break: PAUSE, then RESUME.",
        ),
    ],
)
def test_the_extend_refusal_writes_its_hours_by_the_locale(
    table: Table, locale: str, hours: float, text: str
) -> None:
    """The refusal's numbers are the lever's own (:func:`pbp.text.filters.hours_filter`
    writes them): the locale's decimal and group symbols, the catalog's plural."""
    params = {"hours": hours, "max": 720}
    assert table.service.renderer.error("gm_extend_too_long", params, locale=locale) == text


def test_extend_by_mail_with_a_huge_number_answers_the_limit(table: Table) -> None:
    gm_mail(table, "ПРОДЛИТЬ 99999999", "EXTEND 1.50", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
    mails = table.new_mail()
    assert summary(mails) == [
        (GM, ANNOUNCE.format("продление срока")),
        (GM, "[seed-000] Re: команды"),
    ]
    text = body(mails[1])
    assert (
        "> ПРОДЛИТЬ 99999999\nНе выполнено. Продлить можно не больше чем на 720 часов за раз, "
        "а не на 99\u00a0999\u00a0999 часов. Для долгого перерыва — ПАУЗА и ПРОДОЛЖИТЬ." in text
    )
    assert (
        "> EXTEND 1.50\nЗакрытие дня 1 отложено на 1 ч 30 мин. Новый срок: 2 декабря 2026 г., "
        "00:00 по Москве." in text
    )
    table.service.gm.extend(GAME, 2.0, now=utc(2026, 12, 1, 18, 5), via="cli", note="дождь")
    told = [
        line.split(" · ", 2)[2]
        for line in story(table.service, GAME, "markdown", force=True).splitlines()
        if "продлевает" in line
    ]
    assert told == ["ГМ продлевает срок на 1 ч 30 мин.", "ГМ продлевает срок на 2 часа — дождь."]


def test_extend_while_paused_adds_to_the_time_left_at_resume(table: Table) -> None:
    gm = table.service.gm
    gm.pause(GAME, now=utc(2026, 12, 1, 18, 30), via="cli", note=None)
    done = gm.extend(GAME, 1.5, now=utc(2026, 12, 1, 20), via="mail", note=None)
    assert done["deadline_at"] is None
    done = gm.resume(GAME, now=utc(2026, 12, 1, 21), via="cli", note=None)
    # 1 h left at the pause + 1.5 h.
    assert done["deadline_at"] == "2026-12-01T23:30:00+00:00"


# --- substitute -----------------------------------------------------------------------


def test_substitute_in_the_middle_of_an_open_answer(table: Table) -> None:
    suggest(table)
    old_token = table.token("Дуг")
    seq = last_seq(table)
    done = table.service.gm.substitute(
        GAME, "Дуг", "Вова", "Vova@Example.test", now=utc(2026, 12, 1, 18), via="cli", note=None
    )
    assert done == {
        "lever": "substitute",
        "player": "Дуг",
        "name": "Вова",
        "email": "vova@example.test",
        "dropped": [],
    }
    assert [(k, v, d) for k, v, _s, d in log(table, seq)] == [
        ("gm_substitute", "public", {"player": "Дуг", "name": "Вова", "via": "cli", "note": None}),
        (
            "gm_seat_address",
            "gm",
            {"player": "Дуг", "old_email": "doug@example.test", "new_email": "vova@example.test"},
        ),
    ]
    new_token = table.token("Дуг")
    assert new_token != old_token
    assert table.store.token(old_token) is None
    mails = flushed(table)
    assert summary(mails) == [
        ("vova@example.test", "[seed-000] Вы занимаете место Дуг"),
        (GM, ANNOUNCE.format("замена игрока")),
    ]
    briefing = body(mails[0])
    assert "Здравствуйте, Вова!" in briefing
    assert "Ваши карты: Спальня, Пистолет, Молоток." in briefing
    owed = "Вы должны ответить:\n  - на предположение №1 от Кросса (Маша, Пистолет, Спальня)"
    assert owed in briefing
    assert "    ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Розы" in briefing  # this game's names
    assert f"Ваш личный адрес для ходов: gm+{new_token}@example.test" in briefing
    assert mails[0]["Reply-To"] == f"gm+{new_token}@example.test"
    assert "[b]Вова заменяет Дуг.[/b]" in body(mails[1])
    assert "vova@example.test" not in body(mails[1])
    # The old address is refused at once, the substitute answers the open suggestion.
    table.send(
        "Дуг",
        "опровержение пистолет",
        at=utc(2026, 12, 1, 18, 5),
        to=f"gm+{old_token}@example.test",
    )
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["replaced"]
    (told,) = table.new_mail()
    assert summary([told]) == [("doug@example.test", "[seed-000] Re: ход")]
    assert named_body(told, GAME) == (
        "Здравствуйте! ГМ передал ваше место в игре «seed-000» другому игроку, и ваш "
        "личный адрес для этой игры больше не действует. Ходы из вашего письма не выполнены. "
        "Если это ошибка, напишите ГМу.\n"
    )
    assert table.store.kept() == []  # nothing for the GM to look at
    table.send(
        "Дуг", "опровержение спальня", at=utc(2026, 12, 1, 18, 10), sender="vova@example.test"
    )
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["applied"]
    mails = table.new_mail()
    assert summary(mails) == [
        ("vova@example.test", "[seed-000] Re: ход"),
        ("cross@example.test", "[seed-000] Предположение №1: вам показали карту"),
    ]
    # The seat by its substitute's name, the seat's own beside it.
    assert "Вова (вместо Дуг) показывает вам карту «Спальня»." in body(mails[1])


def test_substitute_refuses_an_address_already_in_the_game(table: Table) -> None:
    with pytest.raises(LeverRefused) as error:
        table.service.gm.substitute(
            GAME,
            "Дуг",
            "Роза-2",
            "rosa@example.test",
            now=utc(2026, 12, 1, 18),
            via="cli",
            note=None,
        )
    assert error.value.code == "gm_address_taken"
    assert error.value.params == {"email": "rosa@example.test", "player": "Роза"}


@pytest.mark.parametrize(
    ("email", "code"),
    [
        ("not an address", "gm_bad_address"),
        ("vova@", "gm_bad_address"),
        ("vova@localhost", "gm_bad_address"),  # no dot: mail from outside never reaches it
        ("a@b", "gm_bad_address"),
        ("mailer-daemon@example.test", "gm_bad_address"),  # its mail is always automatic
        ("Postmaster@example.test", "gm_bad_address"),
        ("gm@example.test", "gm_address_reserved"),
        ("GM+abc123@example.test", "gm_address_reserved"),
        (GM, "gm_address_reserved"),
    ],
)
def test_substitute_refuses_a_typo_and_the_games_own_addresses(
    table: Table, email: str, code: str
) -> None:
    """A careless GM's typo (or the daemon's own address, a mail loop) never takes the
    seat from its player: refused before anything changes, the old token still works."""
    token = table.token("Дуг")
    seq = last_seq(table)
    with pytest.raises(LeverRefused) as error:
        table.service.gm.substitute(
            GAME, "Дуг", "Вова", email, now=utc(2026, 12, 1, 18), via="cli", note=None
        )
    assert error.value.code == code
    assert error.value.params == {"email": email.lower()}
    assert table.token("Дуг") == token and last_seq(table) == seq
    assert flushed(table) == []


def test_substitute_by_mail_with_a_bad_address_answers_why(table: Table) -> None:
    gm_mail(table, "ЗАМЕНА Дуг НА Вова gm@example.test", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_refused"]
    (answer,) = table.new_mail()
    assert (
        "Не выполнено. Адрес gm@example.test — адрес ГМа или самой игры: заменяющему "
        "нужен адрес, который в игре не используется. Место осталось за прежним игроком."
        in body(answer)
    )


def test_public_posts_see_no_private_fact_of_the_new_events(table: Table) -> None:
    suggest(table)
    gm = table.service.gm
    gm.act(GAME, "Дуг", "опровержение спальня", now=utc(2026, 12, 1, 18), via="cli", note="секрет")
    gm.substitute(
        GAME, "Дуг", "Вова", "vova@example.test", now=utc(2026, 12, 1, 18, 1), via="cli", note=None
    )
    gm.pause(GAME, now=utc(2026, 12, 1, 18, 2), via="cli", note=None)
    public = [s.event for s in table.store.events(GAME, public_only=True)]
    kinds = {e.kind for e in public}
    assert "gm_act" not in kinds and "gm_seat_address" not in kinds
    text = repr([dict(e.data) for e in public])
    for secret in ("секрет", "vova@example.test", "doug@example.test", "'card'"):
        assert secret not in text
    assert all(e.visibility is Visibility.PUBLIC for e in public)


# --- remove -------------------------------------------------------------------------------


def test_C5_remove_keeps_the_seat_and_the_gm_answers_for_it(table: Table) -> None:
    suggest(table)
    seq = last_seq(table)
    done = table.service.gm.remove(GAME, "Дуга", now=utc(2026, 12, 1, 18), via="cli", note="пропал")
    assert done == {"lever": "remove", "player": "Дуг", "name": None, "over": False}
    rows = log(table, seq)
    assert [(k, v) for k, v, _s, _d in rows] == [
        ("player_removed", "public"),
        ("gm_refutation", "gm"),
        ("refuted", "public"),
        ("card_shown", "player"),
        ("gm_remove", "gm"),
    ]
    assert rows[0][3] == {"player": "Дуг", "day": 1}
    assert rows[3][3]["card"] == "Пистолет"  # C5: suspect, weapon, room order
    assert rows[4][3] == {"player": "Дуг", "via": "cli", "note": "пропал"}
    mails = flushed(table)
    assert summary(mails) == [
        (GM, ANNOUNCE.format("игрок выбывает")),  # first: what follows is its consequence
        ("doug@example.test", "[seed-000] Вы исключены из игры"),
        ("cross@example.test", "[seed-000] Предположение №1: вам показали карту"),
    ]
    assert (
        "[b]ГМ исключил Дуг из игры.[/b]\n\nПримечание ГМа: пропал\n\nЕё место остаётся в игре"
        in body(mails[0])
    )  # the note
    # A later suggestion to him is answered by the GM at once, without a penalty.
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Маша, Нож, Столовая ДЛЯ Дуг", at=utc(2026, 12, 1, 18, 5))
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["applied"]
    answers = [d for k, _v, _s, d in log(table) if k in ("refuted", "not_refuted")]
    assert [(d["number"], d["by_gm"]) for d in answers] == [(1, True), (2, True)]
    # He can no longer suggest; he is told he was removed, not that he accused wrongly.
    table.new_mail()
    table.send("Дуг", "ПРЕДПОЛОЖЕНИЕ Маша, Нож, Столовая ДЛЯ Роза", at=utc(2026, 12, 1, 18, 10))
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["refused"]
    (refusal,) = table.new_mail()
    assert "ГМ исключил вас из игры: предположения и обвинения вам больше недоступны." in (
        body(refusal)
    )
    table.send("Дуг", "СТАТУС", at=utc(2026, 12, 1, 18, 12))
    assert table.run(utc(2026, 12, 1, 18, 13)) == ["status"]
    (status,) = table.new_mail()
    assert "ГМ исключил вас из игры; на адресованные вам предположения отвечает ГМ.\n" in (
        body(status)
    )
    assert "неверного обвинения" not in body(status)
    table.run(utc(2026, 12, 1, 19, 31))
    (closed,) = [d for k, _v, _s, d in log(table) if k == "day_closed"]
    assert closed["penalties"] == {}
    assert closed["allowances"] == {"Кросс": 3, "Роза": 3}
    with pytest.raises(MoveError) as again:
        table.service.gm.remove(GAME, "Дуг", now=utc(2026, 12, 1, 20), via="cli", note=None)
    assert again.value.code == "already_removed"


# --- export -------------------------------------------------------------------------------


def play_to_the_end(table: Table) -> None:
    """A lost refutation entered by the GM, an extension, a close, a winning accusation."""
    suggest(table)
    gm = table.service.gm
    gm.act(GAME, "Дуг", "опровержение спальня", now=utc(2026, 12, 1, 18), via="cli", note="потеря")
    gm.extend(GAME, 2, now=utc(2026, 12, 1, 18, 30), via="mail", note=None)
    table.run(utc(2026, 12, 1, 21, 31))
    table.send("Кросс", "ОБВИНЕНИЕ Маша, Топор, Столовая", at=utc(2026, 12, 2, 8))
    assert table.run(utc(2026, 12, 2, 8, 1)) == ["applied"]
    table.new_mail()


def test_export_tells_the_whole_story_per_day_with_every_private_fact(table: Table) -> None:
    play_to_the_end(table)
    text = story(table.service, GAME, "markdown")
    assert text.startswith("**Игра «seed-000»: вся история**\n")
    # The zone named once, not on every line.
    assert "Время — по Москве." in text
    day_1, day_2 = text.split("**День 1**\n\n")[1].split("\n**День 2**\n\n")
    assert day_1.splitlines() == [
        "- событие 1 · 1 декабря 2026 г., 20:00 🔒 · раздача — решение **Маша**, **Топор**, "
        "**Столовая**; "
        "карты: Кросс **Петя**, **Ваня**, **Нож**; Дуг **Спальня**, **Пистолет**, **Молоток**; "
        "Роза **Библиотека**, **Канделябр**, **Веревка**.",
        "- событие 2 · 1 декабря 2026 г., 20:00 🔒 · Кроссу сданы карты: **Петя**, **Ваня**, "
        "**Нож**.",
        "- событие 3 · 1 декабря 2026 г., 20:00 🔒 · Дуг сданы карты: **Спальня**, **Пистолет**, "
        "**Молоток**.",
        "- событие 4 · 1 декабря 2026 г., 20:00 🔒 · Розе сданы карты: "
        "**Библиотека**, **Канделябр**, **Веревка**.",
        "- событие 5 · 1 декабря 2026 г., 20:00 · игра начинается: Кросс, Дуг, Роза.",
        "- событие 6 · 1 декабря 2026 г., 20:05 · предположение №1 от Кросса для Дуг: "
        "**Маша**, **Пистолет**, **Спальня**.",
        "- событие 7 · 1 декабря 2026 г., 21:00 (ГМ) · Дуг опровергает №1.",
        "- событие 8 · 1 декабря 2026 г., 21:00 🔒 (ГМ) · Дуг показывает Кроссу карту **Спальня**.",
        "- событие 9 · 1 декабря 2026 г., 21:00 🔒 · ГМ вносит ход за Дуг: «опровержение спальня» "
        "— потеря.",
        "- событие 10 · 1 декабря 2026 г., 21:30 · ГМ продлевает срок на 2 часа.",
        "- событие 11 · 2 декабря 2026 г., 00:30 · день закрыт.",
    ]
    assert day_2.splitlines() == [
        # The final post names the winner and the solution: no 🔒 on the accusation.
        "- событие 12 · 2 декабря 2026 г., 11:00 · "
        "Кросс обвиняет: **Маша**, **Топор**, **Столовая** — верно.",
        "- событие 13 · 2 декабря 2026 г., 11:00 🔒 · Кросс узнаёт, что обвинение верно.",
        "- событие 14 · 2 декабря 2026 г., 11:00 · игра окончена: победитель — Кросс.",
    ]
    bbcode = story(table.service, GAME, "bbcode")
    assert "[b]День 2[/b]" in bbcode and "карту [b]Спальня[/b]." in bbcode
    html = story(table.service, GAME, "html")
    assert html.startswith('<!DOCTYPE html>\n<html lang="ru">\n<head>\n<meta charset="utf-8">')
    assert "<p><strong>День 1</strong></p>\n<ul>\n<li>событие 1 · 1 декабря 2026 г., 20:00" in html


def test_export_is_refused_while_the_game_runs_unless_forced(table: Table) -> None:
    suggest(table)
    with pytest.raises(LeverRefused) as refused:
        story(table.service, GAME, "markdown")
    assert refused.value.code == "gm_export_running"
    assert "**День 1**" in story(table.service, GAME, "markdown", force=True)
    gm_mail(table, "ЭКСПОРТ", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_refused"]
    (answer,) = table.new_mail()
    assert "Не выполнено. Игра seed-000 ещё идёт: её история раскрыла бы все тайны." in body(answer)


def test_export_by_mail_after_the_game(table: Table) -> None:
    play_to_the_end(table)
    gm_mail(table, "EXPORT bbcode", at=utc(2026, 12, 2, 9))
    assert table.run(utc(2026, 12, 2, 9, 1)) == ["gm_applied"]
    told, answer = table.new_mail()
    # The story travels alone (a select-all pastes it whole into a public thread): its
    # body is exactly the story, never the GM's address or his commands.
    assert (told["To"], told["Subject"]) == (
        GM,
        "[seed-000] Вся история игры — для треда после игры — BBCode",
    )
    assert body(told) == story(table.service, GAME, "bbcode")
    assert "карту [b]Спальня[/b]." in body(told)
    assert "gm+" not in body(told)
    assert "Команды" not in body(told)
    # The result mail tells where it went, and holds none of it.
    text = body(answer)
    assert answer["To"] == GM
    assert (
        "Вся история игры (BBCode) — отдельным письмом; в нём только история, для треда "
        "после игры." in text
    )
    assert "карту [b]Спальня[/b]." not in text
    assert "Ваш адрес ГМа для команд: gm+" in text


# --- void ---------------------------------------------------------------------------------


def seq_of(table: Table, kind: str) -> int:
    return [s.seq for s in table.store.events(GAME) if s.event.kind == kind][-1]


def test_void_cancels_an_unanswered_suggestion_and_gives_the_suggestion_back(table: Table) -> None:
    suggest(table)
    number = seq_of(table, "suggestion_made")
    done = table.service.gm.void(GAME, number, now=utc(2026, 12, 1, 18), via="mail", note="ошибся")
    assert done == {
        "lever": "void",
        "event": number,
        "voided_kind": "suggestion_made",
        "announced": True,
    }
    rows = log(table, number)
    assert [(k, v) for k, v, _s, _d in rows] == [("suggestion_voided", "public"), ("gm_void", "gm")]
    assert rows[1][3] == {
        "event": number,
        "voided_kind": "suggestion_made",
        "via": "mail",
        "note": "ошибся",
    }
    mails = flushed(table)
    assert summary(mails) == [
        ("cross@example.test", "[seed-000] ГМ отменил ход"),
        ("doug@example.test", "[seed-000] ГМ отменил ход"),
        (GM, ANNOUNCE.format("отмена предположения")),
    ]
    assert "Отвечать на него не нужно" in body(mails[1])
    assert "[b]ГМ отменил предположение №1 (Кросс → Дуг).[/b]\n\nПримечание ГМа: ошибся\n" in body(
        mails[2]
    )
    # Дуг owes nothing; Кросс has his 3 suggestions again; the day post leaves it out.
    kind = table.service.kind_of("cluedo_days")
    row = table.store.game(GAME)
    assert row is not None
    state = kind.load(row.state)
    game = table.config.game(GAME)
    assert kind.status(game, state, "Дуг", None)["owed"] == []
    assert kind.status(game, state, "Кросс", None)["suggestions_left"] == 3
    table.run(utc(2026, 12, 1, 19, 31))
    day_post = body(
        next(m for m in table.new_mail() if m["Subject"] == "[seed-000] Итоги дня 1 — BBCode")
    )
    assert "- Предположений не было." in day_post
    (closed,) = [d for k, _v, _s, d in log(table) if k == "day_closed"]
    assert closed["gm_answered"] == [] and closed["penalties"] == {}


@pytest.mark.parametrize(
    ("locale", "headings"),
    [
        ("ru", ["[b]Предположение_1 для Дуг (№1)[/b]", "[b]Предположение_2 для Дуг (№2)[/b]"]),
        ("en", ["[b]Suggestion_1 for Дуг (#1)[/b]", "[b]Suggestion_2 for Дуг (#2)[/b]"]),
    ],
)
def test_D2_a_suggestion_after_a_void_gets_a_heading_not_used_yet(
    tmp_path: Path, locale: str, headings: list[str]
) -> None:
    """D2: the heading counts the player's suggestions of the day. A voided one stays in
    the record under its heading (its forum text may be in the thread already), so the
    next one gets the next number, not the voided one's again; the void still gives the
    suggestion back (3 a day, not counting the voided one)."""
    table = Table(tmp_path, locale=locale, trusted=TRUSTED)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()

        def suggested(minute: int) -> str:
            table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 18, minute))
            assert table.run(utc(2026, 12, 1, 18, minute + 1)) == ["applied"]
            reply = next(m for m in table.new_mail() if m["To"] == "cross@example.test")
            (heading,) = [line for line in body(reply).splitlines() if line.startswith("[b]")]
            return heading

        first = suggested(0)
        voided = seq_of(table, "suggestion_made")
        table.service.gm.void(GAME, voided, now=utc(2026, 12, 1, 18, 2), via="mail", note=None)
        flushed(table)
        assert [first, suggested(5)] == headings
        kind = table.service.kind_of("cluedo_days")
        row = table.store.game(GAME)
        assert row is not None
        state = kind.load(row.state)
        game = table.config.game(GAME)
        assert kind.status(game, state, "Кросс", None)["suggestions_left"] == 2
        assert [s.ordinal for s in state.suggestions] == [1, 2]
    finally:
        table.close()


def test_void_result_mail_names_an_event_it_refuses_in_words_not_its_kind(table: Table) -> None:
    """The GM's result mail said «Событие «suggestion_voided» отменить нельзя. Отменяются
    только: suggestion_made.»: internal event kinds. It says what the event is and which
    moves can be voided, in the catalog's words."""
    suggest(table)
    table.service.gm.void(
        GAME, seq_of(table, "suggestion_made"), now=utc(2026, 12, 1, 18), via="cli", note=None
    )
    flushed(table)
    gm_mail(table, f"ОТМЕНИТЬ {seq_of(table, 'suggestion_voided')}", at=utc(2026, 12, 1, 18, 5))
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["gm_refused"]
    (result,) = table.new_mail()
    assert result["Subject"] == "[seed-000] Re: команды"
    assert named_body(result, GAME).split("\n")[1] == (
        "Не выполнено. Это событие (отмена предположения ГМом) отменить нельзя. Отменить "
        "можно только: предположение, на которое ещё нет ответа."
    )


def test_void_is_refused_when_the_answer_builds_on_it(table: Table) -> None:
    suggest(table)
    table.send("Дуг", "опровержение спальня", at=utc(2026, 12, 1, 17, 30))
    table.run(utc(2026, 12, 1, 17, 31))
    seq = last_seq(table)
    with pytest.raises(MoveError) as refused:
        table.service.gm.void(
            GAME, seq_of(table, "suggestion_made"), now=utc(2026, 12, 1, 18), via="cli", note=None
        )
    assert refused.value.code == "void_answered"
    params = refused.value.params
    text = table.service.renderer.error(refused.value.code, params, locale="ru", kind="cluedo_days")
    assert text == (
        "Предположение №1 отменить нельзя: на него уже ответили, а отменить можно только "
        "предположение без ответа."
    )
    with pytest.raises(MoveError) as kind:
        table.service.gm.void(
            GAME, seq_of(table, "refuted"), now=utc(2026, 12, 1, 18), via="cli", note=None
        )
    assert kind.value.code == "void_kind"
    with pytest.raises(LeverRefused) as unknown:
        table.service.gm.void(GAME, 999, now=utc(2026, 12, 1, 18), via="cli", note=None)
    assert unknown.value.code == "gm_void_unknown"
    assert log(table, seq) == []


def test_gm_commands_by_subject_tag_without_plus_addressing(tmp_path: Path) -> None:
    table = Table(tmp_path, personal_address="subject_tag")
    try:
        table.run(utc(2026, 12, 1, 17))
        sheet = next(m for m in table.new_mail() if m["To"] == GM and "Лист" in str(m["Subject"]))
        token = table.store.player_token(GAME, GM_SEAT)
        assert str(sheet["Subject"]).endswith(f" [pbp-{token}]")
        assert sheet["Reply-To"] == "gm@example.test"
        message = EmailMessage(policy=SMTP)
        message["From"] = GM
        message["To"] = "gm@example.test"
        message["Subject"] = f"Re: {sheet['Subject']}"
        message["Date"] = format_datetime(utc(2026, 12, 1, 18))
        message["Message-ID"] = make_msgid(domain="example.test")
        message.set_content("ПАУЗА\n")
        deliver(table.inbox_path, bytes(message), at=utc(2026, 12, 1, 18))
        # No trusted server here: the GM confirms by replying (its Subject tag is the code).
        assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
        assert table.store.last_event(GAME, ("gm_pause",)) is None
        (confirm,) = table.new_mail()
        assert confirm["To"] == GM and confirm["Reply-To"] == "gm@example.test"
        reply = EmailMessage(policy=SMTP)
        reply["From"] = GM
        reply["To"] = "gm@example.test"
        reply["Subject"] = f"Re: {confirm['Subject']}"
        reply["Message-ID"] = make_msgid(domain="example.test")
        reply.set_content("да\n")
        deliver(table.inbox_path, bytes(reply), at=utc(2026, 12, 1, 18, 2))
        assert table.run(utc(2026, 12, 1, 18, 3)) == ["gm_applied"]
        assert table.store.last_event(GAME, ("gm_pause",)) is not None
    finally:
        table.close()
