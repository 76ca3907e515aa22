"""What a newcomer GM following the README ran into (issue 32, third pass): each fault
with the exact text he reads now.

Seed 000's game (kits.table): Кросс, Дуг, Роза; the GM is gm-person@example.test; with
``trusted`` the receiving server ``mx.example.test`` authenticates the players' From.
The mail pbp gives up on is refused by the suite's aiosmtpd (kits.crash's games, read
from its Dovecot).
"""

from __future__ import annotations

import email
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP, SMTPUTF8
from email.policy import default as default_policy
from email.utils import format_datetime, make_msgid
from pathlib import Path

import pytest
from click.testing import CliRunner
from kits.crash import DAEMON, ENV, MSK, Move, add_users, address, games_yaml, raw_move, tokens
from kits.games import Imap, MailSection, write_games_yaml
from kits.mailstack import Dovecot, SmtpServer
from kits.table import GM, Table, body, named_body, seed_000, utc, write_config

from pbp.app.intake.senders import SenderRules
from pbp.cli import _service, main
from pbp.config.loading import load_config
from pbp.mail.maildir import deliver
from pbp.store import GM_SEAT

GAME = "seed-000"
TRUSTED = "mx.example.test"
SUGGESTION = "ПРЕДПОЛОЖЕНИЕ Маша, Пистолет, Спальня ДЛЯ Дуг"
FAILED = ("Authentication-Results", f"{TRUSTED}; dmarc=fail header.from=example.test")


@pytest.fixture
def trusting(tmp_path: Path) -> Iterator[Table]:
    """The game where games.yaml names the receiving server ``mx.example.test``."""
    table = Table(tmp_path, trusted=TRUSTED)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def cli(table: Table, *args: str) -> tuple[int, str]:
    """``pbp -c games.yaml ARGS…`` on the table's files: (exit code, output)."""
    result = CliRunner().invoke(main, ["-c", str(table.directory / "games.yaml"), *args])
    return result.exit_code, result.output


def gm_mail(table: Table, *lines: str, at: datetime, to: str | None = None) -> None:
    """A mail from the GM to his GM address (or ``to``), authenticated."""
    message = EmailMessage(policy=SMTP)
    message["From"] = GM
    message["To"] = to or f"gm+{table.store.player_token(GAME, GM_SEAT)}@example.test"
    message["Subject"] = "команды"
    message["Date"] = format_datetime(at)
    message["Message-ID"] = make_msgid(domain="example.test")
    if table.trusted:
        message["Authentication-Results"] = table.passed()
    message.set_content("\n".join(lines) + "\n")
    deliver(table.inbox_path, bytes(message), at=at)


# --- 1. an unauthenticated row is not retried: the verdict in a mail never changes ------


#: What ``pbp retry`` says of a kept mail of Кросс's that failed DMARC.
REFUSED_UNAUTHENTICATED = (
    "Error: Kept mail 1 cannot succeed as it is: the receiving server did not authenticate "
    "its sender cross@example.test (dmarc=fail), and what it wrote into the mail never "
    "changes, so it would be kept again; ask the player to send it again from his own "
    "mailbox, or, once he has told you he wrote it, enter its moves with pbp act seed-000 "
    "Кросс '...'; then close it with pbp dismiss 1.\n"
)


def test_pbp_retry_refuses_an_unauthenticated_row_and_exits_1(trusting: Table) -> None:
    """It printed ``kept:1: unauthenticated seed-000 (still kept)`` and exited 0."""
    trusting.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5), headers=[FAILED])
    assert trusting.run(utc(2026, 12, 1, 17, 6)) == ["unauthenticated"]
    assert cli(trusting, "retry", "1") == (1, REFUSED_UNAUTHENTICATED)
    (kept,) = trusting.store.kept()
    assert (kept.retried_at, kept.waiting) == (None, True)


def test_retry_by_mail_refuses_an_unauthenticated_row_alike(trusting: Table) -> None:
    trusting.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5), headers=[FAILED])
    assert trusting.run(utc(2026, 12, 1, 17, 6)) == ["unauthenticated"]
    trusting.new_mail()
    gm_mail(trusting, "ПОВТОРИТЬ 1", at=utc(2026, 12, 1, 17, 10))
    assert trusting.run(utc(2026, 12, 1, 17, 11)) == ["gm_refused"]
    (answer,) = trusting.new_mail()
    assert named_body(answer, GAME).startswith(
        "> ПОВТОРИТЬ 1\n"
        "Не выполнено. Отложенное письмо 1 в нынешнем виде не пройдёт: принимающий "
        "сервер не подтвердил его отправителя cross@example.test (dmarc=fail), а то, что "
        "он записал в письмо, уже не изменится, поэтому письмо снова будет отложено; "
        "попросите игрока прислать его ещё раз из своего почтового ящика или, когда он "
        "подтвердит, что писал его, внесите его ходы командой ЗА Кросса: <ход>; затем "
        "закройте его командой ОТКЛОНИТЬ 1.\n"
    )
    assert trusting.store.kept()[0].retried_at is None


def test_a_retry_kept_again_as_unauthenticated_exits_1_and_stays_waiting(
    trusting: Table, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mail that crashed (kept ``error``) and whose From fails on retry: kept again, so
    ``pbp retry`` exits 1 and the row waits, ``(still kept)``; it exited 0 and the row
    no longer waited."""
    rule = SenderRules.unauthenticated_sender

    def broken(self: SenderRules, message: object) -> None:
        raise RuntimeError("planted bug")

    monkeypatch.setattr(SenderRules, "unauthenticated_sender", broken)
    trusting.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5), headers=[FAILED])
    assert trusting.run(utc(2026, 12, 1, 17, 6)) == ["error"]
    monkeypatch.setattr(SenderRules, "unauthenticated_sender", rule)  # the fix
    assert cli(trusting, "retry", "1") == (
        1,
        "kept:1: unauthenticated seed-000 (still kept)\n",
    )
    (kept,) = trusting.store.kept()
    assert (kept.retry_outcome, kept.waiting) == ("unauthenticated", True)
    code, listing = cli(trusting, "kept", "--json")
    assert code == 0
    assert json.loads(listing)[0]["status"].endswith(": unauthenticated (still kept)")


def test_an_unauthenticated_row_is_retried_after_a_wrong_trusted_setting_is_corrected(
    trusting: Table,
) -> None:
    """A wrong ``trusted_authserv_id`` keeps every mail (README: it fails safe); once it
    is corrected, the verdict the real server wrote does authenticate: the retry applies."""
    real = ("Authentication-Results", "mx.real.test; dmarc=pass header.from=example.test")
    trusting.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5), headers=[real])
    assert trusting.run(utc(2026, 12, 1, 17, 6)) == ["unauthenticated"]
    write_config(trusting.directory, trusted="mx.real.test")
    assert cli(trusting, "retry", "1") == (0, "kept:1: applied seed-000\n")


def test_kept_explain_and_the_gm_notice_advise_no_retry_of_an_unauthenticated_mail(
    trusting: Table,
) -> None:
    code, explained = cli(trusting, "kept", "--explain")
    assert code == 0
    block = next(b for b in explained.split("\n\n") if b.startswith("unauthenticated\n"))
    assert block == (
        "unauthenticated\n"
        "  its From was not authenticated (not applied)\n"
        "  what to do: ask the player to send it again from his own mailbox, or, once he "
        "has told you he wrote it, enter its moves with pbp act GAME PLAYER '...'; then pbp "
        "dismiss ID (the server's verdict in a mail never changes: pbp retry ID helps only "
        "after a wrong trusted_* setting was corrected)"
    )
    trusting.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 17, 5), headers=[FAILED])
    assert trusting.run(utc(2026, 12, 1, 17, 6)) == ["unauthenticated"]
    notice = next(m for m in trusting.new_mail() if str(m["To"]) == GM)
    assert body(notice).rstrip("\n").split("\n")[-1] == (
        "То, что сервер записал в письмо, уже не изменится, поэтому повтор снова отложит "
        "его: попросите игрока прислать письмо ещё раз из своего почтового ящика или, "
        "когда он подтвердит, что писал его, ответьте ЗА Кросса: <ход>, чтобы самому внести "
        "ходы из этого письма; затем ОТКЛОНИТЬ 1 закроет его."
    )


# --- 2. an address in other letters than ASCII: the rule said, no refused advice ----------


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    table.new_mail()
    yield table
    table.close()


def test_games_yaml_refuses_a_non_ascii_address_saying_the_ascii_rule(tmp_path: Path) -> None:
    """It said "value is not a valid email address", though the address is one."""
    config = write_config(tmp_path)
    config.write_text(
        config.read_text(encoding="utf-8").replace("cross@example.test", "пётр@example.test"),
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["-c", str(config), "check"])
    assert (result.exit_code, result.output) == (
        1,
        f"{config}:17: games[0].players[0].email: address 'пётр@example.test': an address "
        "pbp registers must be ASCII (name@domain in Latin letters, digits and signs such "
        "as . _ - +); mail from an address in other letters is a stranger's\n",
    )


def test_readdress_to_a_non_ascii_address_is_refused_saying_the_ascii_rule(
    table: Table,
) -> None:
    """It said "is not an email address: the new address must be like name@domain"."""
    assert cli(table, "readdress", GAME, "Дуг", "--email", "пётр@example.test") == (
        1,
        'Error: "пётр@example.test" cannot be registered: a player\'s address must be ASCII, '
        "name@domain in Latin letters (e.g. vova@example.test); ask the player for such an "
        "address. The seat keeps its address.\n",
    )
    gm_mail(table, "АДРЕС Дуг пётр@example.test", at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["gm_pending"]
    (confirm,) = table.new_mail()
    gm_mail(table, "да", at=utc(2026, 12, 1, 18, 5), to=str(confirm["Reply-To"]))
    assert table.run(utc(2026, 12, 1, 18, 6)) == ["gm_refused"]
    (answer,) = table.new_mail()
    assert named_body(answer, GAME).startswith(
        "> АДРЕС Дуг пётр@example.test\n"
        "Не выполнено. «пётр@example.test» нельзя записать: адрес игрока должен быть в "
        "ASCII, вида имя@домен латиницей (например, vova@example.test); попросите у игрока "
        "такой адрес. За местом остался прежний адрес.\n"
    )
    assert table.store.player_email(GAME, "Дуг") == "doug@example.test"


def test_retry_of_a_strangers_mail_from_a_non_ascii_address_names_no_readdress(
    table: Table,
) -> None:
    """``pbp retry`` advised ``pbp readdress seed-000 Дуг --email пётр@example.test``,
    which pbp refuses."""
    message = EmailMessage(policy=SMTPUTF8)
    message["From"] = "Пётр <пётр@example.test>"
    message["To"] = f"gm+{table.token('Дуг')}@example.test"
    message["Subject"] = "ход"
    message["Date"] = format_datetime(utc(2026, 12, 1, 18))
    message["Message-ID"] = make_msgid(domain="example.test")
    message.set_content("СТАТУС\n")
    deliver(table.inbox_path, message.as_bytes(), at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["wrong_sender"]
    assert cli(table, "retry", "1") == (
        1,
        "Error: Kept mail 1 cannot succeed as it is: its sender пётр@example.test is not "
        "the registered address of Дуг in game seed-000 (doug@example.test), nor can it be "
        "one (a player's address must be ASCII, name@domain in Latin letters), so it would "
        "be kept again; if the player wrote it, ask him to write from his registered "
        "address or give you an ASCII one, or enter its moves with pbp act seed-000 Дуг "
        "'...'.\n",
    )


# --- 4. a header section of too many fields: the limit it broke --------------------------


def test_a_mail_of_too_many_header_fields_is_told_the_field_limit_not_64_kb(
    table: Table,
) -> None:
    """13 KB of 1,100 fields: the player read «занимают больше 64 КБ»; ``pbp kept``
    said "over the size limit"."""
    fields = [("X-Filler", f"{n}") for n in range(1100)]
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 18), headers=fields)
    raw = next((table.inbox_path / "new").iterdir()).read_bytes()
    assert 13_000 < len(raw) < 20_000
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["too_large"]
    answer, notice = table.new_mail()
    assert named_body(answer, GAME).startswith(
        "Здравствуйте! Ваше письмо не прочитано: в нём больше 1000 служебных заголовков "
        "(От, Кому, Тема и другие строки над текстом), а принимается не больше 1000. "
        "Поэтому ходы из него не выполнены. ГМ получил уведомление.\n"
    )
    assert str(notice["Subject"]) == (
        "[seed-000] Отложено: заголовки письма выходят за пределы, которые читает "
        "pbp, и оно не прочитано"
    )
    assert (
        "  Причина: заголовки письма выходят за пределы, которые читает pbp, и оно не "
        "прочитано (больше 1000 строк заголовка)\n"
    ) in body(notice)
    code, listing = cli(table, "kept", "--json")
    assert code == 0
    assert json.loads(listing)[0]["reason_text"] == (
        "over the size limit, or a header section over its limits: only its headers were "
        f"kept: header section over 1000 fields; {len(raw)} bytes in all"
    )
    assert cli(table, "retry", "1") == (
        1,
        "Error: Kept mail 1 cannot succeed as it is: only the start of its header section "
        "was kept (the header section was over the bounds pbp reads); ask the sender to "
        "send it again from an ordinary mail program, or enter its moves with pbp act "
        "seed-000 Кросс '...', then close it with pbp dismiss 1.\n",
    )


# --- 5. pbp check: a password_env warning beside the file's errors -----------------------


def test_pbp_check_warns_of_an_unset_password_env_beside_the_files_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """README: "every problem at once … a password_env variable not set is only a
    warning"; with an error in the file, the warning was dropped."""
    monkeypatch.delenv("PBP_NEWCOMER_PASSWORD", raising=False)
    game = seed_000().replace("cross@example.test", "cross.example.test")
    mail = MailSection(inbox=Imap(1143, "PBP_NEWCOMER_PASSWORD"))
    config = write_games_yaml(tmp_path, game, mail=mail)
    warning = (
        f"{config}: warning: environment variable PBP_NEWCOMER_PASSWORD (password_env) is "
        "not set: `pbp run` and `pbp check --connect` need it\n"
    )
    error = (
        f"{config}:18: games[0].players[0].email: value is not a valid email address: "
        "'cross.example.test'\n"
    )
    result = CliRunner().invoke(main, ["-c", str(config), "check"])
    assert (result.exit_code, result.output) == (1, warning + error)
    result = CliRunner().invoke(main, ["-c", str(config), "check", "--connect"])
    assert (result.exit_code, result.output) == (
        1,
        f"{config}: error: environment variable PBP_NEWCOMER_PASSWORD (password_env) is "
        "not set\n" + error,
    )


# --- 6. the trial's "her answer": the newest mail to her, whatever the hour --------------


def test_pbp_mailbox_last_shows_the_newest_mail_to_an_address(table: Table) -> None:
    """README's trial read her answer as "number 3 of her list"; after a reminder it was
    number 4. ``--last`` shows the newest."""
    table.send("Кросс", SUGGESTION, at=utc(2026, 12, 1, 18))
    assert table.run(utc(2026, 12, 1, 18, 1)) == ["applied"]
    mails = [m for m in table.sent() if str(m["To"]) == "cross@example.test"]
    code, shown = cli(table, "mailbox", "outbox", "--to", "cross@example.test", "--last")
    assert code == 0
    head = shown.split("\n\n", 1)[0].splitlines()
    assert head[2:] == [
        "To: cross@example.test",
        f"Reply-To: gm+{table.token('Кросс')}@example.test",
        "Subject: [seed-000] Re: ход",
    ]
    assert str(mails[-1]["Subject"]) == "[seed-000] Re: ход"
    assert cli(table, "mailbox", "outbox", "--to", "cross@example.test", "--last") == cli(
        table, "mailbox", "outbox", "--to", "cross@example.test", str(len(mails))
    )
    assert cli(table, "mailbox", "outbox", "--to", "nobody@example.test", "--last") == (
        1,
        "Error: no mail in outbox to nobody@example.test\n",
    )
    code, both = cli(table, "mailbox", "outbox", "2", "--last")
    assert (code, both.splitlines()[-1]) == (2, "Error: give NUMBER or --last, not both")


# --- 3. mail pbp gave up on: the lever that changes an address, the time as mails say it --


#: The genitive month names of a Russian date («7 декабря 2026 г.»).
MONTHS = [
    *("января", "февраля", "марта", "апреля", "мая", "июня"),
    *("июля", "августа", "сентября", "октября", "ноября", "декабря"),
]


def test_the_undelivered_mail_notice_names_readdress_and_writes_the_time_as_mails_do(
    dovecot: Dovecot,
    smtp_server: SmtpServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """It said «Проверьте адрес в games.yaml или сообщите игроку иначе» (editing
    ``players:`` after the start changes nothing) and «Поставлено в очередь: Mon, 07
    Dec 2026 19:20:26 +0000»."""
    add_users(dovecot)
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    config = tmp_path / "games.yaml"
    start = datetime.now(UTC).replace(microsecond=0)
    config.write_text(games_yaml(dovecot.port, smtp_server.port, start), encoding="utf-8")
    service = _service(load_config(config), create=True)
    try:
        service.run_once(start + timedelta(seconds=1))
        tanya = address("mn-1", "Таня")
        smtp_server.refuse(tanya)
        move = Move("<undelivered-1@players.example.test>", "mn-1", "Таня", "ГОЛОС Олю")
        dovecot.append(DAEMON, raw_move(move, tokens(service.store.path)), when=start)
        queued = start + timedelta(seconds=2)
        service.run_once(queued)  # her answer is refused for good: the GM is told
        service.run_once(queued + timedelta(seconds=1))
        (given_up,) = [m for m in service.store.outbox() if m.failed is not None]
    finally:
        assert service.inbox is not None and service.transport is not None
        service.inbox.close()
        service.transport.close()
        service.store.close()
    notice = email.message_from_bytes(dovecot.messages(GM)[-1].raw, policy=default_policy)
    assert str(notice["Subject"]) == f"[mn-1] Письмо не доставлено: {tanya}"
    text = str(notice.get_body(("plain",)).get_content()).replace("\r\n", "\n")  # type: ignore[union-attr]
    local = queued.astimezone(MSK)
    written = f"{local.day} {MONTHS[local.month - 1]} {local.year} г., {local:%H:%M} по Москве"
    assert f"  Поставлено в очередь: {written}\n" in text
    assert text.split("\n\n")[-1] == (
        "Ходы, на которые оно отвечало, всё равно применены. Если адрес игрока Таня неверен, "
        "запишите за местом верный: ответьте АДРЕС <игрок> <новый адрес> (правка players: "
        "в games.yaml после начала игры ничего не меняет); если адрес верен, сообщите игроку "
        "другим путём.\n"
        f"Message-ID: {given_up.message_id}\n"
    )
