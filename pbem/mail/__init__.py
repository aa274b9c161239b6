"""Mail out: what the policy (pbem.policy) decided a person gets, written and delivered.

`letters` writes a game mail from one seat's view, a spectator's mail, or a plain note,
with the shared words (pbem.vocabulary: how a game is named for a reader, the reply
addresses, our Message-IDs), `compose` (headers, threading, the
text and HTML bodies from templates/mail/) and `pictures` (the position as a PNG
drawn from the web's SVG of the same view, for the HTML part: put together from the
rasters kept in `rasters`, written in bands by `png_bands`); `outbox` queues it in
the write's own transaction and delivers it later through `relay` or into a local
folder. Nothing here decides who is mailed.
"""
