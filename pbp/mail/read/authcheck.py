"""Is the From of a mail authenticated by the mailbox's own receiving server?

A personal address is a bearer secret that travels in every Reply-To, so it can leak
(a forward, a shared screen). Where ``games.yaml`` names the server that receives
pbp's mail (``mail.trusted_authserv_id``) and that server adds RFC 8601
``Authentication-Results``, the From can be checked (:class:`TrustedServer` says where
the server writes its fields):

- **Only the server's own fields count** (RFC 8601 §5, §7.1): trace fields are added
  on top of the header, so the server's fields are those with its authserv-id below
  exactly ``received_above`` ``Received`` fields (the ones its receiving side writes
  above them) and above the next one. A field with that id anywhere else is the
  sender's: one further down is a forgery, one higher up means the settings do not
  match the server; either way the mail is unauthenticated. More fields in the
  server's place than it writes (``fields``) means one of them is the sender's, put
  right below the server's own: unauthenticated too. Fields of other authserv-ids
  are never read.
- **A fail beside a pass is no pass**: ``dmarc=fail`` in any of the server's results
  fails the mail; results of one method that disagree for the From's domain
  (``dkim=pass`` and ``dkim=fail``, ``dmarc=pass`` and ``dmarc=none``) fail it too: the
  server says one thing per signature and identity, so the other was written by the
  sender. A result pbp does not know is no pass.
- ``dmarc=pass`` for the From's domain (``header.from``) authenticates it;
- with no DMARC verdict (no result, ``none``, ``temperror``, ``permerror``): a
  ``dkim=pass`` whose ``header.d`` (or ``header.i``'s domain) is aligned with the From
  domain, or an ``spf=pass`` whose ``smtp.mailfrom`` (or its domain) is aligned
  (RFC 7489 §3.1 relaxed alignment, taken as: the same domain, or one a
  subdomain of the other; pbp reads no public suffix list).

What this cannot see: a server that writes no field, or fewer than ``fields``, on
some mail leaves room in its place for the sender's forged one (README, "Forged and
unauthenticated mail").

Pure: no I/O; :func:`verdict` never raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pbp.mail.read.auth import AuthField, AuthResult, authserv_id, results_of

#: DMARC results that say nothing about the From (RFC 7489 §11.2; RFC 8601 §2.7).
_NO_VERDICT = frozenset({"none", "neutral", "temperror", "permerror", "policy"})

#: ``Received`` fields the receiving side writes above its ``Authentication-Results``
#: unless ``games.yaml`` says otherwise: Gmail, and Postfix with OpenDKIM, OpenDMARC or
#: rspamd as milters delivering by Dovecot LMTP, write two (README).
DEFAULT_RECEIVED_ABOVE = 2


#: Providers whose authserv-id names the front server that took the mail, so that it
#: changes from mail to mail (README, "Forged and unauthenticated mail"): by the end of
#: the name.
_CHANGING_IDS = {".mail.yandex.net": "Yandex", ".messagingengine.com": "Fastmail"}


def unusable(authserv_id: str) -> str | None:
    """Why ``authserv_id`` cannot be trusted whatever the settings, or None.

    >>> unusable("mxfront3q.mail.yandex.net")[:60]
    'Yandex writes the name of the server that took the mail (mxf'
    >>> unusable("mx.google.com") is None
    True
    """
    name = authserv_id.lower().rstrip(".")
    for end, provider in _CHANGING_IDS.items():
        if name.endswith(end):
            return (
                f"{provider} writes the name of the server that took the mail ({authserv_id}), "
                "which changes from mail to mail: no one name matches its fields, and pbp "
                "cannot tell them from a sender's; leave trusted_authserv_id unset"
            )
    return None


@dataclass(frozen=True)
class TrustedServer:
    """The receiving server whose ``Authentication-Results`` pbp trusts and where it
    writes them: ``authserv_id`` (RFC 8601 §2.5, ``mail.trusted_authserv_id``;
    compared case-insensitively); ``fields``: how many fields of that id it writes on
    each mail (``mail.trusted_authserv_fields``, 1–8); ``received_above``: how many
    ``Received`` fields its receiving side writes above them
    (``mail.trusted_received_above``, 0–8)."""

    authserv_id: str
    fields: int = 1
    received_above: int = DEFAULT_RECEIVED_ABOVE


@dataclass(frozen=True)
class Verdict:
    """What the trusted server said of the From: ``authenticated`` (DMARC pass, or
    without a DMARC verdict an aligned DKIM or SPF pass), ``dmarc_pass`` (DMARC
    itself passed for the From's domain: what lets a GM lever skip the confirmation),
    and ``reason``, a short English text for ``pbp kept`` and the logs
    (``"dmarc=pass"``, ``"dmarc=fail"``, ``"dkim=pass header.d=example.test"``,
    ``"dkim results disagree: fail, pass"``, ``"no dmarc, no aligned dkim or spf
    pass"``, ``"no Authentication-Results from mx.example.test"``,
    ``"Authentication-Results from mx.example.test below the receiving server's fields
    (forged)"``)."""

    authenticated: bool
    dmarc_pass: bool
    reason: str


def misplaced(fields: Sequence[AuthField], server: TrustedServer) -> str | None:
    """Why the fields with the server's authserv-id among ``fields``
    (:attr:`pbp.mail.read.mime.Letter.authentication_results`) cannot all be its own (see
    the module docstring), or None when they can (or there is none).

    >>> misplaced([AuthField("mx.example.test; dmarc=pass", 1)],
    ...           TrustedServer("mx.example.test", 1, 0))
    "Authentication-Results from mx.example.test below the receiving server's fields (forged)"
    """
    trusted = server.authserv_id.lower()
    own = [f for f in fields if authserv_id(f.value) == trusted]
    if any(f.received_above > server.received_above for f in own):
        return (
            f"Authentication-Results from {server.authserv_id} below the receiving "
            "server's fields (forged)"
        )
    if any(f.received_above < server.received_above for f in own):
        above = min(f.received_above for f in own)
        return (
            f"Authentication-Results from {server.authserv_id} below {above} Received "
            f"fields, not {server.received_above}: check mail.trusted_received_above"
        )
    if len(own) > server.fields:
        return (
            f"more Authentication-Results from {server.authserv_id} than the server writes "
            f"({len(own)}, not {server.fields}): one is forged"
        )
    return None


def trusted_results(fields: Sequence[AuthField], server: TrustedServer) -> list[AuthResult] | None:
    """The results of the fields with the server's authserv-id that stand in its place
    (below ``received_above`` ``Received`` fields, above the next), in order; None when
    there is none. Says nothing of fields elsewhere: :func:`misplaced` does."""
    trusted = server.authserv_id.lower()
    values = [
        f.value
        for f in fields
        if f.received_above == server.received_above and authserv_id(f.value) == trusted
    ]
    return results_of(values, trusted) if values else None


def aligned(domain: str, from_domain: str) -> bool:
    """Relaxed alignment as pbp checks it: the same domain, or one a subdomain of the
    other (case-insensitive; a final dot ignored).

    >>> aligned("mail.example.test", "example.test"), aligned("example.test", "evil.test")
    (True, False)
    """
    a = domain.strip().rstrip(".").lower().rpartition("@")[2]
    b = from_domain.strip().rstrip(".").lower()
    if not a or not b:
        return False
    return a == b or a.endswith("." + b) or b.endswith("." + a)


def _identity(result: AuthResult) -> str | None:
    """The domain a DKIM or SPF result speaks of (``header.d``, else ``header.i``'s
    domain; ``smtp.mailfrom``'s domain), ``""`` for an SPF result of the HELO identity
    only (not the one DMARC aligns), None when it names none."""
    p = result.properties
    if result.method == "dkim":
        domain = p.get("header.d") or p.get("header.i")
    else:
        domain = p.get("smtp.mailfrom")
        if domain is None and "smtp.helo" in p:
            return ""
    return None if domain is None else domain.rpartition("@")[2]


def _concerns(result: AuthResult, from_domain: str) -> bool:
    """Whether a DKIM or SPF ``result`` may speak of ``from_domain``: its identity is
    aligned with it, or unknown."""
    identity = _identity(result)
    return identity is None or (identity != "" and aligned(identity, from_domain))


def verdict(fields: Sequence[AuthField], from_address: str, server: TrustedServer) -> Verdict:
    """Whether ``from_address`` (the From's addr-spec) is authenticated by ``server``,
    from the letter's ``Authentication-Results`` ``fields`` (see the module docstring
    for the rules).

    >>> verdict([AuthField("mx.example.test; dmarc=fail header.from=example.test", 0)],
    ...         "a@example.test", TrustedServer("mx.example.test", 1, 0))
    Verdict(authenticated=False, dmarc_pass=False, reason='dmarc=fail')
    """
    problem = misplaced(fields, server)
    if problem is not None:
        return Verdict(False, False, problem)
    results = trusted_results(fields, server)
    if results is None:
        return Verdict(False, False, f"no Authentication-Results from {server.authserv_id}")
    return _judge(results, from_address.rpartition("@")[2].lower())


def _judge(results: Sequence[AuthResult], from_domain: str) -> Verdict:
    """The verdict of the server's own ``results`` on a From of ``from_domain``."""
    if any(r.method == "dmarc" and r.result == "fail" for r in results):
        return Verdict(False, False, "dmarc=fail")
    # A DMARC result about another domain (header.from) says nothing of this From.
    dmarc = [
        r.result
        for r in results
        if r.method == "dmarc"
        and r.properties.get("header.from", from_domain).lower().rstrip(".") == from_domain
    ]
    if "pass" in dmarc and any(result != "pass" for result in dmarc):
        # A pass beside another verdict of the same server (a field forged to upgrade
        # "none"): the pass does not count.
        return Verdict(False, False, f"dmarc results disagree: {', '.join(dmarc)}")
    other = [result for result in dmarc if result != "pass" and result not in _NO_VERDICT]
    if other:  # an unknown result: not a pass
        return Verdict(False, False, f"dmarc={other[0]}")
    for method in ("dkim", "spf"):
        said = [r.result for r in results if r.method == method and _concerns(r, from_domain)]
        if "pass" in said and any(result != "pass" for result in said):
            return Verdict(False, False, f"{method} results disagree: {', '.join(said)}")
    if "pass" in dmarc:  # and so every one a pass (above)
        return Verdict(True, True, "dmarc=pass")
    for r in results:
        domain = _identity(r)
        if r.method == "dkim" and r.result == "pass" and domain and aligned(domain, from_domain):
            return Verdict(True, False, f"dkim=pass header.d={domain}")
    for r in results:
        mailfrom = r.properties.get("smtp.mailfrom", "")
        if r.method == "spf" and r.result == "pass" and mailfrom and aligned(mailfrom, from_domain):
            return Verdict(True, False, f"spf=pass smtp.mailfrom={mailfrom}")
    return Verdict(False, False, "no dmarc, no aligned dkim or spf pass")
