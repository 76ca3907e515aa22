"""Forum ``[quote]``/``[spoiler]`` blocks pasted from a game's forum thread into a
mail: the text outside them (:func:`unquote_forum`, used by the command parsers) and
inside them (:func:`forum_tag_quotes`, set aside by :func:`pbp.mail.read.body.split_reply`).
A quote header pasted as text (``Оля сказал(а):``) is :mod:`pbp.mail.read.forumquote`'s.

Pure: no I/O; each function is linear in its input.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

#: The start of a forum ``[quote]``/``[spoiler]`` tag (opening or closing); the tag goes
#: on to the first ``]``, at most :data:`_FORUM_ATTRS_MAX` characters after ``=`` or a
#: space (``[quote=Неташка]``, ``[quote name="…"]``).
_FORUM_QUOTE_HEAD = re.compile(r"\[(/?)(?:quote|spoiler)(?=[=\s\]])", re.IGNORECASE)
_FORUM_ATTRS_MAX = 300


def forum_tag(text: str) -> str | None:
    """The start of the first forum ``[quote``/``[spoiler`` tag in ``text`` (opening or
    closing, as written: ``"[quote"``, ``"[/SPOILER"``), or None.

    >>> forum_tag("Вова [quote=Оля]"), forum_tag("Вова") is None
    ('[quote', True)
    """
    tag = _FORUM_QUOTE_HEAD.search(text)
    return tag.group() if tag is not None else None


def _forum_tags(line: str) -> list[tuple[int, int, bool]]:
    """``(start, end, closing)`` of each forum quote tag of ``line``, in order. Linear:
    the next ``]`` is looked up once for all the tag starts before it."""
    tags: list[tuple[int, int, bool]] = []
    bracket = -1  # the first "]" at or after the last lookup, or len(line)
    pos = 0
    for head in _FORUM_QUOTE_HEAD.finditer(line):
        if head.start() < pos:
            continue  # inside the tag found before
        after = head.end()
        if bracket < after:
            found = line.find("]", after)
            bracket = len(line) if found < 0 else found
        if bracket == len(line) or (bracket > after and bracket - after - 1 > _FORUM_ATTRS_MAX):
            continue
        tags.append((head.start(), bracket + 1, bool(head.group(1))))
        pos = bracket + 1
    return tags


def unquote_forum(lines: Sequence[str]) -> list[tuple[str, bool]]:
    """For each line: its text outside forum ``[quote]``/``[spoiler]`` blocks, and True
    when any of the line was inside one or was a tag. Tags may carry attributes
    (``[quote=Неташка]``, ``[quote name="…"]``, ``[quote author=… date=…]``,
    ``[spoiler=…]``), nest, and open or close mid-line; an unclosed block runs to the
    end, a stray closing tag is dropped. Linear.

    >>> unquote_forum(["[quote=Дуг]REFUTE 1 нож", "[/quote]STATUS", "HELP"])
    [('', True), ('STATUS', True), ('HELP', False)]
    """
    result: list[tuple[str, bool]] = []
    depth = 0
    for line in lines:
        touched = depth > 0
        pieces: list[str] = []
        pos = 0
        for start, end, closing in _forum_tags(line):
            touched = True
            if depth == 0:
                pieces.append(line[pos:start])
            depth = max(0, depth - 1) if closing else depth + 1
            pos = end
        if depth == 0:
            pieces.append(line[pos:])
        result.append(("".join(pieces), touched))
    return result


def forum_tag_quotes(lines: Sequence[str]) -> list[str]:
    """The text inside forum ``[quote]``/``[spoiler]`` blocks of ``lines``
    (:func:`unquote_forum`'s other part): for each line with some, its pieces inside,
    stripped and joined by a space. Linear.

    >>> forum_tag_quotes(["[quote=Дуг]REFUTE 1 нож", "[/quote]STATUS", "HELP"])
    ['REFUTE 1 нож']
    """
    result: list[str] = []
    depth = 0
    for line in lines:
        pieces: list[str] = []
        pos = 0
        for start, end, closing in _forum_tags(line):
            if depth > 0:
                pieces.append(line[pos:start])
            depth = max(0, depth - 1) if closing else depth + 1
            pos = end
        if depth > 0:
            pieces.append(line[pos:])
        text = " ".join(piece.strip() for piece in pieces if piece.strip())
        if text:
            result.append(text)
    return result
