"""Helpers for tests that drive a whole game through :class:`pbp.app.service.Service`.

The game is seed 000's worked example (players Кросс, Дуг, Роза; 3 suspects,
6 weapons, 3 rooms; rule C1) with its fixed deal, in Europe/Moscow, day close
22:30 (19:30 UTC).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from babel import dates as babel_dates

from pbp.app.service import Service
from pbp.config.loading import load_config
from pbp.games.core.registry import KINDS
from pbp.mail.maildir import MaildirInbox, MaildirTransport, deliver, read_maildir
from pbp.store import Store
from pbp.text.render import Renderer

from .games import MailSection, game_keys, write_games_yaml

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
EMAILS = {"Кросс": "cross@example.test", "Дуг": "doug@example.test", "Роза": "rosa@example.test"}
GM = "gm-person@example.test"

#: The game's item of ``games.yaml`` (:func:`seed_000` fills it in).
GAME_ITEM = """\
  - id: seed-000
    kind: cluedo_days
    locale: {locale}
    timezone: Europe/Moscow
    day_closes: "22:30"
    gm: gm-person@example.test
    seed: 1234
{start}{extra}    players:
      - {{name: Кросс, email: cross@example.test, character: Петя, gender: m}}
      - {{name: Дуг, email: doug@example.test, character: Маша, gender: f}}
      - {{name: Роза, email: rosa@example.test, character: Ваня, gender: f}}
    cards:
      suspects: [Маша, Петя, Ваня]
      weapons: [Топор, Пистолет, Канделябр, Молоток, Веревка, Нож]
      rooms: [Столовая, Спальня, Библиотека]
    deal:
      solution: [Маша, Топор, Столовая]
      hands:
        Кросс: [Петя, Ваня, Нож]
        Дуг: [Спальня, Пистолет, Молоток]
        Роза: [Библиотека, Канделябр, Веревка]
"""


def utc(
    year: int, month: int, day: int, hour: int = 0, minute: int = 0, second: int = 0
) -> datetime:
    """``utc(2026, 12, 1, 17)`` → an aware UTC datetime."""
    return datetime(year, month, day, hour, minute, second, tzinfo=UTC)


def seed_000(*, locale: str = "ru", start: str | None = "2026-12-01T20:00", extra: str = "") -> str:
    """The seed-000 game as an item of ``games.yaml``'s ``games:`` list; ``extra``: more
    game keys (unindented YAML), put before ``players:``."""
    return GAME_ITEM.format(
        locale=locale,
        start=f'    start: "{start}"\n' if start else "",
        extra=game_keys(extra),
    )


def write_config(
    directory: Path,
    *,
    locale: str = "ru",
    start: str | None = "2026-12-01T20:00",
    personal_address: str = "plus",
    extra: str = "",
    trusted: str | None = None,
    received_above: int = 0,
    trusted_fields: int = 1,
) -> Path:
    """Write the seed-000 game's games.yaml into ``directory``; returns its path.
    ``trusted``: the ``mail.trusted_authserv_id``, if any, with ``received_above`` and
    ``trusted_fields`` as ``trusted_received_above`` and ``trusted_authserv_fields``
    (default 0 and 1: the kit's mails carry no ``Received`` field, so the server's
    ``Authentication-Results`` may stand anywhere in their header)."""
    trust = (
        f"trusted_authserv_id: {trusted}\ntrusted_received_above: {received_above}\n"
        f"trusted_authserv_fields: {trusted_fields}\n"
    )
    mail = MailSection(personal_address=personal_address, extra=trust if trusted else "")
    return write_games_yaml(directory, seed_000(locale=locale, start=start, extra=extra), mail=mail)


class Table:
    """A game on Maildir transports with a test-controlled clock."""

    #: The trusted authserv-id: :meth:`send` then adds its ``dmarc=pass`` by default.
    trusted: str | None = None

    def __init__(
        self,
        directory: Path,
        *,
        locale: str = "ru",
        start: str | None = "2026-12-01T20:00",
        personal_address: str = "plus",
        extra: str = "",
        trusted: str | None = None,
        received_above: int = 0,
        trusted_fields: int = 1,
    ) -> None:
        self.directory = directory
        self.trusted = trusted
        path = write_config(
            directory,
            locale=locale,
            start=start,
            personal_address=personal_address,
            extra=extra,
            trusted=trusted,
            received_above=received_above,
            trusted_fields=trusted_fields,
        )
        self._serve(path, utc(2026, 12, 1, 17))

    def _serve(self, path: Path, now: datetime) -> None:
        """Load ``path`` (the table's ``games.yaml``) and serve it: its store, Maildir
        inbox and outbox under ``mail/`` beside it, the clock at ``now``."""
        self.config = load_config(path)
        self.store = Store(self.config.store)
        self.inbox_path = path.parent / "mail" / "inbox"
        self.outbox_path = path.parent / "mail" / "outbox"
        self.now = now
        self.service = Service(
            self.config,
            self.store,
            Renderer(TEMPLATES, kinds=KINDS),
            inbox=MaildirInbox(self.inbox_path),
            transport=MaildirTransport(self.outbox_path),
            clock=lambda: self.now,
        )
        self._seen = 0

    def close(self) -> None:
        """Close the store."""
        self.store.close()

    def run(self, now: datetime | None = None) -> list[str]:
        """``pbp run --once`` at ``now`` (default: the table's clock); the outcomes."""
        if now is not None:
            self.now = now
        return [o.outcome for o in self.service.run_once(self.now)]

    def token(self, player: str) -> str:
        """The personal token of ``player``."""
        token = self.store.player_token("seed-000", player)
        assert token is not None
        return token

    def send(
        self,
        player: str,
        *lines: str,
        at: datetime,
        to: str | None = None,
        sender: str | None = None,
        headers: Sequence[tuple[str, str]] = (),
    ) -> str:
        """Deliver a plain mail from ``player`` to his personal address; its Message-ID."""
        message = EmailMessage(policy=SMTP)
        message["From"] = sender or EMAILS[player]
        message["To"] = to or f"gm+{self.token(player)}@example.test"
        message["Subject"] = "ход"
        message["Date"] = format_datetime(at)
        message_id = make_msgid(domain="example.test")
        message["Message-ID"] = message_id
        if self.trusted and not any(n.lower() == "authentication-results" for n, _ in headers):
            headers = [*headers, ("Authentication-Results", self.passed())]
        for name, value in headers:
            message[name] = value
        message.set_content("\n".join(lines) + "\n")
        deliver(self.inbox_path, bytes(message), at=at)
        return message_id

    def passed(self, domain: str = "example.test") -> str:
        """The trusted server's ``Authentication-Results`` of a mail that passed DMARC."""
        return f"{self.trusted}; dmarc=pass header.from={domain}"

    def sent(self) -> list[EmailMessage]:
        """Every mail pbp has sent so far, in order."""
        return read_maildir(self.outbox_path)

    def new_mail(self) -> list[EmailMessage]:
        """Mails sent since the last call."""
        mails = self.sent()
        fresh = mails[self._seen :]
        self._seen = len(mails)
        return fresh


def summary(mails: Sequence[EmailMessage]) -> list[tuple[str, str]]:
    """``[(To, Subject), ...]`` of ``mails``."""
    return [(str(m["To"]), str(m["Subject"])) for m in mails]


def body(mail: EmailMessage) -> str:
    """The text of a plain mail."""
    return str(mail.get_content()).replace("\r\n", "\n")


def named_body(mail: EmailMessage, title: str) -> str:
    """The text of a mail after the first line that names its game ``title`` («Игра:
    seed-000» / "Game: seed-000", then a blank line: asserted); a post to paste (its
    Subject ends with its format) has none and is returned whole."""
    text = body(mail)
    if str(mail["Subject"]).endswith((" — BBCode", " — Markdown")):
        return text
    first, blank, rest = text.split("\n", 2)
    assert (first, blank) in {(f"Игра: {title}", ""), (f"Game: {title}", "")}, text[:80]
    return rest


def crash_apply(monkeypatch: pytest.MonkeyPatch, kind: str, call: int) -> None:
    """Plant a bug: the ``call``-th move (1-based) that game kind ``kind`` applies
    raises ``RuntimeError("bug")``; the others are applied as usual."""
    engine: Any = KINDS[kind]
    original = engine.apply
    calls = {"n": 0}

    def apply(*args: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == call:
            raise RuntimeError("bug")
        return original(*args)

    monkeypatch.setattr(engine, "apply", apply)


def moscow_text(moment: datetime) -> str:
    """An aware time as a Russian mail writes it in Europe/Moscow (``|dt(timezone)``):
    ``1 декабря 2026 г., 20:00 по Москве`` (Babel's long date)."""
    local = moment.astimezone(ZoneInfo("Europe/Moscow"))
    day = babel_dates.format_skeleton("yMMMMd", local, locale="ru").replace("\u202f", " ")
    return f"{day}, {local:%H:%M} по Москве"
