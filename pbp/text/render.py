"""Rendering forum posts and private mails from Jinja2 templates (DESIGN.md, "render").

Templates live in one tree for every locale: pbp's own in ``templates/``
(``common/mail/gm_notice.j2``, ``errors/<code>.txt``), a game kind's named ``<kind>/…``
(``maniac/posts/day.j2``, ``maniac/mail/welcome.j2``) in the folders the kind gives
(:attr:`pbp.games.core.kind.GameKind.templates`; :func:`pbp.text.environment.template_loader`).
Their words are English messages (``_()``, ``{% trans %}``, :mod:`jinja2.ext.i18n`) that
each locale's catalog translates (:mod:`pbp.text.catalogs`); one environment per (locale,
format) has its catalog installed: pbp's, then for a message it lacks each kind's own
(:attr:`pbp.games.core.kind.GameKind.catalogs`: a game outside pbp ships its
translations in its package; pbp's games are in pbp's catalog).

Public posts come in two formats, ``bbcode`` (classic forums) and ``markdown``;
private mails are plain ``text``. Formatting goes through filters, so one template
serves both post formats; the filters and globals are :mod:`pbp.text.filters`, the
environments :mod:`pbp.text.environment`.


A public post gets ``view``, what its game computes that it shows (a vote count, a
result, the answers of a suggestion, who is still in the game:
:meth:`pbp.games.core.kind.GameKind.post_view`), and its template only lays it out; a mail
gets what it shows in its context, computed by the kind (``status``, ``view``).

Outside text (names, notes, cards from ``games.yaml``) is inert in posts: see
:class:`Renderer` and :mod:`pbp.text.inert`.

Hidden information: :meth:`Renderer.public_post` drops every event whose visibility is
not :attr:`~pbp.games.core.events.Visibility.PUBLIC` before any template sees the list, so a
template mistake cannot leak a hand or a shown card into a public post (rule C4).
"""

from __future__ import annotations

import gettext
import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import jinja2

from pbp.games.core.events import Event, Visibility
from pbp.text import catalogs
from pbp.text.environment import build_environment, template_loader
from pbp.text.filters import FORMATS, Format, PostFormat, genders_of, inflected, text_keys
from pbp.text.kindtexts import Kinds
from pbp.text.seatnames import ShownName, renamed

log = logging.getLogger(__name__)

LOCALES = catalogs.LOCALES

#: The context keys a text's names are never replaced in (:func:`renamed`): ``seat``
#: is a seat's own name by definition (the briefing's "you take over the seat Кэрол").
_KEEP_NAMES = frozenset({"genders", "substitutes", "reader", "seat"})


def tidy(text: str) -> str:
    """Trailing spaces removed, at most one blank line in a row, one final newline."""
    lines = [line.rstrip() for line in text.split("\n")]
    joined = re.sub(r"\n{3,}", "\n\n", "\n".join(lines))
    return joined.strip("\n") + "\n"


def _renamed_context(
    context: Mapping[str, object], names: Mapping[str, ShownName]
) -> dict[str, object]:
    """A text's ``context`` :func:`renamed`, but for the keys that are never
    (:data:`_KEEP_NAMES`)."""
    return {k: v if k in _KEEP_NAMES else renamed(v, names) for k, v in context.items()}


# --- the events a public post may see ---


def public_only(events: Iterable[Event]) -> list[Event]:
    """The events whose visibility is PUBLIC (DESIGN.md, render)."""
    return [e for e in events if e.visibility is Visibility.PUBLIC]


class Renderer:
    """Renders posts and mails from ``templates_dir`` (the repository's ``templates/``)
    and the texts of ``kinds``, the game kinds by name (:mod:`pbp.text.kindtexts`: their
    template folders, catalogs, post views and deadline levers; in pbp the registry's
    :data:`~pbp.games.core.registry.KINDS`, read at each use).

    One Jinja2 environment per (locale, format), ``StrictUndefined`` (a missing context
    key is an error, not an empty string), ``trim_blocks`` and ``lstrip_blocks``; the
    output is passed through :func:`tidy`. Outside text is inert (issue 12, item 7):
    in a post every ``{{ value }}`` goes through :func:`pbp.text.filters.inert`
    (``finalize``), so a name or a note is shown, never read as BBCode or Markdown,
    whatever the template; the
    filters (``b``, ``quote``, ``card_list``…) make their input inert and return
    :class:`~markupsafe.Markup`, and autoescape (with Markup, never HTML escaping: every
    value is finalized to Markup first) keeps macros' and ``{% set %}`` blocks' markup
    from being escaped twice. In mails (``text``) every value loses its control
    characters. Template text itself is never escaped.

    Example::

        r = Renderer(Path("templates"), kinds=registry.KINDS)
        r.public_post("move", [event], locale="ru", fmt="bbcode", kind="cluedo_days")
        subject, body = r.private_mail("welcome", locale="ru", kind="cluedo_days", game="exler-1")
    """

    def __init__(
        self,
        templates_dir: Path,
        translations: Mapping[str, gettext.NullTranslations] | None = None,
        *,
        kinds: Kinds,
    ) -> None:
        self.templates_dir = templates_dir
        #: The game kinds by name (:mod:`pbp.text.kindtexts`).
        self.kinds = kinds
        #: Catalogs of locales beyond :data:`LOCALES` (a test's pseudo-locale), by name.
        self.translations = dict(translations or {})
        self._envs: dict[tuple[str, Format], jinja2.Environment] = {}

    # -- public API --

    def public_post(
        self,
        name: str,
        events: Sequence[Event],
        *,
        locale: str,
        fmt: PostFormat,
        kind: str,
        **context: object,
    ) -> str:
        """A forum post of a game of ``kind``: template ``<kind>/posts/<name>.j2``
        in ``fmt``.

        ``events`` may hold events of any visibility; only PUBLIC ones reach the
        template (as ``events``), and the kind's (of :attr:`kinds`)
        :meth:`~pbp.games.core.kind.GameKind.post_view` of them (as ``view``: what the post
        shows, computed by the game; ``{}`` for another ``kind``). For ``cluedo_days``:
        ``opening`` (D1), ``day`` (D7, needs ``day=N``), ``final`` (C7), ``move`` (D4).
        Other keyword arguments are template context (documented in each template's
        header; ``day`` is also the period the view is of).

        :raises ValueError: unknown locale or format.
        :raises jinja2.TemplateNotFound: no such post.
        :raises jinja2.UndefinedError: the template needs a context key not given.
        :raises LookupError: a needed event (e.g. ``game_started``) is not among ``events``.
        """
        if fmt not in ("bbcode", "markdown"):
            raise ValueError(f"a public post is bbcode or markdown, not {fmt!r}")
        template = self._env(locale, fmt).get_template(f"{kind}/posts/{name}.j2")
        public = public_only(events)
        # What the post shows, computed by its game from the public events (rule P1).
        found = self.kinds.get(kind)
        view = {} if found is None else found.post_view(name, public, text_keys(context).get("day"))
        # A substitute's seat by his name (the view is the game's, of the seats' names).
        names = self._names_of(locale, context)
        if names:
            context = _renamed_context(context, names)
            public, view = renamed(public, names), renamed(view, names)
        with genders_of(context):
            text = template.render(context, events=public, kind=kind, view=view)
        return tidy(text)

    def story(self, *, locale: str, fmt: PostFormat, kind: str, **context: object) -> str:
        """The post-game story (``pbp export``, :mod:`pbp.text.export`) of a game of ``kind``:
        template ``common/story/story.j2`` in ``fmt``, context as documented there. The
        kind tells its own events in ``<kind>/parts/story_line.j2`` (if it has one).

        Unlike :meth:`public_post`, the items passed may be private facts: the story
        is the GM's to publish after the game, and only :mod:`pbp.text.export` calls this.

        :raises ValueError: unknown locale or format.
        """
        if fmt not in ("bbcode", "markdown"):
            raise ValueError(f"a story is bbcode or markdown, not {fmt!r}")
        with genders_of(context):
            template = self._env(locale, fmt).get_template("common/story/story.j2")
            return tidy(template.render(context, kind=kind))

    def event_line(self, event: Mapping[str, object], *, locale: str, kind: str) -> str:
        """One logged event in words, as the game ``kind`` tells it in its story
        (``common/story/event_line.j2``; ``event`` as there: ``seq, kind, player, at,
        source, data``), plain text on one line: «suggestion #1 by Кросс to Дуг: Маша,
        Пистолет, Спальня.»; the event's kind when the game does not tell it."""
        template = self._env(locale, "text").get_template("common/story/event_line.j2")
        words = " ".join(template.render(e=event, kind=kind).split())
        return words or str(event["kind"])

    def private_mail(
        self, name: str, *, locale: str, kind: str | None = None, **context: object
    ) -> tuple[str, str]:
        """A private mail as ``(subject, body)``; the body is plain text ending in a newline.

        The template is ``<kind>/mail/<name>.j2``, else (or without ``kind``)
        ``common/mail/<name>.j2``; ``name`` may carry the kind:
        ``"cluedo_days/welcome"``. The template's
        first line is ``Subject: …``, then a blank line, then the body. Context keys are
        documented in each template's header comment. Example::

            subject, body = r.private_mail("cluedo_days/reminder", locale="ru", game="exler-1",
                player="Неташка", timezone="Europe/Moscow", close_at=aware_datetime,
                duties={"owed": [sugg], "suggestions_left": 2})

        :raises ValueError: unknown locale, or the template does not start with ``Subject:``.
        :raises jinja2.TemplateNotFound: no such mail.
        :raises jinja2.UndefinedError: the template needs a context key not given.
        """
        if "/" in name:
            kind, name = name.split("/", 1)
        env = self._env(locale, "text")
        names = [f"{kind}/mail/{name}.j2"] if kind else []
        template = env.select_template([*names, f"common/mail/{name}.j2"])
        shown = self._names_of(locale, context)
        if shown:
            context = _renamed_context(context, shown)
        with genders_of(context):
            text = template.render(context, kind=kind).lstrip("\n")
        head, _, body = text.partition("\n")
        if not head.startswith("Subject:"):
            raise ValueError(f"mail template {template.name!r} must start with 'Subject: '")
        subject = " ".join(head[len("Subject:") :].split())
        return subject, tidy(body)

    def game_line(self, titles: Sequence[str], *, locale: str) -> str:
        """The first line of every mail pbp writes but a post to paste: the game(s) it is
        about, in ``locale`` (``common/parts/game_line.j2``: «Игра: Маньяк 2»), without
        a newline.

        :raises ValueError: unknown locale.
        """
        template = self._env(locale, "text").get_template("common/parts/game_line.j2")
        return tidy(template.render(titles=list(titles))).strip()

    def error(
        self,
        code: str,
        params: Mapping[str, object],
        *,
        locale: str,
        kind: str | None = None,
        cli: bool = False,
    ) -> str:
        """The player-facing text of a refused move: ``errors/<code>.txt``
        rendered with ``params`` (a :class:`~pbp.games.core.events.MoveError`'s ``params``).
        ``kind``: the kind of the game whose move was refused; its own refusal texts
        (``<kind>/errors/<code>.txt``, in the folders of
        :attr:`~pbp.games.core.kind.GameKind.templates`) come first, then pbp's shared
        ``templates/errors/`` (the only ones without ``kind``): two kinds may make the
        same code, each with its text. ``cli``: the refusal ``pbp`` prints, whose text
        names the command line's commands (``pbp resume GAME``) where a mail's names
        the GM's mail commands (``RESUME``); the template sees it as ``cli``, and
        ``kind`` as ``game_kind`` (``kind`` is a parameter of some refusals:
        ``void_kind``'s event kind), which asks the game's words for its events
        (``common/parts/event_kinds.j2``).

        A missing file is logged (warning, naming every file searched) and replaced by
        ``common/error_fallback.j2``, a generic text that names ``code``. The result has
        no trailing newline.

        :raises jinja2.UndefinedError: the error text needs a parameter not given.
        """
        env = self._env(locale, "text")
        names = self._names_of(locale, params)
        if names:
            params = _renamed_context(params, names)
        own = [f"{kind}/errors/{code}.txt"] if kind else []
        try:
            template = env.select_template([*own, f"errors/{code}.txt"])
        except jinja2.TemplateNotFound:
            log.warning(
                "no error text %r (locale %s) in %s; using the generic one",
                code,
                locale,
                ", ".join(map(str, self._error_places(code, kind))),
            )
            template = env.get_template("common/error_fallback.j2")
            return tidy(template.render(code=code, params=dict(params))).rstrip("\n")
        return tidy(template.render({"game_kind": kind, **params, "cli": cli})).rstrip("\n")

    def _error_places(self, code: str, kind: str | None) -> list[Path]:
        """The files :meth:`error` searches for the refusal ``code`` of ``kind``, in
        order (as :func:`pbp.text.environment.template_loader` finds them): the kind's
        folders' ``errors/`` (or ``<kind>/errors/`` under pbp's tree when the kind is
        not known), then pbp's shared ``errors/``."""
        name = f"{code}.txt"
        places: list[Path] = []
        if kind:
            found = self.kinds.get(kind)
            folders = found.templates if found is not None else (Path(kind),)
            places = [self.templates_dir / folder / "errors" / name for folder in folders]
        return [*places, self.templates_dir / "errors" / name]

    def shown_names(
        self,
        locale: str,
        substitutes: Mapping[str, str],
        *,
        genders: Mapping[str, str] | None = None,
        reader: str | None = None,
    ) -> dict[str, ShownName]:
        """How a text in ``locale`` shows each seat a substitute plays (``substitutes``:
        ``{seat: his name}``, :meth:`pbp.store.Store.substitutes`): «Дэйв (вместо
        Кэрол)», the seat in the genitive (``genders``: the players' from games.yaml);
        the ``reader``'s own seat (the player a mail goes to) by his name alone: a
        substitute's mails use his name."""
        found = self.translations.get(locale) or catalogs.translations(locale)
        pgettext: Callable[..., str] = catalogs.gettext_callables(found, "text")["pgettext"]
        shown: dict[str, ShownName] = {}
        for seat, person in substitutes.items():
            if seat == reader:
                shown[seat] = ShownName(person, "", seat)
                continue
            of_seat = inflected(seat, "gen", genders or {}, pgettext) if locale == "ru" else seat
            rest = pgettext(
                "a substitute's name: the seat he plays", "(for %(seat)s)", seat=of_seat
            )
            shown[seat] = ShownName(person, f" {rest}", seat)
        return shown

    def _names_of(self, locale: str, context: Mapping[str, object]) -> dict[str, ShownName]:
        """:meth:`shown_names` of a text's ``context`` (its ``substitutes``, ``genders``
        and ``reader``); ``{}`` without substitutes (the names are the seats')."""
        keys = text_keys(context)
        substitutes = keys.get("substitutes")
        if not substitutes:
            return {}
        genders = keys.get("genders") or {}
        return self.shown_names(locale, substitutes, genders=genders, reader=keys.get("reader"))

    def reload(self) -> None:
        """Read every template again at its next use: ``pbp run``'s SIGHUP
        (:meth:`pbp.app.daemon.Daemon.reload`). Until then a template changed on disk is
        not seen: the environments do not look at the files once a template is loaded
        (the catalogs are read once for the process, :func:`pbp.text.catalogs.translations`)."""
        for env in self._envs.values():
            if env.cache is not None:
                env.cache.clear()
        self._envs.clear()

    def prepare(self, uses: Iterable[tuple[str, Format]], kinds: Iterable[str]) -> int:
        """Compile now, not at their first use, the templates the games will render:
        for each ``(locale, format)`` of ``uses``, those of ``kinds`` (game kind names)
        and the common ones — mails, error texts and their parts in ``"text"``, posts,
        the story and their parts in a post format. ``pbp run`` does it beside its loop
        once it serves (issue 18: a first reply of each kind waited for its templates'
        compilation, tens of milliseconds). Returns how many were compiled. A template
        that does not compile is logged (warning) and left to fail where it is used.

        :raises ValueError: unknown locale or format.
        """
        tops = ("common", "errors", *kinds)
        compiled = 0
        for locale, fmt in dict.fromkeys(uses):
            env = self._env(locale, fmt)
            skip = ("/posts/", "/story/") if fmt == "text" else ("/mail/", "errors/")
            for name in env.list_templates():
                if name.split("/", 1)[0] not in tops or any(part in name for part in skip):
                    continue
                try:
                    env.get_template(name)
                except jinja2.TemplateError as error:
                    log.warning("template %s (%s, %s) won't compile: %s", name, locale, fmt, error)
                    continue
                compiled += 1
        return compiled

    # -- environments --

    def _env(self, locale: str, fmt: Format) -> jinja2.Environment:
        if locale not in LOCALES and locale not in self.translations:
            raise ValueError(f"unknown locale {locale!r}: use one of {LOCALES}")
        if fmt not in FORMATS:
            raise ValueError(f"unknown format {fmt!r}: use one of {FORMATS}")
        env = self._envs.get((locale, fmt))
        if env is None:
            env = self._build_env(locale, fmt)
            self._envs[(locale, fmt)] = env
        return env

    def _build_env(self, locale: str, fmt: Format) -> jinja2.Environment:
        # pbp's own texts, and each kind's in the folders it gives.
        kinds = {name: kind.templates for name, kind in self.kinds.items()}
        loader = template_loader(self.templates_dir, kinds)
        found = self.translations.get(locale) or catalogs.translations(locale)
        # A message pbp's catalog lacks: the kinds' own catalogs, in registration order.
        own = [
            catalogs.own_translations(kind.catalogs, name, locale)
            for name, kind in self.kinds.items()
            if kind.catalogs is not None
        ]
        fallbacks = [each for each in own if each is not None]
        if fallbacks:
            found = catalogs.chained(found, fallbacks)
        return build_environment(loader, locale, fmt, found, self._post_global(locale), self.kinds)

    def _post_global(self, locale: str) -> Callable[..., str]:
        @jinja2.pass_context
        def post(
            ctx: jinja2.runtime.Context,
            name: str,
            events: Sequence[Event],
            fmt: PostFormat = "bbcode",
            **context: object,
        ) -> str:
            kind = str(ctx["kind"])
            # The players' genders travel into the post (rule P2), unless given, and
            # the substitutes' names (its seats are shown as a post shows them).
            context.setdefault("genders", ctx.get("genders") or {})
            context.setdefault("substitutes", ctx.get("substitutes") or {})
            text = self.public_post(name, events, locale=locale, fmt=fmt, kind=kind, **context)
            return text.rstrip("\n")

        return post
