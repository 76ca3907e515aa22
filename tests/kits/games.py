"""The one ``games.yaml`` builder of the tests: a ``mail:`` section, the store, the games.

A test says what differs from the default, a Maildir daemon at ``gm@example.test``
with ``personal_address: plus``; each game is its own YAML list item, written by the
test (or its kit) as it appears in the file. Example::

    >>> print(games_yaml(GAME_ITEM, mail=MailSection(inbox=Imap(1143, "PBP_PW"))), end="")
    mail:
      address: gm@example.test
      personal_address: plus
      inbox: {imap: {host: 127.0.0.1, port: 1143, username: gm@example.test,
                      password_env: PBP_PW, tls: none}}
      outbox: {maildir: ./mail/outbox}
    store: ./pbp.sqlite3
    games:
      - id: g-1
        kind: maniac

:func:`write_games_yaml` writes it beside a test's other files; :func:`game_keys`
indents a test's extra game keys (``"remind_hours_before: 2\\n"``) to their place in
an item.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from pathlib import Path

#: A game item as small as the doctest above needs (not a valid game).
GAME_ITEM = "  - id: g-1\n    kind: maniac\n"


@dataclass(frozen=True)
class Imap:
    """An IMAP inbox on 127.0.0.1 without TLS (a test's Dovecot), logging in as
    ``username`` with the password in the environment variable ``password_env``."""

    port: int
    password_env: str
    username: str = "gm@example.test"

    def yaml(self) -> str:
        return (
            f"{{imap: {{host: 127.0.0.1, port: {self.port}, username: {self.username},\n"
            f"                  password_env: {self.password_env}, tls: none}}}}"
        )


@dataclass(frozen=True)
class Smtp:
    """An SMTP outbox on 127.0.0.1 without TLS or login (a test's aiosmtpd)."""

    port: int

    def yaml(self) -> str:
        return f"{{smtp: {{host: 127.0.0.1, port: {self.port}, tls: none}}}}"


@dataclass(frozen=True)
class MailSection:
    """The ``mail:`` section. ``inbox``/``outbox`` None: the Maildirs ``./mail/inbox``
    and ``./mail/outbox`` beside the file. ``extra``: more ``mail:`` keys, unindented
    YAML lines, put after ``personal_address``; ``trailer``: lines put after
    ``outbox`` (e.g. a comment with the setting it explains)."""

    address: str = "gm@example.test"
    personal_address: str = "plus"
    inbox: Imap | None = None
    outbox: Smtp | None = None
    extra: str = ""
    trailer: str = ""

    def yaml(self) -> str:
        inbox = self.inbox.yaml() if self.inbox else "{maildir: ./mail/inbox}"
        outbox = self.outbox.yaml() if self.outbox else "{maildir: ./mail/outbox}"
        return (
            f"mail:\n  address: {self.address}\n  personal_address: {self.personal_address}\n"
            f"{_indent(self.extra, 2)}  inbox: {inbox}\n  outbox: {outbox}\n"
            f"{_indent(self.trailer, 2)}"
        )


def _indent(lines: str, spaces: int) -> str:
    return textwrap.indent(textwrap.dedent(lines), " " * spaces) if lines else ""


def game_keys(extra: str) -> str:
    """``extra`` (unindented YAML game keys) indented to their place in a game item;
    ``""`` stays ``""``.

    >>> game_keys("remind_hours_before: 2\\n")
    '    remind_hours_before: 2\\n'
    """
    return _indent(extra, 4)


def games_yaml(*games: str, mail: MailSection | None = None, store: str = "./pbp.sqlite3") -> str:
    """The text of a ``games.yaml``: ``mail``, ``store`` and ``games``, each game an item
    of the ``games:`` list as it appears in the file (``"  - id: …\\n    kind: …\\n"``)."""
    section = (mail or MailSection()).yaml()
    return f"{section}store: {store}\ngames:\n{''.join(games)}"


def write_games_yaml(
    directory: Path, *games: str, mail: MailSection | None = None, store: str = "./pbp.sqlite3"
) -> Path:
    """Write :func:`games_yaml` to ``directory/games.yaml``; its path."""
    path = directory / "games.yaml"
    path.write_text(games_yaml(*games, mail=mail, store=store), encoding="utf-8")
    return path
