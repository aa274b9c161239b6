"""What proves a web request to be the operator's: `operator_proof(request) -> bool`.

The operator's pages (`/healthz`, `/metrics`: pbem.web.operator) ask this and nothing
else; it is the "operator token" row of the proof table (DESIGN, "Proof and authority").
An address alone proves nothing, and neither does a header a client can write itself.
A request is the operator's when it carries one of two proofs:

- the token: `Authorization: Bearer <PBEM_MONITOR_TOKEN>`, compared in constant time
  (Prometheus or a load balancer on another machine); no token set, no bearer opens;
- a loopback the proxy confirms: it arrives on a loopback socket (127.0.0.0/8, ::1) and
  either carries no sign of having been forwarded at all (no X-Forwarded-For, X-Real-IP
  or Forwarded: a monitor on the machine asking the app directly), or was forwarded by
  the shipped nginx configuration from loopback. That configuration (deploy/nginx)
  sets X-Real-IP to the address nginx saw, replacing any a client sent, and appends
  that address to X-Forwarded-For, so a forwarded request is the operator's only when
  X-Real-IP is there and every address either header names is loopback. A Forwarded
  header, which that configuration never sets, cannot be confirmed, so it refuses.

Every proxy in front of pbem on the machine turns a world's request into one from
loopback: it must say whom it forwards (X-Real-IP, X-Forwarded-For), or every request
it forwards is the operator's. The servers must hand those headers on: gunicorn does;
waitress drops them unless told to keep them (`pbem serve` tells it: pbem.server).
"""

from __future__ import annotations

import hmac

from flask import Request, current_app

from pbem.config import is_loopback_address

# The headers by which a proxy says it forwarded a request, as WSGI names them.
FORWARDED_FOR = "HTTP_X_FORWARDED_FOR"
REAL_IP = "HTTP_X_REAL_IP"
FORWARDED = "HTTP_FORWARDED"


def operator_proof(req: Request) -> bool:
    """Whether `req` proves itself the operator's: the token, or a loopback that is not
    forwarded or that the proxy's own header confirms (see the module's docstring)."""
    return (_right_token(req, current_app.config["PBEM"].monitor_token)
            or confirmed_loopback(req.environ))


def _right_token(req: Request, token: str) -> bool:
    given = req.authorization  # werkzeug's parse: the scheme in any case, the token trimmed
    return bool(token and given is not None and given.type == "bearer" and given.token
                and hmac.compare_digest(given.token.encode(), token.encode()))


def confirmed_loopback(environ: dict) -> bool:
    """Whether a request came from loopback, not forwarded or forwarded from loopback as
    the shipped nginx says it (the local mailbox asks this too: pbem.web.mailbox)."""
    if not is_loopback_address(environ.get("REMOTE_ADDR")):
        return False
    signs = [environ.get(name) for name in (FORWARDED_FOR, REAL_IP, FORWARDED)]
    if not any(sign is not None for sign in signs):
        return True  # asked on the machine, not through a proxy
    forwarded_for, real_ip, forwarded = signs
    if forwarded is not None or real_ip is None:
        return False  # forwarded, and not as the shipped nginx says it forwards
    # A client may start X-Forwarded-For itself (nginx appends to it), so every address
    # named must be loopback: "127.0.0.1, 203.0.113.9", or "unknown", is the world.
    named = [hop.strip() for header in (forwarded_for or "", real_ip)
             for hop in header.split(",")]
    return all(is_loopback_address(hop) for hop in named)
