"""`table-companion advise GAME STATE|-`: every legal action for a position, best first."""

from __future__ import annotations

import argparse

from companion_app.cli._games import dispatch

ADVISED_GAMES = ("cafe-international", "dice-king", "kings-breakfast")


def configure(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = (
        "Dice King keeps are ranked by the expected points of their best single target\n"
        "(chance x the card's worth to the roller: points, plus the village it founds; a fairy\n"
        "is worth fairies owned + 1; a dragon 0, since it is given away), then by the sum over\n"
        "all face-up cards. Café International actions are ranked by points, then by the larger\n"
        "hand-limit reduction (CI-20), seating before bar before swap."
    )
    parser.add_argument(
        "game",
        choices=ADVISED_GAMES,
        metavar="GAME",
        help="cafe-international, dice-king or kings-breakfast",
    )
    parser.add_argument("state", metavar="STATE|-", help="the position as JSON (a file, or -)")
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    return dispatch("advise", args)
