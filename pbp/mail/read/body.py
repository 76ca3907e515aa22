"""The new text of a mail body: quoted replies and signatures removed
(:func:`split_reply`), soft line breaks joined (:func:`unflow`), copies of our own mails
and forum quotes cut (:func:`strip_echo`, :func:`strip_help_echo`,
:func:`unquote_forum`). Used by :mod:`pbp.mail.read.textparts`, the service and the command
parsers; pure string functions, each linear in its input.

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
- (separately, :func:`strip_echo`) an unmarked copy of the mail being answered;
- (separately, :func:`unquote_forum`, used by the command parsers) text in forum
  ``[quote]``/``[spoiler]`` blocks pasted from the game's forum thread;
- in HTML, before conversion (:mod:`pbp.mail.read.markup`): Gmail's ``<div
  class="gmail_quote">`` and ``gmail_signature``, Thunderbird's
  ``moz-cite-prefix``/``moz-signature`` and every ``<blockquote>``.
"""

from __future__ import annotations

import enum
import itertools
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from pbp.mail.read.armour import open_clear_signed
from pbp.mail.read.forumquote import forum_header, is_quote_end, quote_end
from pbp.mail.read.quotemarks import (
    bare,
    comment_label,
    labelled_in_quote,
    labelled_own,
    other_mark,
)
from pbp.mail.read.replyheader import (
    FORWARD_SEPARATOR,
    attribution_start,
    header_block,
    reply_header,
)
from pbp.text.names import INVISIBLE

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
#: A quoted line: ``>`` (RFC 3676 §4.5), or The Bat!'s and FidoNet's initials before
#: it (``p> …``, ``ВП> …``).
_QUOTED = re.compile(r"^\s*(?:>|[^\W\d_]{1,3}>)")
#: Every quote mark at the start of a line (``> > ``, ``ВП> >``), in one linear match.
_MARKS = re.compile(r"(?:\s*(?:>|[^\W\d_]{1,3}>))+")
_INVISIBLE = INVISIBLE | str.maketrans({"\r": None, "\u2028": "\n", "\u2029": "\n"})


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
    on the line is quoted, :func:`unquote_forum`).

    >>> quote_marker("> Вова"), quote_marker("ВП> Вова"), quote_marker("Вова [quote]")
    ('>', 'ВП>', '[quote')
    >>> quote_marker("Вова") is None, quote_marker("Вова>Петя") is None
    (True, True)
    """
    start = _QUOTED.match(text)
    if start is not None:
        return start.group().strip()
    tag = _FORUM_QUOTE_HEAD.search(text)
    return tag.group() if tag is not None else None


# --- what may be quoted ---


class Doubt(enum.Enum):
    """Every shape of line the reader does not take for the sender's own text although a
    command may be written there. None is ever executed, and none is passed over in
    silence (issue 33): the lines of the *doubtful* shapes (:attr:`Reply.doubtful`:
    ``REWRAPPED``, ``REPLY_HEADER``, ``UNDER_HEADER_BLOCK``, ``FORUM_QUOTE``, and a
    client footer line of ``SIGNATURE``) are answered "looks quoted — not done"
    whenever one holds a command; the lines *set aside* (:attr:`Reply.aside`: the
    others) are answered so when nothing else of the mail holds one, instead of "no
    command found". The value says what the shape is.
    """

    #: An unmarked line right under a ``>`` line: a phone's re-wrapped quote, or a reply.
    REWRAPPED = "an unmarked line right under a quoted line"
    #: The reply header above an unmarked (top-posted) quote, and the quote's first line;
    #: above a marked one, a header line where text of the sender's may stand before it.
    REPLY_HEADER = "a reply header above an unmarked quote, and the quote's first line"
    #: Below a header block at the top, a line of the mail answered (:meth:`Reply.own`).
    UNDER_HEADER_BLOCK = "a line of the mail answered below a header block"
    #: A forum post pasted with its quote header (:mod:`pbp.mail.read.forumquote`).
    FORUM_QUOTE = "a forum post pasted with its quote header"
    #: A ``>``-marked line (RFC 3676 §4.5) or The Bat!'s ``ВП>``, and the reply header
    #: above such lines (bottom-posting).
    MARKED = "a quoted line"
    #: The unmarked quote below a reply header, after its first line.
    UNMARKED_QUOTE = "the unmarked quote below a reply header"
    #: A signature: what follows ``-- `` (RFC 3676 §4.3), or a phone or web client's
    #: footer line (``Отправлено с iPhone``: doubtful) and what follows it.
    SIGNATURE = "a signature or a client's footer"
    #: Text inside a forum ``[quote]``/``[spoiler]`` block (:func:`unquote_forum`).
    FORUM_TAG = "a forum [quote] block"
    #: Text inside an HTML quote (``<blockquote>``, Gmail's ``gmail_quote``), which
    #: :func:`pbp.mail.read.markup.html_to_text` leaves out.
    HTML_QUOTE = "an HTML quote"


#: Most non-blank lines of a body set aside (:attr:`Reply.aside`): enough to find a move
#: written into a quote, not a copy of a long thread.
ASIDE_MAX = 500


def _fold_name(name: str) -> str:
    """``name`` as :meth:`Reply.with_titles` compares it: stripped, case-folded, ``ё`` as
    ``е``."""
    return name.strip().casefold().replace("ё", "е")


def unmark(line: str) -> str:
    """``line`` without its quote marks (:func:`is_quoted`, at any depth) and then
    another mark or a comment label (:func:`pbp.mail.read.quotemarks.bare`), stripped.

    >>> unmark("> > ГОЛОС Оля"), unmark("ВП> ГОЛОС Оля"), unmark("ГОЛОС Оля")
    ('ГОЛОС Оля', 'ГОЛОС Оля', 'ГОЛОС Оля')
    """
    found = _MARKS.match(line)
    return bare(line[found.end() :] if found else line)


# --- format=flowed (RFC 3676) ---


def unflow(text: str, delsp: bool = False) -> str:
    """Join the soft line breaks of a ``format=flowed`` body (RFC 3676 §4.2): a line
    ending in a space continues on the next line (the space removed when ``delsp``),
    but only on a line of the same quote depth (§4.5: the count of its leading ``>``),
    so that a phone's trailing space never joins a quote and the sender's own text.
    Space-stuffing (§4.4) is undone; the signature separator ``-- `` is kept; a joined
    quoted line is written ``> `` and its text. Nor is an unquoted line joined to the
    reply header below it (:func:`pbp.mail.read.replyheader.reply_header`): a phone's
    trailing space after a move never runs it into ``On …, X wrote:`` above the quote.

    >>> unflow("SUGGEST Краснова, \\nнож, кухня\\n")
    'SUGGEST Краснова, нож, кухня\\n'
    >>> unflow("ГОЛОС \\n> Оля\\n> a \\n> b\\n")
    'ГОЛОС \\n> Оля\\n> a b\\n'
    >>> unflow("REFUTE 7 knife \\nOn Tue, 1 Dec 2026, GM <gm@example.test> wrote:\\n> Go\\n")
    'REFUTE 7 knife \\nOn Tue, 1 Dec 2026, GM <gm@example.test> wrote:\\n> Go\\n'
    """
    out: list[str] = []
    pending: list[str] = []  # the pieces of a paragraph so far (joined once: linear)
    depth = 0  # the quote depth of the pending paragraph
    lines = text.split("\n")
    stripped: list[str] | None = None  # the lines right-stripped, made when first needed

    def flush() -> None:
        joined = "".join(pending)
        out.append((">" * depth + " " + joined) if depth else joined)
        pending.clear()

    for index, line in enumerate(lines):
        marks = len(line) - len(line.lstrip(">"))
        body = line[marks:]
        if body.startswith(" "):
            body = body[1:]
        if pending and marks != depth:
            flush()  # a change of quote depth ends a paragraph (§4.5)
        elif pending and not marks and line.strip():
            if stripped is None:
                stripped = [piece.rstrip() for piece in lines]
            if reply_header(stripped, index):
                flush()  # a reply header starts a line of its own
        depth = marks
        if body.endswith(" ") and body != "-- ":
            pending.append(body[:-1] if delsp else body)
            continue
        pending.append(body)
        flush()
    if pending and "".join(pending):
        flush()
    return "\n".join(out)


# --- quoted replies and signatures ---


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
        return line == "--" or _quote_line(line) or bool(reply_header(lines, index))
    return True


def new_text(text: str) -> str:
    """The text a sender wrote himself (:func:`split_reply`'s first part).

    >>> new_text("REFUTE 7 нож\\n\\nOn Mon, 1 Dec 2026 at 10:00, X <x@example.test> wrote:\\n> old")
    'REFUTE 7 нож'
    """
    return split_reply(text).text


@dataclass(frozen=True)
class Reply:
    """A mail body read for the sender's own text (:func:`split_reply`).

    ``text``: the new text; ``doubtful``: the doubtful lines, stripped, in order, each
    without another quote mark or a comment label at its start
    (:func:`pbp.mail.read.quotemarks.bare`: what it says, tried as a command);
    ``whole``: the new text with the doubtful lines in their places, and
    ``doubtful_at``: their 0-based line numbers in ``whole`` (what
    :func:`strip_echo` and :func:`strip_help_echo` look at: a pasted mail of ours
    is found by its run of lines, which a doubtful line must not break);
    ``under_header``: the line number in ``whole`` from which the text stands under a
    header block at the top of the mail (-1: none), where a line of the mail answered
    may be its unmarked quote (:meth:`own`);
    ``aside``: the lines set aside (quotes, signatures: :class:`Doubt`), without quote
    marks, stripped, in order, blank ones left out, at most :data:`ASIDE_MAX`;
    ``shapes``: every :class:`Doubt` shape found; ``labelled``: the line numbers in
    ``whole`` of the sender's comments found by their label (:meth:`with_labels`),
    which are his wherever they stand.
    """

    text: str
    doubtful: tuple[str, ...]
    whole: str
    doubtful_at: tuple[int, ...]
    under_header: int = -1
    aside: tuple[str, ...] = ()
    shapes: frozenset[Doubt] = frozenset()
    labelled: tuple[int, ...] = ()

    def with_labels(self, labels: Collection[str]) -> Reply:
        """The reply with the sender's comments labelled by Outlook ("Mark my comments
        with": ``[Оля] ГОЛОС Петя`` inside the quote) made his text, their label
        removed: each line of :attr:`whole` bearing one of ``labels``
        (:func:`pbp.mail.read.quotemarks.comment_labels` of his display name) in his own
        text or the first quoted mail (:func:`pbp.mail.read.quotemarks.labelled_own`).
        Lines labelled otherwise stay as they are (a doubtful one is never run).

        >>> reply = split_reply("Привет\\n\\nOn Tue, 1 Dec 2026, pbp <gm@example.test> wrote:\\n"
        ...                     "Принято.\\n[Оля] ГОЛОС Петя\\n[Таня] ГОЛОС Таня\\n")
        >>> reply.text, reply.whole.split("\\n")[-2:]
        ('Привет', ['[Оля] ГОЛОС Петя', '[Таня] ГОЛОС Таня'])
        >>> reply.with_labels({"оля"}).text
        'Привет\\n\\nГОЛОС Петя'
        """
        lines = self.whole.split("\n")
        found = labelled_own(lines, self.doubtful_at, self.under_header, labels)
        if not found:
            return self
        for number, comment in found.items():
            lines[number] = comment
        at = tuple(n for n in self.doubtful_at if n not in found)
        skip = set(at)
        text = "\n".join(line for n, line in enumerate(lines) if n not in skip).strip("\n")
        doubtful = tuple(bare(lines[n]) for n in at)
        labelled = tuple(sorted(found))
        return Reply(
            text,
            doubtful,
            "\n".join(lines),
            at,
            self.under_header,
            self.aside,
            self.shapes,
            labelled,
        )

    def with_titles(self, names: Collection[str]) -> Reply:
        """The reply with a Discourse quote whose title is one of ``names`` (the names
        of the game's seats) made doubtful: a line of the sender's own text that is a
        name and a colon alone (``Вася:``; compared case-folded, ``ё`` as ``е``) with
        more of his text below it is the title of a post he pasted, and it and every
        line below it are doubtful (:attr:`Doubt.FORUM_QUOTE`; the post runs to the end
        of the mail, as a forum quote with no end line). Discourse allows Unicode
        usernames since version 2.3; one capitalised word is read as a heading
        (``Moves:``, ``Ходы:``) unless a seat is named so
        (:mod:`pbp.mail.read.forumquote`).

        >>> reply = split_reply("ГОЛОС Петя\\n\\nВася:\\nГОЛОС Таня")
        >>> reply.text, reply.with_titles(["Вася"]).text, reply.with_titles(["Вася"]).doubtful
        ('ГОЛОС Петя\\n\\nВася:\\nГОЛОС Таня', 'ГОЛОС Петя', ('Вася:', 'ГОЛОС Таня'))
        """
        folded = {_fold_name(name) for name in names if name.strip()}
        if not folded:
            return self
        lines = self.whole.split("\n")
        doubtful = set(self.doubtful_at)
        title = next(
            (
                n
                for n, line in enumerate(lines)
                if n not in doubtful
                and line.rstrip().endswith((":", "："))
                and _fold_name(line.strip()[:-1]) in folded
                and any(
                    more.strip() and m not in doubtful
                    for m, more in enumerate(lines[n + 1 :], n + 1)
                )
            ),
            None,
        )
        if title is None:
            return self
        at = tuple(sorted(doubtful | {n for n in range(title, len(lines)) if lines[n].strip()}))
        skip = set(at)
        text = "\n".join(line for n, line in enumerate(lines) if n not in skip).strip("\n")
        return Reply(
            text,
            tuple(bare(lines[n]) for n in at),
            self.whole,
            at,
            self.under_header,
            self.aside,
            self.shapes | {Doubt.FORUM_QUOTE},
            self.labelled,
        )

    def own(self, whole: str, answered: str | None, help_text: str = "") -> Reply:
        """The reply once the caller cut ``whole`` (a prefix of :attr:`whole`'s lines)
        where it repeats a mail of ours (:func:`strip_echo`, :func:`strip_help_echo`),
        ``answered`` being the text of the mail of ours it answers (None: unknown) and
        ``help_text`` our command help.

        Below a header block at the top (:attr:`under_header`) each line of
        ``answered`` is doubtful too, and every line is when ``answered`` is unknown:
        a quote under that header is marked by nothing. The lines set aside
        (:attr:`aside`) that are lines of ``answered`` or ``help_text`` (quote marks
        left out) are left out: a quote of our mail holds our examples, not the
        sender's moves. The sender's labelled comments (:attr:`labelled`) are his text,
        also those the cut left out, and comments labelled otherwise that the cut left
        out stay doubtful (they follow the rest, in order).

        >>> reply = split_reply("От: pbp <gm@example.test>\\nДата: 01.12.2026 12:40\\n"
        ...                     "Кому: Вася\\n\\nГОЛОС Петя\\n[b]Голосую за Олю[/b]")
        >>> reply.own(reply.whole, "Выполнено:\\n[b]Голосую за Олю[/b]").text
        'ГОЛОС Петя'
        """
        count = len(whole.split("\n")) if whole else 0
        every = self.whole.split("\n")
        lines = every[:count]
        skip = {n for n in self.doubtful_at if n < count}
        labelled = set(self.labelled)
        if 0 <= self.under_header < count:
            ours = None if answered is None else {line.strip() for line in answered.split("\n")}
            skip |= {
                n
                for n in range(self.under_header, count)
                if lines[n].strip()
                and n not in labelled
                and (ours is None or lines[n].strip() in ours)
            }
        # Cut off with an echo of ours: a comment labelled with the sender's name is
        # still his; one labelled otherwise is still doubtful (never run, and said).
        doubted = set(self.doubtful_at)
        later = [
            n
            for n in range(count, len(every))
            if n in labelled
            or (
                (n in doubted or 0 <= self.under_header <= n)
                and "[" in every[n]
                and comment_label(every[n]) is not None
            )
        ]
        lines += [every[n] for n in later]
        mine = (
            *(n for n in self.labelled if n < count),
            *(count + k for k, n in enumerate(later) if n in labelled),
        )
        skip |= {count + k for k, n in enumerate(later) if n not in labelled}
        text = "\n".join(line for n, line in enumerate(lines) if n not in skip).strip("\n")
        at = tuple(sorted(skip))
        shapes = self.shapes
        if len(skip) > sum(1 for n in self.doubtful_at if n < count):
            shapes |= {Doubt.UNDER_HEADER_BLOCK}
        aside = self.aside
        if aside and (answered or help_text):
            ours = {unmark(line) for line in f"{answered or ''}\n{help_text}".split("\n")}
            aside = tuple(line for line in aside if line not in ours)
        doubtful = tuple(bare(lines[n]) for n in at)
        return Reply(
            text, doubtful, "\n".join(lines), at, aside=aside, shapes=shapes, labelled=mine
        )


def split_reply(text: str) -> Reply:
    """The new text and the doubtful lines of a mail body (:class:`Reply`).

    The new text is what the sender wrote himself: without quoted replies and
    signature (module doc), invisible characters removed and odd spaces made spaces
    (:data:`~pbp.text.names.INVISIBLE`: BOM, zero-width spaces, no-break spaces…), CR
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

    What is removed is set aside (:attr:`Reply.aside`: quoted lines unmarked, the
    quote under a reply header, the signature, the text in forum ``[quote]`` blocks),
    tried as commands only when nothing else of the mail holds one (:class:`Doubt`).

    A header block of fields (``От:``/``Кому:``/``Тема:``, in any language) at the very
    top, with nothing of the sender's above it and no ``>`` quote below it, is a reply
    written under the header of the mail answered (bottom-posting): the header is
    dropped and what follows is the sender's, but for the lines of the mail answered
    (:meth:`Reply.own`: ``under_header``; the header's lines are doubtful, and name the
    mail answered: :mod:`pbp.mail.read.quotedheader`). A second header block below it
    starts a quote.

    Inside the first quoted mail, lines begun with an Outlook comment label (``[Оля]
    ГОЛОС Петя``) are doubtful until :meth:`Reply.with_labels` knows the sender's
    labels (:mod:`pbp.mail.read.quotemarks`).

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
    ``shapes`` (the :class:`Doubt` shapes found), ``quote_end`` (the index in
    ``lines`` after the last forum quote) and ``marked`` (a reply header was followed
    by a line quoted with another mark, :func:`pbp.mail.read.quotemarks.other_mark`: from
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
        """Set ``lines`` aside (:attr:`Reply.aside`), of ``shape``: their non-blank ones
        unmarked, up to :data:`ASIDE_MAX` in all."""
        for line in lines:
            if len(self.aside) >= ASIDE_MAX:
                return
            text = unmark(line)
            if text:
                self.aside.append(text)
                self.shapes.add(shape)

    def reply(self) -> Reply:
        """The :class:`Reply` of what is kept: both ends without blank lines, the
        doubtful lines' numbers following the cut; the text inside forum ``[quote]``
        blocks of the sender's lines set aside (:data:`Doubt.FORUM_TAG`)."""
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
    if i > 0 and lines[i - 1] and _quote_line(lines[i - 1]):
        # Right below a quoted line: maybe the quote's re-wrapped continuation.
        while i < len(lines) and lines[i] and not _quote_line(lines[i]):
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
    start = None if _quote_line(lines[i]) else attribution_start(lines, i, header)
    if start:
        kept.lines.append(lines[i][:start].rstrip())
        kept.own = True
        lines[i] = lines[i][start:].strip()  # split_reply's own copy: the header alone
        start = 0
    following = _next_text(lines, i + header)
    if following is not None and _quote_line(following):
        # Bottom-posting: the header is set aside with the quote, what follows the
        # quote is kept. A quote marked "| " or ": " (the user's choice of mark) makes
        # such lines quoted from here on.
        kept.marked = kept.marked or not is_quoted(following)
        if start is None and not _quote_line(lines[i]):
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
    A header followed by ``>`` lines (or another mark's, :func:`_quote_line`) is
    doubtful alone (the marked lines are a quote as any)."""
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
    if following is not None and _quote_line(following):
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


def _quote_line(line: str) -> bool:
    """True when ``line`` is quoted by ``>`` (:func:`is_quoted`) or another mark
    (:func:`pbp.mail.read.quotemarks.other_mark`)."""
    return is_quoted(line) or other_mark(line) is not None


#: The start of a forum ``[quote]``/``[spoiler]`` tag (opening or closing); the tag goes
#: on to the first ``]``, at most :data:`_FORUM_ATTRS_MAX` characters after ``=`` or a
#: space (``[quote=Неташка]``, ``[quote name="…"]``).
_FORUM_QUOTE_HEAD = re.compile(r"\[(/?)(?:quote|spoiler)(?=[=\s\]])", re.IGNORECASE)
_FORUM_ATTRS_MAX = 300


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


def strip_echo(text: str, sent: str) -> str:
    """``text`` cut where it starts repeating ``sent`` without quote marks.

    ``sent`` is the plain-text body of our mail that the player answers (found by
    In-Reply-To); ``text`` is his new text (:func:`new_text`). Some clients quote without
    ``>`` and some players paste our whole mail: such an echo must never be executed.
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
