"""Bodies read in a child process that is killed at its budget (issue 12 item 1): even
one long call into C (a regular expression gone quadratic) cannot hold up later mail."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest

from pbp.budget import BudgetExceeded
from pbp.parse import mime
from pbp.reader import ChildReader

MAIL = (
    "From: Кросс <cross@example.test>\r\nTo: gm+k3x9@example.test\r\nSubject: ход\r\n"
    "Content-Type: text/plain; charset=utf-8\r\n\r\nГОЛОС Петя\r\n"
).encode()


@pytest.fixture
def reader() -> Iterator[ChildReader]:
    reader = ChildReader(0.5)
    yield reader
    reader.close()


def _quadratic_c_call(raw: bytes) -> mime.Letter:
    """One call into C that takes tens of seconds (a catastrophic pattern), unless the
    message is ``MAIL``."""
    if raw != MAIL:
        re.match(r"(a*)*b", "a" * 30)
    return mime.read_letter(raw)


def test_the_child_reads_a_letter_as_read_letter_does(reader: ChildReader) -> None:
    assert reader(MAIL) == mime.read_letter(MAIL)
    assert reader(MAIL).text == "ГОЛОС Петя"


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
