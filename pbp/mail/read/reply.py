"""What reading a mail body for the sender's own text gives (:class:`Reply`, made by
:func:`pbp.mail.read.body.split_reply`), and the shapes of line that are not taken for
his although a command may be written there (:class:`Doubt`).

Pure: no I/O.
"""

from __future__ import annotations

import enum
from collections.abc import Collection
from dataclasses import dataclass

from pbp.mail.read.quotemarks import bare, comment_label, labelled_own, unmark


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
    #: Text inside a forum ``[quote]``/``[spoiler]`` block
    #: (:func:`pbp.mail.read.forumtags.unquote_forum`).
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


@dataclass(frozen=True)
class Reply:
    """A mail body read for the sender's own text (:func:`pbp.mail.read.body.split_reply`).

    ``text``: the new text; ``doubtful``: the doubtful lines, stripped, in order, each
    without another quote mark or a comment label at its start
    (:func:`~pbp.mail.read.quotemarks.bare`: what it says, tried as a command);
    ``whole``: the new text with the doubtful lines in their places, and
    ``doubtful_at``: their 0-based line numbers in ``whole`` (what
    :func:`pbp.mail.read.echo.strip_echo` and :func:`pbp.mail.read.echo.strip_help_echo`
    look at: a pasted mail of ours is found by its run of lines, which a doubtful line
    must not break);
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

        >>> from pbp.mail.read.body import split_reply
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

        >>> from pbp.mail.read.body import split_reply
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
        where it repeats a mail of ours (:mod:`pbp.mail.read.echo`),
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

        >>> from pbp.mail.read.body import split_reply
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
