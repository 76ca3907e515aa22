"""Text that is safe in a mail's header, and the characters that show nothing.

The mail layer's own text tools, the lowest of pbp's: the text layer (:mod:`pbp.text.inert`,
:mod:`pbp.text.names`) builds on them, and so do composing a mail (:mod:`pbp.mail.compose`)
and reading one (:mod:`pbp.mail.read.body`, :mod:`pbp.mail.read.echo`).

- :func:`strip_controls` removes C0 controls but TAB and LF, DEL, C1 controls and the
  bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069),
  which could reorder or hide what a GM or a player reads;
- :func:`one_line` also folds every line break and whitespace run into one space
  (a Subject echoed in a notice cannot write a line of its own);
- :func:`msg_ids` keeps only well-formed message ids (RFC 5322 §3.6.4) of a header
  that is echoed back (In-Reply-To, References);
- :data:`INVISIBLE` removes the characters that show nothing and makes every other
  space a plain one.

Pure: no I/O.
"""

from __future__ import annotations

import re

#: C0 but TAB and LF, DEL, C1, bidi embeddings/overrides (U+202A–E) and isolates (U+2066–9).
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")

#: RFC 5322 §3.6.4 msg-id, printable ASCII only: "<" id-left "@" id-right ">".
_ATEXT = r"A-Za-z0-9!#$%&'*+\-/=?^_`{|}~."
_MSG_ID = re.compile(rf"<[{_ATEXT}]+@[{_ATEXT}\[\]]+>")


#: Characters that show nothing (Unicode format characters: BOM, zero-width space and
#: joiners, word joiner, soft hyphen, direction marks and isolates), removed; and the
#: space characters other than the ASCII space (no-break, thin, narrow, ideographic…),
#: made a space. Phones and forums paste both into commands.
INVISIBLE = str.maketrans(
    dict.fromkeys(
        "\u00ad\u061c\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e"
        "\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\u206a\u206b\u206c\u206d"
        "\u206e\u206f\ufeff\ufff9\ufffa\ufffb",
        None,
    )
    | dict.fromkeys(
        "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
        "\u2009\u200a\u202f\u205f\u3000",
        " ",
    )
)


def strip_controls(text: str) -> str:
    """``text`` without control characters (TAB and LF kept) and bidi controls.

    >>> strip_controls("a\\x1b[31mb\\x07\\x00c\\u202ed\\te\\r\\nf")
    'a[31mbcd\\te\\nf'
    """
    return _CONTROLS.sub("", text)


def one_line(text: str) -> str:
    """``text`` without control characters, on one line: every run of whitespace
    (line breaks included) becomes one space, none at either end.

    >>> one_line("Hi\\r\\nSender: gm@example.test\\x1b")
    'Hi Sender: gm@example.test'
    """
    return " ".join(strip_controls(text).split())


def msg_ids(text: str | None) -> list[str]:
    """The well-formed message ids in ``text`` (RFC 5322 §3.6.4: ``<left@right>``,
    printable ASCII, no control character), in order; anything else is dropped.

    >>> msg_ids("<a.1@example.test> junk <b\\x1b@example.test>")
    ['<a.1@example.test>']
    """
    if not text:
        return []
    return list(_MSG_ID.findall(text))
