"""One incoming message as the intake rules see it, and the keys that recognise it.

A message is known by its place in the mailbox (:func:`source_key`), by what its
author wrote (its Message-ID, else :func:`fingerprint`) and by the text of its own
lines (:func:`text_digest`), so that the same mail is never applied twice.

Below the intake (:mod:`pbp.app.intake`) and the parts its rules call (the moves, the GM's
mail and confirmations), which name :class:`Message` as the type of what they are given:
in the intake package, importing it ran the package's ``__init__``, which imports them.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from email.parser import BytesHeaderParser
from email.policy import compat32

from pbp.app.budget import BudgetExceeded, cpu_budget
from pbp.app.owntext import Echoes
from pbp.app.reader import too_complex, unread_header
from pbp.mail.base import RawMessage
from pbp.mail.read.authcheck import TrustedServer, Verdict, verdict
from pbp.mail.read.mime import Letter
from pbp.store import Seat

__all__ = [
    "RETRIED_SOURCE",
    "Message",
    "fingerprint",
    "source_key",
    "text_digest",
    "too_complex",
    "unread_header",
]


#: The start of the source of a kept mail processed again (``kept:ID``, ``pbp retry``).
RETRIED_SOURCE = "kept:"


def source_key(raw: RawMessage) -> str:
    """The store's key of an incoming message: ``imap:UIDVALIDITY:UID`` or ``maildir:NAME``."""
    if raw.uidvalidity is None:
        return f"maildir:{raw.key}"
    return f"imap:{raw.uidvalidity}:{raw.key}"


def fingerprint(raw: bytes) -> str:
    """``sha256:<hex>`` of a mail without a Message-ID: its From, To, Cc, Date and Subject
    fields and its body, line ends normalised. These are the author's (RFC 5322 §3.6);
    trace fields a server prepends (Received, Delivered-To, Return-Path) and its
    flags are left out, so a mailbox rebuilt under a new UIDVALIDITY (RFC 3501
    §2.3.1.1) gives the same fingerprint.
    """
    head, _, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    fields = BytesHeaderParser(policy=compat32).parsebytes(head + b"\n\n")
    digest = hashlib.sha256()
    for name in ("From", "To", "Cc", "Date", "Subject"):
        digest.update(f"{name}: {fields.get(name, '')}\n".encode("utf-8", "surrogateescape"))
    digest.update(b"\n" + body)
    return f"sha256:{digest.hexdigest()}"


def text_digest(text: str) -> str:
    """``text:<hex>``, a short digest of a letter's new text (:attr:`Letter.text`).

    >>> text_digest("VOTE Петя")
    'text:0ef6c1deb848eb9afaef082ccb89e832'
    """
    data = text.encode("utf-8", "surrogatepass")
    return f"text:{hashlib.sha256(data).hexdigest()[:32]}"


@dataclass
class Message:
    """One incoming message as the intake rules see it (:meth:`pbp.app.intake.Intake.rules`):
    what is known of it so far, filled in rule by rule (its tokens, its sender's seat,
    its whole letter and the digest of its text once the body is read)."""

    raw: RawMessage
    #: The store's key of the message (:func:`source_key`).
    source: str
    now: datetime
    #: The kept id of the mail held by a pause that this applies on resume (D8).
    replay_of: int | None
    #: Its header section; the whole letter once the body rule read it.
    letter: Letter
    #: Its Message-ID, else a fingerprint of its fields and body.
    identity: str
    digest: str | None = None
    tokens: list[str] = field(default_factory=list)
    #: The personal tokens and confirmation codes that mail applied again with this one
    #: was sent to (``pbp lost --replay``): a confirmation asked under one of them is
    #: not asked again by mail, its reply comes in the same replay.
    replies_to: frozenset[str] = frozenset()
    seat: Seat | None = None
    #: What of ours the letter may echo (:meth:`pbp.app.owntext.OwnText.echoes`), made by the
    #: first rule that reads the player's own text and handed to the next.
    echoes: Echoes | None = None
    #: CPU seconds each step of its reading may take (``mail.cpu_seconds_per_message``).
    cpu_seconds: float = 3.0
    #: The trusted server's verdict on the From, once :meth:`authentication` made it.
    checked: Verdict | None = None

    def authentication(self, server: TrustedServer) -> Verdict:
        """What the trusted receiving ``server`` said of the From
        (:func:`pbp.mail.read.authcheck.verdict` of the letter's ``Authentication-Results``),
        made once per message on at most :attr:`cpu_seconds` of CPU time
        (:func:`pbp.app.budget.cpu_budget`): over it, not authenticated."""
        if self.checked is None:
            try:
                with cpu_budget(self.cpu_seconds):
                    self.checked = verdict(
                        self.letter.authentication_results, self.from_address, server
                    )
            except BudgetExceeded as exceeded:
                self.checked = Verdict(False, False, f"checking it took {exceeded}")
        return self.checked

    @property
    def sender(self) -> str | None:
        """The single sender's address, lower-cased, or None."""
        return self.letter.from_address

    @property
    def retried(self) -> bool:
        """A kept mail processed again (``pbp retry``, RETRY: its source is ``kept:ID``)."""
        return self.source.startswith(RETRIED_SOURCE)

    @property
    def from_address(self) -> str:
        """The sender, once the rule for automatic mail let only mail with one pass."""
        sender = self.letter.from_address
        assert sender is not None, "mail without a sender is answered as automatic"
        return sender

    @property
    def in_seat(self) -> Seat:
        """The sender's seat, once the rule for retired addresses let only mail with one pass."""
        assert self.seat is not None, "mail without a seat is an unknown sender's"
        return self.seat

    @property
    def arrived(self) -> datetime:
        """When the message arrived (aware UTC; rule D8: the day it counts in)."""
        return self.raw.arrived
