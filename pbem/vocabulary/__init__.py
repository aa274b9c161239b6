"""The words mail in, mail out and the web all speak, in a room below the three.

`tokens` signs and reads the reply addresses (a seat's, an account's, a request's), the
return paths and the page links; `message_ids` makes our Message-IDs and reads a ply back
from one; `statuses` reads SMTP's enhanced status codes (a relay's answer, a delivery
report); `words` names a game, a position and its players for a reader. Mail out
(pbem.mail) writes them, mail in (pbem.intake) reads them back, the seat pages
(pbem.web) say them: each depends on this room and never on another of the three.
"""
