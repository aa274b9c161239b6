"""Competition: ratings, open challenges (seeks) and tournaments.

The pure parts — rating updates (`ratings`), pairings (`pairing`) and standings
(`standings`) — take plain values and return plain values: no database, no clock. The
store's side (`rated`: the rating rows written when a game ends, `tournaments`, `seeks`)
and the mail commands call them.
"""
