"""Players are fixed once a game has started: games.yaml against the seats in the store.

A game's seats (names and personal addresses) are dealt when it starts; editing its
``players:`` in games.yaml afterwards changes nothing (``pbp substitute`` gives a seat
to somebody new). :func:`seat_warnings` says where games.yaml and the seats differ, so
that a GM who added or changed a player there is not left wondering.
"""

from __future__ import annotations

from pbp.config.model import Config
from pbp.store import Store


def seat_warnings(config: Config, store: Store) -> list[str]:
    """One English line per difference between games.yaml's players of a started game
    and its seats in ``store``: a player with no seat, or a seat whose address in the
    store is not the one games.yaml gives. Empty when they agree (or nothing started).
    """
    seats = store.seats()
    warnings = []
    for game in config.games:
        seated = seats.get(game.id)
        if not seated:
            continue  # not started: games.yaml's players are still the ones dealt
        for player in game.players:
            email = seated.get(player.name)
            if email is None:
                warnings.append(
                    f"{game.id}: {player.name} <{player.email}> in games.yaml has no seat: "
                    "players are fixed once a game has started "
                    "(pbp substitute gives a seat to someone new)"
                )
            elif email != player.email.lower():
                warnings.append(
                    f"{game.id}: {player.name}'s seat plays from {email}, not "
                    f"{player.email} as games.yaml says: players are fixed once a game has "
                    "started (pbp readdress changes a seat's address; pbp substitute "
                    "gives the seat to someone new)"
                )
    return warnings


def missing_games(config: Config, store: Store) -> str | None:
    """Why ``config`` cannot serve ``store``: the running games (started, not over)
    it lacks, one English sentence, or None. A game renamed in games.yaml would start
    anew under its new id (new hands and roles mailed to everybody) while its players'
    mail to the old one finds no game: ``pbp run``, its reload and ``pbp check``
    refuse it."""
    configured = {game.id for game in config.games}
    running = sorted(
        game_id
        for game_id, schedule in store.schedules().items()
        if not schedule.over and game_id not in configured
    )
    if not running:
        return None
    return (
        f"games.yaml lacks the running game(s) {', '.join(running)}: put them back as they "
        "were (a game is not renamed or ended by editing the file; one that is over may go), "
        f"or, to start over with new games, stop pbp and move the store {store.path} aside"
    )
