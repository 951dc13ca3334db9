"""`table-companion run`: the tablet app, live on a camera, a video file or a folder of images."""

from __future__ import annotations

import argparse

from companion_app.cli._common import UsageError

GAME_NAMES = ("kings-breakfast", "cafe-international", "dice-king")


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the `run` options."""
    parser.add_argument("--game", choices=GAME_NAMES, help="start this game at once")
    parser.add_argument(
        "--source",
        metavar="0|FILE|FOLDER",
        help="camera index, video file or image folder (default: the one in Settings)",
    )
    parser.add_argument("--screenshot", metavar="PNG", help="save the window to PNG, then exit")
    parser.add_argument(
        "--exit-after",
        type=float,
        metavar="SECONDS",
        help="close the app after SECONDS (default 6 with --screenshot)",
    )
    parser.add_argument("--json", action="store_true", help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """Open the app; returns its exit status.

    Raises:
        UsageError: a bad --exit-after or a source that does not exist (before any window opens).
    """
    if args.exit_after is not None and args.exit_after <= 0:
        raise UsageError(f"--exit-after must be more than 0 seconds, got {args.exit_after}")
    if args.source is not None:
        # fail in one line before a window opens: the same check the app makes
        from vision.frames import open_source

        open_source(args.source).close()
    from companion_app.app import launch

    return launch(
        game=args.game,
        source=args.source,
        screenshot=args.screenshot,
        exit_after=args.exit_after,
        demo=False,
    )


__all__ = ["configure", "run"]
