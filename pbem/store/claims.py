"""Who holds a claim on a row, and whether that process still runs.

A job that works on a row outside a transaction (a deliverer on an outbox row, a bot
searching for its seat) first claims it until a time, naming itself `host:pid`. A
process killed mid-way (kill -9, a crash) leaves its claims behind; a process on the
same machine that sees the claimer's pid gone takes them over at once instead of
waiting for the claim's time to lapse (pbem.mail.outbox, pbem.bot_turns).
"""

from __future__ import annotations

import os
import socket


def claimer() -> str:
    """Who claims: this process on this machine (asked each time: a fork is another)."""
    return f"{socket.gethostname()}:{os.getpid()}"


def gone(claimed_by: str) -> bool:
    """Whether `claimed_by` names a process on this machine that no longer runs (a pid
    is not reused within the minutes a claim lasts, save in the rarest case, which then
    just waits for the claim to lapse). Another machine's claims are never judged."""
    host = socket.gethostname() + ":"
    if not claimed_by.startswith(host):
        return False
    pid = claimed_by[len(host):]
    return pid.isdigit() and not _running(int(pid))


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: it runs
        return True
    return True
