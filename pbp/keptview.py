"""What ``pbp kept`` shows of each mail kept aside for the GM: a readable row.

A kept mail is stored as its raw bytes and a reason code (``"unknown_sender"``,
``"too_large: 3,100,000 bytes"``, ``"paused"`` with the game it is held for …).
:func:`kept_rows` reads each one's header section again (never its body: a
stranger's mail may be hostile) and gives the GM what he needs to decide: when it
came (in the game's time zone, to the minute), from whom, for which game, its
Subject (on one line, control characters removed, cut), the reason in words, and
what became of it (waiting, retried, resumed).

Pure but for the store's reads; the CLI lays the rows out (:func:`table`) or prints
them as JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from pbp.config import Config
from pbp.digest import inert
from pbp.mail.base import header_section
from pbp.parse.mime import find_tokens, read_letter
from pbp.store import HELD_REASON, KeptMessage, Store
from pbp.timetext import cli_time

__all__ = ["KeptRow", "explain", "kept_rows", "reason_words", "table"]

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
    "too_large": "over the size limit: only its headers were kept",
    "forged_from": "a From that names no single sender (not answered)",
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
    "wrong_sender": "the player at a new address: pbp readdress GAME PLAYER --email NEW, "
    "then pbp retry ID; a move for that player: pbp act GAME PLAYER '...'; else pbp "
    "dismiss ID",
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
    "unauthenticated": "the player's own? enter his moves with pbp act GAME PLAYER "
    "'...' (or fix the sending server's SPF/DKIM, then pbp retry ID); else pbp dismiss ID",
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
    ``"retried 2026-12-01 21:03 MSK: OUTCOME"`` (local time, :func:`pbp.timetext.cli_time`;
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

    def as_json(self) -> dict[str, Any]:
        """The row as a JSON object (``--json``)."""
        return asdict(self)


def _game_of(message: KeptMessage, store: Store, config: Config) -> str | None:
    """The game a kept mail was for: the paused game it was held for, the game of a
    personal address it was sent to, or the first game its sender plays in."""
    if message.held_for is not None:
        return message.held_for
    letter = read_letter(header_section(message.raw))
    plus = config.mail.personal_address == "plus"
    for token in find_tokens(letter, config.mail.address, "plus" if plus else "subject_tag"):
        seat = store.token(token)
        if seat is not None:
            return seat.game_id
    sender = letter.from_address
    for game in config.games:
        emails = {game.gm.lower(), *(p.email.lower() for p in game.players)}
        if sender in emails:
            return game.id
    return None


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
    rows = []
    for message in kept:
        letter = read_letter(header_section(message.raw)) if message.raw else None
        known = message.raw or message.held_for is not None
        game = _game_of(message, store, config) if known else None
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
    widths = [max(len(line[i]) for line in lines) for i in range(len(head) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=False))
        + "  "
        + line[-1]
        for line in lines
    )
