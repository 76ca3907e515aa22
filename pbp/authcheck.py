"""Is the From of a mail authenticated by the mailbox's own receiving server?

A personal address is a bearer secret that travels in every Reply-To, so it can leak
(a forward, a shared screen). Where ``games.yaml`` names the server that receives
pbp's mail (``mail.trusted_authserv_id``) and that server adds RFC 8601
``Authentication-Results``, the From can be checked:

- only fields whose authserv-id is the trusted one count (RFC 8601 §5: any other
  may have been written by the sender), and of those only the topmost run of adjacent
  fields (the server's own, above whatever the sender put lower down);
- ``dmarc=pass`` for the From's domain (``header.from``) authenticates it;
  ``dmarc=fail`` does not;
- with no DMARC verdict (no result, ``none``, ``temperror``, ``permerror``): a
  ``dkim=pass`` whose ``header.d`` (or ``header.i``'s domain) is aligned with the From
  domain, or an ``spf=pass`` whose ``smtp.mailfrom`` (or its domain) is aligned
  (RFC 7489 §3.1 relaxed alignment, taken as: the same domain, or one a
  subdomain of the other; pbp reads no public suffix list).

Pure: no I/O; :func:`verdict` never raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pbp.parse.auth import AuthResult, authserv_id, results_of

#: DMARC results that say nothing about the From (RFC 7489 §11.2; RFC 8601 §2.7).
_NO_VERDICT = frozenset({"none", "neutral", "temperror", "permerror", "policy"})


@dataclass(frozen=True)
class Verdict:
    """What the trusted server said of the From: ``authenticated`` (DMARC pass, or
    without a DMARC verdict an aligned DKIM or SPF pass), ``dmarc_pass`` (DMARC
    itself passed for the From's domain: what lets a GM lever skip the confirmation),
    and ``reason``, a short English text for ``pbp kept`` and the logs
    (``"dmarc=pass"``, ``"dmarc=fail"``, ``"dkim=pass header.d=example.test"``,
    ``"no dmarc, no aligned dkim or spf pass"``, ``"no Authentication-Results from
    mx.example.test"``)."""

    authenticated: bool
    dmarc_pass: bool
    reason: str


def trusted_results(
    runs: Sequence[Sequence[str]], trusted_authserv_id: str
) -> list[AuthResult] | None:
    """The results of the topmost run of adjacent ``Authentication-Results`` fields
    (:attr:`pbp.parse.mime.Letter.authentication_results`) that holds a field of
    ``trusted_authserv_id``, from its fields of that id only; None when no field has it."""
    trusted = trusted_authserv_id.lower()
    for run in runs:
        own = [value for value in run if authserv_id(value) == trusted]
        if own:
            return results_of(own, trusted)
    return None


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


def verdict(runs: Sequence[Sequence[str]], from_address: str, trusted_authserv_id: str) -> Verdict:
    """Whether ``from_address`` (the From's addr-spec) is authenticated by the server
    ``trusted_authserv_id``, from the letter's ``Authentication-Results`` ``runs``
    (see the module docstring for the rules).

    >>> verdict([["mx.example.test; dmarc=fail header.from=example.test"]],
    ...         "a@example.test", "mx.example.test")
    Verdict(authenticated=False, dmarc_pass=False, reason='dmarc=fail')
    """
    results = trusted_results(runs, trusted_authserv_id)
    if results is None:
        return Verdict(False, False, f"no Authentication-Results from {trusted_authserv_id}")
    from_domain = from_address.rpartition("@")[2].lower()
    # A DMARC result about another domain (header.from) says nothing of this From.
    dmarc = [
        r.result
        for r in results
        if r.method == "dmarc"
        and r.properties.get("header.from", from_domain).lower().rstrip(".") == from_domain
    ]
    if "fail" in dmarc:
        return Verdict(False, False, "dmarc=fail")
    if dmarc and all(result == "pass" for result in dmarc):
        return Verdict(True, True, "dmarc=pass")
    if "pass" in dmarc:
        # A pass beside another verdict of the same server (a field below it forged to
        # upgrade "none"): the pass does not count.
        return Verdict(False, False, f"dmarc results disagree: {', '.join(dmarc)}")
    other = [result for result in dmarc if result not in _NO_VERDICT]
    if other:  # an unknown result: not a pass
        return Verdict(False, False, f"dmarc={other[0]}")
    for r in results:
        if r.method == "dkim" and r.result == "pass":
            domain = r.properties.get("header.d") or r.properties.get("header.i", "")
            if domain and aligned(domain, from_domain):
                return Verdict(True, False, f"dkim=pass header.d={domain.rpartition('@')[2]}")
    for r in results:
        if r.method == "spf" and r.result == "pass":
            mailfrom = r.properties.get("smtp.mailfrom", "")
            if mailfrom and aligned(mailfrom, from_domain):
                return Verdict(True, False, f"spf=pass smtp.mailfrom={mailfrom}")
    return Verdict(False, False, "no dmarc, no aligned dkim or spf pass")
