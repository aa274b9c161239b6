"""`python -m bench [--seconds S]`: run every benchmark (engines, mail end to end and
its pictures, the web archive, the mail a player gets in a whole game and what conditional
moves save of it, then hostile mail,
hostile annotations, and a move by mail under bot load) and print its figures."""

import argparse

from bench import (annotations, bot_load, conditional, conversation, engines, hostile, mail,
                   pictures, web)


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time spent on each playout measurement")
    args = parser.parse_args()
    engines.run(args.seconds)
    mail.run(args.seconds)
    pictures.run(args.seconds)
    web.run(args.seconds)
    conversation.run(games=1)
    conditional.run()
    hostile.run(args.seconds)
    annotations.run(args.seconds)
    bot_load.run(20)


main()
