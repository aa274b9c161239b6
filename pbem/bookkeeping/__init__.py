"""The books kept with every move, in the move's own transaction (pbem.play writes them).

`ledger` keeps each seat's clock as moves are played (one row per seat, touched only when
whom the game waits for changes), under the game's time control (`controls`: read,
described and checked); `rated` writes the rating rows when a rated game ends, so the
ratings and the end agree. Below play: play knows the books, and the rooms that act on
time or on ratings (pbem.timekeeping: reminders, timeouts, vacations, the clock lines;
pbem.competition: tournaments, seeks) know play.
"""
