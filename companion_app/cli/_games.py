"""Dispatch of game-specific subcommands (`score GAME`, `advise GAME`) to per-game CLI modules.

Each game has one module, `companion_app.cli.<game_package>`, with a function per verb it
supports (``score(args) -> int``, ``advise(args) -> int``). A verb a game does not offer yet is
reported in one line.
"""

from __future__ import annotations

import argparse
import importlib

from companion_app.cli._common import UsageError

GAME_MODULES: dict[str, str] = {
    "kings-breakfast": "companion_app.cli.kings_breakfast",
    "cafe-international": "companion_app.cli.cafe_international",
    "dice-king": "companion_app.cli.dice_king",
}


def dispatch(verb: str, args: argparse.Namespace) -> int:
    """Call `verb` of the game named in ``args.game``."""
    module_name = GAME_MODULES[args.game]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            raise
        module = None
    handler = getattr(module, verb, None)
    if handler is None:
        raise UsageError(f"'{verb}' is not available for {args.game} yet")
    return int(handler(args) or 0)
