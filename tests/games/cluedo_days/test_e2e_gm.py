"""The GM pauses a game by mail across its close, through real Dovecot and SMTP (issue 8).

The stack, the game (``e2e-1``, four players, day close two hours after the real
time) and the helpers are those of :mod:`games.cluedo_days.test_e2e`. The GM writes from his
registered address to his personal GM address (the Reply-To of his GM sheet) and
confirms each lever by replying to pbp's confirmation (issue 12: no trusted server
here, so the From alone proves nothing); Dovecot stamps every message with the real
time of its delivery, and a confirmed lever takes effect at the arrival of the
confirmation (rule D8).
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from kits.mail import mailbox, subjects

import games.cluedo_days.test_e2e as e2e
from games.cluedo_days.test_e2e import (
    DAEMON,
    DONE,
    EMAIL,
    GAME,
    GM,
    NETASHKA,
    Clock,
    MakeService,
    Stack,
    next_whole_second,
    outcomes,
    send,
)

# The fixtures of the whole-game test, shared.
stack = e2e.stack
make_service = e2e.make_service


def test_D8_a_game_paused_by_mail_across_its_close_closes_once_after_resume(
    stack: Stack, make_service: MakeService
) -> None:
    dovecot, smtp = stack.dovecot, stack.smtp
    clock = Clock(datetime.now(UTC))
    service = make_service(clock)
    assert service.run_once(clock.real()) == []
    sheet = mailbox(dovecot, GM)[0]
    assert sheet.subject == "[e2e-1] Лист ГМа: решение и карты"
    gm_address = sheet.header("Reply-To")
    assert gm_address is not None and gm_address in sheet.body
    (welcome,) = mailbox(dovecot, EMAIL[NETASHKA])
    personal = welcome.header("Reply-To")
    assert personal is not None

    # PAUSE, sent two hours before the close; it takes effect when the GM confirms it
    # by replying to pbp's confirmation, which only his registered mailbox gets.
    next_whole_second()
    send(smtp, GM, gm_address, "ПАУЗА -- ГМ в отъезде", reply_to=sheet)
    result = outcomes(service.run_once(clock.real()))
    assert result == [("gm_pending", "@gm")], mailbox(dovecot, GM)[-1].body
    assert service.store.last_event(GAME, ("gm_pause",)) is None
    confirm = mailbox(dovecot, GM)[-1]
    code_address = confirm.header("Reply-To")
    assert code_address is not None and code_address != gm_address
    assert "\n\n  ПАУЗА -- ГМ в отъезде\n\n" in confirm.body
    next_whole_second()
    send(smtp, GM, code_address, "Да", reply_to=confirm)
    result = outcomes(service.run_once(clock.real()))
    assert result == [("gm_applied", "@gm")], mailbox(dovecot, GM)[-1].body
    announcement, answer = mailbox(dovecot, GM)[-2:]  # the game's post_format: BBCode
    assert answer.subject == "Re: [e2e-1] Подтвердите команды ГМа"
    assert "> ПАУЗА -- ГМ в отъезде\nИгра на паузе. До срока оставалось 1 ч 5" in (answer.body)
    assert announcement.subject == "[e2e-1] Объявление для форума: пауза — BBCode"
    assert "[b]Игра приостановлена.[/b]\n\nПримечание ГМа: ГМ в отъезде\n" in announcement.body
    pause = service.store.last_event(GAME, ("gm_pause",))
    assert pause is not None
    left = pause.event.data["remaining_seconds"]
    assert left == int((stack.close - pause.at).total_seconds())

    # A move while paused is kept and answered, and the close passes without closing.
    send(smtp, EMAIL[NETASHKA], personal, "SUGGEST Белых, топор, терраса TO Веталь")
    assert outcomes(service.run_once(clock.real())) == [("paused", NETASHKA)]
    held = mailbox(dovecot, EMAIL[NETASHKA])[-1]
    assert held.subject == "[e2e-1] Re: ход"
    assert "ГМ приостановил игру" in held.body
    assert service.run_once(stack.close + timedelta(minutes=30)) == []
    assert [e for e in service.store.events(GAME) if e.event.kind == "day_closed"] == []
    assert "[e2e-1] Итоги дня 1 — BBCode" not in subjects(dovecot, GM)

    # STATUS from his phone: one mail, to him alone, at once (it needs no confirmation).
    players = {address: subjects(dovecot, address) for address in EMAIL.values()}
    next_whole_second()
    send(smtp, GM, gm_address, "СТАТУС")
    asked = stack.close + timedelta(minutes=30)
    assert outcomes(service.run_once(asked)) == [("gm_applied", "@gm")]
    status = mailbox(dovecot, GM)[-1]
    assert status.subject == "[e2e-1] Только для ГМа: состояние игры"
    assert status.body.startswith("Игра: e2e-1\n\nИгра «e2e-1»: идёт день 1.\nИгра на паузе с ")
    (held_id,) = [k.id for k in service.store.kept() if k.held_for == GAME]
    assert f"\nОтложенные письма этой игры ждут решения: 1 (№{held_id}).\n" in status.body
    assert "\nПоследняя команда ГМа: пауза, " in status.body
    assert {address: subjects(dovecot, address) for address in EMAIL.values()} == players

    # RESUME, read half an hour after the close: the day gets back the time it had
    # left at the pause, the held move counts in day 1, and day 1 closes once.
    next_whole_second()
    next_whole_second()
    send(smtp, GM, gm_address, "ПРОДОЛЖИТЬ")
    later = stack.close + timedelta(minutes=31)
    assert outcomes(service.run_once(later)) == [("gm_pending", "@gm")]
    confirm = mailbox(dovecot, GM)[-1]
    code_address = confirm.header("Reply-To")
    assert code_address is not None
    send(smtp, GM, code_address, "Да", reply_to=confirm)
    assert outcomes(service.run_once(later)) == [("gm_applied", "@gm")]
    resume = service.store.last_event(GAME, ("gm_resume",))
    assert resume is not None
    moved = resume.at + timedelta(seconds=left)
    assert moved > stack.close
    assert resume.event.data["deadline_at"] == moved.isoformat()
    (made,) = [e for e in service.store.events(GAME) if e.event.kind == "suggestion_made"]
    assert made.day == 1 and made.at < pause.at + timedelta(minutes=1)
    closes = [e for e in service.store.events(GAME) if e.event.kind == "day_closed"]
    assert [c.at for c in closes] == [moved]
    assert subjects(dovecot, GM).count("[e2e-1] Итоги дня 1 — BBCode") == 1
    assert subjects(dovecot, EMAIL[NETASHKA])[-3:] == [
        "[e2e-1] Re: ход",
        "[e2e-1] Re: ход",
        "[e2e-1] Предположение №1: вам показали карту",
    ]
    # Nothing happens twice.
    before = {address: subjects(dovecot, address) for address in (GM, *EMAIL.values())}
    assert service.run_once(later + timedelta(minutes=5)) == []
    after = {address: subjects(dovecot, address) for address in (GM, *EMAIL.values())}
    assert after == before
    assert all(DONE in r.flags for r in mailbox(dovecot, DAEMON))
