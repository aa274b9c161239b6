"""Mail in: every mail that reaches pbem, by SMTP or LMTP (listener), from an MTA's pipe
(`pbem ingest`) or by IMAP polling (imap), goes through one pipeline (pipeline): stored
raw, checked (robots, floods, DMARC, size, structure, duplicates), routed by its reply
token, authenticated against the seat's registered address, read (inbound: the reply
text without quotes and signatures), and handed to the commands (pbem.commands).

This room only reads. It writes no mail itself: what a sender is told is decided by the
policy (pbem.policy) and written by mail out (pbem.mail).
"""
