"""The operator's pages (`/healthz`, `/metrics`) answer a proof, not an address (#41
item 6): the monitor token, or a loopback that no proxy forwarded or that the shipped
nginx configuration's own header confirms (pbem.web.operator_proof).

Through the real servers, over real sockets on loopback: `pbem serve` (waitress, which
dropped X-Forwarded-For, so a request nginx forwarded from the world looked local),
gunicorn as production runs it, and nginx with deploy/nginx/pbem.conf in front of each
(whose monitor blocks forwarded no client address, so an allowed monitor machine got in
without the token). Every request and server is bounded in time.
"""

import http.client
import subprocess
import sys

import pytest

from loopback_services import listening, terminate, wait_for
from pbem.config import Config
from shipped_nginx import MONITOR, Nginx, ask
from test_health import start_gunicorn, stop
from test_serve import server_env  # noqa: F401  (a fixture: `pbem serve`'s settings)

TOKEN = "monitor-s3cret"
RIGHT = {"Authorization": f"Bearer {TOKEN}"}
TOKENS = [{}, {"Authorization": "Bearer monitor-s3cre"}, RIGHT]  # none, a wrong one, the right
# What a proxy on the machine sends on when a client in the world wrote it, or names.
FROM_THE_WORLD = [{"X-Forwarded-For": "203.0.113.9"},
                  {"X-Forwarded-For": "127.0.0.1, 203.0.113.9"},
                  {"X-Forwarded-For": "unknown"}]
WORLD = "203.0.113.9"
PATHS = ["/metrics", "/healthz"]

# Asked of the app on loopback: (headers, status).
ON_LOOPBACK = [
    *[({**world, **token}, 200 if token is RIGHT else 404)
      for world in FROM_THE_WORLD for token in TOKENS],
    ({"X-Real-IP": WORLD}, 404),
    ({"Forwarded": "for=127.0.0.1"}, 404),  # a header the shipped proxy never sets
    ({"X-Forwarded-For": "127.0.0.1"}, 404),  # forwarded, without the proxy's own word
    ({"X-Real-IP": "127.0.0.1", "X-Forwarded-For": "127.0.0.1, 203.0.113.9"}, 404),
    ({"X-Real-IP": "127.0.0.1", "X-Forwarded-For": "127.0.0.1"}, 200),  # nginx, from loopback
    ({}, 200),  # a monitor on the machine, asking the app itself
]

# Asked of the shipped nginx: (the client nginx sees, None for loopback; headers; status).
THROUGH_NGINX = [
    (None, {}, 200),  # a monitor on the machine, through nginx
    *[(WORLD, {**world, **token}, 403)  # nginx's `deny all`, token or not
      for world in [{}, *FROM_THE_WORLD] for token in TOKENS],
    *[(MONITOR, {**world, **token}, 200 if token is RIGHT else 404)  # allowed: needs the token
      for world in [{}, *FROM_THE_WORLD] for token in TOKENS],
    (MONITOR, {"X-Real-IP": "127.0.0.1", "X-Forwarded-For": "127.0.0.1"}, 404),
]


@pytest.fixture(params=["pbem serve", "gunicorn"])
def app_port(request, server_env, tmp_path):
    """The web app on a loopback port, with the token: `pbem serve`, or gunicorn as
    production runs it; each on a SQLite file of its own (the store decides nothing)."""
    env, port, _ = server_env
    if request.param == "pbem serve":
        log = (tmp_path / "serve.log").open("w+")
        process = subprocess.Popen([sys.executable, "-m", "pbem", "serve"], cwd=tmp_path,
                                   env={**env, "PBEM_MONITOR_TOKEN": TOKEN},
                                   stdout=subprocess.DEVNULL, stderr=log, text=True)
        process.stderr = log  # read back below when it did not start
    else:
        config = Config(database_url=env["PBEM_DATABASE_URL"], domain="pbem.test",
                        secret_key="operator-proof-key")
        process, base = start_gunicorn(config, tmp_path, workers=1,
                                       PBEM_MONITOR_TOKEN=TOKEN)
        port = int(base.rsplit(":", 1)[1])
    try:
        wait_for(lambda: process.poll() is not None or listening(port), request.param)
        if process.poll() is not None:
            process.stderr.seek(0)
            raise AssertionError(f"{request.param} ended: {process.stderr.read()}")
        yield port
    finally:
        if request.param == "gunicorn":
            stop(process)
        else:
            terminate(process)
            process.stderr.close()


def direct(port: int, path: str, headers: dict) -> int:
    return ask(http.client.HTTPConnection("127.0.0.1", port, timeout=5), path, headers)


def test_the_app_takes_a_proof_not_a_forwarded_loopback(app_port):
    asked = [(path, headers, direct(app_port, path, headers))
             for path in PATHS for headers, _ in ON_LOOPBACK]
    assert asked == [(path, headers, status) for path in PATHS for headers, status in ON_LOOPBACK]


def test_through_the_shipped_nginx_a_monitor_elsewhere_needs_the_token(app_port, tmp_path):
    nginx = Nginx(app_port, tmp_path / "nginx")
    try:
        nginx.start()
        assert nginx.status("/", {}, WORLD) == 200  # the public archive, for anyone
        asked = [(path, client, headers, nginx.status(path, headers, client))
                 for path in PATHS for client, headers, _ in THROUGH_NGINX]
    finally:
        nginx.stop()
    assert asked == [(path, client, headers, status)
                     for path in PATHS for client, headers, status in THROUGH_NGINX]
