"""Mail that broke pbp when a hostile tester played it as players and their clients do
(issue 5, second pass). One test per finding, raw bytes or real pbp mail, exact values.

Cluedo cases play seed 000's game (:mod:`gamekit`: Кросс, Дуг, Роза; help examples
ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза and ОБВИНЕНИЕ Маша, Топор, Столовая —
which in that deal is the solution); Maniac cases seed 002's (:mod:`maniackit`).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from gamekit import EMAILS, Table, body, utc
from test_real_mail import message

from pbp.mail.maildir import deliver
from pbp.parse.body import new_text, strip_help_echo

START = utc(2026, 12, 1, 17)
DAY = utc(2026, 12, 1, 18)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    table = Table(tmp_path)
    table.run(START)
    table.new_mail()
    yield table
    table.close()


def help_reply(table: Table) -> tuple[str, str]:
    """Кросс asks for HELP: (the Message-ID of pbp's reply, its body with CRLF lines)."""
    table.send("Кросс", "ПОМОЩЬ", at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    (reply,) = table.new_mail()
    return str(reply["Message-ID"]), "\r\n".join(body(reply).splitlines())


def cross(table: Table, payload: str, *headers: bytes) -> bytes:
    to = f"gm+{table.token('Кросс')}@example.test"
    return message(EMAILS["Кросс"], to, payload.encode(), *headers)


def understood(table: Table) -> list[str]:
    """The ``Понял:`` lines of the one reply to Кросс, and whether anything was mailed
    to the GM about an accusation."""
    mails = table.new_mail()
    (reply,) = [m for m in mails if m["To"] == EMAILS["Кросс"]]
    lines = [line for line in body(reply).splitlines() if line.startswith("Понял:")]
    accusations = [m for m in mails if "Обвинение" in str(m["Subject"])]
    return [*lines, f"accusation mails: {len(accusations)}"]


# --- our help pasted back: its example moves are never executed -----------------------


def test_help_quoted_unmarked_in_a_reply_with_references_only_is_never_executed(
    table: Table,
) -> None:
    """Some webmails send References without In-Reply-To. The HELP reply quoted back
    without ``>`` held ПРЕДПОЛОЖЕНИЕ … ДЛЯ Роза and ОБВИНЕНИЕ Маша, Топор, Столовая:
    both were executed (the accusation won the game for a player who wrote STATUS)."""
    message_id, echoed = help_reply(table)
    raw = cross(table, "СТАТУС\r\n\r\n" + echoed + "\r\n", b"References: " + message_id.encode())
    deliver(table.inbox_path, raw, at=DAY + timedelta(minutes=5))
    assert table.run(DAY + timedelta(minutes=6)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


def test_help_pasted_into_a_fresh_mail_is_never_executed(table: Table) -> None:
    """No threading at all: a new mail with STATUS and the help pasted below it."""
    _message_id, echoed = help_reply(table)
    raw = cross(table, "СТАТУС\r\n\r\n" + echoed + "\r\n")
    deliver(table.inbox_path, raw, at=DAY + timedelta(minutes=5))
    assert table.run(DAY + timedelta(minutes=6)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


def test_welcome_mail_pasted_into_a_fresh_mail_is_never_executed(tmp_path: Path) -> None:
    table = Table(tmp_path)
    try:
        table.run(START)
        (welcome,) = [m for m in table.new_mail() if m["To"] == EMAILS["Кросс"]]
        pasted = "\r\n".join(body(welcome).splitlines())
        deliver(table.inbox_path, cross(table, "СТАТУС\r\n" + pasted + "\r\n"), at=DAY)
        assert table.run(DAY + timedelta(minutes=1)) == ["status"]
        assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]
    finally:
        table.close()


def test_the_two_language_example_pair_alone_is_an_echo(table: Table) -> None:
    """The help gives each move twice (Russian, then English): the pair pasted alone."""
    raw = cross(
        table,
        "СТАТУС\r\n    ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза\r\n"
        "    SUGGEST Маша, Топор, Столовая TO Роза\r\n",
    )
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


def test_a_move_that_equals_a_help_example_written_alone_is_applied(table: Table) -> None:
    """The player may mean it: one example line (or two that are no neighbours in the
    help) is his own move."""
    raw = cross(table, "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза\r\nОПРОВЕРЖЕНИЕ 7 Топор\r\n")
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["partly_applied"]
    assert understood(table) == [
        "Понял: ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза",
        "Понял: ОПРОВЕРЖЕНИЕ 7 Топор",
        "accusation mails: 0",
    ]


def test_strip_help_echo_cuts_at_the_first_line_of_the_pasted_run() -> None:
    help_text = (
        "Commands, one a line:\n\nREFUTE [N] <card>\n    REFUTE 7 knife\n    NO REFUTATION 7\n"
    )
    assert strip_help_echo("STATUS\nREFUTE [N] <card>\nREFUTE 7 knife", help_text) == "STATUS"
    assert strip_help_echo("REFUTE 7 knife\n\nNO REFUTATION 7\nx", help_text) == ""
    assert strip_help_echo("REFUTE 7 knife\nSTATUS\nNO REFUTATION 7", help_text) == (
        "REFUTE 7 knife\nSTATUS\nNO REFUTATION 7"
    )
    assert new_text("STATUS") == "STATUS"


# --- reply headers without the sender's address ------------------------------------------

ATTRIBUTIONS_WITHOUT_ADDRESS = [
    "Среда, 12 марта 2025, 10:15 +03:00 от Ведущий:",  # Mail.ru
    "12 марта 2025 г., в 10:15, Ведущий:",
    "Wednesday, March 12, 2025 10:15 AM, Ведущий:",
    "Ср, 12 мар 2025 в 10:15 Ведущий:",
]


@pytest.mark.parametrize("attribution", ATTRIBUTIONS_WITHOUT_ADDRESS)
def test_a_reply_header_with_a_time_and_a_year_but_no_address_ends_the_new_text(
    attribution: str,
) -> None:
    """Mail.ru quotes without ``>`` under ``… от Ведущий:``: the old move below it was
    executed as new."""
    quoted = f"СТАТУС\n\n{attribution}\nПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза\n"
    assert new_text(quoted) == "СТАТУС"


def test_a_mailru_quote_without_address_is_not_executed(table: Table) -> None:
    raw = cross(
        table,
        "СТАТУС\r\n\r\nСреда, 12 марта 2025, 10:15 +03:00 от Ведущий:\r\n"
        "ПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза\r\n",
    )
    deliver(table.inbox_path, raw, at=DAY)
    assert table.run(DAY + timedelta(minutes=1)) == ["status"]
    assert understood(table) == ["Понял: СТАТУС", "accusation mails: 0"]


def test_a_command_line_with_a_colon_is_no_reply_header() -> None:
    assert new_text("ГОЛОС: Петя\nПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза:") == (
        "ГОЛОС: Петя\nПРЕДПОЛОЖЕНИЕ Маша, Топор, Столовая ДЛЯ Роза:"
    )
