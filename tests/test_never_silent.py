"""Never silent (issue 33, item 5): a mail whose own text holds no command but whose
doubtful or quoted lines do is answered with those lines under "looks quoted — not
done" and how to send them again, never "no command found".

One case per shape of :class:`pbp.mail.read.reply.Doubt` (the test fails when a shape has
no case here), each raw bytes through the service: Оля, who voted for Таня, sends a
mail whose only command, ``ГОЛОС Петя``, stands where the reader does not take it for
hers. It is not executed, and the answer lists it.
"""

from __future__ import annotations

import email
import email.policy
from collections.abc import Iterator
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

import pytest
from kits.maniac_table import EMAILS, ManiacTable
from test_real_mail import DAY_1, FOOTER, answer, from_player, run, votes
from test_real_mail_forum import start
from test_real_mail_quotes import ADVICE, REPLY_AT, crlf

from pbp.mail.read.reply import Doubt
from pbp.mail.read.textparts import read_body

OLYA = EMAILS["Оля"]
HTML = b"Content-Type: text/html; charset=utf-8"
ATTRIBUTION = "On Tue, 1 Dec 2026 at 12:40, Таня <tanya@example.test> wrote:"

#: For each shape: the body (text/plain, or HTML where the shape is HTML's), and the
#: lines of hers that are no command (listed as ignored).
CASES: dict[Doubt, tuple[str, list[str]]] = {
    Doubt.REWRAPPED: ("> Ваш голос?\nГОЛОС Петя\n", []),
    Doubt.REPLY_HEADER: (f"Привет!\n\n{ATTRIBUTION}\nГОЛОС Петя\n", ["Привет!"]),
    Doubt.UNDER_HEADER_BLOCK: (
        "От: pbp <gm@example.test>\nДата: 01.12.2026 12:40\nКому: Оля\n\nГОЛОС Петя\n",
        [],
    ),
    Doubt.FORUM_QUOTE: ("Привет!\n\nТаня сказал(а):\nГОЛОС Петя\n", ["Привет!"]),
    Doubt.MARKED: ("Привет!\n\n> ГОЛОС Петя\n", ["Привет!"]),
    Doubt.UNMARKED_QUOTE: (
        f"Привет!\n\n{ATTRIBUTION}\nЯ думаю так.\nГОЛОС Петя\n",
        ["Привет!"],
    ),
    Doubt.SIGNATURE: ("Привет!\n-- \nГОЛОС Петя\n", ["Привет!"]),
    Doubt.FORUM_TAG: (
        "Привет!\n[quote=Таня]ГОЛОС Петя[/quote]\n",
        ["Привет!", "[quote=Таня]ГОЛОС Петя[/quote]"],
    ),
    Doubt.HTML_QUOTE: (
        '<div>Привет!</div><blockquote type="cite"><div>ГОЛОС Петя</div></blockquote>',
        ["Привет!"],
    ),
}


@pytest.fixture
def olya(tmp_path: Path) -> Iterator[ManiacTable]:
    table = ManiacTable(tmp_path)
    start(table, "ГОЛОС Таня")
    yield table
    table.close()


def raw_mail(table: ManiacTable, shape: Doubt) -> bytes:
    body, _ignored = CASES[shape]
    if shape is Doubt.HTML_QUOTE:
        return from_player(table, "Оля", body.encode(), content_type=HTML)
    return from_player(table, "Оля", crlf(body))


def shapes_read(raw: bytes) -> frozenset[Doubt]:
    """The shapes the reader finds in ``raw``'s body, read as the service reads a mail
    that answers none of ours."""
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    reply, _unreadable, _forwarded = read_body(msg)
    return reply.own(reply.whole, None).shapes


def test_every_shape_has_a_case() -> None:
    assert set(CASES) == set(Doubt)


@pytest.mark.parametrize("shape", list(Doubt), ids=[shape.name for shape in Doubt])
def test_a_command_only_in_a_doubtful_or_quoted_line_is_answered_looks_quoted(
    olya: ManiacTable, shape: Doubt
) -> None:
    """Not executed (her vote stays for Таня), and answered "looks quoted — not done"
    with the advice to send it again; never "no command found"."""
    raw = raw_mail(olya, shape)
    assert shape in shapes_read(raw)
    outcomes, mails = run(olya, raw, at=REPLY_AT)
    assert [str(outcome) for outcome in outcomes] == ["status"]
    assert votes(olya) == {"Оля": "Таня"}
    _body, ignored = CASES[shape]
    skipped = ["Пропущено — это не команды:", *[f"> {line}" for line in ignored], ""]
    assert answer(mails, OLYA) == [
        "Похоже на цитату — не выполнено:",
        "> ГОЛОС Петя",
        ADVICE,
        "",
        *(skipped if ignored else []),
        FOOTER,
    ]


def test_a_quote_of_our_own_mail_is_not_listed(olya: ManiacTable) -> None:
    """Our answer quoted back under a thank-you holds our echo of her vote: no move of
    hers. Its lines are left out (they are lines of the mail answered, found by
    In-Reply-To); the answer says that her mail held no command."""
    (ours,) = [mail for mail in olya.sent() if mail["To"] == OLYA][-1:]
    quoted = "\n".join(f"> {line}" for line in ours.get_content().splitlines())
    raw = from_player(
        olya,
        "Оля",
        crlf(f"Спасибо!\n\n{quoted}\n"),
        b"In-Reply-To: " + str(ours["Message-ID"]).encode(),
    )
    outcomes, mails = run(olya, raw, at=DAY_1 + timedelta(minutes=5))
    assert [str(outcome) for outcome in outcomes] == ["refused"]
    assert votes(olya) == {"Оля": "Таня"}
    lines = answer(mails, OLYA)
    assert "Похоже на цитату — не выполнено:" not in lines
    assert any("не найдено ни одной команды" in line for line in lines)


def test_quoted_lines_are_not_listed_beside_her_own_move(olya: ManiacTable) -> None:
    """With a command of her own, a quote is a quote: only doubtful lines are listed."""
    outcomes, mails = run(
        olya, from_player(olya, "Оля", crlf("ГОЛОС Петя\n\n> ГОЛОС Таня\n")), at=REPLY_AT
    )
    assert [str(outcome) for outcome in outcomes] == ["applied"]
    assert votes(olya) == {"Оля": "Петя"}
    assert "Похоже на цитату — не выполнено:" not in answer(mails, OLYA)


def test_our_help_quoted_in_a_fresh_mail_is_not_listed(olya: ManiacTable) -> None:
    """Our command help quoted in a mail that names none of ours (no In-Reply-To): its
    examples are ours, not her moves; the answer says that her mail held no command."""
    olya.move("Оля", "ПОМОЩЬ", at=DAY_1 + timedelta(minutes=1))
    (ours,) = [mail for mail in olya.sent() if mail["To"] == OLYA][-1:]
    lines = ours.get_content().splitlines()
    help_lines = lines[next(n for n, line in enumerate(lines) if line.startswith("Команды")) :]
    assert "    ГОЛОС за Катю" in help_lines
    quoted = "\n".join(f"> {line}" for line in help_lines)
    raw = from_player(olya, "Оля", crlf(f"Спасибо, понятно.\n\n{quoted}\n"))
    outcomes, mails = run(olya, raw, at=DAY_1 + timedelta(minutes=5))
    assert [str(outcome) for outcome in outcomes] == ["refused"]
    assert votes(olya) == {"Оля": "Таня"}
    lines = answer(mails, OLYA)
    assert "Похоже на цитату — не выполнено:" not in lines
    assert any("не найдено ни одной команды" in line for line in lines)
