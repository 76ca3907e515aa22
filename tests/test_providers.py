"""Provider presets (issue 14, item 1): ``mail: {provider: …, password_env: …}`` fills
the IMAP and SMTP settings and the personal-address mode; explicit settings win."""

from __future__ import annotations

from pathlib import Path

import pytest
from kits.table import write_config

from pbp.config.loading import ConfigError, load_config
from pbp.config.model import ImapSettings, SmtpSettings

MAIL = """\
mail:
  address: gm@example.test
  personal_address: plus
  inbox: {maildir: ./mail/inbox}
  outbox: {maildir: ./mail/outbox}
"""


def with_mail(tmp_path: Path, mail: str) -> Path:
    """seed 000's games.yaml with its ``mail:`` section replaced by ``mail``."""
    path = write_config(tmp_path)
    text = path.read_text(encoding="utf-8")
    assert MAIL in text
    path.write_text(text.replace(MAIL, mail), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("name", "imap", "smtp", "mode"),
    [
        ("yandex", ("imap.yandex.ru", 993, "ssl"), ("smtp.yandex.ru", 465, "ssl"), "plus"),
        ("gmail", ("imap.gmail.com", 993, "ssl"), ("smtp.gmail.com", 465, "ssl"), "plus"),
        ("mailru", ("imap.mail.ru", 993, "ssl"), ("smtp.mail.ru", 465, "ssl"), "subject_tag"),
    ],
)
def test_a_provider_fills_imap_smtp_and_the_personal_address_mode(
    tmp_path: Path, name: str, imap: tuple[str, int, str], smtp: tuple[str, int, str], mode: str
) -> None:
    path = with_mail(
        tmp_path,
        f"mail:\n  address: game@example.test\n  provider: {name}\n"
        "  password_env: PBP_MAIL_PASSWORD\n",
    )
    mail = load_config(path).mail
    assert mail.inbox.imap == ImapSettings(
        host=imap[0],
        port=imap[1],
        tls=imap[2],  # type: ignore[arg-type]
        username="game@example.test",
        password_env="PBP_MAIL_PASSWORD",
    )
    assert mail.outbox.smtp == SmtpSettings(
        host=smtp[0],
        port=smtp[1],
        tls=smtp[2],  # type: ignore[arg-type]
        username="game@example.test",
        password_env="PBP_MAIL_PASSWORD",
    )
    assert (mail.inbox.maildir, mail.outbox.maildir, mail.personal_address) == (None, None, mode)


def test_explicit_settings_override_the_preset(tmp_path: Path) -> None:
    path = with_mail(
        tmp_path,
        "mail:\n  address: game@example.test\n  provider: yandex\n  username: login\n"
        "  password_env: PBP_MAIL_PASSWORD\n  personal_address: subject_tag\n"
        "  inbox: {imap: {port: 143, tls: starttls, folder: Games}}\n"
        "  outbox: {maildir: ./mail/outbox}\n",
    )
    mail = load_config(path).mail
    assert mail.inbox.imap == ImapSettings(
        host="imap.yandex.ru",
        port=143,
        tls="starttls",
        folder="Games",
        username="login",
        password_env="PBP_MAIL_PASSWORD",
    )
    assert (mail.outbox.smtp, mail.outbox.maildir) == (None, tmp_path / "mail" / "outbox")
    assert mail.personal_address == "subject_tag"


@pytest.mark.parametrize(
    ("provider", "said"),
    [
        (
            "outlook",
            "provider outlook: Microsoft's personal mailboxes (outlook.com, hotmail.com, "
            "live.com) accept only OAuth 2.0 sign-in over IMAP and SMTP since September 2024, "
            "which pbp does not support: use another provider (yandex, gmail, mailru) or give "
            "inbox: and outbox: of a server that takes a password",
        ),
        (
            "aol",
            "unknown provider 'aol': choose one of gmail, mailru, yandex, or give inbox: and "
            "outbox:",
        ),
    ],
)
def test_an_unusable_or_unknown_provider_is_refused_saying_why(
    tmp_path: Path, provider: str, said: str
) -> None:
    path = with_mail(
        tmp_path,
        f"mail:\n  address: game@example.test\n  provider: {provider}\n"
        "  password_env: PBP_MAIL_PASSWORD\n",
    )
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == f"{path}:1: mail: {said}"


def test_a_provider_without_password_env_is_refused(tmp_path: Path) -> None:
    path = with_mail(tmp_path, "mail:\n  address: game@example.test\n  provider: gmail\n")
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == (
        f"{path}:1: mail: provider gmail: give password_env, the name of the environment "
        "variable that holds the mailbox's (app) password"
    )


def test_a_provider_beside_two_local_maildirs_is_refused(tmp_path: Path) -> None:
    """The bundled games.yaml keeps ``inbox: {maildir: …}`` and ``outbox: {maildir: …}``;
    a GM who added ``provider:`` to it, as the README shows, got a daemon that read and
    sent no mail while ``pbp check --connect`` exited 0."""
    path = with_mail(
        tmp_path,
        "mail:\n  address: game@example.test\n  provider: yandex\n"
        "  password_env: PBP_MAIL_PASSWORD\n"
        "  inbox: {maildir: ./mail/inbox}\n  outbox: {maildir: ./mail/outbox}\n",
    )
    with pytest.raises(ConfigError) as raised:
        load_config(path)
    assert str(raised.value) == (
        f"{path}:1: mail: provider yandex: inbox and outbox are local Maildirs, so pbp "
        "would neither read nor send mail there; remove the inbox: and outbox: lines (one "
        "Maildir alone is kept: a trial that reads the mailbox and writes its answers to a "
        "folder)"
    )
