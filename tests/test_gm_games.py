"""The GM's levers (pbp.app.gm) in Maniac and in Cluedo by rounds, and through the CLI.

Maniac: seed 002's game (:mod:`kits.maniac_table`; Коля the maniac, day 1 closes 19:00 UTC, night 1
ends 2026-12-02 07:00 UTC). Rounds: seed 000 by turns (kits.rounds_table; turn 1 is Кросс's,
its deadline 24 h after the start, R7).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.maniac_table import (
    EMAILS,
    GAME,
    START,
    ManiacTable,
    bbcode,
    close,
    dawn,
    post_mails,
    seed_tie,
)
from kits.rounds_table import START as ROUNDS_START
from kits.rounds_table import RoundsTable
from kits.table import GM, Table, body, named_body, summary, utc

from pbp.app.daemon import Daemon
from pbp.app.gm import paused_since
from pbp.app.story import story
from pbp.cli import main
from pbp.games.core.events import LeverRefused, MoveError, Visibility
from pbp.games.maniac.config import ManiacGame
from pbp.games.maniac.kind import Maniac
from pbp.mail.maildir import deliver


@pytest.fixture
def maniac(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    table.run(START)
    table.new_mail()
    yield table
    table.close()


def flushed(table: Table) -> list[EmailMessage]:
    table.service.flush_outbox(utc(2026, 12, 31))
    return table.new_mail()


def test_M10_substitute_during_a_day_with_standing_votes(maniac: ManiacTable) -> None:
    seed_tie(maniac)
    old = maniac.token("Петя")
    maniac.service.gm.substitute(
        GAME, "Петю", "Гоша", "gosha@example.test", now=utc(2026, 12, 1, 11), via="cli", note=None
    )
    mails = flushed(maniac)
    assert summary(mails) == [
        ("gosha@example.test", "[seed-002] Вы занимаете место Пети"),
        (GM, "[seed-002] Объявление для форума: замена игрока — BBCode"),
    ]
    briefing = body(mails[0])
    assert "ГМ попросил вас с этого момента занять место Пети в игре «seed-002»." in briefing
    assert "Ваша роль: мирный житель." in briefing
    assert "Ваш голос: за Таню." in briefing
    assert "маньяк" not in briefing.split("Ваш личный адрес")[0]  # nobody else's role
    assert bbcode(mails[1]) == (
        "[b]Гоша заменяет Петю.[/b]\n"
        "\n"
        "Место сохраняет имя Петя со всем, что у него есть и что за ним числится."
        " В постах теперь будут оба имени, и годится любое из них.\n"
    )
    # The old personal address is refused; the standing votes decide the day as before.
    message = maniac._message("Петя", ("ГОЛОС Васю",), utc(2026, 12, 1, 12))
    message.replace_header("To", f"gm+{old}@example.test")
    deliver(maniac.inbox_path, bytes(message), at=utc(2026, 12, 1, 12))
    assert maniac.run(utc(2026, 12, 1, 12, 1)) == ["replaced"]
    assert summary(maniac.new_mail()) == [(EMAILS["Петя"], "[seed-002] Re: ход")]
    evening = post_mails(
        maniac.at(utc(2026, 12, 1, 19, 1)), "[seed-002] Вечер дня 1: итоги голосования"
    )
    # BBCode alone (the default post_format); no GM-only facts: day 1's close fixes no order (M3)
    # The seat by its substitute's name with the seat's own, declined where the sentence
    # needs it (rule P2): «голос Гоши (вместо Пети)».
    assert len(evening) == 1 and bbcode(evening[0]) == (
        "[b]Вечер дня 1: итоги голосования[/b]\n"
        "\n"
        "- [b]Таня[/b] (2): Гоша (вместо Пети), Вася\n"
        "- [b]Гоша (вместо Пети)[/b] (2): Таня, Оля\n"
        "\n"
        "Не проголосовали: Саша, Маша, Коля, Дима, Лена, Катя.\n"
        "\n"
        "Ничья — по 2 голоса: Таня, Гоша (вместо Пети). По правилу ничьей уходит тот, за кого"
        " раньше подан голос, так и не изменённый до конца дня: это голос Гоши (вместо Пети)"
        " за Таню.\n"
        "\n"
        "[b]В камеру отправляется Таня.[/b]\n"
        "\n"
        "[b]Наступает ночь 1.[/b]\n"
    )


def test_act_for_the_maniac_keeps_the_order_private(maniac: ManiacTable) -> None:
    before = maniac.store.events(GAME)[-1].seq
    done = maniac.service.gm.act(
        GAME, "Коля", "УБИТЬ Сашу", now=utc(2026, 12, 1, 11), via="mail", note="потерял письмо"
    )
    assert done["player"] == "Коля" and "error" not in done["results"][0]
    new = [s.event for s in maniac.store.events(GAME) if s.seq > before]
    assert new[-1].kind == "gm_act" and new[-1].visibility is Visibility.GM
    assert all(e.visibility is not Visibility.PUBLIC for e in new)
    mails = flushed(maniac)
    assert [str(m["To"]) for m in mails] == [EMAILS["Коля"]]
    assert "ГМ внёс за вас ход" in body(mails[0])
    kind = maniac.service.kind_of("maniac")
    assert isinstance(kind, Maniac)
    view = kind.gm_view(kind.load(maniac.store.game(GAME).state))  # type: ignore[union-attr]
    assert [(o["night"], o["targets"]) for o in view["orders"]] == [(1, ["Саша"])]


def test_a_substitute_briefed_during_a_pause_is_told_its_deadlines_will_move(
    maniac: ManiacTable,
) -> None:
    # The status's deadlines are the stored ones: the pause moves them at RESUME.
    gm = maniac.service.gm
    gm.pause(GAME, now=utc(2026, 12, 1, 11), via="cli", note=None)
    flushed(maniac)
    gm.substitute(
        GAME, "Петю", "Гоша", "gosha@example.test", now=utc(2026, 12, 1, 12), via="cli", note=None
    )
    briefing = body(flushed(maniac)[0])
    paused = "Игра сейчас на паузе: сроки, указанные выше, сдвинутся, когда она продолжится."
    assert paused in briefing.split("\n")
    gm.resume(GAME, now=utc(2026, 12, 1, 13), via="cli", note=None)
    flushed(maniac)
    gm.substitute(
        GAME, "Таню", "Нина", "nina@example.test", now=utc(2026, 12, 1, 14), via="cli", note=None
    )
    assert paused not in body(flushed(maniac)[0])


def test_a_paused_maniac_night_does_not_end_until_resume(maniac: ManiacTable) -> None:
    maniac.at(utc(2026, 12, 1, 19, 1))  # day 1 closes; night 1 ends at 07:00
    maniac.service.gm.pause(GAME, now=utc(2026, 12, 2, 1), via="cli", note=None)
    maniac.at(utc(2026, 12, 3, 12))
    kinds = [s.event.kind for s in maniac.store.events(GAME)]
    assert "night_ended" not in kinds and kinds.count("day_closed") == 1
    done = maniac.service.gm.resume(GAME, now=utc(2026, 12, 3, 12), via="cli", note=None)
    assert done["deadline_at"] == "2026-12-03T18:00:00+00:00"  # the 6 h left at the pause
    assert done["deadline_name"] == "night"


def test_R7_pause_and_extend_move_the_turn_deadline(tmp_path: Path) -> None:
    table = RoundsTable(tmp_path)
    try:
        table.run(ROUNDS_START)
        gm = table.service.gm
        due = ROUNDS_START + timedelta(hours=24)
        row = table.store.game("seed-000")
        assert row is not None and row.deadline_at == due
        gm.pause("seed-000", now=ROUNDS_START + timedelta(hours=4), via="cli", note=None)
        table.run(due + timedelta(hours=1))
        assert [k for k, _at in table.public_kinds() if k == "turn_skipped"] == []
        done = gm.resume("seed-000", now=ROUNDS_START + timedelta(hours=14), via="cli", note=None)
        moved = due + timedelta(hours=10)
        assert done["deadline_at"] == moved.isoformat()
        done = gm.extend(
            "seed-000", 2, now=ROUNDS_START + timedelta(hours=15), via="cli", note=None
        )
        assert done["deadline_at"] == (moved + timedelta(hours=2)).isoformat()
        kind = table.service.kind_of("cluedo_rounds")
        row = table.store.game("seed-000")
        assert row is not None and row.deadline_at == moved + timedelta(hours=2)
        assert (
            kind.gm_view(kind.load(row.state))["deadline"]
            == (moved + timedelta(hours=2)).isoformat()
        )
        table.run(moved + timedelta(hours=2, minutes=1))
        skipped = [at for k, at in table.public_kinds() if k == "turn_skipped"]
        assert skipped == [(moved + timedelta(hours=2)).isoformat()]
    finally:
        table.close()


def test_R7_an_extension_while_paused_is_added_to_the_turn_deadline_at_resume(
    tmp_path: Path,
) -> None:
    """EXTEND during a pause: the GM is told the time is added at RESUME; in a game by
    rounds, whose deadline lives in the state, it used to be lost."""
    table = RoundsTable(tmp_path)
    try:
        table.run(ROUNDS_START)
        gm = table.service.gm
        due = ROUNDS_START + timedelta(hours=24)
        gm.pause("seed-000", now=ROUNDS_START + timedelta(hours=4), via="cli", note=None)
        done = gm.extend("seed-000", 2, now=ROUNDS_START + timedelta(hours=5), via="cli", note=None)
        assert done["deadline_at"] is None  # paused: added at resume
        done = gm.resume("seed-000", now=ROUNDS_START + timedelta(hours=14), via="cli", note=None)
        moved = due + timedelta(hours=10 + 2)
        assert done["deadline_at"] == moved.isoformat()
        row = table.store.game("seed-000")
        assert row is not None and row.deadline_at == moved
        table.run(moved - timedelta(minutes=1))
        assert [k for k, _at in table.public_kinds() if k == "turn_skipped"] == []
        table.run(moved + timedelta(minutes=1))
        skipped = [at for k, at in table.public_kinds() if k == "turn_skipped"]
        assert skipped == [moved.isoformat()]
    finally:
        table.close()


# --- the CLI -----------------------------------------------------------------------------


def cli(table: Table, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["-c", str(table.directory / "games.yaml"), *args])
    return result.exit_code, result.output


def test_cli_show_lists_the_moves_void_can_cancel_with_their_event_numbers(
    tmp_path: Path,
) -> None:
    """``pbp void`` needs an event number: ``pbp show`` gives it (C3 suggestion)."""
    table = Table(tmp_path, start="2026-01-01T20:00")
    try:
        table.run(utc(2026, 1, 1, 17))
        table.send(
            "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 1, 1, 17, 5)
        )
        assert table.run(utc(2026, 1, 1, 17, 6)) == ["applied"]
        (seq,) = [
            s.seq for s in table.store.events("seed-000") if s.event.kind == "suggestion_made"
        ]
        code, out = cli(table, "show", "seed-000")
        assert code == 0, out
        # Described in the words of the game's story, not by the event's kind.
        assert out.endswith(
            "Moves `pbp void seed-000 EVENT` can cancel, by event number:\n"
            f"  {seq}: suggestion #1 by Кросс to Дуг: Маша, Пистолет, Спальня.\n"
        )
        code, out = cli(table, "show", "seed-000", "--json")
        assert json.loads(out)["voidable"] == [
            {"event": seq, "kind": "suggestion_made", "player": "Кросс", "day": 1}
        ]
        gm = table.service.gm
        gm.void("seed-000", seq, now=utc(2026, 1, 1, 17, 10), via="cli", note=None)
        code, out = cli(table, "show", "seed-000")
        assert "can cancel" not in out
    finally:
        table.close()


def test_cli_levers_take_effect_and_refuse_what_does_not_fit(tmp_path: Path) -> None:
    # The levers run on the real clock, months after the start: every missed close is
    # caught up first (a catch_up_limit above them; rule P3 would pause the game).
    extra = "catch_up_limit: 1000\n"
    table = Table(tmp_path, start="2026-01-01T20:00", extra=extra)
    table.run(utc(2026, 1, 1, 17))
    table.close()
    table = Table(tmp_path, start="2026-01-01T20:00", extra=extra)
    try:
        code, out = cli(table, "pause", "seed-000", "--note", "выходные")
        assert code == 0, out
        # On the real clock: "19 h 5 min", "19 h" on the minute, "5 min" in the last hour.
        left = r"(\d+ h \d+ min|\d+ h|\d+ min)"
        assert re.match(rf"Paused\. {left} were left before the deadline; ", out)
        # The command line's answer, without the mail's list of GM commands by mail.
        assert "Commands:" not in out and "ACT <player>: <move>" not in out
        assert paused_since(table.store, "seed-000") is not None
        code, out = cli(table, "close-day", "seed-000")
        assert code == 1 and "game seed-000 is paused: `pbp resume seed-000` first" in out
        code, out = cli(table, "pause", "seed-000")
        assert code == 1 and "Game seed-000 is already paused" in out
        code, out = cli(table, "extend", "seed-000", "--hours", "2")
        # The day is the one the real clock has reached since the start (months of them).
        assert code == 0
        assert re.fullmatch(
            r"The close of day \d+ is put off by 2 hours\. The game is paused: the time is "
            r"added by pbp resume seed-000\.",
            out.splitlines()[0],
        )
        # A CLI refusal names the command line's commands, not the mail's PAUSE/RESUME.
        code, out = cli(table, "extend", "seed-000", "--hours", "1000")
        assert (code, out) == (
            1,
            "Error: An extension is at most 720 hours at a time, not 1,000 hours. For a long "
            "break: pbp pause seed-000, then pbp resume seed-000.\n",
        )
        code, out = cli(table, "resume", "seed-000")
        assert code == 0, out
        assert "Resumed. Next deadline: " in out
        code, out = cli(
            table, "act", "seed-000", "Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг"
        )
        assert code == 0, out
        assert "Entered for Кросс:" in out
        code, out = cli(table, "act", "seed-000", "Кросс", "НЕТ ОПРОВЕРЖЕНИЯ")
        assert code == 1 and "Nothing was entered for Кросс:" in out
        code, out = cli(
            table,
            "substitute",
            "seed-000",
            "Роза",
            "--name",
            "Вова",
            "--email",
            "vova@example.test",
        )
        assert code == 0 and "Вова (vova@example.test) now plays the seat Роза" in out
        assert table.store.player_email("seed-000", "Роза") == "vova@example.test"
        code, out = cli(table, "remove", "seed-000", "Дуг", "--note", "пропал")
        assert code == 0 and "Дуг is removed." in out
        code, out = cli(table, "remove", "seed-000", "Дуг")
        assert code == 1 and "Дуг is no longer in the game: there is nobody to remove." in out
        kinds = [
            s.event.kind
            for s in table.store.events("seed-000")
            if s.event.kind.startswith("gm_") and s.event.kind != "gm_refutation"
        ]
        assert kinds == [
            "gm_pause",
            "gm_extend",
            "gm_resume",
            "gm_act",
            "gm_substitute",
            "gm_seat_address",
            "gm_remove",
        ]
        code, out = cli(table, "export", "seed-000")
        assert code == 1 and "Game seed-000 is still running" in out
        code, out = cli(table, "export", "seed-000", "--force", "--format", "html")
        assert code == 0 and out.startswith("<!DOCTYPE html>")
        assert "ГМ исключает Дуг — пропал." in out
        code, out = cli(table, "pause", "no-such-game")
        assert code == 1
    finally:
        table.close()


def test_M12_a_removed_player_leaves_unrevealed_and_his_votes_are_withdrawn(
    maniac: ManiacTable,
) -> None:
    seed_tie(maniac)
    done = maniac.service.gm.remove(GAME, "Петю", now=utc(2026, 12, 1, 11), via="cli", note="уехал")
    assert done == {"lever": "remove", "player": "Петя", "name": None, "over": False}
    public = [
        (s.event.kind, dict(s.event.data))
        for s in maniac.store.events(GAME, public_only=True)
        if s.at == utc(2026, 12, 1, 11)
    ]
    at = "2026-12-01T11:00:00+00:00"
    assert public == [
        ("player_left", {"player": "Петя", "day": 1, "phase": "day"}),
        (
            "vote_withdrawn",
            {"day": 1, "voter": "Петя", "target": "Таня", "prison": False, "at": at},
        ),
        (
            "vote_withdrawn",
            {"day": 1, "voter": "Таня", "target": "Петя", "prison": False, "at": at},
        ),
        ("vote_withdrawn", {"day": 1, "voter": "Оля", "target": "Петя", "prison": False, "at": at}),
    ]
    announcement, told = flushed(maniac)  # the post in BBCode alone, the default post_format
    assert summary([told]) == [(EMAILS["Петя"], "[seed-002] Вы исключены из игры")]
    assert bbcode(announcement) == (
        "[b]Петя покидает игру.[/b]\n"
        "\n"
        "Примечание ГМа: уехал\n"
        "\n"
        "Роль не раскрывается. Голоса, поданные им и за него, сняты.\n"
    )
    assert "мирный" not in body(announcement)
    kind = maniac.service.kind_of("maniac")
    assert isinstance(kind, Maniac)
    row = maniac.store.game(GAME)
    assert row is not None
    view = kind.gm_view(kind.load(row.state))
    assert [(c["player"], c["voters"]) for c in view["votes"]["candidates"]] == [("Таня", ["Вася"])]
    message = maniac.move("Петя", "ГОЛОС Васю", at=utc(2026, 12, 1, 12))
    # Removed, not killed: his refusal says so (and asks him to fix nothing).
    assert (
        "> ГОЛОС Васю\nПонял: ГОЛОС за Васю\n"
        "ГМ исключил вас из игры: голосовать вы больше не можете.\n" in body(message[0])
    )
    assert "Исправьте" not in body(message[0])
    with pytest.raises(MoveError) as refused:
        maniac.service.gm.remove(GAME, "Колю", now=utc(2026, 12, 1, 13), via="cli", note=None)
    assert refused.value.code == "remove_maniac"


def test_M12_removing_a_town_player_can_end_the_game(tmp_path: Path) -> None:
    table = ManiacTable(tmp_path)
    try:
        table.run(START)
        gm = table.service.gm
        town = ["Вася", "Петя", "Таня", "Оля", "Саша", "Маша", "Катя"]
        for index, name in enumerate(town[:-2]):
            done = gm.remove(GAME, name, now=utc(2026, 12, 1, 10, index), via="cli", note=None)
            assert done["over"] is False
        # Left free: Катя and Маша (town, with Дима: 3) — one more leaves 2 with the fan free.
        done = gm.remove(GAME, "Машу", now=utc(2026, 12, 1, 11), via="cli", note=None)
        assert done["over"] is True
        (over,) = [s.event for s in table.store.events(GAME) if s.event.kind == "game_over"]
        assert over.data["winner_team"] == "maniac"
        subjects = [s for _to, s in summary(flushed(table))]
        assert subjects.count("[seed-002] Игра окончена") == 10  # every seat, the gone too
        # Each removal's announcement (in BBCode alone, the default post_format), the
        # last one right before the end it causes (the thread's order).
        left = "[seed-002] Объявление для форума: игрок выбывает — BBCode"
        announced = [i for i, subject in enumerate(subjects) if subject == left]
        assert len(announced) == 6
        # Each removed player is told right after the announcement, before the end.
        assert all(subjects[i + 1] == "[seed-002] Вы исключены из игры" for i in announced)
        assert announced[-1] + 2 == subjects.index("[seed-002] Игра окончена")
        assert subjects[-1:] == ["[seed-002] Игра окончена: финальный пост — BBCode"]
        text = story(table.service, GAME, "markdown")
        assert (
            " · роли: Вася — мирный житель, Петя — мирный житель, Таня — мирная жительница, "
            "Оля — мирная жительница, Саша — мирный житель, Маша — мирная жительница, "
            "Коля — маньяк, Дима — дежурный, Лена — фанат, Катя — мирная жительница.\n" in text
        )
        assert "14:00 (ГМ) · Маша покидает игру.\n" in text
        # Announced in the thread ("Маша покидает игру"): no secret, no 🔒.
        assert "1 декабря 2026 г., 14:00 · ГМ исключает Машу.\n" in text
        assert "(ГМ) · игра окончена: победила команда маньяка.\n" in text
    finally:
        table.close()


def test_R4_a_removed_player_is_skipped_and_answered_by_the_gm(tmp_path: Path) -> None:
    table = RoundsTable(tmp_path, extra="auto_answer: none\n")
    try:
        table.run(ROUNDS_START)
        gm = table.service.gm
        # Turn 1 is Кросс's: removing him passes the turn to Дуг at once.
        done = gm.remove(
            "seed-000", "Кросс", now=ROUNDS_START + timedelta(hours=1), via="cli", note=None
        )
        assert done["over"] is False
        kinds = [k for k, _at in table.public_kinds()]
        assert kinds == ["turn_started", "player_removed", "turn_started"]
        kind = table.service.kind_of("cluedo_rounds")
        row = table.store.game("seed-000")
        assert row is not None
        state = kind.load(row.state)
        assert (state.turn, state.turn_player) == (2, "Дуг")
        game = table.config.game("seed-000")
        removed = [kind.status(game, state, p, None)["removed"] for p in ("Кросс", "Дуг")]
        assert removed == [True, False]
        # Дуг suggests: Роза is asked; then Кросс, removed, is answered by the GM (C5).
        table.send("Дуг", "ПРЕДПОЛОЖЕНИЕ Маша, Нож, Столовая", at=ROUNDS_START + timedelta(hours=2))
        table.run(ROUNDS_START + timedelta(hours=2, minutes=1))
        table.new_mail()
        table.send("Роза", "НЕТ ОПРОВЕРЖЕНИЯ", at=ROUNDS_START + timedelta(hours=3))
        table.run(ROUNDS_START + timedelta(hours=3, minutes=1))
        events = [s.event for s in table.store.events("seed-000")]
        (gm_answer,) = [e for e in events if e.kind == "gm_refutation"]
        assert (gm_answer.data["player"], gm_answer.data["card"]) == ("Кросс", "Нож")
        assert gm_answer.data["removed"] is True
        # Told as what it is, a removal (C5), never as a missed answer time (R7).
        mails = {str(m["Subject"]): body(m) for m in table.new_mail()}
        shown = mails["[seed-000] Предположение №1: вам показали карту"]
        assert "За Кросса ответил ГМ (Кросс исключён) и показал вам карту «Нож»." in shown
        post = mails["[seed-000] Итоги хода 2 — BBCode"]
        facts = mails["[seed-000] Итоги хода 2 — только для ГМа"]
        assert "- Кросс: есть карта (показана приватом; ответил ГМ: Кросс исключён)\n" in post
        assert "  - №1: Кросс исключён, ответ дал ГМ — показана карта «Нож»\n" in facts
        assert "время на ответ истекло" not in post + facts + shown
        row = table.store.game("seed-000")
        assert row is not None
        state = kind.load(row.state)
        assert (state.turn, state.turn_player) == (3, "Роза")  # Кросс is skipped (R4)
    finally:
        table.close()


def test_M9_void_a_standing_vote_the_previous_one_stands_again(maniac: ManiacTable) -> None:
    maniac.move("Вася", "ГОЛОС за Петю", at=utc(2026, 12, 1, 10))
    maniac.move("Вася", "ГОЛОС за Таню", at=utc(2026, 12, 1, 10, 5))
    events = maniac.store.events(GAME)
    first, second = [s.seq for s in events if s.event.kind == "vote_cast"]
    gm = maniac.service.gm
    assert gm.voidable(GAME, utc(2026, 12, 1, 11)) == [
        {"event": second, "kind": "vote_cast", "player": "Вася", "day": 1}
    ]
    with pytest.raises(MoveError) as replaced:
        gm.void(GAME, first, now=utc(2026, 12, 1, 11), via="cli", note=None)
    assert replaced.value.code == "void_replaced"
    gm.void(GAME, second, now=utc(2026, 12, 1, 11), via="cli", note=None)
    kind = maniac.service.kind_of("maniac")
    assert isinstance(kind, Maniac)
    row = maniac.store.game(GAME)
    assert row is not None
    state = kind.load(row.state)
    view = kind.gm_view(state)
    assert [(c["player"], c["voters"]) for c in view["votes"]["candidates"]] == [("Петя", ["Вася"])]
    game = maniac.config.game(GAME)
    assert isinstance(game, ManiacGame)
    # A voided vote is no cast.
    assert kind.status(game, state, "Вася", None)["casts_left"]["Таня"] == 2
    mails = flushed(maniac)
    assert summary(mails) == [
        (EMAILS["Вася"], "[seed-002] ГМ отменил ход"),
        (GM, "[seed-002] Объявление для форума: отмена голоса — BBCode"),
    ]
    assert bbcode(mails[1]).startswith("[b]ГМ отменил голос Васи за Таню.[/b]")
    maniac.at(utc(2026, 12, 1, 19, 1))
    with pytest.raises(MoveError) as late:
        gm.void(GAME, first, now=utc(2026, 12, 1, 20), via="cli", note=None)
    assert late.value.code == "void_too_late"


def test_M3_void_an_order_not_yet_fixed_tells_only_the_maniac(maniac: ManiacTable) -> None:
    maniac.move("Коля", "УБИТЬ Сашу", at=utc(2026, 12, 1, 10))
    (order,) = [s.seq for s in maniac.store.events(GAME) if s.event.kind == "order_placed"]
    before = len(maniac.store.events(GAME, public_only=True))
    maniac.service.gm.void(GAME, order, now=utc(2026, 12, 1, 11), via="cli", note=None)
    assert len(maniac.store.events(GAME, public_only=True)) == before  # nothing public
    mails = flushed(maniac)
    assert summary(mails) == [(EMAILS["Коля"], "[seed-002] ГМ отменил ход")]
    assert "Коля, ГМ отменил ваш заказ на ночь 1 (убить Сашу)." in body(mails[0])
    kind = maniac.service.kind_of("maniac")
    row = maniac.store.game(GAME)
    assert row is not None
    assert kind.gm_view(kind.load(row.state))["orders"] == []


def test_D8_the_scheduler_plans_nothing_for_a_paused_game(tmp_path: Path) -> None:
    table = Table(tmp_path, extra="remind_hours_before: 0.5\n")
    try:
        clock = {"now": utc(2026, 12, 1, 17)}
        daemon = Daemon(table.service, clock=lambda: clock["now"])

        def jobs() -> dict[str, object]:
            return {job.id: job.trigger.run_date for job in daemon.scheduler.get_jobs()}

        daemon.tick()
        assert set(jobs()) == {"deadline:seed-000", "remind:seed-000"}
        table.service.gm.pause("seed-000", now=utc(2026, 12, 1, 17, 30), via="cli", note=None)
        clock["now"] = utc(2026, 12, 2, 12)
        daemon.tick()
        assert jobs() == {}
        assert [s for s in table.store.events("seed-000") if s.event.kind == "day_closed"] == []
        table.service.gm.resume("seed-000", now=utc(2026, 12, 2, 12), via="cli", note=None)
        daemon.tick()
        assert jobs() == {
            "deadline:seed-000": utc(2026, 12, 2, 14),  # the 2 h left at the pause
            "remind:seed-000": utc(2026, 12, 2, 13, 30),
        }
    finally:
        table.close()


def test_export_tells_voided_moves_in_words_and_a_multiline_act_on_one_line(
    maniac: ManiacTable,
) -> None:
    """Every event kind has its line in the story (no raw ``order_voided``), and a
    move of several lines entered by the GM stays one Markdown list item."""
    gm = maniac.service.gm
    gm.act(
        GAME,
        "Колю",
        "УБИТЬ Сашу НОЧЬ 1\nГОЛОС за Таню",
        now=utc(2026, 12, 1, 10),
        via="cli",
        note="письмо потерялось",
    )
    seqs = {s.event.kind: s.seq for s in maniac.store.events(GAME)}
    order = gm.void(GAME, seqs["order_placed"], now=utc(2026, 12, 1, 11), via="cli", note=None)
    assert order["announced"] is False
    vote = gm.void(GAME, seqs["vote_cast"], now=utc(2026, 12, 1, 11), via="cli", note=None)
    assert vote["announced"] is True
    text = story(maniac.service, GAME, "markdown", force=True)
    lines = [line.split(" · ", 2)[2] for line in text.splitlines() if line.startswith("- событие ")]
    assert lines[-7:] == [
        "заказ маньяка на ночь 1 — убить Сашу.",
        "Коля голосует за Таню.",
        "ГМ вносит ход за Колю: «УБИТЬ Сашу НОЧЬ 1 / ГОЛОС за Таню» — письмо потерялось.",
        "заказ маньяка на ночь 1 (убить Сашу) отменён.",
        f"ГМ отменяет заказ маньяка (событие {seqs['order_placed']}).",
        "голос Коли за Таню отменён.",
        f"ГМ отменяет голос (событие {seqs['vote_cast']}).",
    ]
    result = gm.result_text(
        maniac.service.game_config(GAME), [{"line": "", "lever": "void", "done": order}]
    )
    assert f"Заказ маньяка (событие {seqs['order_placed']}) отменён.\n" in result
    assert "Объявление для форума" not in result


def test_M8_a_player_removed_from_the_cell_at_night_is_not_released_nor_listed(
    maniac: ManiacTable,
) -> None:
    """Removed at night while in the cell, Таня used to "leave the cell" in the morning
    post and stay in its list of who is in the game, as after a removal by day."""
    maniac.move("Вася", "ГОЛОС за Таню", at=utc(2026, 12, 1, 10))
    maniac.move("Петя", "ГОЛОС за Таню", at=utc(2026, 12, 1, 10, 5))
    maniac.at(close(1))
    maniac.service.gm.remove(GAME, "Таню", now=utc(2026, 12, 1, 20), via="cli", note=None)
    maniac.service.gm.remove(GAME, "Олю", now=utc(2026, 12, 1, 20, 1), via="cli", note=None)
    maniac.new_mail()
    (morning,) = [
        m for m in maniac.at(dawn(1)) if m["Subject"] == "[seed-002] Утро после ночи 1 — BBCode"
    ]
    (ended,) = [s.event for s in maniac.store.events(GAME) if s.event.kind == "night_ended"]
    assert ended.data["released"] is None
    post = bbcode(morning)
    assert "выходит из камеры" not in post
    assert "В игре (живы и на свободе): Вася, Петя, Саша, Маша, Коля, Дима, Лена, Катя.\n" in post


def test_substitute_refuses_a_seat_that_left_the_game(maniac: ManiacTable) -> None:
    """A careless GM naming a dead or removed player (an inflected name that matched the
    wrong seat) used to brief the newcomer "you are dead"; refused, nothing changes."""
    gm = maniac.service.gm
    gm.remove(GAME, "Таню", now=utc(2026, 12, 1, 10), via="cli", note=None)
    token = maniac.token("Таня")
    flushed(maniac)
    with pytest.raises(LeverRefused) as gone:
        gm.substitute(
            GAME,
            "Тане",
            "Гоша",
            "gosha@example.test",
            now=utc(2026, 12, 1, 11),
            via="cli",
            note=None,
        )
    assert (gone.value.code, gone.value.params) == ("gm_seat_gone", {"player": "Таня"})
    assert maniac.token("Таня") == token
    assert flushed(maniac) == []
    text = maniac.service.renderer.error(gone.value.code, gone.value.params, locale="ru")
    assert text == (
        "Таня уже не в игре (исключена ГМом или убита): заменять некого. "
        "Проверьте, того ли игрока вы назвали."
    )
    # The maniac himself (whom remove refuses) can be replaced.
    done = gm.substitute(
        GAME, "Колю", "Гоша", "gosha@example.test", now=utc(2026, 12, 1, 12), via="cli", note=None
    )
    assert done["player"] == "Коля"


def test_pbp_kept_tells_whether_the_resume_applied_a_held_mail(tmp_path: Path) -> None:
    """Held mail stayed listed by ``pbp kept`` after the resume applied it, inviting a
    ``pbp retry``; each now says whether it waits for the resume or what it did."""
    table = Table(tmp_path)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.service.gm.pause("seed-000", now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
        table.send("Кросс", "СТАТУС", at=utc(2026, 12, 1, 18))
        assert table.run(utc(2026, 12, 1, 18, 1)) == ["paused"]
        (held,) = table.store.kept()
        code, out = cli(table, "kept", "--json")
        (row,) = json.loads(out)
        assert (code, row["source"], row["reason"], row["status"]) == (
            0,
            held.source,
            "paused:seed-000",
            "waiting for resume",
        )
        table.service.gm.resume("seed-000", now=utc(2026, 12, 1, 19), via="cli", note=None)
        assert table.run(utc(2026, 12, 1, 19)) == ["status"]
        code, out = cli(table, "kept", "--json")
        (row,) = json.loads(out)
        assert row["status"] == "resumed 2026-12-01 22:00 MSK: status"
    finally:
        table.close()


#: Every role's word and the others' names: none may reach a removed player's mail.
_HIDDEN = ("маньяк", "фанат", "дежурн", "мирн", "Коля", "Дима")


def test_M12_a_removed_player_gets_one_mail_that_names_the_game_and_no_role(
    maniac: ManiacTable,
) -> None:
    """The GM removes Лена (the fan, who knows the maniac, M1) during night 1: she gets
    one private mail saying she was removed from the game, naming it and the night,
    with no role — neither hers nor anyone else's (M1, M8)."""
    maniac.at(close(1))
    maniac.new_mail()
    maniac.service.gm.remove(GAME, "Лену", now=utc(2026, 12, 1, 20), via="cli", note="пропала")
    mails = flushed(maniac)
    assert summary(mails) == [
        (GM, "[seed-002] Объявление для форума: игрок выбывает — BBCode"),
        (EMAILS["Лена"], "[seed-002] Вы исключены из игры"),
    ]
    text = named_body(mails[1], GAME)
    assert text == (
        "Лена, ГМ исключил вас из игры «seed-002» в ночь 1.\n"
        "\n"
        "Дальше вы в игре не участвуете: голоса от вас больше не принимаются. В треде "
        "объявят, что вы покинули игру, не называя вашей роли; все роли раскроются, когда "
        "игра закончится, — тогда же вам придёт письмо с её итогом.\n"
    )
    assert not [word for word in _HIDDEN if word.lower() in text.lower()]
    status = maniac.move("Лена", "СТАТУС", at=utc(2026, 12, 1, 21))
    assert "ГМ исключил вас из игры: больше вы в ней не участвуете." in body(status[0])
    assert "Вы убиты" not in body(status[0])


def test_M12_a_removed_player_is_not_among_the_winners_of_the_final_post(
    maniac: ManiacTable,
) -> None:
    """The town wins (M12) after the GM removed Маша, a civilian: the final post lists
    the winners without her and says, in her gender (P2), why; her game-over mail
    tells her the team won without her; the others' are as before."""
    maniac.service.gm.remove(GAME, "Машу", now=utc(2026, 12, 1, 9, 30), via="cli", note=None)
    maniac.move("Вася", "ГОЛОС Колю", at=utc(2026, 12, 1, 10))
    maniac.at(close(1))
    maniac.at(dawn(1))
    maniac.move("Вася", "ГОЛОС Колю", at=utc(2026, 12, 2, 8))
    mails = maniac.at(close(2))
    final = bbcode(mails[-1])
    assert (
        "Победители: Вася, Петя, Таня, Оля, Саша, Дима, Катя.\n"
        "Маша не в числе победителей: ГМ исключил её из игры.\n"
        "\n"
        "[b]Роли[/b]\n"
    ) in final
    assert "- Маша — [b]мирная жительница[/b]; вне игры со дня 1 по решению ГМа\n" in final
    over = {to: named_body(m, GAME).splitlines()[1] for m in mails for to, _s in summary([m])}
    assert over[EMAILS["Маша"]] == (
        "Ваша команда победила, но вас нет среди победителей: ГМ исключил вас из игры."
    )
    assert over[EMAILS["Вася"]] == "Вы в команде победителей!"
    assert over[EMAILS["Коля"]] == "Ваша команда проиграла."
