"""A text part's bytes made text (:func:`decode_bytes`): the declared charset (RFC 2045
§5.1, RFC 2046 §4.1.2) when it can be trusted, else a guess, for Russian mail above all
(a missing, unknown or wrong label: KOI8-R text labelled windows-1251, UTF-8 labelled
Latin-1). Used by :mod:`pbp.mail.read.textparts` on bodies and :mod:`pbp.mail.read.headers` on
raw 8-bit header bytes (RFC 6532).

Pure: no I/O; linear in the size of the text.
"""

from __future__ import annotations

import codecs
import math
import re

#: Single-byte Cyrillic charsets whose label clients get wrong; a declared one of
#: these may be overridden by a better-scoring one (see :func:`decode_bytes`).
CYRILLIC_8BIT = ("cp1251", "koi8-r", "koi8-u", "iso8859-5", "cp866", "mac-cyrillic")

#: Western charsets (normalised codec names) that a client may declare on UTF-8 text;
#: valid UTF-8 with multi-byte sequences is read as UTF-8 despite them.
WESTERN_8BIT = frozenset({"ascii", "latin-1", "iso8859-1", "iso8859-15", "cp1252"})

#: Letter frequencies of Russian text, per cent (ё counted with е in most texts).
_RU_FREQ = {
    "о": 10.97, "е": 8.45, "а": 8.01, "и": 7.35, "н": 6.70, "т": 6.26, "с": 5.47,
    "р": 4.73, "в": 4.54, "л": 4.40, "к": 3.49, "м": 3.21, "д": 2.98, "п": 2.81,
    "у": 2.62, "я": 2.01, "ы": 1.90, "ь": 1.74, "г": 1.70, "з": 1.65, "б": 1.59,
    "ч": 1.44, "й": 1.21, "х": 0.97, "ж": 0.94, "ш": 0.73, "ю": 0.64, "ц": 0.48,
    "щ": 0.36, "э": 0.32, "ф": 0.26, "ъ": 0.04, "ё": 0.04,
}  # fmt: skip
_RU_LOGP = {c: math.log(f / 100) for c, f in _RU_FREQ.items()}
_OTHER_LOGP = math.log(0.0001)  # a non-ASCII character that is not a Russian letter
_NEUTRAL = frozenset("«»—–…№“”„‘’\u00a0\ufeff")
_MIXED_CASE_WORD = re.compile(r"[а-яё][А-ЯЁ]")
_CYR_WORD = re.compile(r"[А-Яа-яЁё]+")
#: How much better (mean log-probability per letter) another charset must score to
#: override the declared one.
_OVERRIDE_MARGIN = 0.3
_MIN_LETTERS = 3


#: Python codecs that are no character set (RFC 2978): they read backslash escapes
#: (``\ud800`` a lone surrogate), so a label naming one is treated as unknown.
_NOT_CHARSETS = frozenset({"unicode-escape", "raw-unicode-escape"})

#: A lone surrogate: UTF-7 can encode one (``+2AA-``); no mail can carry it.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _codec(name: str | None) -> str | None:
    """The normalised codec name of a MIME charset label, or None when unknown or no
    character set (:data:`_NOT_CHARSETS`); an unregistered ``x-`` label is looked up
    without its prefix (``x-mac-cyrillic``)."""
    if not name:
        return None
    label = name.strip().strip('"').lower()
    for candidate in (label, label[2:] if label.startswith("x-") else None):
        if candidate:
            try:
                codec = codecs.lookup(candidate).name
            except LookupError:
                continue
            return None if codec in _NOT_CHARSETS else codec
    return None


#: Charsets whose bytes may all be ASCII without the text being ASCII (UTF-16 and
#: UTF-32 without a byte-order mark: ``Г`` is ``13 04``; UTF-7: ``+BBM-``).
_WIDE = ("utf-16", "utf-32", "utf-7")
_CONTROL = re.compile("[\x00-\x08\x0b\x0e-\x1f\x7f]")


def _decodes(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except (UnicodeError, LookupError):  # "undefined" raises a plain UnicodeError
        return None


def russian_score(text: str) -> float:
    """Mean log-probability (natural log) per non-ASCII character of ``text`` as Russian,
    less one per word with a lower-case letter followed by an upper-case one (the mark
    of KOI8-R read as windows-1251 and back: ``вЕМЩИ``). Higher is more Russian-like;
    real Russian scores about -3, mojibake below -3.3. 0.0 for text with no non-ASCII
    letters.
    """
    total = 0.0
    letters = 0
    for ch in text:
        if ord(ch) < 128 or ch in _NEUTRAL:
            continue
        total += _RU_LOGP.get(ch.lower(), _OTHER_LOGP)
        letters += 1
    if not letters:
        return 0.0
    words = _CYR_WORD.findall(text)
    mixed = sum(1 for w in words if _MIXED_CASE_WORD.search(w))
    return total / letters - mixed / max(len(words), 1)


def decode_bytes(data: bytes, declared: str | None) -> tuple[str, str]:
    """Decode a text part; returns ``(text, codec used)``.

    Order: pure ASCII as is (unless it is declared UTF-16, UTF-32 or UTF-7 and decodes
    as such to text without control characters); UTF-8 when the declared charset is a Western one
    (:data:`WESTERN_8BIT`: us-ascii, ISO 8859-1/-15, windows-1252; clients put a Latin-1
    label on UTF-8 Cyrillic) and the bytes are valid UTF-8; a declared charset that is
    neither UTF-8 nor a Cyrillic
    single-byte one (:data:`CYRILLIC_8BIT`), when it decodes; UTF-8 when the bytes are
    valid UTF-8 (multi-byte UTF-8 almost never happens by chance in 8-bit text); else
    the declared Cyrillic charset, windows-1251 and KOI8-R, the declared one kept
    unless another scores :data:`_OVERRIDE_MARGIN` better by :func:`russian_score`
    (KOI8-R text labelled windows-1251 is read right). Never raises: the last resort is
    windows-1251 with replacement characters.

    >>> decode_bytes("нож".encode("koi8-r"), "windows-1251")
    ('нож', 'koi8-r')
    >>> decode_bytes("нож".encode("utf-8"), "iso-8859-1")
    ('нож', 'utf-8')
    """
    codec = _codec(declared)
    if data.isascii():
        text, used = _ascii(data, codec)
    else:
        text, used = _declared_or_utf8(data, codec) or _cyrillic(data, codec)
    if _SURROGATE.search(text):
        text = _SURROGATE.sub("\ufffd", text)
    return text, used


def _ascii(data: bytes, codec: str | None) -> tuple[str, str]:
    """``(text, codec)`` of bytes that are all ASCII: ASCII text, unless ``codec`` is
    UTF-16, UTF-32 or UTF-7 and they decode as such to text without control characters."""
    # Wide text has NUL (Latin) or 0x04 (Cyrillic) bytes; ASCII text mislabelled has not.
    utf7 = codec == "utf-7"
    if (
        codec is not None
        and codec.startswith(_WIDE)
        and (utf7 or b"\x00" in data or b"\x04" in data)
    ):
        wide = _decodes(data, codec)
        if wide is not None and not _CONTROL.search(wide):
            return wide, codec
    return data.decode("ascii"), "ascii"


def _declared_or_utf8(data: bytes, codec: str | None) -> tuple[str, str] | None:
    """``(text, codec)`` of 8-bit bytes read as UTF-8 when ``codec`` is Western, as
    ``codec`` when it is neither UTF-8 nor Cyrillic, else as UTF-8; None when none of
    these decodes them."""
    if codec in WESTERN_8BIT:
        text = _decodes(data, "utf-8")
        if text is not None:
            return text, "utf-8"
    if codec is not None and codec != "utf-8" and codec not in CYRILLIC_8BIT:
        text = _decodes(data, codec)
        if text is not None:
            return text, codec
    text = _decodes(data, "utf-8")
    return None if text is None else (text, "utf-8")


def _cyrillic(data: bytes, codec: str | None) -> tuple[str, str]:
    """``(text, codec)`` of 8-bit bytes that are not UTF-8: the declared Cyrillic
    charset, windows-1251 or KOI8-R, whichever :func:`russian_score` prefers by
    :data:`_OVERRIDE_MARGIN` (the first that decodes otherwise); windows-1251 with
    replacement characters when none decodes."""
    candidates: list[tuple[str, str]] = []
    for name in (codec if codec in CYRILLIC_8BIT else None, "cp1251", "koi8-r"):
        if name is None or any(name == c for c, _ in candidates):
            continue
        decoded = _decodes(data, name)
        if decoded is not None:
            candidates.append((name, decoded))
    if not candidates:
        return data.decode("cp1251", errors="replace"), "cp1251"
    best_name, best_text = candidates[0]
    letters = sum(1 for ch in best_text if ord(ch) >= 128)
    if letters >= _MIN_LETTERS:
        base = russian_score(best_text)
        for name, decoded in candidates[1:]:
            score = russian_score(decoded)
            if score > base + _OVERRIDE_MARGIN:
                best_name, best_text, base = name, decoded, score
    return best_text, best_name
