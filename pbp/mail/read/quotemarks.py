"""Quote marks: ``>`` and The Bat!'s initials (:func:`is_quoted`, :func:`unmark`,
:func:`quote_marker`), marks other than ``>`` (:func:`other_mark`), and Outlook's labels
of the sender's own comments inside a quote (:func:`comment_label`,
:func:`comment_labels`, :func:`labelled_own`). Used by :mod:`pbp.mail.read.body` and
:mod:`pbp.mail.read.reply`.

Other marks. Clients let the user choose the string put before each quoted line: mutt's
``indent_string``, Claws Mail's and Sylpheed's "quotation mark", Pine's
``reply-indent-string``, Outlook's "Prefix each line with"; ``| `` and ``: `` are the
usual choices besides ``> ``. mutt's default ``quote_regex``, ``^([ \\t]*[|>:}#])+``,
reads ``|``, ``:``, ``}`` and ``#`` as quote marks; pbp takes ``|``, ``:`` and ``}``
(:data:`OTHER_MARKS`), not ``#`` (the text of an HTML heading begins with it), and,
as mutt's ``smileys`` default does, not a smiley (``:)``, ``:-P``). Such a line is a
quote under an attribution (``Таня писала:``), at any depth (``| | …``, ``|| …``), and
a doubtful line anywhere else.

Outlook's inline comments ("Mark my comments with"): a reply written inside the
unmarked quote, each paragraph begun with the sender's name in brackets (``[Оля]
ГОЛОС Петя``). The label is Outlook's user name, which is the sender's display name,
his first name or his initials (``[Оля]``, ``[ОП]``, ``[О.П.]``, ``[Olya Petrova]``):
:func:`comment_labels` makes them from the From header's display name. A line with
one of them is the sender's; the rest of the quote stays quote.

Pure: no I/O; each function is linear in its input.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from pbp.mail.read.forumtags import forum_tag
from pbp.mail.read.replyheader import reply_header

#: A quoted line: ``>`` (RFC 3676 §4.5), or The Bat!'s and FidoNet's initials before
#: it (``p> …``, ``ВП> …``).
_QUOTED = re.compile(r"^\s*(?:>|[^\W\d_]{1,3}>)")
#: Every quote mark at the start of a line (``> > ``, ``ВП> >``), in one linear match.
_MARKS = re.compile(r"(?:\s*(?:>|[^\W\d_]{1,3}>))+")
#: The quote marks besides ``>`` (mutt's default ``quote_regex`` less ``>`` and ``#``).
OTHER_MARKS = "|:}"
#: A run of other quote marks at the start of a line, spaces between them allowed
#: (``| | ``, ``||``, ``: : ``).
_OTHER_MARK = re.compile(r"^[ \t]*[|:}](?:[ \t]*[|:}])*")
#: A smiley at the start of a line is no quote mark (mutt's ``smileys`` default).
_SMILEY = re.compile(r"^[ \t]*:[-^]?[][)(><}{|/DP]")
#: Outlook's label before a comment: ``[Name]``, a space, the comment. The label holds
#: no bracket, ``=`` or ``/`` (a forum tag: ``[b]``, ``[quote=…]``, ``[/b]``).
_LABEL = re.compile(r"^[ \t]*\[(?P<label>[^\[\]=/\n]{1,60})\][ \t]+(?P<text>\S.*)$")
#: What separates the words of a name or a label.
_NAME_SPLIT = re.compile(r"[\s,.]+")


def other_mark(line: str) -> str | None:
    """The marks of ``line`` if it is quoted by :data:`OTHER_MARKS` (``"| |"`` for
    ``"| | ГОЛОС Таня"``; the count of marks is its depth, as for ``>``), else None.

    >>> other_mark("| ГОЛОС Таня"), other_mark("|| x"), other_mark(": : x")
    ('|', '||', ': :')
    >>> other_mark(":) ГОЛОС Петя") is None, other_mark("ГОЛОС: Петя") is None
    (True, True)
    """
    found = _OTHER_MARK.match(line)
    if found is None or _SMILEY.match(line):
        return None
    return found.group().strip()


def comment_label(line: str) -> tuple[str, str] | None:
    """``(label, comment)`` of a line begun with an Outlook comment label, else None.

    >>> comment_label("[Оля] ГОЛОС Петя"), comment_label("[b]Голосую за Таню[/b]")
    (('Оля', 'ГОЛОС Петя'), None)
    """
    found = _LABEL.match(line)
    if found is None:
        return None
    return found.group("label").strip(), found.group("text").rstrip()


def bare(line: str) -> str:
    """``line`` stripped, without a run of other quote marks (:func:`other_mark`) or a
    comment label (:func:`comment_label`) at its start: what a doubtful line says, as it
    is tried as a command and listed ("looks quoted — not done").

    >>> bare("| | ГОЛОС Таня"), bare("[Таня] ГОЛОС Таня"), bare(" ГОЛОС Петя ")
    ('ГОЛОС Таня', 'ГОЛОС Таня', 'ГОЛОС Петя')
    """
    marks = other_mark(line)
    if marks is not None:
        return line.lstrip()[len(marks) :].strip()
    label = comment_label(line) if "[" in line else None
    return label[1].strip() if label is not None else line.strip()


def _key(text: str) -> str:
    """``text`` as labels are compared: words lower-cased, ``ё`` as ``е``, joined by one
    space (dots and commas are separators)."""
    return " ".join(_NAME_SPLIT.split(text.casefold().replace("ё", "е"))).strip()


def comment_labels(name: str) -> frozenset[str]:
    """The labels Outlook may put before the comments of the sender whose display name
    (the From header's, RFC 5322 §3.4) is ``name``, as :func:`labelled_own` compares
    them: the name; each of its words of two letters or more; and when it has two words
    or more, the name with its last word first (or, written ``Last, First``, its first
    word last) and the initials in both orders (``ОП``, also written ``О.П.`` or ``О.
    П.``). Empty for an empty name.

    >>> sorted(comment_labels("Оля Петрова"))
    ['о п', 'оля', 'оля петрова', 'оп', 'п о', 'петрова', 'петрова оля', 'по']
    """
    words = [word for word in _NAME_SPLIT.split(name.casefold().replace("ё", "е")) if word]
    labels = {word for word in words if len(word) > 1}
    if len(words) == 1:
        labels.add(words[0])
    if len(words) > 1:
        turned = words[1:] + words[:1] if "," in name else words[-1:] + words[:-1]
        for order in (words, turned):
            initials = [word[0] for word in order]
            labels |= {" ".join(order), "".join(initials), " ".join(initials)}
    return frozenset(labels)


def labelled_own(
    lines: list[str],
    doubtful_at: Collection[int],
    under_header: int,
    labels: Collection[str],
) -> dict[int, str]:
    """The lines of a body read by :func:`pbp.mail.read.body.split_reply` (``lines``: its
    ``whole``; ``doubtful_at`` and ``under_header`` as there) that bear one of the
    sender's ``labels`` (:func:`comment_labels`): ``{line number: the comment without
    its label}``.

    Only the sender's text and the first quoted mail are looked at: under a header
    block at the top (``under_header``), the lines before the next reply header among
    the doubtful lines (a deeper quote holds comments of older mails).

    >>> labelled_own(["От: pbp", "[Оля] ГОЛОС Петя", "[Таня] ГОЛОС Таня"], {0}, 1, {"оля"})
    {1: 'ГОЛОС Петя'}
    """
    if not labels:
        return {}
    end = len(lines)
    if under_header >= 0:
        deeper = (n for n in sorted(doubtful_at) if n >= under_header and reply_header(lines, n))
        end = next(deeper, end)
    found: dict[int, str] = {}
    for number, line in enumerate(lines[:end]):
        if "[" not in line:
            continue
        label = comment_label(line)
        if label is not None and _key(label[0]) in labels:
            found[number] = label[1]
    return found


def labelled_in_quote(lines: list[str], start: int, separator: bool, first: int) -> list[int]:
    """The line numbers of the lines that begin with a comment label (``[Оля] ГОЛОС
    Петя``) in the quote from ``lines[start]`` on, but for ``lines[first]`` (the
    caller's already), only in the first quoted mail: up to the next reply header, but
    for one header block right at the start when ``separator`` (Outlook's
    ``-----Original Message-----`` above its ``From:`` block). Linear; no reply header
    is looked for in a quote without a label.

    >>> labelled_in_quote(["Принято.", "[Оля] ГОЛОС Петя", "Таня wrote:", "[Оля] x"], 0, False, 0)
    [1]
    """
    found = [
        n
        for n in range(start, len(lines))
        if n != first and "[" in lines[n] and comment_label(lines[n]) is not None
    ]
    if not found:
        return []
    block = separator  # the quoted mail's header block may follow its separator
    kept: list[int] = []
    n = start
    while n <= found[-1]:
        line = lines[n]
        if not line or line.lstrip().startswith(">"):
            n += 1
            continue
        span = reply_header(lines, n)
        if span:
            if not block:
                break  # a deeper quote: its comments are of older mails
            block = False
            n += span
            continue
        block = False
        if n != first and "[" in line and comment_label(line) is not None:
            kept.append(n)
        n += 1
    return kept


def is_quoted(line: str) -> bool:
    """True when ``line`` is marked as quoted: ``>`` (RFC 3676 §4.5) or initials and
    ``>`` (The Bat!, FidoNet: ``p> …``).

    >>> is_quoted("> ГОЛОС Оля"), is_quoted("ВП> ГОЛОС Оля"), is_quoted("ГОЛОС Оля")
    (True, True, False)
    """
    return _QUOTED.match(line) is not None


def quote_marker(text: str) -> str | None:
    """The quote mark a mail reader finds in ``text`` (a name written in a command
    line), or None: ``>`` or initials and ``>`` at its start (:func:`is_quoted`: the
    line is a quote), or a forum ``[quote``/``[spoiler`` tag anywhere (what follows it
    on the line is quoted, :func:`pbp.mail.read.forumtags.unquote_forum`).

    >>> quote_marker("> Вова"), quote_marker("ВП> Вова"), quote_marker("Вова [quote]")
    ('>', 'ВП>', '[quote')
    >>> quote_marker("Вова") is None, quote_marker("Вова>Петя") is None
    (True, True)
    """
    start = _QUOTED.match(text)
    if start is not None:
        return start.group().strip()
    return forum_tag(text)


def unmark(line: str) -> str:
    """``line`` without its quote marks (:func:`is_quoted`, at any depth) and then
    another mark or a comment label (:func:`bare`), stripped.

    >>> unmark("> > ГОЛОС Оля"), unmark("ВП> ГОЛОС Оля"), unmark("ГОЛОС Оля")
    ('ГОЛОС Оля', 'ГОЛОС Оля', 'ГОЛОС Оля')
    """
    found = _MARKS.match(line)
    return bare(line[found.end() :] if found else line)


def quote_line(line: str) -> bool:
    """True when ``line`` is quoted by ``>`` (:func:`is_quoted`) or another mark
    (:func:`other_mark`)."""
    return is_quoted(line) or other_mark(line) is not None
