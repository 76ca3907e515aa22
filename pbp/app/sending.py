"""Sending the committed outbox (DESIGN.md "outbox").

Mails are composed and stored in the same transaction as the move that caused
them (:mod:`pbp.store`); this module only delivers what is committed. Each mail
keeps the Message-ID it was stored with, so a retry sends the very same message:
the stored bytes go out as they are, to the recipient the row recorded
(:func:`envelope`; the ``To`` field shows the same address).
The retry schedule lives in the store (``next_attempt_at``), so backoff survives
a restart of the daemon.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from email import message_from_bytes
from email.policy import default

from pbp.app.mailer import Mailer
from pbp.config.model import Config
from pbp.mail.base import (
    PermanentSendError,
    Submission,
    TransientSendError,
    Transport,
    send_each,
    submission,
)
from pbp.store import GM_SEAT, OutgoingMail, Store
from pbp.store.faults import crash_point

log = logging.getLogger(__name__)

#: Delays between attempts after a transient failure, in seconds; the last repeats.
RETRY_DELAYS = (30.0, 120.0, 600.0, 1800.0, 3600.0)
#: Give up on a mail after this many failed attempts (about a day with the delays above).
MAX_ATTEMPTS = 30


def retry_delay(attempts: int) -> timedelta:
    """The wait after the ``attempts``-th failed attempt (1-based).

    >>> retry_delay(1), retry_delay(9)
    (datetime.timedelta(seconds=30), datetime.timedelta(seconds=3600))
    """
    return timedelta(seconds=RETRY_DELAYS[min(attempts, len(RETRY_DELAYS)) - 1])


def envelope(mail: OutgoingMail) -> Submission:
    """What a transport sends of the outbox row ``mail``: its stored bytes, ``RCPT TO``
    the row's recipient (the address recorded when the mail was queued, which its
    ``To`` field shows: :func:`pbp.mail.compose.compose`), never an address read back
    from the stored header, which the email package may read otherwise; ``MAIL FROM``
    pbp's own address, from the mail's From (:func:`pbp.mail.base.submission`).

    :raises ValueError: as :func:`~pbp.mail.base.submission` (no mail pbp composed).
    """
    return submission(mail.raw)._replace(recipients=[mail.recipient])


#: Sent mails recorded per transaction (group commit: one fsync for many mails).
MARK_GROUP = 100


def flush(
    store: Store,
    transport: Transport,
    now: datetime,
    on_failed: Callable[[OutgoingMail, str], None] | None = None,
    on_stopped: Callable[[], None] | None = None,
) -> int:
    """Send every due mail of ``store``'s outbox through ``transport``; how many went.

    A :class:`TransientSendError` reschedules the mail (:func:`retry_delay`) and
    stops this round (the server is likely down; the rest wait for the next one);
    a :class:`PermanentSendError`, or :data:`MAX_ATTEMPTS` failures, gives up on
    that mail and records why, and calls ``on_failed(mail, reason)`` inside the
    same transaction (the service queues a note to the GM there). ``now`` is aware
    (UTC). ``on_stopped()`` is called when a transient failure stopped the round.

    Delivered mails are recorded :data:`MARK_GROUP` at a time (and whenever the
    round stops): a crash before that record sends them once more, under the same
    Message-ID, which is the one double delivery the outbox allows.
    """
    sent = 0
    delivered: list[int] = []

    def record() -> None:
        if delivered:
            with store.transaction():
                for mail_id in delivered:
                    store.mark_sent(mail_id, now)
            for _ in delivered:  # the crash tests count mails, not groups
                crash_point("recorded")
            delivered.clear()

    try:
        while batch := store.due_mail(now):
            # A batch at a time through the transport, pipelined where it can be (the
            # next mail's commands are under way while this one's outcome is
            # recorded); stopping early leaves every mail after that outcome unsent.
            outcomes = send_each(transport, (envelope(mail) for mail in batch))
            try:
                for mail, error in zip(batch, outcomes, strict=True):
                    if isinstance(error, TransientSendError):
                        record()
                        _transient(store, mail, error, now, on_failed)
                        if on_stopped is not None:
                            on_stopped()
                        return sent
                    if isinstance(error, PermanentSendError):
                        record()
                        _permanent(store, mail, error, on_failed)
                        continue
                    crash_point("sent")
                    delivered.append(mail.id)
                    sent += 1
                    if len(delivered) >= MARK_GROUP:
                        record()
            finally:
                outcomes.close()
            record()  # the next batch must not return these again
    finally:
        record()
    return sent


def _transient(
    store: Store,
    mail: OutgoingMail,
    error: TransientSendError,
    now: datetime,
    on_failed: Callable[[OutgoingMail, str], None] | None,
) -> None:
    """A transient failure (RFC 5321 4yz, a network fault): the mail is tried again
    after :func:`retry_delay`, or given up after :data:`MAX_ATTEMPTS`."""
    attempts = mail.attempts + 1
    with store.transaction():
        if attempts >= MAX_ATTEMPTS:
            reason = f"gave up after {attempts} attempts: {error}"
            store.mark_failed(mail.id, reason)
            if on_failed is not None:
                on_failed(mail, reason)
        else:
            store.mark_retry(mail.id, now + retry_delay(attempts))
    log.warning(
        "mail %s to %s: %s; next try in %d s",
        mail.message_id,
        mail.recipient,
        error,
        retry_delay(attempts).total_seconds(),
    )


def _permanent(
    store: Store,
    mail: OutgoingMail,
    error: PermanentSendError,
    on_failed: Callable[[OutgoingMail, str], None] | None,
) -> None:
    """A permanent refusal (RFC 5321 5yz): the mail is given up, and why recorded."""
    with store.transaction():
        store.mark_failed(mail.id, str(error))
        if on_failed is not None:
            on_failed(mail, str(error))
    log.warning("mail %s to %s refused for good: %s", mail.message_id, mail.recipient, error)


def undeliverable_notice(
    config: Config, store: Store, mailer: Mailer, mail: OutgoingMail, reason: str, now: datetime
) -> None:
    """Tell the GM of the recipient's games (every GM for another address) that a
    mail was given up (RFC 5321 §4.2.1, a 5yz reply or too many retries), inside
    the transaction that gives it up. A mail to a GM is only logged: a note about
    it could fail the same way, for ever."""
    recipient = mail.recipient.lower()
    if any(game.gm.lower() == recipient for game in config.games):
        log.warning("mail %s to the GM %s given up: %s", mail.message_id, recipient, reason)
        return
    seats = {
        seat.game_id: seat.player for seat in store.tokens_of(recipient) if seat.player != GM_SEAT
    }
    games = [g for g in config.games if g.id in seats] or list(config.games)
    headers = message_from_bytes(mail.raw, policy=default)
    # The Date pbp wrote when it queued the mail (RFC 5322 §3.6.1), aware.
    date = getattr(headers.get("Date"), "datetime", None)
    context = {
        "recipient": mail.recipient,
        "subject": str(headers.get("Subject", "")),
        "message_id": mail.message_id,
        "created": date.isoformat() if date is not None and date.tzinfo else None,
        "attempts": mail.attempts + 1,
        "reason": reason,
    }
    told: set[str] = set()
    for game in games:
        if game.gm.lower() not in told:
            told.add(game.gm.lower())
            player = {"player": seats.get(game.id)}
            mailer.gm(game, "gm_undeliverable", {**context, **player}, now)
