"""Forged mail cannot steer a game (issue 12, item 4).

Seed 000's game (kits.table): Кросс, Дуг, Роза; the GM is gm-person@example.test. The
forger knows a personal address (it travels in every Reply-To) and forges the From;
he never sees what pbp sends to the registered addresses.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import closing
from datetime import datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.table import EMAILS, GM, Table, body, named_body, summary, utc

from pbp.app.gm import confirms
from pbp.app.service import NOTICES_PER_HOUR
from pbp.app.story import story
from pbp.cli import main
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT

GAME = "seed-000"
TRUSTED = "mx.example.test"
EVIL = "evil@evil.test"
SUGGESTION = "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг"


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


@pytest.fixture
def trusting(tmp_path: Path) -> Iterator[Table]:
    """The game where games.yaml names the receiving server ``mx.example.test``."""
    table = Table(tmp_path, trusted=TRUSTED)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def mail(
    table: Table,
    *lines: str,
    to: str,
    at: datetime,
    sender: str = GM,
    subject: str = "команды",
    headers: Sequence[tuple[str, str]] = (),
) -> str:
    """Deliver a plain mail; its Message-ID."""
    message = EmailMessage(policy=SMTP)
    message["From"] = sender
    message["To"] = to
    message["Subject"] = subject
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    for name, value in headers:
        message[name] = value
    message.set_content("\n".join(lines) + "\n")
    deliver(table.inbox_path, bytes(message), at=at)
    return str(message["Message-ID"])


def gm_address(table: Table) -> str:
    return f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"


def recipients(table: Table) -> list[str]:
    """The To of every mail pbp sent since the last look."""
    table.service.flush_outbox(utc(2026, 12, 31))
    return [str(m["To"]) for m in table.new_mail()]


def kinds(table: Table) -> list[str]:
    return [s.event.kind for s in table.store.events(GAME)]


# --- the GM's levers by mail wait for his confirmation -----------------------------------


def test_a_forged_gm_pause_is_not_applied_and_the_confirmation_goes_to_the_registered_gm_only(
    table: Table,
) -> None:
    mail(table, "ПАУЗА -- уехал", to=gm_address(table), at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    assert table.store.last_event(GAME, ("gm_pause",)) is None
    assert table.store.game(GAME) is not None
    schedule = table.store.schedule(GAME)
    assert schedule is not None
    assert (schedule.over, schedule.deadline_at) == (False, utc(2026, 12, 1, 19, 30))
    (confirm,) = table.new_mail()
    assert summary([confirm]) == [(GM, "[seed-000] Подтвердите команды ГМа")]
    code = str(confirm["Reply-To"]).removeprefix("gm+").removesuffix("@example.test")
    assert len(code) == 16 and code != table.store.player_token(GAME, GM_SEAT)
    text = body(confirm)
    assert (
        "пока не выполнил её:\n\n  ПАУЗА -- уехал\n\n"
        "Пояснение после « -- » попадёт в пост для форума.\n\nЧтобы выполнить её" in text
    )
    assert "Ответ действует до 2 декабря 2026 г., 21:01 по Москве" in text
    assert "pbp rotate-token" not in text
    assert (
        "Чтобы получить новый адрес ГМа, пошлите НОВЫЙ АДРЕС отдельной строкой на ваш адрес "
        "ГМа с вашего зарегистрированного адреса и подтвердите.\n"
    ) in text


def test_a_copy_of_a_gm_mail_awaiting_confirmation_is_a_duplicate_not_a_second_request(
    table: Table,
) -> None:
    """A duplicate delivery (or a renumbered mailbox) of the GM's lever mail must not ask
    for a second confirmation: two codes confirmed would pull the lever twice."""
    message = EmailMessage(policy=SMTP)
    message["From"] = GM
    message["To"] = gm_address(table)
    message["Subject"] = "команды"
    message["Date"] = format_datetime(utc(2026, 12, 1, 18))
    message["Message-ID"] = "<dup-gm@example.test>"
    message.set_content("ПРОДЛИТЬ 2\n")
    deliver(table.inbox_path, bytes(message), at=utc(2026, 12, 1, 18))
    deliver(table.inbox_path, bytes(message), at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending", "duplicate"]
    (confirm,) = table.new_mail()
    assert summary([confirm]) == [(GM, "[seed-000] Подтвердите команды ГМа")]


def test_the_gms_reply_to_the_confirmation_applies_the_levers_exactly_once(
    table: Table,
) -> None:
    mail(table, "ПАУЗА", "ПРОДЛИТЬ 2", to=gm_address(table), at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (confirm,) = table.new_mail()
    assert "  ПАУЗА\n  ПРОДЛИТЬ 2 ч\n" in body(confirm)
    code_address = str(confirm["Reply-To"])
    mail(table, "да", to=code_address, at=utc(2026, 12, 1, 18, 5), subject="Re: команды")
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["gm_applied"]
    pause = table.store.last_event(GAME, ("gm_pause",))
    assert pause is not None and pause.at == utc(2026, 12, 1, 18, 5)
    assert pause.event.data["via"] == "mail"
    assert [k for k in kinds(table) if k.startswith("gm_")] == ["gm_pause", "gm_extend"]
    mails = table.new_mail()
    assert summary(mails) == [
        (GM, "[seed-000] Объявление для форума: пауза — BBCode"),
        (GM, "[seed-000] Объявление для форума: продление срока — BBCode"),
        (GM, "[seed-000] Re: команды"),
    ]
    assert "> ПАУЗА\nИгра на паузе." in body(mails[2])
    # The same reply again (or a second one): answered "already done", nothing repeated.
    mail(table, "да", to=code_address, at=utc(2026, 12, 1, 18, 7), subject="Re: команды")
    assert table.run(utc(2026, 12, 1, 18, 8)) == ["gm_confirmed_already"]
    assert [k for k in kinds(table) if k.startswith("gm_")] == ["gm_pause", "gm_extend"]
    (again,) = table.new_mail()
    assert summary([again]) == [(GM, "[seed-000] Re: команды")]
    assert named_body(again, GAME) == (
        "Эти команды ГМа уже выполнены 1 декабря 2026 г., 21:06 по Москве; "
        "повторно ничего не сделано.\n"
    )


def test_a_confirmation_from_another_address_or_too_late_applies_nothing(table: Table) -> None:
    mail(table, "ПАУЗА", to=gm_address(table), at=utc(2026, 12, 1, 18))
    table.run(utc(2026, 12, 1, 18, 1))
    code_address = str(table.new_mail()[0]["Reply-To"])
    mail(table, "да", to=code_address, at=utc(2026, 12, 1, 18, 5), sender=EVIL)
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["wrong_confirmer"]
    # A stranger: no answer, no notice at once (a flood must not become one mail each
    # to the GM), a line in the GM's digest; a player's address is noticed at once.
    assert table.new_mail() == []
    assert [k.reason for k in table.store.kept()] == ["wrong_confirmer"]
    mail(table, "да", to=code_address, at=utc(2026, 12, 1, 18, 7), sender=EMAILS["Дуг"])
    assert table.run(utc(2026, 12, 1, 18, 8)) == ["wrong_confirmer"]
    [notice] = table.new_mail()
    assert (notice["To"], notice["Subject"]) == (
        GM,
        "[seed-000] Отложено: на письмо-подтверждение ответили не с адреса ГМа: "
        "адрес подтверждения попал к кому-то ещё",
    )
    assert table.store.last_event(GAME, ("gm_pause",)) is None
    mail(table, "да", to=code_address, at=utc(2026, 12, 2, 18, 2))
    assert table.run(utc(2026, 12, 2, 18, 3)) == ["gm_confirm_expired"]
    assert table.store.last_event(GAME, ("gm_pause",)) is None
    assert recipients(table)[-1] == GM


def test_a_gms_reply_to_an_unknown_confirmation_address_names_his_gm_address_and_no_game(
    table: Table,
) -> None:
    """A confirmation code pbp does not know (one of a store restored from before it,
    mistyped): the GM is told so with his GM address as such, never the GM seat's
    internal name («игрок @gm»), and the mail is recorded for no game."""
    mail(table, "да", to="gm+zzzzzzzzzzzzzzzz@example.test", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["token_missing"]
    with closing(sqlite3.connect(table.config.store)) as db:
        last = db.execute("SELECT outcome, game_id, player FROM messages ORDER BY rowid DESC")
        assert last.fetchone() == ("token_missing", None, None)
    (answer,) = table.new_mail()
    assert (answer["To"], answer["Subject"]) == (GM, "[seed-000] Re: команды")
    assert answer["Reply-To"] == gm_address(table)
    assert body(answer) == (
        "Игра: seed-000\n\n"
        "Здравствуйте! Ваше письмо пришло не на личный адрес, не на адрес ГМа и не на "
        "известный pbp адрес подтверждения, поэтому ничего из него не выполнено. Адрес "
        "подтверждения служит одному набору команд, один раз и только до своего срока.\n\n"
        f"Игра «seed-000», ваш адрес ГМа (для команд ГМа): {gm_address(table)}\n\n"
        "Команды ГМа пишите на адрес ГМа. Чтобы подтвердить команды, ответьте на последнее "
        "письмо, в котором pbp просил их подтвердить; если адрес подтверждения неизвестен "
        "или его срок прошёл, пришлите команды ещё раз.\n"
    )


def test_a_forged_substitute_mails_nobody_a_role_before_the_confirmation(table: Table) -> None:
    mail(table, f"ЗАМЕНА Дуга НА Злодей {EVIL}", to=gm_address(table), at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    assert recipients(table) == [GM]
    assert table.store.player_email(GAME, "Дуг") == EMAILS["Дуг"]
    assert "gm_substitute" not in kinds(table)
    # Understood with the seat's own name (what the GM confirms is what is applied).
    sent = table.sent()[-1]
    assert f"  ЗАМЕНА Дуг НА Злодей {EVIL}\n" in body(sent)


def test_help_and_lines_that_are_no_lever_need_no_confirmation(table: Table) -> None:
    mail(table, "ПОМОЩЬ", "STATUS", to=gm_address(table), at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
    # STATUS in a mail of its own, then the answer to the lines: neither asks to confirm.
    status, answer = table.new_mail()
    assert str(status["Subject"]) == "[seed-000] Только для ГМа: состояние игры"
    assert answer["Reply-To"] == status["Reply-To"] == gm_address(table)


def test_a_gm_mail_that_passed_dmarc_at_the_trusted_server_is_applied_at_once(
    trusting: Table,
) -> None:
    header = ("Authentication-Results", f"{TRUSTED}; dmarc=pass header.from=example.test")
    mail(trusting, "ПАУЗА", to=gm_address(trusting), at=utc(2026, 12, 1, 18), headers=[header])
    assert trusting.run(utc(2026, 12, 1, 18, 1)) == ["gm_applied"]
    assert trusting.store.last_event(GAME, ("gm_pause",)) is not None


@pytest.mark.parametrize(
    "result",
    [
        "mx.other.test; dmarc=pass header.from=example.test",  # another server's word
        f"{TRUSTED}; dmarc=pass header.from=evil.test",  # DMARC of another domain
        f"{TRUSTED}; dkim=pass header.d=example.test",  # no DMARC pass
    ],
)
def test_a_gm_mail_without_dmarc_pass_from_the_trusted_server_waits_for_confirmation(
    trusting: Table, result: str
) -> None:
    header = ("Authentication-Results", result)
    mail(trusting, "ПАУЗА", to=gm_address(trusting), at=utc(2026, 12, 1, 18), headers=[header])
    assert trusting.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    assert trusting.store.last_event(GAME, ("gm_pause",)) is None


def test_a_forged_trusted_result_below_the_servers_own_does_not_count(trusting: Table) -> None:
    """RFC 8601 §5: the topmost run of the trusted server's fields is its own; the
    sender's copy further down is not read."""
    headers = [
        ("Authentication-Results", f"{TRUSTED}; dmarc=fail header.from=example.test"),
        ("Received", "from evil.test by mx.example.test"),
        ("Authentication-Results", f"{TRUSTED}; dmarc=pass header.from=example.test"),
    ]
    mail(trusting, "ПАУЗА", to=gm_address(trusting), at=utc(2026, 12, 1, 18), headers=headers)
    assert trusting.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]


# --- players' mail the trusted server did not authenticate --------------------------------


def test_a_players_vote_that_failed_dmarc_is_kept_and_not_counted(trusting: Table) -> None:
    failed = ("Authentication-Results", f"{TRUSTED}; dmarc=fail header.from=example.test")
    trusting.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5), headers=[failed])
    assert trusting.run(utc(2026, 12, 1, 17, 6)) == ["unauthenticated"]
    assert "suggestion_made" not in kinds(trusting)
    (kept,) = trusting.store.kept()
    assert kept.reason == "unauthenticated: dmarc=fail"
    mails = trusting.new_mail()
    assert summary(mails) == [
        (EMAILS["Кросс"], "[seed-000] Re: ход"),
        (
            GM,
            "[seed-000] Отложено: почтовый сервер не подтвердил отправителя (подделанный From?)",
        ),
    ]
    assert named_body(mails[0], GAME).startswith(
        "Почтовый сервер не подтвердил, что письмо пришло с вашего адреса, поэтому ходы "
        "из него не выполнены"
    )
    # The same move, authenticated, counts.
    trusting.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 7))
    assert trusting.run(utc(2026, 12, 1, 17, 8)) == ["applied"]


def test_an_oversize_mail_whose_from_failed_dmarc_is_answered_to_nobody(trusting: Table) -> None:
    """The size rule reads no body, but the header section shows the forgery: Кросс is
    not asked to resend a mail he never sent, and the GM gets no alarm; the digest has it."""
    failed = ("Authentication-Results", f"{TRUSTED}; dmarc=fail header.from=example.test")
    trusting.send("Кросс", "x" * 2_100_000, at=utc(2026, 12, 1, 17, 5), headers=[failed])
    assert trusting.run(utc(2026, 12, 1, 17, 6)) == ["too_large"]
    assert trusting.new_mail() == []
    (kept,) = trusting.store.kept()
    assert kept.reason.endswith("over the limit of 2000000; unauthenticated: dmarc=fail")


@pytest.mark.parametrize(
    ("results", "outcome"),
    [
        ([f"{TRUSTED}; dkim=pass header.d=example.test; spf=fail"], "applied"),
        ([f"{TRUSTED}; spf=pass smtp.mailfrom=cross@mail.example.test"], "applied"),
        ([f"{TRUSTED}; dmarc=none; dkim=pass header.d=evil.test; spf=fail"], "unauthenticated"),
        ([f"{TRUSTED}; spf=pass smtp.mailfrom=evil.test"], "unauthenticated"),
        ([f"{TRUSTED}; dmarc=fail; dkim=pass header.d=example.test"], "unauthenticated"),
        (["mx.other.test; dmarc=pass header.from=example.test"], "unauthenticated"),
        ([], "unauthenticated"),
    ],
)
def test_without_dmarc_a_players_mail_needs_aligned_dkim_or_spf(
    trusting: Table, results: list[str], outcome: str
) -> None:
    headers = [("Authentication-Results", r) for r in results]
    if not headers:  # no field at all: kits.table must not add its pass
        headers = [("X-Nothing", "1")]
        trusting.trusted = None
    trusting.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5), headers=headers)
    assert trusting.run(utc(2026, 12, 1, 17, 6)) == [outcome]


# --- a From that names no single sender -------------------------------------------------------


@pytest.mark.parametrize(
    ("sender", "problem"),
    [
        (f"{EMAILS['Кросс']}, {EVIL}", "several addresses"),
        ("Кросс <@evil.test:cross@example.test>", "source route"),
        ("<@evil.test,@relay.test:cross@example.test>", "source route"),
        (f"<{EMAILS['Кросс']}> <{EVIL}>", "no readable address"),
        ("cross@example.test\x00evil", "no readable address"),
    ],
)
def test_a_from_of_several_addresses_or_a_source_route_is_kept_and_never_answered(
    table: Table, sender: str, problem: str
) -> None:
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5), sender=sender)
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["forged_from"]
    (kept,) = table.store.kept()
    assert kept.reason == f"forged_from: {problem}"
    assert "suggestion_made" not in kinds(table)
    assert recipients(table) == []


def test_a_from_written_as_an_encoded_word_names_no_address(table: Table) -> None:
    """RFC 2047 §5: an encoded-word never stands in an addr-spec; it was read as
    automatic mail."""
    raw = (
        "From: =?utf-8?q?cross=40example.test?=\r\nTo: gm+"
        + table.token("Кросс")
        + "@example.test\r\nSubject: move\r\nMessage-ID: <ew@example.test>\r\n\r\nСТАТУС\r\n"
    )
    deliver(table.inbox_path, raw.encode(), at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["forged_from"]
    (kept,) = table.store.kept()
    assert kept.reason == "forged_from: no readable address"
    assert recipients(table) == []
    # The GM's daily digest (09:00 Moscow) gives the reason in words.
    table.run(utc(2026, 12, 2, 6, 0))
    (digest,) = [m for m in table.sent() if "Сводка" in str(m["Subject"])]
    # Its line is about no game (no sender to place): the Subject names the GM's game.
    assert digest["Subject"] == "[seed-000] Сводка за сутки: 1 письмо отложено или без ответа"
    assert (
        "  1 письмо: в поле From не один отправитель, маршрут через другой адрес или "
        "нечитаемый адрес (без ответа)."
    ) in body(digest).splitlines()


def test_a_forged_gm_mail_with_two_from_addresses_is_kept_and_never_answered(
    table: Table,
) -> None:
    mail(table, "ПАУЗА", to=gm_address(table), at=utc(2026, 12, 1, 18), sender=f"{GM}, {EVIL}")
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["forged_from"]
    assert recipients(table) == []


# --- a new personal address -------------------------------------------------------------------


def test_new_address_by_mail_retires_the_old_one_and_mails_the_new_one_to_the_registered_address(
    table: Table,
) -> None:
    old = table.token("Кросс")
    table.send("Кросс", "НОВЫЙ АДРЕС", SUGGESTION, at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["new_address"]
    new = table.token("Кросс")
    assert new != old and table.store.token(old) is None
    assert "suggestion_made" not in kinds(table)
    (answer,) = table.new_mail()
    assert summary([answer]) == [(EMAILS["Кросс"], "[seed-000] Re: ход")]
    assert answer["Reply-To"] == f"gm+{new}@example.test"
    assert f"у вас новый личный адрес для игры «seed-000»: gm+{new}@example.test." in body(answer)
    # The log says it happened, never with a token.
    rotated = table.store.last_event(GAME, ("gm_address_rotated",))
    assert rotated is not None
    assert dict(rotated.event.data) == {"player": "Кросс", "via": "mail"}
    assert rotated.event.visibility.value == "gm"
    told = story(table.service, GAME, "markdown", force=True)
    assert "у Кросса новый личный адрес (запрошен письмом)." in told
    assert old not in told and new not in told
    # The old address (a forger who knows it, From forged) is answered as retired, at
    # the registered address; the new one works.
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 7), to=f"gm+{old}@example.test")
    assert table.run(utc(2026, 12, 1, 17, 8)) == ["retired"]
    (retired,) = table.new_mail()
    assert summary([retired]) == [(EMAILS["Кросс"], "[seed-000] Re: ход")]
    assert f"Ваш адрес теперь gm+{new}@example.test" in body(retired)
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 9))
    assert table.run(utc(2026, 12, 1, 17, 10)) == ["applied"]


def test_new_address_in_english_is_understood(table: Table) -> None:
    table.send("Дуг", "new address", at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["new_address"]


def run_cli(table: Table, *args: str) -> str:
    result = CliRunner().invoke(main, ["-c", str(table.directory / "games.yaml"), *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_rotate_token_on_the_cli_for_a_player_and_for_the_gm(table: Table) -> None:
    old = table.token("Роза")
    output = run_cli(table, "rotate-token", GAME, "Роза")
    new = table.token("Роза")
    assert output == f"gm+{new}@example.test\n" and new != old
    (told,) = recipients(table)
    assert told == EMAILS["Роза"]
    table.send("Роза", "СТАТУС", at=utc(2026, 12, 1, 17, 5), to=f"gm+{old}@example.test")
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["retired"]
    assert recipients(table) == [EMAILS["Роза"]]
    old_gm = gm_address(table)
    output = run_cli(table, "rotate-token", GAME, "--gm")
    assert output == f"{gm_address(table)}\n" and gm_address(table) != old_gm
    mail(table, "ПАУЗА", to=old_gm, at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["retired"]
    table.service.flush_outbox(utc(2026, 12, 31))
    (retired,) = table.new_mail()
    assert str(retired["To"]) == GM
    # The GM's old address was his command address, not a personal address for moves.
    assert named_body(retired, GAME) == (
        f"Ваше письмо пришло на адрес ГМа для команд игры «{GAME}», который заменён новым, "
        "поэтому ни одна команда из него не выполнена. Ваш адрес ГМа теперь "
        f"{gm_address(table)}: пишите команды туда (проще всего ответом на это письмо).\n"
    )
    assert table.store.last_event(GAME, ("gm_pause",)) is None
    for stored in table.store.events(GAME):
        assert old not in str(stored.event.data) and new not in str(stored.event.data)


def test_the_new_mails_in_english(tmp_path: Path) -> None:
    table = Table(tmp_path, locale="en", trusted=TRUSTED)
    try:
        table.run(utc(2026, 12, 1, 17))
        table.new_mail()
        mail(table, "PAUSE -- away", to=gm_address(table), at=utc(2026, 12, 1, 18))
        assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
        (confirm,) = table.new_mail()
        assert (
            'has not applied it yet:\n\n  PAUSE -- away\n\nA note after " -- " goes into the post'
            " for the forum.\n\nTo apply it"
        ) in body(confirm)
        code_address = str(confirm["Reply-To"])
        # The server authenticated his reply (a confirmation it did not is no confirmation).
        passed = ("Authentication-Results", f"{TRUSTED}; dkim=pass header.d=example.test")
        mail(table, "yes", to=code_address, at=utc(2026, 12, 3, 18), headers=[passed])
        assert table.run(utc(2026, 12, 3, 18, 1)) == ["gm_confirm_expired"]
        # (the days closed meanwhile: their mails too)
        expired = next(m for m in table.new_mail() if m["Subject"] == "[seed-000] Re: команды")
        assert named_body(expired, GAME) == (
            "The confirmation was good until December 2, 2026, 21:01 MSK; nothing was "
            "done. Send the commands again to your GM address.\n"
        )
        failed = ("Authentication-Results", f"{TRUSTED}; spf=fail smtp.mailfrom=example.test")
        table.send("Дуг", "STATUS", at=utc(2026, 12, 3, 18, 5), headers=[failed])
        assert table.run(utc(2026, 12, 3, 18, 6)) == ["unauthenticated"]
        answer = table.new_mail()[0]
        assert named_body(answer, GAME).startswith(
            "The mail server could not verify that the mail came"
        )
        old = table.token("Дуг")
        table.send("Дуг", "NEW ADDRESS", at=utc(2026, 12, 3, 18, 7))
        assert table.run(utc(2026, 12, 3, 18, 8)) == ["new_address"]
        (renewed,) = table.new_mail()
        new = table.token("Дуг")
        assert named_body(renewed, GAME).startswith(
            'As you asked, your personal address for the game "seed-000" is new: '
            f"gm+{new}@example.test. The old one no longer works"
        )
        table.send("Дуг", "STATUS", at=utc(2026, 12, 3, 18, 9), to=f"gm+{old}@example.test")
        assert table.run(utc(2026, 12, 3, 18, 10)) == ["retired"]
        (retired,) = table.new_mail()
        assert f"Your address now is gm+{new}@example.test: write there" in body(retired)
    finally:
        table.close()


def test_the_gms_auto_reply_to_a_confirmation_applies_nothing_and_is_told_once(
    table: Table,
) -> None:
    """A forged SUBSTITUTE, then the GM's vacation auto-responder (no RFC 3834 header,
    a proper In-Reply-To) answers the confirmation: before, the seat and its hand went
    to the forger. Now nothing is applied; the GM is told once how to confirm; a second
    auto-reply gets nothing; his own "подтверждаю" applies the levers."""
    mail(table, f"ЗАМЕНА Дуга НА Злодей {EVIL}", to=gm_address(table), at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (confirm,) = table.new_mail()
    code_address = str(confirm["Reply-To"])
    away = "Спасибо за письмо! Я в отпуске до 10 декабря и отвечу, когда вернусь."
    for minute in (2, 3):
        mail(
            table,
            away,
            to=code_address,
            at=utc(2026, 12, 1, 18, minute),
            subject=f"Re: {confirm['Subject']}",
            headers=[("In-Reply-To", str(confirm["Message-ID"]))],
        )
    assert table.run(utc(2026, 12, 1, 18, 4)) == ["gm_unconfirmed", "gm_unconfirmed"]
    assert table.store.player_email(GAME, "Дуг") == EMAILS["Дуг"]
    assert "gm_substitute" not in kinds(table)
    (hint,) = table.new_mail()  # once, to the GM only; the forger gets nothing
    assert (hint["To"], hint["Reply-To"]) == (GM, code_address)
    assert named_body(hint, GAME).startswith(
        "В вашем ответе на письмо-подтверждение нет слова «подтверждаю» или «да» отдельной "
        "строкой, поэтому команды ГМа не выполнены."
    )
    mail(table, "Подтверждаю.", to=code_address, at=utc(2026, 12, 1, 18, 10))
    assert table.run(utc(2026, 12, 1, 18, 11)) == ["gm_applied"]
    assert table.store.player_email(GAME, "Дуг") == EVIL


@pytest.mark.parametrize("text", ["да", "Да!", "ПОДТВЕРЖДАЮ", "confirm", "Yes.", "  подтверждаю  "])
def test_a_confirmation_word_alone_on_a_line_confirms(text: str) -> None:
    assert confirms(f"Привет.\n{text}\nСпасибо") is True


@pytest.mark.parametrize(
    "text",
    [
        "I am away until 10 December",
        "да, я в отпуске",
        "Чтобы выполнить их, напишите: подтверждаю.",
        "> да",
        "",
    ],
)
def test_anything_else_confirms_nothing(text: str) -> None:
    assert confirms(text) is False


def test_a_flood_that_would_notice_the_gm_at_once_is_capped_then_goes_to_the_digest(
    table: Table,
) -> None:
    """50 mails with Дуг's From forged to Кросс's personal address (each a notice at
    once before): at most NOTICES_PER_HOUR notices in an hour, the rest in the GM's
    digest; Дуг is answered within his own rate limit."""
    to = f"gm+{table.token('Кросс')}@example.test"
    for n in range(50):
        mail(table, "СТАТУС", to=to, at=utc(2026, 12, 1, 18, 0, n), sender=EMAILS["Дуг"])
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["wrong_sender"] * 50
    to_gm = [m for m in table.new_mail() if m["To"] == GM]
    assert NOTICES_PER_HOUR == 10
    assert len(to_gm) == 10
    entries = table.store.digest_entries(0, [GAME], 100)
    assert [(e.reason, e.sender) for e in entries] == [("wrong_sender", EMAILS["Дуг"])] * 40
    assert [e.kept_id for e in entries] == list(range(11, 51))
