"""Seats, names and addresses apart (issue 31, item 3): ``pbp readdress`` / ADDRESS (a
player's new address, no post) and a substitute under his own name («Дэйв (вместо
Кэрол)»), read by either name, and ``pbp show`` listing who plays each seat.

Cluedo by days, seed 000 (kits.table): Кросс, Дуг, Роза; Дуг holds Спальня, Пистолет,
Молоток. Maniac, seed 002 (kits.maniac_table): Петя is a civilian.
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
from kits.maniac_table import START, ManiacTable
from kits.table import EMAILS, GM, Table, body, named_body, summary, utc

from pbp.app.shapes import GmResult
from pbp.cli import main
from pbp.games.core.events import AmbiguousMove, InvalidMove, LeverRefused
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT
from pbp.text.commands import PlayerNames

GAME = "seed-000"
NEW = "doug.new@example.test"
OLD = EMAILS["Дуг"]

#: The mail to a readdressed seat's old address, whole: neither address nor token in it.
TOLD_OLD = (
    "Здравствуйте! ГМ записал за местом Дуг в игре «seed-000» другой адрес: pbp больше "
    "не пишет на этот адрес и не принимает с него ходы, а личный адрес, присланный сюда "
    "раньше, больше не действует. Если это ваш адрес и произошла ошибка, напишите ГМу.\n"
)

#: The answer to mail from the old address to its old personal address, whole.
ANSWER_OLD = (
    "Здравствуйте! ГМ сменил адрес места Дуг в игре «seed-000»: этот адрес в ней больше не "
    "участвует, поэтому ничего из вашего письма не выполнено. Если это ваш адрес и "
    "произошла ошибка, напишите ГМу.\n"
)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def cli(table: Table, *args: str) -> str:
    result = CliRunner().invoke(main, ["-c", str(table.directory / "games.yaml"), *args])
    assert result.exit_code == 0, result.output
    return result.output


def flushed(table: Table) -> list[EmailMessage]:
    table.service.flush_outbox(utc(2026, 12, 31))
    return table.new_mail()


def gm_mail(table: Table, *lines: str, to: str, at: datetime, subject: str = "команды") -> None:
    message = EmailMessage(policy=SMTP)
    message["From"] = GM
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content("\n".join(lines) + "\n")
    deliver(table.inbox_path, bytes(message), at=at)


def told_new(token: str, note: str | None) -> str:
    """The head of the ``readdressed`` mail to the new address (its status and command
    help follow)."""
    noted = f"Примечание ГМа: {note}\n\n" if note else ""
    return (
        "Здравствуйте, Дуг!\n\n"
        "ГМ записал за вашим местом в игре «seed-000» этот адрес вместо doug@example.test: "
        "теперь pbp пишет вам сюда и принимает ходы только с этого адреса.\n\n"
        f"{noted}"
        "Личный адрес для ходов у вас тоже новый: старый больше не действует. На случай, "
        "если прежние письма до вас не дошли, — ваше положение в игре:\n\n"
        "Игровой день 1.\n"
        "Ваш персонаж: Маша.\n"
        "Ваши карты: Спальня, Пистолет, Молоток.\n"
    )


def assert_readdressed(table: Table, old_token: str, note: str | None) -> None:
    """Both addresses told, one mail each; nothing for the forum; the log's GM event."""
    new_token = table.token("Дуг")
    assert new_token != old_token
    assert table.store.player_email(GAME, "Дуг") == NEW
    mails = flushed(table)
    told = [m for m in mails if str(m["To"]) != GM]
    assert summary(told) == [
        (NEW, "[seed-000] Теперь ваш адрес в игре — этот"),
        (OLD, "[seed-000] Этот адрес больше не участвует в игре"),
    ]
    assert named_body(told[0], GAME).startswith(told_new(new_token, note))
    assert f"Ваш личный адрес для ходов: gm+{new_token}@example.test\n" in body(told[0])
    assert told[0]["Reply-To"] == f"gm+{new_token}@example.test"
    assert named_body(told[1], GAME) == TOLD_OLD
    assert told[1]["Reply-To"] is None and new_token not in str(told[1])
    # No public post: nothing to paste, and the log's event is the GM's alone.
    assert not any("Объявление для форума" in str(m["Subject"]) for m in mails)
    last = table.store.events(GAME)[-1]
    assert (last.event.kind, last.event.visibility.value) == ("gm_readdress", "gm")
    assert dict(last.event.data) == {
        "player": "Дуг",
        "old_email": OLD,
        "new_email": NEW,
        "via": last.event.data["via"],
        "note": note,
    }
    assert not table.store.events(GAME, public_only=True)[-1].event.kind.startswith("gm_")


def assert_only_the_new_address_plays(table: Table, old_token: str) -> None:
    """The old address is a stranger's at the seat now; the new one plays."""
    new = f"gm+{table.token('Дуг')}@example.test"
    table.send("Дуг", "СТАТУС", at=utc(2026, 12, 1, 19), sender=OLD, to=new)
    assert table.run(utc(2026, 12, 1, 19, 1)) == ["wrong_sender"]
    assert [k.reason for k in table.store.kept()] == ["wrong_sender"]
    table.new_mail()
    old = f"gm+{old_token}@example.test"
    table.send("Дуг", "СТАТУС", at=utc(2026, 12, 1, 19, 2), sender=OLD, to=old)
    assert table.run(utc(2026, 12, 1, 19, 3)) == ["readdressed"]
    # Its own answer, not a substitution's: nothing of the game, no address named.
    (answer,) = table.new_mail()
    assert (str(answer["To"]), named_body(answer, GAME)) == (OLD, ANSWER_OLD)
    assert answer["Reply-To"] is None
    table.send("Дуг", "СТАТУС", at=utc(2026, 12, 1, 19, 4), sender=NEW, to=new)
    assert table.run(utc(2026, 12, 1, 19, 5)) == ["status"]
    assert summary(table.new_mail()) == [(NEW, "[seed-000] Re: ход")]
    assert old_token not in {s.token for s in table.store.tokens_of(NEW)}


# --- readdress ------------------------------------------------------------------------


def test_readdress_on_the_cli_tells_both_addresses_and_posts_nothing(table: Table) -> None:
    old_token = table.token("Дуг")
    printed = cli(table, "readdress", GAME, "Дуга", "--email", "Doug.New@Example.test")
    assert printed == (
        f"Дуг now plays from {NEW} instead of {OLD}; nothing was posted. The new personal "
        f"address went to {NEW}, and {OLD} was told that it no longer plays.\n"
    )
    assert_readdressed(table, old_token, None)
    assert_only_the_new_address_plays(table, old_token)


def test_readdress_by_mail_waits_for_the_confirmation(table: Table) -> None:
    old_token = table.token("Дуг")
    gm = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    gm_mail(table, f"АДРЕС Дуга {NEW} -- опечатка в адресе", to=gm, at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (confirm,) = table.new_mail()
    assert f"  АДРЕС Дуг {NEW} -- опечатка в адресе\n" in body(confirm)
    assert table.token("Дуг") == old_token  # nothing yet
    gm_mail(table, "да", to=str(confirm["Reply-To"]), at=utc(2026, 12, 1, 18, 5), subject="Re: ок")
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["gm_applied"]
    assert_readdressed(table, old_token, "опечатка в адресе")
    assert_only_the_new_address_plays(table, old_token)


def test_readdress_in_a_pause_drops_the_old_addresss_held_mail_with_its_own_answer(
    table: Table,
) -> None:
    gm = table.service.gm
    gm.pause(GAME, now=utc(2026, 12, 1, 17, 10), via="cli", note=None)
    table.send("Дуг", "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза", at=utc(2026, 12, 1, 18))
    table.send("Роза", "ПРЕДПОЛОЖЕНИЕ Петя, Нож, Столовая ДЛЯ Кросс", at=utc(2026, 12, 1, 18, 5))
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["paused", "paused"]
    doug_kept, _rosa_kept = (k.id for k in table.store.kept())
    table.new_mail()
    done = gm.readdress(GAME, "Дуг", NEW, now=utc(2026, 12, 1, 19), via="cli", note=None)
    assert done["dropped"] == [doug_kept]
    mails = flushed(table)
    assert [str(m["To"]) for m in mails] == [OLD, NEW, OLD]
    assert named_body(mails[0], GAME) == (
        "Пока игра стояла на паузе, ГМ записал за местом Дуг другой адрес. Поэтому ваше "
        "письмо, сохранённое на время паузы, учтено не будет, а личный адрес, присланный "
        "сюда раньше, больше не действует. Если это ваш адрес и произошла ошибка, напишите "
        "ГМу.\n"
    )
    assert NEW not in str(mails[0]) and "Вова" not in str(mails[0])
    game = table.service.game_config(GAME)
    results: list[GmResult] = [{"line": "", "lever": "readdress", "done": done}]
    assert (
        f"Письма с {OLD}, сохранённые на время паузы, учтены не будут (туда отправлено "
        f"объяснение); в списке ОТЛОЖЕННЫЕ это №{doug_kept}. Если ход должен засчитаться, "
        "внесите его командой ЗА.\n"
    ) in gm.result_text(game, results)
    assert (
        f"The mail {OLD} sent during the pause will not be applied (it was told why): "
        f"#{doug_kept} in pbp kept. If a move should count, enter it with pbp act seed-000.\n"
    ) in gm.result_text(game, results, "en", cli=True)
    # On resume only Роза's mail is applied; the old address hears nothing more.
    assert gm.resume(GAME, now=utc(2026, 12, 2, 10), via="cli", note=None)["held"] == 1
    assert table.run(utc(2026, 12, 2, 10)) == ["applied"]
    assert OLD not in [str(m["To"]) for m in flushed(table)]
    made = [
        s.event.data["suggester"]
        for s in table.store.events(GAME)
        if s.event.kind == "suggestion_made"
    ]
    assert made == ["Роза"]


def test_the_old_address_texts_in_english(table: Table) -> None:
    renderer = table.service.renderer
    context = {"game": GAME, "seat": "Дуг"}
    assert renderer.private_mail("old_address", locale="en", **context) == (
        "[seed-000] This address no longer plays in the game",
        'Hello! The GM has changed the address of the seat Дуг in the game "seed-000": this '
        "address no longer plays in it, so nothing in your mail was applied. If this address "
        "is still yours and this is a mistake, write to the GM.\n",
    )
    assert renderer.private_mail("held_readdressed", locale="en", **context) == (
        "[seed-000] Your mail will not be applied",
        "The GM registered another address for the seat Дуг while the game was paused. Your "
        "mail kept during the pause will therefore not be applied, and the personal address "
        "sent here before no longer works. If this address is still yours and this is a "
        "mistake, write to the GM.\n",
    )


@pytest.mark.parametrize(
    ("email", "code", "params"),
    [
        ("doug.example.test", "gm_bad_address", {"email": "doug.example.test"}),
        ("gm@example.test", "gm_address_reserved", {"email": "gm@example.test"}),
        (GM, "gm_address_reserved", {"email": GM}),
        (EMAILS["Роза"], "gm_address_taken", {"email": EMAILS["Роза"], "player": "Роза"}),
        (OLD, "gm_address_taken", {"email": OLD, "player": "Дуг"}),
    ],
)
def test_readdress_refuses_what_substitute_refuses(
    table: Table, email: str, code: str, params: dict[str, str]
) -> None:
    token = table.token("Дуг")
    with pytest.raises(LeverRefused) as error:
        table.service.gm.readdress(
            GAME, "Дуг", email, now=utc(2026, 12, 1, 18), via="cli", note=None
        )
    assert (error.value.code, error.value.params) == (code, {**params, "lever": "readdress"})
    assert table.token("Дуг") == token and flushed(table) == []
    text = table.service.renderer.error(code, error.value.params, locale="ru")
    assert text.endswith("За местом остался прежний адрес.")


# --- a substitute under his own name -----------------------------------------------------


def test_a_substitute_is_named_by_either_name_and_his_mails_use_his_own(table: Table) -> None:
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг", at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["applied"]
    table.new_mail()
    table.service.gm.substitute(
        GAME, "Дуг", "Вова", "vova@example.test", now=utc(2026, 12, 1, 18), via="cli", note=None
    )
    flushed(table)
    # The GM names the seat by the substitute's name too.
    done = table.service.gm.act(
        GAME, "Вову", "ОПРОВЕРЖЕНИЕ Спальня", now=utc(2026, 12, 1, 18, 5), via="cli", note=None
    )
    assert done["player"] == "Дуг"
    mails = flushed(table)
    assert summary(mails) == [
        ("vova@example.test", "[seed-000] ГМ внёс за вас ход"),
        (EMAILS["Кросс"], "[seed-000] Предположение №1: вам показали карту"),
    ]
    assert named_body(mails[0], GAME).startswith("Вова, ГМ внёс за вас ход")
    assert "Вова (вместо Дуг) показывает вам карту «Спальня»." in body(mails[1])
    # Nothing private reaches the old player after the substitution.
    assert OLD not in {str(m["To"]) for m in table.sent()[-len(mails) :]}
    # A Cluedo addressee by either name: the same seat.
    for named, at in (("Вова", utc(2026, 12, 1, 18, 10)), ("Дуг", utc(2026, 12, 1, 18, 20))):
        table.send("Роза", f"ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ {named}", at=at)
        table.run(at.replace(minute=at.minute + 1))
        (reply, *rest) = table.new_mail()
        assert summary(rest) == [("vova@example.test", rest[0]["Subject"])]
        assert OLD not in str(reply["To"])
        table.send(
            "Дуг",
            "НЕТ ОПРОВЕРЖЕНИЯ",
            at=at.replace(minute=at.minute + 2),
            sender="vova@example.test",
        )
        table.run(at.replace(minute=at.minute + 3))
        table.new_mail()
    asked = [
        s.event.data["addressee"]
        for s in table.store.events(GAME)
        if s.event.kind == "suggestion_made"
    ]
    assert asked == ["Дуг", "Дуг", "Дуг"]
    # The story: before the substitution the seat's own player, after it the substitute.
    story = cli(table, "export", GAME, "--force")
    assert "событие 6 · 1 декабря 2026 г., 20:05 · предположение №1 от Кросса для Дуг:" in story
    assert "событие 7 · 1 декабря 2026 г., 21:00 · Вова заменяет Дуг.\n" in story
    assert (
        "событие 8 · 1 декабря 2026 г., 21:00 🔒 · у Вовы (вместо Дуг) новый личный адрес.\n"
        in story
    )
    assert (
        "событие 9 · 1 декабря 2026 г., 21:05 (ГМ) · Вова (вместо Дуг) опровергает №1.\n" in story
    )
    assert "предположение №2 от Розы для Вовы (вместо Дуг):" in story
    # The substitute's name declined, the parenthesis kept (rule P2), as the posts do.
    assert "событие 13 · 1 декабря 2026 г., 21:12 · у Вовы (вместо Дуг) нет карт из " in story
    assert "событие 15 · 1 декабря 2026 г., 21:22 · у Вовы (вместо Дуг) нет карт из " in story


def maniac_vote(maniac: ManiacTable, voter: str, line: str, at: datetime, sender: str) -> str:
    message = maniac._message(voter, (line,), at)
    message.replace_header("From", sender)
    deliver(maniac.inbox_path, bytes(message), at=at)
    (outcome,) = maniac.run(at.replace(minute=at.minute + 1))
    return outcome


def test_a_maniac_vote_for_either_name_hits_the_seat_and_the_count_shows_both(
    tmp_path: Path,
) -> None:
    maniac = ManiacTable(tmp_path)
    maniac.run(START)
    maniac.new_mail()
    maniac.service.gm.substitute(
        "seed-002",
        "Петю",
        "Гоша",
        "gosha@example.test",
        now=utc(2026, 12, 1, 9),
        via="cli",
        note=None,
    )
    maniac.service.flush_outbox(utc(2026, 12, 31))
    maniac.new_mail()
    assert (
        maniac_vote(maniac, "Вася", "ГОЛОС за Гошу", utc(2026, 12, 1, 10), "vasya@example.test")
        == "applied"
    )
    assert (
        maniac_vote(maniac, "Таня", "ГОЛОС Петя", utc(2026, 12, 1, 10, 5), "tanya@example.test")
        == "applied"
    )
    maniac.new_mail()
    assert (
        maniac_vote(maniac, "Петя", "ГОЛОС Таня", utc(2026, 12, 1, 10, 10), "gosha@example.test")
        == "applied"
    )
    targets = [
        (s.event.data["voter"], s.event.data["target"])
        for s in maniac.store.events("seed-002")
        if s.event.kind == "vote_cast"
    ]
    assert targets == [("Вася", "Петя"), ("Таня", "Петя"), ("Петя", "Таня")]
    mails = maniac.new_mail()
    assert summary(mails)[0] == ("gosha@example.test", "[seed-002] Re: ход")
    assert named_body(mails[0], "seed-002").startswith("Гоша, вот что сделано по вашему письму.")
    output = CliRunner().invoke(main, ["-c", str(maniac.path), "post", "seed-002"]).output
    assert "- [b]Гоша (вместо Пети)[/b] (2): Вася, Таня\n" in output
    assert "- [b]Таня[/b] (1): Гоша (вместо Пети)\n" in output
    maniac.close()


# --- pbp show -----------------------------------------------------------------------------


def test_show_lists_who_plays_each_seat_and_who_did(table: Table) -> None:
    table.service.gm.readdress(
        GAME, "Роза", "rosa.new@example.test", now=utc(2026, 12, 1, 17, 30), via="cli", note=None
    )
    table.service.gm.substitute(
        GAME, "Дуг", "Вова", "vova@example.test", now=utc(2026, 12, 1, 18), via="cli", note=None
    )
    seats = json.loads(cli(table, "show", GAME, "--json"))["seats"]
    assert seats == [
        {
            "seat": "Кросс",
            "player": "Кросс",
            "email": "cross@example.test",
            "since": "2026-12-01T20:00+03:00",
            "earlier": [],
        },
        {
            "seat": "Дуг",
            "player": "Вова",
            "email": "vova@example.test",
            "since": "2026-12-01T21:00+03:00",
            "earlier": [
                {
                    "name": "Дуг",
                    "email": OLD,
                    "since": "2026-12-01T20:00+03:00",
                    "until": "2026-12-01T21:00+03:00",
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
    text = cli(table, "show", GAME)
    assert (
        "Seats (who plays each now, from which address; who played it before):\n"
        "  Кросс <cross@example.test> since 2026-12-01 20:00 MSK\n"
        "  Дуг: Вова <vova@example.test> since 2026-12-01 21:00 MSK (earlier: Дуг "
        "<doug@example.test> since 2026-12-01 20:00 MSK until 2026-12-01 21:00 MSK)\n"
        "  Роза <rosa.new@example.test> since 2026-12-01 20:00 MSK\n"
    ) in text


# --- a substitute's seat in refusals and in the story ------------------------------------


def test_an_unknown_name_lists_each_seat_once_by_its_label(table: Table) -> None:
    table.service.gm.substitute(
        GAME, "Дуг", "Вова", "vova@example.test", now=utc(2026, 12, 1, 18), via="cli", note=None
    )
    flushed(table)
    line = "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Зины"
    table.send("Роза", line, at=utc(2026, 12, 1, 18, 10))
    table.send("Дуг", line, at=utc(2026, 12, 1, 18, 11), sender="vova@example.test")
    assert table.run(utc(2026, 12, 1, 18, 12)) == ["refused", "refused"]
    rosa, vova = table.new_mail()
    refusal = "> {line}\nНеизвестный игрок «Зины».\nИгроки: {players}.\n\nИсправьте"
    assert refusal.format(line=line, players="Кросс, Вова (вместо Дуг), Роза") in body(rosa)
    # In his own mail the substitute's seat is his name alone.
    assert refusal.format(line=line, players="Кросс, Вова, Роза") in body(vova)


def test_a_maniac_unknown_name_lists_each_seat_once(tmp_path: Path) -> None:
    maniac = ManiacTable(tmp_path)
    maniac.run(START)
    maniac.new_mail()
    maniac.service.gm.substitute(
        "seed-002", "Петя", "Гоша", "gosha@example.test", now=START, via="cli", note=None
    )
    maniac.service.flush_outbox(utc(2026, 12, 1, 9, 1))
    maniac.new_mail()
    (reply,) = maniac.move("Оля", "ГОЛОС за Зину", at=utc(2026, 12, 1, 10))
    assert (
        "Игроки: Вася, Гоша (вместо Пети), Таня, Оля, Саша, Маша, Коля, Дима, Лена, Катя.\n"
        in body(reply)
    )
    maniac.close()


def test_the_parser_names_seats_not_their_other_names() -> None:
    names = PlayerNames(["Кросс", "Дуг", "Роза", "Вовчик"], {"Вован": "Дуг"})
    with pytest.raises(InvalidMove) as unknown:
        names.match("Зина")
    assert unknown.value.params["allowed"] == ["Кросс", "Дуг", "Роза", "Вовчик"]
    with pytest.raises(AmbiguousMove) as ambiguous:
        names.match("Вов")
    assert ambiguous.value.params["candidates"] == ["Вовчик", "Дуг"]
    assert names.match("Вована") == "Дуг"


def test_the_story_names_a_substitutes_seat_in_every_case(table: Table) -> None:
    table.service.gm.substitute(
        GAME, "Дуг", "Вова", "vova@example.test", now=utc(2026, 12, 1, 17, 1), via="cli", note=None
    )
    table.send("Кросс", "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Вовы", at=utc(2026, 12, 1, 17, 5))
    table.run(utc(2026, 12, 1, 17, 6))
    table.service.gm.readdress(
        GAME, "Вову", "vova.new@example.test", now=utc(2026, 12, 1, 17, 10), via="cli", note=None
    )
    table.run(utc(2026, 12, 1, 19, 31))  # the close: the GM answers for Вова
    story = cli(table, "export", GAME, "--force")
    lines = [line for line in story.splitlines() if "Вов" in line or "места" in line]
    assert lines == [
        "- событие 6 · 1 декабря 2026 г., 20:01 · Вова заменяет Дуг.",
        # The seat's new personal address after the substitution is the substitute's.
        "- событие 7 · 1 декабря 2026 г., 20:01 🔒 · у Вовы (вместо Дуг) новый личный адрес.",
        "- событие 8 · 1 декабря 2026 г., 20:05 · предположение №1 от Кросса для Вовы (вместо "
        "Дуг): **Маша**, **Топор**, **Столовая**.",
        "- событие 9 · 1 декабря 2026 г., 20:10 🔒 · у Вовы (вместо Дуг) новый личный адрес.",
        "- событие 10 · 1 декабря 2026 г., 22:30 🔒 · ГМ отвечает на №1 за Вову (вместо Дуг): "
        "нет карты.",
        "- событие 11 · 1 декабря 2026 г., 22:30 · у Вовы (вместо Дуг) нет карт из "
        "предположения №1 (ответил ГМ).",
    ]


# --- a substitute's name must name one seat ------------------------------------------------

#: The refusal of a substitute named as another seat is (its player now or earlier).
NAME_TAKEN_RU = (
    "Имя «{name}» в этой игре уже занято местом {seat} (так зовут это место или его игрока, "
    "нынешнего или прежнего): ходы и голоса с этим именем можно было бы отнести к обоим "
    "местам. Дайте заменяющему другое имя (добавьте инициал, например «{name} Б.»). Место "
    "осталось за прежним игроком."
)


def test_substitute_refuses_another_seats_name_now_or_earlier(table: Table) -> None:
    gm = table.service.gm
    at = utc(2026, 12, 1, 18)
    gm.substitute(GAME, "Дуг", "Вова", "vova@example.test", now=at, via="cli", note=None)
    gm.substitute(GAME, "Вову", "Петр", "petr@example.test", now=at, via="cli", note=None)
    flushed(table)
    seq = len(table.store.events(GAME))
    # Another seat's own name, its player's now (Петр), or earlier (Вова; any case, ё).
    for name, seat in (("Кросс", "Кросс"), ("петр", "Дуг"), ("Вова", "Дуг"), ("Пётр", "Дуг")):
        with pytest.raises(LeverRefused) as error:
            gm.substitute(GAME, "Роза", name, "new@example.test", now=at, via="cli", note=None)
        assert (error.value.code, error.value.params) == (
            "gm_name_taken",
            {"name": name, "seat": seat},
        )
    assert len(table.store.events(GAME)) == seq and flushed(table) == []
    assert table.store.player_email(GAME, "Роза") == EMAILS["Роза"]
    # The seat's own earlier players' names are its own: no other seat is named so.
    gm.substitute(GAME, "Петра", "Вова", "vova2@example.test", now=at, via="cli", note=None)
    assert table.store.substitutes(GAME) == {"Дуг": "Вова"}
    # The command line says it in English, exit 1.
    result = CliRunner().invoke(
        main,
        [
            "-c",
            str(table.directory / "games.yaml"),
            "substitute",
            GAME,
            "Роза",
            "--name",
            "Кросс",
            "--email",
            "new@example.test",
        ],
    )
    assert (result.exit_code, result.output) == (
        1,
        'Error: The name "Кросс" is already taken in this game by the seat Кросс (its own '
        "name, or its player's now or earlier): moves and votes naming it could mean either "
        'seat. Give the substitute another name (add an initial, e.g. "Кросс B."). The seat '
        "stays with its player.\n",
    )


def test_substitute_by_mail_refuses_another_seats_name(table: Table) -> None:
    gm = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    gm_mail(table, "ЗАМЕНА Розу НА Дуг new@example.test", to=gm, at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (confirm,) = table.new_mail()
    gm_mail(table, "да", to=str(confirm["Reply-To"]), at=utc(2026, 12, 1, 18, 5), subject="Re: ок")
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["gm_refused"]
    (result,) = table.new_mail()
    refusal = NAME_TAKEN_RU.format(name="Дуг", seat="Дуг")
    assert f"Не выполнено. {refusal}\n" in body(result)
    assert table.store.substitutes(GAME) == {}


def test_substitute_under_the_seats_own_players_name_is_refused_and_names_readdress(
    table: Table,
) -> None:
    """«Эрин заменяет Эрин» (issue 31): the same player at a new address is no
    substitution; the refusal names the lever that changes an address, in the words of
    where it was asked (the command line, or a mail)."""
    gm = table.service.gm
    at = utc(2026, 12, 1, 18)
    seq = len(table.store.events(GAME))
    with pytest.raises(LeverRefused) as error:
        gm.substitute(GAME, "Роза", "роза", "rosa2@example.test", now=at, via="cli", note=None)
    assert (error.value.code, error.value.params) == (
        "gm_same_player",
        {"name": "роза", "seat": "Роза", "email": "rosa2@example.test", "game": GAME},
    )
    assert len(table.store.events(GAME)) == seq and flushed(table) == []
    result = CliRunner().invoke(
        main,
        [
            *("-c", str(table.directory / "games.yaml"), "substitute", GAME, "Роза"),
            *("--name", "Роза", "--email", "rosa2@example.test"),
        ],
    )
    assert (result.exit_code, result.output) == (
        1,
        "Error: Роза already plays the seat Роза: a substitute is somebody else. To change "
        "the player's address (no public post), use pbp readdress seed-000 Роза --email "
        "rosa2@example.test.\n",
    )
    gm_address = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    gm_mail(table, "ЗАМЕНА Розу НА Роза rosa2@example.test", to=gm_address, at=at)
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (confirm,) = table.new_mail()
    gm_mail(table, "да", to=str(confirm["Reply-To"]), at=utc(2026, 12, 1, 18, 5), subject="Re: ок")
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["gm_refused"]
    (result_mail,) = table.new_mail()
    assert (
        "Не выполнено. Роза уже играет за место Роза: замена — это другой человек. Чтобы "
        "сменить игроку адрес (без поста на форуме), используйте АДРЕС Роза "
        "rosa2@example.test.\n"
    ) in body(result_mail)
    assert table.store.player_email(GAME, "Роза") == EMAILS["Роза"]


def test_D8_a_move_kept_from_the_right_address_counts_on_retry_after_the_readdress(
    table: Table,
) -> None:
    """Issue 31: Дуг's registered address was wrong; his move from his real one to his
    personal address is kept (``wrong_sender``). The GM gives the seat his address (which
    retires that personal address) and retries: the move counts as of its arrival, the
    token being the seat's own then. Live mail to the retired token keeps its answer."""
    old_token = table.token("Дуг")
    move = "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза"
    table.send("Дуг", move, at=utc(2026, 12, 1, 18), sender=NEW)
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["wrong_sender"]
    table.service.gm.readdress(GAME, "Дуг", NEW, now=utc(2026, 12, 1, 18, 30), via="cli", note=None)
    flushed(table)
    # The kept row still names its game (its token is retired now).
    (row,) = json.loads(cli(table, "kept", "--json"))
    assert (row["id"], row["game"], row["reason"]) == (1, GAME, "wrong_sender")
    gm = f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    gm_mail(table, "ПОВТОРИТЬ 1", to=gm, at=utc(2026, 12, 1, 18, 40))
    assert table.run(utc(2026, 12, 1, 18, 41)) == ["gm_pending"]
    (confirm,) = table.new_mail()
    gm_mail(table, "да", to=str(confirm["Reply-To"]), at=utc(2026, 12, 1, 18, 45), subject="Re")
    assert table.run(utc(2026, 12, 1, 18, 46)) == ["gm_applied"]
    made = [
        (s.event.data["suggester"], s.at, s.day)
        for s in table.store.events(GAME)
        if s.event.kind == "suggestion_made"
    ]
    # In day 1, in which it arrived (D8); logged no earlier than the readdress (the
    # log's time never runs backwards).
    assert made == [("Дуг", utc(2026, 12, 1, 18, 30), 1)]
    answer = next(m for m in flushed(table) if m["To"] == GM)
    assert named_body(answer, GAME).startswith(
        "> ПОВТОРИТЬ 1\nОтложенное письмо 1 обработано снова: применено.\n"
    )
    # Live mail to the retired personal address, after the readdress: as before.
    table.send(
        "Дуг", "СТАТУС", at=utc(2026, 12, 1, 19), sender=NEW, to=f"gm+{old_token}@example.test"
    )
    assert table.run(utc(2026, 12, 1, 19, 1)) == ["token_missing"]


def test_pbp_retry_refuses_a_mail_to_a_retired_address_from_a_third_address(
    table: Table,
) -> None:
    """Only the seat's address now makes a retired token count on retry; another sender's
    mail to it would be kept again: ``pbp retry`` says so and retries nothing."""
    table.send("Дуг", "СТАТУС", at=utc(2026, 12, 1, 18), sender="eve@example.test")
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["wrong_sender"]
    table.service.gm.readdress(GAME, "Дуг", NEW, now=utc(2026, 12, 1, 18, 30), via="cli", note=None)
    result = CliRunner().invoke(main, ["-c", str(table.directory / "games.yaml"), "retry", "1"])
    assert (result.exit_code, result.output) == (
        1,
        "Error: Kept mail 1 cannot succeed as it is: its sender eve@example.test plays in no "
        "game, so it would be kept again; if a player wrote it, enter its moves with pbp act "
        "GAME PLAYER '...', else close it with pbp dismiss 1.\n",
    )
    assert table.store.kept()[0].retried_at is None
