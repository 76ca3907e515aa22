"""Real mail, third pass (issue 33): a fault found by reading the public fixture
suites of other reply parsers (mailgun/talon, github/email_reply_parser,
crisp-oss/email-reply-parser) with pbp's reader; their shapes here with example.test
addresses and invented names.

2. A dashed heading (``----- Ходы -----``, ``=== Ход 3 ===``) was taken for a quote
   separator: the line under it doubtful, the rest set aside (lost without a word once
   anything else held a command).

Оля first votes for Таня (:func:`test_real_mail_forum.start`); the moves below are hers.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from kits.maniac_table import ManiacTable
from test_real_mail import FOOTER, votes
from test_real_mail_forum import VOTE_PETYA, reply, start

from pbp.parse.body import split_reply


@pytest.fixture
def olya(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    start(table, "ГОЛОС Таня")
    yield table
    table.close()


# --- 2. a dashed heading ----------------------------------------------------------------------


@pytest.mark.parametrize("heading", ["----- Ходы -----", "=== Ход 3 ===", "*** Мой ход ***"])
def test_a_dashed_heading_is_the_senders_own_line(heading: str) -> None:
    """Its words name no message and no reply header follows it: his heading, the moves
    under it his (before: the first doubtful, the rest set aside, lost without a word)."""
    body = f"Привет\n\n{heading}\nГОЛОС Петя\nГОЛОС Оля"
    reading = split_reply(body)
    assert (reading.text, reading.doubtful, reading.aside) == (body, (), ())


def test_talons_feedback_below_a_dashed_line_is_kept() -> None:
    """talon's test_feedback_below_left_unparsed: the whole mail is the sender's."""
    body = (
        "Please enter your feedback below. Thank you.\n\n"
        "------------------------------------- Enter Feedback Below "
        "-------------------------------------\n\n"
        "The user experience was unparallelled. Please continue production. I'm sending "
        "payment to ensure\nthat this line is intact."
    )
    assert split_reply(body).text == body


def test_moves_under_a_dashed_heading_run(olya: ManiacTable) -> None:
    outcomes, lines = reply(olya, "Привет\n\n----- Ходы -----\nГОЛОС Петя\n")
    assert outcomes == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert lines == [
        *VOTE_PETYA,
        "Пропущено — это не команды:",
        "> Привет",
        "> ----- Ходы -----",
        "",
        FOOTER,
    ]


@pytest.mark.parametrize(
    "separator",
    [
        "-----Original Message-----",
        "---- Reply Message ----",
        "-----Ursprüngliche Nachricht-----",
        "----- Antwort Nachricht -----",
        "-----Message d'origine-----",
        "----- Oprindelig meddelelse -----",
        "-------- Původní zpráva --------",
        "-------- Исходное сообщение --------",
        "-------- Оригінальне повідомлення --------",
        "————— Original Message —————",
        "=====Original Message=====",
        "------On 12/29/2026 17:32 PM, Таня wrote-----",
    ],
)
def test_a_dashed_separator_naming_a_message_starts_the_quote(separator: str) -> None:
    """Its words name a message (or it is an attribution between dashes): the quote
    starts there, its first line doubtful."""
    reading = split_reply(f"ГОЛОС Петя\n\n{separator}\nГОЛОС Таня\nПока")
    assert (reading.text, reading.doubtful, reading.aside) == (
        "ГОЛОС Петя",
        (separator, "ГОЛОС Таня"),
        ("Пока",),
    )


def test_a_dashed_separator_in_an_unknown_language_above_a_header_starts_the_quote() -> None:
    """Words pbp has no list for, but a header block follows: the quote starts at the
    dashed line."""
    body = (
        "ГОЛОС Петя\n\n-------- Algne kiri --------\nSaatja: Таня <tanya@example.test>\n"
        "Saadetud: 01.12.2026 12:40\nAdressaat: Оля\nTeema: ход\n\nГОЛОС Таня"
    )
    reading = split_reply(body)
    assert reading.text == "ГОЛОС Петя"
    assert reading.doubtful[:2] == (
        "-------- Algne kiri --------",
        "Saatja: Таня <tanya@example.test>",
    )
    assert "ГОЛОС Таня" in reading.aside
