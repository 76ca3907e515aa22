"""Header fields of a mail read as text (RFC 5322 §2.2, §3.6): every value cut to
:data:`HEADER_LIMIT` characters before it is parsed (the standard library's header
parser is super-linear on long values), unfolded, RFC 2047 encoded-words decoded, and
raw 8-bit bytes (clients that ignore RFC 2047; RFC 6532) read as UTF-8, else
windows-1251 / KOI8-R (:func:`pbp.mail.read.charset.decode_bytes`), never a crash.

Addresses are read by a small linear RFC 5322 §3.4 reader (:func:`mailboxes`) that takes
the angle-addr when there is one: ``netashka@example.test <evil@evil.test>`` is
``evil@evil.test``, as mail clients show it and DMARC checks it; :func:`sender` says
when a From field names no single sender, or an address pbp would not send to as it
is written (:func:`pbp.mail.read.address.address_problem`).

Pure: no I/O; each function linear in the size of the values it reads. Used by
:mod:`pbp.mail.read.mime`.
"""

from __future__ import annotations

import email.utils
import re
from datetime import UTC, datetime
from email import policy
from email.headerregistry import BaseHeader, HeaderRegistry
from email.message import Message

from pbp.mail.read.address import address_problem
from pbp.mail.read.charset import decode_bytes

#: Longest header value (characters, after unfolding) that is parsed; the rest is
#: dropped (cut back to a space when there is one in the last quarter). RFC 5322 §2.1.1
#: limits a line to 998 characters; a folded header may be longer, never this long in
#: honest mail.
HEADER_LIMIT = 4096
#: The same for ``Content-*`` headers, which the standard library re-parses at each use;
#: honest ones (type, charset, boundary, format) are far shorter.
MIME_HEADER_LIMIT = 1024

_MSG_ID = re.compile(r"<[^<>\s]+>")
#: One plausible addr-spec: a local part (a quoted string, or no white space, C0
#: controls, DEL, specials or second ``@``) and a domain (the same); whether pbp takes
#: it is :func:`pbp.mail.read.address.address_problem`'s to say.
_ADDR_SPEC = re.compile(
    r'(?:"(?:[^"\\\r\n]|\\.)*"|[^\s\x00-\x1f\x7f<>()\[\],;:"@]+)@[^\s\x00-\x1f\x7f<>()\[\],;:"@]+'
)
_LINE_BREAKS = re.compile(r"[\r\n]")
_SURROGATE = re.compile("[\udc80-\udcff]")


def cap(value: str, limit: int = HEADER_LIMIT) -> str:
    """``value`` cut to at most ``limit`` characters, at the last white space of the last
    quarter when there is one (so that an RFC 2047 encoded-word is not cut in two).

    >>> cap("=?utf-8?B?0J3QvtC2?= =?utf-8?B?0J3QvtC2?=", 25)
    '=?utf-8?B?0J3QvtC2?='
    """
    if len(value) <= limit:
        return value
    cut = value[:limit]
    space = max(cut.rfind(" "), cut.rfind("\t"))
    return cut[:space] if space >= limit * 3 // 4 else cut


#: Deepest nesting of comments (parentheses, RFC 5322 §3.2.2) in a header value that is
#: parsed; the standard library's parser recurses once per level and fails near a few
#: hundred (``RecursionError``). Honest mail nests none or one. A value nested deeper
#: is cut before its first parenthesis past this depth (:func:`bounded`), and a mail
#: whose header section holds one is unreadable (:func:`deep_comment_field`).
MAX_COMMENT_DEPTH = 20


def _too_deep_at(value: str | bytes) -> int | None:
    """The index of the first ``(`` of ``value`` nested over :data:`MAX_COMMENT_DEPTH`
    deep (a backslash escapes the next character, RFC 5322 §3.2.1), or None. Linear."""
    text = value.decode("latin-1") if isinstance(value, bytes) else value
    if text.count("(") <= MAX_COMMENT_DEPTH:
        return None
    depth = 0
    escaped = False
    for index, char in enumerate(text):
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "(":
            depth += 1
            if depth > MAX_COMMENT_DEPTH:
                return index
        elif char == ")" and depth:
            depth -= 1
    return None


def bounded(value: str) -> str:
    """``value`` cut before its first comment nested over :data:`MAX_COMMENT_DEPTH` deep
    (unchanged when none is), so that the standard parser never recurses past it.

    >>> bounded("text/plain" + "(" * 30) == "text/plain" + "(" * 20
    True
    """
    at = _too_deep_at(value)
    return value if at is None else value[:at]


def deep_comment_field(section: bytes) -> str | None:
    """The name of the first field of the header section ``section`` (raw, folded lines
    as received) whose value nests comments over :data:`MAX_COMMENT_DEPTH` deep, or
    None. Linear in its size.

    >>> deep_comment_field(b"To: a@example.test\\r\\nContent-Type: text/plain" + b"(" * 30)
    'Content-Type'
    """
    name = ""
    value: list[bytes] = []
    for line in [*section.splitlines(), b"end:"]:
        if line[:1] in (b" ", b"\t"):
            value.append(line)
            continue
        if name and _too_deep_at(b"".join(value)) is not None:
            return name
        head, colon, rest = line.partition(b":")
        name, value = (head.strip().decode("latin-1"), [rest]) if colon else ("", [])
    return None


#: Header objects kept for values seen before (:class:`_CappedHeaders`).
HEADERS_KEPT = 4096


class _CappedHeaders(HeaderRegistry):
    """The standard header factory on values cut by :func:`cap` and :func:`bounded`
    (for every MIME part).

    ``policy.default`` builds a new header object, parsing the value again, each time a
    field is read (``msg["Content-Type"]``, every ``get_content_type()``): reading one
    plain mail parsed its Content-Type about a dozen times. A header object depends only
    on the field's name and value and is never changed, so the last
    :data:`HEADERS_KEPT` are kept and handed out again (the same ``Content-Type``,
    ``MIME-Version``, ``To`` recur in every mail): about six times less time to read a
    plain mail, the same letter.
    """

    def __init__(self) -> None:
        super().__init__()
        self._kept: dict[tuple[str, str], BaseHeader] = {}

    def __call__(self, name: str, value: str) -> BaseHeader:
        key = (name, value)
        found = self._kept.get(key)
        if found is None:
            limit = MIME_HEADER_LIMIT if name.lower().startswith("content-") else HEADER_LIMIT
            found = super().__call__(name, bounded(cap(value, limit)))
            if len(self._kept) >= HEADERS_KEPT:
                self._kept.clear()  # a flood of distinct values starts it afresh
            self._kept[key] = found
        return found


#: The standard library's ``policy.default`` on header values cut by :func:`cap`: the
#: policy every message and part is parsed with.
POLICY = policy.default.clone(header_factory=_CappedHeaders())


def unsurrogate(value: str) -> str:
    """Raw 8-bit header bytes (kept by the parser as surrogate escapes) → text."""
    if not _SURROGATE.search(value):
        return value
    try:
        data = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", value)
    return decode_bytes(data, None)[0]


def unfolded(value: object) -> str:
    """A raw header value (as :meth:`Message.raw_items` gives it) unfolded, cut by
    :func:`cap`, 8-bit bytes decoded."""
    return unsurrogate(cap(_LINE_BREAKS.sub("", str(value))))


def field_values(msg: Message, name: str) -> list[str]:
    """Every raw value of header ``name`` (lower case), :func:`unfolded`, in order."""
    return [unfolded(value) for value in _by_name(msg).get(name, ())]


def _by_name(msg: Message) -> dict[str, list[object]]:
    """The raw values of the fields of ``msg`` by lower-cased name, in order: found
    once per message (a letter reads some twenty fields; going through every field
    for each was a third of reading the header section, issue 18), again when a field
    is added or removed."""
    kept: tuple[int, dict[str, list[object]]] | None = msg.__dict__.get(_INDEX)
    if kept is not None and kept[0] == len(msg):
        return kept[1]
    index: dict[str, list[object]] = {}
    for key, value in msg.raw_items():
        index.setdefault(key.lower(), []).append(value)
    msg.__dict__[_INDEX] = (len(msg), index)
    return index


#: The attribute of a message that keeps :func:`_by_name`'s index.
_INDEX = "_pbp_fields_by_name"


def first_value(msg: Message, name: str) -> str | None:
    """The first of :func:`field_values`, or None when there is no such field."""
    values = field_values(msg, name)
    return values[0] if values else None


def decoded(name: str, value: str | None) -> str:
    """``value`` with RFC 2047 encoded-words decoded (stdlib); the raw value if that fails."""
    if value is None:
        return ""
    try:
        text = str(POLICY.header_factory(name, value))
    except Exception:
        text = value
    return unsurrogate(text)


# --- addresses (RFC 5322 §3.4) ---


def _addr_spec(text: str) -> str | None:
    """``text`` stripped when it is one plausible addr-spec (``local@domain``), else None.
    A domain written as an absolute DNS name (``example.test.``) loses its final dot."""
    text = text.strip()
    if ":" in text and text.startswith("@"):  # obsolete source route (RFC 5322 §4.4)
        text = text.rsplit(":", 1)[1].strip()
    text = text.rstrip(".") if text.endswith(".") and "@" in text else text  # FQDN dot
    return text if _ADDR_SPEC.fullmatch(text) else None


def _mailbox(outside: str, angles: list[str], comments: list[str]) -> tuple[str, str | None]:
    display = " ".join(outside.split())
    comment = " ".join(" ".join(comments).split())
    if angles:
        addr = _addr_spec(angles[0]) if len(angles) == 1 else None
        name = display or comment
    elif (addr := _addr_spec(display)) is not None:
        name = comment
    else:  # "Name addr@domain" without brackets: one word with "@" is the address
        words = display.split()
        specs = [w for w in words if "@" in w]
        addr = _addr_spec(specs[0]) if len(specs) == 1 else None
        name = " ".join(w for w in words if "@" not in w) if addr else display
    return decoded("subject", name).strip() if name else "", addr


def _quoted_string(value: str, i: int, into: list[str]) -> int:
    """The index after the quoted-string (RFC 5322 §3.2.4) opening at ``value[i]``; its
    characters, without the quotes and the backslashes, appended to ``into``."""
    n = len(value)
    j = i + 1
    while j < n and value[j] != '"':
        if value[j] == "\\" and j + 1 < n:
            j += 1
        into.append(value[j])
        j += 1
    return j + 1


def _comment(value: str, i: int) -> tuple[str, int]:
    """``(text, the index after it)`` of the comment (RFC 5322 §3.2.2, may nest) opening
    at ``value[i]``; an unclosed one runs to the end."""
    n = len(value)
    depth, j = 1, i + 1
    start = j
    while j < n and depth:
        if value[j] == "\\":
            j += 1
        elif value[j] == "(":
            depth += 1
        elif value[j] == ")":
            depth -= 1
        j += 1
    return value[start : j - 1 if depth == 0 else j], j


def mailboxes(value: str) -> list[tuple[str, str | None]]:
    """``[(display name, addr-spec or None)]``, one per mailbox of an address list
    (RFC 5322 §3.4), in order; never raises; linear in ``len(value)``.

    The angle-addr ``<…>`` is the address whenever there is one, whatever the display
    name looks like; a mailbox with two angle-addrs has none (None). Without brackets
    the whole mailbox, or its only word with ``@``, is the address. Quoted strings and
    comments are honoured, group names (``Players: a@x, b@y;``) dropped, display names
    RFC 2047-decoded. Addresses are returned as written (not lower-cased).

    >>> mailboxes('netashka@example.test <evil@evil.test>, "Дуг, игрок" <dug@example.test>')
    [('netashka@example.test', 'evil@evil.test'), ('Дуг, игрок', 'dug@example.test')]
    """
    found: list[tuple[str, str | None]] = []
    outside: list[str] = []
    angles: list[str] = []
    comments: list[str] = []

    def finish() -> None:
        text = "".join(outside)
        if text.strip() or angles:
            found.append(_mailbox(text, angles, comments))
        outside.clear()
        angles.clear()
        comments.clear()

    i, n = 0, len(value)
    while i < n:
        ch = value[i]
        if ch == '"':
            start, words = i, list[str]()
            i = _quoted_string(value, i, words)
            if value.startswith("@", i):  # a quoted local part (RFC 5322 §3.4.1): as written
                outside.append(value[start:i])
            else:  # words of a display name: kept without the quotes
                outside.extend(words)
        elif ch == "(":
            comment, i = _comment(value, i)
            comments.append(comment)
        elif ch == "<":
            j = value.find(">", i + 1)
            j = n if j < 0 else j
            angles.append(value[i + 1 : j])
            i = j + 1
        elif ch in ",;":
            finish()
            i += 1
        elif ch == ":" and not angles:  # a group's display name ends here
            outside.clear()
            comments.clear()
            i += 1
        else:
            outside.append(ch)
            i += 1
    finish()
    return found


#: An obsolete source route (RFC 5322 §4.4 obs-route) before an addr-spec: ``<@a.test:``,
#: ``<@a.test,@b.test:``, or a bare ``@a.test:`` opening a mailbox.
_SOURCE_ROUTE = re.compile(r"(?:<|^|,)\s*@[^<>@:,;\s]*\s*:")
#: A group's display name (RFC 5322 §3.4): text then ``:`` outside angle brackets.
_GROUP = re.compile(r"^[^<>@\"]*:")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"')
#: A control character of C0 (but TAB), DEL or C1 in a field value.
_CONTROL = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f]")


def sender(msg: Message) -> tuple[str | None, str, str | None]:
    """``(address, display name, problem)`` of the From field: the first mailbox with an
    address (lower-cased), and why the field names no single sender, or none pbp
    would record and answer as it is written, else None (see
    :attr:`pbp.mail.read.mime.Letter.from_problem`): ``"a control character U+0085"``
    anywhere in the field (C0 but TAB, DEL, C1), ``"not a valid address: …"`` for
    an address :func:`pbp.mail.read.address.address_problem` refuses (a backslash, a
    quoted local part, an invisible character, one outside NFKC form such as
    U+212A KELVIN SIGN, which lower-cases to ``k``)."""
    values = field_values(msg, "from")
    if not values:
        return None, "", None
    value = values[0]
    found = mailboxes(value)
    problem = None
    if len(values) > 1:
        problem = "several From fields"
    elif len(found) > 1:
        problem = "several addresses"
    elif _SOURCE_ROUTE.search(_QUOTED.sub('""', value)):
        problem = "source route"
    elif _GROUP.match(_QUOTED.sub('""', value)):
        problem = "group"
    for name, addr in found:
        if addr is not None:
            if problem is None and (control := _CONTROL.search(value)) is not None:
                # Python reads NEL (U+0085) and U+001C-U+001F as white space: "vic\x85tim@…"
                # would be the address tim@… of a display name "vic".
                problem = f"a control character U+{ord(control[0]):04X}"
            if problem is None:
                problem = _unsendable(addr)
            return addr.lower(), name, problem
    if problem is None and value.strip():
        problem = "no readable address"
    return None, "", problem


def _unsendable(addr: str) -> str | None:
    """``"not a valid address: …"`` when pbp would not record ``addr`` (as written, and
    lower-cased as :func:`sender` records it) and send to it unchanged
    (:func:`pbp.mail.read.address.address_problem`), else None."""
    problem = address_problem(addr) or address_problem(addr.lower())
    return None if problem is None else f"not a valid address: {problem}"


def recipients(msg: Message) -> tuple[str, ...]:
    """The lower-cased addr-specs of ``Delivered-To``, ``X-Original-To``, ``To`` and
    ``Cc``, in that order, each once."""
    seen: dict[str, None] = {}
    for name in ("delivered-to", "x-original-to", "to", "cc"):
        for value in field_values(msg, name):
            for _, addr in mailboxes(value):
                if addr is not None:
                    seen.setdefault(addr.lower(), None)
    return tuple(seen)


# --- message ids and dates (RFC 5322 §3.6.4, §3.3) ---


def message_ids(value: str | None) -> list[str]:
    """Every ``<id>`` of ``value`` (In-Reply-To, References), angle brackets kept."""
    return _MSG_ID.findall(value) if value else []


def message_id(value: str | None) -> str | None:
    """The Message-ID of ``value``: its first ``<id>``, else the value stripped, or None."""
    if value is None:
        return None
    ids = message_ids(value)
    if ids:
        return ids[0]
    return value.strip() or None


def date(value: str | None) -> datetime | None:
    """The Date ``value``, timezone-aware in the sender's offset (UTC for ``-0000`` or
    none), or None when missing or unparsable."""
    if not value:
        return None
    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)
