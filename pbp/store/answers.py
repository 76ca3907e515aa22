"""The answers owed (:mod:`pbp.app.digest`, :mod:`pbp.app.ratelimit`): the GM digest (tables
``digest``, ``digest_sent``), the rate limit (``answer_windows``,
``deferred_answers``), loops (``bodies_seen``) and once a day to a stranger
(``stranger_answers``, ``seat_stranger_answers``)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from pbp.store.base import Tables
from pbp.store.records import (
    AnswerWindow,
    DeferredAnswer,
    DigestCount,
    DigestEntry,
    DigestSent,
    Seat,
    from_iso,
    to_iso,
)


class AnswersMixin(Tables):
    """What decides whether and when a mail is answered: the GM digest's lines and
    what each GM got, rate-limit windows and held-back answers, body hashes, and the
    strangers answered."""

    def add_digest_entry(
        self,
        game_id: str | None,
        reason: str,
        kept_id: int | None,
        sender: str | None,
        arrived: datetime,
        detail: str | None,
        now: datetime,
    ) -> int:
        """Record one line of the GM digest (:mod:`pbp.app.digest`); ``game_id`` None: for
        every GM. Returns its id (ids grow: each GM's digest takes those after the last
        it got, :meth:`digest_sent`)."""
        cursor = self._db.execute(
            "INSERT INTO digest (game_id, reason, kept_id, sender, arrived, detail, added_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (game_id, reason, kept_id, sender, to_iso(arrived), detail, to_iso(now)),
        )
        return int(cursor.lastrowid or 0)

    def digest_details(self, reason: str) -> set[str]:
        """The details of every digest line with this ``reason`` (``"lost"``: the source
        keys of the lost mail the GM was told of, :mod:`pbp.app.lost`)."""
        rows = self._db.execute("SELECT detail FROM digest WHERE reason = ?", (reason,))
        return {str(r[0]) for r in rows if r[0] is not None}

    @staticmethod
    def _digest_where(after_id: int, game_ids: Sequence[str]) -> tuple[str, list[object]]:
        marks = ", ".join("?" for _ in game_ids) or "NULL"
        return f"id > ? AND (game_id IS NULL OR game_id IN ({marks}))", [after_id, *game_ids]

    def digest_counts(self, after_id: int, game_ids: Sequence[str]) -> dict[str, DigestCount]:
        """``{reason: its count}`` of the digest lines after ``after_id`` for a GM of
        ``game_ids`` (lines of those games and lines for every GM), one query."""
        where, args = self._digest_where(after_id, game_ids)
        rows = self._db.execute(
            f"SELECT reason, COUNT(*), MAX(id) FROM digest WHERE {where} GROUP BY reason", args
        )
        return {r[0]: DigestCount(int(r[1]), int(r[2])) for r in rows}

    def digest_games(self, after_id: int, game_ids: Sequence[str]) -> set[str | None]:
        """The games the digest lines after ``after_id`` for a GM of ``game_ids`` are
        about (None: a line for every GM, a stranger's outside any game), one query."""
        where, args = self._digest_where(after_id, game_ids)
        rows = self._db.execute(f"SELECT DISTINCT game_id FROM digest WHERE {where}", args)
        return {r[0] for r in rows}

    def digest_entries(
        self, after_id: int, game_ids: Sequence[str], limit: int, *, unlisted: Sequence[str] = ()
    ) -> list[DigestEntry]:
        """The first ``limit`` digest lines after ``after_id`` for a GM of ``game_ids``,
        but those of the reasons ``unlisted`` (only counted, :meth:`digest_counts`)."""
        where, args = self._digest_where(after_id, game_ids)
        if unlisted:
            where += f" AND reason NOT IN ({', '.join('?' for _ in unlisted)})"
            args += list(unlisted)
        rows = self._db.execute(
            "SELECT id, game_id, reason, kept_id, sender, arrived, detail FROM digest "
            f"WHERE {where} ORDER BY id LIMIT ?",
            (*args, limit),
        )
        return [DigestEntry(r[0], r[1], r[2], r[3], r[4], from_iso(r[5]), r[6]) for r in rows]

    def digest_sent(self, gm: str) -> DigestSent | None:
        """The last digest sent to the GM at ``gm`` (lower-case), or None."""
        row = self._db.execute(
            "SELECT gm, last_id, sent_at FROM digest_sent WHERE gm = ?", (gm,)
        ).fetchone()
        return DigestSent(row[0], int(row[1]), from_iso(row[2])) if row else None

    def digests_sent(self) -> dict[str, DigestSent]:
        """``{gm: its last digest}``: :meth:`digest_sent` of every GM, one query."""
        rows = self._db.execute("SELECT gm, last_id, sent_at FROM digest_sent")
        return {r[0]: DigestSent(r[0], int(r[1]), from_iso(r[2])) for r in rows}

    def mark_digest_sent(self, gm: str, last_id: int, now: datetime) -> None:
        """Record a digest sent to ``gm`` (inside the transaction that queues it)."""
        self._db.execute(
            "INSERT INTO digest_sent (gm, last_id, sent_at) VALUES (?, ?, ?) "
            "ON CONFLICT (gm) DO UPDATE SET last_id = excluded.last_id, sent_at = excluded.sent_at",
            (gm, last_id, to_iso(now)),
        )

    def answer_window(self, recipient: str) -> AnswerWindow | None:
        """The rate-limit window of ``recipient`` (lower-case), or None."""
        row = self._db.execute(
            "SELECT recipient, started_at, answers FROM answer_windows WHERE recipient = ?",
            (recipient,),
        ).fetchone()
        return AnswerWindow(row[0], from_iso(row[1]), int(row[2])) if row else None

    def set_answer_window(self, recipient: str, started_at: datetime, answers: int) -> None:
        """Store the rate-limit window of ``recipient`` (lower-case)."""
        self._db.execute(
            "INSERT INTO answer_windows (recipient, started_at, answers) VALUES (?, ?, ?) "
            "ON CONFLICT (recipient) DO UPDATE SET started_at = excluded.started_at, "
            "answers = excluded.answers",
            (recipient, to_iso(started_at), answers),
        )

    def defer_answer(
        self,
        recipient: str,
        game_id: str,
        player: str | None,
        reply_to: str | None,
        body: str,
        at: datetime,
        due_at: datetime,
    ) -> None:
        """Keep an answer held back by the rate limit for the summary due at ``due_at``
        (``player``: the seat it answers, None for the GM's or a stranger's mail)."""
        self._db.execute(
            "INSERT INTO deferred_answers (recipient, game_id, player, reply_to, body, at, "
            "due_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (recipient, game_id, player, reply_to, body, to_iso(at), to_iso(due_at)),
        )

    def due_summaries(self, now: datetime) -> list[str]:
        """Recipients with held-back answers whose summary is due at ``now``."""
        rows = self._db.execute(
            "SELECT DISTINCT recipient FROM deferred_answers WHERE due_at <= ? ORDER BY recipient",
            (to_iso(now),),
        )
        return [r[0] for r in rows]

    def take_deferred(self, recipient: str) -> list[DeferredAnswer]:
        """Every held-back answer to ``recipient``, oldest first, removed from the store
        (inside the transaction that queues their summary)."""
        rows = self._db.execute(
            "SELECT id, game_id, player, reply_to, body, at FROM deferred_answers "
            "WHERE recipient = ? ORDER BY id",
            (recipient,),
        ).fetchall()
        self._db.execute("DELETE FROM deferred_answers WHERE recipient = ?", (recipient,))
        return [DeferredAnswer(r[0], r[1], r[2], r[3], r[4], from_iso(r[5])) for r in rows]

    def count_bodies(self, sender: str, digest: str, since: datetime) -> int:
        """How often ``sender`` sent the body with this hash since ``since`` (an index)."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM bodies_seen WHERE sender = ? AND digest = ? AND at > ?",
            (sender, digest, to_iso(since)),
        ).fetchone()
        return int(row[0])

    def record_body(self, sender: str, digest: str, at: datetime) -> None:
        """Remember that ``sender`` sent a body with this hash at ``at`` (loop check)."""
        self._db.execute(
            "INSERT INTO bodies_seen (sender, digest, at) VALUES (?, ?, ?)",
            (sender, digest, to_iso(at)),
        )

    def stranger_answered(self, sender: str) -> datetime | None:
        """When ``sender`` (not a player) was last answered, or None."""
        row = self._db.execute(
            "SELECT answered_at FROM stranger_answers WHERE sender = ?", (sender,)
        ).fetchone()
        return from_iso(row[0]) if row else None

    def record_stranger_answer(self, sender: str, now: datetime, seat: Seat | None = None) -> None:
        """Remember that ``sender`` (not a player) was answered at ``now``, for mail to
        the personal address of ``seat`` (a player's or the GM's) when given."""
        self._db.execute(
            "INSERT INTO stranger_answers (sender, answered_at) VALUES (?, ?) "
            "ON CONFLICT (sender) DO UPDATE SET answered_at = excluded.answered_at",
            (sender, to_iso(now)),
        )
        if seat is not None:
            self._db.execute(
                "INSERT INTO seat_stranger_answers (game_id, player, answered_at) VALUES (?, ?, ?)",
                (seat.game_id, seat.player, to_iso(now)),
            )

    def stranger_answers_at_seat(self, game_id: str, player: str, since: datetime) -> int:
        """How many strangers were answered since ``since`` for mail to the personal
        address of ``player`` (or the GM seat) in ``game_id`` (an index)."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM seat_stranger_answers "
            "WHERE game_id = ? AND player = ? AND answered_at > ?",
            (game_id, player, to_iso(since)),
        ).fetchone()
        return int(row[0])

    def forget_answers_before(self, moment: datetime) -> None:
        """Drop loop-check hashes, rate-limit windows and once-a-day marks older than
        ``moment`` (they decide nothing any more)."""
        at = to_iso(moment)
        self._db.execute("DELETE FROM bodies_seen WHERE at < ?", (at,))
        self._db.execute("DELETE FROM answer_windows WHERE started_at < ?", (at,))
        self._db.execute("DELETE FROM stranger_answers WHERE answered_at < ?", (at,))
        self._db.execute("DELETE FROM seat_stranger_answers WHERE answered_at < ?", (at,))
