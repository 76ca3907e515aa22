"""The seam between the generic daemon and one game kind.

The service (:mod:`pbp.app.service`) knows mail, storage and time; a :class:`GameKind`
knows one game: how to set it up from ``games.yaml``, how to read its commands,
which pure engine functions to call, and which private mails each step causes.
Adding a game kind means adding its package under :mod:`pbp.games` (engine, parser,
``games.yaml`` model, a subclass of :class:`GameKind`, its texts) and one line: its
entry point (:mod:`pbp.games.core.registry`; or :func:`pbp.games.core.registry.register`);
nothing else in the daemon changes. The subclass writes the abstract members and
overrides only what its game does differently from the defaults (no deadlines, one
period, no extra posts, no private mails, nothing the GM may undo).

What the daemon expects of a kind besides its members (README, "Adding a game",
lists the files):

- **Events it looks for by name.** ``game_started`` (in the step of
  :meth:`GameKind.start`; ``players``: ``[{"name": …}]``) for the help mail and
  ``pbp export``; ``game_over`` (in the step that ends the game) before the final post
  (:meth:`pbp.app.table.GameTable.final_post`), its ``winner`` (names in one string; empty:
  nobody) told by ``pbp export`` unless the kind's ``parts/story_line.j2`` tells it.
- **Moves.** Templates see a move as ``{"type": class name lower-cased, **its
  fields}`` (:func:`pbp.app.playermoves.move_dict`); a private command
  (:attr:`ParsedCommand.private`) is answered by its class name lower-cased: call them
  ``Status`` and ``Help``.
- **Templates** (``<kind>/…``, in the folders :attr:`GameKind.templates` gives, by default
  ``templates/<kind>/``; words as gettext messages, :mod:`pbp.text.catalogs`) only lay out
  what the kind computed, each value a :data:`View` the kind types as a ``TypedDict``
  that the template's header names (Maniac's: :mod:`pbp.games.maniac.shapes`). Each gets
  pbp's own keys (:data:`pbp.app.mailer.Context`), :meth:`GameKind.mail_context`, and:

  =========================  =======================================================================
  template                   context
  =========================  =======================================================================
  ``mail/welcome.j2``        ``status``; ``view``: ``post_view("welcome")`` of the start's public
                             events; ``events``: the start's
  ``mail/reply.j2``          :class:`pbp.app.shapes.ReplyContext`, each result's ``events``:
                             :meth:`~GameKind.reply_events`
  ``mail/help.j2``           ``view``: ``post_view("help")`` of the ``game_started``
  ``mail/reminder.j2``       ``duties``: :meth:`~GameKind.duties`; ``close_at``
  ``mail/gm_sheet.j2``       ``view``: :meth:`~GameKind.gm_view` of the game dealt; ``seed``,
                             ``events``
  ``mail/gm_show.j2``        ``view``: ``gm_view``
  ``mail/gm_<post>.j2``      one per post it mails: ``part``; ``private``:
                             :meth:`~GameKind.gm_facts`
  ``mail/<template>.j2``     each mail of :meth:`~GameKind.notifications`: its ``context``
  ``posts/<post>.j2``        ``events`` (the public ones), ``view``: ``post_view(post)``; the posts:
                             ``opening``, :attr:`~GameKind.period_post`, ``final``, ``move`` (the
                             snippet of one move) and :attr:`~GameKind.extra_posts`
  ``parts/gm_status.j2``     ``g``: :class:`pbp.app.gmview.GameStatus`, ``g.outstanding``:
                             :meth:`~GameKind.outstanding`; optional (without it the GM's ``STATUS``
                             lists ``g.outstanding.owed`` by their duty words)
  ``parts/status.j2``        ``status``; ``view``: ``post_view("help")``; a substitute's briefing
                             (``common/mail/briefing.j2``) includes it
  ``parts/commands.j2``      as ``parts/status.j2``
  ``parts/story_line.j2``    ``e`` (the event), ``d`` (its data); optional: the line of each event
                             it tells in the story of ``pbp export`` (``common/story/story.j2``),
                             nothing for one it leaves to pbp's lines or to its kind's name
  ``parts/event_kinds.j2``   ``event`` (an event kind), ``said`` (``"what"``, ``"voidable"``,
                             ``"voided"``, ``"announced"``), ``number``; optional: the words of its
                             own events in the GM's texts (``common/parts/event_kinds.j2`` says
                             which), nothing for another
  ``parts/gm_post.j2``       ``e``, ``d``, ``note``, ``gm_note``; optional: its own events of a
                             remove or a void in the GM's announcement (``common/posts/gm.j2``)
  =========================  =======================================================================

  Refusal texts are ``errors/<code>.txt``: those a kind makes in its folders' ``errors/``
  (:attr:`GameKind.templates`), the ones every game shares in pbp's ``templates/errors/``;
  a refusal's text is looked up through the kind of the game whose move was refused
  (:meth:`pbp.text.render.Renderer.error`), its own folders first, so two kinds may
  make the same code, each with its own text.
- **Purity.** The import contracts (``pyproject.toml``) hold for every module under
  :mod:`pbp.games`: a kind may use :mod:`pbp.games.core.schedule` for its deadlines, nothing of
  mail, store, rendering or the app.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Generic, TypeVar

from pbp.games.core.events import Event, IllegalMove, JsonMap, MoveError, Step, event_dict
from pbp.games.core.gameconfig import GameBase

#: A view or a template context a kind computes (:meth:`GameKind.status`,
#: :meth:`GameKind.post_view`, :attr:`PrivateMail.context`, …): the kind's own
#: ``TypedDict`` of JSON values (times may be aware datetimes), which the daemon passes
#: to the templates unread; a template reads it with ``.key``. Maniac's are in
#: :mod:`pbp.games.maniac.shapes`. (A ``TypedDict`` is a ``Mapping[str, object]``, not a
#: :data:`~pbp.games.core.events.JsonMap`, to mypy.)
View = Mapping[str, object]

#: A kind's engine state (opaque to the daemon).
StateT = TypeVar("StateT")
#: A kind's move, what its parser reads and its engine applies.
MoveT = TypeVar("MoveT")
#: A kind's ``games.yaml`` model.
ConfigT = TypeVar("ConfigT", bound=GameBase)
_MoveCo = TypeVar("_MoveCo", covariant=True)


@dataclass(frozen=True)
class ParsedCommand(Generic[_MoveCo]):
    """One command line of a player's mail: the move read from it, or why not.

    ``move`` is the game's own (``ParsedCommand[ManiacMove]``; the daemon holds any
    game's as ``ParsedCommand[Any]``, as it holds the kind, :data:`AnyKind`);
    ``private`` is True for commands that only answer the sender (STATUS, HELP) and
    never reach the engine.
    """

    line_no: int
    text: str
    move: _MoveCo | None
    error: MoveError | None
    private: bool = False


@dataclass(frozen=True)
class DeadlineCommand:
    """A GM command of the CLI that passes a deadline now: ``pbp <command> GAME`` passes
    the current deadline when it ends a ``deadline`` (one of the kind's
    :attr:`GameKind.deadline_names`); ``help`` is its line in ``pbp --help``, ``done``
    the past participle the CLI prints (``"day 3 closed"``)."""

    command: str
    deadline: str
    help: str
    done: str

    @property
    def lever(self) -> str:
        """The GM's lever by mail that passes it: the command with ``_`` for ``-``,
        its keyword entry (section ``gm`` of ``keywords.yaml``): ``"close_day"``."""
        return self.command.replace("-", "_")


#: ``pbp close-day``: the kinds played in game days share it.
CLOSE_DAY = DeadlineCommand(
    "close-day",
    "day",
    "Close the current game day of GAME now (GM defaults, summary, next day).",
    "closed",
)


@dataclass(frozen=True)
class Owed:
    """One thing a player owes the game now, for the GM (his ``STATUS``, ``pbp games``):
    ``duty`` is the kind's short English word for it (Maniac ``"vote"``, ``"order"``;
    Cluedo ``"answer"``, ``"turn"``), which ``pbp games`` prints and the kind's
    ``parts/gm_status.j2`` writes in words; ``numbers``: what it is about (the nights
    an order is due for, the suggestion to answer, the turn), empty when nothing."""

    player: str
    duty: str
    numbers: tuple[int, ...] = ()


@dataclass(frozen=True)
class Outstanding:
    """What is open in a game now, for the GM's eyes only (hidden facts allowed): who
    owes what (:class:`Owed`, in seat order), and ``view``, the kind's own JSON view of
    what is open that its ``parts/gm_status.j2`` lays out (a :data:`View`; Maniac: the
    live vote count, the same function as the day's post, rule P1,
    :class:`pbp.games.maniac.shapes.OutstandingView`; Cluedo by days: the suggestions
    waiting for an answer). Empty: nothing is open (a game over, a kind without
    duties)."""

    owed: tuple[Owed, ...] = ()
    view: View = field(default_factory=dict)


@dataclass(frozen=True)
class PrivateMail:
    """A private mail caused by a step: ``template`` under the kind's mail templates,
    sent to ``player`` (None: the GM) with ``context`` (a :data:`View`, the kind's
    ``TypedDict`` of the template's keys: Maniac's in :mod:`pbp.games.maniac.shapes`)."""

    template: str
    player: str | None
    context: View = field(default_factory=dict)


class GameKind(ABC, Generic[StateT, MoveT, ConfigT]):
    """The base of every game kind, typed by the kind's engine state (``StateT``,
    opaque to the daemon: it only stores it through :meth:`dump` and :meth:`load`), its
    moves (``MoveT``, what :meth:`parse` reads) and its ``games.yaml`` model
    (``ConfigT``). The registry and the daemon hold every kind as
    ``GameKind[Any, Any, Any]`` (:data:`AnyKind`); mypy checks each kind's overrides
    against its own types.

    A kind writes the abstract members (:attr:`kind`, :attr:`config_model`,
    :meth:`start`, :meth:`load`, :meth:`dump`, :meth:`parse`, :meth:`apply`,
    :meth:`is_over`, :meth:`players`, :meth:`status`, :meth:`gm_view`); every other
    member has the default of a game with no deadlines, one period and no private
    mails, which it overrides where it differs.

    Views (:meth:`status`, :meth:`gm_view`, :meth:`duties`, :meth:`post_view`,
    :meth:`reply_events`, :meth:`mail_context`) are each a :data:`View`: each kind returns
    its own ``TypedDict`` (an override may narrow the return type), which the daemon
    passes to the templates unread."""

    # --- what every kind writes ---

    @property
    @abstractmethod
    def kind(self) -> str:
        """The kind's name, ``kind:`` in ``games.yaml`` and its templates' folder."""

    @property
    @abstractmethod
    def config_model(self) -> type[GameBase]:
        """The model of this kind's games in ``games.yaml`` (``kind: <kind>``)."""

    @abstractmethod
    def start(self, game: ConfigT, seed: int, salt: bytes, at: datetime) -> Step[StateT]:
        """Deal and open the game configured by ``game`` (a config model) at ``at``; the
        step's events include ``game_started``."""

    @abstractmethod
    def load(self, data: Mapping[str, Any]) -> StateT:
        """Stored JSON (what :meth:`dump` wrote, read by its shape) → engine state."""

    @abstractmethod
    def dump(self, state: StateT) -> JsonMap:
        """Engine state → JSON (read back by :meth:`load`)."""

    @abstractmethod
    def parse(
        self, text: str, state: StateT, aliases: Mapping[str, str] | None = None
    ) -> list[ParsedCommand[MoveT]]:
        """The commands of a mail body, in order (non-command lines omitted). A seat is
        named by its own name (:meth:`players`) or by one of ``aliases``, ``{name:
        seat}``: the name of the substitute who plays it now (``pbp substitute``), read
        as the seat (:class:`pbp.text.commands.PlayerNames` takes them)."""

    @abstractmethod
    def apply(self, state: StateT, player: str, move: MoveT, at: datetime) -> Step[StateT]:
        """Apply one move; raises :class:`~pbp.games.core.events.MoveError`."""

    @abstractmethod
    def is_over(self, state: StateT) -> bool:
        """True when the game has ended."""

    @abstractmethod
    def players(self, state: StateT) -> list[str]:
        """Every seat, in configured order."""

    @abstractmethod
    def status(self, game: ConfigT, state: StateT, player: str, deadline: datetime | None) -> View:
        """The private STATUS view of one player (a state given :meth:`with_history`;
        also what a substitute's briefing and the welcome show of the seat);
        ``deadline``: the game's current deadline as it stands (aware; while the GM's
        pause holds the game, the one it had when he paused; None: none), for a view
        that names when something is due (Cluedo by days: the close an answer the
        grace carries is due at, D6)."""

    @abstractmethod
    def gm_view(self, state: StateT, deadline: datetime | None = None) -> View:
        """Everything the GM sees (``pbp show``; a state given :meth:`with_history`);
        ``deadline`` as for :meth:`status` (None: none, or not known)."""

    # --- defaults: texts, periods and posts ---

    @property
    def templates(self) -> tuple[Path, ...]:
        """The folders of this kind's texts, searched in order for its templates
        ``<kind>/…``: each laid out as ``posts/``, ``mail/``, ``parts/`` and ``errors/``
        (``<code>.txt``: the refusals this kind makes, found before pbp's shared
        ``templates/errors/`` when a move of a game of this kind is refused). A
        relative folder is in pbp's template tree (``templates/``, or the GM's copy of
        it, ``$PBP_TEMPLATES``), an absolute one anywhere (a game outside pbp ships its
        texts in its own package). Default ``(Path(kind),)``:
        ``templates/<kind>/``."""
        return (Path(self.kind),)

    #: The codes of this kind's refusals that no rewording of the line mends: who the
    #: player is (his role, his seat's state) or where the game stands forbids the
    #: move, so a reply refusing only these (and pbp's shared ones,
    #: :data:`pbp.app.playermoves.UNFIXABLE`) does not ask him to fix his lines and send
    #: them again (``УБИТЬ Олю`` from a fan of the maniac: ``not_the_maniac``). Default
    #: none: every refusal of the kind is the line's to fix.
    unfixable: frozenset[str] = frozenset()

    #: The folder of this kind's own translation catalogs, or None (default: its
    #: messages are in pbp's catalogs, as those of pbp's games are): gettext's layout,
    #: ``<folder>/<locale>/LC_MESSAGES/<kind>.po``, read as pbp's
    #: (:func:`pbp.text.catalogs.own_translations`) and asked for a message pbp's
    #: catalog of the locale lacks. A new game (outside pbp or pbp's own) ships it in
    #: its package beside its ``templates`` (README "Adding a game", step 5); the
    #: bundled games' messages are in pbp's catalogs.
    catalogs: Path | None = None

    #: The public post of one period: ``"day"`` (game days; default) or ``"turn"``
    #: (turns); also the CLI's ``pbp post --day`` / ``--turn`` and the template
    #: ``posts/<period_post>.j2``. When a deadline passes, the ended period's post is
    #: kept as it reads then (rule P1, :meth:`pbp.app.mailer.Mailer.record_post`).
    period_post: str = "day"
    #: Other numbered public posts ``pbp post --which`` may print (Maniac: evening,
    #: morning); default none.
    extra_posts: tuple[str, ...] = ()
    #: Posts of period N made from the events logged in periods N-1 (the event that
    #: opened N) and N alone (a turn), so the GM's copy does not read the whole log
    #: after every move (the cost of a move stays flat). The GM-only list beside such a
    #: post holds that period's non-public events only. Default none.
    own_period_posts: tuple[str, ...] = ()

    def mail_context(self, game: ConfigT) -> View:
        """What every mail and post template of this kind's ``game`` gets besides pbp's
        own keys, and every refusal of a move in it: timing facts (``{"day_closes":
        "22:30"}``) and the words its texts use (Cluedo's ``wording``, rule P2).
        Default ``{}``."""
        return {}

    def day(self, state: StateT) -> int:
        """The current period, 1-based: the game day (the turn in turn-based kinds).
        Events are logged with it, and posts are numbered by it. Default 1 (one period
        for the whole game)."""
        return 1

    def posts(self, before: StateT, step: Step[StateT]) -> list[tuple[str, int]]:
        """Public posts to mail the GM after ``step``: ``[(template name, period)]``,
        e.g. ``[("day", 3)]`` when game day 3 closed. Default none (the opening and
        final posts are the daemon's)."""
        return []

    def extra_post_number(self, which: str, number: int | None, state: StateT) -> int:
        """The number the ``which`` post (one of :attr:`extra_posts`) is rendered with
        when the GM asks for number ``number`` (None: the latest).

        :raises LookupError: there is no such post yet; ``args[0]`` says why, for the GM
            (default: always, ``"no <which> posts"``).
        """
        raise LookupError(f"no {which} posts")

    def post_view(self, post: str, events: Sequence[Event], period: int | None) -> View:
        """What the public post ``post`` of ``period`` (None: the latest) shows, computed
        from the game's PUBLIC ``events`` (in log order; all its template sees): the
        post's view model, which its template gets as ``view`` and only lays out (a
        live count and the result at the close come from one function, rule P1);
        ``{}`` for a post that needs none (default, every post: its template lays out
        ``events``). :meth:`pbp.text.render.Renderer.public_post` asks for it; the service
        also asks for ``"welcome"`` (the welcome mail, of the start's public events)
        and ``"help"`` (the help mail and a substitute's briefing, of the
        ``game_started``), what those mails show of the game.

        :raises LookupError: the moment of that post has not come (no such events yet).
        """
        return {}

    def gm_facts(self, post: str, period: int | None, private: Sequence[JsonMap]) -> list[JsonMap]:
        """Which of the GM-only facts logged with the public post ``post`` of ``period``
        (``private``: the non-public events as dicts ``{kind, visibility, player,
        **data}``, in log order) the GM's mail beside it lists, in that order (a rule
        decision: Maniac's morning after night 1 also gives the order its end fixed,
        M3). The template ``mail/gm_<post>.j2`` (``part="private"``) gets them as
        ``private`` and lays them out; none: no such mail
        (:meth:`pbp.app.mailer.Mailer.gm_post`). Default: all of ``private``."""
        return list(private)

    # --- defaults: deadlines (none) ---

    #: Every name :meth:`deadline_name` can give in this kind; default none.
    deadline_names: tuple[str, ...] = ()
    #: The CLI commands that pass one of these deadlines now (``close-day``, …);
    #: default none.
    deadline_commands: tuple[DeadlineCommand, ...] = ()

    def first_deadline(self, game: ConfigT, state: StateT, start: datetime) -> datetime | None:
        """The first deadline (aware UTC) of a game started at ``start``; None (default):
        none."""
        return None

    def next_deadline(
        self, game: ConfigT, state: StateT, current: datetime | None, passed: datetime | None
    ) -> datetime | None:
        """The deadline after a committed step (``state`` is after it); None (default):
        none.

        ``current``: the stored deadline; ``passed``: the deadline just handled by
        :meth:`on_deadline`, or None after a player's move. Once the game is over the
        value is not used (the table stores none).
        """
        return None

    def shift_deadline(self, state: StateT, delta: timedelta) -> StateT:
        """The state with its current deadline ``delta`` later (a GM's pause or
        extension; ``delta`` below 0 just before :meth:`on_deadline` when the GM passes
        the deadline before it was due, ``pbp close-day``), for kinds whose deadlines
        live in the state or that keep how the GM moved them; default ``state`` as is
        (the deadline is the stored one, which the service moves)."""
        return state

    def deadline_name(self, state: StateT) -> str:
        """What the current deadline ends: ``"day"`` (``pbp close-day`` may pass it
        now), ``"night"`` (``pbp end-night``) or ``"turn"`` (no GM command); default
        ``"none"``, a name no command passes."""
        return "none"

    def on_deadline(self, state: StateT, at: datetime) -> Step[StateT]:
        """What happens when the deadline due at ``at`` passes (a day close, a missed
        turn); default nothing (``state``, no events)."""
        return Step(state, [])

    # --- defaults: the game's history, the GM's levers ---

    def with_history(
        self, state: StateT, events: Callable[[], Sequence[Event]], move: MoveT | None = None
    ) -> StateT:
        """``state`` able to serve ``move`` (None: the views :meth:`status` and
        :meth:`gm_view`). A kind whose snapshot keeps only what the rules need (so
        that a move costs the same late in a game) adds the history the move or view
        needs from ``events()`` — the game's logged events, in order, read only
        then; default ``state`` itself."""
        return state

    def remove(self, state: StateT, player: str, at: datetime) -> Step[StateT]:
        """The GM removes ``player`` at ``at`` (Cluedo: the seat stays, answered by the
        GM, C5; Maniac: the player leaves, M12 checked).

        :raises ~pbp.games.core.events.MoveError: it does not fit; default: always,
            ``gm_unsupported`` {lever: ``"remove"``}.
        """
        raise IllegalMove("gm_unsupported", lever="remove")

    def void(self, state: StateT, event: Event, at: datetime) -> Step[StateT]:
        """The GM cancels the move that logged ``event``, by a compensating step.
        ``pbp show`` tries it on every logged event to list what may be voided, so it
        must be pure and cheap.

        :raises ~pbp.games.core.events.MoveError: ``void_kind`` {kind, allowed} when such
            events cannot be voided (default: always, ``allowed`` empty), or the
            engine's reason when something was built on it.
        """
        raise IllegalMove("void_kind", kind=event.kind, allowed=[])

    # --- defaults: what players and the GM are told ---

    def reply_events(
        self,
        game: ConfigT,
        state: StateT,
        events: Sequence[Event],
        player: str,
        deadline: datetime | None,
    ) -> Sequence[View]:
        """What the reply to ``player``'s move shows of the move's ``events`` (those he
        may see, in order; ``state``: the game after the move; ``deadline``: its current
        deadline as stored, aware, with the GM's extensions and pauses, None when it has
        none): one dict per event, :func:`pbp.games.core.events.event_dict` plus what the
        kind computes that ``mail/reply.j2`` shows of it (his own answer, the real time
        an order may be changed until), so that the template only lays them out.
        Default: :func:`~pbp.games.core.events.event_dict` of each event."""
        return [event_dict(e) for e in events]

    def duties(self, state: StateT, player: str, deadline: datetime | None) -> View | None:
        """Open duties for a reminder before the deadline at ``deadline`` (aware, as
        stored; None: not known), or None (default) when the player owes nothing."""
        return None

    def outstanding(self, state: StateT, deadline: datetime | None = None) -> Outstanding:
        """Who owes what now and the open count or answers, for the GM's ``STATUS`` and
        ``pbp games`` (:mod:`pbp.app.gmview`; a state given :meth:`with_history`): the same
        duties as the reminders (:meth:`duties`), for every seat; empty once the game
        is over. ``deadline`` as for :meth:`status` (None: none, or not known).
        Default empty: nobody owes anything."""
        return Outstanding()

    def notifications(
        self, game: ConfigT, state: StateT, events: Sequence[Event], deadline: datetime | None
    ) -> list[PrivateMail]:
        """Private mails that ``events`` (just applied, ``state`` after them) cause in
        ``game`` (its config, for settings such as ``vote_count_mail``); ``deadline``:
        the game's deadline after them as stored (aware, with the GM's extensions; None:
        none), for a mail that names when something is due (Cluedo by days: the close
        a suggestion is due at, D6). Default none."""
        return []


#: A kind of any state, move and model: how the daemon and the registry hold kinds.
AnyKind = GameKind[Any, Any, Any]
