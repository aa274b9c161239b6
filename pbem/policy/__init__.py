"""The policy: who hears of what. Every mail a person gets is decided in this room.

- conversation: game mail — after every write to a game, which seats get a mail (their
  turn, a start or an end, a comment, an answer to their own mail, `loud`), each with
  its news since its cursor; and the spectators who follow a game.
- letters: every other mail goes through `letters.note` (never to a bot): answers to a
  player's own mail, tournament news, an expired seek, the operator's merges.
- invitations: mail to addresses that may never have written to pbem (invitations,
  confirmation requests), checked against the limits on such mail (limits) first.
- notices: at most once a day about one thing (a forged mail, a stranger's reply, a
  bounce: bounces).
- digest and remind: the daily digest, and a player's `remind`.
- delivery: the outbox delivered with the policy's say on mail that bounces for good.

What happened is said by the rooms above (commands, competition, timekeeping, the bots'
turns, the operator's tools); how a mail is written and delivered is mail out's
(pbem.mail), which decides nothing.
"""
