"""Rendering and queueing the mails pbp sends (private mails, GM posts, notices).

Every mail is rendered from ``templates/`` (:class:`pbp.text.render.Renderer`),
composed (:mod:`pbp.mail.compose`) and stored in the outbox inside the caller's
transaction, so it is committed together with the move that caused it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

import jinja2

from pbp.app.gathering import Gathered, Post, mail_gathered
from pbp.app.ratelimit import Admit, AnswerLimit
from pbp.config.model import Game
from pbp.games.core.events import Event, Visibility, event_dict
from pbp.games.core.registry import KINDS
from pbp.mail.base import RawMessage
from pbp.mail.compose import AutoSubmitted, compose, flatten, new_message_id, personal_address
from pbp.mail.read.mime import Letter
from pbp.mail.safetext import one_line
from pbp.store import GM_SEAT, DeferredAnswer, Store
from pbp.text.filters import PostFormat
from pbp.text.render import Renderer

#: Held-back answers shown in one summary mail (the rest are counted).
SUMMARY_SHOWN = 50


def _one_line(text: str) -> str:
    """``text`` on one line without control characters (no header injection), cut to
    200 characters."""
    return one_line(text)[:200]


#: The formats every post is kept in (rule P1: ``pbp post --format``), in this order;
#: the GM is mailed those of his game's ``post_format`` (:attr:`Game.post_formats`).
POST_FORMATS: tuple[PostFormat, ...] = ("bbcode", "markdown")


#: A template's context as the mailer builds it and hands it to the renderer, whose
#: keyword arguments it becomes (Jinja's context, typed ``Any``): pbp's own keys
#: (:meth:`Mailer.context`, :meth:`Mailer.post_context`; those the text layer reads:
#: :class:`pbp.text.filters.TextKeys`), the kind's
#: (:meth:`pbp.games.core.kind.GameKind.mail_context`) and the mail's own, which each
#: template's header gives (a reply's: :class:`pbp.app.shapes.ReplyContext`).
Context = dict[str, Any]


#: The suffix of the rate-limit key (:mod:`pbp.app.ratelimit`) under which the GM's
#: confirmation requests and lever results are counted, apart from his other answers.
LEVERS_BUDGET = "#levers"


class Mailer:
    """Mails of one mailbox: ``address`` is the daemon's own (``gm@example.test``);
    ``plus`` selects plus-addressing (else the ``[pbp-TOKEN]`` Subject tag)."""

    def __init__(
        self,
        store: Store,
        renderer: Renderer,
        address: str,
        *,
        plus: bool,
        limit: AnswerLimit | None = None,
    ) -> None:
        self.store = store
        self.renderer = renderer
        self.address = address
        self.domain = address.partition("@")[2]
        self.plus = plus
        #: The rate limit of :meth:`reply` (None: every answer goes out).
        self.limit = limit
        #: The rate limit of :meth:`notice_gm` per GM (None: every notice goes out),
        #: and where a notice over it goes instead (the GM's digest,
        #: :meth:`pbp.app.digest.Digest.add`): a flood of forged mail must not become a
        #: flood of notices.
        self.notice_limit: AnswerLimit | None = None
        self.notice_overflow: Callable[..., object] | None = None
        #: The mails of a deadline gathered so far, by game id (:meth:`deadline`).
        self._gathering: dict[str, Gathered] = {}

    def personal(self, token: str) -> str:
        return personal_address(self.address, token) if self.plus else self.address

    def _subject(self, subject: str, token: str | None, about: Sequence[Game] = ()) -> str:
        """``subject`` named after the games it is about (``[Маньяк 2] Re: ход``, unless
        that tag is in it already: a reply to our reply) and, with ``subject_tag``
        personal addresses, ending in the ``[pbp-TOKEN]`` tag of ``token``."""
        name = f"[{', '.join(g.display_title for g in about)}]" if about else ""
        if name and name.lower() not in subject.lower():
            subject = f"{name} {subject}"
        tag = f"[pbp-{token}]"
        if token and not self.plus and tag.lower() not in subject.lower():
            return f"{subject} {tag}"
        return subject

    def _named(self, about: Sequence[Game], body: str) -> str:
        """``body`` under its first line naming the games it is about (in the first
        game's language, :meth:`pbp.text.render.Renderer.game_line`)."""
        line = self.renderer.game_line([g.display_title for g in about], locale=about[0].locale)
        return f"{line}\n\n{body}"

    @contextmanager
    def deadline(self, game: Game, now: datetime) -> Iterator[None]:
        """Gather what the GM of ``game`` is mailed inside the block (one transaction: a
        deadline passed, a game started, a move's step) when its ``gm_mail`` is
        ``per_deadline``: at its end the posts go in one paste-ready mail per format
        (``gm_posts``, each post after the other) and the GM-only mails in one other
        (``gm_facts``); a single post or GM-only mail goes as it is alone. What must
        reach him at once is never inside one (a kept mail's notice, a reply to his
        mail, an undeliverable mail's notice). With ``each``, or inside another block
        of the game, it changes nothing. Nothing gathered is mailed when the block
        raises (its transaction is rolled back)."""
        if game.gm_mail != "per_deadline" or game.id in self._gathering:
            yield
            return
        gathered = self._gathering[game.id] = Gathered()
        try:
            yield
        finally:
            del self._gathering[game.id]
        self._mail_gathered(game, gathered, now)

    def _mail_gathered(self, game: Game, gathered: Gathered, now: datetime) -> None:
        """Mail the GM what :meth:`deadline` gathered of ``game``
        (:func:`pbp.app.gathering.mail_gathered`)."""
        token = self.store.player_token(game.id, GM_SEAT)
        mail_gathered(game, gathered, now, token, self._gm_render, self._gm_send)

    def post_context(self, game: Game) -> Context:
        """What every public post of ``game`` gets besides its events: the kind, the
        game id, its name in texts (``title``: :attr:`pbp.config.model.Game.display_title`;
        ``titled``: whether the GM gave it a ``title``, which a heading then names alone),
        its time zone, the kind's timing keys (``day_closes``, …) and the
        seats substitutes play (``substitutes``: «Дэйв (вместо Кэрол)»,
        :meth:`pbp.text.render.Renderer.shown_names`)."""
        return {
            "kind": game.kind,
            "game": game.id,
            "title": game.display_title,
            "titled": game.title is not None,
            "timezone": game.timezone,
            "genders": game.genders(),
            "substitutes": self.store.substitutes(game.id),
            **KINDS[game.kind].mail_context(game),
        }

    def context(self, game: Game, player: str | None) -> Context:
        """What every mail template of ``game`` gets: game, its name in texts
        (``title``), timezone, the formats of
        its posts mailed to the GM (``post_formats``), the kind's own
        timing keys (:meth:`GameKind.mail_context`), and for a player his name,
        personal address and Subject tag."""
        context: Context = {
            "game": game.id,
            "title": game.display_title,
            "timezone": game.timezone,
            "genders": game.genders(),
            "post_formats": list(game.post_formats),
            **KINDS[game.kind].mail_context(game),
        }
        if player is not None:
            self._add_player(context, game.id, player, self.store.player_token(game.id, player))
        return context

    def _add_player(self, context: Context, game_id: str, player: str, token: str | None) -> None:
        """Set a player's keys of :meth:`context`: his name, personal address (by his
        ``token``, None: the common address) and Subject tag, and for a player's seat
        (not the GM's) the seats substitutes play (``substitutes``; ``reader``: his own
        seat, which his mail names by his own name alone,
        :meth:`pbp.text.render.Renderer.shown_names`)."""
        if player != GM_SEAT:
            context["substitutes"] = self.store.substitutes(game_id)
            context["reader"] = player
        context["player"] = player
        context["personal_address"] = self.personal(token) if token else self.address
        context["subject_tag"] = f"[pbp-{token}]" if token and not self.plus else None

    def player(
        self, game: Game, player: str, template: str, context: Mapping[str, object], now: datetime
    ) -> None:
        # The address the seat was dealt to (the store), so that a games.yaml edited
        # during the game cannot lose a player's mail.
        seat = self.store.seat_of(game.id, player)
        if seat is not None:
            email, token = seat.email, seat.token
        else:
            email, token = next(p.email for p in game.players if p.name == player), None
        full = self.context(game, None)
        self._add_player(full, game.id, player, token)
        full.update(context)
        subject, body = self.renderer.private_mail(
            f"{game.kind}/{template}", locale=game.locale, **full
        )
        self._enqueue(
            to=email,
            subject=self._subject(subject, token, [game]),
            body=self._named([game], body),
            now=now,
            auto="auto-generated",
            reply_to=full["personal_address"],
        )

    def former(
        self, game: Game, to: str, template: str, context: Mapping[str, object], now: datetime
    ) -> None:
        """Mail ``to``, an address that no longer plays in ``game`` (the old address of a
        seat the GM registered elsewhere, ``pbp readdress``): the common context only and
        no personal address anywhere (no Reply-To, no Subject tag), for that address may
        be a stranger's. Its Subject and first line name ``game``."""
        full = {**self.context(game, None), **context}
        subject, body = self.renderer.private_mail(
            f"{game.kind}/{template}", locale=game.locale, **full
        )
        self._enqueue(
            to=to,
            subject=self._subject(subject, None, [game]),
            body=self._named([game], body),
            now=now,
            auto="auto-generated",
        )

    def gm(
        self,
        game: Game,
        template: str,
        context: Mapping[str, object],
        now: datetime,
        *,
        about: Sequence[Game] = (),
    ) -> None:
        """Mail the GM of ``game``; its Reply-To (or Subject tag) is his personal GM
        address (:mod:`pbp.app.gm`), so a reply to any mail of ours carries his commands.
        Its Subject and first line name ``game``, or the games of ``about`` (the digest
        of all his games). Inside :meth:`deadline` of a ``per_deadline`` game it is
        gathered with the deadline's other GM-only mails."""
        token = self.store.player_token(game.id, GM_SEAT)
        subject, body = self._gm_render(game, template, context, token)
        gathered = self._gathering.get(game.id)
        if gathered is not None and not about:
            gathered.facts.append((subject, subject, body))
            return
        self._gm_send(game, subject, body, now, token, about=about)

    def gm_paste(
        self,
        game: Game,
        template: str,
        posts: Mapping[str, str],
        context: Mapping[str, object],
        now: datetime,
    ) -> None:
        """Mail the GM a public post to paste, one mail per format of the game's
        ``post_format`` (BBCode, then Markdown), each body exactly the post and nothing
        else (issue 12, item 6: a select-all copies the post, never a private fact or a
        greeting; its Subject names the game). Inside :meth:`deadline` of a
        ``per_deadline`` game it is gathered with the deadline's other posts.

        ``template`` gives only the Subject, rendered with ``part`` set to the format
        (the format is named in the Subject; ``"title"``: none); ``posts`` maps each
        format to its post.

        :raises ValueError: the template renders a body for a post part.
        """
        token = self.store.player_token(game.id, GM_SEAT)
        subjects: dict[str, str] = {}
        for fmt in game.post_formats:
            subject, rest = self._gm_render(game, template, {**context, "part": fmt}, token)
            if rest.strip():
                raise ValueError(f"{template}: a post travels alone; the template gave a body")
            subjects[fmt] = subject
        gathered = self._gathering.get(game.id)
        if gathered is not None:
            title, _rest = self._gm_render(game, template, {**context, "part": "title"}, token)
            gathered.posts.append(Post(title, subjects, posts))
            return
        for fmt in game.post_formats:
            self._gm_send(game, subjects[fmt], posts[fmt], now, token, paste=True)

    def gm_story(self, game: Game, fmt: str, text: str, now: datetime) -> None:
        """Mail the GM the whole story of ``game`` (``text``, :func:`pbp.app.story.story`
        in ``fmt``) in a mail of its own whose body is exactly the story: like a post
        (:meth:`gm_paste`), it is pasted whole, and must not carry his GM address or the
        list of his commands (a bearer secret) into a public thread. The template
        ``gm_story`` gives only the Subject, naming the game and the format.

        :raises ValueError: the template renders a body.
        """
        token = self.store.player_token(game.id, GM_SEAT)
        subject, rest = self._gm_render(game, "gm_story", {"format": fmt}, token)
        if rest.strip():
            raise ValueError("gm_story: the story travels alone; the template gave a body")
        self._gm_send(game, subject, text, now, token, paste=True)

    def gm_post(
        self,
        game: Game,
        post: str,
        now: datetime,
        *,
        day: int | None = None,
        events: Sequence[Event] | None = None,
    ) -> None:
        """Mail the GM a public post, one mail per format (:meth:`gm_paste`), and the
        GM-only facts beside it in a mail of their own, whose Subject says "GM only";
        that one only when the kind's ``gm_facts`` lists any and the template
        ``gm_<post>`` (``part="private"``) shows them.

        ``events``: the events the post is about; default: the whole stored log
        (a day summary needs earlier days for GM answers carried over, rule D6), or
        only periods ``day - 1`` and ``day`` for a post the kind lists in
        ``own_period_posts``.
        The GM-only list holds the non-public events of ``day`` (or of ``events``).
        """
        if events is None:
            if day is not None and post in KINDS[game.kind].own_period_posts:
                # The period's own events and the one before (the event that opened it).
                log_events = [
                    *self.store.events(game.id, day=day - 1),
                    *self.store.events(game.id, day=day),
                ]
            else:
                log_events = self.store.events(game.id)
            events = [stored.event for stored in log_events]
            own = [s.event for s in log_events if day is None or s.day == day]
        else:
            own = list(events)
        posts: dict[str, str] = {
            fmt: self.renderer.public_post(
                post, events, locale=game.locale, fmt=fmt, **self.post_context(game), day=day
            )
            for fmt in POST_FORMATS
        }
        self.gm_paste(game, f"gm_{post}", posts, {"day": day}, now)
        # The record of its moment: `pbp post` prints it from now on (rule P1).
        self.store.record_post(game.id, post, day, posts)
        private = [event_dict(e) for e in own if e.visibility is not Visibility.PUBLIC]
        # Which of them the GM's mail beside the post lists: the kind's decision.
        facts = list(KINDS[game.kind].gm_facts(post, day, private))
        if not facts:
            return  # each gm_<post> template renders nothing then (tests/test_render.py)
        context = {
            "private": facts,
            "day": day,
            "part": "private",
            # The seats as the post beside it shows them.
            "substitutes": self.store.substitutes(game.id),
        }
        token = self.store.player_token(game.id, GM_SEAT)
        subject, body = self._gm_render(game, f"gm_{post}", context, token)
        if not body.strip():
            return
        gathered = self._gathering.get(game.id)
        if gathered is not None:
            title, _rest = self._gm_render(game, f"gm_{post}", {**context, "part": "title"}, token)
            gathered.facts.append((title, subject, body))
            return
        self._gm_send(game, subject, body, now, token)

    def record_post(self, game: Game, post: str, period: int | None) -> None:
        """Keep ``post`` of ``period`` as it reads now, as ``pbp post`` renders it (the
        game's whole public log), unless it was kept already (rule P1): for a post the
        kind does not mail at its moment, such as a Maniac day's vote count when the
        day closes. A post that cannot be rendered (its events are missing) is not
        kept."""
        if all(
            self.store.recorded_post(game.id, post, period, fmt) is not None for fmt in POST_FORMATS
        ):
            return
        events = [s.event for s in self.store.events(game.id, public_only=True)]
        try:
            texts: dict[str, str] = {
                fmt: self.renderer.public_post(
                    post, events, locale=game.locale, fmt=fmt, **self.post_context(game), day=period
                )
                for fmt in POST_FORMATS
            }
        except (LookupError, jinja2.UndefinedError):
            return
        self.store.record_post(game.id, post, period, texts)

    def _gm_render(
        self, game: Game, template: str, context: Mapping[str, object], token: str | None
    ) -> tuple[str, str]:
        """``template`` rendered for the GM, whose seat has ``token`` (None: none yet)."""
        gm_address = self.personal(token) if token else None
        full = {**self.context(game, None), "gm_address": gm_address, **context}
        return self.renderer.private_mail(f"{game.kind}/{template}", locale=game.locale, **full)

    def _gm_send(
        self,
        game: Game,
        subject: str,
        body: str,
        now: datetime,
        token: str | None,
        *,
        paste: bool = False,
        about: Sequence[Game] = (),
    ) -> None:
        """Mail the GM (his seat's ``token`` gives the Reply-To or Subject tag); its
        Subject names ``game`` (or ``about``), and so does its first line unless the
        body is to be pasted whole (``paste``: a post, the story)."""
        named = about or [game]
        self._enqueue(
            to=game.gm,
            subject=self._subject(subject, token, named),
            body=body if paste else self._named(named, body),
            now=now,
            auto="auto-generated",
            reply_to=self.personal(token) if token else None,
        )

    def notice_gm(
        self,
        game: Game,
        letter: Letter,
        raw: RawMessage,
        reason: str,
        kept_id: int,
        now: datetime,
        detail: str | None = None,
        facts: Mapping[str, object] | None = None,
        player: str | None = None,
    ) -> None:
        """Tell the GM of ``game`` at once that a player's message was refused and kept
        (``pbp kept``); what can wait goes in his daily digest instead
        (:mod:`pbp.app.digest`). Only for a player's mail: his Subject is shown, on one line
        without control characters. ``detail`` is technical (English); ``facts`` say it
        in the game's language where the template knows them (``code`` of an unreadable
        mail, ``size`` and ``limit`` of one too large: ``common/mail/gm_notice.j2``).
        ``player``: the seat whose moves the mail holds, when pbp knows it (None: not
        known, or the GM's own seat): the notice's ACT names it, as the GM types it.
        Beyond :attr:`notice_limit` notices to the GM in an hour, the notice becomes a
        line of his digest (:attr:`notice_overflow`)."""
        if self.notice_limit is not None:
            admit, _ends = self.notice_limit.admit(f"notices:{game.gm.lower()}", now)
            if admit is not Admit.ANSWER:
                if self.notice_overflow is not None:
                    self.notice_overflow(
                        game, reason, kept_id, letter, now, arrived=raw.arrived, detail=detail
                    )
                return
        context = {
            "reason": reason,
            "detail": detail,
            "kept_id": kept_id,
            # One line each: an encoded Subject's CR/LF cannot write lines of its own.
            "sender": one_line(letter.from_address) if letter.from_address else None,
            "subject": _one_line(letter.subject),
            "arrived": raw.arrived.isoformat(),
            "seat": player if player != GM_SEAT else None,
            **(facts or {}),
        }
        self.gm(game, "gm_notice", context, now)

    def reply(
        self,
        letter: Letter,
        to: str,
        template: str,
        context: Mapping[str, object],
        now: datetime,
        *,
        game: Game,
        player: str | None = None,
        token: str | None = None,
        stranger: bool = False,
        about: Sequence[Game] = (),
        limited: bool = True,
    ) -> None:
        """Answer a mail (RFC 3834 ``auto-replied``, threaded to it). ``token``: the
        Reply-To (or Subject tag) is this token's address instead of the player's own
        (the GM's confirmation code, :mod:`pbp.app.gm`).

        A player's Subject is kept (``Re: <subject>``); a ``stranger``'s (not a player
        or GM of any game) never: his answer has the template's Subject. Either way
        the Subject and the first line name ``game`` (``[Маньяк 2] Re: ход``), or the games
        of ``about`` (the GM's STATUS ALL). Within the
        rate limit (:attr:`limit`, :mod:`pbp.app.ratelimit`): beyond it the answer is
        replaced by one ``slow_down`` mail, then held back for the summary
        (:meth:`summary`). ``limited=False``: counted in a budget of its own, as large
        (the GM's confirmation requests and his levers' results, to his registered
        address only: a flood of forged STATUS mails must not hold them back, and a
        flood of forged levers still meets a limit)."""
        own = self.store.player_token(game.id, player) if player else None
        full = self.context(game, None)
        if player is not None:
            self._add_player(full, game.id, player, own)
        full.update(context)
        subject, body = self.renderer.private_mail(
            f"{game.kind}/{template}", locale=game.locale, **full
        )
        reply_to = self.personal(token) if token else full.get("personal_address")
        if self.limit is not None:
            admitted, until = self.limit.admit(to if limited else f"{to}{LEVERS_BUDGET}", now)
            if admitted is not Admit.ANSWER:
                self.store.defer_answer(to.lower(), game.id, player, reply_to, body, now, until)
                if admitted is Admit.DEFER:
                    return
                limits = {"limit": self.limit.per_hour, "until": until}
                subject, body = self.renderer.private_mail(
                    f"{game.kind}/slow_down", locale=game.locale, **{**full, **limits}
                )
        # One line, whatever the sender's encoded words held (no header injection).
        base_subject = "" if stranger else _one_line(letter.subject)
        if base_subject and not base_subject.lower().startswith("re:"):
            subject = f"Re: {base_subject}"
        elif base_subject:
            subject = base_subject
        token = token or own
        named = about or [game]
        self._enqueue(
            to=to,
            subject=self._subject(subject, token, named),
            body=self._named(named, body),
            now=now,
            auto="auto-replied",
            reply_to=reply_to,
            in_reply_to=letter.message_id,
            references=letter.references,
        )

    def summary(
        self, game: Game, to: str, answers: Sequence[DeferredAnswer], now: datetime
    ) -> None:
        """Mail ``to`` the answers the rate limit held back (``answers_summary``): the
        first :data:`SUMMARY_SHOWN`, each as its answer would have been, and how many
        more."""
        shown = answers[:SUMMARY_SHOWN]
        full = {
            **self.context(game, None),
            "answers": [{"at": answer.at, "body": answer.body.rstrip()} for answer in shown],
            "more": len(answers) - len(shown),
            "total": len(answers),
        }
        subject, body = self.renderer.private_mail(
            f"{game.kind}/answers_summary", locale=game.locale, **full
        )
        player = answers[0].player if answers else None
        # The seat's Subject tag only while the seat is still the recipient's: after a
        # substitute took it over, the tag is the substitute's personal address.
        still_his = player is not None and self.store.player_email(game.id, player) == to.lower()
        token = self.store.player_token(game.id, player) if player and still_his else None
        self._enqueue(
            to=to,
            subject=self._subject(subject, token, [game]),
            body=self._named([game], body),
            now=now,
            auto="auto-replied",
            reply_to=answers[0].reply_to if answers else None,
        )

    def _enqueue(
        self,
        *,
        to: str,
        subject: str,
        body: str,
        now: datetime,
        auto: AutoSubmitted,
        reply_to: str | None = None,
        in_reply_to: str | None = None,
        references: Sequence[str] = (),
    ) -> None:
        message_id = new_message_id(self.domain)
        message = compose(
            sender=self.address,
            to=to,
            subject=subject,
            body=body,
            message_id=message_id,
            date=now,
            auto_submitted=auto,
            reply_to=reply_to,
            in_reply_to=in_reply_to,
            references=references,
        )
        self.store.enqueue(message_id, to, flatten(message), now)
