"""When our mail bounces: one concern, in two modules because mail goes between them.

`scores` keeps each address's bounce score and says which addresses no mail goes to any
more (the policy's letters ask it before every mail); `mails` takes one mail given up or
reported bounced, counts it once against its recipient, and tells the game's other
players where that is safe (through the letters). Nothing is imported here, so the
letters can ask `scores` while `mails` writes through the letters.
"""
