"""Three games (one of each kind) in one daemon, on a real Dovecot + aiosmtpd stack,
and the tools to compare two runs of it (the crash tests, issue 6).

:func:`games_yaml` writes the config: ``cd-1`` (Cluedo by game days, 4 players),
``cr-1`` (Cluedo by rounds, 4 players) and ``mn-1`` (Maniac, 10 players), every
player at his own address, fixed seeds, deadlines 12 hours away so that nothing
but mail moves the games. :func:`random_moves` makes a reproducible stream of
moves for them (applied ones, refused ones, STATUS, garbage).
The daemon is :class:`kits.daemon.DaemonProcess` (its log kept across restarts).
:func:`store_facts` and :func:`mail_facts` reduce a run to what must be
equal between a run that was killed and one that never was.
"""

from __future__ import annotations

import email
import random
import sqlite3
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.policy import default as default_policy
from email.utils import format_datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

from . import games
from .games import Imap, MailSection, Smtp
from .mailstack import Dovecot

DAEMON = "gm@example.test"
DAEMON_PASSWORD = "daemon-secret"
GM = "gm-person@example.test"
PASSWORD_ENV = "PBP_CRASH_IMAP_PASSWORD"
ENV = {PASSWORD_ENV: DAEMON_PASSWORD}
MSK = ZoneInfo("Europe/Moscow")

SUSPECTS = ["Краснова", "Горчичников", "Белых", "Зеленович"]
WEAPONS = ["подсвечник", "нож", "труба", "топор"]
ROOMS = ["кухня", "танцевальный зал", "терраса", "бильярдная", "библиотека", "кабинет", "холл"]
CLUEDO_PLAYERS = ["Неташка", "Веталь", "Дуг", "Моро"]
MANIAC_PLAYERS = ["Вася", "Петя", "Таня", "Оля", "Саша", "Маша", "Коля", "Лена", "Дима", "Катя"]
TRANSLIT = {
    "Неташка": "netashka",
    "Веталь": "vetal",
    "Дуг": "doug",
    "Моро": "moro",
    "Вася": "vasya",
    "Петя": "petya",
    "Таня": "tanya",
    "Оля": "olya",
    "Саша": "sasha",
    "Маша": "masha",
    "Коля": "kolya",
    "Лена": "lena",
    "Дима": "dima",
    "Катя": "katya",
}
GAMES = {"cd-1": CLUEDO_PLAYERS, "cr-1": CLUEDO_PLAYERS, "mn-1": MANIAC_PLAYERS}


def address(game: str, player: str) -> str:
    """A player's registered address, e.g. ``cd-netashka@example.test``."""
    return f"{game.partition('-')[0]}-{TRANSLIT[player]}@example.test"


def addresses() -> list[str]:
    """Every address of the test but the daemon's: the GM's and the players'."""
    return [GM, *(address(game, p) for game, players in GAMES.items() for p in players)]


def add_users(dovecot: Dovecot) -> None:
    dovecot.add_user(DAEMON, DAEMON_PASSWORD)
    for mailbox in addresses():
        dovecot.add_user(mailbox, "player-secret")


MAIL_TRAILER = """\
# Bots send a player's moves by the dozen per minute: every one answered at once
# (the rate limit counts by the round's clock, which differs between the runs).
max_answers_per_hour: 10000
"""


def games_yaml(imap_port: int, smtp_port: int, now: datetime, *, trusted: str | None = None) -> str:
    """The config of the three games; their deadlines are 12 and 13 hours after ``now``.
    ``trusted``: the ``mail.trusted_authserv_id``, if any (its fields on top: the
    tests append mail over IMAP, with no ``Received`` field above them)."""
    close = (now + timedelta(hours=12)).astimezone(MSK).strftime("%H:%M")
    dawn = (now + timedelta(hours=13)).astimezone(MSK).strftime("%H:%M")

    def players(game: str) -> str:
        return "\n".join(f"      - {{name: {p}, email: {address(game, p)}}}" for p in GAMES[game])

    cards = f"""\
    cards:
      suspects: [{", ".join(SUSPECTS)}]
      weapons: [{", ".join(WEAPONS)}]
      rooms: [{", ".join(ROOMS)}]"""
    mail = MailSection(
        address=DAEMON,
        inbox=Imap(imap_port, PASSWORD_ENV, username=DAEMON),
        outbox=Smtp(smtp_port),
        extra=(f"trusted_authserv_id: {trusted}\ntrusted_received_above: 0\n" if trusted else ""),
        trailer=MAIL_TRAILER,
    )
    return games.games_yaml(
        f"""\
  - id: cd-1
    kind: cluedo_days
    locale: ru
    timezone: Europe/Moscow
    day_closes: "{close}"
    gm: {GM}
    seed: 61
    players:
{players("cd-1")}
{cards}
  - id: cr-1
    kind: cluedo_rounds
    locale: en
    timezone: Europe/Moscow
    gm: {GM}
    seed: 62
    turn_hours: 24
    answer_hours: 12
    auto_answer: no_match
    players:
{players("cr-1")}
{cards}
  - id: mn-1
    kind: maniac
    locale: ru
    timezone: Europe/Moscow
    gm: {GM}
    seed: 63
    day_closes: "{close}"
    night_ends: "{dawn}"
    players:
{players("mn-1")}
""",
        mail=mail,
    )


@dataclass(frozen=True)
class Move:
    """One player's mail: its Message-ID, game, player and body."""

    message_id: str
    game: str
    player: str
    body: str


def random_moves(count: int, rng: random.Random) -> list[Move]:
    """``count`` mails spread over the three games: suggestions, answers, votes, kill
    orders, STATUS and lines no game reads, so that some are applied and some refused."""
    moves = []
    for number in range(count):
        game = rng.choice(sorted(GAMES))
        player = rng.choice(GAMES[game])
        others = [p for p in GAMES[game] if p != player]
        roll = rng.random()
        cards = f"{rng.choice(SUSPECTS)}, {rng.choice(WEAPONS)}, {rng.choice(ROOMS)}"
        if game == "mn-1":
            if roll < 0.6:
                body = f"ГОЛОС {rng.choice(others)}"
            elif roll < 0.75:
                body = "СНЯТЬ ГОЛОС"
            elif roll < 0.85:
                body = f"УБИТЬ {rng.choice(others)}"
            elif roll < 0.95:
                body = "СТАТУС"
            else:
                body = "привет всем"
        elif roll < 0.5:
            to = f" TO {rng.choice(others)}" if game == "cd-1" else ""
            body = f"SUGGEST {cards}{to}"
        elif roll < 0.7:
            body = f"REFUTE {rng.choice([*SUSPECTS, *WEAPONS, *ROOMS])}"
        elif roll < 0.8:
            body = "NO REFUTATION"
        elif roll < 0.9:
            body = "STATUS"
        else:
            body = "как дела?"
        moves.append(Move(f"<crash-{number}@players.example.test>", game, player, body))
    return moves


def raw_move(move: Move, tokens: Mapping[tuple[str, str], str]) -> bytes:
    """The move as a player's mail client writes it, to his personal address (without
    a Message-ID header when ``move.message_id`` is empty)."""
    message = EmailMessage()
    message["From"] = address(move.game, move.player)
    message["To"] = f"gm+{tokens[(move.game, move.player)]}@example.test"
    message["Subject"] = "ход"
    if move.message_id:
        message["Message-ID"] = move.message_id
    message["Date"] = format_datetime(datetime.now(UTC))
    message.set_content(move.body + "\n")
    return bytes(message)


def tokens(store: Path) -> dict[tuple[str, str], str]:
    """``(game, player) -> token`` from a store."""
    with sqlite3.connect(store) as db:
        return {(g, p): t for t, g, p in db.execute("SELECT token, game_id, player FROM tokens")}


def settled(store: Path, expected: int) -> bool:
    """True when ``expected`` messages are processed and the outbox holds nothing unsent."""
    if not store.exists():
        return False
    db = sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=5)
    try:
        done = db.execute("SELECT COUNT(*) FROM messages").fetchone()[0]
        unsent = db.execute(
            "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL AND failed IS NULL"
        ).fetchone()[0]
    except sqlite3.OperationalError:
        return False
    finally:
        db.close()
    return bool(done == expected and unsent == 0)


def marked_done(dovecot: Dovecot, expected: int) -> bool:
    """True when the daemon's INBOX holds ``expected`` messages, every one marked done
    (``$PbpDone``). The mailbox is told after the store commits (and after the answers
    are sent): a store :func:`settled` may still hold messages a daemon killed or
    stopped meanwhile never marked; the next run marks them (as duplicates)."""
    with dovecot.master_login(DAEMON) as client:
        client.select_folder("INBOX", readonly=True)
        total = len(client.search(["ALL"]))
        waiting = len(client.search(["NOT", "KEYWORD", "$PbpDone"]))
        client.unselect_folder()
    return total == expected and waiting == 0


def store_facts(store: Path) -> dict[str, Any]:
    """What two runs of the same mail must agree on: every processed message (by
    Message-ID, in processing order) with its outcome, every event of every game
    (without its wall-clock time), every game's state, and the outbox's size."""
    with sqlite3.connect(store) as db:
        return {
            "messages": db.execute(
                "SELECT message_id, outcome, game_id, player, note FROM messages ORDER BY rowid"
            ).fetchall(),
            "events": db.execute(
                "SELECT game_id, seq, day, kind, visibility, player, data, source LIKE 'close%' "
                "FROM events ORDER BY game_id, seq"
            ).fetchall(),
            "games": db.execute(
                "SELECT id, state, deadline_at, over FROM games ORDER BY id"
            ).fetchall(),
            "outbox": db.execute(
                "SELECT COUNT(*), COUNT(sent_at), COUNT(failed) FROM outbox"
            ).fetchall(),
        }


def mail_facts(dovecot: Dovecot, skip: Iterable[str] = ()) -> tuple[Counter[tuple[str, ...]], int]:
    """Every mail the players and the GM received, deduplicated by Message-ID, as a
    multiset of (mailbox, In-Reply-To, Subject, text); and how many copies were
    received twice (a resend under the same Message-ID). ``skip``: Message-IDs to
    leave out (the mail of the start)."""
    skipped = set(skip)
    found: Counter[tuple[str, ...]] = Counter()
    resent = 0
    for mailbox in addresses():
        seen: dict[str, tuple[str, ...]] = {}
        for stored in dovecot.messages(mailbox):
            message = email.message_from_bytes(stored.raw, policy=default_policy)
            assert isinstance(message, EmailMessage)
            message_id = str(message["Message-ID"])
            if message_id in skipped:
                continue
            body = message.get_body(("plain",))
            assert body is not None
            text = str(body.get_content()).replace("\r\n", "\n")
            fact = (mailbox, str(message["In-Reply-To"]), str(message["Subject"]), text)
            if message_id in seen:
                assert seen[message_id] == fact, f"{message_id} sent twice, differently"
                resent += 1
                continue
            seen[message_id] = fact
            found[fact] += 1
    return found, resent


def message_ids(dovecot: Dovecot) -> set[str]:
    """The Message-IDs of every mail the players and the GM hold now."""
    found = set()
    for mailbox in addresses():
        for stored in dovecot.messages(mailbox):
            message = email.message_from_bytes(stored.raw, policy=default_policy)
            found.add(str(message["Message-ID"]))
    return found


def open_service(config: Path) -> Any:
    """The daemon's :class:`~pbp.app.service.Service` for ``config``, in this process, with
    its IMAP inbox and SMTP transport (the password from :data:`ENV` must be set)."""
    from pbp.cli import _service
    from pbp.config.loading import load_config

    return _service(load_config(config), create=True)


def close_service(service: Any) -> None:
    service.inbox.close()
    service.transport.close()
    service.store.close()
