"""`table-companion score GAME …`: final scores from counts (`--counts`) or from photos."""

from __future__ import annotations

import argparse

from companion_app.cli._games import GAME_MODULES, dispatch


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "game",
        choices=sorted(GAME_MODULES),
        metavar="GAME",
        help="kings-breakfast, cafe-international or dice-king",
    )
    parser.add_argument(
        "--counts", metavar="FILE|-", help="counts as JSON (a file, or - for stdin)"
    )
    parser.add_argument("--king", metavar="IMG", help="photo of the king's area")
    parser.add_argument(
        "--player",
        action="append",
        default=[],
        metavar="NAME=IMG",
        help="a player's name and the photo of their spread pieces (repeatable)",
    )
    parser.add_argument(
        "--scores", metavar="FILE|-", help="running scores as JSON (Café International)"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    return dispatch("score", args)
