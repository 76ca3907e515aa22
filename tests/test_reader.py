"""Bodies read in a child process that is killed at its budget (issue 12 item 1): even
one long call into C (a regular expression gone quadratic) cannot hold up later mail."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from pbp.app.budget import BudgetExceeded
from pbp.app.reader import ChildReader
from pbp.mail.read import mime

MAIL = (
    "From: Кросс <cross@example.test>\r\nTo: gm+k3x9@example.test\r\nSubject: ход\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n\r\nГОЛОС Петя\r\n"
).encode()


@pytest.fixture
def reader() -> Iterator[ChildReader]:
    reader = ChildReader(0.5)
    yield reader
    reader.close()


def _quadratic_c_call(raw: bytes, *, head: mime.Letter | None = None) -> mime.Letter:
    """One call into C that takes tens of seconds (a catastrophic pattern), unless the
    message is ``MAIL``."""
    if raw != MAIL:
        re.match(r"(a*)*b", "a" * 30)
    return mime.read_letter(raw, head=head)


def test_the_child_reads_a_letter_as_read_letter_does(reader: ChildReader) -> None:
    assert reader(MAIL) == mime.read_letter(MAIL)
    assert reader(MAIL).text == "ГОЛОС Петя"


def test_the_child_takes_the_header_fields_of_the_letter_sent_with_the_message(
    reader: ChildReader,
) -> None:
    """Issue 18: the header section is read once, by the daemon; the child reads the
    body (a head that is not the message's own shows that its fields are taken)."""
    head = mime.read_letter(MAIL, body=False)
    assert reader(MAIL, head=head) == mime.read_letter(MAIL)
    other = mime.Letter(from_address="someone@example.test", subject="other")
    read = reader(MAIL, head=other)
    assert (read.from_address, read.subject, read.text) == (
        "someone@example.test",
        "other",
        "ГОЛОС Петя",
    )


def test_a_read_that_overruns_its_budget_is_killed_and_the_next_read_works() -> None:
    reader = ChildReader(0.5, _quadratic_c_call)
    try:
        start = time.monotonic()
        with pytest.raises(BudgetExceeded) as caught:
            reader(b"From: x@example.test\r\n\r\nslow")
        assert caught.value.seconds == 0.5
        assert time.monotonic() - start < 10
        assert reader(MAIL).text == "ГОЛОС Петя"
    finally:
        reader.close()
