"""The server's idea of now: one function, so tests can set the time instead of sleeping.

Everything that compares times for clocks, reminders, timeouts and vacations asks
`pbem.clock.now()` (always as `clock.now()`, never imported by name), and the tests'
`frozen_time` fixture replaces it with a clock they move by hand.
"""

from __future__ import annotations

import datetime as dt


def now() -> dt.datetime:
    """UTC, without a time zone, as the database keeps times."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
