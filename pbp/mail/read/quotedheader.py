"""The header block at the top of a reply, read for the mail it names
(:func:`quoted_header`): a player who answers from Outlook, Gmail, Yandex or Mail.ru
may write under the header of the mail answered (``От:``/``From:``,
``Отправлено:``/``Sent:``/``Дата:``, ``Кому:``/``To:``, ``Тема:``/``Subject:``) with
nothing quoted below it and no In-Reply-To. When the block names pbp's address and
the Subject of a mail pbp sent him (:meth:`QuotedHeader.names_us`,
:meth:`QuotedHeader.about`), that mail is the one answered, and the lines that are not
in it are his (:meth:`pbp.mail.read.reply.Reply.own`); the service looks the mail up
(:func:`pbp.app.answered.answered_by_header`).

Pure: no I/O; linear in the lines above the reply.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from pbp.mail.read.replyheader import header_fields

#: The key of a Subject field in the languages of :data:`pbp.mail.read.replyheader.HEADER_KEYS`
#: (lower case).
SUBJECT_KEYS = frozenset(
    {
        "subject", "тема", "betreff", "objet", "asunto", "oggetto", "temat", "onderwerp",
        "ämne", "emne", "aihe", "konu", "主题", "主旨", "件名", "제목", "เรื่อง", "assunto",
    }
)  # fmt: skip
#: An address as a header block writes it: bare, in ``<…>``, or Outlook's
#: ``[mailto:…]``.
_ADDRESS = re.compile(r"[^\s<>()\[\]\"'@:;,]+@[^\s<>()\[\]\"'@:;,]+")


def subject_key(subject: str) -> str:
    """``subject`` as two Subjects are compared: its words joined by one space,
    case-folded (a client may wrap or re-space the Subject it shows).

    >>> subject_key("  Re: [maniac]\\tМаньяк:  ваша роль ")
    're: [maniac] маньяк: ваша роль'
    """
    return " ".join(subject.split()).casefold()


@dataclass(frozen=True)
class QuotedHeader:
    """A header block above a reply: the ``addresses`` in its fields (lower-cased
    addr-specs, whichever field holds them) and its ``subject`` (the value of its
    Subject field in any language, :data:`SUBJECT_KEYS`; None when it has none)."""

    addresses: frozenset[str]
    subject: str | None

    def names_us(self, ours: Collection[str]) -> bool:
        """True when one of its addresses is one of ``ours`` (pbp's addresses,
        lower-cased: the game's and the player's personal ones)."""
        return not self.addresses.isdisjoint(ours)

    def about(self, subject: str) -> bool:
        """True when its Subject is ``subject`` (:func:`subject_key`)."""
        return self.subject is not None and subject_key(self.subject) == subject_key(subject)


def quoted_header(whole: str, under_header: int) -> QuotedHeader | None:
    """The header block right above line ``under_header`` of ``whole`` (a body read by
    :func:`pbp.mail.read.body.split_reply`: its ``whole`` and ``under_header``), or None
    when there is none (``under_header`` below 1, or no ``Key: value`` lines there).

    >>> header = quoted_header("От: pbp <gm@example.test>\\nДата: 01.12.2026 12:40\\n"
    ...                        "Тема: [maniac] Итоги\\n\\nГОЛОС Петя", 4)
    >>> sorted(header.addresses), header.subject
    (['gm@example.test'], '[maniac] Итоги')
    """
    if under_header <= 0:
        return None
    lines = whole.split("\n")[:under_header]
    start = len(lines)
    while start > 0 and (not lines[start - 1].strip() or header_fields(lines, start - 1)):
        start -= 1
    while start < len(lines) and not lines[start].strip():
        start += 1
    fields = header_fields(lines, start) if start < len(lines) else []
    if not fields:
        return None
    addresses = frozenset(
        address.lower().rstrip(".") for _key, value in fields for address in _ADDRESS.findall(value)
    )
    subject = next((value for key, value in fields if key in SUBJECT_KEYS), None)
    return QuotedHeader(addresses, subject)
