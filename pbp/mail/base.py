"""Transport-neutral shapes of incoming and outgoing mail.

Inboxes (Maildir, IMAP) hand the service :class:`RawMessage` objects in arrival
order; the service commits each message's result and only then calls
:meth:`Inbox.mark_done`. Transports (Maildir outbox, SMTP) deliver one
:class:`email.message.EmailMessage` at a time and say whether a failure is worth
retrying.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from email.message import EmailMessage
from typing import Protocol


@dataclass(frozen=True)
class RawMessage:
    """One message as it sits in the mailbox.

    ``key`` identifies it within its mailbox: the IMAP UID as a decimal string
    (``"42"``) or the Maildir unique name. ``uidvalidity`` is the IMAP
    UIDVALIDITY (RFC 3501 §2.3.1.1) the UID belongs to, None for Maildir.
    ``arrived`` is the IMAP INTERNALDATE or the Maildir delivery time, timezone-aware
    (UTC): rule D8 decides a move's game day by it. ``raw`` is the whole RFC 5322
    message as bytes.

    ``size``: the whole message's size in bytes as the mailbox reports it (None: the
    length of ``raw``). ``truncated``: True when ``raw`` holds only the header section
    because the message is larger than the limit (``mail.max_message_size``).
    ``defect``: not a message at all (a Maildir entry that is no regular file),
    a short English description; ``raw`` is then ``b""``.
    """

    key: str
    uidvalidity: int | None
    arrived: datetime
    raw: bytes
    size: int | None = None
    truncated: bool = False
    defect: str | None = None


class Inbox(Protocol):
    """Where moves come from."""

    def fetch_new(self) -> list[RawMessage]:
        """Every message not yet marked done, ordered by (arrived, key).

        Never relies on or changes ``\\Seen`` (the GM may read the same mailbox).
        """

    def mark_done(self, keys: Sequence[str]) -> None:
        """Mark messages as processed on the server (after their result is committed)."""

    def keep(self, keys: Sequence[str]) -> None:
        """Put a copy of messages the store set aside into the mailbox's kept folder
        (for the GM's mail client; before :meth:`mark_done`). Idempotent."""

    def wait(self, timeout: float) -> None:
        """Block up to ``timeout`` seconds or until new mail may have arrived (IMAP IDLE)."""

    def close(self) -> None:
        """Release the connection; safe to call twice."""


class TransientSendError(Exception):
    """Delivery failed but may succeed later (connection refused, 4xx): retry with backoff."""


class PermanentSendError(Exception):
    """Delivery will never succeed (5xx for every recipient): give up and tell the GM."""


class Transport(Protocol):
    """Where outgoing mail goes."""

    def send(self, message: EmailMessage) -> None:
        """Deliver one message to its ``To`` recipients.

        :raises TransientSendError: try again later.
        :raises PermanentSendError: never try again.
        """

    def close(self) -> None:
        """Release the connection; safe to call twice."""
