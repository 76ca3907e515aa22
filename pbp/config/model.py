"""The configuration file ``games.yaml`` as pydantic models (:class:`Config`); it is read
and checked by :func:`pbp.config.loading.load_config`.

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

Secrets never enter the configuration: a password is named by the environment variable
that holds it (``password_env``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    Field,
    PrivateAttr,
    ValidationInfo,
    create_model,
    field_validator,
    model_validator,
)

from pbp.config.providers import provider as find_provider
from pbp.games.core import registry
from pbp.games.core.configvalues import EmailAddress
from pbp.games.core.gameconfig import ConfigModel, GameBase
from pbp.games.core.yamlmarks import (
    Found,
    YamlPath,
    checks_error,
)
from pbp.mail.base import DEFAULT_MAX_MESSAGE_SIZE
from pbp.mail.read.authcheck import DEFAULT_RECEIVED_ABOVE, TrustedServer, unusable


def unset_secrets(names: Sequence[str], environ: Mapping[str, str] | None = None) -> list[str]:
    """Those of ``names`` not set in ``environ`` (default ``os.environ``), each once; a
    variable set to ``""`` counts as not set."""
    env = os.environ if environ is None else environ
    return [name for name in dict.fromkeys(names) if not env.get(name)]


# ---------------------------------------------------------------- value checks


def _env_name(value: str) -> str:
    if not ENV_NAME.match(value):
        raise ValueError(f"{value!r} is not an environment variable name (letters, digits, _)")
    return value


def _resolve(value: Path, info: ValidationInfo) -> Path:
    """A relative path is taken relative to the configuration file's directory."""
    base = (info.context or {}).get("base_dir")
    return value if value.is_absolute() or base is None else Path(base) / value


#: An environment variable's name (``password_env``): letters, digits and ``_``, not
#: starting with a digit.
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
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
    def _provider(cls, data: object) -> object:
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
        found = pbps_own_problems(self.mail.address, named)
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


def pbps_own_problems(address: str, named: Sequence[tuple[YamlPath, str | None]]) -> Found:
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
