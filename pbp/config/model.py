"""The configuration file ``games.yaml``: pydantic models, loading, the checks of ``pbp check``.

Shape (see the bundled ``games.yaml`` for a commented example)::

    mail:
      address: gm@example.test          # the daemon's address
      personal_address: plus            # plus | subject_tag
      inbox:  {maildir: ./mail/inbox}   # or {imap: {host, port, username, password_env,
                                        #            folder, tls}}
      outbox: {maildir: ./mail/outbox}  # or {smtp: {host, port, username, password_env, tls}}
      max_message_size: 2000000         # bytes; a larger mail is not read (its headers kept)
    store: ./pbp.sqlite3
    games:
      - {id: exler-1, kind: cluedo_days, ...}

Each game is read with the model of its ``kind``: the ``config_model`` of the kind
registered under that name (:mod:`pbp.games.core.registry`), a class derived from
:class:`~pbp.games.core.gameconfig.GameBase` that lives in the game's package.

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
import re
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union

import yaml
from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    PrivateAttr,
    ValidationError,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from pbp.config.providers import provider as find_provider
from pbp.config.yamlmarks import (
    Found,
    Marked,
    YamlLimitError,
    YamlLimits,
    YamlPath,
    YamlSyntaxError,
    YamlValueError,
    checks_error,
    explain,
    load_marked,
    show_path,
)
from pbp.games.core import registry
from pbp.games.core.gameconfig import (
    ConfigModel,
    EmailAddress,
    GameBase,
    players_problems,
)
from pbp.mail.base import DEFAULT_MAX_MESSAGE_SIZE
from pbp.mail.read.authcheck import DEFAULT_RECEIVED_ABOVE, TrustedServer, unusable

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
    check`` warns of one not set beside the problems (:func:`unset_secrets`)."""

    def __init__(self, problems: list[Problem], secrets: Sequence[str] = ()) -> None:
        self.problems = problems
        self.secrets = list(secrets)
        super().__init__("\n".join(str(p) for p in problems))


def declared_secrets(data: Any) -> list[str]:
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
    places: list[Any] = [mail]
    for box, server in (("inbox", "imap"), ("outbox", "smtp")):
        settings = mail.get(box)
        if isinstance(settings, dict):
            places.append(settings.get(server))
    names = [
        name
        for place in places
        if isinstance(place, dict)
        and isinstance(name := place.get("password_env"), str)
        and _ENV_NAME.match(name)
    ]
    return list(dict.fromkeys(names))


def unset_secrets(names: Sequence[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """Those of ``names`` not set in ``environ`` (default ``os.environ``), each once; a
    variable set to ``""`` counts as not set."""
    env = os.environ if environ is None else environ
    return [name for name in dict.fromkeys(names) if not env.get(name)]


# ---------------------------------------------------------------- value checks


def _env_name(value: str) -> str:
    if not _ENV_NAME.match(value):
        raise ValueError(f"{value!r} is not an environment variable name (letters, digits, _)")
    return value


def _resolve(value: Path, info: ValidationInfo) -> Path:
    """A relative path is taken relative to the configuration file's directory."""
    base = (info.context or {}).get("base_dir")
    return value if value.is_absolute() or base is None else Path(base) / value


_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
EnvName = Annotated[str, AfterValidator(_env_name)]
Port = Annotated[int, Field(ge=1, le=65535)]
Tls = Literal["none", "starttls", "ssl"]
RelativePath = Annotated[Path, AfterValidator(_resolve)]


# ---------------------------------------------------------------- mail


class ImapSettings(ConfigModel):
    """``inbox: {imap: {...}}``; the password is read from the environment variable
    ``password_env``. ``tls``: ``none``, ``starttls`` (RFC 2595) or ``ssl`` (implicit TLS).
    ``kept_folder``: where a copy of every message set aside for the GM goes."""

    host: str
    port: Port
    username: str
    password_env: EnvName
    folder: str = "INBOX"
    kept_folder: str = "pbp-kept"
    tls: Tls

    def password(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The password from ``environ`` (default ``os.environ``); None when unset."""
        return (os.environ if environ is None else environ).get(self.password_env)


class SmtpSettings(ConfigModel):
    """``outbox: {smtp: {...}}``; ``username`` and ``password_env`` only where the server
    wants a login (AUTH, RFC 4954). ``tls``: ``none``, ``starttls`` (RFC 3207) or ``ssl``."""

    host: str
    port: Port
    username: str | None = None
    password_env: EnvName | None = None
    tls: Tls

    def password(self, environ: Mapping[str, str] | None = None) -> str | None:
        """The password from ``environ`` (default ``os.environ``); None when unset or not used."""
        if self.password_env is None:
            return None
        return (os.environ if environ is None else environ).get(self.password_env)

    @model_validator(mode="after")
    def _login_pair(self) -> SmtpSettings:
        if (self.username is None) != (self.password_env is None):
            raise ValueError("give both username and password_env, or neither")
        return self


def _exactly_one(model: BaseModel, names: tuple[str, str]) -> None:
    given = [n for n in names if getattr(model, n) is not None]
    if len(given) != 1:
        got = "both" if given else "neither"
        raise ValueError(f"give exactly one of {names[0]}, {names[1]} (got {got})")


class InboxSettings(ConfigModel):
    """Where moves come from: exactly one of ``maildir`` (a local Maildir) or ``imap``."""

    maildir: RelativePath | None = None
    imap: ImapSettings | None = None

    @model_validator(mode="after")
    def _one(self) -> InboxSettings:
        _exactly_one(self, ("maildir", "imap"))
        return self


class OutboxSettings(ConfigModel):
    """Where outgoing mail goes: exactly one of ``maildir`` or ``smtp``."""

    maildir: RelativePath | None = None
    smtp: SmtpSettings | None = None

    @model_validator(mode="after")
    def _one(self) -> OutboxSettings:
        _exactly_one(self, ("maildir", "smtp"))
        return self


class MailSettings(ConfigModel):
    """The daemon's mailbox. ``personal_address``: ``plus`` (``gm+TOKEN@host``) or ``subject_tag``
    (``[pbp-TOKEN]`` in the Subject, for providers without plus-addressing).
    ``max_message_size``: bytes; of a larger incoming mail the inbox delivers only its
    header section (:attr:`pbp.mail.base.RawMessage.truncated`)."""

    address: EmailAddress
    #: A provider of :data:`pbp.config.providers.PROVIDERS` (``yandex``, ``gmail``, ``mailru``):
    #: fills ``inbox`` (IMAP), ``outbox`` (SMTP) and ``personal_address`` with its
    #: settings, logging in as ``username`` (default: ``address``) with the password in
    #: the environment variable ``password_env``; what is given explicitly wins.
    provider: str | None = None
    username: str | None = None
    password_env: EnvName | None = None
    personal_address: Literal["plus", "subject_tag"] = "plus"
    inbox: InboxSettings
    outbox: OutboxSettings
    max_message_size: int = Field(default=DEFAULT_MAX_MESSAGE_SIZE, gt=0, strict=True)
    #: CPU time one message's body may take to read and parse, seconds
    #: (:mod:`pbp.app.budget`, :mod:`pbp.app.reader`); over it, the mail is kept as unreadable.
    cpu_seconds_per_message: Annotated[float, Field(gt=0, le=60)] = 3.0
    #: The authserv-id (RFC 8601 §2.5) of the server that receives this mailbox's mail
    #: and adds ``Authentication-Results`` (``mx.example.test``); None: no such server.
    #: Where set, players' moves need an authenticated From and a GM's mail that passed
    #: DMARC there needs no confirmation (:mod:`pbp.mail.read.authcheck`).
    trusted_authserv_id: str | None = Field(default=None, pattern=r"^[A-Za-z0-9.-]+$")
    #: How many ``Authentication-Results`` fields of ``trusted_authserv_id`` that server
    #: writes on each mail (Postfix with OpenDKIM and OpenDMARC: 2); more in its place
    #: means one is forged.
    trusted_authserv_fields: Annotated[int, Field(ge=1, le=8, strict=True)] = 1
    #: How many ``Received`` fields the receiving side writes above its
    #: ``Authentication-Results`` (README, "Forged and unauthenticated mail"): a field of
    #: ``trusted_authserv_id`` anywhere else is the sender's.
    trusted_received_above: Annotated[int, Field(ge=0, le=8, strict=True)] = DEFAULT_RECEIVED_ABOVE
    #: Answers to one address in an hour (counted from the hour's first answer);
    #: beyond them one "slow down" answer, then one summary after the hour.
    max_answers_per_hour: Annotated[int, Field(ge=1, le=10_000)] = 30
    #: The local hour (in the zone of the GM's first game) of the daily GM digest.
    digest_hour: Annotated[int, Field(ge=0, le=23)] = 9

    @field_validator("trusted_authserv_id")
    @classmethod
    def _trustable(cls, value: str | None) -> str | None:
        """:raises ValueError: an authserv-id that changes from mail to mail
        (:func:`pbp.mail.read.authcheck.unusable`)."""
        why = None if value is None else unusable(value)
        if why is not None:
            raise ValueError(why)
        return value

    @property
    def trusted_server(self) -> TrustedServer | None:
        """The three ``trusted_*`` settings as :mod:`pbp.mail.read.authcheck` takes them; None
        when ``trusted_authserv_id`` is not set (no From is checked)."""
        if self.trusted_authserv_id is None:
            return None
        return TrustedServer(
            self.trusted_authserv_id, self.trusted_authserv_fields, self.trusted_received_above
        )

    @model_validator(mode="before")
    @classmethod
    def _provider(cls, data: Any) -> Any:
        """Fill ``inbox``, ``outbox`` and ``personal_address`` from ``provider``; keys
        given under ``inbox: {imap: …}`` or ``outbox: {smtp: …}`` override the preset's.

        :raises ValueError: no ``password_env``; ``inbox`` and ``outbox`` both local
            Maildirs (the provider's mailbox would be neither read nor written).
        """
        if not isinstance(data, dict) or data.get("provider") is None:
            return data
        preset = find_provider(str(data["provider"]))
        if data.get("password_env") is None:
            raise ValueError(
                f"provider {data['provider']}: give password_env, the name of the environment "
                "variable that holds the mailbox's (app) password"
            )
        login = {
            "username": data.get("username") or data.get("address"),
            "password_env": data["password_env"],
        }
        if all(isinstance(data.get(k), dict) and "maildir" in data[k] for k in ("inbox", "outbox")):
            # The bundled games.yaml's local Maildirs left beside a provider: no mail
            # would be read or sent, and every check would pass.
            raise ValueError(
                f"provider {data['provider']}: inbox and outbox are local Maildirs, so "
                "pbp would neither read nor send mail there; remove the inbox: and "
                "outbox: lines (one Maildir alone is kept: a trial that reads the "
                "mailbox and writes its answers to a folder)"
            )
        filled = dict(data)
        for key, protocol, (host, port, tls) in (
            ("inbox", "imap", preset.imap),
            ("outbox", "smtp", preset.smtp),
        ):
            given = filled.get(key)
            if given is None:
                filled[key] = {protocol: {"host": host, "port": port, "tls": tls, **login}}
            elif isinstance(given, dict) and isinstance(given.get(protocol), dict):
                preset_fields = {"host": host, "port": port, "tls": tls, **login}
                filled[key] = {**given, protocol: {**preset_fields, **given[protocol]}}
        filled.setdefault("personal_address", preset.personal_address)
        return filled

    @model_validator(mode="after")
    def _plus(self) -> MailSettings:
        if self.personal_address == "plus" and "+" in self.address.split("@")[0]:
            raise ValueError(f"address {self.address!r} already has a '+': plus cannot add a token")
        return self


# ---------------------------------------------------------------- games


#: A game of any kind: the model of its kind (:attr:`pbp.games.core.kind.GameKind.config_model`).
Game = GameBase


class Config(ConfigModel):
    """The whole ``games.yaml``. ``store``: the SQLite file (relative: to the file's directory).

    ``games`` holds each game as the model of its ``kind``: :func:`load_config` reads
    the file with :func:`config_model`, this class with the kinds registered now.
    """

    mail: MailSettings
    store: RelativePath
    games: list[GameBase] = Field(min_length=1)
    _path: Path | None = PrivateAttr(default=None)

    @field_validator("store")
    @classmethod
    def _a_file(cls, value: Path) -> Path:
        """:raises ValueError: ``value`` is a directory (SQLite cannot open it)."""
        if value.is_dir():
            raise ValueError(
                f"{value} is a directory: give the path of pbp's SQLite file, such as "
                f"{value / 'pbp.sqlite3'}"
            )
        return value

    @field_validator("games")
    @classmethod
    def _unique_ids(cls, games: list[Game]) -> list[Game]:
        first: dict[str, int] = {}
        found: Found = []
        for i, g in enumerate(games):
            if g.id in first:
                found.append(((i, "id"), f"duplicate game id {g.id!r} (also games[{first[g.id]}])"))
            first.setdefault(g.id, i)
        if found:
            raise checks_error(found)
        return games

    @model_validator(mode="after")
    def _not_pbps_address(self) -> Config:
        """No player or GM may use pbp's own address or one of its personal addresses
        (``gm+…@``): pbp's mail to them would come back to pbp."""
        named: list[tuple[YamlPath, str | None]] = []
        for i, game in enumerate(self.games):
            named.append((("games", i, "gm"), game.gm))
            named += [
                (("games", i, "players", n, "email"), p.email) for n, p in enumerate(game.players)
            ]
        found = _pbps_own_problems(self.mail.address, named)
        if found:
            raise checks_error(found)
        return self

    @property
    def path(self) -> Path | None:
        """The file this configuration was loaded from (None when built in code)."""
        return self._path

    def game(self, game_id: str) -> Game:
        """The game with id ``game_id``.

        :raises KeyError: no such game; the message lists the known ids.
        """
        for g in self.games:
            if g.id == game_id:
                return g
        known = ", ".join(g.id for g in self.games)
        raise KeyError(f"no game {game_id!r}; known games: {known}")

    def missing_secrets(self, environ: Mapping[str, str] | None = None) -> list[str]:
        """Names of the ``password_env`` variables not set in ``environ`` (default ``os.environ``).

        Example: ``["PBP_IMAP_PASSWORD"]``; a variable set to ``""`` counts as not set.
        ``pbp check`` and ``pbp run`` refuse to go on without them.
        """
        names = [
            s.password_env
            for s in (self.mail.inbox.imap, self.mail.outbox.smtp)
            if s is not None and s.password_env is not None
        ]
        return unset_secrets(names, environ)


_MODELS: dict[tuple[type[GameBase], ...], type[Config]] = {}


def config_model() -> type[Config]:
    """:class:`Config` with ``games`` a discriminated union on ``kind`` of the config
    models of the kinds registered now (:mod:`pbp.games.core.registry`), built once per set of
    kinds. A kind registered later (a test's own game) gets its own model."""
    models = tuple(kind.config_model for kind in registry.KINDS.values())
    found = _MODELS.get(models)
    if found is None:
        union = Union[models]  # type: ignore[valid-type]  # noqa: UP007
        games = Annotated[list[Annotated[union, Field(discriminator="kind")]], Field(min_length=1)]
        found = create_model("Config", __base__=Config, games=(games, ...))
        _MODELS[models] = found
    return found


def _pbps_own_problems(address: str, named: Sequence[tuple[YamlPath, str | None]]) -> Found:
    """The addresses of ``named`` (a path and an address, None: not compared) that are
    pbp's own ``address`` or one of its personal addresses (``gm+…@``)."""
    local, _at, domain = address.lower().rpartition("@")
    found: Found = []
    for path, given in named:
        if given is None:
            continue
        their_local, _at, their_domain = given.lower().rpartition("@")
        if their_domain == domain and their_local.split("+")[0] == local:
            found.append((path, f"{given!r} is pbp's own mailbox: give a person's address"))
    return found


def _unchecked_problems(data: dict[str, Any], errors: Sequence[Any], bad: set[YamlPath]) -> Found:
    """The checks across fields that pydantic did not run because a field of their
    model failed (a model's ``after`` validator runs only on valid fields): a game's
    players (:func:`pbp.games.core.gameconfig.players_problems`) and pbp's own address
    (:meth:`Config._not_pbps_address`), on the raw values of ``data``, so that ``pbp
    check`` lists every problem at once. A value at a path of ``bad`` (it has a
    problem of its own) or not a string is not compared. ``errors``:
    ``ValidationError.errors()``."""

    def text(value: Any, path: YamlPath) -> str | None:
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
        found += _pbps_own_problems(address, named)
    return found


#: The largest ``games.yaml`` pbp reads, bytes (``pbp run`` and ``pbp check``
#: ``--max-config-bytes``): 1 MiB, about a thousand games of 15 players.
DEFAULT_MAX_CONFIG_BYTES = 1 << 20

#: The most problems a :class:`ConfigError` from :func:`load_config` lists; one more line
#: says that there are more (a file of 250,000 bad games is one screen, not 30 MB).
MAX_PROBLEMS = 100


def config_limits(max_bytes: int) -> YamlLimits:
    """The bounds of the YAML in a file of at most ``max_bytes`` bytes: a node
    (:class:`~pbp.config.yamlmarks.YamlLimits`, aliases expanded) per 4 bytes, so that aliases
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
        not errors: see :meth:`Config.missing_secrets`.
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
