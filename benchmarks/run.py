"""pbp against the mail transport's own limit: throughput, latency, cost per move, many games.

Run from the repository (after ``./scripts/test`` or ``./scripts/bench`` installed ``.venv``)::

    .venv/bin/python benchmarks/run.py            # every figure, about 6 minutes
    .venv/bin/python benchmarks/run.py --quick    # a few moves of each, seconds (the smoke test)
    .venv/bin/python benchmarks/run.py --only latency --profile /tmp/prof

It starts its own Dovecot (IMAP) and an aiosmtpd sink (SMTP, messages kept in
memory) on 127.0.0.1 (tests/kits/mailstack.py) and prints one line per figure: the
value, its goal, the ratio and ``ok`` / ``MISSED``. Figures (issue 7, and issue 6
promise 7):

- ``throughput``: moves of the three bundled games waiting in the GM mailbox,
  ``Service.run_once`` (what ``pbp run --once`` calls) until every reply is
  accepted by SMTP, against a baseline that fetches the same messages over IMAP and
  sends the very same mails over one reused SMTP connection, with no game logic;
  goal pbp ≥ 0.5 × baseline.
- ``latency``: the real daemon (``pbp run``, IMAP IDLE) in a subprocess; moves
  appended one at a time; APPEND → the reply accepted by SMTP; p50 ≤ 0.7 s,
  p95 ≤ 1.0 s. And pbp's own share of it (issue 18), without the IMAP server's
  delay in announcing new mail: from the IDLE announcement the daemon heard (its
  DEBUG line, on the monotonic clock every process shares) to the reply accepted;
  p95 ≤ 30 ms.
- ``cost``: one Cluedo-by-rounds game driven to 10,000 events through
  ``Service.handle``; the median time of a move near event 100 and near event
  10,000; ratio ≤ 1.2.
- ``games``: 1,000 games (all three kinds, 15 players each) in one daemon and one
  mailbox: the first start (dealing), the start-up of a daemon with the games
  stored (spawn → the reply to a waiting move accepted, ≤ 2 s), its RSS after start
  and after a day of moves (≤ 150 MB), and a deadline of all 1,000 games at the
  same moment (667 day closes, 333 missed turns) while a move arrives every 0.25 s:
  the longest any of them waited for its reply.

Exit status 0 when every figure meets its goal, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import smtplib
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import yaml

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from kits.mailstack import Dovecot, SmtpServer  # noqa: E402
from moves import Bot, Move  # noqa: E402

from pbp.app.service import Service  # noqa: E402
from pbp.config.loading import load_config  # noqa: E402
from pbp.config.model import Config  # noqa: E402
from pbp.games.core.registry import KINDS  # noqa: E402
from pbp.mail.base import RawMessage  # noqa: E402
from pbp.mail.imap import ImapInbox  # noqa: E402
from pbp.mail.smtp import SmtpTransport  # noqa: E402
from pbp.store import Store  # noqa: E402
from pbp.text.render import Renderer  # noqa: E402

DAEMON = "gm@example.test"
PASSWORD = "bench-secret"
PASSWORD_ENV = "PBP_BENCH_PASSWORD"
PBP = Path(sys.executable).with_name("pbp")
MB = 1024 * 1024


@dataclass
class Figure:
    """One printed line: ``name: value unit (goal ...; ratio r) ok``."""

    name: str
    value: float
    unit: str
    goal: str
    ratio: float | None = None
    met: bool | None = None
    note: str = ""

    def line(self) -> str:
        ratio = "" if self.ratio is None else f"; ratio {self.ratio:.2f}"
        verdict = {None: "", True: " ok", False: " MISSED"}[self.met]
        note = f"  [{self.note}]" if self.note else ""
        return (
            f"{self.name}: {self.value:,.3f} {self.unit} (goal {self.goal}{ratio}){verdict}{note}"
        )


@dataclass
class Stack:
    """Dovecot with the daemon's mailbox and an SMTP sink, both on 127.0.0.1."""

    dovecot: Dovecot
    smtp: SmtpServer

    def delivered(self) -> int:
        with self.smtp.lock:
            return len(self.smtp.deliveries)

    def wait_reply(self, message_id: str, start: int, timeout: float) -> tuple[float, int]:
        """``(accepted_at, index)`` of the first mail from ``start`` on answering ``message_id``."""
        needle = f"In-Reply-To: {message_id}".encode()
        deadline = time.monotonic() + timeout
        while True:
            with self.smtp.lock:
                found = self.smtp.deliveries[start:]
            for offset, delivery in enumerate(found):
                if needle in delivery.content:
                    return delivery.accepted_at, start + offset
            if time.monotonic() > deadline:
                raise TimeoutError(f"no reply to {message_id} in {timeout} s")
            time.sleep(0.002)

    def wait_quiet(self, seconds: float, timeout: float) -> None:
        """Until no mail was accepted for ``seconds`` (raises TimeoutError after ``timeout``)."""
        deadline = time.monotonic() + timeout
        count, since = self.delivered(), time.monotonic()
        while time.monotonic() - since < seconds:
            if time.monotonic() > deadline:
                raise TimeoutError("the SMTP sink never went quiet")
            time.sleep(0.05)
            now = self.delivered()
            if now != count:
                count, since = now, time.monotonic()


@contextmanager
def mail_stack() -> Iterator[Stack]:
    dovecot = Dovecot()
    dovecot.start()
    dovecot.add_user(DAEMON, PASSWORD)
    smtp = SmtpServer(dovecot, deliver=False)
    smtp.start()
    os.environ[PASSWORD_ENV] = PASSWORD
    try:
        yield Stack(dovecot, smtp)
    finally:
        smtp.stop()
        dovecot.close()


# --- configurations --------------------------------------------------------------


def local_hhmm(zone: str, after: timedelta) -> str:
    """``"HH:MM"`` local time in ``zone`` that is ``after`` from now (a deadline far away)."""
    return (datetime.now(ZoneInfo(zone)) + after).strftime("%H:%M")


def mail_section(stack: Stack) -> dict[str, Any]:
    return {
        "address": DAEMON,
        "personal_address": "plus",
        "inbox": {
            "imap": {
                "host": "127.0.0.1",
                "port": stack.dovecot.port,
                "username": DAEMON,
                "password_env": PASSWORD_ENV,
                "tls": "none",
            }
        },
        "outbox": {"smtp": {"host": "127.0.0.1", "port": stack.smtp.port, "tls": "none"}},
        # Bots send a player's moves by the hundred per hour: every move answered at
        # once, as the figures have always measured (the rate limit is not measured).
        "max_answers_per_hour": 10_000,
    }


def bundled_games() -> list[dict[str, Any]]:
    """The three games of the bundled games.yaml, seeded, with every deadline ~12 h away."""
    games: list[dict[str, Any]] = yaml.safe_load((ROOT / "games.yaml").read_text())["games"]
    for number, game in enumerate(games, 1):
        game["seed"] = number
        game.pop("start", None)
        if "day_closes" in game:
            game["day_closes"] = local_hhmm(game["timezone"], timedelta(hours=12))
        if "night_ends" in game:
            game["night_ends"] = local_hhmm(game["timezone"], timedelta(hours=18))
    return games


SUSPECTS = [
    "Краснова",
    "Горчичников",
    "Белых",
    "Зеленович",
    "Голубева",
    "Черниченко",
    "Павлинова",
    "Сливин",
    "Лилов",
    "Орхидеева",
    "Бурый",
    "Серова",
    "Рыжов",
    "Алова",
    "Янтарёв",
    "Медная",
]
WEAPONS = [
    "подсвечник",
    "нож",
    "труба",
    "топор",
    "веревка",
    "пистолет",
    "гантеля",
    "яд",
    "кочерга",
    "шпага",
    "лопата",
    "молоток",
    "арбалет",
    "кастет",
    "ваза",
    "бутылка",
]
ROOMS = [
    "кухня",
    "бальная",
    "терраса",
    "бильярдная",
    "библиотека",
    "кабинет",
    "холл",
    "гостиная",
    "столовая",
    "спальня",
    "чердак",
    "подвал",
    "оранжерея",
    "мансарда",
    "часовня",
    "прачечная",
]
NAMES = [
    "Вася",
    "Петя",
    "Таня",
    "Оля",
    "Саша",
    "Маша",
    "Коля",
    "Лена",
    "Дима",
    "Катя",
    "Миша",
    "Аня",
    "Женя",
    "Юля",
    "Гоша",
]


def many_games(count: int) -> list[dict[str, Any]]:
    """``count`` games of 15 players, the three kinds in turn, every deadline ~12 h away."""
    close = local_hhmm("Europe/Moscow", timedelta(hours=12))
    night = local_hhmm("Europe/Moscow", timedelta(hours=18))
    games: list[dict[str, Any]] = []
    for number in range(count):
        kind = ("cluedo_days", "cluedo_rounds", "maniac")[number % 3]
        game: dict[str, Any] = {
            "id": f"g{number:04d}",
            "kind": kind,
            "locale": "ru" if number % 2 else "en",
            "timezone": "Europe/Moscow",
            "gm": f"gm{number % 10}@example.test",
            "seed": number + 1,
            "remind_hours_before": 2,
            "players": [
                {"name": name, "email": f"p{i}.g{number:04d}@example.test"}
                for i, name in enumerate(NAMES)
            ],
        }
        if kind != "maniac":
            game["cards"] = {"suspects": SUSPECTS, "weapons": WEAPONS, "rooms": ROOMS}
        if kind == "cluedo_days":
            game["day_closes"] = close
        elif kind == "cluedo_rounds":
            game["turn_hours"] = 12
            game["answer_hours"] = 6
        else:
            game["day_closes"] = close
            game["night_ends"] = night
        games.append(game)
    return games


def write_config(directory: Path, stack: Stack, games: list[dict[str, Any]]) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "games.yaml"
    document = {"mail": mail_section(stack), "store": "./pbp.sqlite3", "games": games}
    path.write_text(yaml.safe_dump(document, allow_unicode=True, sort_keys=False))
    return path


def service_for(config: Config) -> Service:
    """What ``pbp run`` builds (pbp.cli._service) for an IMAP inbox and an SMTP outbox."""
    imap, smtp = config.mail.inbox.imap, config.mail.outbox.smtp
    assert imap is not None and smtp is not None
    return Service(
        config,
        Store(config.store),
        Renderer(ROOT / "templates", kinds=KINDS),
        inbox=ImapInbox(imap.host, imap.port, imap.username, imap.password() or ""),
        transport=SmtpTransport(smtp.host, smtp.port),
    )


def round_robin(bot: Bot, game_ids: list[str], count: int, at: datetime) -> list[Move]:
    """``count`` valid moves spread over the games in turn (a game out of moves is left out)."""
    found: list[Move] = []
    active = list(game_ids)
    while len(found) < count and active:
        for game_id in list(active):
            move = bot.move(game_id, at)
            if move is None:
                active.remove(game_id)
                continue
            found.append(move)
            if len(found) == count:
                break
    return found


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


@contextmanager
def profiled(directory: Path | None, name: str) -> Iterator[None]:
    """Profile the block with pyinstrument into ``directory/name.txt`` (when given)."""
    if directory is None:
        yield
        return
    from pyinstrument import Profiler

    profiler = Profiler()
    profiler.start()
    try:
        yield
    finally:
        profiler.stop()
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"{name}.txt").write_text(profiler.output_text(unicode=True, color=False))
        (directory / f"{name}.html").write_text(profiler.output_html())


# --- throughput ------------------------------------------------------------------


def throughput(stack: Stack, work: Path, moves: int, profile: Path | None) -> list[Figure]:
    config = load_config(write_config(work / "throughput", stack, bundled_games()))
    service = service_for(config)
    service.run_once()  # the games start; hands and opening posts go out
    at = datetime.now(UTC)
    batch = round_robin(Bot(config, service.store), [g.id for g in config.games], moves, at)
    for move in batch:
        stack.dovecot.append(DAEMON, move.message(at))
    first = stack.delivered()
    started = time.perf_counter()
    with profiled(profile, "throughput"):
        applied = 0
        while True:
            outcomes = service.run_once()
            applied += sum(1 for o in outcomes if o.outcome == "applied")
            if not outcomes and not service.store.due_mail(datetime.now(UTC), limit=1):
                break
    pbp_seconds = time.perf_counter() - started
    service.inbox.close() if service.inbox else None
    service.transport.close() if service.transport else None
    with stack.smtp.lock:
        sent = [(d.mail_from, d.rcpt_tos, d.content) for d in stack.smtp.deliveries[first:]]
    if applied != len(batch):
        raise RuntimeError(f"{applied} of {len(batch)} moves applied")
    base_seconds = baseline(stack, sent)
    pbp_rate, base_rate = len(batch) / pbp_seconds, len(batch) / base_seconds
    ratio = pbp_rate / base_rate
    note = (
        f"{len(batch)} moves, {len(sent)} mails sent; baseline {base_rate:,.0f} moves/s "
        f"({len(sent) / base_seconds:,.0f} mails/s)"
    )
    return [
        Figure("throughput", pbp_rate, "moves/s", "≥ 0.5 × baseline", ratio, ratio >= 0.5, note)
    ]


def baseline(stack: Stack, sent: list[tuple[str, tuple[str, ...], bytes]]) -> float:
    """Seconds to fetch every message of the mailbox (IMAP, batches of 100, BODY.PEEK[],
    then a keyword) and send ``sent`` again over one reused SMTP connection."""
    from imapclient import IMAPClient

    started = time.perf_counter()
    imap = IMAPClient("127.0.0.1", stack.dovecot.port, ssl=False)
    imap.login(DAEMON, PASSWORD)
    imap.select_folder("INBOX")
    imap.noop()
    uids = sorted(imap.search(["NOT", "KEYWORD", "$BenchDone"]))
    bodies = 0
    for start in range(0, len(uids), 100):
        chunk = uids[start : start + 100]
        bodies += len(imap.fetch(chunk, ["INTERNALDATE", "BODY.PEEK[]"]))
        imap.add_flags(chunk, ["$BenchDone"], silent=True)
    smtp = smtplib.SMTP("127.0.0.1", stack.smtp.port)
    for mail_from, rcpt_tos, content in sent:
        smtp.sendmail(mail_from, list(rcpt_tos), content)
    smtp.quit()
    imap.logout()
    assert bodies == len(uids)
    return time.perf_counter() - started


# --- latency ---------------------------------------------------------------------


#: ``pbp`` itself (``pbp.cli.main``) with the loggers named in its first argument
#: (comma-separated) at DEBUG: ``-v`` would set every logger to DEBUG, imapclient's
#: protocol trace among them, and so slow down what is measured.
PBP_WITH_DEBUG = (
    "import logging, sys\n"
    "from pbp.cli import main\n"
    "for name in sys.argv.pop(1).split(','):\n"
    "    logging.getLogger(name).setLevel(logging.DEBUG)\n"
    "main(prog_name='pbp')\n"
)


class DaemonProcess:
    """``pbp run`` in a subprocess (its log in ``directory/daemon.log``). ``--fresh``:
    each figure deals its games into a new store on the mailbox the previous figures
    used (``$PbpDone`` mail there would make ``pbp run`` refuse, on purpose).
    ``debug``: loggers to set to DEBUG (:data:`PBP_WITH_DEBUG`)."""

    def __init__(self, config: Path, debug: tuple[str, ...] = ()) -> None:
        self.log = config.with_name("daemon.log")
        command = [str(PBP)]
        if debug:
            command = [sys.executable, "-c", PBP_WITH_DEBUG, ",".join(debug)]
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(
                [*command, "-c", str(config), "run", "--fresh"],
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                cwd=config.parent,
            )

    def rss(self) -> int:
        """Resident set size in bytes (VmRSS)."""
        for line in Path(f"/proc/{self.process.pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
        raise RuntimeError("no VmRSS")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def check(self) -> None:
        if self.process.poll() is not None:
            raise RuntimeError(f"pbp run exited: {self.log.read_text()[-3000:]}")


def pending_mail(store: Path) -> int:
    with sqlite3.connect(store) as db:
        row = db.execute(
            "SELECT COUNT(*) FROM outbox WHERE sent_at IS NULL AND failed IS NULL"
        ).fetchone()
    return int(row[0])


def started_games(store: Path) -> int:
    if not store.exists():
        return 0
    with sqlite3.connect(store) as db:
        try:
            return int(db.execute("SELECT COUNT(*) FROM games").fetchone()[0])
        except sqlite3.OperationalError:
            return 0


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(what)
        time.sleep(0.05)


#: The line ``pbp.mail.imap`` logs at DEBUG when IDLE announces new mail.
ANNOUNCED = re.compile(r"IDLE: new mail announced \(monotonic clock (\d+\.\d+) s\)")


def announcements(log: Path, offset: int) -> tuple[list[float], int]:
    """The moments (``time.monotonic()``) of the IDLE announcements ``log`` records
    from byte ``offset`` on (complete lines only), and the offset after them."""
    with open(log, "rb") as file:
        file.seek(offset)
        data = file.read()
    end = data.rfind(b"\n") + 1
    found = [float(m[1]) for m in ANNOUNCED.finditer(data[:end].decode("utf-8", "replace"))]
    return found, offset + end


def latency(stack: Stack, work: Path, count: int) -> list[Figure]:
    path = write_config(work / "latency", stack, bundled_games())
    config = load_config(path)
    daemon = DaemonProcess(path, debug=("pbp.mail.imap",))
    try:
        wait_until(lambda: started_games(config.store) == len(config.games), 60, "games start")
        wait_until(lambda: pending_mail(config.store) == 0, 60, "start mails")
        with Store(config.store) as store:
            bot = Bot(config, store)
        ids = [g.id for g in config.games]
        waits: list[float] = []
        # pbp's own share: from the IDLE announcement it heard to the reply accepted.
        shares: list[float] = []
        _, offset = announcements(daemon.log, 0)
        for number in range(count):
            daemon.check()
            at = datetime.now(UTC)
            move = round_robin(bot, ids[number % len(ids) :] + ids[: number % len(ids)], 1, at)[0]
            first = stack.delivered()
            raw = move.message(at)
            appended = time.monotonic()
            stack.dovecot.append(DAEMON, raw)
            accepted, _ = stack.wait_reply(move.message_id, first, 30)
            waits.append(accepted - appended)
            heard, offset = announcements(daemon.log, offset)
            heard = [moment for moment in heard if appended <= moment <= accepted]
            if heard:  # else the daemon found the move without IDLE (it was busy)
                shares.append(accepted - heard[0])
            stack.wait_quiet(0.05, 30)  # what the move caused for others went out too
    finally:
        daemon.stop()
    p50, p95 = percentile(waits, 0.5), percentile(waits, 0.95)
    note = f"{count} moves; min {min(waits):.3f} s, max {max(waits):.3f} s"
    if not shares:
        raise RuntimeError("no move was announced by IDLE: no share of latency to show")
    share50, share95 = percentile(shares, 0.5) * 1000, percentile(shares, 0.95) * 1000
    share_note = (
        f"IDLE announcement heard → reply accepted by SMTP; p50 {share50:.1f} ms; "
        f"{len(shares)} of {count} moves announced by IDLE"
    )
    return [
        Figure("latency p50", p50, "s", "≤ 0.7 s", p50 / 0.7, p50 <= 0.7, note),
        Figure("latency p95", p95, "s", "≤ 1.0 s", p95 / 1.0, p95 <= 1.0),
        Figure(
            "latency share p95", share95, "ms", "≤ 30 ms", share95 / 30, share95 <= 30, share_note
        ),
    ]


# --- cost per move ---------------------------------------------------------------


def cost_per_move(work: Path, events: int, early: int, window: int) -> list[Figure]:
    directory = work / "cost"
    directory.mkdir(parents=True)
    games = [g for g in bundled_games() if g["kind"] == "cluedo_rounds"]
    document = {
        "mail": {"address": DAEMON, "inbox": {"maildir": "./in"}, "outbox": {"maildir": "./out"}},
        "store": "./pbp.sqlite3",
        "games": games,
    }
    (directory / "games.yaml").write_text(yaml.safe_dump(document, allow_unicode=True))
    config = load_config(directory / "games.yaml")
    start = datetime.now(UTC).replace(microsecond=0)
    service = Service(config, Store(config.store), Renderer(ROOT / "templates", kinds=KINDS))
    service.run_once(start)
    game_id = games[0]["id"]
    bot = Bot(config, service.store)
    count = sqlite3.connect(config.store)
    timings: list[tuple[int, float]] = []
    number = 0
    while True:
        logged = int(
            count.execute("SELECT MAX(seq) FROM events WHERE game_id = ?", (game_id,)).fetchone()[0]
        )
        if logged >= events and sum(1 for n, _ in timings if n >= events) >= window:
            break
        number += 1
        at = start + timedelta(seconds=number)
        move = bot.move(game_id, at)
        if move is None:
            raise RuntimeError(f"game {game_id} ran out of moves at event {logged}")
        raw = RawMessage(f"m{number}", None, at, move.message(at))
        began = time.perf_counter()
        outcome = service.handle(raw, at)
        timings.append((logged, time.perf_counter() - began))
        if outcome.outcome != "applied":
            raise RuntimeError(f"move {move.text!r} of {move.player}: {outcome}")
    service.store.close()
    near_early = statistics.median([t for n, t in timings if n >= early][:window])
    near_late = statistics.median([t for n, t in timings if n >= events][:window])
    ratio = near_late / near_early
    note = (
        f"median of {window} moves from event {early}: {near_early * 1000:.2f} ms, "
        f"from event {events}: {near_late * 1000:.2f} ms; {number} moves"
    )
    return [
        Figure("cost per move", ratio, "× (late/early)", "≤ 1.2", ratio / 1.2, ratio <= 1.2, note)
    ]


# --- many games ------------------------------------------------------------------


def status_mail(config: Config, store: Path, game_index: int, message_id: str) -> bytes:
    """A STATUS mail of the first player of one game (any mail gets a reply)."""
    game = config.games[game_index]
    with sqlite3.connect(store) as db:
        token = db.execute(
            "SELECT token FROM tokens WHERE game_id = ? AND player = ?",
            (game.id, game.players[0].name),
        ).fetchone()[0]
    move = Move(
        game.id,
        game.players[0].name,
        game.players[0].email,
        f"gm+{token}@example.test",
        "STATUS",
        message_id,
    )
    return move.message(datetime.now(UTC))


def many(stack: Stack, work: Path, count: int, per_game: int, lead: float) -> list[Figure]:
    from email.utils import make_msgid

    path = write_config(work / "games", stack, many_games(count))
    config = load_config(path)
    store = config.store
    figures: list[Figure] = []

    def add(figure: Figure) -> None:
        figures.extend(report([figure]))

    # 1. First start: every game dealt, every hand and opening post sent.
    before = stack.delivered()
    spawned = time.monotonic()
    daemon = DaemonProcess(path)
    try:
        wait_until(lambda: started_games(store) == count, 600, "games start")
        wait_until(lambda: pending_mail(store) == 0, 600, "start mails")
        first_start = time.monotonic() - spawned
        mails = stack.delivered() - before
    finally:
        daemon.stop()
    add(
        Figure(
            "first start (dealing)", first_start, "s", "none", note=f"{count} games, {mails} mails"
        )
    )

    # 2. Start-up with the games stored: spawn -> the reply to a waiting move accepted.
    message_id = make_msgid(domain="example.test")
    stack.dovecot.append(DAEMON, status_mail(config, store, 0, message_id))
    first = stack.delivered()
    spawned = time.monotonic()
    daemon = DaemonProcess(path)
    try:
        accepted, _ = stack.wait_reply(message_id, first, 120)
        startup = accepted - spawned
        rss_start = daemon.rss()
        add(
            Figure(
                "start-up",
                startup,
                "s",
                "≤ 2 s",
                startup / 2,
                startup <= 2,
                f"{count} games stored",
            )
        )
        add(
            Figure(
                "RSS after start",
                rss_start / MB,
                "MB",
                "≤ 150 MB",
                rss_start / MB / 150,
                rss_start <= 150 * MB,
            )
        )

        # 3. A day of moves.
        with Store(store) as reader:
            bot = Bot(config, reader)
        at = datetime.now(UTC)
        batch = round_robin(bot, [g.id for g in config.games], per_game * count, at)
        first = stack.delivered()
        began = time.monotonic()
        for move in batch:
            stack.dovecot.append(DAEMON, move.message(at))
        last = batch[-1]
        stack.wait_reply(last.message_id, first, 1200)
        wait_until(lambda: pending_mail(store) == 0, 600, "day mails")
        day_seconds = time.monotonic() - began
        rss_day = daemon.rss()
        add(
            Figure(
                "RSS after a day of moves",
                rss_day / MB,
                "MB",
                "≤ 150 MB",
                rss_day / MB / 150,
                rss_day <= 150 * MB,
                f"{len(batch)} moves in {day_seconds:.1f} s "
                f"({len(batch) / day_seconds:.0f} moves/s)",
            )
        )
    finally:
        daemon.stop()

    # 4. Every game's deadline at the same moment (set in the store while the daemon is
    #    down), a STATUS arriving every 0.25 s meanwhile: how long does one wait?
    close_at = datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=lead)
    with sqlite3.connect(store) as db:
        db.execute("UPDATE games SET deadline_at = ?", (close_at.isoformat(),))
    daemon = DaemonProcess(path)
    try:
        message_id = make_msgid(domain="example.test")
        first = stack.delivered()
        stack.dovecot.append(DAEMON, status_mail(config, store, 1, message_id))
        stack.wait_reply(message_id, first, 120)
        close_mono = time.monotonic() + (close_at - datetime.now(UTC)).total_seconds()
        while time.monotonic() < close_mono - 2:
            time.sleep(0.05)
        waits: list[float] = []
        probes: list[tuple[str, float, int]] = []
        number = 0

        def closed() -> bool:
            with sqlite3.connect(store) as db:
                left = db.execute(
                    "SELECT COUNT(*) FROM games WHERE deadline_at <= ?", (close_at.isoformat(),)
                ).fetchone()[0]
            return int(left) == 0

        done_at: float | None = None
        while done_at is None or time.monotonic() < done_at + 2:
            number += 1
            probe_id = make_msgid(domain="example.test")
            probes.append((probe_id, time.monotonic(), stack.delivered()))
            stack.dovecot.append(DAEMON, status_mail(config, store, (number * 7) % count, probe_id))
            time.sleep(0.25)
            if done_at is None and closed():
                done_at = time.monotonic()
            if time.monotonic() > close_mono + 600:
                raise TimeoutError("the deadlines were not passed in 10 minutes")
        for probe_id, appended, index in probes:
            accepted, _ = stack.wait_reply(probe_id, index, 600)
            waits.append(accepted - appended)
        wait_until(lambda: pending_mail(store) == 0, 600, "close mails")
        sent_all = time.monotonic()
        rss_close = daemon.rss()
    finally:
        daemon.stop()
    longest = max(waits)
    add(
        Figure(
            "longest wait of a move during the closes",
            longest,
            "s",
            "≤ 5 s",
            longest / 5,
            longest <= 5,
            f"{len(waits)} moves; deadlines of {count} games passed in "
            f"{done_at - close_mono:.1f} s, their mail sent {sent_all - close_mono:.1f} s "
            f"after the deadline; RSS {rss_close / MB:.0f} MB",
        )
    )
    return figures


# --- main ------------------------------------------------------------------------

FIGURES = ("throughput", "latency", "cost", "games")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a few moves of each (smoke test)")
    parser.add_argument("--only", action="append", choices=FIGURES, help="run only this figure")
    parser.add_argument("--profile", type=Path, help="write pyinstrument profiles here")
    args = parser.parse_args(argv)
    # A kill (SIGTERM) unwinds like Ctrl-C: the servers and temp dirs go away too.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    quick = args.quick
    chosen = args.only or list(FIGURES)
    figures: list[Figure] = []
    with tempfile.TemporaryDirectory(prefix="pbp-bench-") as temp, mail_stack() as stack:
        work = Path(temp)
        if "throughput" in chosen:
            figures += report(throughput(stack, work, 30 if quick else 2000, args.profile))
        if "latency" in chosen:
            figures += report(latency(stack, work, 5 if quick else 200))
        if "cost" in chosen:
            figures += report(cost_per_move(work, *((300, 20, 10) if quick else (10_000, 100, 50))))
        if "games" in chosen:
            # Printed as measured: the whole takes minutes.
            figures += many(stack, work, *((12, 1, 6.0) if quick else (1000, 3, 20.0)))
    return 0 if all(f.met is not False for f in figures) else 1


def report(figures: list[Figure]) -> list[Figure]:
    for figure in figures:
        print(figure.line(), flush=True)
    return figures


if __name__ == "__main__":
    sys.exit(main())
