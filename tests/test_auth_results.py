"""Reading ``Authentication-Results`` (RFC 8601, :mod:`pbp.mail.read.auth`), judging a From
by them (:mod:`pbp.mail.read.authcheck`), and a From that names no single sender
(:attr:`pbp.mail.read.mime.Letter.from_problem`)."""

from __future__ import annotations

import time

import pytest

from pbp.mail.read.auth import AuthField, AuthResult, authserv_id, results_of
from pbp.mail.read.authcheck import TrustedServer, Verdict, aligned, trusted_results, verdict
from pbp.mail.read.mime import read_letter

MX = "mx.example.test"
FROM = "cross@example.test"
#: The server of these tests: one field, written above every Received field.
SERVER = TrustedServer(MX, 1, 0)


def on_top(*values: str) -> list[AuthField]:
    """``values`` as fields on top of a header, above every ``Received`` field."""
    return [AuthField(value, 0) for value in values]


#: Shapes of real receiving servers (Gmail, Microsoft 365, Postfix with OpenDKIM/OpenDMARC).
GMAIL = (
    f"{MX}; dkim=pass header.i=@example.test header.s=20230601 header.b=AbCdEf12; "
    "spf=pass (mx.example.test: domain of cross@example.test designates 192.0.2.1 as "
    "permitted sender) smtp.mailfrom=cross@example.test; dmarc=pass (p=NONE sp=NONE "
    "dis=NONE) header.from=example.test"
)
MICROSOFT = (
    f"{MX}; spf=pass (sender IP is 192.0.2.1) smtp.mailfrom=example.test; dkim=none "
    "(message not signed) header.d=none;dmarc=fail action=none header.from=example.test;"
    "compauth=fail reason=001"
)


def test_results_of_reads_method_result_and_properties_of_the_trusted_field_only() -> None:
    values = [GMAIL, "mx.other.test; dmarc=fail header.from=example.test"]
    assert results_of(values, "MX.Example.Test") == [
        AuthResult(
            "dkim",
            "pass",
            {"header.i": "@example.test", "header.s": "20230601", "header.b": "AbCdEf12"},
        ),
        AuthResult("spf", "pass", {"smtp.mailfrom": "cross@example.test"}),
        AuthResult("dmarc", "pass", {"header.from": "example.test"}),
    ]


def test_a_microsoft_field_with_unknown_methods_and_properties_is_read() -> None:
    assert [(r.method, r.result) for r in results_of([MICROSOFT], MX)] == [
        ("spf", "pass"),
        ("dkim", "none"),
        ("dmarc", "fail"),
        ("compauth", "fail"),
    ]


@pytest.mark.parametrize(
    "value",
    [
        f"{MX}; dmarc=",  # no result
        f"{MX} (" + "(" * 3000 + ")" * 3001 + "; dmarc=pass",  # deep comments
        f"{MX}; dmarc=pass header.from=example.test (" + "x" * 5000 + ")",  # too long
        "",
    ],
)
def test_a_field_that_does_not_parse_is_skipped_quickly(value: str) -> None:
    start = time.process_time()
    assert results_of([value], MX) == []
    assert time.process_time() - start < 0.5


def test_authserv_id_is_the_first_word_after_comments() -> None:
    assert authserv_id(" (from the edge) mx.example.test 1; none") == MX
    assert authserv_id("; dmarc=pass") is None


def test_only_the_trusted_fields_in_the_servers_place_count() -> None:
    fields = [
        AuthField("mx.other.test; dmarc=pass", 1),
        AuthField(f"{MX}; spf=pass smtp.mailfrom=example.test", 1),
        AuthField(f"{MX}; dmarc=pass header.from=example.test", 2),
    ]
    assert trusted_results(fields, TrustedServer(MX, 1, 1)) == [
        AuthResult("spf", "pass", {"smtp.mailfrom": "example.test"})
    ]
    assert trusted_results([AuthField("mx.other.test; dmarc=pass", 0)], SERVER) is None


@pytest.mark.parametrize(
    ("field", "expected"),
    [
        (GMAIL, Verdict(True, True, "dmarc=pass")),
        (MICROSOFT, Verdict(False, False, "dmarc=fail")),
        (
            f"{MX}; dmarc=pass header.from=evil.test",
            Verdict(False, False, "no dmarc, no aligned dkim or spf pass"),
        ),
        (
            f"{MX}; dmarc=none header.from=example.test; dkim=pass header.d=mail.example.test",
            Verdict(True, False, "dkim=pass header.d=mail.example.test"),
        ),
        (
            f"{MX}; dkim=pass header.i=@example.test",
            Verdict(True, False, "dkim=pass header.d=example.test"),
        ),
        (
            f"{MX}; dkim=pass header.d=evil.test; spf=pass smtp.mailfrom=bounce@example.test",
            Verdict(True, False, "spf=pass smtp.mailfrom=bounce@example.test"),
        ),
        (
            f"{MX}; dkim=fail header.d=example.test; spf=softfail smtp.mailfrom=example.test",
            Verdict(False, False, "no dmarc, no aligned dkim or spf pass"),
        ),
        (
            f"{MX}; dmarc=bestguesspass header.from=example.test",
            Verdict(False, False, "dmarc=bestguesspass"),
        ),
        (f"{MX}; none", Verdict(False, False, "no dmarc, no aligned dkim or spf pass")),
    ],
)
def test_verdict(field: str, expected: Verdict) -> None:
    assert verdict(on_top(field), FROM, SERVER) == expected


def test_verdict_without_a_field_of_the_trusted_server() -> None:
    expected = Verdict(False, False, f"no Authentication-Results from {MX}")
    assert verdict([], FROM, SERVER) == expected
    assert verdict(on_top("mx.other.test; dmarc=pass header.from=example.test"), FROM, SERVER) == (
        expected
    )


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("example.test", "example.test", True),
        ("Mail.Example.Test.", "example.test", True),
        ("example.test", "news.example.test", True),
        ("badexample.test", "example.test", False),
        ("evil.test", "example.test", False),
        ("", "example.test", False),
    ],
)
def test_relaxed_alignment(a: str, b: str, expected: bool) -> None:
    assert aligned(a, b) is expected


def letter_from(*froms: str) -> tuple[str | None, str | None]:
    head = "".join(f"From: {f}\r\n" for f in froms)
    letter = read_letter(f"{head}To: gm@example.test\r\n\r\nSTATUS\r\n".encode())
    return letter.from_address, letter.from_problem


@pytest.mark.parametrize(
    ("froms", "expected"),
    [
        (["Кросс <cross@example.test>"], ("cross@example.test", None)),
        (['"Doe, J" <cross@example.test>'], ("cross@example.test", None)),
        (['"Re: me" <cross@example.test>'], ("cross@example.test", None)),
        (["cross@example.test (at home: Moscow)"], ("cross@example.test", None)),
        (["cross@example.test, evil@evil.test"], ("cross@example.test", "several addresses")),
        (
            ["Кросс <cross@example.test>, <evil@evil.test>"],
            ("cross@example.test", "several addresses"),
        ),
        (["<@evil.test:cross@example.test>"], ("cross@example.test", "source route")),
        (
            ["X < @evil.test , @b.test : cross@example.test >"],
            ("cross@example.test", "source route"),
        ),
        (["@evil.test:cross@example.test"], ("cross@example.test", "source route")),
        (["Players: cross@example.test;"], ("cross@example.test", "group")),
        (["cross@example.test", "evil@evil.test"], ("cross@example.test", "several From fields")),
    ],
)
def test_a_from_that_names_no_single_sender(
    froms: list[str], expected: tuple[str, str | None]
) -> None:
    assert letter_from(*froms) == expected


def test_authentication_results_are_read_with_the_received_fields_above_each() -> None:
    raw = (
        b"Authentication-Results: mx.example.test; dmarc=pass\r\n"
        b"Received: from mx.example.test by mx.example.test with LMTP\r\n"
        b"Authentication-Results: mx.example.test;\r\n spf=pass smtp.mailfrom=example.test\r\n"
        b"X-Received: by 2002:a05:6000 with SMTP\r\n"
        b"RECEIVED: from a.test by mx.example.test\r\n"
        b"Authentication-Results: mx.example.test; dmarc=fail\r\n"
        b"From: cross@example.test\r\nTo: gm@example.test\r\n\r\nSTATUS\r\n"
    )
    assert read_letter(raw).authentication_results == (
        AuthField("mx.example.test; dmarc=pass", 0),
        AuthField("mx.example.test; spf=pass smtp.mailfrom=example.test", 1),
        AuthField("mx.example.test; dmarc=fail", 2),
    )


def test_a_dmarc_pass_beside_another_verdict_of_the_same_server_does_not_count() -> None:
    """A forged field right below the server's own, with no trace field between, must
    not upgrade the server's dmarc=none to a pass (a GM lever applied unconfirmed):
    where the server writes two fields (OpenDKIM and OpenDMARC), the count lets it in,
    and the disagreement stops it."""
    fields = on_top(
        f"{MX}; dmarc=none header.from=example.test",
        f"{MX}; dmarc=pass header.from=example.test",
    )
    assert verdict(fields, FROM, TrustedServer(MX, 2, 0)) == Verdict(
        False, False, "dmarc results disagree: none, pass"
    )
    split = on_top(
        f"{MX}; spf=pass smtp.mailfrom=example.test", f"{MX}; dmarc=pass header.from=example.test"
    )
    assert verdict(split, FROM, TrustedServer(MX, 2, 0)) == Verdict(True, True, "dmarc=pass")
