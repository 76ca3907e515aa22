"""Reading the GM's commands from a mail to his own personal address.

One command per line; a line that starts with no GM keyword (a greeting, a
player's command such as STATUS, a pbp CLI word such as CLOSE-DAY) gives a command
with ``error="gm_not_a_command"``, so the GM's answer says so line by line; quotes
and the signature are cut off before (:mod:`pbp.parse.mime`). Keywords in English or Russian, any
case; the GM's note, where a command takes one, follows `` -- `` or `` — ``::

    ACT Петя: SUGGEST Маша, нож, кухня TO Вася     ЗА Петю: ПРЕДПОЛОЖЕНИЕ …
    PAUSE -- away for the weekend                  ПАУЗА — уехал на выходные
    RESUME                                         ПРОДОЛЖИТЬ (ВОЗОБНОВИТЬ)
    EXTEND 3                                       ПРОДЛИТЬ 3   (hours; 1.5 allowed)
    SUBSTITUTE Петя BY Вова vova@example.test      ЗАМЕНА Петя НА Вова vova@example.test
    REMOVE Петя                                    ИСКЛЮЧИТЬ Петю
    VOID 17                                        ОТМЕНИТЬ 17  (an event number)
    EXPORT markdown                                ЭКСПОРТ markdown
    HELP                                           ПОМОЩЬ  (the list of GM commands)

Player names are resolved later, against the game's seats (:mod:`pbp.gm`). Pure:
no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from pbp.parse.commands import MAX_LINES

#: Keyword (upper case, ``Ё`` read as ``Е``) → the lever it names.
KEYWORDS: dict[str, str] = {
    "ACT": "act",
    "ЗА": "act",
    "PAUSE": "pause",
    "ПАУЗА": "pause",
    "RESUME": "resume",
    "ПРОДОЛЖИТЬ": "resume",
    "ВОЗОБНОВИТЬ": "resume",
    "EXTEND": "extend",
    "ПРОДЛИТЬ": "extend",
    "SUBSTITUTE": "substitute",
    "ЗАМЕНА": "substitute",
    "ЗАМЕНИТЬ": "substitute",
    "REMOVE": "remove",
    "ИСКЛЮЧИТЬ": "remove",
    "VOID": "void",
    "ОТМЕНИТЬ": "void",
    "EXPORT": "export",
    "ЭКСПОРТ": "export",
    "HELP": "help",
    "ПОМОЩЬ": "help",
}

#: Every lever with its English and Russian keywords (for the help of a refusal).
SYNTAX = {
    "act": "ACT PLAYER: MOVE",
    "pause": "PAUSE",
    "resume": "RESUME",
    "extend": "EXTEND HOURS",
    "substitute": "SUBSTITUTE PLAYER BY NAME ADDRESS",
    "remove": "REMOVE PLAYER",
    "void": "VOID EVENT",
    "export": "EXPORT markdown|bbcode|html",
    "help": "HELP",
}

_NOTE = re.compile(r"\s+(?:--|—|–)\s+")
_HOURS = re.compile(r"^(\d+(?:[.,]\d+)?)\s*(?:h|hours?|ч|час|часа|часов)?\.?$", re.IGNORECASE)
_BY = re.compile(r"\s+(?:BY|НА|ON)\s+", re.IGNORECASE)
_ADDRESS = re.compile(r"^<?([^\s<>@]+@[^\s<>@]+\.[^\s<>@]+)>?$")
FORMATS = ("markdown", "bbcode", "html")


@dataclass(frozen=True)
class GmCommand:
    """One GM command line: ``lever`` (``act``, ``pause``, …) with its ``args``, or
    ``error`` (a code of ``templates/<locale>/errors/``, with ``params``)."""

    line: str
    lever: str | None
    args: dict[str, Any] = field(default_factory=dict)
    note: str | None = None
    error: str | None = None
    params: dict[str, Any] = field(default_factory=dict)


def _split_note(rest: str) -> tuple[str, str | None]:
    parts = _NOTE.split(f" {rest}", maxsplit=1)
    if len(parts) == 2:
        return parts[0].strip(), parts[1].strip() or None
    return rest.strip(), None


def parse_gm(text: str) -> list[GmCommand]:
    """The GM commands of a mail body, in order (see the module docstring).

    A line whose first word is a keyword but whose arguments do not fit gives a
    command with ``error="gm_syntax"`` and ``params={"lever", "syntax"}``; any other
    non-blank line one with ``lever=None`` and ``error="gm_not_a_command"``. Only the
    first :data:`~pbp.parse.commands.MAX_LINES` lines are read (linear time).
    """
    commands: list[GmCommand] = []
    for raw_line in text.splitlines()[:MAX_LINES]:
        line = " ".join(raw_line.split())
        if not line:
            continue
        head, _, rest = line.partition(" ")
        word = head.rstrip(":").upper().replace("Ё", "Е")
        lever = KEYWORDS.get(word)
        if lever is None:
            commands.append(GmCommand(line, None, error="gm_not_a_command"))
            continue
        commands.append(_read(line, lever, rest.strip()))
    return commands


def _syntax(line: str, lever: str) -> GmCommand:
    return GmCommand(
        line, lever, error="gm_syntax", params={"lever": lever, "syntax": SYNTAX[lever]}
    )


def _read(line: str, lever: str, rest: str) -> GmCommand:
    rest, note = _split_note(rest)
    if lever == "act":
        player, colon, move = rest.partition(":")
        if not colon or not player.strip() or not move.strip():
            return _syntax(line, lever)
        return GmCommand(line, lever, {"player": player.strip(), "move": move.strip()}, note)
    if lever in ("pause", "resume", "help"):
        if rest:
            return _syntax(line, lever)
        return GmCommand(line, lever, note=note)
    if lever == "extend":
        match = _HOURS.match(rest)
        if match is None or float(match.group(1).replace(",", ".")) <= 0:
            return _syntax(line, lever)
        return GmCommand(line, lever, {"hours": float(match.group(1).replace(",", "."))}, note)
    if lever == "substitute":
        parts = _BY.split(rest, maxsplit=1)
        if len(parts) != 2:
            return _syntax(line, lever)
        words = parts[1].split()
        address = _ADDRESS.match(words[-1]) if len(words) >= 2 else None
        if address is None:
            return _syntax(line, lever)
        args = {
            "player": parts[0].strip(),
            "name": " ".join(words[:-1]),
            "email": address.group(1).lower(),
        }
        return GmCommand(line, lever, args, note)
    if lever == "remove":
        if not rest:
            return _syntax(line, lever)
        return GmCommand(line, lever, {"player": rest}, note)
    if lever == "void":
        number = rest.lstrip("#№")
        if not number.isdigit():
            return _syntax(line, lever)
        return GmCommand(line, lever, {"event": int(number)}, note)
    fmt = rest.lower() or "markdown"
    if fmt not in FORMATS:
        return _syntax(line, lever)
    return GmCommand(line, lever, {"format": fmt}, note)
