"""`GET /healthz`: for a load balancer or a monitor, whether this server can do its work.

200 with the facts of `pbem.operator.status` as JSON when the database answers; 503 with the
reason when it does not, or when its schema is newer than this code (`schema_unknown`:
a newer pbem migrated it, and this process runs the old one), so a monitor alerts and a
balancer stops sending requests. The JSON names this pbem's version and commit. For the
operator only (PBEM_MONITOR_TOKEN, or a loopback the proxy confirms:
pbem.web.operator_proof): the outbox backlog rises when a reaction window asks a player,
which is a secret of the game.
Never cached: a stale "ok" is worse than none.
"""

from __future__ import annotations

from flask import Blueprint

from pbem.operator.status import check
from pbem.web.operator import operator_only

health_check = Blueprint("health", __name__)
health_check.before_request(operator_only)  # the backlog is not the public's (pbem.web.operator)


@health_check.route("/healthz")
def healthz():
    status = check()
    # Not ok, either: the database does not answer, or its schema is newer than this code
    # (a newer pbem migrated it; this process must be restarted as that version).
    ok = status.database_ok and bool(status.schema_ok)
    body = {"ok": ok, **status.as_json()}
    return body, 200 if ok else 503, {"Cache-Control": "no-store"}
