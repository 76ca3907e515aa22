"""The games, their event logs and their reminders (tables ``games``, ``events``,
``reminders``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from pbp.games.core.events import Event, JsonMap, Visibility
from pbp.store.base import Tables
from pbp.store.jsontext import dumps as json_dumps
from pbp.store.jsontext import loads as json_loads
from pbp.store.records import GameRow, Schedule, StoredEvent, from_iso, to_iso


class GamesMixin(Tables):
    """A started game's row (its state snapshot and schedule), its event log, and the
    reminders sent before its deadlines."""

    def add_game(
        self,
        game_id: str,
        kind: str,
        seed: int,
        salt: bytes,
        state: JsonMap,
        started_at: datetime,
        deadline_at: datetime | None,
    ) -> None:
        """Record a started game. Raises sqlite3.IntegrityError if it exists."""
        self._db.execute(
            "INSERT INTO games (id, kind, seed, salt, state, started_at, deadline_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                game_id,
                kind,
                seed,
                salt,
                json_dumps(state),
                to_iso(started_at),
                to_iso(deadline_at) if deadline_at else None,
            ),
        )

    def game(self, game_id: str) -> GameRow | None:
        """The stored game, or None when it has not started."""
        row = self._db.execute(
            "SELECT id, kind, seed, salt, state, started_at, deadline_at, over "
            "FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        return GameRow(
            id=row[0],
            kind=row[1],
            seed=row[2],
            salt=bytes(row[3]),
            state=json_loads(row[4]),
            started_at=from_iso(row[5]),
            deadline_at=from_iso(row[6]) if row[6] else None,
            over=bool(row[7]),
        )

    def schedules(self) -> dict[str, Schedule]:
        """``{game id: its schedule}`` of every started game, in one query (without
        reading the state snapshots)."""
        rows = self._db.execute("SELECT id, over, deadline_at FROM games")
        return {r[0]: Schedule(bool(r[1]), from_iso(r[2]) if r[2] else None) for r in rows}

    def state_text(self, game_id: str) -> tuple[str, Schedule] | None:
        """The stored state snapshot of a game as JSON text (unparsed) and its schedule,
        in one query; None when it has not started."""
        row = self._db.execute(
            "SELECT state, over, deadline_at FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            return None
        return str(row[0]), Schedule(bool(row[1]), from_iso(row[2]) if row[2] else None)

    def schedule(self, game_id: str) -> Schedule | None:
        """The schedule of one game, None when it has not started (without reading its
        state snapshot)."""
        row = self._db.execute(
            "SELECT over, deadline_at FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if row is None:
            return None
        return Schedule(bool(row[0]), from_iso(row[1]) if row[1] else None)

    def save_state(
        self,
        game_id: str,
        state: JsonMap,
        *,
        over: bool,
        deadline_at: datetime | None,
    ) -> str:
        """Replace the state snapshot and schedule of a game; returns the snapshot's
        JSON text as stored (see :meth:`state_text`)."""
        text = json_dumps(state)
        self._db.execute(
            "UPDATE games SET state = ?, over = ?, deadline_at = ? WHERE id = ?",
            (
                text,
                int(over),
                to_iso(deadline_at) if deadline_at else None,
                game_id,
            ),
        )
        return text

    # --- events --------------------------------------------------------------

    def append_events(
        self,
        game_id: str,
        events: Sequence[Event],
        *,
        at: datetime,
        day: int | None,
        source: str | None = None,
    ) -> list[int]:
        """Append events to a game's log; returns their sequence numbers.

        The log's time never runs backwards: ``at`` earlier than the game's last event
        (a move that arrived before a deadline passed ahead of the real clock by
        ``pbp run --once --now``, or a retried or held mail applied later) is recorded
        at that event's time, so the log and the export stay in time order.
        """
        row = self._db.execute(
            "SELECT seq, at FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
        ).fetchone()
        seq = int(row[0]) if row is not None else 0
        if row is not None:
            at = max(at, from_iso(row[1]))
        numbers = []
        for event in events:
            seq += 1
            self._db.execute(
                "INSERT INTO events (game_id, seq, at, day, kind, visibility, player, data, "
                "source) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    game_id,
                    seq,
                    to_iso(at),
                    day,
                    event.kind,
                    event.visibility.value,
                    event.player,
                    json_dumps(event.data),
                    source,
                ),
            )
            numbers.append(seq)
        return numbers

    def clock(self, game_id: str) -> datetime | None:
        """The time of ``game_id``'s last event (aware, UTC), None before its start: the
        game's own clock, which never runs backwards (:meth:`append_events`)."""
        row = self._db.execute(
            "SELECT at FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1", (game_id,)
        ).fetchone()
        return from_iso(row[0]) if row is not None else None

    def events(
        self, game_id: str, *, day: int | None = None, public_only: bool = False
    ) -> list[StoredEvent]:
        """A game's events in order; optionally one game day's, optionally public only."""
        query = "SELECT seq, at, day, kind, visibility, player, data, source FROM events "
        query += "WHERE game_id = ?"
        args: list[object] = [game_id]
        if day is not None:
            query += " AND day = ?"
            args.append(day)
        if public_only:
            query += " AND visibility = ?"
            args.append(Visibility.PUBLIC.value)
        query += " ORDER BY seq"
        return [
            StoredEvent(
                seq=r[0],
                at=from_iso(r[1]),
                day=r[2],
                event=Event(r[3], Visibility(r[4]), json_loads(r[6]), player=r[5]),
                source=r[7],
            )
            for r in self._db.execute(query, args)
        ]

    def last_seq(self, game_id: str, kinds: Sequence[str]) -> int | None:
        """The ``seq`` of the latest event of ``game_id`` whose kind is one of
        ``kinds``, or None: :meth:`last_event` without reading the event's data."""
        marks = ", ".join("?" for _ in kinds)
        row = self._db.execute(
            f"SELECT seq FROM events WHERE game_id = ? AND kind IN ({marks}) "
            "ORDER BY +seq DESC LIMIT 1",
            (game_id, *kinds),
        ).fetchone()
        return int(row[0]) if row is not None else None

    def last_event(self, game_id: str, kinds: Sequence[str]) -> StoredEvent | None:
        """The latest event of ``game_id`` whose kind is one of ``kinds``, or None."""
        marks = ", ".join("?" for _ in kinds)
        row = self._db.execute(
            "SELECT seq, at, day, kind, visibility, player, data, source FROM events "
            # "+seq": search the (game_id, kind) index and sort the few hits, rather
            # than walk the game's whole log backwards (a move's cost would grow).
            f"WHERE game_id = ? AND kind IN ({marks}) ORDER BY +seq DESC LIMIT 1",
            (game_id, *kinds),
        ).fetchone()
        if row is None:
            return None
        return StoredEvent(
            seq=row[0],
            at=from_iso(row[1]),
            day=row[2],
            event=Event(row[3], Visibility(row[4]), json_loads(row[6]), player=row[5]),
            source=row[7],
        )

    # --- reminders -----------------------------------------------------------

    def record_post(
        self, game_id: str, post: str, period: int | None, texts: Mapping[str, str]
    ) -> None:
        """Keep the text of a public post as it was at its moment (rule P1), one per
        format (``texts``: ``{"bbcode": …, "markdown": …}``); ``period`` is the day,
        turn or night the post is rendered with, None for one without (the opening,
        the final). The first record of a moment stays: what happens after never
        changes it."""
        self._db.executemany(
            "INSERT OR IGNORE INTO posts (game_id, post, period, fmt, text) VALUES (?, ?, ?, ?, ?)",
            [(game_id, post, _period(period), fmt, text) for fmt, text in texts.items()],
        )

    def recorded_post(self, game_id: str, post: str, period: int | None, fmt: str) -> str | None:
        """The text :meth:`record_post` kept for that post and format, or None."""
        row = self._db.execute(
            "SELECT text FROM posts WHERE game_id = ? AND post = ? AND period = ? AND fmt = ?",
            (game_id, post, _period(period), fmt),
        ).fetchone()
        return None if row is None else str(row[0])

    def reminder_sent(self, game_id: str, due_at: datetime) -> bool:
        """True when the reminder due at ``due_at`` was already sent."""
        row = self._db.execute(
            "SELECT 1 FROM reminders WHERE game_id = ? AND due_at = ?", (game_id, to_iso(due_at))
        ).fetchone()
        return row is not None

    def record_reminder(self, game_id: str, due_at: datetime) -> None:
        """Remember that the reminder due at ``due_at`` went out."""
        self._db.execute(
            "INSERT INTO reminders (game_id, due_at) VALUES (?, ?)", (game_id, to_iso(due_at))
        )


def _period(period: int | None) -> int:
    """The ``posts.period`` of a post: its number, -1 for one without."""
    return -1 if period is None else period
