"""Pure rules engines for the three games: no I/O, no vision, nothing of ours imported.

Every game package (`engines.kings_breakfast`, `engines.cafe_international`, `engines.dice_king`)
implements the same narrow API, described by `engines.api.GameRules`. `GAMES` maps the contract game
names to those packages so that generic code (conformance tests, the app) can find them.

Public names: `GAMES`, `game_rules`, and the modules `api` and `errors`.
"""

from __future__ import annotations

import importlib
from types import ModuleType

GAMES: dict[str, str] = {
    "kings-breakfast": "engines.kings_breakfast",
    "cafe-international": "engines.cafe_international",
    "dice-king": "engines.dice_king",
}


def game_rules(game: str) -> ModuleType:
    """Return the rules package of `game` (a contract name such as ``"dice-king"``).

    Raises:
        ValueError: the name is not one of `GAMES`.
    """
    try:
        module_name = GAMES[game]
    except KeyError:
        known = ", ".join(GAMES)
        raise ValueError(f"unknown game {game!r} (known: {known})") from None
    return importlib.import_module(module_name)


__all__ = ["GAMES", "game_rules"]
