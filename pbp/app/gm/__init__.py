"""The GM's levers: acting for a player, pausing, extending, substituting a player.

Every lever is an event in the game's log (never a silent edit of the store),
with the GM's note and the way it came (``via``: ``"cli"`` or ``"mail"``); the
event's time is when the GM pulled the lever. Event kinds:

==================  ==========  =====================================================
kind                visibility  data
==================  ==========  =====================================================
``gm_act``          GM          {player, move (the line as the GM wrote it), via, note}
                                — logged after the move's own events, which carry
                                their own visibility (a shown card stays private)
``gm_pause``        PUBLIC      {period, deadline_name, deadline_at (ISO UTC | None),
                                remaining_seconds (int | None), via, note}
``gm_resume``       PUBLIC      {period, deadline_name, deadline_at, paused_seconds,
                                via, note}
``gm_extend``       PUBLIC      {period, deadline_name, hours, deadline_at (None while
                                paused: the pause keeps the extra time), via, note}
``gm_substitute``   PUBLIC      {player (the seat), name (who takes it), via, note}
``gm_seat_address`` GM          {player, old_email, new_email} — after ``gm_substitute``
``gm_readdress``    GM          {player, old_email, new_email, via, note}: the same
                                player at a new address (``pbp readdress``); no post
``gm_void``         GM          {event (seq), voided_kind, via, note} — after the
                                engine's compensating event
``gm_remove``       GM          {player, via, note} — after the engine's own events
                                (PUBLIC ``player_removed`` in Cluedo, ``player_left``
                                in Maniac)
==================  ==========  =====================================================

and GM ``gm_address_rotated`` {player (the seat, or ``"@gm"``), via}: a new personal
token (NEW ADDRESS, ``pbp rotate-token``), never the token itself. A new GM token ends
every confirmation of the game still pending (:meth:`Addresses.rotate_token`), and at
most :data:`PENDING_CAP` wait at once (more lever mails go to the GM's digest).

A paused game has no deadline (``games.deadline_at`` is NULL), so neither the
scheduler nor a catch-up closes it; mail from its players that arrives while it
is paused is kept (reason ``paused``, ``held_for`` the game) and applied in arrival
order on resume (rule D8; the replay's message row links to the kept row by its
``replay_of``). The levers work the same from ``pbp`` (:mod:`pbp.cli`) and by mail from
the GM's registered address to his personal GM address (:meth:`GmMail.handle_mail`,
commands in :mod:`pbp.text.gmcommands`); a lever by mail waits for the GM's confirmation from
his registered address (:meth:`GmMail.ask_confirmation`, :meth:`Confirmations.confirm`) unless
the trusted server's ``Authentication-Results`` show DMARC pass (:mod:`pbp.mail.read.authcheck`).
CLOSE DAY / END NIGHT by mail pass a deadline as ``pbp close-day`` / ``end-night``
(:mod:`pbp.app.gm.deadline`); KEPT, RETRY, DISMISS and ``pbp kept`` / ``retry`` / ``dismiss``
act on kept mail (:mod:`pbp.app.gm.kept`).
A lever that does not fit the game's state raises
:class:`LeverRefused`, whose text is ``templates/<locale>/errors/<code>.txt``.
"""

from pbp.app.gm.addresses import Addresses
from pbp.app.gm.by_mail import CONFIRM_HOURS, PENDING_CAP, GmMail, confirm_words, confirms
from pbp.app.gm.confirm import Confirmations
from pbp.app.gm.levers import MAX_EXTEND_HOURS, GmDesk
from pbp.app.running import paused_since, replay_key

__all__ = [
    "CONFIRM_HOURS",
    "MAX_EXTEND_HOURS",
    "PENDING_CAP",
    "Addresses",
    "Confirmations",
    "GmDesk",
    "GmMail",
    "confirm_words",
    "confirms",
    "paused_since",
    "replay_key",
]
