"""`python -m bench [--seconds S]`: run every benchmark (engines, then mail end to end)
and print its figures."""

import argparse

from bench import engines, mail


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="time spent on each playout measurement")
    args = parser.parse_args()
    engines.run(args.seconds)
    mail.run(args.seconds)


main()
