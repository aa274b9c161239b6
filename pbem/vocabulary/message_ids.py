"""Our Message-IDs and the header that marks our own mail: written by mail out
(pbem.mail.compose), read by mail in (pbem.intake), which learns from a reply's
In-Reply-To which position its author saw, and from the loop header that a mail is one
of ours come back.
"""

from __future__ import annotations

import secrets

from pbem.config import Config

LOOP_HEADER = "X-Pbem-Loop"


def thread_id(config: Config, game_id: int) -> str:
    return f"<pbem.{game_id}@{config.domain}>"


def message_id(config: Config, game_id: int | None, ply: int, seat: int | None) -> str:
    """Ours encode game, ply and seat, so a reply tells which position its author saw. The
    ply is numbered as everyone may know it (`Game.shown_plies`), so no Message-ID counts
    an answer its reader may not learn of (RULINGS G39)."""
    where = f"{game_id}.{ply}.{seat if seat is not None else 'x'}" if game_id else "note"
    return f"<pbem.{where}.{secrets.token_hex(6)}@{config.domain}>"


def ply_replied_to(config: Config, message_ids: list[str], game_id: int) -> int | None:
    """The ply (as numbered for everyone, `Move.shown`) of the newest of our mails about
    `game_id` that a reply refers to."""
    for mid in message_ids:
        parts = mid.strip("<>").split("@", 1)[0].split(".")
        if (len(parts) == 5 and parts[0] == "pbem" and parts[1] == str(game_id)
                and parts[2].isdigit() and mid.endswith(f"@{config.domain}>")):
            return int(parts[2])
    return None
