"""The per-sender rate limit on answers, and the loop checks (issue 12, item 3).

Rate limit: at most ``max_answers_per_hour`` answers (``games.yaml``, ``mail:``) to one
address (every spelling of it, :func:`pbp.mail.read.address.rate_key`) in a *window* of one
hour that starts with the first answer after the previous window ended. The answer
after them is replaced by one "slow down" mail; from then on until the window ends the
sender's mails are still processed (moves applied), but their answers are held back
in the store and sent as one summary in the first round after the window's end
(:meth:`pbp.app.service.Service.run_once`). A check costs two indexed lookups
(``answer_windows`` by recipient), never a scan of the outbox.

Loops without RFC 3834 headers (an auto-responder that answers every mail, a
vacation notice): a mail in which pbp understood no command is not answered when

- it answers one of our mails to its sender (In-Reply-To, else a reference:
  :func:`pbp.app.answered.answered_mail`; never our mail to somebody else, whose time
  the sender would learn) sent less than :data:`QUICK_REPLY_SECONDS` before it
  arrived (an answer within seconds), or
- its sender sent the same text (:func:`body_hash`) at least
  :data:`SAME_BODY_ANSWERED` times already in the hour before it arrived.

A mail with a command pbp understood (``STATUS`` forty times) is never a loop: it is
answered (within the rate limit).
"""

from __future__ import annotations

import enum
import hashlib
from datetime import datetime, timedelta

from pbp.app.answered import answered_mail
from pbp.mail.read.address import rate_key
from pbp.mail.read.mime import Letter
from pbp.store import Store

#: The length of a rate-limit window.
WINDOW = timedelta(hours=1)
#: A mail without a command that answers ours within this many seconds is a loop.
QUICK_REPLY_SECONDS = 60
#: A mail without a command whose text its sender sent this often in the last
#: :data:`SAME_BODY_WITHIN` is a loop (so the third identical one is not answered).
SAME_BODY_ANSWERED = 2
SAME_BODY_WITHIN = timedelta(hours=1)


class Admit(enum.Enum):
    """What :meth:`AnswerLimit.admit` allows for one answer."""

    ANSWER = "answer"  #: send it
    SLOW_DOWN = "slow_down"  #: send the "slow down" mail instead, hold the answer back
    DEFER = "defer"  #: hold it back for the summary


class AnswerLimit:
    """The rate limit of answers per recipient: ``per_hour`` answers in a window."""

    def __init__(self, store: Store, per_hour: int) -> None:
        self.store = store
        self.per_hour = per_hour

    def admit(self, recipient: str, now: datetime) -> tuple[Admit, datetime]:
        """Count one answer to ``recipient`` at ``now`` (aware): what to do with it, and
        the end of the recipient's window (when a held-back answer's summary is due).
        Writes the window in the caller's transaction (a rolled-back message counts
        nothing). The window is the one of every spelling of ``recipient``
        (:func:`pbp.mail.read.address.rate_key`: NFKC, case-folded, the domain as IDNA A-labels)."""
        recipient = rate_key(recipient)
        window = self.store.answer_window(recipient)
        if window is None or now >= window.started_at + WINDOW:
            self.store.set_answer_window(recipient, now, 1)
            return Admit.ANSWER, now + WINDOW
        started, answers = window.started_at, window.answers
        self.store.set_answer_window(recipient, started, answers + 1)
        if answers < self.per_hour:
            return Admit.ANSWER, started + WINDOW
        if answers == self.per_hour:
            return Admit.SLOW_DOWN, started + WINDOW
        return Admit.DEFER, started + WINDOW


def body_hash(text: str) -> str:
    """``sha256:<hex>`` of ``text`` case-folded with its whitespace runs collapsed (the
    same auto-reply with other line breaks is the same body)."""
    normal = " ".join(text.casefold().split())
    return "sha256:" + hashlib.sha256(normal.encode("utf-8", "surrogatepass")).hexdigest()


def is_loop(store: Store, letter: Letter, sender: str, text: str, arrived: datetime) -> str | None:
    """Whether a mail in which pbp understood no command is a loop (module docstring):
    ``"quick_reply"``, ``"same_body"`` or None. Remembers its text's hash (in the
    caller's transaction) either way. ``text``: the sender's own text (our quoted
    mail cut off); ``arrived``: aware."""
    answered = answered_mail(store, letter, sender)
    sent_at = store.outgoing_at(answered.message_id) if answered is not None else None
    if sent_at is not None and arrived - sent_at < timedelta(seconds=QUICK_REPLY_SECONDS):
        store.record_body(sender, body_hash(text), arrived)
        return "quick_reply"
    digest = body_hash(text)
    seen = store.count_bodies(sender, digest, arrived - SAME_BODY_WITHIN)
    store.record_body(sender, digest, arrived)
    return "same_body" if seen >= SAME_BODY_ANSWERED else None
