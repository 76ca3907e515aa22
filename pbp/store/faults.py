"""Crash points for the crash tests (issue 6): ``PBP_CRASH_AT=STEP:N``.

The shell calls :func:`crash_point` at each named step of processing a message
or sending a mail. When the environment variable ``PBP_CRASH_AT`` names that
step, its ``N``-th occurrence in this process (1-based, default 1) writes one
line to stderr and sends the process SIGKILL, exactly what an OOM kill or a
power cut looks like to the store and the servers. Unset (always, outside the
tests), it costs one dictionary look-up.

Steps, in the order one message goes through them:

``fetched``
    the inbox returned the waiting messages; nothing is applied yet
``commit``
    inside a store transaction, just before ``COMMIT`` (the transaction is lost)
``committed``
    a message's transaction committed; the mailbox not yet told
``marked``
    the message is marked done in the mailbox
``sent``
    the SMTP server accepted a mail; the outbox does not know it yet
``recorded``
    the outbox recorded the mail as sent
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["ENV", "STEPS", "crash_point"]

ENV = "PBP_CRASH_AT"
STEPS = ("fetched", "commit", "committed", "marked", "sent", "recorded")

_reached: dict[str, int] = {}


def crash_point(step: str) -> None:
    """SIGKILL this process when ``$PBP_CRASH_AT`` is ``step:N`` and ``step`` is reached
    for the N-th time; otherwise do nothing.

    :raises ValueError: ``step`` is not one of :data:`STEPS` (a typo in the shell).
    """
    if step not in STEPS:
        raise ValueError(f"unknown crash point {step!r}; known: {', '.join(STEPS)}")
    spec = os.environ.get(ENV)
    if not spec:
        return
    name, _, count = spec.partition(":")
    if name != step:
        return
    _reached[step] = _reached.get(step, 0) + 1
    if _reached[step] >= int(count or "1"):
        sys.stderr.write(f"pbp: {ENV}={spec}: SIGKILL at {step}\n")
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGKILL)
