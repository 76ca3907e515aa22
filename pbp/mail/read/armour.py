"""Inline OpenPGP armour in a mail body read as text (RFC 4880 §6.2, §7; RFC 9580 §6.2,
§7): a clear-signed message is its signed text, and a signature or key block is no text
of the sender's (:func:`open_clear_signed`). Used by :func:`pbp.mail.read.body.split_reply`.

A clear-signed message (GnuPG ``--clearsign``, Enigmail's and Mutt's inline PGP, Claws
Mail, Kleopatra's clipboard signing) is::

    -----BEGIN PGP SIGNED MESSAGE-----
    Hash: SHA256

    ГОЛОС Петя
    - ----------
    Вася
    -----BEGIN PGP SIGNATURE-----

    iQEzBAEBCAAdFiEE…
    -----END PGP SIGNATURE-----

Its armour header line, its armor headers (``Hash:``, also ``Charset:``, ``Comment:``,
``Version:``, ``MessageID:``) and the blank line after them are dropped; each line of
the text that is dash-escaped (``- `` before it, §7.1: every line that starts with a
dash is, and any other line may be) is read without the escape; the signature block is
dropped. No armour line is a reply separator and none is a command.

**Nothing is verified**: the signature is not checked, nor is the key looked for. The
mail is taken from its sender as any plain mail is (``pbp.mail.read.authcheck`` judges the sender,
not the signature); the armour is only taken off so that the text inside is read.

Where the block stands:

- at the top of the body (nothing but blank lines above it): the sender's mail, which
  his client signed whole; quotes inside it are quotes as in any mail;
- below text of the body: another mail pasted or quoted there without quote marks (a
  reply written above an old signed mail): its text is given back marked as quoted
  (``> `` before each line), so that nothing in it is ever executed;
- inside a quote (``> -----BEGIN PGP SIGNED MESSAGE-----``): left as it is, a quote.

The text below the signature block is read as the body's text below it; a blank line
stands where the signature was. A lone signature or public key block
(``-----BEGIN PGP SIGNATURE-----`` … ``-----END PGP SIGNATURE-----``, ``… PGP PUBLIC
KEY BLOCK…``) is dropped alike. An encrypted message (``-----BEGIN PGP MESSAGE-----``)
is not opened; a body that is one (:func:`pgp_message`) is answered as encrypted.

Pure: no I/O; linear in the number of lines.
"""

from __future__ import annotations

import re

#: The armour header line of a clear-signed message (RFC 4880 §7).
BEGIN_SIGNED = "-----BEGIN PGP SIGNED MESSAGE-----"
#: The armour header line of the signature that ends one.
BEGIN_SIGNATURE = "-----BEGIN PGP SIGNATURE-----"
#: The armour blocks dropped wherever they stand outside a quote, by their header line:
#: the tail line that ends each.
_DROPPED = {
    BEGIN_SIGNATURE: "-----END PGP SIGNATURE-----",
    "-----BEGIN PGP PUBLIC KEY BLOCK-----": "-----END PGP PUBLIC KEY BLOCK-----",
}
#: An armor header (RFC 4880 §6.2: ``Key: Value``) of the keys the RFC names; ``Hash``
#: is the one a clear-signed message carries (§7).
_ARMOR_HEADER = re.compile(r"(?:hash|charset|comment|version|messageid):\s*\S.*", re.IGNORECASE)
#: Most armor header lines read after the armour header line.
MAX_ARMOR_HEADERS = 16
#: The dash-escape of a line of the signed text (RFC 4880 §7.1).
_DASH_ESCAPE = "- "
#: How many times the body is read again for a signed message inside the signed text
#: of another (dash-escaped there, so seen only once that one is opened).
MAX_SIGNED_DEPTH = 3


def open_clear_signed(lines: list[str]) -> list[str]:
    """``lines`` (a body's lines, without line breaks) with every clear-signed message
    outside a quote opened and every signature or key block dropped (module doc): the
    same list when there is none. A message signed inside the signed text of another is
    opened too, up to :data:`MAX_SIGNED_DEPTH` deep.

    >>> open_clear_signed([BEGIN_SIGNED, "Hash: SHA256", "", "ГОЛОС Петя", "- -- ",
    ...                    "Вася", BEGIN_SIGNATURE, "", "iQEz", "-----END PGP SIGNATURE-----"])
    ['ГОЛОС Петя', '-- ', 'Вася', '']
    >>> open_clear_signed(["ГОЛОС Петя", "", BEGIN_SIGNED, "Hash: SHA256", "",
    ...                    "ГОЛОС Таня", "", "Вася", BEGIN_SIGNATURE])
    ['ГОЛОС Петя', '', '> ГОЛОС Таня', '>', '> Вася', '']
    """
    for _ in range(MAX_SIGNED_DEPTH):
        if not any(line.strip() in _ARMOUR_STARTS for line in lines):
            break
        lines = _opened(lines)
    return lines


_ARMOUR_STARTS = frozenset({BEGIN_SIGNED, *_DROPPED})


def _opened(lines: list[str]) -> list[str]:
    """One reading of :func:`open_clear_signed`: the armour seen in ``lines`` as they
    are (not what opening a message brings to light)."""
    out: list[str] = []
    text_above = False  # a non-blank line kept above
    i = 0
    while i < len(lines):
        mark = lines[i].strip()
        if mark == BEGIN_SIGNED:
            start = _text_start(lines, i + 1)
            end = _line_index(lines, start, BEGIN_SIGNATURE)
            signed = [_unescaped(line) for line in lines[start:end]]
            if text_above:
                signed = [f"> {line}" if line else ">" for line in signed]
            out.extend(signed)
            text_above = text_above or any(line.strip() for line in signed)
            i = _line_index(lines, end, _DROPPED[BEGIN_SIGNATURE]) + 1
            if end < len(lines):
                out.append("")  # where the signature was
            continue
        if mark in _DROPPED:
            i = _line_index(lines, i + 1, _DROPPED[mark]) + 1
            out.append("")
            continue
        out.append(lines[i])
        text_above = text_above or bool(mark)
        i += 1
    return out


#: The armour header line of an OpenPGP message (RFC 4880 §6.2): encrypted, or signed
#: and compressed (``gpg --sign --armor``), its text unreadable without OpenPGP.
BEGIN_MESSAGE = "-----BEGIN PGP MESSAGE-----"


def pgp_message(text: str) -> bool:
    """True when ``text`` (a body) starts with an OpenPGP message's armour
    (:data:`BEGIN_MESSAGE`; only blank lines above it): inline PGP encryption, whose
    text cannot be read. Looks at the lines up to the first non-blank one.

    >>> pgp_message("\\n-----BEGIN PGP MESSAGE-----\\n\\nhQEMA…"), pgp_message("ГОЛОС Петя")
    (True, False)
    """
    for line in text.split("\n", MAX_ARMOR_HEADERS)[:MAX_ARMOR_HEADERS]:
        if line.strip():
            return line.strip().lstrip("\ufeff") == BEGIN_MESSAGE
    return False


def _text_start(lines: list[str], i: int) -> int:
    """Where the signed text starts after the armour header line (``lines[i - 1]``): past
    its armor headers and the blank line after them (RFC 4880 §7); a client that lost
    the blank line is forgiven."""
    headers = 0
    while i < len(lines) and headers < MAX_ARMOR_HEADERS and _ARMOR_HEADER.fullmatch(lines[i]):
        i += 1
        headers += 1
    if i < len(lines) and not lines[i].strip():
        i += 1
    return i


def _line_index(lines: list[str], start: int, wanted: str) -> int:
    """The index of the first line from ``start`` that is ``wanted`` (white space
    around it aside), or ``len(lines)``."""
    for index in range(start, len(lines)):
        if lines[index].strip() == wanted:
            return index
    return len(lines)


def _unescaped(line: str) -> str:
    """A line of the signed text without its dash-escape (RFC 4880 §7.1). A lone ``-``
    is an escaped empty line whose trailing space was stripped (an unescaped one would
    be ``- -``)."""
    if line.rstrip() == _DASH_ESCAPE.rstrip():
        return ""
    return line[len(_DASH_ESCAPE) :] if line.startswith(_DASH_ESCAPE) else line
