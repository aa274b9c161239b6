"""What became of a mail in, as the operator's counters see it (`/metrics`).

Every mail's outcome is a sentence stored with it ('done: 2 line(s)', 'ignored: robot
(…)', 'held: waiting for …'); its first word is its kind, and an ignored or refused
mail's sentence names why. `count_outcome` counts each outcome a mail reaches, as it is
written (pbem.store.counters), so the counters only rise: a mail held for a confirmation
counts as `held` once, and once more as what became of it when its sender confirmed
(`done`) or never did (`expired`).

Mid-upgrade, processes of an older pbem still play moves and take mail without counting
them (migration 0040): those rows are `counted = FALSE`. `uncounted` adds them to what
`/metrics` shows, and `count_uncounted` (the hourly roll-up) counts them for good, so
no counter falls when the old processes are replaced. (A mail an old process held and
this one carried out after its sender confirmed counts `done` twice and `held` never:
the counters may rise by one too many, never fall.)
"""

from __future__ import annotations

from pbem.store import Game, Inbound, Move, transaction
from pbem.store.counters import count
from pbem.store.database import is_postgres

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


def uncounted() -> dict[str, dict[str, int]]:
    """The events in rows an older pbem wrote and nobody counted yet, by counter and
    label: {'moves': {'onyx': 3}, 'mails_in': {'done': 2}, 'refusals': {…}}."""
    found: dict[str, dict[str, int]] = {"moves": {}, "mails_in": {}, "refusals": {}}
    for _, _, name, label in _uncounted_rows():
        found[name][label] = found[name].get(label, 0) + 1
    return found


def _uncounted_rows(lock: bool = False) -> list[tuple[str, str, str]]:
    """(table, counter, label) for each event of an uncounted row; a mail still being
    handled (`received`) waits for its outcome."""
    moves = (Move.select(Move.id, Game.engine).join(Game).where(~Move.counted & (Move.seat >= 0)))
    mails = Inbound.select(Inbound.id, Inbound.outcome).where(
        ~Inbound.counted & (Inbound.outcome != "received"))
    if lock and is_postgres():  # two roll-ups at once: each row counted by one of them
        moves, mails = moves.for_update(of=Move, skip_locked=True), mails.for_update(
            skip_locked=True)
    rows = [("move", row_id, "moves", engine) for row_id, engine in moves.tuples()]
    for row_id, outcome in mails.tuples():
        rows.append(("inbound", row_id, "mails_in", outcome_kind(outcome)))
        reason = refusal_reason(outcome)
        if reason is not None:
            rows.append(("inbound", row_id, "refusals", reason))
    return rows


def count_uncounted() -> int:
    """Count for good the events in rows an older pbem wrote, and mark the rows (in one
    transaction, so `/metrics` never shows one twice); how many rows."""
    with transaction():
        rows = _uncounted_rows(lock=True)
        for _, _, name, label in rows:
            count(name, label)
        moves = {row_id for table, row_id, _, _ in rows if table == "move"}
        mails = {row_id for table, row_id, _, _ in rows if table == "inbound"}
        if moves:
            Move.update(counted=True).where(Move.id.in_(sorted(moves))).execute()
        if mails:
            Inbound.update(counted=True).where(Inbound.id.in_(sorted(mails))).execute()
        # A dealer's move (seat -1) is not a player's: marked, never counted
        Move.update(counted=True).where(~Move.counted & (Move.seat < 0)).execute()
    return len(moves) + len(mails)
