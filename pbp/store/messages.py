"""The incoming messages processed (table ``messages``) and the mail set aside for the
GM (``kept``)."""

from __future__ import annotations

from collections.abc import Collection
from datetime import datetime

from pbp.store.base import Tables
from pbp.store.records import KeptMessage, MessageOutcome, from_iso, to_iso

#: A row of ``MessagesMixin._KEPT``, column by column (SQLite's rows are untyped).
_KeptRow = tuple[int, str, str, str, bytes, str | None, str | None, str | None, str | None]


class MessagesMixin(Tables):
    """Every incoming message ever processed, by source key and Message-ID, and the
    messages kept: unreadable, automatic, crashed, or held by a pause (rule D8)."""

    def seen(self, source: str) -> bool:
        """True when the message with this source key was already processed."""
        row = self._db.execute("SELECT 1 FROM messages WHERE source = ?", (source,)).fetchone()
        return row is not None

    def record_message(
        self,
        source: str,
        *,
        message_id: str | None,
        arrived: datetime,
        processed_at: datetime,
        outcome: str,
        game_id: str | None = None,
        player: str | None = None,
        note: str | None = None,
        content: str | None = None,
        replay_of: int | None = None,
    ) -> None:
        """Mark an incoming message processed (inside the transaction of its effects);
        ``content``: a digest of its text (:func:`pbp.app.intake.text_digest`);
        ``replay_of``: the kept id of the held mail this message replays on resume
        (rule D8; a held mail is replayed once: :class:`sqlite3.IntegrityError` for a
        second)."""
        self._db.execute(
            "INSERT INTO messages (source, message_id, arrived, processed_at, outcome, game_id, "
            "player, note, content, replay_of) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                source,
                message_id,
                to_iso(arrived),
                to_iso(processed_at),
                outcome,
                game_id,
                player,
                note,
                content,
                replay_of,
            ),
        )

    def message_id_seen(
        self,
        message_id: str,
        game_id: str | None = None,
        player: str | None = None,
        *,
        content: str | None = None,
    ) -> bool:
        """True when a message with this Message-ID (globally unique, RFC 5322 §3.6.4;
        for a mail without one, :func:`pbp.app.intake.fingerprint`) was already read as a
        player's moves or his NEW ADDRESS, a GM's commands (applied, refused or waiting
        for his confirmation), or held by a pause (unless its replay on resume crashed;
        not when it was refused as
        to the wrong address, or crashed: the same mail may then come again, rightly
        addressed); with ``game_id`` and ``player``, as that player's mail in that game
        (a broken client's Message-ID reused by another player's mail is no copy); with
        ``content``, with that digest of its text too (:func:`pbp.app.intake.text_digest`:
        a different mail under a reused Message-ID is no copy; a row an older version
        wrote without a digest matches any)."""
        query = (
            "SELECT 1 FROM messages WHERE message_id = ? AND outcome IN "
            "('applied', 'partly_applied', 'refused', 'status', 'gm_applied', "
            "'gm_refused', 'gm_pending', 'paused', 'new_address')"
            # A held mail whose replay on resume crashed was never applied: it is no
            # copy of itself when `pbp retry` applies it.
            " AND NOT (outcome = 'paused' AND EXISTS (SELECT 1 FROM kept WHERE "
            "kept.source = messages.source AND kept.held_for IS NOT NULL "
            "AND kept.retry_outcome = 'error'))"
        )
        args: list[object] = [message_id]
        if content is not None:
            query += " AND (content IS NULL OR content = ?)"
            args.append(content)
        if game_id is not None and player is not None:
            query += " AND game_id = ? AND player = ?"
            args += [game_id, player]
        row = self._db.execute(query, args).fetchone()
        return row is not None

    def last_arrival(self) -> datetime | None:
        """The latest arrival of any message processed (aware UTC), None when none was:
        where ``pbp lost`` starts looking for mail done on the server but not here."""
        row = self._db.execute("SELECT MAX(arrived) FROM messages").fetchone()
        return from_iso(row[0]) if row and row[0] else None

    def processed(self, source: str, identity: str) -> bool:
        """True when a message with this source key, or with this identity (its
        Message-ID, else :func:`pbp.app.intake.fingerprint`: the same mail in a renumbered
        mailbox), was processed, whatever came of it (``pbp lost``)."""
        row = self._db.execute(
            "SELECT 1 FROM messages WHERE source = ? UNION ALL "
            "SELECT 1 FROM messages WHERE message_id = ? LIMIT 1",
            (source, identity),
        ).fetchone()
        return row is not None

    def message_outcomes(self) -> list[MessageOutcome]:
        """What came of every processed message, in processing order."""
        rows = self._db.execute(
            "SELECT source, outcome, note, replay_of FROM messages ORDER BY rowid"
        )
        return [MessageOutcome(r[0], r[1], r[2], r[3]) for r in rows]

    def replay_outcomes(self) -> dict[int, str]:
        """``{kept id: outcome}`` of every held mail replayed on resume (rule D8), one
        indexed query."""
        rows = self._db.execute(
            "SELECT replay_of, outcome FROM messages WHERE replay_of IS NOT NULL"
        )
        return {int(r[0]): r[1] for r in rows}

    def keep(
        self,
        source: str,
        arrived: datetime,
        reason: str,
        raw: bytes,
        now: datetime,
        *,
        held_for: str | None = None,
    ) -> int:
        """Set a message aside for the GM; returns its kept id. ``held_for``: the game
        whose pause holds it until the resume (with ``reason``
        :data:`~pbp.store.records.HELD_REASON`)."""
        cursor = self._db.execute(
            "INSERT INTO kept (source, arrived, reason, raw, kept_at, held_for) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (source, to_iso(arrived), reason, raw, to_iso(now), held_for),
        )
        return int(cursor.lastrowid or 0)

    _KEPT = (
        "SELECT id, source, arrived, reason, raw, retried_at, retry_outcome, held_for, "
        "dismissed_at FROM kept "
    )

    @staticmethod
    def _kept(r: _KeptRow) -> KeptMessage:
        retried = from_iso(r[5]) if r[5] else None
        dismissed = from_iso(r[8]) if r[8] else None
        return KeptMessage(
            r[0], r[1], from_iso(r[2]), r[3], bytes(r[4]), retried, r[6], r[7], dismissed
        )

    def kept(self) -> list[KeptMessage]:
        """Every message set aside, oldest first."""
        return [self._kept(r) for r in self._db.execute(self._KEPT + "ORDER BY id")]

    def kept_by_id(self, ids: Collection[int]) -> dict[int, KeptMessage]:
        """``{id: KeptMessage}`` of the kept messages among ``ids`` (an unknown id is
        left out); one indexed query (the digest asks for its at most 50 lines)."""
        if not ids:
            return {}
        marks = ", ".join("?" * len(ids))
        rows = self._db.execute(self._KEPT + f"WHERE id IN ({marks})", tuple(ids))
        return {kept.id: kept for kept in map(self._kept, rows)}

    def held(self, game_id: str) -> list[KeptMessage]:
        """The mail held by ``game_id``'s pause and not yet replayed (no message row
        with its ``replay_of``), oldest first (indexed queries: a round never loads
        every kept mail, whatever strangers sent)."""
        rows = self._db.execute(
            self._KEPT + "WHERE held_for = ? AND NOT EXISTS "
            "(SELECT 1 FROM messages WHERE messages.replay_of = kept.id) ORDER BY id",
            (game_id,),
        )
        return [self._kept(r) for r in rows]

    def holding_games(self) -> set[str]:
        """The ids of the games that hold mail not yet replayed (:meth:`held` is not
        empty for exactly these), in one query on the ``kept_by_held_for`` index: a
        round with nothing held asks nothing of each game."""
        rows = self._db.execute(
            "SELECT DISTINCT held_for FROM kept WHERE held_for IS NOT NULL AND NOT EXISTS "
            "(SELECT 1 FROM messages WHERE messages.replay_of = kept.id)"
        )
        return {str(r[0]) for r in rows}

    def kept_message(self, kept_id: int) -> KeptMessage | None:
        """One kept message by its id (``pbp kept``), or None."""
        row = self._db.execute(self._KEPT + "WHERE id = ?", (kept_id,)).fetchone()
        return self._kept(row) if row else None

    def last_kept(self, source: str) -> KeptMessage | None:
        """The newest kept row with this source key, or None."""
        row = self._db.execute(
            self._KEPT + "WHERE source = ? ORDER BY id DESC LIMIT 1", (source,)
        ).fetchone()
        return self._kept(row) if row else None

    def mark_resumed(self, kept_id: int, now: datetime, outcome: str) -> None:
        """Record that the held mail ``kept_id`` was applied on resume, and what came of
        it (in the replay's transaction; once: a later call changes nothing)."""
        self._db.execute(
            "UPDATE kept SET retried_at = ?, retry_outcome = ? "
            "WHERE id = ? AND held_for IS NOT NULL AND retried_at IS NULL",
            (to_iso(now), outcome, kept_id),
        )

    def is_kept(self, source: str) -> bool:
        """True when the message with this source key was set aside."""
        row = self._db.execute("SELECT 1 FROM kept WHERE source = ?", (source,)).fetchone()
        return row is not None

    def mark_retried(self, kept_id: int, now: datetime, outcome: str) -> None:
        """Record that ``pbp retry`` processed a kept message (in its transaction)."""
        self._db.execute(
            "UPDATE kept SET retried_at = ?, retry_outcome = ? WHERE id = ?",
            (to_iso(now), outcome, kept_id),
        )

    def dismiss(self, kept_id: int, now: datetime) -> None:
        """Close the kept message ``kept_id`` without applying it (``pbp dismiss``,
        DISMISS by mail): the row stays, marked with ``now`` (aware), no longer waiting."""
        self._db.execute("UPDATE kept SET dismissed_at = ? WHERE id = ?", (to_iso(now), kept_id))

    def note_kept_error(self, kept_id: int, reason: str) -> None:
        """A retry crashed again: the kept message waits with this new reason."""
        self._db.execute("UPDATE kept SET reason = ? WHERE id = ?", (reason, kept_id))
