"""Competition: ratings, open challenges (seeks) and tournaments.

The pure parts — rating updates (`ratings`), pairings (`pairing`) and standings
(`standings`) — take plain values and return plain values: no database, no clock. The
store's side: `rounds` (a tournament's rounds played and announced), `seeks` (the open
ones, their expiry), `games` (a game started at once), `jobs` (the scheduler's). The
rating rows written when a game ends, in the move's transaction, are a book play keeps
(pbem.bookkeeping.rated). The commands that players write are pbem.commands.tournaments
and .seeks; who hears of what is the policy's (pbem.policy.letters).
"""
