"""The imperative shell: the single writer that turns mail and deadlines into game steps.

Everything that changes a game goes through :class:`Service`, one transaction at
a time (DESIGN.md): an incoming message (its events, its row in ``messages`` and
every mail it causes commit together, and only then is it marked done in the
mailbox), a day close, a reminder, a game start. Mail is sent afterwards from the
committed outbox (:meth:`Service.flush_outbox`), with retries.

Time: every ``datetime`` here is timezone-aware. Rule D8: a move belongs to the
game day in which its message *arrived*; before applying a message the service
first performs every close and reminder of that game that fell due before the
arrival, so a daemon that was down catches up in time order.
"""

from __future__ import annotations

import dataclasses
import logging
import re
import secrets
import string
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from typing import Any
from zoneinfo import ZoneInfo

from pbp.config import Config, Game
from pbp.engine.base import Event, MoveError, Step
from pbp.kinds import KINDS
from pbp.kinds.base import GameKind, ParsedCommand
from pbp.mail.base import Inbox, RawMessage, Transport
from pbp.mailer import Mailer, event_dict
from pbp.outbox import flush
from pbp.parse.body import strip_echo, strip_help_echo
from pbp.parse.mime import Letter, find_tokens, read_letter
from pbp.render import Renderer
from pbp.store import GameRow, Store

log = logging.getLogger(__name__)

TOKEN_ALPHABET = string.ascii_lowercase + string.digits
TOKEN_LENGTH = 10


def source_key(raw: RawMessage) -> str:
    """The store's key of an incoming message: ``imap:UIDVALIDITY:UID`` or ``maildir:NAME``."""
    if raw.uidvalidity is None:
        return f"maildir:{raw.key}"
    return f"imap:{raw.uidvalidity}:{raw.key}"


@dataclass
class Outcome:
    """What handling one incoming message did (for logs and tests)."""

    source: str
    outcome: str  # applied | refused | status | ignored | unknown_sender | ...
    game_id: str | None = None
    player: str | None = None
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Applied:
    """A committed move: its step and the public posts it completes (kind's choice)."""

    step: Step
    posts: list[tuple[str, int]]


class Service:
    """The daemon's logic, transport-neutral.

    ``config`` is a loaded :class:`pbp.config.Config`; ``clock`` returns the
    current aware time (UTC), injected so that tests control time.
    """

    def __init__(
        self,
        config: Config,
        store: Store,
        renderer: Renderer,
        *,
        inbox: Inbox | None = None,
        transport: Transport | None = None,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.config = config
        self.store = store
        self.renderer = renderer
        self.inbox = inbox
        self.transport = transport
        self.clock = clock
        self.address: str = config.mail.address
        self.plus = config.mail.personal_address == "plus"
        self.mail = Mailer(store, renderer, self.address, plus=self.plus)

    # --- configuration helpers ---------------------------------------------------

    def game_config(self, game_id: str) -> Game:
        """The config model of one game; raises KeyError."""
        return self.config.game(game_id)

    @staticmethod
    def kind_of(game: Game | str) -> GameKind:
        """The :class:`GameKind` implementation for a config or stored kind name."""
        return KINDS[game if isinstance(game, str) else game.kind]

    @staticmethod
    def zone(game: Game) -> ZoneInfo:
        """The game's time zone."""
        return ZoneInfo(game.timezone)

    # --- the main loop pieces ----------------------------------------------------

    def run_once(self, now: datetime | None = None) -> list[Outcome]:
        """Start due games, process every waiting message and due deadline, send mail.

        This is ``pbp run --once``; ``pbp run`` calls it whenever mail or a
        deadline may be due.
        """
        now = now or self.clock()
        outcomes: list[Outcome] = []
        try:
            self.start_due_games(now)
            outcomes = self.process_inbox(now)
            self.advance_all(now)
        finally:
            # Whatever failed, what is committed goes out.
            self.flush_outbox(now)
        return outcomes

    def process_inbox(self, now: datetime) -> list[Outcome]:
        """Handle every waiting message in arrival order, marking each done after its
        commit (each first performs its game's deadlines due before it arrived, D8)."""
        outcomes: list[Outcome] = []
        if self.inbox is not None:
            for raw in self.inbox.fetch_new():
                outcomes.append(self.handle(raw, now))
                self.inbox.mark_done([raw.key])
        return outcomes

    def start_due_games(self, now: datetime) -> list[str]:
        """Start every configured game whose ``start`` has come; returns their ids."""
        started = []
        for game in self.config.games:
            if self.store.game(game.id) is not None:
                continue
            start = game.start_at
            if start is not None and start > now:
                continue
            # Started when the hands actually go out: a daemon that was down at the
            # start time must not close game days nobody could play.
            try:
                self.start_game(game, now, now)
            except Exception:  # one broken game must not stop the others
                log.exception("game %s could not start; retried next round", game.id)
                continue
            started.append(game.id)
        return started

    def start_game(self, game: Game, at: datetime, now: datetime) -> None:
        """Deal, store, and mail hands (rule C2), the opening post (D1) and the GM sheet."""
        kind = self.kind_of(game)
        seed = game.seed if game.seed is not None else secrets.randbits(63)
        salt = secrets.token_bytes(32)
        step = kind.start(game, seed, salt, at)
        with self.store.transaction():
            first = kind.first_deadline(game, step.state, at)
            self.store.add_game(game.id, kind.kind, seed, salt, kind.dump(step.state), at, first)
            self.store.append_events(game.id, step.events, at=at, day=kind.day(step.state))
            for player in game.players:
                token = "".join(secrets.choice(TOKEN_ALPHABET) for _ in range(TOKEN_LENGTH))
                self.store.add_token(token, game.id, player.name, player.email)
            for player in game.players:
                self.mail.player(
                    game,
                    player.name,
                    "welcome",
                    {
                        "status": kind.status(step.state, player.name),
                        "events": _visible(step.events, player.name),
                    },
                    now,
                )
            self.mail.gm(game, "gm_sheet", {"events": list(step.events), "seed": seed}, now)
            self.mail.gm_post(game, "opening", now, events=step.events)
        log.info("game %s started (seed %s)", game.id, seed)

    def advance_all(self, until: datetime) -> None:
        """Perform every due reminder and day close of every running game up to ``until``."""
        for game in self.config.games:
            try:
                self.advance(game.id, until)
            except Exception:  # one broken game must not stop the others
                log.exception("game %s: a deadline failed; retried next round", game.id)

    def advance(self, game_id: str, until: datetime, now: datetime | None = None) -> None:
        """Perform the due reminders and deadlines of one game, in time order, up to
        ``until``.

        Each deadline is its own transaction; one missed while the daemon was down
        happens once, at its own time (rule D8). A reminder is sent only while its
        deadline is still ahead of ``now`` (the real time, default ``until``): after
        an outage nobody is reminded of a day that has already closed.
        """
        now = now or until
        game = self.game_config(game_id)
        while True:
            row = self.store.game(game_id)
            if row is None or row.over or row.deadline_at is None:
                return
            close_at = row.deadline_at
            hours = game.remind_hours_before
            if hours:
                remind_at = close_at - timedelta(hours=hours)
                if remind_at <= until < close_at and now < close_at:
                    self.remind(game, remind_at, now)
            if close_at > until:
                return
            self.close_day(game_id, close_at, until, scheduled=True)

    def close_day(
        self,
        game_id: str,
        at: datetime,
        now: datetime | None = None,
        *,
        scheduled: bool = False,
        expect: tuple[str, int] | None = None,
    ) -> Step | None:
        """Pass the current deadline of ``game_id`` at ``at``: close the game day
        (rules D6, D7), or whatever the game kind does at its deadline.

        The GM defaults are applied, the GM gets the posts the kind asks for (the
        day summary), the next deadline is set by the kind (a manual day close keeps
        the regular schedule). ``scheduled``: this is the deadline due at ``at``; it
        is passed only if still due (another writer may have done it). ``expect``:
        ``(deadline name, period)`` the caller means, e.g. ``("day", 3)`` for ``pbp
        close-day`` on day 3; nothing is done when the game has moved on meanwhile
        (a catch-up or another process passed it). Returns None when nothing was done.
        """
        now = now or self.clock()
        game = self.game_config(game_id)
        kind = self.kind_of(game)
        with self.store.transaction():
            row = self._row(game_id)
            if row.over or row.deadline_at is None:
                return None
            if scheduled and row.deadline_at != at:
                return None
            state = kind.load(row.state)
            if expect is not None and expect != (kind.deadline_name(state), kind.day(state)):
                return None
            day = kind.day(state)
            ended = kind.deadline_name(state)
            step = kind.on_deadline(state, at)
            following = kind.next_deadline(game, step.state, row.deadline_at, at)
            self._commit_step(
                game, kind, step, at=at, day=day, source=f"close:{day}", deadline_at=following
            )
            for post, number in kind.posts(state, step):
                self.mail.gm_post(game, post, now, day=number)
            self._notify(game, kind, step, now)
            self._final_post(game, kind, step, now)
        log.info("game %s: %s %s closed at %s", game_id, ended, day, at.isoformat())
        return step

    def remind(self, game: Game, due_at: datetime, now: datetime) -> None:
        """Send one reminder to every player with open duties before the close."""
        kind = self.kind_of(game)
        with self.store.transaction():
            if self.store.reminder_sent(game.id, due_at):
                return
            row = self._row(game.id)
            state = kind.load(row.state)
            for player in kind.players(state):
                duties = kind.duties(state, player)
                if duties:
                    context = {"duties": duties, "close_at": row.deadline_at}
                    self.mail.player(game, player, "reminder", context, now)
            self.store.record_reminder(game.id, due_at)

    # --- one incoming message ------------------------------------------------------

    def handle(self, raw: RawMessage, now: datetime) -> Outcome:
        """Process one message: identify, apply its moves, answer; one transaction.

        Never raises for bad mail: an unreadable, automatic or crashing message is
        kept for the GM (``pbp kept``) and does not block later mail.
        """
        source = source_key(raw)
        if self.store.seen(source):
            return Outcome(source, "duplicate")
        if raw.arrived > now:
            # A clock ahead of ours (a server's INTERNALDATE, `pbp mail --at`) must not
            # fast-forward the game through closes that have not happened (D8).
            raw = dataclasses.replace(raw, arrived=now)
        try:
            return self._handle(raw, source, now)
        except Exception as error:  # a bug: keep the message, never lose it
            log.exception("message %s could not be processed", source)
            with self.store.transaction():
                kept_id = self.store.keep(source, raw.arrived, f"error: {error!r}", raw.raw, now)
                self.store.record_message(
                    source,
                    message_id=None,
                    arrived=raw.arrived,
                    processed_at=now,
                    outcome="error",
                    note=repr(error),
                )
            self._notice_error(raw, kept_id, repr(error), now)
            return Outcome(source, "error", notes=[repr(error)])

    def _notice_error(self, raw: RawMessage, kept_id: int, error: str, now: datetime) -> None:
        """Tell the sender and every GM that a message crashed its handler and is kept.

        Best effort: a failure here is logged, the message stays in ``pbp kept``.
        """
        try:
            letter = read_letter(raw.raw)
            with self.store.transaction():
                sender = letter.from_address
                seats = self.store.tokens_of(sender) if sender else []
                if sender and seats and not letter.automatic:
                    game = self.game_config(seats[0][1])
                    self.mail.reply(letter, sender, "failed", {}, now, game=game)
                notified: set[str] = set()
                for game in self.config.games:
                    if game.gm.lower() not in notified:
                        notified.add(game.gm.lower())
                        self.mail.notice_gm(game, letter, raw, "error", kept_id, now, error)
        except Exception:
            log.exception("could not tell the GM about kept message %s", kept_id)

    def _handle(self, raw: RawMessage, source: str, now: datetime) -> Outcome:
        letter = read_letter(raw.raw)
        sender = letter.from_address

        def record(
            outcome: str,
            game_id: str | None = None,
            player: str | None = None,
            note: str | None = None,
        ) -> Outcome:
            self.store.record_message(
                source,
                message_id=letter.message_id,
                arrived=raw.arrived,
                processed_at=now,
                outcome=outcome,
                game_id=game_id,
                player=player,
                note=note,
            )
            return Outcome(source, outcome, game_id, player, [note] if note else [])

        if letter.automatic or sender is None:
            # RFC 3834: never answer bounces or auto-replies; keep them for the GM.
            with self.store.transaction():
                self.store.keep(source, raw.arrived, "automatic or no sender", raw.raw, now)
                return record("automatic")

        tokens = find_tokens(letter, self.address, "plus" if self.plus else "subject_tag")
        seats = [found for token in tokens if (found := self.store.token(token)) is not None]
        # Mail to two personal addresses (a Cc to another player's): the sender's own.
        seat = next((s for s in seats if s[2] == sender), seats[0] if seats else None)
        if seat is not None and seat[2] != sender and not self._registered(sender):
            # A stranger who found a personal address: an unknown sender, not a player.
            seat = None
        if seat is not None and seat[2] != sender:
            game = self.game_config(seat[0])
            with self.store.transaction():
                kept_id = self.store.keep(source, raw.arrived, "wrong_sender", raw.raw, now)
                self.mail.reply(letter, sender, "wrong_sender", {"address": sender}, now, game=game)
                self.mail.notice_gm(game, letter, raw, "wrong_sender", kept_id, now)
                return record("wrong_sender", seat[0], seat[1])
        if seat is None:
            return self._no_seat(letter, sender, raw, source, now, record)

        game_id, player, _email = seat
        if letter.message_id and self.store.message_id_seen(letter.message_id, game_id, player):
            # The same mail again (a renumbered mailbox, a copy): never apply it twice.
            with self.store.transaction():
                return record("duplicate", note=letter.message_id)
        game = self.game_config(game_id)
        if letter.unreadable:
            with self.store.transaction():
                kept_id = self.store.keep(
                    source, raw.arrived, f"unreadable: {letter.unreadable}", raw.raw, now
                )
                self.mail.reply(
                    letter,
                    sender,
                    "unreadable",
                    {"reason": letter.unreadable, "code": letter.unreadable_code},
                    now,
                    game=game,
                    player=player,
                )
                self.mail.notice_gm(
                    game, letter, raw, "unreadable", kept_id, now, letter.unreadable
                )
                return record("unreadable", game_id, player, letter.unreadable)

        # Rule D8: first everything of this game that fell due before the arrival.
        self.advance(game_id, raw.arrived, now)
        kind = self.kind_of(game)
        with self.store.transaction():
            row = self._row(game_id)
            state = kind.load(row.state)
            text = self._new_text(letter, game)
            commands = kind.parse(text, state)
            results: list[dict[str, Any]] = []
            steps: list[Applied] = []
            for command in commands:
                result, applied = self._apply_command(
                    game, kind, state, player, command, raw, source
                )
                results.append(result)
                if applied is not None:
                    steps.append(applied)
                    state = applied.step.state
            if not commands:
                # A forwarded mail's moves are not his (issue 5, case 13): say so.
                code = "forwarded" if letter.forwarded else "no_command"
                params: dict[str, Any] = {}
                subject = subject_moves(letter.subject)
                if code == "no_command" and subject and kind.parse(subject, state):
                    # Moves are read from the body only: say so when the Subject has one.
                    code, params = "command_in_subject", {"subject": subject[:200]}
                results.append(
                    {"line": "", "error": self.renderer.error(code, params, locale=game.locale)}
                )
            ignored = ignored_lines(text, commands)
            self.mail.reply(
                letter,
                sender,
                "reply",
                {
                    "results": results,
                    "player": player,
                    "ignored": ignored[:IGNORED_SHOWN],
                    "ignored_more": max(0, len(ignored) - IGNORED_SHOWN),
                    "forwarded": letter.forwarded and bool(commands),
                },
                now,
                game=game,
                player=player,
            )
            # The sender's answer first, then what his moves cause for others.
            for applied in steps:
                self._notify(game, kind, applied.step, now)
                for post, number in applied.posts:
                    self.mail.gm_post(game, post, now, day=number)
                # The final post after the post of the period that ended the game.
                self._final_post(game, kind, applied.step, now)
            refused = sum(1 for result in results if "error" in result)
            if steps:
                outcome = "applied" if not refused else "partly_applied"
            else:
                outcome = "refused" if refused else "status"
            return record(outcome, game_id, player)

    def _registered(self, address: str) -> bool:
        """True when ``address`` plays (or will play) in any configured game."""
        return bool(self.store.tokens_of(address)) or any(
            p.email.lower() == address for g in self.config.games for p in g.players
        )

    def _no_seat(
        self,
        letter: Letter,
        sender: str,
        raw: RawMessage,
        source: str,
        now: datetime,
        record: Callable[..., Outcome],
    ) -> Outcome:
        """A mail without a valid personal token: tell the sender what to do.

        A registered player gets his personal address again (at his registered
        address); a player of a game that has not started is told when it starts;
        anybody else is told he is not registered, and the GMs are told.
        """
        seats = self.store.tokens_of(sender)
        with self.store.transaction():
            if seats:
                addresses = [
                    {
                        "game": game_id,
                        "player": player,
                        "address": self.mail.personal(token),
                        "subject_tag": None if self.plus else f"[pbp-{token}]",
                    }
                    for token, game_id, player in seats
                ]
                game = self.game_config(seats[0][1])
                # As from his seat: the answer's Reply-To (or Subject tag) is his
                # personal address, so replying to it just works.
                self.mail.reply(
                    letter,
                    sender,
                    "token_missing",
                    {"seats": addresses},
                    now,
                    game=game,
                    player=seats[0][2],
                )
                return record("token_missing", seats[0][1], seats[0][2])
            waiting = [
                g for g in self.config.games if any(p.email.lower() == sender for p in g.players)
            ]
            if waiting:
                game = waiting[0]
                start = game.start_at.isoformat() if game.start_at else None
                self.mail.reply(letter, sender, "not_started", {"start": start}, now, game=game)
                return record("not_started", game.id)
            kept_id = self.store.keep(source, raw.arrived, "unknown_sender", raw.raw, now)
            self.mail.reply(
                letter,
                sender,
                "unknown_sender",
                {"address": sender},
                now,
                game=self.config.games[0],
            )
            notified: set[str] = set()
            for game in self.config.games:
                if game.gm.lower() not in notified:
                    notified.add(game.gm.lower())
                    self.mail.notice_gm(game, letter, raw, "unknown_sender", kept_id, now)
            return record("unknown_sender")

    def _apply_command(
        self,
        game: Game,
        kind: GameKind,
        state: Any,
        player: str,
        command: ParsedCommand,
        raw: RawMessage,
        source: str,
    ) -> tuple[dict[str, Any], Applied | None]:
        """Apply and commit one command line: (its result for the reply, what it did)."""
        result: dict[str, Any] = {"line": command.text}
        if command.move is not None:
            result["move"] = move_dict(command.move)
        if command.error is not None:
            result["error"] = self._error_text(game, command.error)
            return result, None
        if command.private:
            result["private"] = type(command.move).__name__.lower()
            result["status"] = kind.status(state, player)
            return result, None
        try:
            step = kind.apply(state, player, command.move, raw.arrived)
        except MoveError as error:
            result["error"] = self._error_text(game, error)
            return result, None
        self._commit_step(game, kind, step, at=raw.arrived, day=kind.day(state), source=source)
        result["events"] = [event_dict(e) for e in _visible(step.events, player)]
        result["snippet"] = self.renderer.public_post(
            "move", step.events, locale=game.locale, fmt="bbcode", **self.mail.post_context(game)
        )
        return result, Applied(step, kind.posts(state, step))

    # --- committing and mailing --------------------------------------------------

    def _row(self, game_id: str) -> GameRow:
        row = self.store.game(game_id)
        if row is None:
            raise LookupError(f"game {game_id} has not started")
        return row

    def _commit_step(
        self,
        game: Game,
        kind: GameKind,
        step: Step,
        *,
        at: datetime,
        day: int,
        source: str,
        deadline_at: datetime | None = None,
    ) -> None:
        """Log a step's events and its new state; the next deadline is ``deadline_at``
        or, after a move, what the kind says (:meth:`GameKind.next_deadline`)."""
        row = self._row(game.id)
        over = kind.is_over(step.state)
        if deadline_at is None:
            deadline_at = kind.next_deadline(game, step.state, row.deadline_at, None)
        self.store.append_events(game.id, step.events, at=at, day=day, source=source)
        self.store.save_state(
            game.id, kind.dump(step.state), over=over, deadline_at=None if over else deadline_at
        )

    def _notify(
        self,
        game: Game,
        kind: GameKind,
        step: Step,
        now: datetime,
    ) -> None:
        """Queue the private mails a committed step causes."""
        for mail in kind.notifications(game, step.state, step.events):
            if mail.player is None:
                self.mail.gm(game, mail.template, dict(mail.context), now)
            else:
                self.mail.player(game, mail.player, mail.template, dict(mail.context), now)

    def _final_post(self, game: Game, kind: GameKind, step: Step, now: datetime) -> None:
        """Mail the GM the final post when ``step`` ended the game (C7, M12)."""
        if any(event.kind == "game_over" for event in step.events):
            self.mail.gm_post(game, "final", now, day=kind.day(step.state))

    def _new_text(self, letter: Letter, game: Game) -> str:
        """The player's own text: a quote of the mail of ours he answers, left there by
        a client that marks no quotes, is cut off, so our examples and forum
        snippets are never executed as his moves (:func:`pbp.parse.body.strip_echo`).
        The mail answered is found by In-Reply-To, else by the last of the References
        that is ours (some clients send References alone, RFC 5322 §3.6.4); our command
        help pasted back (it is in every welcome and HELP mail) is cut off even without
        threading (:func:`pbp.parse.body.strip_help_echo`)."""
        text = letter.text
        for message_id in (letter.in_reply_to, *reversed(letter.references)):
            ours = self.store.outgoing(message_id) if message_id else None
            if ours is not None:
                sent = message_from_bytes(ours, policy=default)
                part = sent.get_body(("plain",)) if isinstance(sent, EmailMessage) else None
                text = strip_echo(text, str(part.get_content()) if part is not None else "")
                break
        if not text.strip():
            return text
        started = [
            stored.event
            for stored in self.store.events(game.id)
            if stored.event.kind == "game_started"
        ]
        _subject, help_text = self.renderer.private_mail(
            f"{game.kind}/help",
            locale=game.locale,
            **{**self.mail.context(game, None), "events": started},
        )
        return strip_help_echo(text, help_text)

    def _error_text(self, game: Game, error: MoveError) -> str:
        return self.renderer.error(error.code, error.params, locale=game.locale)

    # --- outbox ----------------------------------------------------------------------

    def flush_outbox(self, now: datetime | None = None) -> int:
        """Send every due mail of the outbox (:func:`pbp.outbox.flush`); how many went."""
        if self.transport is None:
            return 0
        return flush(self.store, self.transport, now or self.clock())


#: Most ignored lines quoted back in a reply, and the characters shown of each.
IGNORED_SHOWN = 10
IGNORED_WIDTH = 80


def move_dict(move: Any) -> dict[str, Any]:
    """A parsed move for the ``understood`` template macro: ``{"type": class name
    lower-cased, **fields}``, e.g. ``{"type": "vote", "target": "Петя", "prison": False}``."""
    is_instance = dataclasses.is_dataclass(move) and not isinstance(move, type)
    fields = dataclasses.asdict(move) if is_instance else {}
    return {"type": type(move).__name__.lower(), **fields}


#: What clients put before a Subject they answer or forward (RFC 5322 §3.6.5 and the
#: localised forms: Outlook's ``AW:``/``SV:``, Russian ``Ответ:``/``Отв:``/``Пересл:``),
#: with a count (``Re[2]:``), and our ``[game]`` / ``[pbp-TOKEN]`` tags.
_SUBJECT_PREFIX = re.compile(
    r"^\s*(?:(?:re|fwd?|aw|sv|wg|ответ|отв|пересл)\s*(?:\[\d+\]|\(\d+\))?\s*:|\[[^\]]{1,60}\])\s*",
    re.IGNORECASE,
)

_SUBJECT_TAG = re.compile(r"\[pbp-[A-Za-z0-9]+\]", re.IGNORECASE)


def subject_moves(subject: str) -> str:
    """``subject`` without reply/forward prefixes and bracketed tags, the text a player
    may have meant as a move (``"Re: [exler-1] STATUS [pbp-k3x9]"`` → ``"STATUS"``)."""
    subject = _SUBJECT_TAG.sub(" ", subject)
    while True:
        stripped = _SUBJECT_PREFIX.sub("", subject, count=1)
        if stripped == subject:
            return subject.strip()
        subject = stripped


def ignored_lines(text: str, commands: Sequence[ParsedCommand]) -> list[str]:
    """The non-blank lines of ``text`` that are no part of any of ``commands`` (their
    ``text``), stripped, each cut to :data:`IGNORED_WIDTH` characters — what a reply
    lists as ignored (Mailman's "Ignored"), so that a command pbp did not recognise is
    seen as such."""
    used = {line.strip() for command in commands for line in command.text.split("\n")}
    found = []
    for line in text.split("\n"):
        line = line.strip()
        if line and line not in used:
            found.append(line if len(line) <= IGNORED_WIDTH else line[: IGNORED_WIDTH - 1] + "…")
    return found


def _visible(events: Iterable[Event], player: str) -> list[Event]:
    return [e for e in events if e.visible_to(player)]
