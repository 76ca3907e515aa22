"""The GM's levers on a started game (:mod:`pbp.app.gm`): ``act``, ``pause``, ``resume``,
``extend``, ``substitute``, ``readdress``, ``remove``, ``void``, ``rotate-token``, and
the commands that pass a deadline now, which each game kind names (``close-day``, ``end-night``: its
:attr:`~pbp.games.core.kind.GameKind.deadline_commands`, found through the registry).

Each runs as ``pbp run`` would at this moment: under the writer lock, mail already
waiting is applied first (rule D8) and what the lever queues is sent, unless a daemon
runs (it does both then). A refusal exits with code 1 and its reason in English; so
does a mailbox that cannot be read, in one line, the command not done (the waiting mail
would be overtaken).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import click

from pbp.app.gm import paused_since
from pbp.app.gm.deadline import GmClose
from pbp.app.lock import writer_lock
from pbp.app.service import Service
from pbp.app.shapes import GmResult, LeverDone
from pbp.cli.common import CLI_LOCALE, _behind, _load, _refused, _service, _started, log
from pbp.games.core import registry
from pbp.games.core.events import Refusal
from pbp.games.core.kind import DeadlineCommand
from pbp.store import GM_SEAT


def _waiting_mail_first(service: Service, now: datetime, not_done: str) -> None:
    """Apply the mail already waiting in the mailbox (rule D8: a GM's command never
    overtakes mail that arrived before it), as ``pbp run`` would now.

    :raises click.ClickException: the mailbox cannot be read (the server cannot be
        reached, the login is refused, …): one line naming the server and what to
        check, saying that the waiting mail was not read and that the command was not
        done (``not_done``). The mail stays in the mailbox for ``pbp run`` or the
        command run again; ``pbp -v`` logs the traceback.
    """
    try:
        service.process_inbox(now)
    except Exception as error:
        from pbp.app.daemon import explain_fault  # only on this path: no scheduler otherwise

        fault = explain_fault(service, error)
        if fault is None:  # a bug: its traceback is wanted
            raise
        log.debug("reading the waiting mail failed", exc_info=True)
        raise click.ClickException(
            f"{fault}; the mail waiting there was not read, so {not_done} (rule D8: it "
            "must not overtake mail that arrived before it); nothing was changed: run it "
            "again once the server answers (pbp run also reads that mail then)"
        ) from None


def _pass_deadline(config_path: Path, game_id: str, found: DeadlineCommand) -> str:
    """Pass GAME's current deadline now if it ends a ``found.deadline`` ("day" or
    "night"), logging the GM's ``gm_close`` event (``found.command``, from the console).

    Mail already waiting is applied first (rule D8), by this process when no daemon
    runs, else by the daemon, which also sends what this queues. Returns the text
    to print: ``"exler-1: day 2 closed"``.

    :raises click.ClickException: the game is over or paused, its clock is ahead of
        now, its current deadline ends no ``name``, or another pbp passed it first.
    """
    name, done, command = found.deadline, found.done, found.command
    config = _load(config_path)
    service = _service(config)
    row = _started(service, game_id)
    if row.over:
        raise click.ClickException(f"game {game_id} is over")
    if paused_since(service.store, game_id) is not None:
        raise click.ClickException(f"game {game_id} is paused: `pbp resume {game_id}` first")
    kind = service.kind_of(row.kind)
    before = kind.load(row.state)
    current = kind.deadline_name(before)
    period = kind.day(before)
    if current != name:
        if current == "turn":
            raise click.ClickException(
                f"game {game_id} is played by turns: each turn and answer has its own deadline"
            )
        if name not in kind.deadline_names:
            raise click.ClickException(f"game {game_id} ({kind.kind}) has no {name}s")
        raise click.ClickException(f"game {game_id}: it is {current} now, not {name}")
    now = datetime.now(UTC)
    behind = _behind(service, game_id, now)
    if behind is not None:
        raise click.ClickException(f"{behind}: wait until then (or use pbp run --once --now)")
    with writer_lock(config.store) as mine:
        if mine:
            _waiting_mail_first(service, now, f"{name} {period} was not {done}")
        by_gm = GmClose(command, "cli")
        step = service.close_day(game_id, now, now, expect=(name, period), by_gm=by_gm)
        if mine:
            service.flush_outbox(now)
    if step is None:
        raise click.ClickException(
            f"game {game_id}: {name} {period} was already {done} (at its time, or by another pbp)"
        )
    return f"{game_id}: {name} {period} {done}"


def _deadline_command(found: DeadlineCommand) -> click.Command:
    """The CLI command of ``found`` (``pbp close-day GAME``, ``pbp end-night GAME``)."""

    @click.argument("game_id", metavar="GAME")
    @click.pass_obj
    def command(config_path: Path, game_id: str) -> None:
        click.echo(_pass_deadline(config_path, game_id, found))

    return click.command(found.command, help=found.help)(command)


def deadline_commands() -> dict[str, click.Command]:
    """The deadline commands of every registered kind by name, one per name
    (``close-day`` is both Cluedo variants'), as the kinds registered now name them:
    built at each call, never at import, so that a command line without game kinds
    still starts (``pbp --version``).

    :raises pbp.games.core.registry.NoKindsError: no game kind is installed.
    """
    named = {c.command: c for k in registry.KINDS.values() for c in k.deadline_commands}
    return {name: _deadline_command(found) for name, found in named.items()}


def _lever(
    config_path: Path, game_id: str, lever: str, pull: Callable[[Service, datetime], LeverDone]
) -> None:
    """Pull one GM lever (:mod:`pbp.app.gm`) on GAME now and print its result.

    As ``close-day``: under the writer lock, mail already waiting is applied first
    (rule D8) and what the lever queues is sent, unless a daemon runs (it then does
    both, and applies mail held by a pause). A refusal exits with code 1 and its reason.

    :raises click.ClickException: the game's clock is ahead of now, or the lever is
        refused (:class:`~pbp.games.core.events.Refusal`, its reason in :data:`CLI_LOCALE`).
    """
    config = _load(config_path)
    service = _service(config)
    _started(service, game_id)
    game = config.game(game_id)
    now = datetime.now(UTC)
    behind = _behind(service, game_id, now)
    if behind is not None:
        raise click.ClickException(f"{behind}: wait until then")
    with writer_lock(config.store) as mine:
        if mine:
            _waiting_mail_first(service, now, f"{lever} was not done")
        try:
            done = pull(service, now)
        except Refusal as error:
            raise _refused(service, error, game_id) from None
        if mine:
            service.replay_held(now)
            service.flush_outbox(now)
    results: list[GmResult] = [{"line": "", "lever": lever, "done": done}]
    click.echo(service.gm.result_text(game, results, locale=CLI_LOCALE, cli=True).rstrip())


_NOTE = click.option("--note", help="The GM's note, kept in the log (and announced, where public).")


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("player")
@click.argument("move")
@_NOTE
@click.pass_obj
def act(config_path: Path, game_id: str, player: str, move: str, note: str | None) -> None:
    """Enter MOVE for PLAYER (a lost mail): checked and answered exactly as his own
    mail, marked as entered by the GM. E.g. pbp act exler-1 Неташка 'SUGGEST Краснова,
    нож, кухня TO Веталь'."""
    _lever(
        config_path,
        game_id,
        "act",
        lambda s, now: s.gm.act(game_id, player, move, now=now, via="cli", note=note),
    )


@click.command()
@click.argument("game_id", metavar="GAME")
@_NOTE
@click.pass_obj
def pause(config_path: Path, game_id: str, note: str | None) -> None:
    """Pause GAME: no deadline passes; players' mail is kept until `pbp resume`."""
    _lever(
        config_path,
        game_id,
        "pause",
        lambda s, now: s.gm.pause(game_id, now=now, via="cli", note=note),
    )


@click.command()
@click.argument("game_id", metavar="GAME")
@_NOTE
@click.pass_obj
def resume(config_path: Path, game_id: str, note: str | None) -> None:
    """Resume GAME: the deadline is as far ahead as at the pause; held mail is applied
    in arrival order (D8)."""
    _lever(
        config_path,
        game_id,
        "resume",
        lambda s, now: s.gm.resume(game_id, now=now, via="cli", note=note),
    )


@click.command()
@click.argument("game_id", metavar="GAME")
@click.option("--hours", type=float, required=True, help="How many hours later (e.g. 1.5).")
@_NOTE
@click.pass_obj
def extend(config_path: Path, game_id: str, hours: float, note: str | None) -> None:
    """Move GAME's current deadline HOURS later (reminders follow)."""
    _lever(
        config_path,
        game_id,
        "extend",
        lambda s, now: s.gm.extend(game_id, hours, now=now, via="cli", note=note),
    )


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("player")
@click.option("--name", required=True, help="The substitute's name (the seat keeps its own).")
@click.option("--email", required=True, help="The substitute's address.")
@_NOTE
@click.pass_obj
def substitute(
    config_path: Path, game_id: str, player: str, name: str, email: str, note: str | None
) -> None:
    """Give PLAYER's seat to a substitute: hand or role, history and open duties stay;
    the old personal address stops working; the substitute gets a briefing."""
    _lever(
        config_path,
        game_id,
        "substitute",
        lambda s, now: s.gm.substitute(game_id, player, name, email, now=now, via="cli", note=note),
    )


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("player")
@click.option("--email", required=True, help="The address the player plays from now.")
@click.option("--note", help="The GM's note, kept in the log and told to the player.")
@click.pass_obj
def readdress(config_path: Path, game_id: str, player: str, email: str, note: str | None) -> None:
    """Register PLAYER's seat at a new address (a wrong address in games.yaml, a new
    mailbox): no public post; the same player plays on. He is told at both addresses; his
    personal address for moves is replaced too (the old one was mailed to the old
    address), and mail from the old address is refused."""
    _lever(
        config_path,
        game_id,
        "readdress",
        lambda s, now: s.gm.readdress(game_id, player, email, now=now, via="cli", note=note),
    )


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("player")
@_NOTE
@click.pass_obj
def remove(config_path: Path, game_id: str, player: str, note: str | None) -> None:
    """Remove PLAYER. Cluedo: the seat stays, answered by the GM (C5). Maniac: the
    player leaves the game, role not revealed, and the win check (M12) runs."""
    _lever(
        config_path,
        game_id,
        "remove",
        lambda s, now: s.gm.remove(game_id, player, now=now, via="cli", note=note),
    )


@click.command()
@click.argument("game_id", metavar="GAME")
@click.argument("event", type=click.IntRange(1, 2**63 - 1))
@_NOTE
@click.pass_obj
def void(config_path: Path, game_id: str, event: int, note: str | None) -> None:
    """Cancel the move logged as EVENT (its number in the log) by a compensating event:
    an unanswered suggestion, a standing vote, a kill order not yet fixed. Refused, with
    the reason, when a later event builds on it."""
    _lever(
        config_path,
        game_id,
        "void",
        lambda s, now: s.gm.void(game_id, event, now=now, via="cli", note=note),
    )


@click.command("rotate-token")
@click.argument("game_id", metavar="GAME")
@click.argument("player", required=False)
@click.option("--gm", "gm_seat", is_flag=True, help="A new GM address instead of a player's.")
@click.pass_obj
def rotate_token(config_path: Path, game_id: str, player: str | None, gm_seat: bool) -> None:
    """A new personal address for PLAYER (or, with --gm, the GM) of GAME, when the old
    one leaked: the old one stops working at once (mail to it is answered that it was
    replaced). The player is mailed the new address at his registered address; the
    new address is printed. A new GM address ends the GM's confirmations still
    pending (a reply to one applies nothing), and says how many."""
    if gm_seat == (player is not None):
        raise click.UsageError("give PLAYER or --gm (not both)")
    config = _load(config_path)
    service = _service(config)
    _started(service, game_id)
    now = datetime.now(UTC)
    with writer_lock(config.store) as mine:
        try:
            rotated = service.addresses.new_address_by_gm(game_id, player or GM_SEAT, now=now)
        except Refusal as error:
            raise _refused(service, error, game_id) from None
        if mine:
            service.flush_outbox(now)
    tag = "" if service.plus else f" (Subject tag [pbp-{rotated.token}])"
    click.echo(f"{service.mail.personal(rotated.token)}{tag}")
    if rotated.ended:
        done: LeverDone = {"lever": "new_address", "ended": rotated.ended}
        results: list[GmResult] = [{"line": "", "lever": "new_address", "done": done}]
        game = config.game(game_id)
        click.echo(service.gm.result_text(game, results, locale=CLI_LOCALE, cli=True).strip())
