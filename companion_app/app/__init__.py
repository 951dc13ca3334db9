"""The Kivy tablet app: five screens over the Kivy-free view models.

`launch` is what the command line calls (`table-companion run` and `demo`); `tour` opens the app,
visits every screen, saves a screenshot of each and exits; `play_whole_game` plays a game to the
end with simulated touches and saves the Scoring screen (the window tests run both in
subprocesses). Kivy is imported only inside these functions, after the environment is prepared, so
importing this package is cheap and never opens a window.

Public names: `launch`, `tour`, `prepare_kivy_environment`.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

WINDOW_SIZE = (1280, 800)  # a 10" landscape tablet in dp


def prepare_kivy_environment() -> None:
    """Set Kivy's environment before its first import: no argv parsing, a private home, quiet.

    Variables already set by the user are kept.
    """
    os.environ.setdefault("KIVY_NO_ARGS", "1")
    os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
    os.environ.setdefault("KIVY_NO_FILELOG", "1")
    os.environ.setdefault("KIVY_WINDOW", "sdl2")
    if "KIVY_HOME" not in os.environ:
        os.environ["KIVY_HOME"] = tempfile.mkdtemp(prefix="table-companion-kivy-")
    from kivy.config import Config  # noqa: PLC0415 (only after the environment is set)

    Config.set("graphics", "width", str(WINDOW_SIZE[0]))
    Config.set("graphics", "height", str(WINDOW_SIZE[1]))
    Config.set("graphics", "resizable", "1")
    Config.set("graphics", "multisamples", "0")  # no MSAA: cheaper frames on weak GPUs
    Config.set("input", "mouse", "mouse,disable_multitouch")
    Config.set("kivy", "exit_on_escape", "0")


def launch(
    game: str | None = None,
    source: str | None = None,
    screenshot: str | None = None,
    exit_after: float | None = None,
    demo: bool = False,
) -> int:
    """Run the app; returns the exit status.

    Args:
        game: start a game of this contract name at once (else the Home screen comes first).
        source: ``"0"`` (a camera index), a video file or an image folder for the live view.
        screenshot: save the window to this PNG path after `exit_after` seconds, then exit.
        exit_after: seconds until the app closes by itself (default 6 with `screenshot`).
        demo: play the game by itself (seeded), so the panels fill without a table.

    Raises:
        ValueError: unknown game (before any window opens).
    """
    from engines import GAMES

    if game is not None and game not in GAMES:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    if screenshot is not None and exit_after is None:
        exit_after = 6.0
    prepare_kivy_environment()
    from companion_app.app.main import TableCompanionApp

    app = TableCompanionApp(
        game=game,
        source=source,
        screenshot=None if screenshot is None else Path(screenshot),
        exit_after=exit_after,
        demo=demo,
    )
    app.run()
    return app.exit_status


def tour(folder: str | Path, game: str = "kings-breakfast", language: str = "en") -> int:
    """Open the app, show every screen, save ``<screen>.png`` for each into `folder`, exit."""
    prepare_kivy_environment()
    from companion_app.app.main import TableCompanionApp

    app = TableCompanionApp(
        game=game, demo=True, tour_folder=Path(folder), language=language, demo_steps=16
    )
    app.run()
    return app.exit_status


def play_whole_game(folder: str | Path, game: str = "dice-king") -> int:
    """Open the app on a new `game`, play it to the end with simulated touches on the Table's
    buttons, tap Scoring, save ``scoring.png`` and ``result.json`` into `folder`, exit."""
    prepare_kivy_environment()
    from companion_app.app.main import TableCompanionApp

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    app = TableCompanionApp(game=game, play_folder=folder)
    app.run()
    return app.exit_status


def scan_photo(folder: str | Path, game: str, source: str | None) -> int:
    """Open the app on a new `game` with `source` (an image folder; None: the demo and its
    bundled recording) as its camera, show Scoring, tap the first person's Scan, wait until
    the picture is read, save ``scoring.png`` and ``scan.json`` (the message and that person's
    counts) into `folder`, tap the picture and save it large (``picture.png``), exit."""
    prepare_kivy_environment()
    from companion_app.app.main import TableCompanionApp

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    if source is None:
        app = TableCompanionApp(game=game, demo=True, scan_folder=folder)
    else:
        app = TableCompanionApp(game=game, source=source, scan_folder=folder)
    app.run()
    return app.exit_status


__all__ = [
    "WINDOW_SIZE",
    "launch",
    "play_whole_game",
    "prepare_kivy_environment",
    "scan_photo",
    "tour",
]
