"""Mail lost by a restored backup (issue 31, item 6): done on the server, unknown here.

pbp marks a message done on the server (Maildir: moved into ``.done``; IMAP: the
keyword ``$PbpDone``) only after its result is committed to the store. When the store
is older than the mailbox (a backup made with ``pbp backup`` and copied back), the mail
processed after the backup is done on the server and missing from the store: its
moves are gone from the games. :func:`find_lost` finds it: every message done on the
server that arrived since a day before the latest arrival the store has processed
(:data:`MARGIN`; the server is asked for those only, :meth:`pbp.mail.base.Inbox.fetch_done`)
whose source key and identity (Message-ID, else fingerprint) the store has never
seen. ``pbp lost`` lists it for the GM; ``pbp lost --replay`` applies it
(:func:`replay`) in arrival order (rule D8) as ``pbp retry`` does: each message at its
arrival time, in the game day it arrived in unless that day has closed since, its
sender answered as usual, each once (its row in the store then says it was seen).
``pbp run`` looks for it at start (:func:`tell_gm`): a WARNING line and, once per
message, a mail to the GM of its game and a line in his digest.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from pbp.app.digest import Digest, inert
from pbp.app.gm.by_mail import CONFIRM_SECRET, confirmation_code
from pbp.app.mailer import Mailer
from pbp.app.message import fingerprint, source_key, text_digest
from pbp.app.outcome import Outcome
from pbp.config.model import Config
from pbp.mail.base import Inbox, RawMessage, header_section
from pbp.mail.read.mime import Letter, find_tokens, read_letter
from pbp.store import GM_SEAT, Store
from pbp.text.columns import aligned

__all__ = ["MARGIN", "LostMail", "Replaying", "find_lost", "replay", "table", "tell_gm"]


class Replaying(Protocol):
    """What lost mail uses of the service (:class:`pbp.app.service.Service` is one):
    handling one message (:func:`replay`), and its store, configuration, mailer and
    digest (:func:`tell_gm`). No part holds or imports the service itself."""

    @property
    def store(self) -> Store:
        """The store."""
        ...

    @property
    def config(self) -> Config:
        """The configuration now (a SIGHUP replaces it)."""
        ...

    @property
    def mail(self) -> Mailer:
        """The mailer, which queues the GM's ``gm_lost`` mail."""
        ...

    @property
    def digest(self) -> Digest:
        """The GM's digest, which gets a line of each lost mail."""
        ...

    def handle(
        self,
        raw: RawMessage,
        now: datetime,
        *,
        source: str | None = None,
        replies_to: frozenset[str] = frozenset(),
    ) -> Outcome:
        """Process one message in its own transaction (:meth:`pbp.app.service.Service.handle`)."""
        ...


#: How long before the latest arrival the store processed the mailbox is searched: mail
#: processed after the backup may have arrived a little before the mail in it.
MARGIN = timedelta(days=1)
#: Where the search starts when the store has processed no mail at all.
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
#: Characters shown of a sender's address and of a Subject.
SENDER_WIDTH = 40
SUBJECT_WIDTH = 40
#: The digest's reason for a lost mail (its detail: the source key).
LOST_REASON = "lost"


@dataclass(frozen=True)
class LostMail:
    """One message done on the server that the store never saw: ``raw`` as the inbox
    gives it, ``source`` its store key (``imap:UIDVALIDITY:UID``, ``maildir:NAME``),
    ``game`` the game it was for (None: none known), ``zone`` that game's time zone
    (else the first game's), ``sender`` and ``subject`` on one line, cut, ``tokens``
    the personal tokens or confirmation codes it was sent to (lower-case)."""

    raw: RawMessage
    source: str
    game: str | None
    zone: str
    sender: str
    subject: str
    tokens: tuple[str, ...] = ()

    @property
    def arrived(self) -> str:
        """``"2026-12-01 20:05 MSK"``: the arrival in :attr:`zone`, to the minute."""
        return self.raw.arrived.astimezone(ZoneInfo(self.zone)).strftime("%Y-%m-%d %H:%M %Z")


def since(store: Store) -> datetime:
    """Where the search for lost mail starts: :data:`MARGIN` before the latest arrival
    the store processed (:data:`EPOCH` when it processed none)."""
    last = store.last_arrival()
    return last - MARGIN if last is not None else EPOCH


def find_lost(store: Store, config: Config, inbox: Inbox) -> list[LostMail]:
    """The mail done on the server since :func:`since` that ``store`` never processed
    (neither its source key nor its identity), in arrival order.

    :raises Exception: whatever the inbox raises (the server cannot be reached, …).
    """
    zones = {game.id: game.timezone for game in config.games}
    default_zone = config.games[0].timezone if config.games else "UTC"
    plus = config.mail.personal_address == "plus"
    found = []
    codes: dict[str, str] = {}  # the confirmation codes the lost GM mail asks under
    for raw in inbox.fetch_done(since(store)):
        source = source_key(raw)
        letter = read_letter(header_section(raw.raw), body=False)
        identity = letter.message_id or fingerprint(raw.raw)
        if store.processed(source, identity):
            continue
        tokens = find_tokens(letter, config.mail.address, "plus" if plus else "subject_tag")
        game = _game_of(letter, tokens, codes, store, config)
        gm_seat = _gm_seat(tokens, store)
        if gm_seat is not None:  # a lever mail, perhaps: its code, for its reply's game
            text = read_letter(raw.raw).text
            secret = store.secret(CONFIRM_SECRET)
            codes[confirmation_code(secret, gm_seat, identity, text_digest(text))] = gm_seat
        found.append(
            LostMail(
                raw,
                source,
                game,
                zones.get(game or "", default_zone),
                inert(letter.from_address or "", SENDER_WIDTH),
                inert(letter.subject, SUBJECT_WIDTH),
                tuple(tokens),
            )
        )
    return found


def _gm_seat(tokens: list[str], store: Store) -> str | None:
    """The game whose GM address is one of ``tokens``, or None."""
    for token in tokens:
        seat = store.token(token)
        if seat is not None and seat.player == GM_SEAT:
            return seat.game_id
    return None


def _game_of(
    letter: Letter, tokens: list[str], codes: dict[str, str], store: Store, config: Config
) -> str | None:
    """The game of the personal address ``letter`` went to (one of ``tokens``), else of
    the confirmation code it went to (in the store, or in ``codes``: those the lost GM
    mail before it asks under), else the first game its sender plays in or runs, else
    None (as ``pbp kept`` tells a kept mail's game)."""
    for token in tokens:
        seat = store.token(token)
        if seat is not None:
            return seat.game_id
        confirmation = store.confirmation(token)
        if confirmation is not None:
            return confirmation.game_id
        if token in codes:
            return codes[token]
    sender = letter.from_address
    for game in config.games:
        if sender in {game.gm.lower(), *(p.email.lower() for p in game.players)}:
            return game.id
    return None


def replay(service: Replaying, lost: list[LostMail], now: datetime) -> list[Outcome]:
    """Apply ``lost`` (``pbp lost --replay``) in arrival order (rule D8), each as a new
    message under its own source key (:meth:`pbp.app.service.Service.handle`): at its
    arrival time, its game's deadlines due before it passed first, its sender answered;
    one already processed meanwhile is a ``duplicate``. A GM's lever mail asks for
    confirmation under the code it asked under before the loss
    (:func:`pbp.app.gm.by_mail.confirmation_code`), so his replayed reply confirms it; the
    request is not mailed again when that reply is among ``lost``."""
    ordered = sorted(lost, key=lambda mail: (mail.raw.arrived, mail.raw.key))
    replies_to = frozenset(token for mail in lost for token in mail.tokens)
    return [
        service.handle(mail.raw, now, source=mail.source, replies_to=replies_to) for mail in ordered
    ]


def tell_gm(service: Replaying, lost: list[LostMail], now: datetime) -> int:
    """Tell the GMs of the lost mail not told of before (``pbp run`` at start): one
    ``gm_lost`` mail per game with such mail, and a line of each in the GM's digest
    (reason :data:`LOST_REASON`, detail its source key: what marks it told). One
    transaction; returns how many were new."""
    store = service.store
    told = store.digest_details(LOST_REASON)
    new = [mail for mail in lost if mail.source not in told]
    if not new:
        return 0
    with store.transaction():
        for game in service.config.games:
            mine = [mail for mail in new if mail.game == game.id]
            if mine:
                context = {"count": len(mine), "first": mine[0].raw.arrived}
                service.mail.gm(game, "gm_lost", context, now)
        for mail in new:
            service.digest.add(
                mail.game,
                LOST_REASON,
                None,
                mail.sender or None,
                now,
                arrived=mail.raw.arrived,
                detail=mail.source,
            )
    return len(new)


def table(lost: list[LostMail]) -> str:
    """``lost`` as an aligned text table (columns ARRIVED, FROM, GAME, SUBJECT), a
    header line first, no trailing newline."""
    head = ("ARRIVED", "FROM", "GAME", "SUBJECT")
    lines = [head] + [
        (mail.arrived, mail.sender or "-", mail.game or "-", mail.subject or "-") for mail in lost
    ]
    return aligned(lines)
