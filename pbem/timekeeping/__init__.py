"""Clocks for games by mail: time controls, reminders, timeouts and vacations.

`controls` reads and describes a game's time control; `ledger` keeps each seat's clock
as moves are played (one row per seat, touched only when whom the game waits for
changes); `deadlines` is the scheduler's job that reminds and times out; `vacations` is
the `vacation` command; `display` writes the clock lines of mails and pages. The package
imports nothing here, so `pbem.play` can use the ledger without a cycle.
"""
