"""`python -m bench [--seconds S]`: run every benchmark (engines, mail end to end, then
the web archive) and print its figures."""

import argparse

from bench import engines, mail, web


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time spent on each playout measurement")
    args = parser.parse_args()
    engines.run(args.seconds)
    mail.run(args.seconds)
    web.run(args.seconds)


main()
