"""Reading the configuration file ``games.yaml`` (:func:`load_config`) and reporting its
problems (:class:`ConfigError`, the checks of ``pbp check``); the models it is read with
are :mod:`pbp.config.model`'s.

:func:`load_config` reports every problem at once, each with the file, the YAML path
and the line (``games.yaml:23: games[0].players[2].email: value is not a valid email
address: 'netashka.example.test'``), and raises :class:`ConfigError`. It reads the
file only as a regular file of bounded size (:func:`read_config_text`, 1 MiB unless
``--max-config-bytes`` says otherwise) and its YAML within bounds (:func:`config_limits`:
an alias bomb or too deep a nesting is one problem, found before anything is built).

The YAML is read with YAML 1.2 scalars: only ``true``/``false`` are booleans, an
unquoted ``22:30`` stays the text "22:30" (YAML 1.1 would read the number 1350), and
dates stay text (pydantic parses them). Secrets never enter the configuration: a
password is named by the environment variable that holds it (``password_env``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError
from pydantic_core import ErrorDetails

from pbp.config.model import ENV_NAME, Config, config_model, pbps_own_problems
from pbp.games.core import registry
from pbp.games.core.gameconfig import players_problems
from pbp.games.core.yamlmarks import (
    Found,
    Marked,
    YamlLimitError,
    YamlLimits,
    YamlPath,
    YamlSyntaxError,
    YamlValueError,
    explain,
    load_marked,
    show_path,
)

# ---------------------------------------------------------------- problems


@dataclass(frozen=True)
class Problem:
    """One problem in a configuration file.

    ``path`` is the YAML path (``"games[0].players[2].email"``; ``""`` for the whole
    file); ``line`` is 1-based, None when unknown. ``str()`` gives
    ``"games.yaml:23: games[0].players[2].email: value is not a valid email address: 'x'"``.
    """

    file: str
    path: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.file if self.line is None else f"{self.file}:{self.line}"
        return f"{where}: {self.path}: {self.message}" if self.path else f"{where}: {self.message}"


class ConfigError(Exception):
    """The configuration cannot be used; ``problems`` lists every problem found, in file
    order. ``secrets``: the ``password_env`` names the file gives (:func:`declared_secrets`,
    read from its YAML as written; empty when it could not be read), so that ``pbp
    check`` warns of one not set beside the problems (:func:`pbp.config.model.unset_secrets`)."""

    def __init__(self, problems: list[Problem], secrets: Sequence[str] = ()) -> None:
        self.problems = problems
        self.secrets = list(secrets)
        super().__init__("\n".join(str(p) for p in problems))


def declared_secrets(data: object) -> list[str]:
    """The ``password_env`` names of a ``games.yaml`` read as YAML but not (or not yet)
    checked: ``mail.password_env`` (a provider's), ``mail.inbox.imap.password_env`` and
    ``mail.outbox.smtp.password_env``, each once, in that order; a value that is no
    environment variable name is left out (it is a problem of its own).

    >>> declared_secrets({"mail": {"inbox": {"imap": {"password_env": "PBP_IMAP"}},
    ...                            "outbox": {"smtp": {"password_env": "PBP_IMAP"}}}})
    ['PBP_IMAP']
    """
    mail = data.get("mail") if isinstance(data, dict) else None
    if not isinstance(mail, dict):
        return []
    places: list[object] = [mail]
    for box, server in (("inbox", "imap"), ("outbox", "smtp")):
        settings = mail.get(box)
        if isinstance(settings, dict):
            places.append(settings.get(server))
    names = [
        name
        for place in places
        if isinstance(place, dict)
        and isinstance(name := place.get("password_env"), str)
        and ENV_NAME.match(name)
    ]
    return list(dict.fromkeys(names))


def _unchecked_problems(
    data: Mapping[str, object], errors: Sequence[ErrorDetails], bad: set[YamlPath]
) -> Found:
    """The checks across fields that pydantic did not run because a field of their
    model failed (a model's ``after`` validator runs only on valid fields): a game's
    players (:func:`pbp.games.core.gameconfig.players_problems`) and pbp's own address
    (:meth:`pbp.config.model.Config._not_pbps_address`), on the raw values of ``data``,
    so that ``pbp check`` lists every problem at once. A value at a path of ``bad`` (it has a
    problem of its own) or not a string is not compared. ``errors``:
    ``ValidationError.errors()``."""

    def text(value: object, path: YamlPath) -> str | None:
        return value if isinstance(value, str) and path not in bad else None

    games = data.get("games")
    if not isinstance(games, list):
        return []
    # A game's own model validator ran unless a field of it failed (pydantic's loc:
    # "games", i, kind tag, field…) or its kind is unknown (loc "games", i).
    unchecked = {
        err["loc"][1]
        for err in errors
        if len(err["loc"]) >= 2
        and err["loc"][0] == "games"
        and isinstance(err["loc"][1], int)
        and (len(err["loc"]) != 3 or err["type"] != "pbp_checks")
    }
    found: Found = []
    named: list[tuple[YamlPath, str | None]] = []
    for i, game in enumerate(games):
        if not isinstance(game, dict):
            continue
        raw = game.get("players")
        players = raw if isinstance(raw, list) else []
        emails: list[str | None] = []
        names: list[str | None] = []
        for n, player in enumerate(players):
            player = player if isinstance(player, dict) else {}
            names.append(text(player.get("name"), ("games", i, "players", n, "name")))
            emails.append(text(player.get("email"), ("games", i, "players", n, "email")))
        gm = text(game.get("gm"), ("games", i, "gm"))
        named.append((("games", i, "gm"), gm))
        named += [(("games", i, "players", n, "email"), e) for n, e in enumerate(emails)]
        if i not in unchecked or not isinstance(raw, list):
            continue
        kind = registry.KINDS.get(str(game.get("kind")))
        least, rule = (0, "") if kind is None else kind.config_model.players_least()
        game_id = game.get("id") if isinstance(game.get("id"), str) else f"games[{i}]"
        seats = list(zip(names, emails, strict=True))
        try:  # the command words of the game's language, when it has one pbp knows
            words = kind.config_model.player_words(str(game.get("locale"))) if kind else ()
        except KeyError:
            words = ()
        problems = players_problems(str(game_id), gm, seats, least, rule, words=words)
        found += [(("games", i, *path), message) for path, message in problems]
    mail = data.get("mail")
    address = text(mail.get("address"), ("mail", "address")) if isinstance(mail, dict) else None
    # pbp's own address: checked by Config after every field passed, i.e. never here.
    if address is not None:
        found += pbps_own_problems(address, named)
    return found


#: The largest ``games.yaml`` pbp reads, bytes (``pbp run`` and ``pbp check``
#: ``--max-config-bytes``): 1 MiB, about a thousand games of 15 players.
DEFAULT_MAX_CONFIG_BYTES = 1 << 20

#: The most problems a :class:`ConfigError` from :func:`load_config` lists; one more line
#: says that there are more (a file of 250,000 bad games is one screen, not 30 MB).
MAX_PROBLEMS = 100


def config_limits(max_bytes: int) -> YamlLimits:
    """The bounds of the YAML in a file of at most ``max_bytes`` bytes: a node
    (:class:`~pbp.games.core.yamlmarks.YamlLimits`, aliases expanded) per 4 bytes, so that aliases
    make no larger document than plain text of that size could (262,144 nodes for
    1 MiB; the 1,000 games of the benchmark hold 133,000), nested at most 50 deep."""
    return YamlLimits(nodes=max(max_bytes // 4, 1), depth=50)


_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (a named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def _not_regular(mode: int) -> str | None:
    """What a file of ``mode`` (``st_mode``) is when it is no regular file, in words
    (``"a FIFO (a named pipe)"``); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((words for test, words in _KINDS if test(mode)), "a file of another kind")


def read_config_text(path: Path, max_bytes: int = DEFAULT_MAX_CONFIG_BYTES) -> str:
    """The text of ``path`` (UTF-8), a regular file (a symlink to one is fine) of at most
    ``max_bytes`` bytes.

    What the path names is looked at before it is opened (a FIFO, a device, a directory
    are never opened), and again on the open descriptor (``fstat``): a FIFO put in its
    place between the two is opened non-blocking (``O_NONBLOCK``) and refused, never
    waited on. At most ``max_bytes + 1`` bytes are read, whatever size the file claims.

    :raises ConfigError: one :class:`Problem` ``"cannot read the file: …"``: it does not
        exist or may not be read (the :class:`OSError`), it is no regular file (``"it is
        a FIFO (a named pipe), not a regular file"``), it holds more than ``max_bytes``
        bytes, or it is no UTF-8.
    """

    def refuse(why: str) -> ConfigError:
        return ConfigError([Problem(str(path), "", None, f"cannot read the file: {why}")])

    limit = f"the limit of {max_bytes:,} bytes (--max-config-bytes)"
    try:
        kind = _not_regular(os.stat(path).st_mode)
        if kind is not None:
            raise refuse(f"it is {kind}, not a regular file")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
        try:
            opened = os.fstat(fd)
            kind = _not_regular(opened.st_mode)
            if kind is not None:
                raise refuse(f"it is {kind}, not a regular file")
            if opened.st_size > max_bytes:
                raise refuse(f"it holds {opened.st_size:,} bytes, over {limit}")
            chunks: list[bytes] = []
            left = max_bytes + 1
            while left > 0:
                chunk = os.read(fd, min(left, 1 << 16))
                if not chunk:
                    break
                chunks.append(chunk)
                left -= len(chunk)
        finally:
            os.close(fd)
        if left <= 0:
            # A size the file did not claim (a file of /proc, one still growing).
            raise refuse(f"it holds more than {limit}")
        return b"".join(chunks).decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise refuse(str(exc)) from exc


def load_config(path: Path, max_bytes: int = DEFAULT_MAX_CONFIG_BYTES) -> Config:
    """Read and check ``path`` (``games.yaml``, read by :func:`read_config_text` within
    ``max_bytes`` and as YAML within :func:`config_limits`); relative paths in it are
    resolved against its directory.

    :raises ConfigError: with every problem found, at most :data:`MAX_PROBLEMS` (a file
        that is unreadable, no regular file or too large; YAML syntax; an alias bomb or
        too deep a nesting; a character YAML forbids, such as a NUL or an ESC even in
        a comment; a value that cannot be made, such as ``!!timestamp 2026-13-45``;
        unknown or missing keys, bad values, duplicate keys, rules
        C1/C2 on cards and fixed deals), each with its line. A :class:`MemoryError` or
        :class:`RecursionError` while reading is one problem too. Missing secrets are
        not errors: see :meth:`pbp.config.model.Config.missing_secrets`.
    """
    file = str(path)
    text = read_config_text(path, max_bytes)
    try:
        return _checked(path, load_marked(text, config_limits(max_bytes)))
    except YamlSyntaxError as exc:
        raise ConfigError(
            [Problem(file, "", exc.line, f"YAML syntax error: {exc.message}")]
        ) from exc
    except (YamlLimitError, YamlValueError) as exc:
        raise ConfigError([Problem(file, "", exc.line, exc.message)]) from None
    except yaml.YAMLError as exc:  # never expected: load_marked says each in its words
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        said = " ".join(str(exc).split())
        raise ConfigError([Problem(file, "", line, f"YAML error: {said}")]) from None
    except (MemoryError, RecursionError) as exc:
        # Never expected within the limits above; still one sentence, not a traceback.
        what = "more memory" if isinstance(exc, MemoryError) else "a deeper recursion"
        raise ConfigError(
            [Problem(file, "", None, f"cannot read the file: it takes {what} than pbp has")]
        ) from None


def _checked(path: Path, doc: Marked) -> Config:
    """The configuration in ``doc`` (read from ``path``), checked.

    :raises ConfigError: every problem found, at most :data:`MAX_PROBLEMS`.
    """
    file = str(path)
    found = [Problem(file, show_path(p), line, "duplicate key") for p, line in doc.duplicates]
    if not isinstance(doc.data, dict):
        found.append(Problem(file, "", 1, "expected a mapping with the keys mail, store, games"))
        raise ConfigError(found)
    cut = False  # more problems than listed
    try:
        model = config_model()
        config = model.model_validate(doc.data, context={"base_dir": path.parent.absolute()})
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        explained = [pair for err in errors[:MAX_PROBLEMS] for pair in explain(model, err)]
        bad = {p for p, _message in explained}
        more = _unchecked_problems(doc.data, errors, bad)
        explained += [pair for pair in more[:MAX_PROBLEMS] if pair not in explained]
        for p, message in explained:
            found.append(Problem(file, show_path(p), doc.line_of(p), message))
        cut = len(errors) > MAX_PROBLEMS or len(more) > MAX_PROBLEMS
    if found:
        found.sort(key=lambda p: (p.line or 0, p.path))
        if cut or len(found) > MAX_PROBLEMS:
            found = found[:MAX_PROBLEMS]
            found.append(
                Problem(file, "", None, f"more problems not listed (only the first {MAX_PROBLEMS})")
            )
        raise ConfigError(found, declared_secrets(doc.data))
    config._path = path
    return config
