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

from dataclasses import replace

from notation.record import Record
from pbem.engines import get_engine
from pbem.engines.base import MoveError
from pbem.engines.game import RecordError
from pbem.engines.onyx.board import board_of

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


#: PGN's glyphs as SGF move annotations (FF[4]): good move, bad move, doubtful,
#: interesting; `$1`..`$6` are the same six. Other `$n` go into the node's comment.
GLYPH_PROPERTIES = {"!": "TE[1]", "!!": "TE[2]", "?": "BM[1]", "??": "BM[2]",
                    "?!": "DO[]", "!?": "IT[]"}
NAGS = {"$1": "!", "$2": "?", "$3": "!!", "$4": "??", "$5": "!?", "$6": "?!"}


def onyx_sgf(record: Record, game_name: str = "", date: str = "") -> str:
    """The SGF text of an Onyx record: one game tree, one node per ply (plus one AE node
    after each capture); a variation is a branch at the node before its move."""
    engine = get_engine("onyx")
    tags = record.tag_dict()
    if engine.id != get_engine(tags.get("Game", "")).id:
        raise RecordError(f"SGF is written for Onyx records only, not {tags.get('Game')!r}")
    options = engine.resolve_options(engine.options_from_tags(tags))
    black, white = engine.players_from_tags(tags)
    state = engine.start(options, 2)
    board = board_of(state.size)
    start = engine.view(state, None)
    writer = _TreeWriter(engine, board, black, white)
    sequence = writer.line(state, record.moves, 0, 0, "ply")
    if writer.swapped:  # who swapped played the black stones, the first one included
        black, white = white, black
    root = _root(record, board, start, black, white, game_name, date)
    return "(" + root + sequence + ")\n"


class _TreeWriter:
    """Writes a line of moves as SGF nodes, branching where a move has variations."""

    def __init__(self, engine, board, black: str, white: str):
        self.engine, self.board, self.black, self.white = engine, board, black, white
        self.swapped = False  # on the main line: PB and PW change hands

    def line(self, state, moves, ply: int, stones: int, where: str, main: bool = True,
             first: int = 0, branched: bool = False) -> str:
        """Nodes from `state` (after `ply` plies, `stones` stones); `where` names the
        line for errors ("ply" on the main line, "variation 1 of ply 3, move" inside).
        `moves` start at move `first` of their line (from 0); `branched`: the branch at
        the first of them is made, and this is its own line going on."""
        text = ""
        for index, move in enumerate(moves, start=first):
            if move.variations and not (branched and index == first):
                number = ply + 1 if main else index + 1
                own = self.line(state, moves[index - first:], ply, stones, where, main,
                                index, branched=True)
                branches = [own] + [
                    self.line(state, _opening(variation), ply, stones,
                              _variation_where(where, number, count), False)
                    for count, variation in enumerate(move.variations, start=1)]
                return text + "".join(f"\n({branch})" for branch in branches)
            state, nodes, point = self._play(state, move, ply, stones, where, index, main)
            text += "".join("\n" + node for node in nodes)
            stones += point is not None
            ply += 1
            if main and point is None:
                self.swapped = not self.swapped
        return text

    def _play(self, state, move, ply: int, stones: int, where: str, index: int,
              main: bool):
        engine = self.engine
        label = f"ply {ply + 1}" if main else f"{where} {index + 1}"
        if not engine.to_act(state):
            raise RecordError("the game is already over", ply + 1, move.text, label)
        (seat,) = engine.to_act(state)
        try:
            state, text = engine.play(state, seat, move.text)
        except MoveError as error:
            raise RecordError(str(error), ply + 1, move.text, label) from None
        # Stones alternate black, white, whoever plays them, and a swap places none
        # (notation/onyx.md), so the colour is the count's. The view walks the whole
        # board, so it is asked only what a capture (a move written with `*`) took.
        point = None if text == "swap" else text.rstrip("*")
        captured = engine.view(state, None)["last"]["captured"] if text.endswith("*") else []
        comments = [*move.comments, *(c for v in move.variations for c in v.after)]
        nodes = _move_nodes(self.board, "BW"[stones % 2], text, point, captured,
                            comments, self.black, self.white, move.glyphs)
        return state, nodes, point


def _opening(variation) -> list:
    """A variation's moves, the comments before its first move on that move's node."""
    first, *rest = variation.moves
    return [replace(first, comments=[*variation.comments, *first.comments]), *rest]


def _variation_where(where: str, number: int, count: int) -> str:
    """How errors name the moves of a variation: "variation 2 of ply 31, move 3"."""
    if where == "ply":
        return f"variation {count} of ply {number}, move"
    return f"{where} {number}, variation {count}, move"


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
                comments: list[str], black: str, white: str,
                glyphs: list[str] = ()) -> list[str]:
    """A move's node (and its AE node after a capture); `swap` is a node of comments.

    Glyphs are move annotations (TE, BM, DO, IT); a swap places no stone, so it has no
    move to annotate and its glyphs are written in its comment."""
    marks = [NAGS.get(glyph, glyph) for glyph in glyphs]
    others = [mark for mark in marks if mark not in GLYPH_PROPERTIES]
    if point is None:
        others = [*(m for m in marks if m in GLYPH_PROPERTIES), *others]
    comments = [" ".join(others)] * bool(others) + list(comments)
    said = "".join(f"C[{text_value(chr(10).join(comments))}]" for _ in comments[:1])
    if point is None:
        note = (f"swap: {white} takes over the black stone and plays Black from now on; "
                f"{black} plays White and moves next.")
        return [f";N[swap]C[{text_value(chr(10).join([note, *comments]))}]"]
    annotation = "".join(dict.fromkeys(GLYPH_PROPERTIES[m] for m in marks
                                       if m in GLYPH_PROPERTIES))
    node = f";{colour}[{sgf_point(board, point)}]N[{text}]{annotation}{said}"
    if not captured:
        return [node]
    taken = "".join(f"[{sgf_point(board, name)}]" for name in captured)
    return [node + "MA" + taken, ";AE" + taken]
