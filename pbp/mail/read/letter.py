"""The :class:`Letter`: what the daemon needs of one incoming message, as
:func:`pbp.mail.read.mime.read_letter` (and :func:`pbp.mail.read.simple.read_simple`)
read it. Its own module so that both readers name it without importing each other."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbp.mail.read.auth import AuthField
from pbp.mail.read.reply import Reply


@dataclass(frozen=True)
class Letter:
    """What the daemon needs of one incoming message.

    - ``message_id``: the Message-ID as in the header, angle brackets kept
      (``"<abc@example.test>"``), or None.
    - ``from_address``: the From addr-spec lower-cased (``"netashka@example.test"``), or
      None when there is no usable From; ``from_name``: its display name (``""`` if none).
    - ``recipients``: lower-cased addr-specs from ``Delivered-To``, ``X-Original-To``,
      ``To``, ``Cc``, in that order, each once.
    - ``subject``: decoded (RFC 2047), unfolded, stripped.
    - ``text``: the new text of the body (quotes and signature removed), lines joined
      with ``"\\n"``, no BOM; ``""`` when there is none.
    - ``in_reply_to``: the first message id of In-Reply-To; ``references``: every id of
      References, in order.
    - ``automatic``: True for mail that must never be answered (RFC 3834 §2,
      :func:`pbp.mail.read.automatic.is_automatic`).
    - ``date``: the Date header, timezone-aware in the sender's offset (UTC when the
      header says ``-0000`` or has none), or None when missing or unparsable. Not the
      arrival time (rule D8 uses the mailbox's arrival time, not this).
    - ``unreadable``: None, or a short English reason why the body could not be read
      (the GM is told and the sender answered); the header fields are still filled as
      far as they could be read.
    - ``unreadable_code``: with ``unreadable``, what kind of trouble it is, for the
      player's answer (``templates/*/common/mail/unreadable.j2``): ``"empty"``,
      ``"not_mail"``, ``"too_many_parts"``, ``"encrypted"`` (S/MIME enveloped
      data or PGP; signed mail is read: :mod:`pbp.mail.read.smime`), ``"winmail"``
      (Outlook rich text, ``winmail.dat``), ``"attachments_only"``,
      ``"no_text"``, ``"too_deep"`` (parts nested over
      :data:`~pbp.mail.read.mimetree.MAX_PART_DEPTH` levels, or signed S/MIME inside
      signed S/MIME over :data:`~pbp.mail.read.smime.MAX_SIGNED_DEPTH`), ``"deep_comments"``
      (a header field of the mail nests comments over
      :data:`~pbp.mail.read.headers.MAX_COMMENT_DEPTH` deep: not parsed further) or
      ``"body_error"`` (also a signed S/MIME container that cannot be opened); ``""``
      when the body was read.
    - ``forwarded``: True when the message carries another mail — an attached
      ``message/rfc822`` part, or a forwarded mail quoted inline
      (:data:`pbp.mail.read.replyheader.FORWARD_SEPARATOR`). Its text is never in ``text``: a
      move the player did not write is never executed.
    - ``from_problem``: None, or why the From names no single sender (its mail is never
      applied nor answered): ``"several From fields"``, ``"several addresses"`` (RFC
      5322 §3.6.2 allows a mailbox-list only with a Sender; pbp takes one author),
      ``"source route"`` (``<@evil.test:player@example.test>``, the obsolete route
      of RFC 5322 §4.4), ``"group"`` (``Players: a@example.test;``), ``"no readable
      address"`` (``<a@example.test> <b@example.test>``, a NUL inside, an address
      written as an encoded-word), ``"a control character U+0085"`` (C0 but TAB,
      DEL, C1, anywhere in the field) or ``"not a valid address: …"`` (one pbp
      would not record and answer as it is written: a backslash, a quoted local
      part, an invisible or non-NFKC character; :func:`pbp.mail.read.headers.sender`).
    - ``doubtful``: lines of the body that may be quoted and are not in ``text``
      (:func:`pbp.mail.read.body.split_reply`): never executed; the answer lists those
      that hold a command as "looks quoted — not done". ``whole``: ``text`` with them
      in their places, and ``doubtful_at``: their line numbers in it (for the echo
      cutters, :meth:`pbp.mail.read.body.Reply.own`); ``under_header``: where in it the
      text under a header block at the top begins (-1: none); ``aside``: the lines set
      aside (quotes, signatures: :attr:`pbp.mail.read.body.Reply.aside`), answered "looks
      quoted — not done" when they hold a command and nothing else of the mail does.
    - ``authentication_results``: the ``Authentication-Results`` fields (RFC 8601),
      top down, each with its unfolded value and the number of ``Received`` fields
      above it (``(AuthField("mx.example.test; dmarc=pass header.from=example.test",
      1),)``, :class:`pbp.mail.read.auth.AuthField`); read by :mod:`pbp.mail.read.authcheck`.
    """

    message_id: str | None = None
    from_address: str | None = None
    from_name: str = ""
    recipients: tuple[str, ...] = ()
    subject: str = ""
    text: str = ""
    in_reply_to: str | None = None
    references: tuple[str, ...] = ()
    automatic: bool = False
    date: datetime | None = None
    unreadable: str | None = None
    forwarded: bool = False
    unreadable_code: str = ""
    from_problem: str | None = None
    authentication_results: tuple[AuthField, ...] = ()
    doubtful: tuple[str, ...] = ()
    whole: str = ""
    doubtful_at: tuple[int, ...] = ()
    under_header: int = -1
    aside: tuple[str, ...] = ()

    @property
    def reply(self) -> Reply:
        """The body as :func:`pbp.mail.read.body.split_reply` read it (but its ``shapes``)."""
        whole = self.whole or self.text
        return Reply(
            self.text, self.doubtful, whole, self.doubtful_at, self.under_header, self.aside
        )
