"""S/MIME opaque-signed mail opened for its text (RFC 8551 §3.5.2; CMS, RFC 5652 §5):
the signed MIME entity is taken out of its ``SignedData`` container and read as the
body (:func:`open_signed`). Used by :mod:`pbp.mail.read.mime`.

An opaque-signed mail (``application/pkcs7-mime; smime-type=signed-data;
name=smime.p7m``, also ``application/x-pkcs7-mime``, or ``application/octet-stream``
named ``*.p7m``) carries its text in clear, inside the DER (or BER) of a CMS
``ContentInfo`` whose content is ``SignedData``: its ``encapContentInfo.eContent`` is
the MIME entity the sender wrote (``Content-Type: text/plain…``, a blank line, the
text). The container is read by ``asn1crypto`` (pure Python, no native code: a
hostile container can only raise or spend CPU time, which the message's budget
bounds, :func:`pbp.app.budget.cpu_budget`).

**Nothing is verified**: the signature, the signer's certificate and its chain are
not looked at. A mail is taken from its sender as any plain mail is
(:mod:`pbp.mail.read.authcheck` judges the sender, not the signature); the container is only
opened so that the text inside is read.

Only ``SignedData`` is opened: ``EnvelopedData`` (``smime-type=enveloped-data``,
encrypted) and the rest stay as they are, and the body reader answers them as
encrypted (:func:`pbp.mail.read.textparts.no_text_code`). A ``.p7m`` file attached beside
the text (a signed document) is not the body and is not opened: only the message
itself, or a part of it named ``smime.p7m`` (or not named) that is not inside an
attached mail, is.

Bounds: a container of at most :data:`MAX_SIGNED_BYTES` bytes; a signed entity
inside a signed entity opened at most :data:`MAX_SIGNED_DEPTH` deep; at most
:data:`MAX_SIGNED_PARTS` containers in one mail; the MIME entity inside parsed as the
mail is (:mod:`pbp.mail.read.mimetree`: linear, at most
:data:`~pbp.mail.read.mimetree.MAX_PART_DEPTH` deep,
:data:`~pbp.mail.read.mimetree.MAX_BOUNDARY_LINES` parts).

Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from email.message import EmailMessage, Message

from asn1crypto import cms, core

from pbp.mail.read.mimetree import MAX_BOUNDARY_LINES, MAX_PART_DEPTH, TooDeep, parse, too_deep

#: Largest signed container opened (bytes of DER, after the transfer encoding is
#: undone): more than any mail a default inbox takes
#: (:data:`pbp.mail.base.DEFAULT_MAX_MESSAGE_SIZE`).
MAX_SIGNED_BYTES = 4_000_000
#: Deepest nesting of signed entities opened (a signed mail inside a signed mail…):
#: clients sign once, or sign, encrypt and sign again (RFC 8551 §3.7, "triple
#: wrapping", whose encrypted middle stays closed).
MAX_SIGNED_DEPTH = 3
#: Most signed containers opened in one mail.
MAX_SIGNED_PARTS = 8

_PKCS7_TYPES = frozenset({"application/pkcs7-mime", "application/x-pkcs7-mime"})
#: The name S/MIME gives the part (RFC 8551 §3.2.1).
_SMIME_NAME = "smime.p7m"


@dataclass(frozen=True)
class Opened:
    """A message with its signed containers opened (:func:`open_signed`).

    - ``message``: the message whose body is read: the one given, its signed parts
      replaced by what they hold, or, when the message itself was the container, the
      entity inside it (its header fields are the entity's ``Content-*`` ones, not the
      mail's);
    - ``reason``: None, or why a signed container could not be opened (short English,
      for the GM: ``"signed S/MIME content could not be read (ValueError: …)"``);
    - ``code``: with ``reason``, a :attr:`pbp.mail.read.mime.Letter.unreadable_code`:
      ``"body_error"`` (a broken or overlong container), ``"too_deep"`` (signed over
      :data:`MAX_SIGNED_DEPTH` deep, or parts nested over
      :data:`~pbp.mail.read.mimetree.MAX_PART_DEPTH` inside), ``"too_many_parts"`` (over
      :data:`MAX_SIGNED_PARTS` containers, or over
      :data:`~pbp.mail.read.mimetree.MAX_BOUNDARY_LINES` parts inside one); ``""``.
    """

    message: EmailMessage
    reason: str | None = None
    code: str = ""


class _Unreadable(Exception):
    """A signed container that cannot be opened: ``(reason, code)`` as in
    :class:`Opened`."""

    def __init__(self, reason: str, code: str = "body_error") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


def open_signed(msg: EmailMessage) -> Opened:
    """``msg`` with each opaque-signed S/MIME container that is its body opened (module
    doc). Parts of ``msg`` are replaced in place (``msg`` is the caller's own parse);
    a message without one comes back as it is. Never raises (but
    :class:`pbp.app.budget.BudgetExceeded`, which is no :class:`Exception`).

    The mail's header fields (From, To, Subject…) stay those of ``msg``: the signed
    entity's header fields are read for its body alone.
    """
    try:
        root, changed = _opened(msg)
    except _Unreadable as error:
        return Opened(msg, error.reason, error.code)
    except Exception as error:  # the standard parser is lenient; this is a safety net
        reason = f"signed S/MIME content could not be read ({type(error).__name__})"
        return Opened(msg, reason, "body_error")
    if changed and too_deep(root):  # the parts inside, beneath the parts outside
        return Opened(msg, f"MIME parts nested over {MAX_PART_DEPTH} deep", "too_deep")
    return Opened(root)


def _opened(msg: EmailMessage) -> tuple[EmailMessage, bool]:
    """:func:`open_signed`'s work: ``(the message whose body is read, True when a
    container was opened)``.

    :raises _Unreadable: a container that cannot be opened, or over the bounds.
    """
    root = msg
    skipped: set[int] = set()  # containers looked into and left closed (encrypted…)
    opened = 0
    changed = False
    for depth in range(MAX_SIGNED_DEPTH + 1):
        found = [place for place in _containers(root) if id(place[2]) not in skipped]
        if not found:
            break
        if depth == MAX_SIGNED_DEPTH:
            raise _Unreadable(f"signed S/MIME nested over {MAX_SIGNED_DEPTH} deep", "too_deep")
        for parent, index, part in found:
            opened += 1
            if opened > MAX_SIGNED_PARTS:
                raise _Unreadable(f"over {MAX_SIGNED_PARTS} signed S/MIME parts", "too_many_parts")
            inner = _signed_entity(part)
            if inner is None:
                skipped.add(id(part))
                continue
            changed = True
            if parent is None:
                root = inner
            else:
                children = parent.get_payload()
                assert isinstance(children, list)
                children[index] = inner
    return root, changed


def _containers(msg: Message) -> list[tuple[Message | None, int, Message]]:
    """``(parent, index in its parts, part)`` of each signed container of ``msg`` that
    is its body (:func:`_is_container`), found without recursion and at most
    :data:`MAX_PART_DEPTH` levels down; the parent None for ``msg`` itself. Not looked
    into: attached mails (``message/rfc822``: another's, never read as the sender's)."""
    found: list[tuple[Message | None, int, Message]] = []
    stack: list[tuple[Message | None, int, Message, int]] = [(None, 0, msg, 0)]
    while stack:
        parent, index, part, depth = stack.pop()
        if _is_container(part, root=parent is None):
            found.append((parent, index, part))
            continue
        children = part.get_payload() if part.is_multipart() else None
        if (
            isinstance(children, list)
            and depth < MAX_PART_DEPTH
            and part.get_content_type() != "message/rfc822"
        ):
            stack.extend(
                (part, n, child, depth + 1)
                for n, child in reversed(list(enumerate(children)))
                if isinstance(child, Message)
            )
    return found


def _is_container(part: Message, *, root: bool) -> bool:
    """True when ``part`` is an S/MIME container that may hold signed data and is the
    body: its type one of :data:`_PKCS7_TYPES` (or, on the message itself,
    ``application/octet-stream`` with a ``.p7m`` name), its ``smime-type`` none or
    ``signed-data``, and it is the message itself or a part named ``smime.p7m`` or not
    named at all (a named ``.p7m`` part is a signed file)."""
    kind = part.get_content_type()
    pkcs7 = kind in _PKCS7_TYPES
    if not pkcs7 and not (root and kind == "application/octet-stream"):
        return False
    name = part.get_filename() or part.get_param("name", header="content-type") or ""
    name = str(name).strip().lower()
    if not pkcs7 and not name.endswith(".p7m"):
        return False
    if not root and name not in ("", _SMIME_NAME):
        return False
    smime_type = str(part.get_param("smime-type") or "").strip().lower()
    return smime_type in ("", "signed-data")


def _signed_entity(part: Message) -> EmailMessage | None:
    """The MIME entity signed in the container ``part``, parsed; None when the
    container holds no signed data (encrypted or another CMS type: left closed).

    :raises _Unreadable: a container that is empty, overlong or broken, signed content
        that is not data (RFC 5652 ``id-data``) or is detached, or an entity inside
        with too many parts or nested too deep.
    """
    der = part.get_payload(decode=True)
    if not isinstance(der, bytes) or not der.strip():
        raise _Unreadable("signed S/MIME part is empty")
    if len(der) > MAX_SIGNED_BYTES:
        raise _Unreadable(f"signed S/MIME part over {MAX_SIGNED_BYTES} bytes")
    content = _econtent(der)
    if content is None:
        return None
    if content.count(b"\n--") > MAX_BOUNDARY_LINES:
        raise _Unreadable(
            f"over {MAX_BOUNDARY_LINES} MIME boundary lines in signed S/MIME", "too_many_parts"
        )
    try:
        return parse(content)
    except (RecursionError, TooDeep):
        raise _Unreadable(f"MIME parts nested over {MAX_PART_DEPTH} deep", "too_deep") from None


def _econtent(der: bytes) -> bytes | None:
    """The encapsulated content of the CMS ``ContentInfo`` ``der`` when it is
    ``SignedData`` of ``id-data`` (RFC 5652 §5.2); None when it is another type
    (``EnvelopedData``…).

    :raises _Unreadable: not a ``ContentInfo``, broken, or signed content that is not
        ``id-data`` or is detached.
    """
    try:
        info = cms.ContentInfo.load(der)
        if info["content_type"].native != "signed_data":
            return None
        encapsulated = info["content"]["encap_content_info"]
        inner_kind = str(encapsulated["content_type"].native)
        value = encapsulated["content"]
        if inner_kind != "data":
            raise _Unreadable(f"signed S/MIME content is {inner_kind[:60]}, not a MIME entity")
        if isinstance(value, core.Void):
            raise _Unreadable("signed S/MIME content is detached (not in the container)")
        contents = value.contents
        if not isinstance(contents, bytes):
            raise TypeError(f"contents of {type(value).__name__}")
        return contents if value.method == 0 else octet_pieces(contents)
    except _Unreadable:
        raise
    except Exception as error:  # asn1crypto raises ValueError, TypeError, KeyError…
        detail = " ".join(f"{type(error).__name__}: {error}".split())[:200]
        raise _Unreadable(f"signed S/MIME content could not be read ({detail})") from None


#: Deepest nesting of constructed pieces in a constructed OCTET STRING read by
#: :func:`octet_pieces` (BER writers nest one level: OpenSSL, Outlook).
MAX_PIECE_DEPTH = 10


def octet_pieces(data: bytes) -> bytes:
    """The octets of a constructed OCTET STRING whose contents are ``data`` (BER, ITU-T
    X.690 §8.7.3: ``04`` primitive and ``24`` constructed pieces, definite or
    indefinite lengths, nested at most :data:`MAX_PIECE_DEPTH` deep), joined. Linear:
    ``asn1crypto`` reads them too, but builds an object of each piece (some 8 µs: 4 s
    for a hostile 1.5 MB of 3-byte pieces); this reads 500,000 pieces in a quarter
    of a second.

    >>> octet_pieces(bytes.fromhex("0402d09f 2480 0402d0b5 0000 0400"))
    b'\\xd0\\x9f\\xd0\\xb5'

    :raises ValueError: a piece that is not an OCTET STRING, a length over the data,
        pieces nested too deep, or a missing end-of-contents.
    """
    pieces: list[bytes] = []
    # Each open constructed piece: (where its contents end, ended by end-of-contents).
    open_pieces: list[tuple[int, bool]] = [(len(data), False)]
    pos = 0
    while open_pieces:
        limit, indefinite = open_pieces[-1]
        if indefinite and data[pos : pos + 2] == b"\x00\x00":
            pos += 2
            open_pieces.pop()
            continue
        if pos == limit and not indefinite:
            open_pieces.pop()
            continue
        if pos >= limit:
            raise ValueError(f"end-of-contents missing at byte {pos}")
        tag = data[pos]
        if tag not in (0x04, 0x24):
            raise ValueError(f"tag {tag:#04x} at byte {pos}, not an OCTET STRING piece")
        length, pos = _length(data, pos + 1, limit)
        if tag == 0x04:
            if length is None:
                raise ValueError(f"a primitive piece of indefinite length at byte {pos}")
            pieces.append(data[pos : pos + length])
            pos += length
            continue
        if len(open_pieces) > MAX_PIECE_DEPTH:
            raise ValueError(f"pieces nested over {MAX_PIECE_DEPTH} deep")
        open_pieces.append((limit if length is None else pos + length, length is None))
    return b"".join(pieces)


def _length(data: bytes, pos: int, limit: int) -> tuple[int | None, int]:
    """``(length, where the contents start)`` of the BER length octets at ``pos``
    (X.690 §8.1.3; None: indefinite), the contents within ``limit``.

    :raises ValueError: the length octets or the contents run over ``limit``, or a
        length of over 4 octets.
    """
    if pos >= limit:
        raise ValueError(f"length missing at byte {pos}")
    first = data[pos]
    if first == 0x80:
        return None, pos + 1
    if first < 0x80:
        length, start = first, pos + 1
    else:
        size = first & 0x7F
        if size > 4 or pos + 1 + size > limit:
            raise ValueError(f"length of {size} octets at byte {pos}")
        length, start = int.from_bytes(data[pos + 1 : pos + 1 + size], "big"), pos + 1 + size
    if start + length > limit:
        raise ValueError(f"{length} bytes at byte {start}, over the data")
    return length, start
