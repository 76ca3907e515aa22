"""One address as pbp records it, mails it and counts answers to it (issue 32, item 4).

The address pbp answers is the one it recorded, and it goes out exactly so: as the
outbox row's recipient in ``RCPT TO`` (RFC 5321 §4.1.1.3) and, the same characters,
in the ``To`` field (:mod:`pbp.mail.compose`). An address that some step would write
otherwise (smtplib's quoting, the email package's header registry, an IDNA mapping)
is never recorded: :func:`address_problem` refuses it where a From is read
(:func:`pbp.mail.read.headers.sender`: ``forged_from``) and where a mail is composed.

Accepted: an addr-spec in dot-atom form (RFC 5322 §3.4.1; no quoted local part, which
RFC 5321 §4.1.2 says SHOULD NOT be used, no domain literal), with a domain name that
has a dot and a top-level domain ending in a letter; non-ASCII letters in either part
(RFC 6531/6532: such a mail goes by SMTPUTF8 only) when the whole address is in
Unicode NFKC form. The syntax is checked by the ``email-validator`` library (controls
of C0 and C1, DEL, format characters such as ZERO WIDTH SPACE, white space,
backslashes and every other special outside a quoted string are refused there), its
special-use domains (``localhost``, ``.invalid``, ``.local``, ``.onion``, ``.arpa``;
RFC 6761) too, except ``.test``.

pbp compares addresses as lower-cased strings (:func:`pbp.mail.read.headers.sender`),
local part included: RFC 5321 §2.4 lets a server tell ``Vasya`` from ``vasya``, but
no mail service people use does. An address outside NFKC form is refused rather than
normalised, so that no different address (``\\u212aolya@…``, KELVIN SIGN, lower-cased
to ``kolya@…``) can match a registered player's. :func:`rate_key` still counts every
spelling of one address in one rate-limit window.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import idna
from email_validator import EmailNotValidError, validate_email


@lru_cache(maxsize=4096)
def address_problem(address: str) -> str | None:
    """Why ``address`` (an addr-spec as written, RFC 2047 and RFC 6532 decoded, no
    ``<>``) is not one pbp records and sends to unchanged (module docstring), in a
    short English phrase, or None.

    >>> address_problem("vasya@example.test") is None, address_problem("пётр@example.test")
    (True, None)
    >>> address_problem("victim@example.test\\\\")
    'the part after the @-sign contains invalid characters: "\\\\"'
    >>> address_problem("\\u212aolya@example.test")
    'not in Unicode NFKC form: U+212A KELVIN SIGN (NFKC: "K")'
    """
    if "\ufffd" in address:  # two different addresses may have read as this one
        return "an undecodable byte (U+FFFD REPLACEMENT CHARACTER)"
    unstable = _not_nfkc(address)
    if unstable is not None:
        return unstable
    try:
        valid = validate_email(
            address,
            allow_smtputf8=True,
            allow_quoted_local=False,
            allow_domain_literal=False,
            allow_display_name=False,
            check_deliverability=False,
            globally_deliverable=True,
            test_environment=True,
        )
    except EmailNotValidError as error:
        return _phrase(str(error))
    local, _at, domain = address.rpartition("@")
    # NFKC form is NFC form: only letter case (a role name such as "Postmaster") and an
    # IDNA mapping of the domain (U+3002 IDEOGRAPHIC FULL STOP is a dot there) are left.
    if valid.local_part.lower() != local.lower() or domain.lower() not in (
        valid.domain,
        valid.ascii_domain,
    ):
        return f"written otherwise than its normal form {valid.normalized!r}"
    return None


def _not_nfkc(address: str) -> str | None:
    """Why ``address`` is not in Unicode NFKC form (UAX #15), naming the first
    character NFKC changes; None when it is."""
    if address.isascii() or unicodedata.is_normalized("NFKC", address):
        return None
    for char in address:
        normal = unicodedata.normalize("NFKC", char)
        if normal != char:
            name = unicodedata.name(char, "unnamed")
            return f'not in Unicode NFKC form: U+{ord(char):04X} {name} (NFKC: "{normal}")'
    return "not in Unicode NFKC form: a sequence that composes"


def _phrase(sentence: str) -> str:
    """An error sentence of ``email-validator`` as a phrase: its first letter lower-case
    and no final period."""
    sentence = sentence.rstrip(".")
    return sentence[:1].lower() + sentence[1:]


def rate_key(address: str) -> str:
    """The key under which answers to ``address`` (or a key built on one, such as
    ``notices:gm@…``) are counted (:mod:`pbp.app.ratelimit`), so that no spelling of one
    address gets a window of its own: the local part NFKC, case-folded, NFKC again
    (Unicode's "NFKC_Casefold" closure); the domain in its IDNA A-label form (UTS #46
    mapping, nontransitional, then lower-cased: ``пример.рф`` and
    ``xn--e1afmkfd.xn--p1ai`` are one domain, and ``ß`` stays distinct from ``ss`` as
    IDNA2008 keeps it), or where it is no valid IDNA name folded as the local part is.

    >>> rate_key("Kolya@Example.test") == rate_key("\\u212aolya@example.test") == rate_key(
    ...     "ｋolya@example.test"
    ... )
    True
    >>> rate_key("Vic@Пример.РФ"), rate_key("a@straße.test") == rate_key("a@strasse.test")
    ('vic@xn--e1afmkfd.xn--p1ai', False)
    """
    if address.isascii():
        return address.lower()
    local, at, domain = address.rpartition("@")
    if not at:
        return _fold(address)
    return f"{_fold(local)}@{_domain_key(domain)}"


def _fold(text: str) -> str:
    """NFKC_Casefold (NFKC, case-folded, NFKC again) of ``text``."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())


def _domain_key(domain: str) -> str:
    """``domain`` as IDNA A-labels (UTS #46, nontransitional), lower-cased; folded as
    :func:`_fold` where it is no valid IDNA domain name."""
    try:
        return idna.encode(domain, uts46=True, transitional=False).decode("ascii").lower()
    except (idna.IDNAError, UnicodeError, ValueError):
        return _fold(domain)


def needs_smtputf8(address: str) -> bool:
    """Whether mail to ``address`` needs the server's SMTPUTF8 (RFC 6531 §3.2): any
    character that is not ASCII, in the local part or the domain."""
    return not address.isascii()
