"""The operator's tools: what `pbem admin`, `status`, `backup` and `restore` do.

`admin` starts, cancels and adjudicates games, bans addresses, merges two players and
lets an annotator in; `forget` erases a player; `status` reads how the server is (the
database, the mail waiting, the workers: also the web's /health and /metrics); `backup`
copies the database while it runs and `restore` puts a copy back. The command line that
calls them is pbem.cli; each asks the same table of proofs (pbem.authority) as mail and
pages do, through the operator's shell.
"""
