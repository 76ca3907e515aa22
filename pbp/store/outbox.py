"""The outbox (table ``outbox``): every mail to send, with its stable Message-ID and
its delivery state; :mod:`pbp.app.sending` delivers it."""

from __future__ import annotations

from datetime import datetime

from pbp.store.base import Tables
from pbp.store.records import OutgoingMail, from_iso, to_iso

#: A row of the outbox as its queries select it, column by column (SQLite's rows are
#: untyped): id, message_id, recipient, raw, attempts, next_attempt_at, sent_at, failed.
_MailRow = tuple[int, str, str, bytes, int, str, str | None, str | None]


class OutboxMixin(Tables):
    """Mail queued inside the transaction that caused it, and what came of sending it."""

    def enqueue(self, message_id: str, recipient: str, raw: bytes, now: datetime) -> None:
        """Add a mail to the outbox (inside the transaction that caused it)."""
        self._db.execute(
            "INSERT INTO outbox (message_id, recipient, raw, created_at, next_attempt_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (message_id, recipient, raw, to_iso(now), to_iso(now)),
        )

    def due_mail(self, now: datetime, limit: int = 500) -> list[OutgoingMail]:
        """Unsent, not given-up mails whose next attempt is due, oldest first."""
        rows = self._db.execute(
            "SELECT id, message_id, recipient, raw, attempts, next_attempt_at, sent_at, failed "
            "FROM outbox WHERE sent_at IS NULL AND failed IS NULL AND next_attempt_at <= ? "
            "ORDER BY id LIMIT ?",
            (to_iso(now), limit),
        )
        return [self._mail(r) for r in rows]

    def outbox(self) -> list[OutgoingMail]:
        """Every mail in the outbox, oldest first (for the GM view and tests)."""
        rows = self._db.execute(
            "SELECT id, message_id, recipient, raw, attempts, next_attempt_at, sent_at, failed "
            "FROM outbox ORDER BY id"
        )
        return [self._mail(r) for r in rows]

    @staticmethod
    def _mail(r: _MailRow) -> OutgoingMail:
        return OutgoingMail(
            id=r[0],
            message_id=r[1],
            recipient=r[2],
            raw=bytes(r[3]),
            attempts=r[4],
            next_attempt_at=from_iso(r[5]),
            sent_at=from_iso(r[6]) if r[6] else None,
            failed=r[7],
        )

    def recent_mail_to(self, recipient: str, limit: int) -> list[OutgoingMail]:
        """Our last ``limit`` mails to ``recipient`` (any case), newest first, sent or
        not: what a mail of his may answer (:func:`pbp.app.answered.answered_by_header`)."""
        rows = self._db.execute(
            "SELECT id, message_id, recipient, raw, attempts, next_attempt_at, sent_at, failed "
            "FROM outbox WHERE lower(recipient) = ? ORDER BY id DESC LIMIT ?",
            (recipient.lower(), limit),
        )
        return [self._mail(r) for r in rows]

    def outgoing(self, message_id: str) -> bytes | None:
        """The raw mail we sent (or queued) with this Message-ID, or None."""
        row = self._db.execute(
            "SELECT raw FROM outbox WHERE message_id = ?", (message_id,)
        ).fetchone()
        return bytes(row[0]) if row else None

    def mark_sent(self, mail_id: int, now: datetime) -> None:
        """Record a delivered mail."""
        self._db.execute(
            "UPDATE outbox SET sent_at = ?, attempts = attempts + 1 WHERE id = ?",
            (to_iso(now), mail_id),
        )

    def mark_retry(self, mail_id: int, next_attempt_at: datetime) -> None:
        """Record a failed attempt and when to try again."""
        self._db.execute(
            "UPDATE outbox SET attempts = attempts + 1, next_attempt_at = ? WHERE id = ?",
            (to_iso(next_attempt_at), mail_id),
        )

    def mark_failed(self, mail_id: int, reason: str) -> None:
        """Give up on a mail for good."""
        self._db.execute(
            "UPDATE outbox SET attempts = attempts + 1, failed = ? WHERE id = ?",
            (reason, mail_id),
        )

    def outgoing_at(self, message_id: str) -> datetime | None:
        """When our mail with this Message-ID was sent (else queued), or None when it is
        not ours."""
        row = self._db.execute(
            "SELECT COALESCE(sent_at, created_at) FROM outbox WHERE message_id = ?",
            (message_id,),
        ).fetchone()
        return from_iso(row[0]) if row else None
