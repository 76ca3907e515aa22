"""Golden texts of the GM's levers (issue 16): a second scripted game of each kind,
``<kind>_levers``, with the cast and cards of :mod:`kits.golden`, that plays what the
first games do not: the GM's commands by mail (each confirmed by a reply from his
registered address, or not: a reply without the word, a second reply) and by ``pbp``
(:meth:`~kits.golden.GoldenTable.cli`), the reminders before a deadline, mail held by a
pause or kept for the GM (unreadable, too large, forwarded, to another player's
address, from another address, without a personal address), a substitute, a removed
player, a voided move, and the story (``EXPORT`` by mail, ``pbp export``). Each has a
``title`` (named in every Subject and first line); the Maniac game mails its posts in
both formats and, like Cluedo by days (Markdown only), its GM mails per deadline.

Maniac: a vote and an order voided, a move entered by the GM, a pause with a vote held,
the GM's STATUS ALL and an extension while paused, a substitute, a player removed, the
story in Markdown. Cluedo by days: a suggestion voided, a move entered by ``pbp act``,
the GM's STATUS, a player removed (the GM answers for the seat, C5), a new personal
address, the story in BBCode.
Cluedo by rounds: the GM's help, a pause with an answer held, an extension while
paused, a substitute during the pause (the held answer is not applied), the removed
player's answers given by the GM, ``pbp export``.
"""

from __future__ import annotations

from email.message import EmailMessage
from email.policy import SMTP

from .golden import DAYS_ITEM, GAMES, MANIAC_ITEM, ROUNDS_ITEM, Game, GoldenTable
from .table import utc

#: The substitute of the lever games, and his address.
SUBSTITUTE, SUBSTITUTE_EMAIL = "Вова", "vova@example.test"


def _item(item: str, *keys: str) -> str:
    """A games.yaml item of :mod:`kits.golden` with more game keys (``"key: value"``),
    put before its ``players:``."""
    extra = "".join(f"    {key}\n" for key in keys)
    return item.replace("    players:\n", extra + "    players:\n", 1)


def _smime() -> tuple[str, bytes]:
    """An S/MIME-encrypted body: unreadable (``encrypted``)."""
    return (
        "Content-Type: application/pkcs7-mime; smime-type=enveloped-data; name=smime.p7m\r\n"
        "Content-Transfer-Encoding: base64\r\n",
        b"\r\nMIAGCSqGSIb3DQEHA6CAMIACAQAx\r\n",
    )


def _photo(text: str) -> tuple[str, bytes]:
    """A text and a 150 KB photo: larger than the lever games' 100 KB limit."""
    message = EmailMessage(policy=SMTP)
    message.set_content(text + "\n")
    message.add_attachment(b"\xff\xd8" + bytes(150_000), "image", "jpeg", filename="photo.jpg")
    message.set_boundary("golden-boundary")  # not random: the size a transcript states
    head, _, rest = bytes(message).partition(b"\r\n\r\n")
    return head.decode() + "\r\n", b"\r\n" + rest


# --- Maniac --------------------------------------------------------------------------------


def _maniac_levers(t: GoldenTable, locale: str) -> None:
    ru = locale == "ru"

    def w(ru_line: str, en_line: str) -> str:
        return ru_line if ru else en_line

    game = t.game.id
    t.names[SUBSTITUTE_EMAIL] = SUBSTITUTE
    t.names["maria.home@example.test"] = "Мария (another address)"
    t.at(utc(2026, 12, 1, 9))  # the start
    t.move("Лев", w("ГОЛОС за Павла", "VOTE Павел"), at=utc(2026, 12, 1, 9, 10))
    t.move("Кэт", w("ГОЛОС Петра", "VOTE Пётр"), at=utc(2026, 12, 1, 9, 20))
    # Кэт asks the GM to take her vote back: VOID by mail, confirmed.
    vote = t.seq("vote_cast", voter="Кэт")
    t.gm(
        w(f"ОТМЕНИТЬ {vote} -- Кэт ошиблась", f"VOID {vote} -- Кэт made a slip"),
        at=utc(2026, 12, 1, 9, 30),
    )
    t.confirm(at=utc(2026, 12, 1, 9, 35))
    t.move("Кэт", w("ГОЛОС Павла", "VOTE Павел"), at=utc(2026, 12, 1, 9, 40))
    # The maniac orders a kill for night 1; the GM voids it with pbp, the maniac orders anew.
    t.move("Павел", w("УБИТЬ Марию", "KILL Мария"), at=utc(2026, 12, 1, 10))
    order = t.seq("order_placed")
    note = w("маньяк просил", "the maniac asked")
    t.cli(
        f"pbp void {game} {order} --note '{note}'",
        lambda s, now: s.gm.void(game, order, now=now, via="cli", note=note),
        at=utc(2026, 12, 1, 10, 10),
    )
    t.sent_lines.append(note)
    t.move("Павел", w("УБИТЬ Льва", "KILL Лев"), at=utc(2026, 12, 1, 10, 20))
    # Mail kept for the GM: an encrypted one, and one from an address not registered.
    t.raw("Мария", *_smime(), at=utc(2026, 12, 1, 10, 30))
    t.move(
        "Мария",
        w("ГОЛОС Павла", "VOTE Павел"),
        at=utc(2026, 12, 1, 10, 40),
        sender="maria.home@example.test",
    )
    # Любовь's vote was lost: the GM enters it (ACT by mail).
    t.gm(w("ЗА Любовь: ГОЛОС Павла", "ACT Любовь: VOTE Павел"), at=utc(2026, 12, 1, 11))
    t.confirm(at=utc(2026, 12, 1, 11, 5))
    # A pause; a vote sent meanwhile is held; the deadline extended while paused; resume.
    t.gm(w("ПАУЗА -- уехал до обеда", "PAUSE -- away until lunch"), at=utc(2026, 12, 1, 11, 50))
    t.confirm(at=utc(2026, 12, 1, 12))
    t.move("Илья", w("ГОЛОС Павла", "VOTE Павел"), at=utc(2026, 12, 1, 12, 10))
    # Where the game stands, for the GM only: the pause, the held vote, the orders due.
    t.gm(w("СТАТУС ВСЕ", "STATUS ALL"), at=utc(2026, 12, 1, 12, 20))
    t.cli(
        f"pbp extend {game} --hours 0.5",
        lambda s, now: s.gm.extend(game, 0.5, now=now, via="cli", note=None),
        at=utc(2026, 12, 1, 12, 30),
    )
    t.gm(w("ПРОДОЛЖИТЬ", "RESUME"), at=utc(2026, 12, 1, 12, 55))
    t.confirm(at=utc(2026, 12, 1, 13))  # day 1 now closes at 20:30 UTC
    # Никита leaves; Вова takes his seat. Никита's old address no longer works.
    old = t.address("Никита")
    t.gm(
        w(
            f"ЗАМЕНА Никита НА {SUBSTITUTE} {SUBSTITUTE_EMAIL} -- Никита уехал",
            f"SUBSTITUTE Никита BY {SUBSTITUTE} {SUBSTITUTE_EMAIL} -- Никита is away",
        ),
        at=utc(2026, 12, 1, 14),
    )
    t.confirm(at=utc(2026, 12, 1, 14, 5))
    t.move("Никита", w("ГОЛОС Павла", "VOTE Павел"), at=utc(2026, 12, 1, 14, 30), to=old)
    t.move(
        "Никита", w("ГОЛОС Павла", "VOTE Павел"), at=utc(2026, 12, 1, 15), sender=SUBSTITUTE_EMAIL
    )
    t.move("Пётр", w("ГОЛОС Павла", "VOTE Павел"), at=utc(2026, 12, 1, 15, 10))
    t.move("Ника", w("ГОЛОС Павла", "VOTE Павел"), at=utc(2026, 12, 1, 15, 20))
    t.at(utc(2026, 12, 1, 17, 30))  # the reminder, three hours before the close
    t.at(utc(2026, 12, 1, 20, 30))  # Павел to the cell
    t.at(utc(2026, 12, 2, 6))  # the GM's digest (09:00 in Moscow)
    t.at(utc(2026, 12, 2, 7))  # the morning: the maniac was in the cell
    # Day 2: Мария is removed; prison for the maniac (M11); the town wins (M12).
    t.gm(w("ИСКЛЮЧИТЬ Марию -- пропала", "REMOVE Мария -- vanished"), at=utc(2026, 12, 2, 8))
    t.confirm(at=utc(2026, 12, 2, 8, 5))
    for n, voter in enumerate(("Лев", "Кэт", "Илья", "Пётр", "Любовь")):
        t.move(voter, w("ГОЛОС ТЮРЬМА Павла", "VOTE PRISON Павел"), at=utc(2026, 12, 2, 9, 10 * n))
    t.at(utc(2026, 12, 2, 19))
    # The story, by mail.
    t.gm(w("ЭКСПОРТ markdown", "EXPORT markdown"), at=utc(2026, 12, 2, 20))
    t.confirm(at=utc(2026, 12, 2, 20, 5))


# --- Cluedo by days ------------------------------------------------------------------------


def _cluedo_days_levers(t: GoldenTable, locale: str) -> None:
    ru = locale == "ru"

    def w(ru_line: str, en_line: str) -> str:
        return ru_line if ru else en_line

    game = t.game.id
    t.at(utc(2026, 12, 1, 17))  # the start; day 1 closes at 19:30 UTC
    t.move(
        "Неташка",
        w(
            "ПРЕДПОЛОЖЕНИЕ Белова, Пистолет, Спальня ДЛЯ Веталя",
            "SUGGEST Белова, Пистолет, Спальня TO Веталь",
        ),
        at=utc(2026, 12, 1, 17, 5),
    )
    # The GM voids it by mail (Неташка meant another room).
    made = t.seq("suggestion_made")
    t.gm(
        w(f"ОТМЕНИТЬ {made} -- не та комната", f"VOID {made} -- the wrong room"),
        at=utc(2026, 12, 1, 17, 10),
    )
    t.confirm(at=utc(2026, 12, 1, 17, 15))
    # Веталь forwards a mail instead of writing, then sends a photo too large to read.
    forwarded = w(
        "-------- Пересылаемое сообщение --------\n"
        "От: Неташка <player1@example.test>\n"
        "Дата: 01.12.2026, 20:05\n"
        "Тема: ход\n"
        "Кому: gm@example.test\n\n"
        "ПРЕДПОЛОЖЕНИЕ Белова, Пистолет, Спальня ДЛЯ Веталя",
        "---------- Forwarded message ---------\n"
        "From: Неташка <player1@example.test>\n"
        "Date: Tue, Dec 1, 2026 at 8:05 PM\n"
        "Subject: move\n"
        "To: gm@example.test\n\n"
        "SUGGEST Белова, Пистолет, Спальня TO Веталь",
    )
    t.move("Веталь", *forwarded.split("\n"), at=utc(2026, 12, 1, 17, 20))
    t.raw(
        "Веталь",
        *_photo(w("Вот фото моих записей", "Here is a photo of my notes")),
        at=utc(2026, 12, 1, 17, 25),
    )
    t.move(
        "Дуг",
        w(
            "ПРЕДПОЛОЖЕНИЕ Краснова, Нож, Терраса ДЛЯ Неташки",
            "SUGGEST Краснова, Нож, Терраса TO Неташка",
        ),
        at=utc(2026, 12, 1, 17, 30),
    )
    # Дуг writes to Неташка's personal address; the GM answers there for her by mistake.
    t.move("Дуг", w("СТАТУС", "STATUS"), at=utc(2026, 12, 1, 17, 35), to=t.address("Неташка"))
    t.gm(w("ОПРОВЕРЖЕНИЕ Нож", "REFUTE Нож"), at=utc(2026, 12, 1, 17, 40), to=t.address("Неташка"))
    # Неташка answered by phone: the GM enters it with pbp.
    move, note = w("ОПРОВЕРЖЕНИЕ Нож", "REFUTE Нож"), w("ответ по телефону", "answered by phone")
    t.cli(
        f"pbp act {game} Неташка '{move}' --note '{note}'",
        lambda s, now: s.gm.act(game, "Неташка", move, now=now, via="cli", note=note),
        at=utc(2026, 12, 1, 17, 45),
    )
    t.sent_lines.extend((move, note))
    t.move(
        "Веталь",
        w(
            "ПРЕДПОЛОЖЕНИЕ Зеленов, Верёвка, Библиотека ДЛЯ Дуга",
            "SUGGEST Зеленов, Верёвка, Библиотека TO Дуг",
        ),
        at=utc(2026, 12, 1, 17, 50),
    )
    # Where the game stands, for the GM only: Дуг's answer owed, the kept mail.
    t.gm(w("СТАТУС", "STATUS"), at=utc(2026, 12, 1, 18))
    t.at(utc(2026, 12, 1, 18, 30))  # the reminder: Дуг owes an answer
    t.at(utc(2026, 12, 1, 19, 30))  # day 1 closes: the GM answers for Дуг (D6)
    # Day 2: Веталь is removed (his seat stays, the GM answers for it: C5).
    t.gm(w("ИСКЛЮЧИТЬ Веталя -- заболел", "REMOVE Веталь -- ill"), at=utc(2026, 12, 2, 8))
    t.confirm(at=utc(2026, 12, 2, 8, 5))
    # Неташка's personal address leaked: a new one; mail to the old one is answered.
    old = t.address("Неташка")
    t.move("Неташка", w("НОВЫЙ АДРЕС", "NEW ADDRESS"), at=utc(2026, 12, 2, 8, 10))
    t.move("Неташка", w("СТАТУС", "STATUS"), at=utc(2026, 12, 2, 8, 20), to=old)
    t.move(
        "Дуг",
        w(
            "ПРЕДПОЛОЖЕНИЕ Белова, Молоток, Спальня ДЛЯ Веталя",
            "SUGGEST Белова, Молоток, Спальня TO Веталь",
        ),
        at=utc(2026, 12, 2, 8, 30),
    )
    t.move(
        "Неташка",
        w("ОБВИНЕНИЕ Краснова, Верёвка, Терраса", "ACCUSE Краснова, Верёвка, Терраса"),
        at=utc(2026, 12, 2, 9),
    )
    # The story, by mail, for a forum in BBCode.
    t.gm(w("ЭКСПОРТ bbcode", "EXPORT bbcode"), at=utc(2026, 12, 2, 9, 30))
    t.confirm(at=utc(2026, 12, 2, 9, 35))


# --- Cluedo by rounds ----------------------------------------------------------------------


def _cluedo_rounds_levers(t: GoldenTable, locale: str) -> None:
    ru = locale == "ru"

    def w(ru_line: str, en_line: str) -> str:
        return ru_line if ru else en_line

    game = t.game.id
    t.names[SUBSTITUTE_EMAIL] = SUBSTITUTE
    t.at(utc(2026, 12, 1, 17))  # the start: Шапо's turn
    t.gm(w("ПОМОЩЬ", "HELP"), at=utc(2026, 12, 1, 17, 10))  # answered at once
    t.move(
        "Шапо",
        w("ПРЕДПОЛОЖЕНИЕ Краснова, Пистолет, Спальня", "SUGGEST Краснова, Пистолет, Спальня"),
        at=utc(2026, 12, 1, 17, 20),
    )  # Саша is asked; she has 12 hours (R7)
    t.gm(w("ПАУЗА", "PAUSE"), at=utc(2026, 12, 1, 17, 30))
    t.confirm(at=utc(2026, 12, 1, 17, 40))
    t.move("Саша", w("ОПРОВЕРЖЕНИЕ Спальня", "REFUTE Спальня"), at=utc(2026, 12, 1, 18))  # held
    # An extension while paused: a reply without the word first, then the word.
    t.gm(w("ПРОДЛИТЬ 2 -- праздники", "EXTEND 2 -- the holidays"), at=utc(2026, 12, 1, 18, 30))
    t.confirm(at=utc(2026, 12, 1, 18, 35), word=w("Спасибо!", "Thanks!"))
    t.confirm(at=utc(2026, 12, 1, 18, 40), word=w("да", "yes"))
    # Саша leaves during the pause: her held answer is not applied; Вова takes the seat.
    t.gm(
        w(
            f"ЗАМЕНА Саша НА {SUBSTITUTE} {SUBSTITUTE_EMAIL}",
            f"SUBSTITUTE Саша BY {SUBSTITUTE} {SUBSTITUTE_EMAIL}",
        ),
        at=utc(2026, 12, 1, 19),
    )
    t.confirm(at=utc(2026, 12, 1, 19, 5))
    t.confirm(at=utc(2026, 12, 1, 19, 10))  # the same confirmation again: already done
    t.gm(w("ПРОДОЛЖИТЬ", "RESUME"), at=utc(2026, 12, 1, 19, 55))
    t.confirm(at=utc(2026, 12, 1, 20))  # the answer is now due at 09:40 UTC
    # Любовь writes to pbp's own address, without her personal address.
    t.move("Любовь", w("СТАТУС", "STATUS"), at=utc(2026, 12, 2, 6), to="gm@example.test")
    t.at(utc(2026, 12, 2, 7, 40))  # the reminder to the seat Саша, now Вова's
    t.move(
        "Саша",
        w("ОПРОВЕРЖЕНИЕ Пистолет", "REFUTE Пистолет"),
        at=utc(2026, 12, 2, 8),
        sender=SUBSTITUTE_EMAIL,
    )
    # The seat Саша's turn (Вова's): Любовь is asked, and removed before she answers.
    t.move(
        "Саша",
        w("ПРЕДПОЛОЖЕНИЕ Зеленов, Верёвка, Библиотека", "SUGGEST Зеленов, Верёвка, Библиотека"),
        at=utc(2026, 12, 2, 8, 30),
        sender=SUBSTITUTE_EMAIL,
    )
    t.cli(
        f"pbp remove {game} Любовь",
        lambda s, now: s.gm.remove(game, "Любовь", now=now, via="cli", note=None),
        at=utc(2026, 12, 2, 9),
    )
    t.at(utc(2026, 12, 3, 7))  # Шапо's reminder, two hours before his turn ends
    t.move(
        "Шапо",
        w("ОБВИНЕНИЕ Краснова, Верёвка, Терраса", "ACCUSE Краснова, Верёвка, Терраса"),
        at=utc(2026, 12, 3, 8),
    )
    t.export(f"pbp export {game}", at=utc(2026, 12, 3, 9))  # default: Markdown


LEVER_GAMES: dict[str, Game] = {
    "maniac_levers": Game(
        "maniac",
        GAMES["maniac"].players,
        _item(
            MANIAC_ITEM,
            "remind_hours_before: 3",
            "title: Маньяк 2",
            "post_format: both",
            "gm_mail: per_deadline",
        ),
        utc(2026, 12, 1, 9),
        _maniac_levers,
        GAMES["maniac"].genders,
    ),
    "cluedo_days_levers": Game(
        "cluedo_days",
        GAMES["cluedo_days"].players,
        _item(
            DAYS_ITEM,
            "remind_hours_before: 1",
            "title: Клуэдо по дням",
            "post_format: markdown",
            "gm_mail: per_deadline",
        ),
        utc(2026, 12, 1, 17),
        _cluedo_days_levers,
        GAMES["cluedo_days"].genders,
        mail="max_message_size: 100000\n",
    ),
    "cluedo_rounds_levers": Game(
        "cluedo_rounds",
        GAMES["cluedo_rounds"].players,
        _item(ROUNDS_ITEM, "remind_hours_before: 2", "title: Клуэдо за столом"),
        utc(2026, 12, 1, 17),
        _cluedo_rounds_levers,
        GAMES["cluedo_rounds"].genders,
    ),
}
