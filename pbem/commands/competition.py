"""The competition's commands (pbem.competition): tournaments and open challenges.

The handlers live with the tables they write (pbem.competition.tournaments and .seeks),
which use this package's speaker and invitation words; they are imported when a command
runs, so that the command table can be read without them.
"""

from __future__ import annotations


def tournament(speaker, rest):
    from pbem.competition import tournaments
    return tournaments.show(speaker, rest)


def withdraw(speaker, rest):
    from pbem.competition import tournaments
    return tournaments.withdraw(speaker, rest)


def seek(speaker, rest):
    from pbem.competition import seeks
    return seeks.seek(speaker, rest)


def seeks(speaker, rest):
    from pbem.competition import seeks as open_challenges
    return open_challenges.seeks(speaker, rest)


def join(speaker, rest):
    from pbem.competition import seeks
    return seeks.join(speaker, rest)
