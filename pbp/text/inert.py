"""Making outside text inert (issue 12, item 7).

Text that comes from outside pbp's templates — a player's name or Subject, a GM's
note, a substitute's name, a card name from ``games.yaml`` — is shown as it is,
never as markup, and never carries control characters into a mail:

- :func:`~pbp.mail.safetext.strip_controls` and :func:`~pbp.mail.safetext.one_line`
  (:mod:`pbp.mail.safetext`, below the text layer: a mail's header needs them too) remove
  control characters and bidirectional controls, and fold a text onto one line;
- :func:`escape_bbcode` / :func:`escape_markdown` make text literal in a forum post.

BBCode has no escape character. The forum-safe way (phpBB, SMF, vBulletin, MyBB,
XenForo alike) is to break every tag: a ZERO WIDTH SPACE (U+200B) after each ``[``,
so ``[url=…]`` is shown as typed (the space is invisible) and no parser sees a tag.
HTML entities such as ``&#91;`` are not used: phpBB and SMF escape ``&`` when a post
is saved, so the entity would be shown literally.

Markdown (CommonMark) escapes ASCII punctuation with a backslash, which renders as
the character itself: every ``\\ ` * [ ] < > # ~ |`` is escaped (emphasis, code,
links and images, HTML, headings, strikethrough and tables), ``_`` unless it stands
between two letters or digits (``order_placed``, ``New_York``: CommonMark never reads
an intraword ``_`` as emphasis), and at the start of a line a list or heading marker
(``-``, ``+``, ``=``, ``1.``, ``1)``).
"""

from __future__ import annotations

import re

from pbp.mail.safetext import strip_controls

_ZWSP = "\u200b"

_MARKDOWN_PUNCT = re.compile(r"([\\`*\[\]<>#~|]|(?<![^\W_])_|_(?![^\W_]))")
#: A list, break or setext marker at the start of a line: "-", "+", "=", or "1." / "1)"
#: before a blank or the end of the line ("1.5" is no marker).
_MARKDOWN_LINE_START = re.compile(r"^([ \t]*)([-+=]|\d+[.)](?=[ \t]|$))", re.MULTILINE)


def escape_bbcode(text: str) -> str:
    """``text`` shown literally in a BBCode post: controls removed, every ``[`` followed
    by a ZERO WIDTH SPACE, so no tag can open or close.

    >>> escape_bbcode("[url=http://evil.example.test]x[/url]")
    '[\\u200burl=http://evil.example.test]x[\\u200b/url]'
    """
    return strip_controls(text).replace("[", "[" + _ZWSP)


def escape_markdown(text: str) -> str:
    """``text`` shown literally in a Markdown post: controls removed, Markdown's
    punctuation backslash-escaped (CommonMark §2.4), and a list or heading marker at
    the start of a line escaped.

    >>> escape_markdown("*bold* [link](http://x.example.test)")
    '\\\\*bold\\\\* \\\\[link\\\\](http://x.example.test)'
    >>> escape_markdown("_a_ b_c _")
    '\\\\_a\\\\_ b_c \\\\_'
    >>> escape_markdown("1. first")
    '1\\\\. first'
    >>> escape_markdown("1.5 h")
    '1.5 h'
    """
    escaped = _MARKDOWN_PUNCT.sub(r"\\\1", strip_controls(text))
    return _MARKDOWN_LINE_START.sub(_escape_marker, escaped)


def _escape_marker(match: re.Match[str]) -> str:
    indent, marker = match.group(1), match.group(2)
    return f"{indent}{marker[:-1]}\\{marker[-1]}"
