"""The GM's levers on kept mail (:class:`KeptDesk`): list, retry, dismiss.

The same from ``pbp kept`` / ``pbp retry`` / ``pbp dismiss`` and by mail (KEPT, RETRY N,
DISMISS N to the GM's personal address, :mod:`pbp.app.gm.by_mail`); by mail a GM sees and
acts on the rows of his own games only (and on those of no game, which every GM's
digest lists: a stranger's spam).

A retry that cannot succeed as the mail is (:meth:`KeptDesk.cannot_retry`: no personal
address in it, a From that is not the seat's registered address, a sender in no game,
mail that is never applied, only its header section kept, a From the trusted server
did not authenticate, a dismissed row) is refused
whole before anything is applied: :class:`~pbp.games.core.events.LeverRefused`, whose text
(``templates/errors/kept_*.txt``) says why in one sentence and names the lever that
helps (``via`` ``"cli"``: the console's, ``"mail"``: the mail command's).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from pbp.app.budget import BudgetExceeded, cpu_budget
from pbp.app.keptview import KeptRow, kept_rows
from pbp.app.outcome import Outcome, Rerun
from pbp.app.settings import Configured, Settings
from pbp.app.shapes import KeptLine, LeverDone, Retried
from pbp.games.core.configvalues import is_email
from pbp.games.core.events import LeverRefused
from pbp.mail.base import header_section
from pbp.mail.read.authcheck import verdict
from pbp.mail.read.mime import Letter, find_tokens, read_letter
from pbp.store import STILL_KEPT, KeptMessage, Store
from pbp.store.records import HELD_REASON
from pbp.text.gmcommands import Dismiss, Kept, Retry

#: Kept reasons (the code before ``:``) of mail a retry never applies: it would be kept
#: again for the same reason (``kept_never`` {id, reason}).
NEVER_APPLIED = ("automatic or no sender", "forged_from", "wrong_confirmer", "loop", "odd_entry")
#: The start of the reason of mail kept with its header section only.
TOO_LARGE = "too_large"
#: The reason of a player's mail whose From the trusted server did not authenticate.
UNAUTHENTICATED = "unauthenticated"
#: Rows listed in one KEPT answer (the others are counted).
KEPT_SHOWN = 50


class KeptDesk(Configured):
    """Kept mail for the GM, on the store of the games configured (see the module
    docstring); a retry runs the mail through the intake again (``rerun``)."""

    def __init__(self, settings: Settings, store: Store, rerun: Rerun) -> None:
        self.settings = settings
        self.store = store
        self.rerun = rerun

    def games_of(self, game_id: str) -> set[str]:
        """The ids of every game whose GM is ``game_id``'s GM (one address runs them)."""
        gm = self.game_config(game_id).gm.lower()
        return {game.id for game in self.config.games if game.gm.lower() == gm}

    def rows(self, game_id: str | None = None) -> list[KeptRow]:
        """The kept rows (:func:`pbp.app.keptview.kept_rows`), oldest first; with ``game_id``
        those of the games of its GM and of no game."""
        rows = kept_rows(self.store, self.config)
        if game_id is None:
            return rows
        mine = self.games_of(game_id)
        return [row for row in rows if row.game is None or row.game in mine]

    def _messages(self, ids: Iterable[int], game_id: str | None) -> list[KeptMessage]:
        """The kept rows ``ids``, each once, in the order given.

        :raises LookupError: (``game_id`` None) no kept message has one of these ids.
        :raises LeverRefused: (``game_id`` given) ``kept_unknown`` {id}: none of the rows
            of :meth:`rows` has it (another GM's row is not said to exist).
        """
        mine = {row.id for row in self.rows(game_id)} if game_id is not None else None
        found: list[KeptMessage] = []
        for kept_id in dict.fromkeys(ids):
            message = self.store.kept_message(kept_id)
            if mine is not None and (message is None or kept_id not in mine):
                raise LeverRefused("kept_unknown", id=kept_id)
            if message is None:
                raise LookupError(f"no kept message {kept_id} (see pbp kept)")
            found.append(message)
        return found

    def _zone(self, message: KeptMessage) -> str:
        """The time zone ``pbp kept`` shows ``message`` in (its game's)."""
        return kept_rows(self.store, self.config, [message])[0].zone

    def cannot_retry(self, message: KeptMessage, via: str) -> LeverRefused | None:
        """Why retrying ``message`` now cannot succeed as it is, or None (it may: a
        crash after the fix, a player added to games.yaml, an unreadable mail, …).

        Codes (params ``id``, ``via`` and those listed): ``kept_dismissed`` {at, zone};
        ``kept_never`` {reason}; ``kept_headers_only`` {game, player, header (bool: its
        header section was over the bounds, not the mail over the size limit)};
        ``kept_no_token`` {game, player}: a player's mail without his personal address
        (a retry only sends him that address again); ``kept_wrong_sender`` {game,
        player, sender, registered, registrable}: the From is not the seat's registered
        address (``registrable`` False: nor can it be,
        :func:`~pbp.games.core.configvalues.is_email`: its text then names no readdress
        the lever would refuse);
        ``kept_other_address`` {game, player, seat}: a player of the game wrote to another
        seat's personal address;
        ``kept_stranger`` {sender}: a sender in no game; ``kept_unauthenticated`` {game,
        player, sender, reason}: a From the trusted server did not authenticate, and its
        verdict in the mail, which never changes after the mail arrived, still does not
        under the ``trusted_*`` settings of now (:meth:`_unauthenticated`).
        ``game``/``player`` may be None (a sender pbp does not know)."""
        base: dict[str, object] = {"id": message.id, "via": via}
        if message.dismissed_at is not None:
            at = message.dismissed_at.isoformat()
            return LeverRefused("kept_dismissed", at=at, zone=self._zone(message), **base)
        if message.held_for is not None or not message.waiting:
            return None  # applied on resume, or retried already: said by the retry itself
        code = message.reason.partition(":")[0].strip()
        if code in NEVER_APPLIED:
            return LeverRefused("kept_never", reason=code, **base)
        letter = read_letter(header_section(message.raw))
        sender = letter.from_address or ""
        seats = self.store.tokens_of(sender) if sender else []
        own = {"game": seats[0].game_id, "player": seats[0].player} if seats else {}
        if code == TOO_LARGE:
            found = {"game": None, "player": None, **own}
            # "too_large: header section over 1000 fields; …" (pbp.app.intake.senders).
            header = message.reason.partition(":")[2].strip().startswith("header section")
            return LeverRefused("kept_headers_only", **found, header=header, **base)
        if code == UNAUTHENTICATED and sender:
            reason = self._unauthenticated(letter, sender)
            if reason is not None:
                found = {"game": None, "player": None, **own}
                return LeverRefused(
                    "kept_unauthenticated", **found, sender=sender, reason=reason, **base
                )
        if code == HELD_REASON or not sender:
            return None
        tokens = find_tokens(
            letter, self.config.mail.address, "plus" if self.settings.plus else "subject_tag"
        )
        if any(self.store.confirmation(token) is not None for token in tokens):
            return None
        at_seats = [seat for token in tokens if (seat := self.store.token(token)) is not None]
        if not at_seats:  # a retry counts as of its arrival (D8): the intake's rule
            at_seats = [
                seat
                for token in tokens
                if (seat := self.store.readdressed_seat(token, sender, message.arrived)) is not None
            ]
        if at_seats:
            if any(seat.email == sender for seat in at_seats):
                return None
            seat = at_seats[0]
            if sender == self.game_config(seat.game_id).gm.lower():
                return None  # the GM at a player's address: answered where to write
            mine = next((s.player for s in seats if s.game_id == seat.game_id), None)
            if mine is not None:  # a player of the game at another's address
                return LeverRefused(
                    "kept_other_address", game=seat.game_id, player=mine, seat=seat.player, **base
                )
            return LeverRefused(
                "kept_wrong_sender",
                game=seat.game_id,
                player=seat.player,
                sender=sender,
                registered=seat.email,
                registrable=is_email(sender),
                **base,
            )
        olds = [seat for token in tokens if (seat := self.store.retired_token(token)) is not None]
        if any(old.email == sender for old in olds):
            return None  # a retired address: its holder is answered so
        if seats:
            return LeverRefused("kept_no_token", **own, **base)
        if not self.settings.registered_anywhere(self.store, sender):
            return LeverRefused("kept_stranger", sender=sender, **base)
        return None

    def _unauthenticated(self, letter: Letter, sender: str) -> str | None:
        """Why the trusted server's ``Authentication-Results`` in ``letter`` (a kept
        mail's header section) do not authenticate its From ``sender`` under the
        settings of now (:func:`pbp.mail.read.authcheck.verdict`, on the message's CPU budget), or
        None when they do (a wrong ``trusted_*`` setting corrected since) or no From is
        checked any more (``trusted_authserv_id`` unset): then a retry may apply it."""
        trusted = self.config.mail.trusted_server
        if trusted is None:
            return None
        try:
            with cpu_budget(self.config.mail.cpu_seconds_per_message):
                checked = verdict(letter.authentication_results, sender, trusted)
        except BudgetExceeded as exceeded:
            return f"checking it took {exceeded}"
        return None if checked.authenticated else checked.reason

    def retry(
        self, ids: Iterable[int], now: datetime, *, via: str, game_id: str | None = None
    ) -> list[Outcome]:
        """Process the kept rows ``ids`` again (:meth:`pbp.app.intake.Intake.retry`), in
        arrival order (rule D8), unless one of them cannot succeed as it is: then none
        is (the first such row's :meth:`cannot_retry`). ``game_id``: only rows of its
        GM's games (by mail).

        :raises LookupError: no kept message has one of these ids (``game_id`` None).
        :raises LeverRefused: ``kept_unknown`` (``game_id`` given), or :meth:`cannot_retry`.
        """
        messages = self.retry_checked(ids, via=via, game_id=game_id)
        return self.rerun.retry([message.id for message in messages], now)

    def retry_checked(
        self, ids: Iterable[int], *, via: str, game_id: str | None = None
    ) -> list[KeptMessage]:
        """The rows ``ids`` when :meth:`retry` may process them; raises as it does, and
        writes nothing (the GM's confirmation by mail is asked only for a retry that can
        succeed)."""
        messages = self._messages(ids, game_id)
        for message in messages:
            refused = self.cannot_retry(message, via)
            if refused is not None:
                raise refused
        return messages

    def dismiss(
        self, ids: Iterable[int], now: datetime, *, via: str, game_id: str | None = None
    ) -> list[int]:
        """Close the waiting kept rows ``ids`` at ``now`` without applying them: each stays
        in the store marked dismissed (``pbp kept`` shows it so), no longer waiting. All
        or none (one transaction). Returns the ids.

        :raises LookupError: no kept message has one of these ids (``game_id`` None).
        :raises LeverRefused: ``kept_unknown`` {id} (``game_id`` given); ``kept_dismissed``
            {id, at, zone}: dismissed already; ``kept_held`` {id, game}: held by a pause (applied
            on resume); ``kept_done`` {id, outcome}: retried already and not kept again.
        """
        with self.store.transaction():
            messages = self.dismiss_checked(ids, via=via, game_id=game_id)
            for message in messages:
                self.store.dismiss(message.id, now)
        return [message.id for message in messages]

    def dismiss_checked(
        self, ids: Iterable[int], *, via: str, game_id: str | None = None
    ) -> list[KeptMessage]:
        """The rows ``ids`` when :meth:`dismiss` may close them; raises as it does, and
        writes nothing."""
        messages = self._messages(ids, game_id)
        for message in messages:
            base: dict[str, object] = {"id": message.id, "via": via}
            if message.dismissed_at is not None:
                at = message.dismissed_at.isoformat()
                raise LeverRefused("kept_dismissed", at=at, zone=self._zone(message), **base)
            if message.held_for is not None and message.retried_at is None:
                raise LeverRefused("kept_held", game=message.held_for, **base)
            if not message.waiting:
                raise LeverRefused("kept_done", outcome=message.retry_outcome, **base)
        return messages

    def listing(self, game_id: str) -> LeverDone:
        """KEPT by mail: the rows of :meth:`rows` (``game_id``'s GM's) still waiting, at
        most :data:`KEPT_SHOWN`, oldest first, for the ``gm_result`` template:
        ``{"lever": "kept", "rows": [{id, arrived (aware), zone, sender, game, reason
        (its code), held (bool)}], "more": int (waiting, not listed), "closed": int
        (retried, resumed or dismissed)}``. A stranger's Subject is never mailed."""
        messages = {message.id: message for message in self.store.kept()}
        rows = self.rows(game_id)
        waiting = [row for row in rows if messages[row.id].waiting]
        shown = [
            KeptLine(
                id=row.id,
                arrived=messages[row.id].arrived,
                zone=row.zone,
                sender=row.sender or None,
                game=row.game,
                reason=messages[row.id].reason.partition(":")[0].strip(),
                held=messages[row.id].held_for is not None,
            )
            for row in waiting[:KEPT_SHOWN]
        ]
        return {
            "lever": "kept",
            "rows": shown,
            "more": max(0, len(waiting) - KEPT_SHOWN),
            "closed": len(rows) - len(waiting),
        }

    def by_mail(
        self, game_id: str, lever: Kept | Retry | Dismiss, *, now: datetime, via: str
    ) -> LeverDone:
        """KEPT, RETRY, DISMISS from ``game_id``'s GM at ``now``: for the ``gm_result``
        template, ``{"lever": "kept", …}`` (:meth:`listing`), ``{"lever": "retry",
        "results": [{id, outcome, kept (bool: still kept)}]}`` or ``{"lever":
        "dismiss", "ids": [...]}``. Raises as :meth:`retry` and :meth:`dismiss`."""
        match lever:
            case Kept():
                return self.listing(game_id)
            case Retry(ids):
                outcomes = self.retry(ids, now, via=via, game_id=game_id)
                results = [
                    Retried(
                        id=int(outcome.source.rpartition(":")[2]),
                        outcome=outcome.outcome,
                        kept=outcome.outcome in STILL_KEPT,
                    )
                    for outcome in outcomes
                ]
                return {"lever": "retry", "results": results}
            case Dismiss(ids):
                return {"lever": "dismiss", "ids": self.dismiss(ids, now, via=via, game_id=game_id)}
