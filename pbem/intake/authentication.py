"""Sender authentication by the operator's MTA: its DMARC verdict, read from the
`Authentication-Results` header it adds (RFC 8601), parsed with the `authres` library.

Off unless `PBEM_AUTHSERV_ID` names the MTA's authserv-id: the embedded listener takes
mail straight from senders, with no MTA to ask. When on, only the topmost header of that
authserv-id counts. The MTA prepends its header above everything the sender wrote, so a
header forged further down, or one naming another server, is never read.

    dmarc=pass   for the From's domain: go on (the token and address checks follow)
    dmarc=fail   refuse: the From is probably forged (any failing clause refuses)
    no header of our authserv-id, or one that cannot be read: refuse, the mail did not
                 come through the MTA (or we cannot tell what it found)
    anything else (none: the domain publishes no DMARC policy; temperror, permerror;
                 no dmarc clause at all): go on, the token and address checks remain

A refused mail is never answered: a reply would go to the forged address (backscatter).
The pipeline records the refusal as the mail's outcome, counts it by reason
(pbem.intake.refusals), and tells the player whose address or reply token the mail used,
at their registered address and at most once a day (pbem.policy.notices).

This trusts the topmost header only because the MTA put it there: with the check on,
pbem's listener must be reachable by the MTA alone (LMTP or SMTP on loopback).
"""

from __future__ import annotations

import re
from email.message import Message

import authres

FOLD = re.compile(r"\r?\n(?=[ \t])")


def dmarc_refusal(message: Message, authserv_id: str, sender: str) -> tuple[str, str] | None:
    """Why the mail must stop here: (the reason's word in pbem.intake.refusals.REASONS, the
    outcome in words); None when it may go on."""
    header = our_header(message, authserv_id)
    if header is None:
        return ("no-verdict",
                f"ignored: no Authentication-Results from {authserv_id} (not through the MTA)")
    if isinstance(header, str):
        return ("unreadable-verdict",
                f"ignored: Authentication-Results from {authserv_id} unreadable ({header})")
    verdicts = [(str(r.result or "").lower(), _header_from(r))
                for r in header.results if str(r.method).lower() == "dmarc"]
    failed = [domain for result, domain in verdicts if result == "fail"]
    if failed:
        return ("dmarc-fail",
                f"ignored: DMARC fail for {failed[0] or 'the From domain'} at {authserv_id}")
    domain = sender.rpartition("@")[2]
    passed = [d for result, d in verdicts if result == "pass"]
    if passed and not any(d in ("", domain) for d in passed):
        return ("dmarc-other-domain",
                f"ignored: DMARC pass for {passed[0]}, not for the From domain {domain}")
    return None


def our_header(message: Message, authserv_id: str):
    """The topmost Authentication-Results of `authserv_id`: parsed, or (as a str) why it
    cannot be; None when there is none."""
    wanted = authserv_id.lower()
    for name, value in message.raw_items():
        if name.lower() != "authentication-results":
            continue
        value = FOLD.sub("", str(value)).strip()
        try:
            parsed = authres.AuthenticationResultsHeader.parse_value(value)
        except Exception as error:  # noqa: BLE001 - strangers' bytes: AuthResError or worse
            if _first_word(value) == wanted:  # ours, but garbled: decide nothing on it
                return str(error)[:200]
            continue  # someone else's, garbled: not our business
        if str(parsed.authserv_id).lower() == wanted:
            return parsed
    return None


def _first_word(value: str) -> str:
    return value.split(";", 1)[0].strip().split(" ", 1)[0].lower()


def _header_from(result) -> str:
    """The domain the DMARC clause is about (its header.from property), lower-case."""
    for prop in result.properties or ():
        if str(prop.type).lower() == "header" and str(prop.name).lower() == "from":
            return str(prop.value).strip().lower().rpartition("@")[2]
    return ""


def authentication_failure(message, authserv_id: str) -> str | None:
    """With PBEM_AUTHSERV_ID set: 'DMARC fail' or 'SPF fail' when our MTA found so (a
    confirmation request would go to someone who never wrote); None otherwise."""
    if not authserv_id:
        return None
    header = our_header(message, authserv_id)
    if header is None or isinstance(header, str):
        return None  # the DMARC step decides about mail that did not come through the MTA
    for result in header.results:
        method, verdict = str(result.method).lower(), str(result.result or "").lower()
        if method in ("dmarc", "spf") and verdict == "fail":
            return f"{method.upper()} fail"
    return None


def dmarc_pass(message: Message, authserv_id: str, sender: str) -> bool:
    """Whether our MTA found an aligned DMARC pass for the From's own domain: then the
    From is proof of the player (pbem.authority.DMARC_PASS). Off without
    PBEM_AUTHSERV_ID: the embedded listener has no MTA to ask, and `dmarc=none` (a domain
    that publishes no policy) proves nothing."""
    if not authserv_id or not sender:
        return False
    header = our_header(message, authserv_id)
    if header is None or isinstance(header, str):
        return False
    domain = sender.rpartition("@")[2].lower()
    verdicts = [(str(r.result or "").lower(), _header_from(r))
                for r in header.results if str(r.method).lower() == "dmarc"]
    return (any(result == "pass" and found == domain for result, found in verdicts)
            and not any(result == "fail" for result, _ in verdicts))
