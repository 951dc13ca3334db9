"""`table-companion demo`: the companion on its embedded demo (no camera needed).

With a screen (or with `--screenshot`, which works offscreen) the tablet app opens on the game's
bundled clip (`companion_app/demo_clips/`, a rendered game) and reads it through the real
pipeline: detector, identification, reader, tracker, engine. Without a screen, or with `--text`,
each game's CLI module plays a seeded game in the terminal (``demo(args)``, reached through
`companion_app.cli._games.dispatch`). Both are produced by the engines, never canned.
"""

from __future__ import annotations

import argparse
import os
import sys

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
    parser.add_argument("--seed", type=int, default=1, help="seed of the terminal game (1)")
    parser.add_argument("--players", type=int, default=4, help="players in the terminal game (4)")
    parser.add_argument("--json", action="store_true", help="print the game log as JSON")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--text", action="store_true", help="play the demo in the terminal")
    mode.add_argument("--window", action="store_true", help="open the tablet app")


def has_screen() -> bool:
    """Whether a window can be shown to a person (a desktop session, or not Linux at all)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def run(args: argparse.Namespace) -> int:
    """Run the chosen game's demo: in the tablet app when it can be seen, else in the terminal."""
    if args.text and args.screenshot is not None:
        raise ValueError("--screenshot needs the app window, not --text")
    in_window = not args.text and (args.window or args.screenshot is not None or has_screen())
    if not in_window:
        return dispatch("demo", args)
    if args.exit_after is not None and args.exit_after <= 0:
        raise ValueError(f"--exit-after must be positive, got {args.exit_after:g}")
    from companion_app.app import launch  # Kivy loads only when the window is wanted

    return launch(
        game=args.game,
        source=None,
        screenshot=args.screenshot,
        exit_after=args.exit_after,
        demo=True,
    )
