"""The mail of ours that a mail answers, found by its threading headers.

A mail names the mail it answers by In-Reply-To, else by the last of its References
that is ours (some clients send References alone, RFC 5322 §3.6.4), else by the
header block of that mail written at its top (:func:`answered_by_header`). Only a mail of
ours sent to the sender's own address counts: a Message-ID of our mail to somebody
else (it came by a Cc, a forward or a guess) is passed over, for whatever pbp does by
that mail would tell the sender something of another player's mail (C4, M1) — its
lines (:meth:`pbp.app.owntext.OwnText.own_reply` cuts an echo of them) or when it went out
(:func:`pbp.app.ratelimit.is_loop` times a quick reply from it).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from email import message_from_bytes
from email.message import Message as MailMessage
from email.parser import BytesHeaderParser
from email.policy import default
from email.utils import getaddresses

from pbp.mail.read.mime import Letter
from pbp.mail.read.quotedheader import quoted_header
from pbp.store import Store

#: Most of our last mails to a sender looked at for the one a header block in his
#: mail names (:func:`answered_by_header`).
HEADER_LOOKBACK = 100


@dataclass(frozen=True)
class Answered:
    """Our mail that a mail answers: its ``message_id`` (as stored in the outbox, with
    angle brackets) and the ``mail`` itself, parsed (``email.policy.default``)."""

    message_id: str
    mail: MailMessage


def answered_mail(store: Store, letter: Letter, sender: str | None) -> Answered | None:
    """The mail of ours sent to ``sender`` that ``letter`` answers (module docstring),
    or None: none of its In-Reply-To and References is ours and his."""
    for message_id in (letter.in_reply_to, *reversed(letter.references)):
        raw = store.outgoing(message_id) if message_id else None
        if raw is None or not message_id:
            continue
        sent = message_from_bytes(raw, policy=default)
        if sent_to(sent, sender):
            return Answered(message_id, sent)
    return None


def answered_by_header(
    store: Store, letter: Letter, sender: str | None, ours: Collection[str]
) -> list[Answered]:
    """Our mails to ``sender`` that the header block at the top of ``letter`` names
    (:func:`pbp.mail.read.quotedheader.quoted_header`), for a mail that names none of ours
    by In-Reply-To or References: the block names one of ``ours`` (pbp's addresses,
    lower-cased: the game's and the sender's personal ones) and the Subject of some of
    our last :data:`HEADER_LOOKBACK` mails to him. Every one of those with that
    Subject, newest first (pbp answers under one Subject many times, and any of them
    may be the one quoted); ``[]`` when there is no such block or mail."""
    reply = letter.reply
    header = quoted_header(reply.whole, reply.under_header)
    if sender is None or header is None or not header.names_us(ours):
        return []
    found = []
    heads = BytesHeaderParser(policy=default)
    for mail in store.recent_mail_to(sender, HEADER_LOOKBACK):
        if header.about(str(heads.parsebytes(mail.raw).get("Subject", ""))):
            found.append(Answered(mail.message_id, message_from_bytes(mail.raw, policy=default)))
    return found


def sent_to(sent: MailMessage, address: str | None) -> bool:
    """Whether our mail ``sent`` went to ``address`` (its To, one address as pbp writes
    it; case ignored)."""
    to = getaddresses([str(value) for value in sent.get_all("To", [])])
    return address is not None and [a.lower() for _name, a in to] == [address.lower()]
