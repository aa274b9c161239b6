"""Who may do what, decided once from evidence: the one table of proofs and powers.

Every mail, page request and CLI call carries a **proof** of who is speaking; each line
a player writes and each action a page offers **needs** a power; the table below says
which proof grants which power. Mail in (pbem.intake.pipeline), the commands
(pbem.commands.lines), the pages (pbem.web) and the CLI (pbem.cli) ask `allows` and
nobody else decides. A From header alone proves nothing (`FROM_ALONE`):

| proof | how it is known | may |
|---|---|---|
| seat reply token | a seat's reply address, from the seat player's address | act for that seat in that game, and for the player (the address is their mail's) |
| account token | the reply address of any other mail pbem sent the player, from their address | act for the player (their account and their seats, e.g. `accept` to `pbem@`) |
| aligned DMARC pass | our MTA's Authentication-Results say dmarc=pass for the From's domain | as an account token |
| confirmation | a reply to the mail pbem sent the registered address to ask | the lines it confirms, nothing else |
| seat link | a seat's page link (`/play/<token>`): may be forwarded with a mail | act for that seat in that game |
| account link | a short-lived link mailed to the registered address on request | as an account token |
| operator token | `Authorization: Bearer`, or a loopback the proxy confirms (pbem.web.operator_proof) | the operator's pages |
| the operator's shell | the CLI, run where the database is | everything |
| From alone | nothing but a header anyone can write | ask (answered at the registered address); be asked to confirm |

What a line needs (`needs`): **ask** for what only tells the registered address
something (`help`, `games`, `seeks`, `address` alone); **seat** for what acts in one
game (a move, `say`, `undo`, `resign`, `accept`, a seat's mail setting, `if` …);
**account** for what changes the account or acts for the player beyond one seat
(`name`, `address add`, `vacation 7d`, `web`, `digest`, `pictures`, `link new`, `new`,
`seek`, `join`, `withdraw`, `follow`, `annotate` …). The README's table of every
command and the proofs that carry it out at once is written from these tables
(pbem.commands.catalogue.proof_table; tests/test_docs.py checks they agree).

A line that needs more than its proof gives is never carried out at once: mail asks the
registered address to confirm it (pbem.intake.pipeline), a page says which proof would
do (`refusal`).
"""

from __future__ import annotations

from dataclasses import dataclass

# -- the powers ---------------------------------------------------------------------------

ASK, SEAT, ACCOUNT, OPERATOR = "ask", "seat", "account", "operator"

# -- the proofs ---------------------------------------------------------------------------

SEAT_REPLY = "seat reply token"
ACCOUNT_TOKEN = "account token"
DMARC_PASS = "aligned DMARC pass"
CONFIRMATION = "confirmation"
SEAT_LINK = "seat link"
ACCOUNT_LINK = "account link"
OPERATOR_TOKEN = "operator token"
SHELL = "the operator's shell"
FROM_ALONE = "From alone"

MAY: dict[str, frozenset[str]] = {
    SEAT_REPLY: frozenset({ASK, SEAT, ACCOUNT}),
    ACCOUNT_TOKEN: frozenset({ASK, SEAT, ACCOUNT}),  # the player's: their seats too
    DMARC_PASS: frozenset({ASK, SEAT, ACCOUNT}),
    CONFIRMATION: frozenset({ASK}),  # and the lines it confirms (Proof.confirmed)
    SEAT_LINK: frozenset({ASK, SEAT}),
    ACCOUNT_LINK: frozenset({ASK, SEAT, ACCOUNT}),
    OPERATOR_TOKEN: frozenset({OPERATOR}),
    SHELL: frozenset({ASK, SEAT, ACCOUNT, OPERATOR}),
    FROM_ALONE: frozenset({ASK}),
}

#: Each command's power; a command not listed acts in a game (SEAT), as a move does.
COMMAND_NEEDS: dict[str, str] = {
    "help": ASK, "games": ASK, "seeks": ASK, "tournament": ASK, "remind": ASK,
    "name": ACCOUNT, "address": ACCOUNT, "vacation": ACCOUNT, "web": ACCOUNT,
    "digest": ACCOUNT, "pictures": ACCOUNT, "link": ACCOUNT, "new": ACCOUNT,
    "seek": ACCOUNT, "join": ACCOUNT, "withdraw": ACCOUNT, "follow": ACCOUNT,
    "unfollow": ACCOUNT, "annotate": ACCOUNT,
}
#: Account commands that, written alone, only say the current setting.
ASKING_ALONE = ("address", "vacation", "digest", "web", "pictures", "tournament")


@dataclass(frozen=True)
class Proof:
    """What a mail or a request proved: its kind (a key of MAY) and, for a seat's proofs,
    the seat; for a confirmation, the lines it confirms."""
    kind: str
    game: int | None = None
    seat: int | None = None
    confirmed: tuple[str, ...] = ()

    @property
    def proves_player(self) -> bool:
        """Whether the mail or request is proven to be the player's: only such mail
        spends the player's budget of mails an hour (pbem.access)."""
        return self.kind != FROM_ALONE


def needs(line: str) -> str:
    """The power a line needs: ASK, SEAT or ACCOUNT (see the module's docstring)."""
    word, _, rest = line.strip().partition(" ")
    word = word.lower()
    if word in ASKING_ALONE and not rest.strip():
        return ASK
    return COMMAND_NEEDS.get(word, SEAT)


def allows(proof: Proof, line: str, game: int | None = None, seat: int | None = None) -> bool:
    """Whether `proof` may carry out `line` (for `seat` of `game` where it acts in one):
    the one question every door asks."""
    return may(proof, needs(line), game, seat) or _confirms(proof, line)


def may(proof: Proof, power: str, game: int | None = None, seat: int | None = None) -> bool:
    """Whether `proof` grants `power`; a seat's proof grants SEAT for its own seat only,
    a proof of the player for any seat of theirs (which seat is theirs, the caller
    knows: a mail's seat is its token's, checked against its From)."""
    if power not in MAY[proof.kind]:
        return False
    if power == SEAT and proof.game is not None:
        return (proof.game, proof.seat) == (game, seat)
    return True


def _confirms(proof: Proof, line: str) -> bool:
    return proof.kind == CONFIRMATION and " ".join(line.split()) in proof.confirmed


def refusal(proof: Proof, line: str) -> str:
    """Why `line` is not carried out under `proof`, for the person who wrote it."""
    word = line.strip().partition(" ")[0].lower() or line
    if proof.kind == SEAT_LINK:
        return (f"`{word}` changes your account, which a seat's page cannot: its link "
                f"reaches this seat only (a link travels with every forwarded mail). "
                f"Send it by mail in a reply to any mail from pbem, or open your "
                f"account's page with the link pbem mails you from the button below.")
    return (f"`{word}` changes your account or acts for you, and this mail carried no "
            f"proof that it is yours.")
