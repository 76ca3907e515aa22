"""The seats and their personal addresses (tables ``tokens``, ``retired_tokens``)
and the GM's commands by mail waiting for his confirmation (``gm_confirmations``)."""

from __future__ import annotations

from datetime import datetime

from pbp.store.base import Tables
from pbp.store.jsontext import loads as json_loads
from pbp.store.records import GM_SEAT, Confirmation, Holder, Seat, from_iso, to_iso

#: The GM's events that change who plays a seat or from where (:mod:`pbp.app.gm`).
SEAT_EVENTS = ("gm_substitute", "gm_seat_address", "gm_readdress")


class SeatsMixin(Tables):
    """Who sits where with which personal token (and the tokens retired by a substitute
    or a new address), and the GM's confirmations."""

    def add_token(self, token: str, game_id: str, player: str, email: str) -> None:
        """Register a player's personal token."""
        self._db.execute(
            "INSERT INTO tokens (token, game_id, player, email) VALUES (?, ?, ?, ?)",
            (token, game_id, player, email.lower()),
        )

    def replace_token(self, game_id: str, player: str, token: str, email: str) -> None:
        """Give a seat a new token and address (a substitute): the old token stops
        working at once; it is remembered in ``retired_tokens`` (so its old owner
        can be told why, :meth:`retired_token`)."""
        self._db.execute(
            "INSERT OR IGNORE INTO retired_tokens (token, game_id, player, email) "
            "SELECT token, game_id, player, email FROM tokens WHERE game_id = ? AND player = ?",
            (game_id, player),
        )
        self._db.execute("DELETE FROM tokens WHERE game_id = ? AND player = ?", (game_id, player))
        self.add_token(token, game_id, player, email)

    def retired_token(self, token: str) -> Seat | None:
        """The seat whose token this was before a substitute or a new address made it
        obsolete (with the address it then had, and this ``token``), or None."""
        row = self._db.execute(
            "SELECT game_id, player, email, token FROM retired_tokens WHERE token = ?", (token,)
        ).fetchone()
        return Seat(row[0], row[1], row[2], row[3]) if row else None

    def retired_by(self, retired: Seat) -> str | None:
        """Which of the GM's levers took the address of a retired token's row
        (:meth:`retired_token`) from its seat: ``"gm_readdress"`` (``pbp readdress``:
        the seat plays on from another address) or ``"gm_seat_address"`` (``pbp
        substitute``: another player has the seat), the latest of the seat's events
        whose ``old_email`` is the row's; None when neither did (a new personal address
        only, NEW ADDRESS: the seat kept its address). One query on the ``(game_id,
        kind)`` index."""
        rows = self._db.execute(
            "SELECT kind, data FROM events WHERE game_id = ? "
            "AND kind IN ('gm_seat_address', 'gm_readdress') ORDER BY seq DESC",
            (retired.game_id,),
        )
        for kind, data in rows:
            found = json_loads(data)
            if found.get("player") == retired.player and found.get("old_email") == retired.email:
                return str(kind)
        return None

    def readdressed_seat(self, token: str, sender: str, arrived: datetime) -> Seat | None:
        """The seat now (its new token and address) of ``token`` retired by ``pbp
        readdress`` or ADDRESS (``gm_readdress``) after ``arrived``, when ``sender`` is
        the seat's registered address now; else None. Rule D8: a kept mail retried is
        applied as of its arrival, when ``token`` was the seat's own (a player who wrote
        from his right address to his personal one, kept ``wrong_sender`` because his
        registered address was wrong, counts once the GM gave the seat his address,
        although that retired the token). Live mail is never looked up so."""
        retired = self.retired_token(token)
        if retired is None:
            return None
        now = self.seat_of(retired.game_id, retired.player)
        if now is None or now.email != sender.lower():
            return None
        for at, data in self._db.execute(
            "SELECT at, data FROM events WHERE game_id = ? AND kind = 'gm_readdress' "
            "ORDER BY seq DESC",
            (retired.game_id,),
        ):
            found = json_loads(data)
            if found.get("player") == retired.player and found.get("old_email") == retired.email:
                return now if from_iso(at) > arrived else None
        return None

    def token(self, token: str) -> Seat | None:
        """The seat whose personal token this is, or None."""
        row = self._db.execute(
            "SELECT game_id, player, email, token FROM tokens WHERE token = ?", (token,)
        ).fetchone()
        return Seat(row[0], row[1], row[2], row[3]) if row else None

    def tokens_of(self, email: str) -> list[Seat]:
        """Every seat registered to ``email`` (any case), by game id."""
        rows = self._db.execute(
            "SELECT game_id, player, email, token FROM tokens WHERE email = ? ORDER BY game_id",
            (email.lower(),),
        )
        return [Seat(r[0], r[1], r[2], r[3]) for r in rows]

    def seats(self) -> dict[str, dict[str, str]]:
        """``{game id: {player: email}}`` of every started game's players (the GM's
        own seat left out), one query."""
        seats: dict[str, dict[str, str]] = {}
        for game_id, player, email in self._db.execute(
            "SELECT game_id, player, email FROM tokens WHERE player NOT LIKE '@%'"
        ):
            seats.setdefault(game_id, {})[player] = email
        return seats

    def player_token(self, game_id: str, player: str) -> str | None:
        """The token of one seat."""
        row = self._db.execute(
            "SELECT token FROM tokens WHERE game_id = ? AND player = ?", (game_id, player)
        ).fetchone()
        return str(row[0]) if row else None

    def seat_of(self, game_id: str, player: str) -> Seat | None:
        """One seat (its token and registered address), or None: :meth:`player_token`
        and :meth:`player_email` in one query."""
        row = self._db.execute(
            "SELECT game_id, player, email, token FROM tokens WHERE game_id = ? AND player = ?",
            (game_id, player),
        ).fetchone()
        return Seat(row[0], row[1], row[2], row[3]) if row else None

    def player_email(self, game_id: str, player: str) -> str | None:
        """The address a seat was registered with when the game started."""
        row = self._db.execute(
            "SELECT email FROM tokens WHERE game_id = ? AND player = ?", (game_id, player)
        ).fetchone()
        return str(row[0]) if row else None

    # --- who plays each seat, and who did -----------------------------------

    def substitutes(self, game_id: str) -> dict[str, str]:
        """``{seat: the name of who plays it now}`` for every seat of ``game_id`` the GM
        gave to a substitute (``gm_substitute``; the latest wins): the texts show
        «Дэйв (вместо Кэрол)» for it and the players' parsers read either name. One
        query on the ``(game_id, kind)`` index: ``{}`` for most games."""
        names: dict[str, str] = {}
        for (data,) in self._db.execute(
            "SELECT data FROM events WHERE game_id = ? AND kind = 'gm_substitute' ORDER BY seq",
            (game_id,),
        ):
            found = json_loads(data)
            names[str(found["player"])] = str(found["name"])
        return names

    def seat_aliases(self, game_id: str) -> dict[str, str]:
        """``{name: seat}``: :meth:`substitutes` the other way round, as the players'
        parsers take a seat's other names (:class:`pbp.text.commands.PlayerNames`)."""
        return {name: seat for seat, name in self.substitutes(game_id).items()}

    def holders(self, game_id: str) -> dict[str, list[Holder]]:
        """Every seat of a started game (the GM's left out; in no order: the game's own
        is :meth:`pbp.games.core.kind.GameKind.players`), with who played it: ``{seat:
        [Holder, …]}``, the first the player dealt it (since the game's start), the
        last the one playing it now, at his registered address; an address changed by
        ``pbp readdress`` is his last one. Read from
        the log (``gm_substitute`` then ``gm_seat_address``; ``gm_readdress``) and the
        seats. ``{}`` for a game not started."""
        started = self._db.execute(
            "SELECT started_at FROM games WHERE id = ?", (game_id,)
        ).fetchone()
        if started is None:
            return {}
        start = from_iso(started[0])
        current = {
            player: email
            for player, email in self._db.execute(
                "SELECT player, email FROM tokens WHERE game_id = ? AND player != ?",
                (game_id, GM_SEAT),
            )
        }
        marks = ", ".join("?" for _ in SEAT_EVENTS)
        history: dict[str, list[Holder]] = {}
        coming: dict[str, str] = {}  # a substitute whose address the next event gives
        for kind, at, data in self._db.execute(
            f"SELECT kind, at, data FROM events WHERE game_id = ? AND kind IN ({marks}) "
            "ORDER BY seq",
            (game_id, *SEAT_EVENTS),
        ):
            found = json_loads(data)
            seat = str(found["player"])
            if kind == "gm_substitute":
                coming[seat] = str(found["name"])
                continue
            held = history.setdefault(seat, [Holder(seat, str(found["old_email"]), start)])
            new_email = str(found["new_email"])
            if seat in coming:
                held.append(Holder(coming.pop(seat), new_email, from_iso(at)))
            else:
                held[-1] = Holder(held[-1].name, new_email, held[-1].since)
        return {
            seat: history.get(seat) or [Holder(seat, email, start)]
            for seat, email in current.items()
        }

    # --- the GM's confirmations ---------------------------------------------

    def add_confirmation(
        self, code: str, game_id: str, commands: str, now: datetime, expires_at: datetime
    ) -> None:
        """Store GM commands that wait for the GM's confirmation under the single-use
        ``code`` (``commands``: JSON text, :mod:`pbp.app.gm`). A code stored already is
        kept as it is (the same lever mail's code, :func:`pbp.app.gm.by_mail.confirmation_code`:
        confirmed once)."""
        self._db.execute(
            "INSERT OR IGNORE INTO gm_confirmations "
            "(code, game_id, commands, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
            (code, game_id, commands, to_iso(now), to_iso(expires_at)),
        )

    def confirmation(self, code: str) -> Confirmation | None:
        """The GM commands stored under ``code``, or None."""
        row = self._db.execute(
            "SELECT code, game_id, commands, created_at, expires_at, done_at, hinted_at, "
            "ended_at FROM gm_confirmations WHERE code = ?",
            (code,),
        ).fetchone()
        if row is None:
            return None
        return Confirmation(
            row[0],
            row[1],
            row[2],
            from_iso(row[3]),
            from_iso(row[4]),
            from_iso(row[5]) if row[5] else None,
            from_iso(row[6]) if row[6] else None,
            from_iso(row[7]) if row[7] else None,
        )

    def pending_confirmations(self, game_id: str, now: datetime) -> int:
        """How many confirmations of ``game_id`` wait at ``now`` (aware): neither applied
        nor ended, and not expired (:meth:`pbp.app.gm.GmMail.ask_confirmation` caps them)."""
        row = self._db.execute(
            "SELECT COUNT(*) FROM gm_confirmations WHERE game_id = ? AND expires_at > ? "
            "AND done_at IS NULL AND ended_at IS NULL",
            (game_id, to_iso(now)),
        ).fetchone()
        return int(row[0])

    def end_confirmations(self, game_id: str, now: datetime) -> int:
        """End every confirmation of ``game_id`` that waits at ``now`` (aware; as
        :meth:`pending_confirmations`): a reply to it applies nothing from then on (a new
        GM address, :meth:`pbp.app.gm.addresses.Addresses.rotate_token`). Returns how many."""
        cursor = self._db.execute(
            "UPDATE gm_confirmations SET ended_at = ? WHERE game_id = ? AND expires_at > ? "
            "AND done_at IS NULL AND ended_at IS NULL",
            (to_iso(now), game_id, to_iso(now)),
        )
        return cursor.rowcount

    def mark_hinted(self, code: str, now: datetime) -> None:
        """Record that a reply under ``code`` without the confirmation word was answered
        how to confirm (:meth:`pbp.app.gm.Confirmations.confirm`: once a code)."""
        self._db.execute(
            "UPDATE gm_confirmations SET hinted_at = ? WHERE code = ?", (to_iso(now), code)
        )

    def mark_confirmed(self, code: str, now: datetime) -> None:
        """Record that the commands under ``code`` were applied (never again)."""
        self._db.execute(
            "UPDATE gm_confirmations SET done_at = ? WHERE code = ?", (to_iso(now), code)
        )
