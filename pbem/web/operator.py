"""Who may read the operator's pages (`/healthz`, `/metrics`): the operator only.

Their counts are not the public's to know: `pbem_moves_total` counts the secret choices
of a game (a 6 nimmt! card chosen, a Gem Forge reaction window answered or passed), and
the outbox backlog rises when a window asks a player, so a stranger polling either could
tell when a hidden decision was asked for and made. Rather than count only what the
public may know (which every new count would have to think of again), both pages answer
only the operator:

- a request from loopback (127.0.0.1, ::1) that no proxy forwarded: a monitor on the
  machine, or the nginx example's `location = /healthz` block, which forwards no
  X-Forwarded-For. A request that nginx's `location /` forwarded from the world comes
  from loopback too, but names its client in X-Forwarded-For, and is refused;
- or, from anywhere, a request carrying `Authorization: Bearer PBEM_MONITOR_TOKEN` (a
  load balancer or Prometheus on another machine), compared in constant time.

Anyone else gets 404, as for a page that is not there.
"""

from __future__ import annotations

import hmac
import ipaddress

from flask import Request, abort, current_app, request


def is_operator(req: Request, token: str) -> bool:
    """Whether `req` comes from the operator (see the module's docstring)."""
    given = req.headers.get("Authorization", "")
    if token and given.startswith("Bearer ") and hmac.compare_digest(
            given[len("Bearer "):].strip().encode(), token.encode()):
        return True
    return _loopback(req.remote_addr) and all(
        _loopback(hop.strip()) for hop in req.headers.get("X-Forwarded-For", "").split(",")
        if hop.strip())


def _loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:  # not an address at all: a forwarded "unknown", say
        return False


def operator_only() -> None:
    """A blueprint's `before_request`: 404 unless the operator asks."""
    if not is_operator(request, current_app.config["PBEM"].monitor_token):
        abort(404)
