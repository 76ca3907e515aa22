"""The plain text of an HTML body (:func:`html_to_text`), in time linear in its size.

html2text (on the standard library's :class:`html.parser.HTMLParser`) does the
conversion, but it never sees the raw HTML of a mail: :func:`tame_html` first reads
the markup with one linear scan and hands on a copy that

- lacks the quoted replies and signatures (Gmail's ``<div class="gmail_quote">`` and
  ``gmail_signature``, Thunderbird's ``moz-cite-prefix``/``moz-signature`` and every
  ``<blockquote>``), each cut from its start tag to the end tag that closes it (same
  name, nesting counted), or to the end when it is never closed;
- lacks comments (``<!-- … -->``; an unclosed one hides the rest of the body, as a
  browser shows it);
- has every ``<`` that starts no tag, comment or declaration written ``&lt;``
  (``HTMLParser`` is quadratic on ``<b<b<b…`` and slow on runs of ``<``);
- nests lists (``ul``, ``ol``) and ``blockquote`` at most :data:`MAX_NESTING` deep
  (deeper start tags and their end tags are left out: html2text indents every line
  once per level, so its output would grow with the square of the nesting);
- ends after :data:`MAX_TAGS` tags and entities outside the quotes (html2text spends
  some microseconds on each; no one writes a move below twenty thousand of his own):
  the text after them is not read.

Honest HTML mail (any nesting below the limits, fewer tags, every ``<`` a tag) reaches
html2text unchanged but for the quotes cut out.

Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html import unescape

import html2text

#: Deepest nesting of lists (``ul``/``ol``) and of ``blockquote`` handed to html2text.
MAX_NESTING = 32
#: Most tags (start and end tags, comments, declarations, stray ``<``) and entities
#: (``&…;``) outside quotes handed to html2text; the HTML after them is dropped.
MAX_TAGS = 20_000

_DROP_CLASSES = frozenset(
    {"gmail_quote", "gmail_quote_container", "gmail_signature", "moz-cite-prefix", "moz-signature"}
)
#: Elements whose content is raw text for ``HTMLParser`` (its ``CDATA_CONTENT_ELEMENTS``).
_RAW_TEXT = frozenset({"script", "style"})
_NESTED = frozenset({"ul", "ol", "blockquote"})
#: Void elements (never a quote, whatever their class).
_VOID = frozenset({"br", "img", "hr", "meta", "link", "input", "wbr", "col", "area", "base"})

#: One piece of markup starting at a ``<``: a comment opening, a start or end tag (its
#: attribute values may hold ``<`` and ``>`` when quoted; each quoted value at most
#: 2,000 characters, so that a failed match never scans far), or a declaration or
#: processing instruction (``<!DOCTYPE …>``, ``<![if …]>``, ``<?xml …?>``), or a bogus
#: end tag (``</ >``).
_MARKUP = re.compile(
    r"<(?:(?P<comment>!--)"
    r"|(?P<end>/)?(?P<name>[A-Za-z][^\s/<>\"']*)"
    r"(?:[^<>\"']|\"[^\"]{0,2000}\"|'[^']{0,2000}')*>"
    r"|[!/?][^<>]*>)"
)
_CLASS = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+))""", re.IGNORECASE)


def _drops(tag: str) -> bool:
    """True when the start tag ``tag`` (its source) opens a quote or signature."""
    if "class" not in tag.lower():
        return False
    found = _CLASS.search(tag)
    if found is None:
        return False
    value = next(group for group in found.groups() if group is not None)
    return not _DROP_CLASSES.isdisjoint(value.split())


#: Gmail's "Indent more" button: a blockquote with a margin and no border, class or
#: ``type=cite`` is the sender's own text indented, not a quote (a quote has a border).
_INDENT_STYLE = re.compile(r"style\s*=\s*[\"'][^\"']*border\s*:\s*none", re.IGNORECASE)
#: The value of each ``border…:`` declaration of a style (lower-cased source).
_BORDER = re.compile(r"border[a-z-]*\s*:\s*([^;\"']*)")


def _indents_only(tag: str) -> bool:
    """True when the blockquote start tag ``tag`` only indents the sender's own text:
    every border it sets is ``none`` (Word's quote writes ``border:none`` and then its
    real ``border-left:solid …``)."""
    lowered = tag.lower()
    if "class" in lowered or "cite" in lowered or _INDENT_STYLE.search(tag) is None:
        return False
    borders = _BORDER.findall(lowered)
    return all(value.strip() in ("none", "0", "0px", "0pt") for value in borders)


def _quote_end(html: str, name: str, start: int) -> int:
    """Where the quote element ``name`` that starts at ``start`` (just after its start
    tag) ends: after the end tag that closes it (same name, nesting counted; comments
    and raw-text elements skipped), or ``len(html)``."""
    pattern = re.compile(rf"<(?:(/?){re.escape(name)}(?![^\s/>])|!--)", re.IGNORECASE)
    depth = 1
    pos = start
    while True:
        found = pattern.search(html, pos)
        if found is None:
            return len(html)
        if found.group(0) == "<!--":
            close = html.find("-->", found.end())
            if close < 0:
                return len(html)
            pos = close + 3
            continue
        markup = _MARKUP.match(html, found.start())
        if markup is None:
            pos = found.end()
            continue
        pos = markup.end()
        if found.group(1):
            depth -= 1
            if depth == 0:
                return pos
        elif not markup.group(0).endswith("/>"):
            depth += 1


def _raw_text_end(html: str, name: str, start: int) -> int:
    """The start of the end tag of the raw-text element ``name`` (content from
    ``start``), or ``len(html)``."""
    found = re.compile(rf"</{name}(?![^\s/>])", re.IGNORECASE).search(html, start)
    return len(html) if found is None else found.start()


def _nth(char: str, text: str, start: int, count: int) -> int:
    """The index of the ``count``-th ``char`` (1: the first) in ``text`` from ``start``;
    there must be that many."""
    at = start - 1
    for _ in range(count):
        at = text.find(char, at + 1)
    return at


def tame_html(html: str, quotes: list[str] | None = None) -> str:
    """``html`` as :func:`html_to_text` hands it to html2text (module doc): quotes,
    signatures and comments cut out, stray ``<`` escaped, list and blockquote nesting capped at
    :data:`MAX_NESTING`, cut after :data:`MAX_TAGS` tags. Linear in ``len(html)``.
    ``quotes``: when given, the HTML of each quote or signature cut out is appended.

    >>> tame_html('<p>REFUTE 7 нож</p><div class="gmail_quote">old</div><b<b')
    '<p>REFUTE 7 нож</p>&lt;b&lt;b'
    """
    out: list[str] = []
    pos = 0  # html[:pos] is handled
    tags = 0
    tamer = _Tamer(html, quotes=quotes)
    while True:
        at = html.find("<", pos)
        stop = len(html) if at < 0 else at
        # Entities cost html2text a call each too (it reads them one by one).
        entities = html.count("&", pos, stop)
        if tags + entities > MAX_TAGS:
            out.append(html[pos : _nth("&", html, pos, MAX_TAGS - tags + 1)])
            break
        tags += entities
        if at < 0 or tags == MAX_TAGS:
            out.append(html[pos:stop])
            break
        tags += 1
        out.append(html[pos:at])
        markup = _MARKUP.match(html, at)
        step = ("&lt;", at + 1) if markup is None else tamer.markup(markup)
        if step is None:
            break
        out.append(step[0])
        pos = step[1]
    return "".join(out)


@dataclass
class _Tamer:
    """What :func:`tame_html` knows of ``html`` as it reads it: the open list and
    blockquote elements handed on (``depth``) and left out as too deep (``hidden``),
    and the open blockquotes that only indent, handed on as ``div`` (``indents``)."""

    html: str
    depth: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_NESTED, 0))
    hidden: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_NESTED, 0))
    indents: int = 0
    #: Where the HTML of each quote cut out goes (None: nowhere).
    quotes: list[str] | None = None

    def markup(self, found: re.Match[str]) -> tuple[str, int] | None:
        """``(what the markup found by :data:`_MARKUP` becomes, where the reading goes
        on)``, or None when the rest of the HTML is dropped."""
        end = found.end()
        if found.group("comment"):
            # A comment holds no text: left out. HTMLParser would look for the end of
            # an unclosed one again from each later ``<!--`` (quadratic); a browser
            # shows nothing after it, and neither does html2text then.
            close = self.html.find("-->", end)
            return None if close < 0 else ("", close + 3)
        name = (found.group("name") or "").lower()
        if found.group("end"):
            return self._end_tag(name, found.group(0), end)
        if not name:  # a declaration or processing instruction
            return found.group(0), end
        return self._start_tag(name, found.group(0), end)

    def _end_tag(self, name: str, tag: str, end: int) -> tuple[str, int]:
        if name == "blockquote" and self.indents:
            self.indents -= 1
            return "</div>", end
        if name in _NESTED and self.hidden[name]:
            self.hidden[name] -= 1
            return "", end
        if name in _NESTED and self.depth[name]:
            self.depth[name] -= 1
        return tag, end

    def _start_tag(self, name: str, tag: str, end: int) -> tuple[str, int]:
        if name == "blockquote" and _indents_only(tag):
            self.indents += 1
            return "<div>", end
        if name not in _VOID and (name == "blockquote" or _drops(tag)):
            # A quote element written as an empty element (<div class="gmail_quote"/>)
            # is that tag alone, as HTMLParser reads it.
            if tag.endswith("/>"):
                return "", end
            close = _quote_end(self.html, name, end)
            if self.quotes is not None:
                self.quotes.append(self.html[end:close])
            return "", close
        if name in _RAW_TEXT:
            close = _raw_text_end(self.html, name, end)
            return tag + self.html[end:close], close
        if name in _NESTED:
            if self.depth[name] >= MAX_NESTING or self.hidden[name]:
                self.hidden[name] += 1
                return "", end
            self.depth[name] += 1
        return tag, end


class _PlainText(html2text.HTML2Text):
    """html2text without Markdown escaping (``1.`` stays ``1.``, ``--`` stays ``--``)."""

    def handle_data(self, data: str, entity_char: bool = False) -> None:
        super().handle_data(data, entity_char=True)


def html_to_text(html: str, quotes: list[str] | None = None) -> str:
    """Plain text of an HTML body: :func:`tame_html` (quotes dropped), then html2text
    without links, images, emphasis or line wrapping; trailing spaces removed. Linear
    in ``len(html)``. ``quotes``: when given, the lines of text of the quotes dropped
    are appended (:func:`quote_lines`).

    >>> html_to_text("<div>STATUS<br>HELP</div>")
    'STATUS\\nHELP'
    """
    converter = _PlainText()
    converter.body_width = 0
    converter.ignore_links = True
    converter.ignore_images = True
    converter.ignore_emphasis = True
    converter.ignore_tables = True
    cut: list[str] | None = None if quotes is None else []
    text = converter.handle(tame_html(html, cut))
    if quotes is not None and cut:
        quotes.extend(quote_lines(cut))
    lines = (line.rstrip() for line in str(text).split("\n"))
    # html2text writes a horizontal rule (<hr>, Outlook's line above a quote) as "* * *".
    return "\n".join(line for line in lines if line.strip() != "* * *").strip("\n")


#: A tag, or a ``<`` that starts none, in the HTML of a quote cut out.
_QUOTE_TAG = re.compile(r"<[^<>]{0,2000}>|<")
#: Elements that end a line of text (and ``<br>``).
_LINE_TAG = re.compile(r"<\s*/?\s*(?:br|p|div|li|tr|h[1-6]|blockquote)\b", re.IGNORECASE)


def quote_lines(pieces: list[str]) -> list[str]:
    """The non-blank lines of text (stripped) of the quotes :func:`tame_html` cut out
    (``pieces``, their HTML): each tag that ends a line (``<br>``, ``</div>``…) a line
    break, every other tag left out, entities decoded. Read only for what a quote may
    hold (:data:`pbp.mail.read.reply.Doubt.HTML_QUOTE`), never as the sender's text.
    Linear.

    >>> quote_lines(["<div>ГОЛОС Оля<br>&gt; и всё</div>"])
    ['ГОЛОС Оля', '> и всё']
    """
    lines: list[str] = []
    for piece in pieces:
        text = _QUOTE_TAG.sub(lambda tag: "\n" if _LINE_TAG.match(tag.group()) else "", piece)
        lines.extend(line.strip() for line in unescape(text).split("\n") if line.strip())
    return lines
