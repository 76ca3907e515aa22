"""Copies of our own mails in a player's new text, cut off: an unmarked copy of the
mail answered (:func:`strip_echo`) and our command help pasted or quoted without marks
(:func:`strip_help_echo`). Used by :mod:`pbp.app.playermoves` on the text
:func:`pbp.mail.read.body.split_reply` kept.

Pure string functions, each linear in its input.
"""

from __future__ import annotations

import itertools
from functools import lru_cache

from pbp.mail.safetext import INVISIBLE

_INVISIBLE = INVISIBLE | str.maketrans({"\r": None, "\u2028": "\n", "\u2029": "\n"})


def strip_echo(text: str, sent: str) -> str:
    """``text`` cut where it starts repeating ``sent`` without quote marks.

    ``sent`` is the plain-text body of our mail that the player answers (found by
    In-Reply-To); ``text`` is his new text (:func:`pbp.mail.read.body.new_text`). Some
    clients quote without ``>`` and some players paste our whole mail: such an echo must
    never be executed.
    ``text`` is cut from the first of 2 or more consecutive non-blank lines (blank lines
    between them allowed) each of which, stripped of surrounding white space, equals a
    line of ``sent`` (also stripped; a leading ``>`` is *not* removed, so ``> x`` is not
    ``x``). A single copied line (our example ``ОПРОВЕРЖЕНИЕ 1 Пистолет``) stays.
    Trailing blank lines of the kept part are removed; ``text`` comes back unchanged
    when no echo is found. Linear in the sizes of both.

    >>> strip_echo("REFUTE 1 нож\\nYour hand:\\nнож, кухня", "Your hand:\\nнож, кухня\\n")
    'REFUTE 1 нож'
    """
    ours = {line.strip() for line in sent.translate(_INVISIBLE).split("\n")}
    ours.discard("")
    lines = text.split("\n")
    run_start = -1
    run = 0
    for index, line in enumerate(lines):
        stripped = line.translate(_INVISIBLE).strip()
        if not stripped:
            continue
        if stripped not in ours:
            run = 0
            continue
        if run == 0:
            run_start = index
        run += 1
        if run >= 2:
            return "\n".join(lines[:run_start]).rstrip()
    return text


@lru_cache(maxsize=64)
def _help_lines(
    help_text: str,
) -> tuple[frozenset[str], frozenset[str], frozenset[tuple[str, str]]]:
    """What :func:`strip_help_echo` looks for of ``help_text``, read once per text: its
    non-blank lines stripped, those of its examples (indented by four spaces), and the
    pairs of neighbouring lines."""
    help_lines = [line for line in help_text.translate(_INVISIBLE).split("\n") if line.strip()]
    stripped = [line.strip() for line in help_lines]
    examples = (s for line, s in zip(help_lines, stripped, strict=True) if line.startswith("    "))
    return frozenset(stripped), frozenset(examples), frozenset(itertools.pairwise(stripped))


def strip_help_echo(text: str, help_text: str) -> str:
    """``text`` cut where it starts repeating our command help (``help_text``, its
    example moves indented by four spaces) without quote marks: the help pasted from a
    welcome or HELP mail into a fresh mail, or quoted unmarked in a reply that names no
    mail of ours (no In-Reply-To or References).

    The cut starts at the first of 2 or more consecutive non-blank lines of ``text``
    (blank lines between them allowed) that are lines of ``help_text`` (both stripped),
    as soon as that run holds a line of the help's prose (not an example) or two lines
    that are neighbours in the help (``ПРЕДПОЛОЖЕНИЕ …`` and its English ``SUGGEST …``).
    Example moves written alone (``ГОЛОС Петя``), or two examples that are not
    neighbours in the help, stay: they may be the player's own moves. Linear.

    >>> strip_help_echo("STATUS\\nREFUTE 7 knife\\nNO REFUTATION 7",
    ...                 "Commands:\\n    REFUTE 7 knife\\n    NO REFUTATION 7\\n")
    'STATUS'
    """
    ours, examples, neighbours = _help_lines(help_text)
    lines = text.split("\n")
    run: list[tuple[int, str]] = []
    prose = False
    for index, line in enumerate(lines):
        line = line.translate(_INVISIBLE).strip()
        if not line:
            continue
        if line not in ours:
            run, prose = [], False
            continue
        run.append((index, line))
        prose = prose or line not in examples
        if len(run) >= 2 and (prose or (run[-2][1], line) in neighbours):
            return "\n".join(lines[: run[0][0]]).rstrip()
    return text
