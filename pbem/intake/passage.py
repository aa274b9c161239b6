"""One mail's passage through the pipeline (pbem.intake.pipeline): what the steps read
and leave for one another (`Intake`), the request its reply token names, and the outcome
written with the raw bytes."""

from __future__ import annotations

from dataclasses import dataclass, field

from pbem import authority
from pbem.authority import Proof
from pbem.config import Config
from pbem.intake.inbound import InboundMail
from pbem.intake.outcomes import count_outcome
from pbem.intake.retention import kept_until
from pbem.store import Inbound, Player, Request, Seat
from pbem.store.prepared import Prepared
from pbem.vocabulary.tokens import Route

_SET_OUTCOME = Prepared(lambda outcome, until, proven, id: Inbound.update(
    outcome=outcome, kept_until=until, proven=proven).where(Inbound.id == id))


@dataclass
class Intake:
    """One mail on its way through the steps."""
    config: Config
    mail: InboundMail
    row: Inbound | None = None
    route: Route | None = None
    proof: Proof = Proof(authority.FROM_ALONE)  # what the mail proves (prove)
    seat: Seat | None = None  # the seat its reply token names, with its player
    # ... and all its game's seats, when they were read under the store's write lock
    # (SQLite), for run_commands' table: not read again (pbem.play.Table.load)
    seats: list[Seat] | None = None
    request: Request | None = None  # the request its reply token names
    player: Player | None = None
    text: str = ""  # what the player wrote (extract), without quotes and signature
    lines: list[str] = field(default_factory=list)
    confirmed: tuple[str, ...] = ()  # lines held for a confirmation that this mail gave
    dmarc: tuple | None = None  # our MTA's refusal, once read (() for none): _dmarc
    cleared: set[str] = field(default_factory=set)  # addresses found not banned (ignore_robots)
    bounce_kept: bool | None = None  # a bounce row of the sender's (ignore_robots); None: not asked
    outcome: str = ""

    def stop(self, outcome: str) -> bool:
        self.outcome = outcome
        return True


def set_outcome(config: Config, row: Inbound, outcome: str, proven: bool = False) -> None:
    """Write a mail's outcome (and whether it proved to be its player's), and count it:
    each outcome a mail reaches is an event."""
    _SET_OUTCOME.execute(outcome, kept_until(config, row.received, outcome), proven, row.id)
    count_outcome(outcome)


def named_request(found: Route) -> Request | None:
    """The request a reply token names: by its random key, or (mailed before keys) by
    its id, only while it has no key (an id another request took is not it)."""
    if found.request_key:
        return Request.get_or_none(Request.key == found.request_key)
    return Request.get_or_none((Request.id == found.request) & Request.key.is_null())
