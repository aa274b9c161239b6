"""Time acting on games by mail: reminders, timeouts, vacations, and the clock lines.

`deadlines` is the scheduler's job that reminds and times out; `vacations` is the
`vacation` command; `display` writes the clock lines of mails and pages. The clocks
themselves are books kept with every move (pbem.bookkeeping: ledger, controls), below
pbem.play, which writes them; this room is above play and acts through its Table.
"""
