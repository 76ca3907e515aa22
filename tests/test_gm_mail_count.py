"""Issue 31, item 4: fewer mails to the GM, each one named. One scripted day of the
three games of the bundled ``games.yaml`` (Cluedo by days, Cluedo by rounds, Maniac
with its vote count mailed), played through the service on Maildir transports, and the
GM's mails counted: with the old behaviour (``post_format: both``, ``gm_mail: each``),
with the defaults (BBCode only), and gathered per deadline.

The day: the three games start at 20:00 Moscow time; four Maniac votes (each mails the
GM the count: ``vote_count_mail: true``); the Maniac day closes at 22:00 (the evening
post), Cluedo's day at 22:30 (the day summary), the Maniac night ends at 10:00 (the
morning post and how the night went), and the first Cluedo turn is missed at 20:00 the
next day (its turn post, R7).
"""

from __future__ import annotations

import re
from datetime import timedelta
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime
from pathlib import Path

import pytest
from kits.table import TEMPLATES, body, utc

from pbp.app.service import Service
from pbp.config.loading import load_config
from pbp.games.core.registry import KINDS
from pbp.mail.maildir import MaildirInbox, MaildirTransport, deliver, read_maildir
from pbp.mail.read.mime import find_tokens, read_letter
from pbp.store import Store
from pbp.text.render import Renderer

BUNDLED = Path(__file__).resolve().parents[1] / "games.yaml"
GM = "gm-person@example.test"
TITLES = {"exler-1": "Клуэдо 1", "table-1": "Клуэдо за столом", "maniac-1": "Маньяк 2"}


def _games_yaml(directory: Path, keys: str, personal_address: str = "plus") -> Path:
    """The bundled games.yaml with a fixed seed, a title and ``keys`` (one line of game
    keys, ``"post_format: both"``…) in each game, the Maniac's vote count mailed."""
    text = BUNDLED.read_text(encoding="utf-8")
    for game_id, title in TITLES.items():
        extra = f"\n    seed: 7\n    title: {title}" + "".join(
            f"\n    {key}" for key in keys.split(", ") if key
        )
        text = text.replace(f"  - id: {game_id}", f"  - id: {game_id}{extra}", 1)
    text = text.replace("vote_count_mail: false", "vote_count_mail: true")
    text = text.replace("personal_address: plus", f"personal_address: {personal_address}")
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "games.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _play_day(directory: Path, keys: str) -> list[EmailMessage]:
    """The scripted day (module docstring); every mail sent to the GM, in order."""
    config = load_config(_games_yaml(directory, keys))
    store = Store(config.store)
    now = utc(2026, 12, 1, 17)  # 20:00 in Moscow
    service = Service(
        config,
        store,
        Renderer(TEMPLATES, kinds=KINDS),
        inbox=MaildirInbox(directory / "mail" / "inbox"),
        transport=MaildirTransport(directory / "mail" / "outbox"),
        clock=lambda: now,
    )
    try:
        service.run_once(now)
        for minute, (voter, target) in enumerate(
            [("Вася", "Петя"), ("Таня", "Петя"), ("Оля", "Вася"), ("Саша", "Петя")], 1
        ):
            at = now + timedelta(minutes=10 * minute)
            token = store.player_token("maniac-1", voter)
            message = EmailMessage(policy=SMTP)
            message["From"] = next(
                p.email for p in config.game("maniac-1").players if p.name == voter
            )
            message["To"] = f"gm+{token}@example.test"
            message["Subject"] = "ход"
            message["Date"] = format_datetime(at)
            message.set_content(f"ГОЛОС {target}\n")
            deliver(directory / "mail" / "inbox", bytes(message), at=at)
            service.run_once(at + timedelta(minutes=1))
        while now < utc(2026, 12, 2, 17):
            now += timedelta(hours=1)
            service.run_once(now)
    finally:
        store.close()
    return [m for m in read_maildir(directory / "mail" / "outbox") if str(m["To"]) == GM]


def _kinds(mails: list[EmailMessage]) -> list[str]:
    """Each mail's Subject without its game tag, for a readable failure."""
    return [re.sub(r"^\[[^]]+\] ", "", str(m["Subject"])) for m in mails]


def test_the_gm_gets_half_the_mails_of_a_day_of_three_games_by_default(tmp_path: Path) -> None:
    before = _play_day(tmp_path / "before", "post_format: both, gm_mail: each")
    after = _play_day(tmp_path / "after", "")
    gathered = _play_day(tmp_path / "gathered", "gm_mail: per_deadline")
    # Before: 3 openings and 4 posts at the deadlines (evening, day, morning, turn),
    # twice each (14); 2 GM-only mails beside posts (the roles at the Maniac opening,
    # the orders fixed at its morning), 3 GM sheets, 4 vote counts, how the night went.
    assert len(before) == 24, _kinds(before)
    # The defaults: each post once, in BBCode (7 mails fewer).
    assert len(after) == 17, _kinds(after)
    assert [s for s in _kinds(before) if s.endswith("— Markdown")] == [
        s.replace("— BBCode", "— Markdown") for s in _kinds(after) if s.endswith("— BBCode")
    ]
    # Per deadline: a start's sheet and the opening's GM-only facts in one mail; the
    # night's morning post's GM-only facts and how it went in one (2 mails fewer).
    assert len(gathered) == 15, _kinds(gathered)


def test_every_mail_of_the_day_names_its_game_in_its_subject_and_first_line(
    tmp_path: Path,
) -> None:
    mails = _play_day(tmp_path, "gm_mail: per_deadline")
    titles = set(TITLES.values())
    for mail in mails:
        subject = str(mail["Subject"])
        tag = re.match(r"\[([^]]+)\] ", subject)
        assert tag is not None and tag.group(1) in titles, subject
        text = body(mail)
        if subject.endswith(("— BBCode", "— Markdown")):
            assert not text.startswith("Игра:"), subject  # a post is pasted whole
        else:
            assert text.split("\n", 2)[:2] == [f"Игра: {tag.group(1)}", ""], subject


@pytest.mark.parametrize("personal_address", ["plus", "subject_tag"])
def test_a_reply_names_its_game_and_keeps_its_token_and_thread(
    tmp_path: Path, personal_address: str
) -> None:
    config = load_config(_games_yaml(tmp_path, "", personal_address))
    store = Store(config.store)
    now = utc(2026, 12, 1, 17)
    outbox = tmp_path / "mail" / "outbox"
    service = Service(
        config,
        store,
        Renderer(TEMPLATES, kinds=KINDS),
        inbox=MaildirInbox(tmp_path / "mail" / "inbox"),
        transport=MaildirTransport(outbox),
        clock=lambda: now,
    )
    try:
        service.run_once(now)
        token = store.player_token("maniac-1", "Вася")
        assert token is not None
        message = EmailMessage(policy=SMTP)
        message["From"] = "vasya@example.test"
        if personal_address == "plus":
            message["To"] = f"gm+{token}@example.test"
            message["Subject"] = "Re: ход"
        else:
            message["To"] = "gm@example.test"
            message["Subject"] = f"Re: ход [pbp-{token}]"
        message["Message-ID"] = "<vote-1@example.test>"
        message["References"] = "<earlier@example.test>"
        message.set_content("ГОЛОС Петя\n")
        deliver(tmp_path / "mail" / "inbox", bytes(message), at=now)
        seen = len(read_maildir(outbox))
        service.run_once(now + timedelta(minutes=1))
        answer = next(
            m for m in read_maildir(outbox)[seen:] if str(m["To"]) == "vasya@example.test"
        )
    finally:
        store.close()
    tag = "" if personal_address == "plus" else f" [pbp-{token}]"
    assert str(answer["Subject"]) == f"[Маньяк 2] Re: ход{tag}"
    assert str(answer["In-Reply-To"]) == "<vote-1@example.test>"
    assert str(answer["References"]).split() == ["<earlier@example.test>", "<vote-1@example.test>"]
    assert body(answer).startswith("Игра: Маньяк 2\n\nВася, вот что сделано по вашему письму.")
    # The reader still finds the token in a reply to the answer (the game tag beside it).
    reply = EmailMessage(policy=SMTP)
    reply["From"] = "vasya@example.test"
    reply["To"] = str(answer["Reply-To"])
    reply["Subject"] = f"Re: {answer['Subject']}"
    reply.set_content("СТАТУС\n")
    letter = read_letter(bytes(reply))
    assert find_tokens(letter, "gm@example.test", personal_address) == [token]  # type: ignore[arg-type]
