"""SQL statements per move: a scripted move of each bundled game kind, counted.

Run from the repository (after ``./scripts/test`` installed ``.venv``)::

    .venv/bin/python benchmarks/statements.py            # the totals per round
    .venv/bin/python benchmarks/statements.py --by-statement

The three games of the bundled games.yaml start on Maildir transports with a fixed
clock; then, for each game, valid moves (:class:`moves.Bot`), each a reply to pbp's
last mail to the player, are delivered one at a time; the round of the second move of
each (``Service.run_once``, what ``pbp run`` calls when mail arrives) is traced with
sqlite3's ``set_trace_callback`` on the store's connection. An idle round (no mail)
is counted too. Seconds, not minutes: no mail server, no daemon.
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from moves import Bot  # noqa: E402

from pbp.app.service import Service  # noqa: E402
from pbp.config.loading import load_config  # noqa: E402
from pbp.games.core.registry import KINDS  # noqa: E402
from pbp.mail.maildir import MaildirInbox, MaildirTransport, deliver  # noqa: E402
from pbp.store import Store  # noqa: E402
from pbp.text.render import Renderer  # noqa: E402

#: The fixed moment of the rounds (a Tuesday noon UTC); deadlines are hours away.
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)


def bundled_games() -> list[dict[str, object]]:
    """The bundled games, seeded, started at once, every deadline hours after NOW."""
    games: list[dict[str, object]] = yaml.safe_load((ROOT / "games.yaml").read_text())["games"]
    for number, game in enumerate(games, 1):
        game["seed"] = number
        game.pop("start", None)
        game["timezone"] = "UTC"
        if "day_closes" in game:
            game["day_closes"] = "23:00"
        if "night_ends" in game:
            game["night_ends"] = "06:00"
    return games


def normalized(sql: str) -> str:
    """One statement's text without its literals: statements of one kind count together."""
    sql = " ".join(sql.split())
    sql = re.sub(r"'(?:[^']|'')*'", "?", sql)
    sql = re.sub(r"\b\d+\b", "?", sql)
    sql = re.sub(r"X\?", "?", sql)
    return sql[:150]


@contextmanager
def traced(store: Store) -> Iterator[Counter[str]]:
    """Count the statements the store's connection runs inside the block."""
    counts: Counter[str] = Counter()
    store._db.set_trace_callback(lambda sql: counts.update([normalized(sql)]))
    try:
        yield counts
    finally:
        store._db.set_trace_callback(None)


def measure(directory: Path) -> dict[str, Counter[str]]:
    """``{round: statement counts}``: an idle round, then one move of each game."""
    document = {
        "mail": {
            "address": "gm@example.test",
            "personal_address": "plus",
            "inbox": {"maildir": "./mail/inbox"},
            "outbox": {"maildir": "./mail/outbox"},
            "max_answers_per_hour": 10_000,
        },
        "store": "./pbp.sqlite3",
        "games": bundled_games(),
    }
    path = directory / "games.yaml"
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False))
    config = load_config(path)
    store = Store(config.store)
    inbox = directory / "mail" / "inbox"
    service = Service(
        config,
        store,
        Renderer(ROOT / "templates", kinds=KINDS),
        inbox=MaildirInbox(inbox),
        transport=MaildirTransport(directory / "mail" / "outbox"),
        clock=lambda: NOW,
    )
    service.run_once(NOW)  # the games start; hands and opening posts go out
    service.run_once(NOW)  # a quiet round: caches and templates warm
    results: dict[str, Counter[str]] = {}
    with traced(store) as counts:
        service.run_once(NOW)
    results["idle round"] = counts
    bot = Bot(config, store)
    at = NOW
    # A first move of each game warms what the service keeps between moves (the parsed
    # state, the HELP text); the second one's statements are counted.
    for counted in (False, True):
        for game in config.games:
            at += timedelta(seconds=10)
            move = bot.move(game.id, at)
            if move is None:
                raise RuntimeError(f"no move found for {game.id}")
            deliver(inbox, replying(store, move.sender, move.message(at)), at=at)
            with traced(store) as counts:
                outcomes = service.run_once(at)
            if [o.outcome for o in outcomes] != ["applied"]:
                raise RuntimeError(f"{game.id}: {[o.outcome for o in outcomes]}")
            if counted:
                results[f"{game.kind} ({move.text})"] = counts
    store.close()
    return results


def replying(store: Store, sender: str, mail: bytes) -> bytes:
    """``mail`` as a reply (In-Reply-To) to the last mail pbp sent to ``sender``, as a
    player's client sends it."""
    row = store._db.execute(
        "SELECT message_id FROM outbox WHERE recipient = ? ORDER BY id DESC LIMIT 1", (sender,)
    ).fetchone()
    if row is None:
        return mail
    return f"In-Reply-To: {row[0]}\r\n".encode() + mail


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--by-statement", action="store_true", help="every statement's count")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        results = measure(Path(work))
    for name, counts in results.items():
        print(f"{name}: {sum(counts.values())} statements")
        if args.by_statement:
            for sql, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
                print(f"  {count:3d}  {sql}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
