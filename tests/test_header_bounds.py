"""A header section is read up to its bounds, whatever the mail's size (issue 32, item 2).

Before issue 32 an inbox read a mail within ``mail.max_message_size`` whole, its header
section however long (a player's 1.9 MB of 460 ``Authentication-Results`` fields), and
of a larger one fetched the header section whole (``BODY.PEEK[HEADER]``: a stranger's
2.1 MB of 1,500 fields). Now the Maildir and IMAP inboxes read at most
:data:`~pbp.mail.base.HEADER_BYTES` (64 KB) and
:data:`~pbp.mail.base.MAX_HEADER_FIELDS` (1,000) fields of it
(:func:`pbp.mail.base.read_head`); a longer one arrives cut, with ``truncated`` and
``long_header`` set, and nothing after it is ever fetched.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from imapclient import IMAPClient
from kits.mailstack import Dovecot

from pbp.mail.base import HEADER_BYTES, MAX_HEADER_FIELDS, Head, cut_header, read_head
from pbp.mail.imap import ImapInbox
from pbp.mail.maildir import MaildirInbox, deliver

T0 = datetime(2026, 12, 1, 17, 0, tzinfo=UTC)
GM = "gm@example.test"
PASSWORD = "gm-secret"
FROM = b"From: vasya@example.test\r\nTo: gm+tok@example.test\r\nSubject: move\r\n"


def fields(count: int, length: int = 80) -> bytes:
    """``count`` header fields of ``length`` bytes each (CRLF included)."""
    return b"".join(b"X-F%05d: " % n + b"y" * (length - 12) + b"\r\n" for n in range(count))


def mail(head: bytes, body_bytes: int = 100) -> bytes:
    """``head`` (header fields), the blank line, ``body_bytes`` of body."""
    return head + b"\r\n" + (b"x" * 78 + b"\r\n") * (body_bytes // 80 + 1)


# --- read_head: the bounds ---------------------------------------------------------------


def test_a_header_section_of_exactly_64_kb_is_read_and_one_byte_more_is_cut() -> None:
    exact = FROM + b"X-Pad: " + b"y" * (HEADER_BYTES - len(FROM) - 11) + b"\r\n\r\n"
    assert len(exact) == HEADER_BYTES == 65_536
    assert read_head(exact + b"body\r\n", whole=True) == Head(exact)
    longer = exact[:-4] + b"y\r\n\r\n"
    assert read_head(longer + b"body\r\n", whole=True) == Head(
        longer[:HEADER_BYTES], "over 65536 bytes"
    )


def test_a_header_section_of_1000_fields_is_read_and_of_1001_cut_after_1000() -> None:
    thousand = fields(MAX_HEADER_FIELDS, 40)
    assert read_head(mail(thousand), whole=True) == Head(thousand + b"\r\n")
    more = fields(MAX_HEADER_FIELDS + 1, 40)
    assert read_head(mail(more), whole=True) == Head(thousand, "over 1000 fields")


def test_continuation_lines_are_no_fields() -> None:
    folded = b"Received: from a\r\n" + b"\tby b\r\n" * 2000 + b"Subject: x\r\n"
    assert len(folded) < HEADER_BYTES
    assert read_head(mail(folded), whole=True) == Head(folded + b"\r\n")


def test_lines_skipped_before_the_first_field_count_in_the_bytes() -> None:
    """``read_letter`` skips blank lines before the first field: a 2 MB header section
    after one of them is no header-less mail to be read whole."""
    hidden = b"\r\n" + FROM + fields(25_000)
    assert read_head(mail(hidden), whole=True) == Head(hidden[:HEADER_BYTES], "over 65536 bytes")
    assert read_head(b"\xef\xbb\xbf" + FROM + b"\r\nbody", whole=True) == Head(
        b"\xef\xbb\xbf" + FROM + b"\r\n"
    )


def test_a_mail_that_is_all_header_is_read_when_whole_and_needs_more_when_not() -> None:
    assert read_head(FROM, whole=True) == Head(FROM)
    assert read_head(FROM, whole=False) is None  # the first bytes: the rest may follow
    assert read_head(FROM + fields(1000)[:HEADER_BYTES], whole=False) == Head(
        cut_header(FROM + fields(1000)), "over 65536 bytes"
    )


# --- Maildir -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "length", "long"),
    [
        (460, 4000, "over 65536 bytes"),  # a player's 1.9 MB, within the size limit
        (25_000, 60, "over 65536 bytes"),
        (1500, 40, "over 1000 fields"),  # 60 KB: within the bytes, over the fields
    ],
)
def test_maildir_a_long_header_section_within_the_size_limit_is_cut(
    tmp_path: Path, count: int, length: int, long: str
) -> None:
    raw = mail(FROM + fields(count, length))
    assert len(raw) < 2_000_000
    key = deliver(tmp_path / "inbox", raw, at=T0)

    [got] = MaildirInbox(tmp_path / "inbox").fetch_new()

    assert (got.key, got.size, got.truncated, got.long_header) == (key, len(raw), True, long)
    assert got.raw == cut_header(raw) == raw[: len(got.raw)]
    assert len(got.raw) <= HEADER_BYTES


def test_maildir_a_long_header_section_over_the_size_limit_is_cut(tmp_path: Path) -> None:
    raw = mail(FROM + fields(1500, 1400))  # a stranger's 2.1 MB
    deliver(tmp_path / "inbox", raw, at=T0)

    [got] = MaildirInbox(tmp_path / "inbox").fetch_new()

    assert (got.raw, got.size, got.truncated, got.long_header) == (
        raw[:HEADER_BYTES],
        len(raw),
        True,
        "over 65536 bytes",
    )


def test_maildir_a_mail_with_a_header_within_the_bounds_is_read_whole(tmp_path: Path) -> None:
    raw = mail(FROM + fields(MAX_HEADER_FIELDS - 3, 60), body_bytes=1_500_000)
    deliver(tmp_path / "inbox", raw, at=T0)

    [got] = MaildirInbox(tmp_path / "inbox").fetch_new()

    assert (got.raw, got.truncated, got.long_header) == (raw, False, None)


# --- IMAP (Dovecot) ----------------------------------------------------------------------


@pytest.fixture
def imap(dovecot: Dovecot) -> Iterator[tuple[Dovecot, ImapInbox]]:
    dovecot.add_user(GM, PASSWORD)
    box = ImapInbox("127.0.0.1", dovecot.port, GM, PASSWORD, timeout=10)
    yield dovecot, box
    box.close()


@pytest.fixture
def fetches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[list[int], list[str]]]:
    """Every ``UID FETCH`` the inbox sends: ``(uids, items)``."""
    sent: list[tuple[list[int], list[str]]] = []
    real = IMAPClient.fetch

    def fetch(self: IMAPClient, messages: Sequence[int], data: Sequence[str], **kw: Any) -> Any:
        sent.append((sorted(int(m) for m in messages), list(data)))
        return real(self, messages, data, **kw)

    monkeypatch.setattr(IMAPClient, "fetch", fetch)
    return sent


def test_imap_long_header_sections_are_never_fetched_past_their_first_64_kb(
    imap: tuple[Dovecot, ImapInbox], fetches: list[tuple[list[int], list[str]]]
) -> None:
    """A player's 1.9 MB of 460 fields was fetched whole (``BODY.PEEK[]``), a stranger's
    2.1 MB of 1,500 fields as its whole header section (``BODY.PEEK[HEADER]``)."""
    dovecot, inbox = imap
    player = mail(FROM + fields(460, 4000))
    stranger = mail(FROM + fields(1500, 1400))
    many = mail(FROM + fields(1500, 40))
    small = mail(FROM, body_bytes=100_000)
    for raw in (player, stranger, many, small):
        dovecot.append(GM, raw, when=T0)

    got = inbox.fetch_new()

    assert [(m.raw, m.size, m.truncated, m.long_header) for m in got] == [
        (player[:HEADER_BYTES], len(player), True, "over 65536 bytes"),
        (stranger[:HEADER_BYTES], len(stranger), True, "over 65536 bytes"),
        (cut_header(many), len(many), True, "over 1000 fields"),
        (small, len(small), False, None),
    ]
    assert len(cut_header(many)) == len(FROM) + (MAX_HEADER_FIELDS - 3) * 40
    # The first 64 KB of each, then the one mail within the bounds whole: no more.
    assert fetches == [
        ([1, 2, 3, 4], ["RFC822.SIZE", "INTERNALDATE", "BODY.PEEK[]<0.65536>"]),
        ([4], ["BODY.PEEK[]"]),
    ]
