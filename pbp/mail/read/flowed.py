"""Soft line breaks of a ``format=flowed`` body joined (RFC 3676, :func:`unflow`). Used by
:mod:`pbp.mail.read.textparts` before the body is read for the sender's own text
(:func:`pbp.mail.read.body.split_reply`).

Pure: no I/O; linear in its input.
"""

from __future__ import annotations

from pbp.mail.read.replyheader import reply_header


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
