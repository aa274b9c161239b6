"""What became of a mail in, as the operator's counters see it (`/metrics`).

Every mail's outcome is a sentence stored with it ('done: 2 line(s)', 'ignored: robot
(…)', 'held: waiting for …'); its first word is its kind, and an ignored or refused
mail's sentence names why. `count_outcome` counts each outcome a mail reaches, as it is
written (pbem.store.counters), so the counters only rise: a mail held for a confirmation
counts as `held` once, and once more as what became of it when its sender confirmed
(`done`) or never did (`expired`).
"""

from __future__ import annotations

from pbem.store.counters import count

#: Refusal reasons: a phrase of the stored outcome -> the label. The first that matches.
REASONS = (
    ("banned", "banned"),
    ("robot", "robot"),
    ("mails from this sender", "rate_limit"),
    ("DMARC fail", "dmarc_fail"),
    ("DMARC pass for", "dmarc_not_aligned"),
    ("no Authentication-Results", "no_authentication_results"),
    ("Authentication-Results from", "authentication_unreadable"),
    ("bytes, over the limit", "too_large"),
    ("reply token not valid", "bad_token"),
    ("not addressed to pbem", "not_for_pbem"),
    ("no From address", "no_from"),
    ("not the seat's player", "wrong_sender"),
    ("confirmation not for this sender", "bad_confirmation"),
    ("confirmation is already waiting", "confirmation_waiting"),
)


def outcome_kind(outcome: str) -> str:
    """'done: 2 line(s)' -> 'done'; 'ignored: robot (…)' -> 'ignored'."""
    return outcome.split(":", 1)[0].strip().lower() or "unknown"


def refusal_reason(outcome: str) -> str | None:
    """The label of an ignored or refused mail's reason; None for any other outcome."""
    if outcome_kind(outcome) not in ("ignored", "refused"):
        return None
    return next((label for phrase, label in REASONS if phrase in outcome), "other")


def count_outcome(outcome: str) -> None:
    """A mail reached `outcome` (in the transaction that writes it)."""
    count("mails_in", outcome_kind(outcome))
    reason = refusal_reason(outcome)
    if reason is not None:
        count("refusals", reason)
