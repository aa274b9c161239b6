"""Pictures in game mail (issue #33): what a picture costs a move by mail, and why it is
made as it is.

1. **A move by mail, pictures on and off**, in one run: moves of one 26×26 Onyx game
   sent over SMTP to the real listener (bench.mail.MailServer: stored, played, every
   answer written to the outbox), in turns of 20 moves with both players' `pictures`
   off, then on, so that the machine's moods of the minute fall on both alike. The
   figure is the server's CPU a move, medians; target: on ≤ 1.5 × off.
2. **One picture, three ways**, for the same late positions of that game: the library
   alone (resvg rasterises the whole SVG, Pillow quantises and writes the PNG), the
   kept background and placed pieces written by Pillow's PNG encoder, and what
   pbem.mail.pictures does (the same, its deflate kept in bands of rows, so that a move
   compresses only the few bands it changed).
3. **The card games**: the pictures of a whole game's mails, from pieces (each card,
   gem, tile and line drawn once and placed), beside the same drawn whole.

CPU time on a shared machine moves by a third from run to run; instructions do not.
`python -m bench.pictures instructions off|on`, run under callgrind, counts those of 60
moves by mail in process (pbem.intake.pipeline.receive, after 30 that fill the caches)
between `callgrind_control -i on` and `off` (bench/README.md has the command); with
`late` after it, those of moves 291-330, on a board of ~600 stones.
"""

from __future__ import annotations

import io
import statistics
import tempfile
import time

from PIL import Image

from bench.mail import MailServer, long_game
from pbem.engines import ENGINES
from pbem.engines.game import Game
from pbem.mail import pictures, rasters
from pbem.store import Player


def by_mail(moves: list[str], turn: int = 20, turns: int = 8) -> tuple[float, float]:
    """Median CPU seconds of a move by mail with pictures off, and on."""
    with tempfile.TemporaryDirectory() as workdir:
        server = MailServer(workdir, f"sqlite:///{workdir}/bench.db")
        try:
            spent: dict[bool, list[float]] = {False: [], True: []}
            number = 0
            for _ in range(turns):
                for on in (False, True):
                    Player.update(pictures=on).execute()
                    for _ in range(turn):
                        number += 1
                        cpu, _ = server.send(number, moves[number - 1])
                        spent[on].append(cpu)
            server.check(number)
        finally:
            server.close()
    return statistics.median(spent[False]), statistics.median(spent[True])


def cpu(work, times: int) -> float:
    start = time.process_time()
    for _ in range(times):
        work()
    return (time.process_time() - start) / times


def three_ways(moves: list[str], count: int = 30) -> None:
    """The late positions of the game (plies 300 to 300 + count), each drawn once."""
    import resvg_py
    engine = ENGINES["onyx"]
    game = Game(engine, {"board": "26", "setup": "open"}, ["alice", "bob"], seed="bench")
    views = []
    for number, text in enumerate(moves[:300 + count], start=1):
        game.play((number - 1) % 2, text)
        if number > 300:
            views.append(engine.view(game.state, 0))
    sheets = [engine.sheet(view, pictures.WIDTH) for view in views]

    def library(sheet):
        drawn = Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=sheet.svg()))))
        flat = drawn.convert("RGB").quantize(64, method=Image.Quantize.MEDIANCUT)
        flat.save(io.BytesIO(), "PNG")
    spent = cpu(lambda: library(sheets[0]), 3)
    print(f"  the library alone (resvg, Pillow): {spent * 1e3:7.1f} ms a picture")
    pictures.png(sheets[0])  # the background and the pieces, once per process
    style = rasters.style_of(sheets[0])

    def pillow_encoder(sheet):
        canvas = rasters.compose(style.canvas(sheet), rasters.placed(style, sheet))
        canvas.crop((1, 0, style.width + 1, canvas.height)).save(io.BytesIO(), "PNG")
    queue = iter(sheets)
    spent = cpu(lambda: pillow_encoder(next(queue)), len(sheets))
    print(f"  kept background and pieces, Pillow's PNG encoder: {spent * 1e3:5.2f} ms")
    queue = iter(sheets)
    spent = cpu(lambda: pictures.png(next(queue)), len(sheets))
    print(f"  ... and the deflate kept in bands (pbem.mail.png_bands): {spent * 1e3:5.2f} ms"
          f" a picture, {len(pictures.png(sheets[-1])) / 1024:.0f} KB")


def card_games() -> None:
    """A whole game of each, random decisions: after each, the picture of every seat the
    game waits for (whom a mail goes to), drawn from pieces (pbem.mail.pictures), beside
    the same pictures of every tenth decision drawn whole (the library alone)."""
    import random

    import resvg_py
    for engine_id, count in (("onix", 4), ("baronoxx", 5), ("gemforge", 3)):
        engine = ENGINES[engine_id]
        game = Game(engine, {}, [f"p{n}" for n in range(count)], seed="bench")
        rng = random.Random(1)
        views = []
        while game.to_act:
            seat = rng.choice(sorted(game.to_act))
            game.play(seat, engine.notation(game.state, seat,
                                            engine.random_decision(game.state, seat, rng)))
            views += [engine.view(game.state, waiting) for waiting in sorted(game.to_act)
                      if waiting >= 0]
        queue = iter(views)
        spent = cpu(lambda: pictures.picture(engine, next(queue)), len(views))
        sample = iter(views[::10])

        def whole():
            svg = pictures.mail_sheet(engine, next(sample)).svg()  # the same drawing
            drawn = Image.open(io.BytesIO(bytes(resvg_py.svg_to_bytes(svg_string=svg))))
            flat = drawn.convert("RGB").quantize(64, method=Image.Quantize.MEDIANCUT)
            flat.save(io.BytesIO(), "PNG")
        whole_cpu = cpu(whole, len(views[::10]))
        size = max(len(pictures.picture(engine, view).png) for view in views[::25])
        print(f"  {engine.title:20} {spent * 1e3:5.1f} ms a picture over a whole game "
              f"({len(views)} mails; drawn whole: {whole_cpu * 1e3:5.1f} ms), "
              f"at most {size / 1024:.0f} KB")


def instructions(pictures_on: bool, late: bool = False) -> None:
    """60 moves by mail in process with both players' pictures on or off (moves 31-90;
    `late`: 40, moves 291-330), counted only while callgrind's instrumentation is on
    (it is switched from here)."""
    import os
    import subprocess

    from bench.mail import BIG, PLAYERS, move_mail
    from pbem.operator.admin import start_game
    from pbem.config import Config
    from pbem.intake.pipeline import receive
    from pbem.store import open_database
    moves = long_game()
    first, last = (291, 330) if late else (31, 90)
    with tempfile.TemporaryDirectory() as workdir:
        config = Config(domain="pbem.test", secret_key="bench", maildir=f"{workdir}/mail",
                        database_url=f"sqlite:///{workdir}/bench.db", rate_limit=10**9)
        open_database(config.database_url)
        game_id = start_game(config, ENGINES["onyx"], BIG, PLAYERS)
        Player.update(pictures=pictures_on).execute()
        for number, text in enumerate(moves[:last], start=1):
            if number == first:
                subprocess.run(["callgrind_control", "-i", "on", str(os.getpid())],
                               capture_output=True, check=True)
            seat = (number - 1) % 2
            receive(config, move_mail(config, game_id, seat, number, text), PLAYERS[seat])
        subprocess.run(["callgrind_control", "-i", "off", str(os.getpid())],
                       capture_output=True, check=True)


def run(seconds: float = 3.0) -> None:
    print("\nPictures in game mail (one core; the server's CPU time)")
    moves = long_game()
    off, on = by_mail(moves)
    print(f"  a move by mail, 26×26 Onyx: pictures off {off * 1e3:.2f} ms, on "
          f"{on * 1e3:.2f} ms of CPU (ratio {on / off:.2f}; target ≤ 1.5; medians, in "
          f"turns of 20)")
    three_ways(moves)
    card_games()


if __name__ == "__main__":
    import sys
    if sys.argv[1:2] == ["instructions"]:
        instructions(sys.argv[2:3] == ["on"], sys.argv[3:4] == ["late"])
    else:
        run()
