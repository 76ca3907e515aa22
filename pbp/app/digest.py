"""The GM digest: mail kept or not answered, told to each GM once a day (issue 12, item 3).

Instead of one notice per mail (2,000 forged mails made 2,000 notices), each such
mail is one line in the store's ``digest`` table (:meth:`Digest.add`), and each GM
gets one mail listing the lines new since his last digest: the count per reason,
then the first :data:`DIGEST_SHOWN` lines (kept id, arrival time in the game's zone,
sender, reason, game). It is sent by the first round
(:meth:`pbp.app.service.Service.run_once`) at or after ``digest_hour`` (``games.yaml``,
``mail:``, default 9) local time in the zone of the GM's first game, at most once a
day, and never when there is nothing new (then the next chance is the next day's
hour). A GM is one address: one digest covers all his games.

What goes in the digest and what stays a notice at once (:mod:`pbp.app.service`):

- digest: unknown senders, a stranger writing to a personal address, automatic
  mail (RFC 3834), loops, unreadable mail (its sender is told and can act), a
  stranger's mail that crashed the handler;
- a notice at once: a player's mail that crashed the handler (a bug holds his
  moves back), a player's mail to another player's personal address (a mistake
  or a token passed on, which the GM may have to settle before the deadline).

Lever mails to the GM address beyond the cap of pending confirmations (reason
``gm_capped``, :data:`COUNTED_ONLY`) are counted on one line, never listed.

A stranger's Subject is never shown (it is the attacker's text: a link or a
lure in a mail that comes from pbp); the GM sees it with ``pbp kept``. The sender
and a detail are shown without control characters, cut to a width.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from datetime import datetime, time, timedelta
from email.message import Message
from email.utils import parseaddr

from pbp.app.mailer import Mailer
from pbp.config.model import Config, Game
from pbp.mail.read.mime import Letter
from pbp.store import DigestCount, DigestEntry, KeptMessage, Store

#: Lines listed in one digest (the counts per reason cover all of them).
DIGEST_SHOWN = 50
#: Reasons only counted in a digest, never listed line by line: ``gm_capped``, the GM's
#: lever mails beyond the pending confirmations' cap (:data:`pbp.app.gm.by_mail.PENDING_CAP`):
#: a flood through a leaked GM address is one line, "N … (not asked to confirm)".
COUNTED_ONLY = ("gm_capped",)
#: Characters shown of a sender's address and of a detail.
SENDER_WIDTH = 80
DETAIL_WIDTH = 120


def inert(text: str, width: int) -> str:
    """``text`` on one line without control or format characters (Unicode category
    C: CR, LF, ESC, NUL, bidi overrides, zero-width spaces), whitespace runs made one
    space, cut to ``width`` characters (the last one ``…`` when cut)."""
    kept = "".join(c if unicodedata.category(c)[0] != "C" else " " for c in text)
    line = " ".join(kept.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def sender_of(mail: Letter | Message | str | None) -> str | None:
    """The sender's address of a read letter, of a mail's headers (its From addr-spec,
    lower-cased) or given as it is; None when there is none."""
    if mail is None or isinstance(mail, str):
        return mail
    if isinstance(mail, Letter):
        return mail.from_address
    address = parseaddr(str(mail.get("From", "")))[1]
    return address.lower() or None


def _closed(kept: KeptMessage | None) -> str | None:
    """What the GM did with a kept mail before its digest: ``"dismissed"`` (``pbp
    dismiss``, DISMISS), ``"retried"`` (processed again and no longer kept: ``pbp
    retry``, RETRY, or replayed at a resume), None while it waits (or was not kept)."""
    if kept is None or kept.waiting:
        return None
    return "dismissed" if kept.dismissed_at is not None else "retried"


class Digest:
    """The digest of every GM of ``config``, kept in ``store``, mailed by ``mailer``;
    ``hour``: the local hour of the daily digest."""

    def __init__(self, config: Config, store: Store, mailer: Mailer, hour: int) -> None:
        self.config = config
        self.store = store
        self.mailer = mailer
        self.hour = hour
        self._gms: dict[str, list[Game]] | None = None

    def add(
        self,
        game: Game | str | None,
        reason: str,
        kept_id: int | None,
        mail: Letter | Message | str | None,
        now: datetime,
        *,
        arrived: datetime | None = None,
        detail: str | None = None,
    ) -> int:
        """Put one mail in the next digest of the GM of ``game`` (None: of every GM);
        the one call a new kept reason needs, inside the transaction that keeps it::

            kept_id = self.store.keep(source, raw.arrived, "oversized", raw.raw[:0], now)
            self.digest.add(None, "oversized", kept_id, headers, now, arrived=raw.arrived)

        ``reason``: a short code (``unknown_sender``, ``automatic``, ``loop``, …); the
        digest templates (``templates/*/common/mail/gm_digest.j2``) turn the known
        ones into words and show any other as it is, so a new reason works at once
        and gets its words by one line in each locale's template. ``kept_id``: its
        number in ``pbp kept``, None when the mail was not kept. ``mail``: the read
        :class:`~pbp.mail.read.mime.Letter`, or only its headers (an
        :class:`email.message.Message`, for a mail too large to read), or the
        sender's address, or None; only the sender is taken from it, never the
        Subject. ``arrived``: the mail's arrival (aware; default ``now``).
        ``detail``: a technical note (an error's repr), shown without control
        characters and cut. Returns the line's id.
        """
        game_id = game if isinstance(game, str) or game is None else game.id
        sender = sender_of(mail)
        return self.store.add_digest_entry(
            game_id,
            reason,
            kept_id,
            inert(sender, SENDER_WIDTH) if sender else None,
            arrived or now,
            inert(detail, DETAIL_WIDTH) if detail else None,
            now,
        )

    def gms(self) -> dict[str, list[Game]]:
        """``{GM address (lower-case): his games in games.yaml order}``."""
        if self._gms is None:
            self._gms = {}
            for game in self.config.games:
                self._gms.setdefault(game.gm.lower(), []).append(game)
        return self._gms

    def moment(self, game: Game, now: datetime) -> datetime:
        """The latest digest moment at or before ``now``: ``hour``:00 local time in the
        zone of ``game`` today, else yesterday (aware, in that zone)."""
        zone = game.zone
        local = now.astimezone(zone)
        today = datetime.combine(local.date(), time(self.hour), tzinfo=zone)
        if today <= local:
            return today
        return datetime.combine(local.date() - timedelta(days=1), time(self.hour), tzinfo=zone)

    def send_due(self, now: datetime) -> list[str]:
        """Mail every GM whose digest moment has come since it was last handled the
        lines new since his last digest (none: nothing is sent, and the moment counts
        as handled). One query when nothing is due (every round asks); the due GMs in
        one transaction. Returns the GMs mailed."""
        handled = self.store.digests_sent()
        due = [
            (gm, games)
            for gm, games in self.gms().items()
            if gm not in handled or handled[gm].sent_at < self.moment(games[0], now)
        ]
        if not due:
            return []
        mailed = []
        with self.store.transaction():
            for gm, games in due:
                first = games[0]
                last = self.store.digest_sent(gm)
                if last is not None and last.sent_at >= self.moment(first, now):
                    continue  # another process handled it meanwhile
                after = last.last_id if last else 0
                ids = [game.id for game in games]
                counts = self.store.digest_counts(after, ids)
                highest = max((count.last_id for count in counts.values()), default=after)
                if counts:
                    entries = self.store.digest_entries(
                        after, ids, DIGEST_SHOWN, unlisted=COUNTED_ONLY
                    )
                    context = self._context(first, games, counts, entries)
                    # It names the one game every line is about, else all his games.
                    about = self.store.digest_games(after, ids)
                    named = [g for g in games if g.id in about] if len(about) == 1 else games
                    self.mailer.gm(first, "gm_digest", context, now, about=named)
                    mailed.append(gm)
                self.store.mark_digest_sent(gm, highest, now)
        return mailed

    def _context(
        self,
        first: Game,
        games: list[Game],
        counts: Mapping[str, DigestCount],
        entries: list[DigestEntry],
    ) -> dict[str, object]:
        zones = {game.id: game.timezone for game in games}
        total = sum(count.count for count in counts.values())
        listed = sum(count.count for reason, count in counts.items() if reason not in COUNTED_ONLY)
        kept = self.store.kept_by_id([e.kept_id for e in entries if e.kept_id is not None])
        return {
            "total": total,
            "counts": sorted(((reason, count.count) for reason, count in counts.items())),
            "entries": [
                {
                    "kept_id": entry.kept_id,
                    "arrived": entry.arrived,
                    "zone": zones.get(entry.game_id or "", first.timezone),
                    "sender": entry.sender,
                    "reason": entry.reason,
                    "game_id": entry.game_id,
                    "detail": entry.detail,
                    "closed": _closed(kept.get(entry.kept_id) if entry.kept_id else None),
                }
                for entry in entries
            ],
            "more": max(0, listed - len(entries)),
            "games": [game.id for game in games],
        }
