"""Onyx records as SGF (FF[4]), for SGF viewers; the mapping is notation/sgf.md.

An Onyx board of N×N corner points is drawn on a (2N−1)×(2N−1) Go grid: corner point
(column g, row r) at SGF (2g, 2(N−r)), the midpoint of the square whose lower-left corner
is (g, r) at (2g+1, 2(N−r)−1), its centre. Occupied grid points are never orthogonal
neighbours there, so a Go viewer's capture rule never fires; Onyx's own captures are
written out: the capturing move marks the stones it takes (MA) and the next node removes
them (AE), since FF[4] keeps setup and move properties in separate nodes. `swap` places
no stone: it is a node with only its comment, and PB/PW name who played each colour.

Pure: a record in, text out. The Onyx engine replays the record to learn what each move
captured; a record that is not a legal game raises RecordError like `pbem record check`.
"""

from __future__ import annotations

from notation.record import Record
from pbem.engines import get_engine
from pbem.engines.base import MoveError
from pbem.engines.game import RecordError
from pbem.engines.onyx import board_of

LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"  # FF[4]: 52 lines at most


def text_value(text: str) -> str:
    """An SGF Text value: `]` and `\\` escaped; the text is UTF-8 (CA[UTF-8])."""
    return text.replace("\\", "\\\\").replace("]", "\\]")


def sgf_point(board, name: str) -> str:
    """The two SGF letters of an Onyx point or midpoint (`F6`, `DE910`)."""
    n, index = board.size, board.index[name]
    if index < board.corners:
        g, r = index % n, index // n + 1
        return LETTERS[2 * g] + LETTERS[2 * (n - r)]
    lower_left = board.mid_corners[index - board.corners][0]
    g, r = lower_left % n, lower_left // n + 1
    return LETTERS[2 * g + 1] + LETTERS[2 * (n - r) - 1]


def sgf_result(record: Record) -> str:
    """RE: B+ when the black stones connected, W+ for white, +R after a resignation;
    `?` while the game runs (SGF: an unknown result)."""
    colour = {"1-0": "B", "0-1": "W"}.get(record.result)
    if colour is None:
        return "?"
    termination = (record.tag("Termination") or "").lower()
    return f"{colour}+R" if "resign" in termination else f"{colour}+"


def onyx_sgf(record: Record, game_name: str = "", date: str = "") -> str:
    """The SGF text of an Onyx record: one game tree, one node per ply (plus one AE node
    after each capture)."""
    engine = get_engine("onyx")
    tags = record.tag_dict()
    if engine.id != get_engine(tags.get("Game", "")).id:
        raise RecordError(f"SGF is written for Onyx records only, not {tags.get('Game')!r}")
    options = engine.resolve_options(engine.options_from_tags(tags))
    black, white = engine.players_from_tags(tags)
    state = engine.start(options, 2)
    board = board_of(state.size)
    start = engine.view(state, None)
    nodes, swapped, stones = [], False, 0
    for number, move in enumerate(record.moves, start=1):
        if not engine.to_act(state):
            raise RecordError("the game is already over", number, move.text)
        (seat,) = engine.to_act(state)
        try:
            state, text = engine.play(state, seat, move.text)
        except MoveError as error:
            raise RecordError(str(error), number, move.text) from None
        # Stones alternate black, white, whoever plays them, and a swap places none
        # (notation/onyx.md), so the colour is the count's. The view walks the whole
        # board, so it is asked only what a capture (a move written with `*`) took.
        point = None if text == "swap" else text.rstrip("*")
        captured = engine.view(state, None)["last"]["captured"] if text.endswith("*") else []
        nodes.extend(_move_nodes(board, "BW"[stones % 2], text, point, captured,
                                 move.comments, black, white))
        stones += point is not None
        swapped = swapped or point is None
    if swapped:  # the player who swapped played the black stones, the first one included
        black, white = white, black
    root = _root(record, board, start, black, white, game_name, date)
    return "(" + root + "".join("\n" + node for node in nodes) + ")\n"


def _root(record: Record, board, start: dict, black: str, white: str, game_name: str,
          date: str) -> str:
    n = board.size
    about = [f"Onyx on a {n}×{n} board ({record.tag('Setup', 'standard')} setup), drawn on "
             f"the SGF grid of {2 * n - 1}×{2 * n - 1} lines: corner points on the even "
             f"lines, square midpoints at the centres between them. Captured stones are "
             f"marked (MA) and removed (AE) in the next node. Not Go: see pbem's "
             f"notation/sgf.md."]
    if record.tag("Termination"):
        about.append(f"Ended: {record.tag('Termination')}.")
    about += record.comments
    header = [("FF", "4"), ("GM", "1"), ("CA", "UTF-8"), ("AP", "pbem:1"),
              ("SZ", str(2 * n - 1))]
    info = [("GN", game_name)] if game_name else []
    info += [("PB", black), ("PW", white)]
    info += [("DT", date)] if date else []
    info += [("RE", sgf_result(record))]
    # One line each: the format, the game's facts, the comment, the setup (SGF allows
    # line breaks between properties; a reader of the file sees what is what).
    lines = ["".join(f"{key}[{text_value(value)}]" for key, value in props)
             for props in (header, info, [("C", "\n\n".join(about))])]
    text = ";" + "\n".join(lines) + "\n"
    for key, colour in (("AB", "black"), ("AW", "white")):
        if start[colour]:
            text += key + "".join(f"[{sgf_point(board, name)}]" for name in start[colour])
    return text + "PL[B]"


def _move_nodes(board, colour: str, text: str, point: str | None, captured: list[str],
                comments: list[str], black: str, white: str) -> list[str]:
    """A move's node (and its AE node after a capture); `swap` is a node of comments."""
    said = "".join(f"C[{text_value(chr(10).join(comments))}]" for _ in comments[:1])
    if point is None:
        note = (f"swap: {white} takes over the black stone and plays Black from now on; "
                f"{black} plays White and moves next.")
        return [f";N[swap]C[{text_value(chr(10).join([note, *comments]))}]"]
    node = f";{colour}[{sgf_point(board, point)}]N[{text}]{said}"
    if not captured:
        return [node]
    taken = "".join(f"[{sgf_point(board, name)}]" for name in captured)
    return [node + "MA" + taken, ";AE" + taken]
