"""What ``pbp kept`` shows of each mail kept aside for the GM: a readable row.

A kept mail is stored as its raw bytes and a reason code (``"unknown_sender"``,
``"too_large: 3,100,000 bytes"``, ``"paused"`` with the game it is held for …).
:func:`kept_rows` reads each one's header section again (never its body: a
stranger's mail may be hostile; and only the few fields a row shows, each cut:
:func:`row_header`) and gives the GM what he needs to decide: when it
came (in the game's time zone, to the minute), from whom, for which game, its
Subject (on one line, control characters removed, cut), the reason in words, and
what became of it (waiting, retried, resumed).

Pure but for the store's reads; the CLI lays the rows out (:func:`table`) or prints
them as JSON.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Literal
from zoneinfo import ZoneInfo

from pbp.app.digest import inert
from pbp.config.model import Config
from pbp.mail.base import header_section
from pbp.mail.read.mime import Letter, find_tokens, read_letter
from pbp.store import HELD_REASON, KeptMessage, Store
from pbp.text.columns import aligned
from pbp.text.timetext import cli_time

__all__ = ["KeptRow", "explain", "kept_rows", "reason_words", "row_header", "table"]

#: Characters shown of a sender's address and of a Subject.
SENDER_WIDTH = 40
SUBJECT_WIDTH = 40

#: Each reason code (the part of a stored reason before ``:``) in words.
REASONS = {
    "unknown_sender": "sender in no game (not answered)",
    "wrong_sender": "sent to someone else's personal address",
    "wrong_confirmer": "a GM confirmation from another address",
    "automatic or no sender": "automatic mail: bounce, auto-reply, list (not answered)",
    "loop": "auto-responder loop (not answered)",
    "unreadable": "could not be read (the sender was told)",
    "odd_entry": "no mail (a link, directory, FIFO…): never opened, nobody answered",
    "error": "crashed the program (retry after the fix)",
    "too_large": "over the size limit, or a header section over its limits: only its "
    "headers were kept",
    "forged_from": (
        "a From that names no single sender, or an address pbp could not answer exactly "
        "as written (not answered)"
    ),
    "unauthenticated": "its From was not authenticated (not applied)",
    "paused": "held while the game was paused",
}


#: What the GM can do about a kept mail of each reason code (the console commands; by
#: mail the same levers are RETRY, DISMISS, ACT, ADDRESS). ``pbp kept --explain`` prints
#: this table with :data:`REASONS`; the README's table says the same.
ACTIONS = {
    "unknown_sender": "a stranger's: pbp dismiss ID. A player at an address pbp does not "
    "know: enter his moves with pbp act GAME PLAYER '...' (pbp readdress GAME PLAYER "
    "--email NEW if it is his new address)",
    "wrong_sender": "the player at a new address: pbp readdress GAME PLAYER --email NEW "
    "(an ASCII one: pbp registers no other), then pbp retry ID; a move for that player: "
    "pbp act GAME PLAYER '...'; else pbp dismiss ID",
    "wrong_confirmer": "never applied; if your GM address leaked: pbp rotate-token GAME "
    "--gm; then pbp dismiss ID",
    "automatic or no sender": "nothing to apply (a bounce may mean a player's address is "
    "wrong: pbp readdress); pbp dismiss ID",
    "loop": "nothing to apply: pbp dismiss ID",
    "unreadable": "the sender was asked to send it again as plain text; or enter his "
    "moves with pbp act GAME PLAYER '...'; then pbp dismiss ID",
    "odd_entry": "remove the entry from the Maildir folder; pbp dismiss ID",
    "error": "after the fix (a pbp update): pbp retry ID",
    "too_large": "the sender was told to send a shorter mail; or enter his moves with pbp "
    "act GAME PLAYER '...'; then pbp dismiss ID",
    "forged_from": "nothing to apply: pbp dismiss ID",
    "unauthenticated": "ask the player to send it again from his own mailbox, or, once he "
    "has told you he wrote it, enter its moves with pbp act GAME PLAYER '...'; then pbp "
    "dismiss ID (the server's verdict in a mail never changes: pbp retry ID helps only "
    "after a wrong trusted_* setting was corrected)",
    "paused": "applied by itself on pbp resume GAME, in arrival order",
}


def explain() -> str:
    """Every kept reason code with its words and what the GM can do (:data:`REASONS`,
    :data:`ACTIONS`), one block per code, no trailing newline (``pbp kept --explain``)."""
    blocks = [f"{code}\n  {REASONS[code]}\n  what to do: {ACTIONS[code]}" for code in REASONS]
    return "\n\n".join(blocks)


def reason_words(reason: str, held_for: str | None = None) -> str:
    """The stored ``reason`` in words, with its detail: ``"unreadable: no text part"`` →
    ``"could not be read (the sender was told): no text part"``; mail held for the
    game ``held_for`` → ``"held while the game was paused: exler-1"``; an unknown code
    as it is."""
    if held_for is not None:
        return f"{REASONS[HELD_REASON]}: {held_for}"
    code, sep, detail = reason.partition(":")
    words = REASONS.get(code.strip())
    if words is None:
        return reason
    return f"{words}: {detail.strip()}" if sep and detail.strip() else words


@dataclass(frozen=True)
class KeptRow:
    """One kept mail as ``pbp kept`` shows it.

    ``arrived``: ISO 8601 in ``zone`` to the minute (``"2026-12-01T20:05+03:00"``);
    ``sender``, ``subject``: one line each, cut (``""`` when there is none);
    ``game``: the game id it was for, or None; ``reason``: the stored code (for mail
    held by a pause ``"paused:GAME"``, as before the store said ``held_for`` apart),
    ``reason_text``: in words; ``status``: ``"waiting"``, ``"waiting for resume"``,
    ``"retried 2026-12-01 21:03 MSK: OUTCOME"`` (local time, :func:`pbp.text.timetext.cli_time`;
    ``(still kept)`` when kept again), ``"resumed: OUTCOME"`` or ``"dismissed 2026-12-01
    21:03 MSK"``.
    """

    id: int
    arrived: str
    zone: str
    sender: str
    game: str | None
    subject: str
    reason: str
    reason_text: str
    status: str
    source: str

    def as_json(self) -> dict[str, object]:
        """The row as a JSON object (``--json``)."""
        return asdict(self)


class _Games:
    """Which game a kept mail was for, for one :func:`kept_rows` call: each personal
    token's seat and each sender's first game are looked up once per call (many kept
    mails of one sender, or naming the same address, cost one lookup)."""

    def __init__(self, store: Store, config: Config) -> None:
        self.store = store
        self.address = config.mail.address
        self.mode: Literal["plus", "subject_tag"] = (
            "plus" if config.mail.personal_address == "plus" else "subject_tag"
        )
        self.seats: dict[str, str | None] = {}
        self.senders: dict[str, str] = {}
        for game in reversed(config.games):  # the first game wins
            for email in (game.gm, *(p.email for p in game.players)):
                self.senders[email.lower()] = game.id

    def of(self, message: KeptMessage, letter: Letter | None) -> str | None:
        """The game ``message`` was for: the paused game it was held for, the game of a
        personal address it was sent to (:func:`find_tokens`: at most its first
        :data:`~pbp.mail.read.mime.MAX_TOKENS`), or the first game its sender plays in.
        ``letter``: its header section read (None: nothing kept of it)."""
        if message.held_for is not None:
            return message.held_for
        if letter is None:
            return None
        for token in find_tokens(letter, self.address, self.mode):
            if token not in self.seats:
                # A token retired since (a readdress, a substitute) still names its game.
                seat = self.store.token(token) or self.store.retired_token(token)
                self.seats[token] = seat.game_id if seat is not None else None
            if self.seats[token] is not None:
                return self.seats[token]
        return self.senders.get(letter.from_address or "")


#: A line end, then the start of a header field a row is read from (who sent it, its
#: Subject, its recipients; a continuation line starts with white space). Searched
#: from one line end to the next, not at every byte as ``^`` with ``re.M`` would be.
_ROW_FIELD = re.compile(rb"\n(?:from|subject|delivered-to|x-original-to|to|cc)[ \t]*:", re.I)
#: The end of a header field: a line end not followed by a continuation line.
_FIELD_END = re.compile(rb"\n(?![ \t])")
#: Bytes read of each field of a row (whole lines of a folded field: a real one is far
#: shorter; a stranger's ``To`` of thousands of ``gm+random@`` recipients would be
#: parsed for each row of every STATUS, KEPT and ``pbp kept``).
ROW_FIELD_BYTES = 1024


def row_header(raw: bytes) -> bytes:
    """What a row reads of ``raw``'s header section (:func:`header_section`): its From,
    Subject, Delivered-To, X-Original-To, To and Cc fields, in their order, each cut
    after its last whole line within :data:`ROW_FIELD_BYTES`, then an empty line.

    >>> row_header(b"Received: x\\r\\nFrom: a@example.test\\r\\nTo: b@example.test,\\r\\n"
    ...            b" c@example.test\\r\\n\\r\\nbody")
    b'From: a@example.test\\r\\nTo: b@example.test,\\r\\n c@example.test\\r\\n\\r\\n'
    """
    head = b"\n" + header_section(raw)
    fields: list[bytes] = []
    for found in _ROW_FIELD.finditer(head):
        at = found.start() + 1
        window = head[at : at + ROW_FIELD_BYTES]
        end = _FIELD_END.search(window)
        if end is not None:
            fields.append(window[: end.end()])
        elif (cut := window.rfind(b"\n")) >= 0:
            fields.append(window[: cut + 1])
        else:
            fields.append(window.rstrip(b"\r") + b"\r\n")
    return b"".join(fields) + b"\r\n"


def _status(message: KeptMessage, resumed: dict[int, str], zone: ZoneInfo) -> str:
    """``resumed``: ``{kept id: outcome}`` of the held mail replayed on resume."""
    held = message.held_for is not None
    if message.dismissed_at is not None:
        return f"dismissed {cli_time(message.dismissed_at, zone)}"
    if held and message.retried_at is None:
        outcome = resumed.get(message.id)
        return "waiting for resume" if outcome is None else f"resumed: {outcome}"
    if message.retried_at is not None:
        done = "resumed" if held else "retried"
        still = " (still kept)" if message.waiting else ""
        when = cli_time(message.retried_at, zone)
        return f"{done} {when}: {message.retry_outcome}{still}"
    return "waiting"


def _stored_reason(message: KeptMessage) -> str:
    """The reason as ``pbp kept --json`` has always given it: the stored code, and for
    held mail ``"paused:GAME"``."""
    if message.held_for is not None:
        return f"{message.reason}:{message.held_for}"
    return message.reason


def kept_rows(store: Store, config: Config, kept: list[KeptMessage] | None = None) -> list[KeptRow]:
    """Every kept mail of ``store`` (or those of ``kept``) as a :class:`KeptRow`, oldest
    first. Times are in the zone of the mail's game, else of the first game of
    ``config``."""
    kept = store.kept() if kept is None else kept
    resumed: dict[int, str] = {}
    if any(message.held_for is not None for message in kept):
        resumed = store.replay_outcomes()
    zones = {game.id: game.timezone for game in config.games}
    default_zone = config.games[0].timezone if config.games else "UTC"
    games = _Games(store, config)
    rows = []
    for message in kept:
        letter = read_letter(row_header(message.raw), body=False) if message.raw else None
        game = games.of(message, letter)
        zone = zones.get(game or "", default_zone)
        local = ZoneInfo(zone)
        arrived = message.arrived.astimezone(local)
        rows.append(
            KeptRow(
                id=message.id,
                arrived=arrived.isoformat(timespec="minutes"),
                zone=zone,
                sender=inert(letter.from_address or "", SENDER_WIDTH) if letter else "",
                game=game,
                subject=inert(letter.subject, SUBJECT_WIDTH) if letter else "",
                reason=_stored_reason(message),
                reason_text=reason_words(message.reason, message.held_for),
                status=_status(message, resumed, local),
                source=message.source,
            )
        )
    return rows


def _local(row: KeptRow) -> str:
    """``"2026-12-01 20:05 MSK"``: the arrival in its zone, to the minute (:func:`cli_time`)."""
    return cli_time(datetime.fromisoformat(row.arrived), row.zone)


def table(rows: list[KeptRow]) -> str:
    """``rows`` as an aligned text table with a header line (columns ID, ARRIVED,
    FROM, GAME, SUBJECT, REASON, STATUS), one line per row, no trailing newline."""
    head = ("ID", "ARRIVED", "FROM", "GAME", "SUBJECT", "REASON", "STATUS")
    lines = [head] + [
        (
            str(r.id),
            _local(r),
            r.sender or "-",
            r.game or "-",
            r.subject or "-",
            r.reason_text,
            r.status,
        )
        for r in rows
    ]
    return aligned(lines)
