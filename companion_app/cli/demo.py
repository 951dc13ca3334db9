"""`table-companion demo`: the companion on its embedded demo (no camera needed).

Until the tablet app exists, each game's CLI module provides a terminal demo (``demo(args)``),
reached through `companion_app.cli._games.dispatch`.
"""

from __future__ import annotations

import argparse

from companion_app.cli import GAME_NAMES
from companion_app.cli._games import dispatch


def configure(parser: argparse.ArgumentParser) -> None:
    """The demo's options."""
    parser.add_argument(
        "--game",
        choices=GAME_NAMES,
        default="kings-breakfast",
        metavar="G",
        help="kings-breakfast (default), cafe-international or dice-king",
    )
    parser.add_argument(
        "--screenshot", metavar="PNG", help="save the app window to PNG (needs the tablet app)"
    )
    parser.add_argument(
        "--exit-after",
        type=float,
        metavar="SECONDS",
        help="with --screenshot: seconds to wait before saving and exiting",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the simulated game (1)")
    parser.add_argument("--players", type=int, default=4, help="number of simulated players (4)")
    parser.add_argument("--json", action="store_true", help="print the game log as JSON")


def run(args: argparse.Namespace) -> int:
    """Run the chosen game's demo."""
    return dispatch("demo", args)
