"""A header value nesting comments too deep is read as unreadable, never a crash (issue
32, second pass).

Before, a ``Content-Type`` of ``text/plain`` and 1,000 ``(`` made the standard library's
parser raise ``RecursionError``: a player's mail was then "not a mail message", classed
``automatic`` (kept as a bounce, never answered); in ``Content-Disposition`` he was told
the body "could not be read" and the kept reason quoted the Python exception text. Now
each value is cut before its first comment nested over
:data:`~pbp.mail.read.headers.MAX_COMMENT_DEPTH` deep before the parser sees it, and the mail
is answered as unreadable in words.
"""

from __future__ import annotations

from email.utils import format_datetime
from pathlib import Path

import pytest
from kits.table import Table, body, utc

from pbp.mail.maildir import deliver
from pbp.mail.read.headers import MAX_COMMENT_DEPTH, bounded, deep_comment_field
from pbp.mail.read.mime import read_letter

FIELDS = {
    "Content-Type": b"MIME-Version: 1.0\r\nContent-Type: text/plain" + b"(" * 1000,
    "Content-Disposition": (
        b"MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
        b"Content-Disposition: inline" + b"(" * 1000
    ),
    "MIME-Version": (
        b"MIME-Version: 1.0" + b"(" * 3000 + b"\r\nContent-Type: text/plain; charset=utf-8"
    ),
}


def raw_mail(table: Table, field: bytes) -> bytes:
    to = f"gm+{table.token('Кросс')}@example.test"
    return (
        b"From: cross@example.test\r\nTo: " + to.encode() + b"\r\nSubject: status\r\n"
        b"Date: " + format_datetime(utc(2026, 12, 1, 17, 5)).encode() + b"\r\n"
        b"Message-ID: <deep-1@example.test>\r\n" + field + b"\r\n\r\nSTATUS\r\n"
    )


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_a_players_mail_with_comments_nested_1000_deep_is_answered_unreadable(
    tmp_path: Path, name: str
) -> None:
    table = Table(tmp_path)
    table.run(utc(2026, 12, 1, 17))
    before = len(table.sent())
    deliver(table.inbox_path, raw_mail(table, FIELDS[name]), at=utc(2026, 12, 1, 17, 5))
    assert table.run(utc(2026, 12, 1, 17, 6)) == ["unreadable"]
    reason = f"its {name} field nests comments (parentheses) over 20 deep"
    kept = table.store.kept()
    assert [(k.reason, k.dismissed_at) for k in kept] == [(f"unreadable: {reason}", None)]
    answers = [m for m in table.sent()[before:] if m["To"] == "cross@example.test"]
    assert [str(m["Subject"]) for m in answers] == ["[seed-000] Re: status"]
    assert "в одной из строк его заголовка (над текстом) слишком глубоко вложены скобки" in body(
        answers[0]
    )


def test_a_value_is_cut_before_its_first_comment_past_the_depth() -> None:
    assert MAX_COMMENT_DEPTH == 20
    honest = "text/plain; charset=utf-8 (a (nested) comment)"
    assert bounded(honest) == honest
    escaped = "x " + "\\(" * 100 + ")"  # quoted-pairs: no comment at all
    assert bounded(escaped) == escaped
    assert bounded("a" + "(" * 21 + "b)") == "a" + "(" * 20
    assert bounded("(" * 20 + ")" * 20 + "(" * 20) == "(" * 20 + ")" * 20 + "(" * 20
    section = b"To: a@example.test\r\nX-Folded: a\r\n " + b"(" * 21 + b"\r\nSubject: x"
    assert deep_comment_field(section) == "X-Folded"
    assert deep_comment_field(b"Subject: " + b"(" * 20) is None


def test_read_letter_never_raises_on_deep_comments_in_a_parts_header() -> None:
    """In a MIME part the value is cut (the parser sees 20 levels): the text is read."""
    raw = (
        b"From: cross@example.test\r\nTo: gm@example.test\r\nMIME-Version: 1.0\r\n"
        b'Content-Type: multipart/mixed; boundary="b"\r\n\r\n--b\r\n'
        b"Content-Type: text/plain; charset=utf-8\r\nContent-Disposition: inline"
        + b"(" * 1000
        + b"\r\n\r\nSTATUS\r\n--b--\r\n"
    )
    letter = read_letter(raw)
    assert (letter.text, letter.unreadable, letter.automatic) == ("STATUS", None, False)
