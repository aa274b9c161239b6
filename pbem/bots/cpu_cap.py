"""The CPU cap of one bot decision (time.process_time), for every search loop.

A decision's search runs iterations until its budget of estimated work is spent; the cap
is the safety valve that bounds the decision when the estimate is wrong. It is a bound
on the decision, not a point at which to start the last iteration: another iteration
is begun only if one as long as the longest so far would still end inside the cap. (The
average is a poor guide where iterations vary: an Onix round of steals costs several
times one of takes; stopping only once past the cap gave a p99 of 2.01 s at a cap of 2.)
"""

from __future__ import annotations

import time


class CpuCap:
    """Ask `allows_another()` before each iteration of one decision's search."""

    def __init__(self, cap: float | None) -> None:
        self.cap = cap
        self.started = time.process_time()
        self.began: float | None = None  # when the iteration under way began
        self.longest = 0.0

    def allows_another(self) -> bool:
        """Whether another iteration, as long as the longest so far, ends inside the cap;
        the first is always allowed."""
        now = time.process_time()
        if self.began is not None:
            self.longest = max(self.longest, now - self.began)
        first, self.began = self.began is None, now
        return first or self.cap is None or now - self.started + self.longest <= self.cap
