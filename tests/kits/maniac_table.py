"""Helpers for tests that drive a Maniac game (rules M1–M12) through
:class:`pbp.app.service.Service`.

The game ``seed-002`` has ten players named after seed 002 and its worked examples
(Вася, Петя, Таня, Оля, Саша, …) with a fixed deal (``roles:``): Коля the maniac, Дима
the duty officer, Лена the fan, the others civilians (M1). Europe/Moscow; the game
starts 2026-12-01 12:00 Moscow (09:00 UTC); a day closes at 22:00 Moscow (19:00 UTC),
a night ends at 10:00 Moscow (07:00 UTC). So day 1 closes 2026-12-01 19:00 UTC, night 1
ends 2026-12-02 07:00 UTC, day 2 closes 2026-12-02 19:00 UTC, and so on. The
mailbox, clock and mail helpers are :class:`kits.table.Table`'s (Maildir transports, a
test-controlled clock); its ``games.yaml`` comes from :mod:`kits.games`.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, make_msgid
from pathlib import Path

from pbp.mail.maildir import deliver

from . import games
from .seed_002 import TIE_MAILS
from .table import GM, Table, body, named_body, utc

GAME = "seed-002"
PLAYERS = ("Вася", "Петя", "Таня", "Оля", "Саша", "Маша", "Коля", "Дима", "Лена", "Катя")
EMAILS = {
    "Вася": "vasya@example.test",
    "Петя": "petya@example.test",
    "Таня": "tanya@example.test",
    "Оля": "olya@example.test",
    "Саша": "sasha@example.test",
    "Маша": "masha@example.test",
    "Коля": "kolya@example.test",
    "Дима": "dima@example.test",
    "Лена": "lena@example.test",
    "Катя": "katya@example.test",
}
ROLES = {p: "civilian" for p in PLAYERS} | {
    "Коля": "maniac",
    "Дима": "duty_officer",
    "Лена": "fan",
}
MANIAC, DUTY, FAN = "Коля", "Дима", "Лена"
#: The game starts (12:00 Moscow); day d closes at close(d), night d ends at dawn(d).
START = utc(2026, 12, 1, 9)

#: The game's item of ``games.yaml`` (:func:`games_yaml` fills it in).
GAME_ITEM = """\
  - id: seed-002
    kind: maniac
    locale: {locale}
    timezone: Europe/Moscow
    gm: gm-person@example.test
    start: "2026-12-01T12:00"
    day_closes: "22:00"
    night_ends: "10:00"
{extra}    players:
{players}
    roles:
{roles}
"""


def close(day: int) -> datetime:
    """When game day ``day`` closes: 22:00 Moscow (19:00 UTC) on 2026-12-``day``."""
    return utc(2026, 12, day, 19)


def dawn(night: int) -> datetime:
    """When night ``night`` ends: 10:00 Moscow (07:00 UTC) the next morning."""
    return utc(2026, 12, night + 1, 7)


def games_yaml(locale: str = "ru", extra: str = "", roles: dict[str, str] | None = None) -> str:
    """The ``games.yaml`` text of the seed-002 game; ``extra``: more game keys (unindented)."""
    deal = ROLES if roles is None else roles
    item = GAME_ITEM.format(
        locale=locale,
        extra=games.game_keys(extra),
        players="\n".join(f"      - {{name: {p}, email: {EMAILS[p]}}}" for p in PLAYERS),
        roles="\n".join(f"      {p}: {deal[p]}" for p in PLAYERS),
    )
    return games.games_yaml(item)


class ManiacTable(Table):
    """The seed-002 Maniac game on Maildir transports with a test-controlled clock.

    Sending, reading the outbox and ``run`` are :class:`kits.table.Table`'s; the game is
    started by the first ``run`` at or after :data:`START`.
    """

    def __init__(
        self,
        directory: Path,
        *,
        locale: str = "ru",
        extra: str = "",
        roles: dict[str, str] | None = None,
    ) -> None:
        self.directory = directory
        self.path = directory / "games.yaml"
        self.path.write_text(games_yaml(locale, extra, roles), encoding="utf-8")
        self._serve(self.path, START)

    def token(self, player: str) -> str:
        """The personal token of ``player``."""
        token = self.store.player_token(GAME, player)
        assert token is not None
        return token

    def move(self, player: str, *lines: str, at: datetime) -> list[EmailMessage]:
        """``player`` mails ``lines`` arriving at ``at``; the daemon runs a minute later.

        Returns the mails sent by that run (the reply first)."""
        message = self._message(player, lines, at)
        deliver(self.inbox_path, bytes(message), at=at)
        self.run(at + timedelta(minutes=1))
        return self.new_mail()

    def _message(self, player: str, lines: tuple[str, ...], at: datetime) -> EmailMessage:
        message = EmailMessage(policy=SMTP)
        message["From"] = EMAILS[player]
        message["To"] = f"gm+{self.token(player)}@example.test"
        message["Subject"] = "ход"
        message["Date"] = format_datetime(at)
        message["Message-ID"] = make_msgid(domain="example.test")
        message.set_content("\n".join(lines) + "\n")
        return message

    def at(self, when: datetime) -> list[EmailMessage]:
        """Run the daemon at ``when`` (day closes, night ends, reminders); the new mails."""
        self.run(when)
        return self.new_mail()


def bbcode(mail: EmailMessage) -> str:
    """The BBCode post of a ``gm_<post>`` mail: its whole body (issue 12: alone)."""
    assert str(mail["Subject"]).endswith(" — BBCode"), mail["Subject"]
    return body(mail)


def markdown(mail: EmailMessage) -> str:
    """The Markdown post of a ``gm_<post>`` mail: its whole body (issue 12: alone)."""
    assert str(mail["Subject"]).endswith(" — Markdown"), mail["Subject"]
    return body(mail)


def gm_facts(mail: EmailMessage) -> str:
    """The GM-only facts beside a post: the whole body of their own mail after the line
    naming the game (asserted)."""
    assert str(mail["Subject"]).endswith((" — только для ГМа", " — GM only")), mail["Subject"]
    return named_body(mail, GAME)


def posted(title: str, *, private: bool = True) -> list[tuple[str, str]]:
    """``(to, Subject)`` of the GM's mails of one post (:func:`kits.table.summary`): BBCode
    (the default ``post_format``), then the GM-only facts (in every Maniac post but the
    lever's ones)."""
    gm_only = "только для ГМа" if re.search("[а-я]", title) else "GM only"
    parts = ["BBCode", *([gm_only] if private else [])]
    return [(GM, f"{title} — {part}") for part in parts]


def post_mails(mails: list[EmailMessage], title: str) -> list[EmailMessage]:
    """The mails of the GM post whose Subject starts ``title``: each format of the game's
    ``post_format`` and, when there are GM-only facts, those (in that order)."""
    return [m for m in mails if str(m["Subject"]).startswith(title + " — ")]


def seed_tie(table: ManiacTable) -> list[list[EmailMessage]]:
    """Seed 002's tie example on day 1 (:data:`kits.seed_002.TIE_MAILS`): Вася→Петя,
    Петя→Таня, Вася→Таня, Таня→Петя, Оля→Петя (M10), from 10:00 UTC five minutes apart.
    Returns the mails of each move."""
    return [
        table.move(player, text, at=utc(2026, 12, 1, 10, 5 * n))
        for n, (player, text) in enumerate(TIE_MAILS)
    ]
