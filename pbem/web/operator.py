"""Who may read the operator's pages (`/healthz`, `/metrics`): the operator only.

Their counts are not the public's to know: `pbem_moves_total` counts the secret choices
of a game (a 6 nimmt! card chosen, a Gem Forge reaction window answered or passed), and
the outbox backlog rises when a window asks a player, so a stranger polling either could
tell when a hidden decision was asked for and made. Rather than count only what the
public may know (which every new count would have to think of again), both pages answer
only a request that proves itself the operator's: the monitor token, or a loopback the
proxy confirms (pbem.web.operator_proof says which it has, pbem.authority what it
may do; nothing here decides).

Anyone else gets 404, as for a page that is not there.
"""

from __future__ import annotations

from flask import abort, request

from pbem.authority import FROM_ALONE, OPERATOR, OPERATOR_TOKEN, Proof, may
from pbem.web.operator_proof import operator_proof


def operator_only() -> None:
    """A blueprint's `before_request`: 404 unless the request's proof may read the
    operator's pages, as the one table says (pbem.authority)."""
    proof = Proof(OPERATOR_TOKEN if operator_proof(request) else FROM_ALONE)
    if not may(proof, OPERATOR):
        abort(404)
