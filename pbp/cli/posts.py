"""What the GM reads or pastes: ``pbp post`` (a public post for the forum), ``pbp show``
(the GM view of a game) and ``pbp export`` (the whole story, every secret revealed).

The posts a game has (besides the opening, its days or turns and the final) come from
the registry (:func:`pbp.games.core.registry.extra_posts`); none of these names a game.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import click
import jinja2

from pbp.app.gmview import SeatPlayer, seat_views
from pbp.cli.common import (
    CLI_LOCALE,
    _load,
    _refused,
    _service,
    _started,
    cli_iso,
    cli_time,
    print_text,
)
from pbp.games.core import registry
from pbp.games.core.events import Refusal
from pbp.games.core.kind import AnyKind


class _WhichPost(click.Choice[str]):
    """The posts ``--which`` names: pbp's and every registered kind's other numbered
    posts (:func:`pbp.games.core.registry.extra_posts`), asked of the registry when
    used, never at import (a command line without game kinds still starts)."""

    def __init__(self) -> None:
        super().__init__([])

    @property
    def choices(self) -> tuple[str, ...]:
        return ("opening", "day", "turn", *registry.extra_posts(), "final")

    @choices.setter
    def choices(self, _: object) -> None:
        """Ignored: the choices are the registry's."""


class _WhichOption(click.Option):
    """``--which``, its help naming the registered kinds' posts when shown."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = (
            "opening: the first post; day / turn: one period; "
            + "".join(f"{post} ({kinds}), " for post, kinds in registry.extra_posts().items())
            + "final: the end of the game."
        )
        return super().get_help_record(ctx)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--day", "day", type=int, help="The post of this game day; default: the current one.")
@click.option(
    "--turn", "turn", type=int, help="In a game by turns: the post of this turn (not --day)."
)
@click.option("--which", cls=_WhichOption, type=_WhichPost())
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["bbcode", "markdown"]),
    default=None,
    help="Default: the game's post_format (bbcode when it is both).",
)
@click.pass_obj
def post(
    config_path: Path,
    game_id: str,
    day: int | None,
    turn: int | None,
    which: str | None,
    fmt: str | None,
) -> None:
    """Print a public post of GAME, ready to paste into the forum."""
    config = _load(config_path)
    service = _service(config, mail=False)
    row = _started(service, game_id)
    game = config.game(game_id)
    # The format the GM pastes in: the first his mails come in (bbcode when both).
    fmt = fmt or game.post_formats[0]
    kind = service.kind_of(row.kind)
    state = kind.load(row.state)
    which, number = _chosen_post(game_id, kind, state, row.over, day, turn, which)
    # The whole public log: a day's post also shows GM answers carried over (D6).
    events = [s.event for s in service.store.events(game_id, public_only=True)]
    asked_number = number
    if which in kind.extra_posts:
        try:
            number = kind.extra_post_number(which, number, state)
        except LookupError as missing:
            raise click.ClickException(f"game {game_id}: {missing.args[0]}") from None
    # The final post is kept under the period the game ended in.
    period = kind.day(state) if which == "final" else number
    recorded = service.store.recorded_post(game_id, which, period, fmt)
    if recorded is not None:
        # A post of a past moment: what it printed when that moment ended (rule P1).
        print_text(recorded.rstrip("\n"), "the post")
        return
    try:
        text = service.renderer.public_post(
            which,
            events,
            locale=game.locale,
            fmt="markdown" if fmt == "markdown" else "bbcode",
            **service.mail.post_context(game),
            day=number,
        )
    except (LookupError, jinja2.UndefinedError):
        # The events of that post do not exist yet (a night not over, …).
        shown = asked_number if asked_number is not None else number
        raise click.ClickException(f"game {game_id}: no {which} post for day {shown} yet") from None
    print_text(text.rstrip("\n"), "the post")


def _chosen_post(
    game_id: str,
    kind: AnyKind,
    state: object,
    over: bool,
    day: int | None,
    turn: int | None,
    which: str | None,
) -> tuple[str, int | None]:
    """The post ``pbp post`` prints, ``(which, number)``: ``("day", 2)``, ``("final",
    None)``; by default the current day's or turn's, or the final once the game is over.
    ``number`` is the day or turn (for an extra post, the one the GM asked for).

    :raises click.UsageError: both ``day`` and ``turn``.
    :raises click.ClickException: a post the game does not have (days asked of a game by
        turns, a day beyond the current one, the final of a game still running).
    """
    period = kind.period_post
    asked = "day" if day is not None else "turn" if turn is not None else None
    if day is not None and turn is not None:
        raise click.UsageError("--day and --turn do not go together")
    if asked is not None and asked != period:
        raise click.ClickException(
            f"game {game_id} has {period}s, not {asked}s: use --{period} {day or turn}"
        )
    number = day if day is not None else turn
    if which is None:
        which = period if number is not None or not over else "final"
    if which in ("day", "turn") and which != period:
        raise click.ClickException(f"game {game_id} has {period}s, not {which}s")
    if which not in ("opening", "day", "turn", "final", *kind.extra_posts):
        raise click.ClickException(f"game {game_id} has no {which} posts")
    if which == period and number is None:
        number = kind.day(state)
    if which == "final" and not over:
        raise click.ClickException(f"game {game_id} is not over yet")
    if which == period and number is not None and not 1 <= number <= kind.day(state):
        raise click.ClickException(
            f"game {game_id} has {period}s 1 to {kind.day(state)}, not {number}"
        )
    return which, number


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable.")
@click.pass_obj
def show(config_path: Path, game_id: str, as_json: bool) -> None:
    """Print the GM view of GAME: solution, hands, pending answers, allowances."""
    config = _load(config_path)
    service = _service(config, mail=False)
    row = _started(service, game_id)
    kind = service.kind_of(row.kind)
    viewed = service.table.with_history(game_id, kind, kind.load(row.state))
    # The kind's view (its own keys) and what the CLI adds to it.
    view = dict(kind.gm_view(viewed, service.table.deadline(game_id)))
    game = config.game(game_id)
    view["deadline_at"] = cli_iso(row.deadline_at, game.zone) if row.deadline_at else None
    view["addresses"] = {
        name: service.mail.personal(token)
        for name in kind.players(kind.load(row.state))
        if (token := service.store.player_token(game_id, name))
    }
    # Each seat in the game's order, who plays it and who did (as the GM's STATUS lists
    # them): in the JSON as :meth:`pbp.app.gmview.SeatView.as_json` gives them.
    seats = seat_views(service.store, game.id, kind.players(kind.load(row.state)))
    view["seats"] = [seat.as_json(game) for seat in seats]
    # Where the GM mails his commands (made here for a game started before it existed).
    view["gm_address"] = service.addresses.gm_address(game_id)
    view["voidable"] = voidable = service.gm.voidable(game_id, datetime.now(UTC))
    if as_json:
        click.echo(json.dumps(view, ensure_ascii=False, indent=2, sort_keys=True))
        return
    _subject, body = service.renderer.private_mail(
        f"{row.kind}/gm_show",
        locale=CLI_LOCALE,
        game=game_id,
        view=view,
        timezone=game.timezone,
        cli=True,
    )
    click.echo(body.rstrip("\n"))
    click.echo("\nSeats (who plays each now, from which address; who played it before):")
    for seat in seats:
        now_playing = _holder(seat.player, game.zone)
        if seat.player.name != seat.seat:
            now_playing = f"{seat.seat}: {now_playing}"
        earlier = "; ".join(
            f"{_holder(h, game.zone)} until {_until(h, game.zone)}" for h in seat.earlier
        )
        click.echo(f"  {now_playing}" + (f" (earlier: {earlier})" if earlier else ""))
    click.echo(f"\nGM address for commands: {view['gm_address']}")
    if voidable:
        # Each in the words of the game's story (its kind tells its own events).
        logged = {s.seq: s for s in service.store.events(game_id)}
        click.echo(f"Moves `pbp void {game_id} EVENT` can cancel, by event number:")
        for v in voidable:
            stored = logged[v["event"]]
            event = {
                "seq": stored.seq,
                "kind": stored.event.kind,
                "player": stored.event.player,
                "at": stored.at,
                "source": stored.source,
                "data": stored.event.data,
            }
            words = service.renderer.event_line(event, locale=CLI_LOCALE, kind=row.kind)
            click.echo(f"  {v['event']}: {words}")


def _holder(holder: SeatPlayer, zone: ZoneInfo) -> str:
    """``Дэйв <dave@example.test> since 2026-12-01 21:00 MSK``: a seat's player (the
    time in ``zone``, as the command line writes times)."""
    return f"{holder.name} <{holder.email}> since {cli_time(holder.since, zone)}"


def _until(holder: SeatPlayer, zone: ZoneInfo) -> str:
    """When an earlier player of a seat left it, as the command line writes times."""
    if holder.until is None:
        raise ValueError(f"{holder.name} still plays the seat")
    return cli_time(holder.until, zone)


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "bbcode", "html"]),
    default="markdown",
    show_default=True,
)
@click.option("--force", is_flag=True, help="Also while the game runs (for the GM's eyes only).")
@click.pass_obj
def export(config_path: Path, game_id: str, fmt: str, force: bool) -> None:
    """Print the whole story of GAME after it ended, every private fact revealed: the
    deal or roles, every shown card, every order, every GM action, per day."""
    from pbp.app.story import story

    config = _load(config_path)
    service = _service(config, mail=False)
    _started(service, game_id)
    try:
        text = story(service, game_id, fmt, force=force)
    except Refusal as error:
        raise _refused(service, error, game_id) from None
    print_text(text.rstrip("\n"), "the story")
