"""The new text of a mail body: quoted replies and signatures removed
(:func:`split_reply`, which gives a :class:`~pbp.mail.read.reply.Reply`). Soft line
breaks are joined before (:func:`pbp.mail.read.flowed.unflow`), copies of our own mails
cut after (:mod:`pbp.mail.read.echo`), and forum ``[quote]`` blocks read apart
(:mod:`pbp.mail.read.forumtags`). Used by :mod:`pbp.mail.read.textparts` and
:mod:`pbp.mail.read.simple`; pure string functions, each linear in its input.

What is removed (players answer from many clients, in Russian and English):

- an inline PGP clear-signed message's armour and signature, its text read unescaped
  (and marked quoted where it stands below other text), and any signature or key block
  (:func:`pbp.mail.read.armour.open_clear_signed`; nothing verified);
- quoted lines starting with ``>`` (RFC 3676 §4.5 quoting), and lines starting with
  another mark a client lets its user choose (``|``, ``:``, ``}``, at any depth) below
  a reply header; elsewhere such a line is doubtful (:mod:`pbp.mail.read.quotemarks`);
- a reply header and everything after it when the quote is not ``>``-marked
  (top-posting): ``On Mon, 1 Dec 2026 at 10:00, X <x@example.test> wrote:``,
  ``пн, 1 дек. 2026 г. в 10:00, X <x@example.test>:``, ``X пишет:``,
  Yandex's ``01.12.2026, 12:00, "X":``, Mail.ru's ``Среда, 12 марта 2025, 10:15 +03:00
  от X:`` (any line ending in ``:`` with a time and an address or a year), Zoho's
  ``---- On …, X <x@example.test> wrote ----``, ``-----Original Message-----``,
  ``-------- Пересылаемое сообщение --------``, Outlook's separator line of underscores
  and its ``From:``/``Sent:`` (``От:``/``Отправлено:``) block, a header block of fields
  in any language (all recognised by :mod:`pbp.mail.read.replyheader`); a header followed
  by ``>`` lines (bottom-posting) is set aside alone, so the text after the quote stays
  (doubtful when text of the sender's may stand before it on its line: ``X
  <x@example.test> wrote:``); the sender's text typed before a header on its line
  (``ГОЛОС Петя On Mon, …, X wrote:``) is his;
- the signature after a line ``-- `` (RFC 3676 §4.3; also ``--`` whose space a client
  stripped), and a phone or web client's footer (``Sent from my iPhone``, ``Отправлено
  с iPhone``, ``Отправлено из мобильной Яндекс Почты``, ``Get Outlook for Android``)
  or a closing ``С уважением,`` when nothing but a signature or a quote follows it;
- a forum post pasted with its quote header (``Оля сказал(а):`` … ``Нажмите для
  раскрытия...``, :mod:`pbp.mail.read.forumquote`): doubtful, the sender's lines before
  and after it kept;
- (separately, :func:`pbp.mail.read.echo.strip_echo`) an unmarked copy of the mail
  being answered;
- (separately, :func:`pbp.mail.read.forumtags.unquote_forum`, used by the command
  parsers) text in forum ``[quote]``/``[spoiler]`` blocks pasted from the game's forum
  thread;
- in HTML, before conversion (:mod:`pbp.mail.read.markup`): Gmail's ``<div
  class="gmail_quote">`` and ``gmail_signature``, Thunderbird's
  ``moz-cite-prefix``/``moz-signature`` and every ``<blockquote>``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from pbp.mail.read.armour import open_clear_signed
from pbp.mail.read.forumquote import forum_header, is_quote_end, quote_end
from pbp.mail.read.forumtags import forum_tag_quotes
from pbp.mail.read.quotemarks import (
    bare,
    is_quoted,
    labelled_in_quote,
    other_mark,
    quote_line,
    unmark,
)
from pbp.mail.read.reply import ASIDE_MAX, Doubt, Reply
from pbp.mail.read.replyheader import (
    FORWARD_SEPARATOR,
    attribution_start,
    header_block,
    reply_header,
)
from pbp.mail.safetext import INVISIBLE

#: A phone or web client's footer line, and everything after it, is not the sender's:
#: ``Sent from my iPhone``, ``Отправлено с iPhone``, ``Отправлено из мобильной Яндекс
#: Почты``, ``Отправлено из Mail.ru для Android``, ``Get Outlook for Android``.
_CLIENT_FOOTER = re.compile(
    r"^(?:sent|отправлено|получено|послано)\s+(?:from|with|via|using|on|с|со|из|через|"
    r"при\s+помощи|с\s+помощью)\s+[^,;\n]{1,70}$"
    r"|^(?:get|download|скачайте|загрузите|установите)\s+(?:outlook|яндекс|yandex|mail\.ru)\b"
    r"[^,;\n]{0,60}$"
    r"|^(?:с\s+уважением|best\s+regards|kind\s+regards|regards)\s*,?$",
    re.IGNORECASE,
)
#: A phone's footer glued onto the end of the sender's last line when the client puts
#: it right after the text without a line break (Samsung Email: ``ГОЛОС
#: ПетяОтправлено с устройства Samsung Galaxy``): only the footers of known phones and
#: mail apps, so that a move naming a place is never cut (:func:`_glued_footer`).
_GLUED_FOOTER = re.compile(
    r"(?:Отправлено|Sent)\s+(?:с|со|из|from|with|via|on)\s+(?:(?:моего|my|an?|the)\s+)?"
    r"(?:устройства\s+|мобильной\s+|приложения\s+)?"
    r"(?:Samsung|Galaxy|iPhone|iPad|Android|Huawei|Honor|Xiaomi|Redmi|Яндекс|Yandex|Mail\.ru"
    r"|Почты\s+Mail|Outlook|Yahoo)[^,;\n]{0,50}$"
)
_INVISIBLE = INVISIBLE | str.maketrans({"\r": None, "\u2028": "\n", "\u2029": "\n"})


def _next_text(lines: list[str], start: int) -> str | None:
    """The first non-blank line at or after ``start``, or None."""
    for index in range(start, len(lines)):
        if lines[index].strip():
            return lines[index]
    return None


def _footer_ends(lines: list[str], start: int) -> bool:
    """True when what follows a client footer line is no more of the sender's text:
    nothing, a ``-- `` signature, a reply header or quoted lines (any mark)."""
    for index in range(start, len(lines)):
        line = lines[index]
        if not line.strip():
            continue
        return line == "--" or quote_line(line) or bool(reply_header(lines, index))
    return True


def new_text(text: str) -> str:
    """The text a sender wrote himself (:func:`split_reply`'s first part).

    >>> new_text("REFUTE 7 нож\\n\\nOn Mon, 1 Dec 2026 at 10:00, X <x@example.test> wrote:\\n> old")
    'REFUTE 7 нож'
    """
    return split_reply(text).text


def split_reply(text: str) -> Reply:
    """The new text and the doubtful lines of a mail body (:class:`~pbp.mail.read.reply.Reply`).

    The new text is what the sender wrote himself: without quoted replies and
    signature (module doc), invisible characters removed and odd spaces made spaces
    (:data:`~pbp.mail.safetext.INVISIBLE`: BOM, zero-width spaces, no-break spaces…), CR
    removed, Unicode line separators made line breaks, trailing spaces and blank lines
    at both ends removed.

    The doubtful lines (stripped, in order) are in neither: lines the reader cannot
    tell from a quote, which a line that may be quoted must never be executed for. They
    are the unmarked lines right below a quoted line (no blank line between), up to the
    next blank or quoted line: a phone re-wrapping a long quoted line puts its
    continuation there without ``>`` (iPhone, Gmail), and a reply written there is
    told from it by nothing. The caller lists those that hold a command as "looks
    quoted — not done". A forum post pasted with its quote header is doubtful too
    (:func:`_at_forum_quote`).

    What is removed is set aside (:attr:`~pbp.mail.read.reply.Reply.aside`: quoted lines
    unmarked, the quote under a reply header, the signature, the text in forum
    ``[quote]`` blocks), tried as commands only when nothing else of the mail holds one
    (:class:`~pbp.mail.read.reply.Doubt`).

    A header block of fields (``От:``/``Кому:``/``Тема:``, in any language) at the very
    top, with nothing of the sender's above it and no ``>`` quote below it, is a reply
    written under the header of the mail answered (bottom-posting): the header is
    dropped and what follows is the sender's, but for the lines of the mail answered
    (:meth:`~pbp.mail.read.reply.Reply.own`: ``under_header``; the header's lines are
    doubtful, and name the mail answered: :mod:`pbp.mail.read.quotedheader`). A second
    header block below it starts a quote.

    Inside the first quoted mail, lines begun with an Outlook comment label (``[Оля]
    ГОЛОС Петя``) are doubtful until :meth:`~pbp.mail.read.reply.Reply.with_labels`
    knows the sender's labels (:mod:`pbp.mail.read.quotemarks`).

    >>> reply = split_reply("ГОЛОС Петя\\n\\n> Чтобы изменить, напишите\\nГОЛОС Оля\\n> и всё.")
    >>> reply.text, reply.doubtful, reply.doubtful_at
    ('ГОЛОС Петя', ('ГОЛОС Оля',), (2,))
    """
    lines = [line.rstrip() for line in text.translate(_INVISIBLE).split("\n")]
    lines = open_clear_signed(lines)  # inline PGP: the signed text, no armour
    kept = _Kept()
    i: int | None = 0
    while i is not None and i < len(lines):
        i = _read_line(lines, i, kept)
    return kept.reply()


@dataclass
class _Kept:
    """What :func:`split_reply` keeps of a body so far: ``lines`` (the sender's, blank and
    doubtful ones), ``doubtful`` (their indexes in ``lines``), ``under`` (the index in
    ``lines`` of the text under a header block at the top, -1: none), ``own`` (a
    non-blank line of the sender's is kept), ``aside`` (the lines set aside, unmarked),
    ``shapes`` (the :class:`~pbp.mail.read.reply.Doubt` shapes found), ``quote_end`` (the index in
    ``lines`` after the last forum quote) and ``marked`` (a reply header was followed
    by a line quoted with another mark, :func:`~pbp.mail.read.quotemarks.other_mark`: from
    there on such lines are quoted)."""

    lines: list[str] = field(default_factory=list)
    doubtful: list[int] = field(default_factory=list)
    under: int = -1
    own: bool = False
    aside: list[str] = field(default_factory=list)
    shapes: set[Doubt] = field(default_factory=set)
    quote_end: int = 0
    marked: bool = False

    def doubt(self, line: str, shape: Doubt) -> None:
        """Keep ``line`` as a doubtful one, of ``shape``."""
        self.doubtful.append(len(self.lines))
        self.lines.append(line)
        self.shapes.add(shape)

    def set_aside(self, lines: Sequence[str], shape: Doubt) -> None:
        """Set ``lines`` aside (:attr:`~pbp.mail.read.reply.Reply.aside`), of ``shape``:
        their non-blank ones unmarked, up to :data:`~pbp.mail.read.reply.ASIDE_MAX` in
        all."""
        for line in lines:
            if len(self.aside) >= ASIDE_MAX:
                return
            text = unmark(line)
            if text:
                self.aside.append(text)
                self.shapes.add(shape)

    def reply(self) -> Reply:
        """The :class:`~pbp.mail.read.reply.Reply` of what is kept: both ends without
        blank lines, the doubtful lines' numbers following the cut; the text inside forum
        ``[quote]`` blocks of the sender's lines set aside
        (:data:`~pbp.mail.read.reply.Doubt.FORUM_TAG`)."""
        kept = self.lines
        start = next((n for n, line in enumerate(kept) if line), len(kept))
        end = max((n + 1 for n, line in enumerate(kept) if line), default=start)
        whole = kept[start:end]
        at = tuple(sorted(n - start for n in self.doubtful))
        skip = set(at)
        own = [line for n, line in enumerate(whole) if n not in skip]
        self.set_aside(forum_tag_quotes(own), Doubt.FORUM_TAG)
        text = "\n".join(own).strip("\n")
        below = max(self.under - start, 0) if self.under >= 0 and whole else -1
        doubtful = tuple(bare(whole[n]) for n in at)
        shapes = frozenset(self.shapes)
        return Reply(text, doubtful, "\n".join(whole), at, below, tuple(self.aside), shapes)


def _read_line(lines: list[str], i: int, kept: _Kept) -> int | None:
    """Read ``lines[i]`` (and the lines that go with it) into ``kept``: the index of the
    next line to read, or None when the rest of the body is not the sender's (a
    signature, a client footer, a quote under its header)."""
    line = lines[i]
    if not line:  # the common case, quickly (a blank line is no header or footer)
        kept.lines.append(line)
        return i + 1
    if line == "--":  # "-- " (rstripped above)
        kept.set_aside(lines[i + 1 :], Doubt.SIGNATURE)
        return None
    if _CLIENT_FOOTER.match(line.strip()) and _footer_ends(lines, i + 1):
        # The footer line itself may be a move run into it ("Отправлено с дачи,
        # ГОЛОС Петя"): doubtful, never run, said when it holds a command.
        kept.doubt(line, Doubt.SIGNATURE)
        kept.set_aside(lines[i + 1 :], Doubt.SIGNATURE)
        return None
    glued = _GLUED_FOOTER.search(line)
    if glued and glued.start() and line[: glued.start()].strip() and _footer_ends(lines, i + 1):
        kept.lines.append(line[: glued.start()].rstrip())  # "ГОЛОС ПетяОтправлено с …"
        kept.own = True
        kept.set_aside(lines[i + 1 :], Doubt.SIGNATURE)
        return None
    forum = _at_forum_quote(lines, i, kept)
    if forum is not None:
        return forum
    header = reply_header(lines, i)
    if header:
        return _at_header(lines, i, header, kept)
    if is_quoted(line):
        kept.set_aside((line,), Doubt.MARKED)
        return i + 1
    if other_mark(line) is not None:
        if not kept.marked:  # "| …" with no attribution above it: may be a quote
            kept.doubt(line, Doubt.MARKED)
        else:
            kept.set_aside((line,), Doubt.MARKED)
        return i + 1
    if i > 0 and lines[i - 1] and quote_line(lines[i - 1]):
        # Right below a quoted line: maybe the quote's re-wrapped continuation.
        while i < len(lines) and lines[i] and not quote_line(lines[i]):
            kept.doubt(lines[i], Doubt.REWRAPPED)
            i += 1
        return i
    kept.lines.append(line)
    kept.own = True
    return i + 1


def _at_header(lines: list[str], i: int, header: int, kept: _Kept) -> int | None:
    """Read the reply header of ``header`` lines at ``lines[i]`` into ``kept``: the
    index of the next line to read, or None when the quote it opens runs to the end.

    The sender's text before the header on its first line (a reply typed at the start
    of the header line, :func:`pbp.mail.read.replyheader.attribution_start`) is his; when
    where the header starts is not known, that line is doubtful."""
    start = None if quote_line(lines[i]) else attribution_start(lines, i, header)
    if start:
        kept.lines.append(lines[i][:start].rstrip())
        kept.own = True
        lines[i] = lines[i][start:].strip()  # split_reply's own copy: the header alone
        start = 0
    following = _next_text(lines, i + header)
    if following is not None and quote_line(following):
        # Bottom-posting: the header is set aside with the quote, what follows the
        # quote is kept. A quote marked "| " or ": " (the user's choice of mark) makes
        # such lines quoted from here on.
        kept.marked = kept.marked or not is_quoted(following)
        if start is None and not quote_line(lines[i]):
            kept.doubt(lines[i], Doubt.REPLY_HEADER)  # text of his may stand before it
        else:
            kept.set_aside(lines[i : i + 1], Doubt.MARKED)
        kept.set_aside(lines[i + 1 : i + header], Doubt.MARKED)
        return i + header
    if (
        not kept.own
        and kept.under < 0
        and header > 1
        and header_block(lines, i, need_address=True) == header
    ):
        # A reply under the header block of the mail answered: the header is doubtful
        # (never run; it names the mail answered, pbp.mail.read.quotedheader).
        for n in range(i, i + header):
            if lines[n].strip():
                kept.doubt(lines[n], Doubt.UNDER_HEADER_BLOCK)
            else:
                kept.lines.append(lines[n])
        kept.under = len(kept.lines)
        return i + header
    # The quote starts here (top-posting). Its header and first line are doubtful, so
    # that a move taken for them ("--- ГОЛОС Петя ---", "Таня писала:" above one's own
    # move) is answered "looks quoted", not missed without a word.
    for n in range(i, i + header):
        kept.doubt(lines[n], Doubt.REPLY_HEADER)
    after = next((n for n in range(i + header, len(lines)) if lines[n].strip()), None)
    if after is not None and not is_quoted(lines[after]):
        kept.doubt(lines[after], Doubt.REPLY_HEADER)
    if kept.under < 0 and after is not None and FORWARD_SEPARATOR.match(lines[i]) is None:
        # Outlook's comments in the quote: the sender's once his labels are known.
        for n in labelled_in_quote(lines, i + header, header == 1, after):
            kept.doubt(lines[n], Doubt.UNMARKED_QUOTE)
    if after is not None and not is_quoted(lines[after]):
        after += 1
    if after is not None:
        kept.set_aside(lines[after:], Doubt.UNMARKED_QUOTE)
    return None


def _at_forum_quote(lines: list[str], i: int, kept: _Kept) -> int | None:
    """Read a forum quote pasted at ``lines[i]`` into ``kept`` (:mod:`pbp.mail.read.forumquote`):
    its header and post doubtful, up to the line that ends it (and that line), or to the
    end of the body when no line is known to end it; an end line with no header above
    it makes everything above it doubtful, back to the start or the last forum quote.
    The index of the next line to read; None when ``lines[i]`` starts no forum quote.
    A header followed by ``>`` lines (or another mark's,
    :func:`~pbp.mail.read.quotemarks.quote_line`) is doubtful alone (the marked lines are
    a quote as any)."""
    line = lines[i]
    entry = forum_header(lines, i)
    if entry is None:
        if not is_quote_end(line):
            return None
        already = set(kept.doubtful)
        for n in range(kept.quote_end, len(kept.lines)):
            if kept.lines[n] and n not in already:
                kept.doubtful.append(n)
        kept.doubt(line, Doubt.FORUM_QUOTE)
        kept.quote_end = len(kept.lines)
        return i + 1
    following = _next_text(lines, i + 1)
    if following is not None and quote_line(following):
        # A mail client's attribution after all: the marked lines are a quote as any,
        # "| " or ": " ones from here on too (as below a reply header, _at_header).
        kept.doubt(line, Doubt.FORUM_QUOTE)
        kept.marked = kept.marked or not is_quoted(following)
        return i + 1
    end = quote_end(lines, i, entry)
    stop = len(lines) if end is None else end + 1
    for n in range(i, stop):
        if lines[n].strip():
            kept.doubt(lines[n], Doubt.FORUM_QUOTE)
        else:
            kept.lines.append(lines[n])
    kept.quote_end = len(kept.lines)
    return stop
