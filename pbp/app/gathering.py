"""The GM's mails of one deadline gathered (``gm_mail: per_deadline``,
:meth:`pbp.app.mailer.Mailer.deadline`): the posts to paste in one mail per format, the
GM-only mails in one other; a single one goes as it is alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from pbp.config.model import Game


@dataclass
class Post:
    """A post to paste gathered by :meth:`pbp.app.mailer.Mailer.deadline`: its Subject
    without a format (``title``), with each format (``subjects``) and its text in each
    (``texts``)."""

    title: str
    subjects: dict[str, str]
    texts: Mapping[str, str]


@dataclass
class Gathered:
    """What one deadline of a ``gm_mail: per_deadline`` game mails its GM, gathered:
    the posts to paste, and the GM-only mails as ``(title in a gathering, Subject alone,
    body)``."""

    posts: list[Post] = field(default_factory=list)
    facts: list[tuple[str, str, str]] = field(default_factory=list)


#: ``render(game, template, context, token) -> (subject, body)`` of a GM mail.
Render = Callable[[Game, str, Mapping[str, object], str | None], tuple[str, str]]


def mail_gathered(
    game: Game,
    gathered: Gathered,
    now: datetime,
    token: str | None,
    render: Render,
    send: Callable[..., None],
) -> None:
    """Mail the GM of ``game`` what was gathered: one post alone in each format, or
    several in one ``gm_posts`` mail per format (a cut line between two); one GM-only
    mail alone, or several in one ``gm_facts``. ``send(game, subject, body, now,
    token, paste=…)`` queues one (:meth:`pbp.app.mailer.Mailer._gm_send`)."""
    if len(gathered.posts) == 1:
        post = gathered.posts[0]
        for fmt in game.post_formats:
            send(game, post.subjects[fmt], post.texts[fmt], now, token, paste=True)
    elif gathered.posts:
        titles = [post.title for post in gathered.posts]
        for fmt in game.post_formats:
            context = {"titles": titles, "part": fmt}
            subject, cut = render(game, "gm_posts", context, token)
            # A cut line between two posts (not markup in any format, not pasted).
            text = f"\n{cut.strip()}\n\n".join(post.texts[fmt] for post in gathered.posts)
            send(game, subject, text, now, token, paste=True)
    if len(gathered.facts) == 1:
        _title, subject, body = gathered.facts[0]
        send(game, subject, body, now, token)
    elif gathered.facts:
        parts = [{"title": title, "body": body} for title, _subject, body in gathered.facts]
        subject, body = render(game, "gm_facts", {"parts": parts}, token)
        send(game, subject, body, now, token)
