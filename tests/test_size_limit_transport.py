"""The size limit at the transport (issue 12, item 1): ``mail.max_message_size``.

A message larger than the limit is never read whole: the Maildir inbox reads its
header section only (at most 64 KB), the IMAP inbox fetches ``RFC822.SIZE`` with the
first 64 KB (or the limit, when smaller) and cuts the header section from them
(``BODY.PEEK[HEADER]`` when it is longer). It arrives with ``truncated=True``, its
exact ``size`` and ``raw`` equal to its header section; a smaller one is unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from imapclient import IMAPClient
from kits.mailstack import Dovecot
from kits.table import write_config

from pbp.cli import _inbox
from pbp.config.loading import load_config
from pbp.mail.base import DEFAULT_MAX_MESSAGE_SIZE, HEADER_BYTES, RawMessage, header_section
from pbp.mail.imap import ImapInbox
from pbp.mail.maildir import MaildirInbox, deliver
from pbp.mail.maildirfiles import HEADER_LIMIT

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
GM = "gm@example.test"
PASSWORD = "gm-secret"


def mail(body_bytes: int, *, eol: bytes = b"\n", subject: str = "photos") -> bytes:
    """A message whose body is ``body_bytes`` bytes of text lines."""
    head = eol.join(
        [
            b"From: netashka@example.test",
            b"To: gm+tok@example.test",
            f"Subject: {subject}".encode(),
            b"Message-ID: <big@example.test>",
            b"",
            b"",
        ]
    )
    line = b"x" * 70 + eol
    body = (line * (body_bytes // len(line) + 1))[:body_bytes]
    return head + body


HEADER_LF = (
    b"From: netashka@example.test\nTo: gm+tok@example.test\nSubject: photos\n"
    b"Message-ID: <big@example.test>\n\n"
)


def test_header_section_ends_after_the_first_empty_line() -> None:
    assert header_section(mail(500)) == HEADER_LF
    assert header_section(mail(500, eol=b"\r\n")) == HEADER_LF.replace(b"\n", b"\r\n")
    assert header_section(b"\r\nbody\r\n") == b"\r\n"  # no header fields at all
    assert header_section(b"Subject: x\n") == b"Subject: x\n"  # no body, no empty line


def test_maildir_a_message_over_the_limit_comes_with_its_header_section_and_size(
    tmp_path: Path,
) -> None:
    box = tmp_path / "inbox"
    large = mail(5000)
    small = mail(1000 - len(HEADER_LF), subject="status")  # exactly the limit
    k_large = deliver(box, large, at=T0)
    k_small = deliver(box, small, at=T0 + timedelta(seconds=1))

    got = MaildirInbox(box, max_message_size=1000).fetch_new()

    assert len(small) == 1000
    assert got == [
        RawMessage(k_large, None, T0, HEADER_LF, size=len(large), truncated=True),
        RawMessage(k_small, None, T0 + timedelta(seconds=1), small, size=1000),
    ]


def test_maildir_a_20_mb_message_under_the_default_limit_is_cut_to_its_header(
    tmp_path: Path,
) -> None:
    box = tmp_path / "inbox"
    large = mail(20_000_000, eol=b"\r\n")
    key = deliver(box, large, at=T0)

    [got] = MaildirInbox(box).fetch_new()

    assert (got.key, got.size, got.truncated, got.defect) == (key, len(large), True, None)
    assert got.raw == HEADER_LF.replace(b"\n", b"\r\n")


def test_maildir_a_header_section_longer_than_64_kb_is_cut_at_64_kb(tmp_path: Path) -> None:
    box = tmp_path / "inbox"
    huge_header = b"From: netashka@example.test\nX-Filler: " + b"y" * 100_000 + b"\n\nbody\n"
    deliver(box, huge_header, at=T0)

    [got] = MaildirInbox(box, max_message_size=50_000).fetch_new()

    assert (got.size, got.truncated, got.raw, got.long_header) == (
        len(huge_header),
        True,
        huge_header[:HEADER_LIMIT],
        "over 65536 bytes",
    )
    assert HEADER_LIMIT == 65_536


def test_max_message_size_of_games_yaml_reaches_both_inboxes(tmp_path: Path) -> None:
    path = write_config(tmp_path)
    assert load_config(path).mail.max_message_size == DEFAULT_MAX_MESSAGE_SIZE == 2_000_000
    text = path.read_text(encoding="utf-8").replace(
        "  outbox: {maildir: ./mail/outbox}\n",
        "  outbox: {maildir: ./mail/outbox}\n  max_message_size: 123456\n",
    )
    path.write_text(text, encoding="utf-8")
    maildir_inbox = _inbox(load_config(path))
    assert isinstance(maildir_inbox, MaildirInbox)
    assert maildir_inbox.max_message_size == 123456
    imap_text = text.replace(
        "  inbox: {maildir: ./mail/inbox}\n",
        "  inbox: {imap: {host: 127.0.0.1, port: 10143, username: gm@example.test,\n"
        "                 password_env: PBP_TEST_UNSET, tls: none}}\n",
    )
    path.write_text(imap_text, encoding="utf-8")
    imap_inbox = _inbox(load_config(path))
    assert isinstance(imap_inbox, ImapInbox)
    assert imap_inbox.max_message_size == 123456


# --------------------------------------------------------------- IMAP (Dovecot)


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


def test_imap_a_message_over_the_limit_is_never_downloaded_whole(
    imap: tuple[Dovecot, ImapInbox], fetches: list[tuple[list[int], list[str]]]
) -> None:
    dovecot, inbox = imap
    large = mail(3_000_000, eol=b"\r\n")
    small = mail(2000, eol=b"\r\n", subject="status")
    assert dovecot.append(GM, large, when=T0) == 1
    assert dovecot.append(GM, small, when=T0 + timedelta(minutes=1)) == 2

    got = inbox.fetch_new()

    validity = inbox.uidvalidity
    header = HEADER_LF.replace(b"\n", b"\r\n")
    assert got == [
        RawMessage("1", validity, T0, header, size=len(large), truncated=True),
        RawMessage("2", validity, T0 + timedelta(minutes=1), small, size=len(small)),
    ]
    # One command: the small one arrives whole in its first 64 KB, the header section
    # of the large one is cut from its first 64 KB (issue 18: one round trip less).
    assert fetches == [([1, 2], ["RFC822.SIZE", "INTERNALDATE", "BODY.PEEK[]<0.65536>"])]
    # Still never \Seen, and marked done like any other message.
    inbox.mark_done(["1", "2"])
    assert {m.uid: set(m.flags) - {"\\Recent"} for m in dovecot.messages(GM)} == {
        1: {"$PbpDone"},
        2: {"$PbpDone"},
    }


def test_imap_a_message_over_its_first_bytes_within_the_limit_is_fetched_whole(
    imap: tuple[Dovecot, ImapInbox], fetches: list[tuple[list[int], list[str]]]
) -> None:
    dovecot, inbox = imap
    photo = mail(200_000, eol=b"\r\n")  # over FIRST_BYTES, within the 2 MB default
    small = mail(2000, eol=b"\r\n", subject="status")
    dovecot.append(GM, photo, when=T0)
    dovecot.append(GM, small, when=T0 + timedelta(minutes=1))

    got = inbox.fetch_new()

    validity = inbox.uidvalidity
    assert got == [
        RawMessage("1", validity, T0, photo, size=len(photo)),
        RawMessage("2", validity, T0 + timedelta(minutes=1), small, size=len(small)),
    ]
    assert fetches == [
        ([1, 2], ["RFC822.SIZE", "INTERNALDATE", "BODY.PEEK[]<0.65536>"]),
        ([1], ["BODY.PEEK[]"]),
    ]


def test_imap_a_header_section_longer_than_the_first_bytes_is_fetched_alone_up_to_64_kb(
    imap: tuple[Dovecot, ImapInbox], fetches: list[tuple[list[int], list[str]]]
) -> None:
    """Issue 32: ``BODY.PEEK[HEADER]`` fetched the whole header section, however long."""
    dovecot, _ = imap
    fields = b"".join(b"X-Trace-%d: %s\r\n" % (n, b"y" * 70) for n in range(900))
    large = fields + mail(3000, eol=b"\r\n")  # 75 KB of header fields, then a body
    within = fields[:55_000] + b"\r\n" + mail(3000, eol=b"\r\n")  # 55 KB of them
    dovecot.append(GM, large, when=T0)
    dovecot.append(GM, within, when=T0 + timedelta(minutes=1))
    inbox = ImapInbox("127.0.0.1", dovecot.port, GM, PASSWORD, max_message_size=50_000)
    try:
        got = inbox.fetch_new()
    finally:
        inbox.close()
    assert [(m.raw, m.size, m.truncated, m.long_header) for m in got] == [
        (large[:HEADER_BYTES], len(large), True, "over 65536 bytes"),
        (header_section(within), len(within), True, None),
    ]
    assert fetches == [
        ([1, 2], ["RFC822.SIZE", "INTERNALDATE", "BODY.PEEK[]<0.50000>"]),
        ([1, 2], ["BODY.PEEK[HEADER]<0.65536>"]),
    ]


def test_imap_the_limit_is_inclusive_and_configurable(imap: tuple[Dovecot, ImapInbox]) -> None:
    dovecot, _ = imap
    exact = mail(5000, eol=b"\r\n")
    dovecot.append(GM, exact, when=T0)
    at_limit = ImapInbox("127.0.0.1", dovecot.port, GM, PASSWORD, max_message_size=len(exact))
    below = ImapInbox("127.0.0.1", dovecot.port, GM, PASSWORD, max_message_size=len(exact) - 1)
    try:
        [whole] = at_limit.fetch_new()
        [cut] = below.fetch_new()
    finally:
        at_limit.close()
        below.close()
    assert (whole.raw, whole.size, whole.truncated) == (exact, len(exact), False)
    assert (cut.raw, cut.size, cut.truncated) == (
        HEADER_LF.replace(b"\n", b"\r\n"),
        len(exact),
        True,
    )


def test_a_limit_of_zero_is_refused() -> None:
    with pytest.raises(ValueError, match="max_message_size must be > 0, got 0"):
        ImapInbox("127.0.0.1", 143, GM, PASSWORD, max_message_size=0)
    with pytest.raises(ValueError, match="max_message_size must be > 0, got -1"):
        MaildirInbox(Path("unused"), max_message_size=-1)
