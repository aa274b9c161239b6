"""deploy/prometheus/'s alert rules: `promtool check rules` accepts them, `promtool test
rules` (tests/prometheus/pbem.rules.test.yml) shows each alert firing when it should and
silent when it should not, and every pbem metric they read is one `/metrics` serves.

promtool comes with Debian's package `prometheus`, which .ci/run installs. Like Postfix
and Chromium for their tests, a missing promtool fails these tests with how to install
it: a skip would let the alert rules go unchecked on any machine that lacks it.
"""

import os
import re
import shutil
import smtplib
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from mailtest import free_port

REPO = Path(__file__).resolve().parent.parent
RULES = sorted((REPO / "deploy" / "prometheus").glob("*.yml"))
RULE_TESTS = REPO / "tests" / "prometheus" / "pbem.rules.test.yml"


@pytest.fixture
def promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        pytest.fail("promtool is not installed (Debian: apt-get install "
                    "--no-install-recommends prometheus; .ci/run installs it)")
    return found


def run(*command) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=REPO)


def test_promtool_accepts_the_rules(promtool):
    assert RULES, "deploy/prometheus/ has no rule files"
    done = run(promtool, "check", "rules", *map(str, RULES))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout


def test_each_alert_fires_when_it_should_and_only_then(promtool):
    done = run(promtool, "test", "rules", str(RULE_TESTS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "SUCCESS" in done.stdout
    tested = set(re.findall(r"alertname: (\w+)", RULE_TESTS.read_text()))
    alerts = {name for path in RULES
              for name in re.findall(r"- alert: (\w+)", path.read_text())}
    assert alerts and alerts <= tested, f"alerts without a unit test: {alerts - tested}"


def test_every_metric_the_rules_read_is_served(config):
    """A rule reading a metric /metrics does not serve would never fire: each name in
    the rules is in a scrape of a store with a worker running (a counter's `_total`)."""
    from test_metrics import ROBOT_MAIL, scrape
    from pbem.worker import MailWorker
    port = free_port()
    worker = MailWorker(replace(config, smtp_listen=f"127.0.0.1:{port}"))
    worker.start()
    try:
        with smtplib.SMTP("127.0.0.1", port, timeout=60) as smtp:  # one mail in: refused
            smtp.sendmail("mailer-daemon@example.org", ["pbem@pbem.test"], ROBOT_MAIL)
        served = {name[0] for name in scrape(config)}
    finally:
        worker.stop()
    read = {name for path in RULES
            for name in re.findall(r"\b(pbem_[a-z_]+)", path.read_text())}
    assert read and sorted(read - served) == []
