"""Reading the GM's commands from a mail to his own personal address.

One command per line, read as players' lines are (markup, list markers and
look-alike letters folded: :func:`pbp.text.commands.read_line`); a line that starts
with no GM keyword (a greeting, a player's command such as STATUS, a pbp CLI word such
as CLOSE-DAY) gives a line whose error is ``gm_not_a_command`` (with the keyword it
resembles, if any, as ``suggestion``), so the GM's answer says so line by line; quotes
and the signature are cut off before (:mod:`pbp.mail.read.mime`). Keywords in any locale's
words (``gm`` in ``pbp/locale/<locale>/keywords.yaml``, :mod:`pbp.text.keywords`), any
case; the GM's note, where a command takes one, follows `` -- `` or `` — ``::

    ACT Петя: SUGGEST Маша, нож, кухня TO Вася     ЗА Петю: ПРЕДПОЛОЖЕНИЕ …
    PAUSE -- away for the weekend                  ПАУЗА — уехал на выходные
    RESUME                                         ПРОДОЛЖИТЬ (ВОЗОБНОВИТЬ)
    EXTEND 3                                       ПРОДЛИТЬ 3   (hours; 1.5 allowed)
    SUBSTITUTE Петя BY Вова vova@example.test      ЗАМЕНА Петя НА Вова vova@example.test
    ADDRESS Петя petya@example.test                АДРЕС Петя petya@example.test
    REMOVE Петя                                    ИСКЛЮЧИТЬ Петю
    VOID 17                                        ОТМЕНИТЬ 17  (an event number)
    EXPORT markdown                                ЭКСПОРТ markdown
    HELP                                           ПОМОЩЬ  (the list of GM commands)
    STATUS [ALL]                                   СТАТУС [ВСЕ]  (where the game stands)
    CLOSE DAY                                      ЗАКРЫТЬ ДЕНЬ  (a deadline now, as
    END NIGHT                                      ЗАВЕРШИТЬ НОЧЬ  ``pbp close-day``)
    KEPT                                           ОТЛОЖЕННЫЕ  (the kept mail of his games)
    RETRY 12 13                                    ПОВТОРИТЬ 12 13  (kept ids)
    DISMISS 12                                     ОТКЛОНИТЬ 12
    NEW ADDRESS                                    НОВЫЙ АДРЕС  (a new GM address)

A keyword may be two words (CLOSE DAY): the two first words of a line are tried first.

Each lever is a dataclass (:data:`Lever`), dispatched by type in :mod:`pbp.app.gm`;
errors are :class:`~pbp.games.core.events.InvalidMove` like a player's. Player names are
resolved later, against the game's seats (:mod:`pbp.app.gm`). Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass
from typing import Any, TypedDict

from pbp.games.core.events import InvalidMove, Json
from pbp.text import keywords
from pbp.text.commands import MAX_LINES, read_line
from pbp.text.export import FORMATS, ExportFormat
from pbp.text.names import closest_keyword


@dataclass(frozen=True)
class Act:
    """``ACT PLAYER: MOVE``: ``move`` entered for ``player`` (a name as written)."""

    player: str
    move: str


@dataclass(frozen=True)
class Pause:
    """``PAUSE``."""


@dataclass(frozen=True)
class Resume:
    """``RESUME``."""


@dataclass(frozen=True)
class Extend:
    """``EXTEND HOURS``: the current deadline ``hours`` later (> 0, fractions allowed)."""

    hours: float


@dataclass(frozen=True)
class Substitute:
    """``SUBSTITUTE PLAYER BY NAME ADDRESS``: ``player``'s seat to ``name`` at ``email``
    (lower-cased)."""

    player: str
    name: str
    email: str


@dataclass(frozen=True)
class Readdress:
    """``ADDRESS PLAYER NEW``: ``player``'s seat registered at ``email`` (lower-cased)
    instead of its address now; no public post (:meth:`pbp.app.gm.GmDesk.readdress`)."""

    player: str
    email: str


@dataclass(frozen=True)
class Remove:
    """``REMOVE PLAYER``."""

    player: str


@dataclass(frozen=True)
class Void:
    """``VOID EVENT``: the move logged as event number ``event``."""

    event: int


@dataclass(frozen=True)
class Export:
    """``EXPORT [FORMAT]`` (default markdown)."""

    format: ExportFormat


@dataclass(frozen=True)
class Help:
    """``HELP``: the list of GM commands."""


@dataclass(frozen=True)
class Status:
    """``STATUS [ALL]``: where the game stands (``all``: every game of this GM), for the
    GM's eyes only; it changes nothing."""

    all: bool = False


@dataclass(frozen=True)
class PassDeadline:
    """``CLOSE DAY``, ``END NIGHT``: pass the current deadline now, as the CLI's deadline
    command ``command`` does (``"close-day"``, ``"end-night"``: a
    :class:`~pbp.games.core.kind.DeadlineCommand` of the game's kind, found by its name);
    ``period``: the day (or night) it passes, set when the GM is asked to confirm it
    (None: the current one)."""

    command: str
    period: int | None = None


@dataclass(frozen=True)
class Kept:
    """``KEPT``: the kept mail of the GM's games (as ``pbp kept``)."""


@dataclass(frozen=True)
class Retry:
    """``RETRY ID…``: process these kept mails again (as ``pbp retry``)."""

    ids: tuple[int, ...]


@dataclass(frozen=True)
class Dismiss:
    """``DISMISS ID…``: close these kept mails unapplied (as ``pbp dismiss``)."""

    ids: tuple[int, ...]


@dataclass(frozen=True)
class NewAddress:
    """``NEW ADDRESS``: a new personal GM address (his old one leaked), as ``pbp
    rotate-token GAME --gm`` gives (:meth:`pbp.app.gm.addresses.Addresses.rotate_token`)."""


#: One GM lever.
Lever = (
    Act
    | Pause
    | Resume
    | Extend
    | Substitute
    | Readdress
    | Remove
    | Void
    | Export
    | Help
    | PassDeadline
    | Kept
    | Retry
    | Dismiss
    | Status
    | NewAddress
)

#: The keyword entries (section ``gm``) of the deadline commands by mail, each the
#: CLI's command name with ``_`` for ``-`` (:class:`PassDeadline`).
DEADLINE_LEVERS = ("close_day", "end_night")
#: The levers on kept mail (:mod:`pbp.app.gm.kept`), by their keyword entries.
KEPT_LEVERS = ("kept", "retry", "dismiss")

#: Each lever's name, as results, confirmations and texts call it.
NAMES: dict[type[Lever], str] = {
    Act: "act",
    Pause: "pause",
    Resume: "resume",
    Extend: "extend",
    Substitute: "substitute",
    Readdress: "readdress",
    Remove: "remove",
    Void: "void",
    Export: "export",
    Help: "help",
    Status: "status",
    PassDeadline: "close_day",  # or "end_night": the line's name says which
    Kept: "kept",
    Retry: "retry",
    Dismiss: "dismiss",
    NewAddress: "new_address",
}
_BY_NAME: dict[str, type[Lever]] = {
    **{name: cls for cls, name in NAMES.items()},
    **dict.fromkeys(DEADLINE_LEVERS, PassDeadline),
}

#: The levers whose keywords :mod:`pbp.text.keywords` holds (section ``gm``), in order.
_LEVERS = (
    "act",
    "pause",
    "resume",
    "extend",
    "substitute",
    "readdress",
    "remove",
    "void",
    "export",
    "help",
    *DEADLINE_LEVERS,
    *KEPT_LEVERS,
    "status",
    "new_address",
)


def keywords_of() -> dict[str, str]:
    """Keyword (upper case, ``Ё`` read as ``Е``) → the lever it names, in every locale
    (:mod:`pbp.text.keywords`): ``{"ACT": "act", "ЗА": "act", …}``."""
    return _gm(keywords.current()).keywords


def shown(locale: str) -> dict[str, str]:
    """How the GM's texts write each lever's keyword in ``locale`` (its first word in
    ``keywords.yaml``, section ``gm``), the word between a substitute's seat and name
    (``by``) and EXPORT's formats: ``{"act": "ЗА", "pause": "ПАУЗА", …, "help":
    "ПОМОЩЬ", "by": "НА", "formats": "markdown|bbcode|html"}``. A locale without
    keywords (a test's pseudo-locale) gets the first locale's words.

    >>> shown("en")["substitute"], shown("ru")["by"], shown("ru")["formats"]
    ('SUBSTITUTE', 'НА', 'markdown|bbcode|html')
    """
    return _shown(keywords.current(), locale)


@functools.cache
def _shown(vocabulary: keywords.Vocabulary, locale: str) -> dict[str, str]:
    chosen = locale if locale in vocabulary.locales else vocabulary.locales[0]
    words = {key: vocabulary.words("gm", key, chosen)[0] for key in (*_LEVERS, "by", "all")}
    return {**words, "formats": "|".join(FORMATS)}


@dataclass(frozen=True)
class _Vocab:
    keywords: dict[str, str]
    by: re.Pattern[str]
    hours: re.Pattern[str]
    all: frozenset[str]


@functools.cache
def _gm(vocabulary: keywords.Vocabulary) -> _Vocab:
    found: dict[str, str] = {}
    for locale in vocabulary.locales:
        for lever in _LEVERS:
            for word in vocabulary.words("gm", lever, locale):
                found.setdefault(word.upper().replace("Ё", "Е"), lever)
    units = keywords.alternation(vocabulary.words("gm", "hours"))
    by = keywords.alternation(vocabulary.words("gm", "by"))
    return _Vocab(
        found,
        re.compile(rf"\s+{by}\s+", re.IGNORECASE),
        re.compile(rf"^(\d+(?:[.,]\d+)?)\s*{units}?\.?$", re.IGNORECASE),
        frozenset(_folded(w) for w in vocabulary.words("gm", "all")),
    )


def _folded(word: str) -> str:
    """``word`` as keywords are compared: upper case, ``Ё`` read as ``Е``."""
    return word.upper().replace("Ё", "Е")


#: Every lever's syntax with its English keywords, its arguments in angle brackets as
#: the players' help writes them (for the help of a refusal).
SYNTAX = {
    "act": "ACT <player>: <move>",
    "pause": "PAUSE",
    "resume": "RESUME",
    "extend": "EXTEND <hours>",
    "substitute": "SUBSTITUTE <player> BY <name> <address>",
    "readdress": "ADDRESS <player> <new address>",
    "remove": "REMOVE <player>",
    "void": "VOID <event>",
    "export": "EXPORT " + "|".join(FORMATS),
    "help": "HELP",
    "status": "STATUS [ALL]",
    "close_day": "CLOSE DAY",
    "end_night": "END NIGHT",
    "kept": "KEPT",
    "retry": "RETRY <id>...",
    "dismiss": "DISMISS <id>...",
    "new_address": "NEW ADDRESS",
}

_NOTE = re.compile(r"\s+(?:--|—|–)\s+")
#: Most digits of a VOID's event number: the log's numbers are SQLite INTEGERs
#: (below 2**63, 19 digits); a longer number is a syntax error, not a lookup.
_EVENT_DIGITS = 19
#: The largest number a VOID or a kept-mail lever may name: SQLite's largest INTEGER.
_LARGEST_ID = 2**63 - 1
_ADDRESS = re.compile(r"^<?([^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)>?$")


class StoredLine(TypedDict):
    """A GM's line as stored with a pending confirmation (:meth:`GmLine.to_json`): the
    ``line`` as written, its ``lever``'s name, the lever's fields (``args``, JSON: a
    tuple comes back as a list) and the GM's ``note``."""

    line: str
    lever: str
    args: dict[str, Json]  # each lever's own fields, read back by :meth:`GmLine.from_json`
    note: str | None


@dataclass(frozen=True)
class GmLine:
    """One line of the GM's mail: ``lever`` with its ``note``, or ``error`` (its code a
    text of ``templates/<locale>/errors/``: ``gm_syntax`` {lever, syntax},
    ``gm_not_a_command`` {suggestion?}); ``line``: as the GM wrote it (spaces
    collapsed); ``name``: the lever the line's keyword names, also when its arguments
    do not fit (None: no GM keyword)."""

    line: str
    name: str | None
    lever: Lever | None = None
    note: str | None = None
    error: InvalidMove | None = None

    def to_json(self) -> StoredLine:
        """The line as stored with a pending confirmation: ``{"line", "lever" (its
        name), "args" (its fields), "note"}``. :raises ValueError: a refused line."""
        if self.lever is None or self.name is None:
            raise ValueError(f"line {self.line!r} holds no lever")
        args = dataclasses.asdict(self.lever)
        return {"line": self.line, "lever": self.name, "args": args, "note": self.note}

    @staticmethod
    def from_json(data: StoredLine) -> GmLine:
        """Inverse of :meth:`to_json`. :raises KeyError: an unknown lever name."""
        # JSON has no tuple: the ids of RETRY and DISMISS come back as a list.
        args: dict[str, Any] = {  # JSON read back by its shape: the lever's own fields
            k: tuple(v) if isinstance(v, list) else v for k, v in data["args"].items()
        }
        lever = _BY_NAME[data["lever"]](**args)
        return GmLine(data["line"], data["lever"], lever, data["note"])


def _split_note(rest: str) -> tuple[str, str | None]:
    parts = _NOTE.split(f" {rest}", maxsplit=1)
    if len(parts) == 2:
        return parts[0].strip(), parts[1].strip() or None
    return rest.strip(), None


def parse_gm(text: str) -> list[GmLine]:
    """The GM command lines of a mail body, in order (see the module docstring).

    A line whose first word is a keyword but whose arguments do not fit gives a line
    with error ``gm_syntax`` {lever, syntax}; any other non-blank line one with error
    ``gm_not_a_command``, with ``suggestion`` (the keyword, as in :data:`SYNTAX`'s
    language of the word) when its first word resembles one (``PAUZE``). Only the
    first :data:`~pbp.text.commands.MAX_LINES` lines are read (linear time).
    """
    lines: list[GmLine] = []
    for raw_line in text.splitlines()[:MAX_LINES]:
        line = " ".join(raw_line.split())  # as the GM wrote it, for his answer
        read = read_line(line)
        if not read:
            continue
        name, rest = _keyword(read)
        if name is None:
            word = read.partition(" ")[0].rstrip(":").upper().replace("Ё", "Е")
            lines.append(GmLine(line, None, error=_not_a_command(word)))
            continue
        lines.append(_read(line, name, rest.strip()))
    return lines


def _keyword(read: str) -> tuple[str | None, str]:
    """The lever the line ``read`` begins with and the rest of the line: a two-word
    keyword (``CLOSE DAY``) is tried before a one-word one; ``(None, read)`` when the
    line begins with none."""
    words = read.split(" ")
    for count in (2, 1):
        if len(words) < count:
            continue
        phrase = " ".join(words[:count]).rstrip(":").upper().replace("Ё", "Е")
        name = keywords_of().get(phrase)
        if name is not None:
            return name, " ".join(words[count:])
    return None, read


def _not_a_command(word: str) -> InvalidMove:
    close = closest_keyword(word, list(keywords_of())) if word.isalpha() else None
    if close is None:
        return InvalidMove("gm_not_a_command")
    return InvalidMove("gm_not_a_command", suggestion=close)


def _syntax(line: str, name: str) -> GmLine:
    error = InvalidMove("gm_syntax", lever=name, syntax=SYNTAX[name])
    return GmLine(line, name, error=error)


def _read(line: str, name: str, rest: str) -> GmLine:
    rest, note = _split_note(rest)
    lever = _lever(name, rest)
    if lever is None:
        return _syntax(line, name)
    return GmLine(line, name, lever, note)


def _kept_ids(rest: str) -> tuple[int, ...]:
    """The kept ids of ``12 13``, ``#12, #13``, each once in order; ``()`` when any word
    is no id (or the list is empty)."""
    ids: dict[int, None] = {}
    for word in rest.replace(",", " ").split():
        number = word.lstrip("#№")
        if not (number.isdecimal() and number.isascii() and len(number) <= _EVENT_DIGITS):
            return ()
        if int(number) > _LARGEST_ID:  # 19 digits go past SQLite's INTEGER (2**63 - 1)
            return ()
        ids[int(number)] = None
    return tuple(ids)


def _lever(name: str, rest: str) -> Lever | None:
    """The lever ``name`` with the arguments ``rest``, or None when they do not fit."""
    if name == "act":
        player, colon, move = rest.partition(":")
        if not colon or not player.strip() or not move.strip():
            return None
        return Act(player.strip(), move.strip())
    if name in ("pause", "resume", "help", "kept", "new_address"):
        alone: dict[str, Lever] = {
            "pause": Pause(),
            "resume": Resume(),
            "help": Help(),
            "kept": Kept(),
            "new_address": NewAddress(),
        }
        return None if rest else alone[name]
    if name == "status":
        if not rest:
            return Status()
        return Status(all=True) if _folded(rest) in _gm(keywords.current()).all else None
    if name in DEADLINE_LEVERS:
        return None if rest else PassDeadline(name.replace("_", "-"))
    if name in ("retry", "dismiss"):
        ids = _kept_ids(rest)
        if not ids:
            return None
        return Retry(ids) if name == "retry" else Dismiss(ids)
    if name == "extend":
        match = _gm(keywords.current()).hours.match(rest)
        hours = float(match.group(1).replace(",", ".")) if match else 0.0
        return Extend(hours) if hours > 0 else None
    if name == "substitute":
        parts = _gm(keywords.current()).by.split(rest, maxsplit=1)
        if len(parts) != 2:
            return None
        words = parts[1].split()
        address = _ADDRESS.match(words[-1]) if len(words) >= 2 else None
        if address is None:
            return None
        return Substitute(parts[0].strip(), " ".join(words[:-1]), address.group(1).lower())
    if name == "readdress":
        player, _, email = rest.rpartition(" ")
        address = _ADDRESS.match(email)
        if address is None or not player.strip():
            return None
        return Readdress(player.strip(), address.group(1).lower())
    if name == "remove":
        return Remove(rest) if rest else None
    if name == "void":
        number = rest.lstrip("#№")
        # "²".isdigit() is true, int("²") fails: only digits int() reads (any script's),
        # and no more of them than an event number has (int() refuses 4,301 digits)
        fits = number.isdecimal() and len(number) <= _EVENT_DIGITS
        return Void(int(number)) if fits and int(number) <= _LARGEST_ID else None
    fmt = rest.lower() or "markdown"
    for known in FORMATS:
        if fmt == known:
            return Export(known)
    return None
