"""Golden texts (issue 16): one scripted game of each bundled kind, played through
:class:`pbp.app.service.Service` in one locale, and every mail it sends written out as one
transcript: what each player and the GM read, posts included (the GM's post mails
carry each post in the game's ``post_format``: BBCode by default).

The cast has the names that are hard to write in Russian (issue 16): Лев, Павел,
Пётр, Любовь, Кэт, Ник, Ника, Мария, Илья, Никита in the Maniac game; Неташка,
Веталь, Дуг in Cluedo by days; Шапо, Саша, Любовь in Cluedo by rounds. Some have a
``gender:`` in games.yaml (Кэт, Ник, Веталь, Дуг); the others' gender is the
dictionary's (Лев, Любовь, …), or nobody's (Неташка, Шапо, Саша). The players
write their moves the way players do: names in the case the sentence needs
(«ГОЛОС за Павла»), a mistyped name, a move out of turn.

A transcript entry::

    ==== 2026-12-01 09:01 UTC → Лев <lev@example.test>
    Subject: [golden-maniac] …

    the body

A GM command line pulled as ``pbp`` would (:meth:`GoldenTable.cli`) is an entry of
its own, the command after ``$`` and what it prints (in English, the CLI's language)::

    ==== 2026-12-01 15:00 UTC $ pbp extend golden-maniac --hours 2
    Extended by 2 h. …

Personal addresses carry random tokens; a transcript shows ``<token of Лев>``
instead. ``tests/test_golden_texts.py`` compares the transcripts with
``tests/golden/<scenario>.<locale>.txt`` and renders them in a pseudo-locale.

Besides the game of each kind (scenario ``<kind>``), a second scenario of each kind,
``<kind>_levers`` (:mod:`kits.golden_levers`), plays the rest of what a GM and a player
read: the GM's levers by mail (with their confirmation) and by ``pbp``, reminders, mail
held by a pause or kept for the GM (unreadable, too large, forwarded, to another
player's address), and the story (``EXPORT``).
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from pathlib import Path

from babel import dates as babel_dates

from pbp.app.service import Service
from pbp.app.shapes import LeverDone
from pbp.app.story import story
from pbp.cli.common import CLI_LOCALE
from pbp.config.loading import load_config
from pbp.games.core import registry
from pbp.mail.maildir import MaildirInbox, MaildirTransport, deliver, read_maildir
from pbp.store import Store
from pbp.store.records import GM_SEAT
from pbp.text.render import Renderer

from .games import MailSection, write_games_yaml
from .table import GM, TEMPLATES, body, utc

KINDS = ("maniac", "cluedo_days", "cluedo_rounds")
#: The scripted games: one of each kind, one of each kind with the GM's levers, and
#: Cluedo by days with a grace window (:mod:`kits.golden_grace`).
SCENARIOS = (*KINDS, *(f"{kind}_levers" for kind in KINDS), "cluedo_days_grace")
LOCALES = ("ru", "en")


def _address(name: str, n: int) -> str:
    return f"player{n}@example.test"


@dataclass
class Game:
    """A scripted game: its ``games.yaml`` item, players and its script."""

    kind: str
    players: tuple[str, ...]
    item: str  # the games.yaml item, {locale} and {players} to fill in
    start: datetime
    script: Callable[[GoldenTable, str], None]
    #: ``gender:`` of the players who have one in games.yaml (rule P2); the others'
    #: genders are the dictionary's, or unknown.
    genders: dict[str, str] = field(default_factory=dict)
    #: More ``mail:`` keys of games.yaml (unindented YAML lines).
    mail: str = ""
    emails: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.emails = {p: _address(p, n) for n, p in enumerate(self.players, 1)}

    @property
    def id(self) -> str:
        return f"golden-{self.kind.replace('_', '-')}"


class GoldenTable:
    """One scripted game on Maildir transports with a clock the script sets."""

    def __init__(
        self,
        directory: Path,
        game: Game,
        locale: str,
        translations: Mapping[str, gettext.NullTranslations] | None = None,
    ) -> None:
        self.game = game
        self.locale = locale
        players = "\n".join(
            f"      - {{name: {p}, email: {game.emails[p]}"
            + (f", gender: {game.genders[p]}" if p in game.genders else "")
            + "}"
            for p in game.players
        )
        path = write_games_yaml(
            directory,
            game.item.format(locale=locale, players=players),
            mail=MailSection(extra=game.mail),
        )
        self.config = load_config(path)
        self.store = Store(self.config.store)
        self.inbox = directory / "mail" / "inbox"
        self.outbox = directory / "mail" / "outbox"
        self.now = game.start
        self.sent_lines: list[str] = []  # every line a player or the GM wrote
        self.names: dict[str, str] = {}  # more addresses of the transcript: a substitute's
        self.service = Service(
            self.config,
            self.store,
            Renderer(TEMPLATES, translations, kinds=registry.KINDS),
            inbox=MaildirInbox(self.inbox),
            transport=MaildirTransport(self.outbox),
            clock=lambda: self.now,
        )
        self._seen = 0
        self._sent = 0  # the mails sent to pbp so far (their Message-IDs)
        self._hex: dict[str, int] = {}
        self._codes: list[str] = []  # the GM's confirmation codes, in order
        self.entries: list[str] = []

    def close(self) -> None:
        self.store.close()

    def _message_id(self) -> str:
        """A Message-ID for the next mail a player or the GM sends: numbered, not
        random (:func:`email.utils.make_msgid` varies in length, and so would the size
        of a mail a transcript states)."""
        self._sent += 1
        return f"<golden-{self._sent}@example.test>"

    def at(self, when: datetime) -> None:
        """Run the daemon at ``when``; its mails go into the transcript."""
        self.now = when
        self.service.run_once(when)
        self._record(when)

    def address(self, seat: str) -> str:
        """The personal address of ``seat`` (a player, or :data:`GM_SEAT`) now."""
        token = self.store.player_token(self.game.id, seat)
        assert token is not None, seat
        return f"gm+{token}@example.test"

    def move(
        self,
        player: str,
        *lines: str,
        at: datetime,
        to: str | None = None,
        sender: str | None = None,
    ) -> None:
        """``player`` mails ``lines`` to his personal address (or ``to``) from his
        registered address (or ``sender``), arriving at ``at``; the daemon runs a
        minute later."""
        message = EmailMessage(policy=SMTP)
        message["From"] = sender or self.game.emails[player]
        message["To"] = to or self.address(player)
        message["Subject"] = "ход" if self.locale == "ru" else "move"
        message["Date"] = format_datetime(at)
        message["Message-ID"] = self._message_id()
        message.set_content("\n".join(lines) + "\n")
        self.sent_lines.extend(lines)
        deliver(self.inbox, bytes(message), at=at)
        self.at(at + timedelta(minutes=1))

    def raw(self, player: str, head: str, rest: bytes, *, at: datetime) -> None:
        """``player`` mails a raw message to his personal address: the usual header
        fields, then ``head`` (a Content-Type field, or more fields) and ``rest`` (the
        body, with the blank line before it), arriving at ``at``; the daemon runs a
        minute later."""
        fields = (
            f"From: {self.game.emails[player]}\r\nTo: {self.address(player)}\r\n"
            f"Subject: {'ход' if self.locale == 'ru' else 'move'}\r\n"
            f"Date: {format_datetime(at)}\r\n"
            f"Message-ID: {self._message_id()}\r\nMIME-Version: 1.0\r\n"
        )
        deliver(self.inbox, fields.encode() + head.encode() + b"\r\n" + rest, at=at)
        self.at(at + timedelta(minutes=1))

    def gm(self, *lines: str, at: datetime, to: str | None = None) -> None:
        """The GM mails ``lines`` from his registered address to his personal GM
        address (or ``to``), arriving at ``at``; the daemon runs a minute later."""
        message = EmailMessage(policy=SMTP)
        message["From"] = GM
        message["To"] = to or self.address(GM_SEAT)
        message["Subject"] = "команды" if self.locale == "ru" else "commands"
        message["Date"] = format_datetime(at)
        message["Message-ID"] = self._message_id()
        message.set_content("\n".join(lines) + "\n")
        self.sent_lines.extend(lines)
        self.sent_lines.extend(line.split(" -- ", 1)[1] for line in lines if " -- " in line)
        deliver(self.inbox, bytes(message), at=at)
        self.at(at + timedelta(minutes=1))

    def confirm(self, *, at: datetime, word: str | None = None) -> None:
        """The GM replies to the last confirmation pbp asked him for (the last mail to
        him with a confirmation address as its Reply-To) with ``word`` (default: the
        locale's «подтверждаю» / "confirm"), arriving at ``at``; the daemon runs a
        minute later. The levers take effect at ``at``."""
        asking = next(
            m
            for m in reversed(read_maildir(self.outbox))
            if str(m["To"]) == GM and self._code_of(str(m["Reply-To"] or "")) is not None
        )
        code = self._code_of(str(asking["Reply-To"]))
        assert code is not None
        if code not in self._codes:
            self._codes.append(code)
        # A Subject folded between two encoded-words would lose its space (Python's
        # email folds so); a mail client keeps it on one line.
        message = EmailMessage(policy=SMTP.clone(max_line_length=998))
        message["From"] = GM
        message["To"] = str(asking["Reply-To"])
        message["Subject"] = f"Re: {asking['Subject']}"
        message["Date"] = format_datetime(at)
        message["Message-ID"] = self._message_id()
        message["In-Reply-To"] = str(asking["Message-ID"])
        word = word or ("Подтверждаю" if self.locale == "ru" else "Confirm")
        message.set_content(word + "\n")
        self.sent_lines.append(word)
        deliver(self.inbox, bytes(message), at=at)
        self.at(at + timedelta(minutes=1))

    def _code_of(self, address: str) -> str | None:
        """The confirmation code ``gm+CODE@example.test`` holds, or None (no address,
        or a seat's personal address)."""
        found = re.fullmatch(r"gm\+([0-9a-z]+)@example\.test", address.strip())
        if found is None:
            return None
        seats = (*self.game.players, GM_SEAT)
        tokens = {self.store.player_token(self.game.id, seat) for seat in seats}
        return None if found.group(1) in tokens else found.group(1)

    def cli(
        self, command: str, pull: Callable[[Service, datetime], LeverDone], *, at: datetime
    ) -> None:
        """The GM pulls a lever with ``pbp`` at ``at``, as :func:`pbp.cli.levers._lever`
        does: mail waiting first (D8), the lever, mail held by a pause, the outbox.
        ``command`` is the command line shown; what it prints is an entry of its own
        (the CLI's language is English in every game), before the mail it caused."""
        self.now = at
        self.service.process_inbox(at)
        done = pull(self.service, at)
        self.service.replay_held(at)
        self.service.flush_outbox(at)
        game = self.config.game(self.game.id)
        lever = command.split()[1]
        printed = self.service.gm.result_text(
            game, [{"line": "", "lever": lever, "done": done}], locale=CLI_LOCALE, cli=True
        )
        self.entries.append(f"==== {at:%Y-%m-%d %H:%M} UTC $ {command}\n{printed.rstrip()}\n")
        self._record(at)

    def export(self, command: str, *, at: datetime) -> None:
        """The GM runs ``pbp export GAME`` at ``at`` (``command``; Markdown, the default
        format): what it prints, the story in the game's language, is an entry."""
        self.now = at
        printed = story(self.service, self.game.id, "markdown")
        self.entries.append(f"==== {at:%Y-%m-%d %H:%M} UTC $ {command}\n{printed.rstrip()}\n")

    def seq(self, kind: str, **data: object) -> int:
        """The number of the last event of ``kind`` whose data hold ``data`` (what the
        GM reads off ``pbp show`` to VOID it)."""
        return next(
            e.seq
            for e in reversed(self.store.events(self.game.id))
            if e.event.kind == kind and all(e.event.data.get(k) == v for k, v in data.items())
        )

    def _record(self, when: datetime) -> None:
        mails = read_maildir(self.outbox)
        for mail in mails[self._seen :]:
            self.entries.append(self._entry(mail, when))
        self._seen = len(mails)

    def _entry(self, mail: EmailMessage, when: datetime) -> str:
        to = str(mail["To"])
        who = next((p for p, e in self.game.emails.items() if e == to), "GM" if to == GM else "")
        who = who or self.names.get(to, "")
        text = f"Subject: {mail['Subject']}\n\n{body(mail)}"
        return f"==== {when:%Y-%m-%d %H:%M} UTC → {who} <{to}>\n{self.untokened(text)}"

    def untokened(self, text: str) -> str:
        """``text`` with what is random in a game replaced by a stable mark: every
        personal token by ``<token of NAME>`` (the GM's: ``<token of GM>``), and each
        64-digit hex value (the deal's salt, its SHA-256) by ``<hex N>``, N counting
        the distinct values in order of appearance (so that the SHA-256 of the opening
        post can still be seen to be the one of the final post)."""
        for seat in (*self.game.players, GM_SEAT):
            token = self.store.player_token(self.game.id, seat)
            if token:
                name = "GM" if seat == GM_SEAT else seat
                text = text.replace(token, f"<token of {name}>")
        for n, code in enumerate(self._codes, 1):
            text = text.replace(code, f"<confirmation code {n}>")

        def mark(found: re.Match[str]) -> str:
            return f"<hex {self._hex.setdefault(found.group(0), len(self._hex) + 1)}>"

        return re.sub(r"\b[0-9a-f]{64}\b", mark, text)

    def transcript(self) -> str:
        """Every mail sent so far, in order (the golden text)."""
        return "\n".join(self.entries)


def play(
    directory: Path,
    scenario: str,
    locale: str,
    translations: Mapping[str, gettext.NullTranslations] | None = None,
) -> GoldenTable:
    """The scripted game ``scenario`` (one of :data:`SCENARIOS`) played to its end in
    ``locale``."""
    from .golden_grace import GRACE_GAMES  # they build on this module's table
    from .golden_levers import LEVER_GAMES

    game = {**GAMES, **LEVER_GAMES, **GRACE_GAMES}[scenario]
    table = GoldenTable(directory, game, locale, translations)
    try:
        game.script(table, locale)
    finally:
        table.close()
    return table


# --- Maniac (M1–M12) ---

MANIAC_ITEM = """\
  - id: golden-maniac
    kind: maniac
    locale: {locale}
    timezone: Europe/Moscow
    gm: gm-person@example.test
    seed: 1234
    start: "2026-12-01T12:00"
    day_closes: "22:00"
    night_ends: "10:00"
    players:
{players}
    roles:
      Лев: civilian
      Павел: maniac
      Пётр: civilian
      Любовь: duty_officer
      Кэт: civilian
      Ник: fan
      Ника: civilian
      Мария: civilian
      Илья: civilian
      Никита: civilian
"""


def _maniac(t: GoldenTable, locale: str) -> None:
    ru = locale == "ru"

    def w(ru_line: str, en_line: str) -> str:
        return ru_line if ru else en_line

    close = [utc(2026, 12, d, 19) for d in range(1, 5)]  # day d closes 22:00 Moscow
    t.at(utc(2026, 12, 1, 9))  # the start: roles, the opening post, the GM's sheet
    # Day 1: names in the case the sentence needs, a mistyped one, STATUS, HELP.
    t.move("Лев", w("ГОЛОС за Петра", "VOTE Пётр"), at=utc(2026, 12, 1, 10))
    t.move("Кэт", w("ГОЛОС Петра", "VOTE Пётр"), at=utc(2026, 12, 1, 10, 30))
    t.move("Пётр", w("ГОЛОС Льва", "VOTE Лев"), at=utc(2026, 12, 1, 11))
    t.move("Мария", w("ГОЛОС Маришку", "VOTE Marishka"), at=utc(2026, 12, 1, 11, 30))
    t.move("Ника", w("СТАТУС", "STATUS"), at=utc(2026, 12, 1, 12))
    t.move(
        "Илья",
        w("ГОЛОС Любовь", "VOTE Любовь"),
        w("СНЯТЬ ГОЛОС", "UNVOTE"),
        at=utc(2026, 12, 1, 12, 30),
    )
    t.move("Никита", w("ПОМОЩЬ", "HELP"), at=utc(2026, 12, 1, 13))
    t.at(close[0])  # Пётр to the cell
    # Night 1: the maniac orders Мария's death.
    t.move("Павел", w("УБИТЬ Марию", "KILL Мария"), at=utc(2026, 12, 1, 20))
    t.at(utc(2026, 12, 2, 7))  # dawn 1
    # Day 2: a prison vote for the one who spent the night in the cell; Павел to the cell.
    t.move("Лев", w("ГОЛОС ТЮРЬМА Петра", "VOTE PRISON Пётр"), at=utc(2026, 12, 2, 8))
    for n, voter in enumerate(("Ника", "Илья", "Никита")):
        t.move(voter, w("ГОЛОС Павла", "VOTE Павел"), at=utc(2026, 12, 2, 9, 10 * n))
    t.at(close[1])
    # Night 2: the maniac in the cell; no night is open for orders (M3: the order for
    # night 4 is given on day 3), so his order now is refused.
    t.move("Павел", w("УБИТЬ Льва", "KILL Лев"), at=utc(2026, 12, 2, 20))
    t.at(utc(2026, 12, 3, 7))
    # Day 3: prison for the maniac; the town wins (M12).
    for n, voter in enumerate(("Лев", "Ника", "Илья", "Никита", "Кэт")):
        t.move(voter, w("ГОЛОС ТЮРЬМА Павла", "VOTE PRISON Павел"), at=utc(2026, 12, 3, 8, 10 * n))
    t.at(close[2])


# --- Cluedo by days (C1–C7, D1–D8) ---

CARDS = """\
    cards:
      suspects: [Краснова, Зеленов, Белова]
      weapons: [Топор, Пистолет, Канделябр, Молоток, Верёвка, Нож]
      rooms: [Терраса, Спальня, Библиотека]
    deal:
      solution: [Краснова, Верёвка, Терраса]
      hands:
        {first}: [Зеленов, Белова, Нож]
        {second}: [Спальня, Пистолет, Молоток]
        {third}: [Библиотека, Канделябр, Топор]
"""

DAYS_ITEM = """\
  - id: golden-cluedo-days
    kind: cluedo_days
    locale: {locale}
    timezone: Europe/Moscow
    day_closes: "22:30"
    gm: gm-person@example.test
    seed: 1234
    start: "2026-12-01T20:00"
    players:
{players}
""" + CARDS.format(first="Неташка", second="Веталь", third="Дуг")


def _cluedo_days(t: GoldenTable, locale: str) -> None:
    ru = locale == "ru"

    def w(ru_line: str, en_line: str) -> str:
        return ru_line if ru else en_line

    t.at(utc(2026, 12, 1, 17))  # the start
    # Day 1 (closes 19:30 UTC).
    t.move(
        "Неташка",
        w(
            "ПРЕДПОЛОЖЕНИЕ Белова, Пистолет, Спальня ДЛЯ Веталя",
            "SUGGEST Белова, Пистолет, Спальня TO Веталь",
        ),
        at=utc(2026, 12, 1, 17, 10),
    )
    t.move("Веталь", w("ОПРОВЕРЖЕНИЕ Пистолет", "REFUTE Пистолет"), at=utc(2026, 12, 1, 17, 20))
    t.move(
        "Дуг",
        w(
            "ПРЕДПОЛОЖЕНИЕ Краснова, Нож, Терраса ДЛЯ Неташки",
            "SUGGEST Краснова, Нож, Терраса TO Неташка",
        ),
        at=utc(2026, 12, 1, 17, 30),
    )
    t.move(
        "Веталь",
        w(
            "ПРЕДПОЛОЖЕНИЕ Зеленов, Верёвка, Библиотека ДЛЯ Дуга",
            "SUGGEST Зеленов, Верёвка, Библиотека TO Дуг",
        ),
        at=utc(2026, 12, 1, 17, 40),
    )
    t.move(
        "Дуг", w("НЕТ ОПРОВЕРЖЕНИЯ", "NO REFUTATION"), at=utc(2026, 12, 1, 17, 50)
    )  # holds Библиотека
    t.move("Неташка", w("СТАТУС", "STATUS"), at=utc(2026, 12, 1, 18))
    t.at(utc(2026, 12, 1, 19, 30))  # day 1 closes: Неташка has not answered Дуг (the GM does)
    # Day 2: a wrong accusation, then a right one.
    t.move(
        "Веталь",
        w("ОБВИНЕНИЕ Зеленов, Нож, Спальня", "ACCUSE Зеленов, Нож, Спальня"),
        at=utc(2026, 12, 2, 8),
    )
    t.move(
        "Дуг",
        w("ОБВИНЕНИЕ Краснова, Верёвка, Терраса", "ACCUSE Краснова, Верёвка, Терраса"),
        at=utc(2026, 12, 2, 9),
    )
    t.at(utc(2026, 12, 2, 19, 30))


# --- Cluedo by rounds (C1–C7, R1–R7) ---

ROUNDS_ITEM = """\
  - id: golden-cluedo-rounds
    kind: cluedo_rounds
    locale: {locale}
    timezone: Europe/Moscow
    gm: gm-person@example.test
    seed: 1234
    start: "2026-12-01T20:00"
    turn_hours: 24
    answer_hours: 12
    players:
{players}
""" + CARDS.format(first="Шапо", second="Саша", third="Любовь")


def _cluedo_rounds(t: GoldenTable, locale: str) -> None:
    ru = locale == "ru"

    def w(ru_line: str, en_line: str) -> str:
        return ru_line if ru else en_line

    t.at(utc(2026, 12, 1, 17))  # the start: Шапо's turn
    t.move(
        "Саша",
        w("ПРЕДПОЛОЖЕНИЕ Белова, Нож, Спальня", "SUGGEST Белова, Нож, Спальня"),
        at=utc(2026, 12, 1, 17, 10),
    )  # not her turn
    t.move(
        "Шапо",
        w("ПРЕДПОЛОЖЕНИЕ Краснова, Пистолет, Спальня", "SUGGEST Краснова, Пистолет, Спальня"),
        at=utc(2026, 12, 1, 17, 20),
    )
    t.move("Саша", w("ОПРОВЕРЖЕНИЕ Спальня", "REFUTE Спальня"), at=utc(2026, 12, 1, 17, 30))
    t.move(
        "Саша",
        w("ПРЕДПОЛОЖЕНИЕ Зеленов, Верёвка, Библиотека", "SUGGEST Зеленов, Верёвка, Библиотека"),
        at=utc(2026, 12, 1, 18),
    )
    t.at(utc(2026, 12, 2, 6, 30))  # Любовь does not answer in 12 hours (R7)
    t.at(utc(2026, 12, 3, 7))  # Любовь's turn passes unplayed (R7)
    t.move(
        "Шапо",
        w("ОБВИНЕНИЕ Краснова, Верёвка, Терраса", "ACCUSE Краснова, Верёвка, Терраса"),
        at=utc(2026, 12, 3, 8),
    )


GAMES: dict[str, Game] = {
    "maniac": Game(
        "maniac",
        ("Лев", "Павел", "Пётр", "Любовь", "Кэт", "Ник", "Ника", "Мария", "Илья", "Никита"),
        MANIAC_ITEM,
        utc(2026, 12, 1, 9),
        _maniac,
        {"Кэт": "f", "Ник": "m"},
    ),
    "cluedo_days": Game(
        "cluedo_days",
        ("Неташка", "Веталь", "Дуг"),
        DAYS_ITEM,
        utc(2026, 12, 1, 17),
        _cluedo_days,
        {"Веталь": "m", "Дуг": "f"},
    ),
    "cluedo_rounds": Game(
        "cluedo_rounds",
        ("Шапо", "Саша", "Любовь"),
        ROUNDS_ITEM,
        utc(2026, 12, 1, 17),
        _cluedo_rounds,
    ),
}


# --- the pseudo-locale (issue 16: every text a reader sees comes from a catalog) ---


class Pseudo(gettext.NullTranslations):
    """A catalog that translates every message to itself in ``⟦…⟧``: a text rendered
    with it shows, outside those brackets, only what no catalog gave."""

    def gettext(self, message: str) -> str:
        return f"⟦{message}⟧"

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return f"⟦{msgid1 if n == 1 else msgid2}⟧"

    def pgettext(self, context: str, message: str) -> str:
        return f"⟦{message}⟧"

    def npgettext(self, context: str, msgid1: str, msgid2: str, n: int) -> str:
        return f"⟦{msgid1 if n == 1 else msgid2}⟧"


def outside_brackets(text: str) -> str:
    """``text`` without its ``⟦…⟧`` spans (nested ones too)."""
    depth = 0
    kept: list[str] = []
    for char in text:
        if char == "⟦":
            depth += 1
        elif char == "⟧":
            depth = max(depth - 1, 0)
        elif depth == 0:
            kept.append(char)
    return "".join(kept)


_LETTERS = re.compile(r"[A-Za-zА-Яа-яЁё]")
#: What has letters but is no text: the transcript's marks, markup, and names the same
#: in every language (mail header fields, the post formats, the hash).
_NAMES = re.compile(
    r"<token of [^>]+>|<hex \d+>|\[/?(b|i|u|s|quote|code)\]|^Subject:|\bRe:"
    r"|Message-ID|BBCode|Markdown|SHA-256"
)


def untranslated(table: GoldenTable) -> list[str]:
    """The lines of ``table``'s transcript (played with :class:`Pseudo` as its
    locale's catalog) that show letters no catalog gave, once each: what is left
    after the ``⟦…⟧`` spans, the game's own data (its id, the players, cards and
    addresses of ``games.yaml``, the players' own lines quoted back, the zone), the
    transcript's marks and the mail protocol's words (``Subject:``, ``Re:``) are
    taken out, and so are the lines of the canonical deal string (its keys are data)."""
    config = table.config.games[0]
    data = {config.id, config.display_title, "Europe/Moscow", *table.game.emails.values()}
    data |= {GM, "gm@example.test"}
    data |= set(table.game.players)
    cards = getattr(config, "cards", None)
    if cards is not None:
        data |= {*cards.suspects, *cards.weapons, *cards.rooms}
    data |= {line.strip() for line in table.sent_lines}
    data |= {*table.names, *table.names.values()}  # a substitute's address and name
    data |= {"ход", "move", "команды", "commands"}  # the Subjects the players and the GM wrote
    # The dates Babel writes from CLDR (pbp.text.timetext: «1 декабря 2026 г.»), not a catalog.
    data |= {str(m) for m in babel_dates.get_month_names("wide", locale=table.locale).values()}
    data.add("г.")
    found: list[str] = []
    for entry in table.entries:
        body = "\n".join(
            line
            for line in entry.split("\n")[1:]  # the transcript's own header left out
            if '{"deal":' not in line  # the canonical deal string (fairness): data
        )
        for line in outside_brackets(body).split("\n"):
            rest = re.sub(_NAMES, "", line)
            for item in sorted(data, key=len, reverse=True):
                rest = rest.replace(item, "")
            if _LETTERS.search(rest) and line not in found:
                found.append(line)
    return found


#: Every scenario's transcript (every mail and post), by locale then scenario.
Transcripts = dict[str, dict[str, str]]


def transcripts(directory: Path) -> Transcripts:
    """Every scenario of :data:`SCENARIOS` played once in each locale of :data:`LOCALES`
    under ``directory`` (the texts' read-through tests share one session's plays:
    ``tests/conftest.py``'s ``texts``)."""
    texts: Transcripts = {}
    for locale in LOCALES:
        texts[locale] = {}
        for scenario in SCENARIOS:
            (place := directory / f"{scenario}-{locale}").mkdir(parents=True)
            texts[locale][scenario] = play(place, scenario, locale).transcript()
    return texts


def everywhere(texts: Transcripts, locale: str, scenarios: tuple[str, ...] = SCENARIOS) -> str:
    """The transcripts of ``scenarios`` in ``locale``, one after the other."""
    return "\n".join(texts[locale][scenario] for scenario in scenarios)


def mails(text: str) -> list[str]:
    """A transcript's entries, each from its ``====`` line."""
    return ["====" + part for part in text.split("\n====")[1:]]
