"""``GUESS N`` / ``УГАДАЙ N`` and ``STATUS`` / ``СТАТУС``, one per line."""

from __future__ import annotations

from guessgame.engine import Guess, Status
from pbp.games.core.events import InvalidMove
from pbp.games.core.kind import ParsedCommand
from pbp.text.commands import command_lines, read_line

#: What the parser reads: a guess, or ``STATUS`` (private, never applied).
GuessMove = Guess | Status


def parse_guess(text: str) -> list[ParsedCommand[GuessMove]]:
    """The command lines of ``text``; other lines are not commands."""
    found: list[ParsedCommand[GuessMove]] = []
    for index, raw in enumerate(command_lines(text)):
        line = read_line(raw)
        word, _, rest = line.partition(" ")
        word = word.upper()
        if word in ("STATUS", "СТАТУС") and not rest:
            found.append(ParsedCommand(index + 1, raw, Status(), None, private=True))
        elif word in ("GUESS", "УГАДАЙ"):
            if rest.strip().isdigit():
                found.append(ParsedCommand(index + 1, raw, Guess(int(rest)), None))
            else:
                error = InvalidMove("guess_syntax", line=line)
                found.append(ParsedCommand(index + 1, raw, None, error))
    return found
