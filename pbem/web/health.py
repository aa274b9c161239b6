"""`GET /healthz`: for a load balancer or a monitor, whether this server can do its work.

200 with the facts of `pbem.status` as JSON when the database answers; 503 with the
reason when it does not, so a monitor alerts and a balancer stops sending requests.
Never cached: a stale "ok" is worse than none.
"""

from __future__ import annotations

from flask import Blueprint

from pbem.status import check

health_check = Blueprint("health", __name__)


@health_check.route("/healthz")
def healthz():
    status = check()
    body = {"ok": status.database_ok, **status.as_json()}
    return body, 200 if status.database_ok else 503, {"Cache-Control": "no-store"}
