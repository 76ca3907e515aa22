"""Messages fetched by UID in batches (:func:`fetch_messages`), each downloaded whole
only when it is within the size limit (RFC 3501 §6.4.5 partial fetches), for
:class:`pbp.mail.imap.ImapInbox`.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from imapclient import IMAPClient

from pbp.mail.base import HEADER_BYTES, Head, RawMessage, read_head

logger = logging.getLogger(__name__)

FETCH_BATCH = 100
"""UIDs per ``UID FETCH`` command."""

FIRST_BYTES = 64 * 1024
"""Bytes of each message fetched with its size (``BODY.PEEK[]<0.n>``): a message this
small (most players' mail) arrives whole in that one command (issue 18)."""


def fetch_messages(
    client: IMAPClient, uids: list[int], uidvalidity: int | None, limit: int
) -> list[RawMessage]:
    """The messages ``uids`` of the folder selected on ``client``, ordered by (arrived,
    UID), as :meth:`pbp.mail.imap.ImapInbox.fetch_new` says: ``limit`` is the inbox's
    ``max_message_size`` (bytes), ``uidvalidity`` the folder's at its SELECT."""
    first = min(FIRST_BYTES, limit)
    found: list[tuple[datetime, int, RawMessage]] = []
    for start in range(0, len(uids), FETCH_BATCH):
        batch = uids[start : start + FETCH_BATCH]
        # RFC 3501 §6.4.5: the partial BODY.PEEK[]<0.n> is answered as BODY[]<0>.
        items = ["RFC822.SIZE", "INTERNALDATE", f"BODY.PEEK[]<0.{first}>"]
        read: dict[int, tuple[datetime, int, bytes | None]] = {}
        for uid, data in client.fetch(batch, items).items():
            size, internaldate = data.get(b"RFC822.SIZE"), data.get(b"INTERNALDATE")
            if isinstance(size, int) and internaldate is not None:
                chunk = data.get(b"BODY[]<0>")
                read[int(uid)] = (_utc(internaldate), size, _bytes_or_none(chunk))
        whole: dict[int, Head] = {}  # in full (long=None, not over the limit) or cut
        rest, heads = [], []
        for uid, (_, size, chunk) in read.items():
            if chunk is None:
                continue  # expunged meanwhile (Dovecot: BODY[]<0> NIL)
            head = read_head(chunk, whole=len(chunk) >= size)
            if head is None:
                heads.append(uid)  # a header section longer than the first bytes
            elif head.long is not None:
                whole[uid] = head  # never fetched further
            elif size <= first and len(chunk) == size:
                whole[uid] = Head(chunk)
            elif size <= limit:
                rest.append(uid)
            else:
                whole[uid] = head
        if heads:
            # RFC 3501 §6.4.5: BODY.PEEK[HEADER]<0.n>, answered as BODY[HEADER]<0>.
            item = f"BODY.PEEK[HEADER]<0.{HEADER_BYTES}>"
            for uid, data in client.fetch(sorted(heads), [item]).items():
                section = _bytes_or_none(data.get(b"BODY[HEADER]<0>"))
                if section is not None:
                    head = read_head(section, whole=len(section) < HEADER_BYTES)
                    if head is not None and head.long is None and read[uid][1] <= limit:
                        rest.append(int(uid))
                    elif head is not None:
                        whole[int(uid)] = head
        if rest:
            for uid, data in client.fetch(sorted(rest), ["BODY.PEEK[]"]).items():
                body = _bytes_or_none(data.get(b"BODY[]"))
                if body is not None:
                    whole[int(uid)] = Head(body)
        for uid in batch:
            if uid not in read or uid not in whole:
                # Expunged by another session since SEARCH: no FETCH response at
                # all, or (Dovecot) one with BODY[] NIL and a 1970 INTERNALDATE.
                logger.info("UID %d expunged before FETCH, skipped", uid)
                continue
            arrived, size, _ = read[uid]
            got = whole[uid]
            message = RawMessage(
                str(uid),
                uidvalidity,
                arrived,
                got.raw,
                size,
                truncated=size > limit or got.long is not None,
                long_header=got.long,
            )
            found.append((arrived, uid, message))
    found.sort(key=lambda item: (item[0], item[1]))
    return [message for _, _, message in found]


def _bytes_or_none(value: object) -> bytes | None:
    """A FETCH response's body item as bytes (None for NIL or a missing item)."""
    return bytes(value) if isinstance(value, bytes | bytearray) else None


def _utc(value: datetime) -> datetime:
    """INTERNALDATE as an aware UTC datetime (a naive one is taken as UTC)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)
