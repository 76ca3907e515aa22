"""A clock that only the code under test moves: :class:`FakeClock` (issue 35, item 7).

A wait for mail (:meth:`pbp.mail.base.Inbox.wait`) measures its timeout on a
:class:`~pbp.mail.base.WaitClock`. On this one ``monotonic()`` reads :attr:`FakeClock.now`,
which only ``sleep(s)`` (by exactly ``s``) and :meth:`FakeClock.advance` move, so a test
asserts a wait's exact length and its sleeps, the same on any machine under any load.

* :class:`FakeClock` — pass it as ``ImapInbox(…, clock=clock)``, or put it in place of a
  module's ``time`` (``monkeypatch.setattr(maildir, "time", clock)``: everything else
  it does not fake is the real :mod:`time`).
* :func:`idle_on` — IMAP IDLE on such a clock: each ``idle_check(timeout)`` really
  waits on the server's socket (up to ``timeout`` real seconds: what only the server
  shows), and when the socket stayed silent that long, moves the clock by ``timeout``.

Example::

    clock = FakeClock(0.3, lambda: deliver(inbox_path, raw))  # mail at 0.3 s
    monkeypatch.setattr(maildir, "time", clock)
    inbox.wait(10.0)
    assert clock.now == pytest.approx(0.4)  # two polls of 0.2 s
"""

from __future__ import annotations

import select
import time
from collections.abc import Callable

import pytest
from imapclient import IMAPClient


class FakeClock:
    """``monotonic()`` reads :attr:`now` (seconds from 0.0); ``sleep(s)`` moves it by
    exactly ``s`` and notes ``s`` in :attr:`sleeps`; ``at`` runs once, as soon as the
    clock reaches ``when``. Any other attribute is the real :mod:`time`'s."""

    def __init__(self, when: float = float("inf"), at: Callable[[], object] = lambda: None):
        self.now = 0.0
        self.sleeps: list[float] = []
        self.when, self.at = when, at

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float, /) -> None:
        self.sleeps.append(seconds)
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        """Move the clock by ``seconds`` (running ``at`` when it reaches ``when``)."""
        self.now += seconds
        if self.now >= self.when:
            self.when = float("inf")
            self.at()

    def __getattr__(self, name: str) -> object:
        return getattr(time, name)


def idle_on(clock: FakeClock, monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Make every IMAP IDLE of this test last, on ``clock``, the timeout it was given
    when the server said nothing in it: it waits that long on the real socket (so a
    server's announcement, BYE or end of connection ends it as it would), and only
    when the socket stayed silent is ``clock`` moved by the timeout. Returns the list
    the timeouts asked for are appended to, in order."""
    timeouts: list[float] = []
    real = IMAPClient.idle_check

    def idle_check(self: IMAPClient, timeout: float | None = None) -> list[object]:
        timeouts.append(timeout if timeout is not None else float("inf"))
        readable, _, _ = select.select([self.socket()], [], [], timeout)
        if not readable and timeout is not None:
            clock.advance(timeout)
        responses: list[object] = real(self, 0)  # what the server said, without a wait
        return responses

    monkeypatch.setattr(IMAPClient, "idle_check", idle_check)
    return timeouts
