"""The Home screen's view model: choose a game, seat the players, pick who starts, resume."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from companion_app.storage import GameStore, SavedGameInfo, new_game_id, now_iso
from companion_app.viewmodels.session import GameSession, Player
from engines import GAMES

# Player counts each game allows: KB-3 (3–5), Café International's box (2–4), Dice King (2–5).
PLAYER_RANGE: dict[str, tuple[int, int]] = {
    "kings-breakfast": (3, 5),
    "cafe-international": (2, 4),
    "dice-king": (2, 5),
}
# Colour name → RGBA (0–1) for the screen; chosen to stay apart in bad light.
COLOURS: dict[str, tuple[float, float, float, float]] = {
    "red": (0.90, 0.22, 0.21, 1.0),
    "blue": (0.16, 0.47, 0.96, 1.0),
    "green": (0.26, 0.70, 0.30, 1.0),
    "yellow": (0.98, 0.80, 0.18, 1.0),
    "purple": (0.62, 0.36, 0.85, 1.0),
    "orange": (0.96, 0.55, 0.13, 1.0),
}
MAX_NAME_LENGTH = 16


@dataclass(frozen=True)
class Message:
    """A translatable message: a catalogue key and its fields."""

    key: str
    fields: tuple[tuple[str, Any], ...] = ()

    def text(self, translate: Callable[..., str]) -> str:
        """The message in the current language, given a translator's `t`."""
        return translate(self.key, **dict(self.fields))


class HomeViewModel:
    """Game choice, the players in seat order (name, colour), the starter, and saved games."""

    def __init__(
        self, store: GameStore | None = None, default_game: str = "kings-breakfast"
    ) -> None:
        self.store = store
        self.game = default_game
        self.players: list[Player] = [
            Player("Anna", "red"),
            Player("Ben", "blue"),
            Player("Cecilia", "green"),
        ]
        self.first = 0
        self._listeners: list[Callable[[], None]] = []

    # ---- observers ---
    def add_listener(self, listener: Callable[[], None]) -> None:
        """Call `listener()` after every change."""
        self._listeners.append(listener)

    def _changed(self) -> None:
        for listener in list(self._listeners):
            listener()

    # ---- game ---
    def choose_game(self, game: str) -> None:
        """Choose the game to play (a contract name).

        Raises:
            ValueError: unknown game.
        """
        if game not in GAMES:
            raise ValueError(f"unknown game {game!r}")
        self.game = game
        self._changed()

    @property
    def player_range(self) -> tuple[int, int]:
        """The smallest and largest player count of the chosen game."""
        return PLAYER_RANGE[self.game]

    # ---- players ---
    def add_player(self) -> None:
        """Seat a new player (next free colour, a placeholder name) if the game allows one more."""
        if len(self.players) >= self.player_range[1]:
            return
        used = {player.colour for player in self.players}
        colour = next((c for c in COLOURS if c not in used), "red")
        number = len(self.players) + 1
        names = {player.name for player in self.players}
        while f"P{number}" in names:
            number += 1
        self.players.append(Player(f"P{number}", colour))
        self._changed()

    def remove_player(self, index: int) -> None:
        """Remove the player at seat `index` (the starter stays the same person if possible)."""
        if not 0 <= index < len(self.players) or len(self.players) <= 1:
            return
        del self.players[index]
        if self.first > index or self.first >= len(self.players):
            self.first = max(0, self.first - 1)
        self._changed()

    def move_player(self, index: int, delta: int) -> None:
        """Move the player at seat `index` by `delta` seats (clockwise is +1)."""
        target = index + delta
        if not (0 <= index < len(self.players) and 0 <= target < len(self.players)):
            return
        self.players[index], self.players[target] = self.players[target], self.players[index]
        if self.first == index:
            self.first = target
        elif self.first == target:
            self.first = index
        self._changed()

    def rename_player(self, index: int, name: str) -> None:
        """Set the name at seat `index` (trimmed, at most `MAX_NAME_LENGTH` characters)."""
        if 0 <= index < len(self.players):
            name = " ".join(name.split())[:MAX_NAME_LENGTH]
            if name != self.players[index].name:
                self.players[index] = replace(self.players[index], name=name)
                self._changed()

    def cycle_colour(self, index: int) -> None:
        """Give the player at seat `index` the next colour no one else has."""
        if not 0 <= index < len(self.players):
            return
        names = list(COLOURS)
        used = {p.colour for i, p in enumerate(self.players) if i != index}
        current = (
            names.index(self.players[index].colour) if self.players[index].colour in names else -1
        )
        for step in range(1, len(names) + 1):
            colour = names[(current + step) % len(names)]
            if colour not in used:
                self.players[index] = replace(self.players[index], colour=colour)
                break
        self._changed()

    def set_first(self, index: int) -> None:
        """Choose who starts (the first cook in King's Breakfast, the first king in Dice King)."""
        if 0 <= index < len(self.players):
            self.first = index
            self._changed()

    def problems(self) -> list[Message]:
        """Everything that stops the game from starting, all at once."""
        problems: list[Message] = []
        low, high = self.player_range
        if not low <= len(self.players) <= high:
            problems.append(Message("home.problem.count", (("low", low), ("high", high))))
        names = [player.name for player in self.players]
        if any(not name for name in names):
            problems.append(Message("home.problem.empty_name"))
        duplicates = sorted({name for name in names if name and names.count(name) > 1})
        for name in duplicates:
            problems.append(Message("home.problem.duplicate", (("name", name),)))
        return problems

    @property
    def can_start(self) -> bool:
        """Whether a game can start with these settings."""
        return not self.problems()

    def start(self, options: dict[str, Any] | None = None, seed: int = 0) -> GameSession:
        """Start the chosen game, autosaving into the store when there is one.

        Raises:
            ValueError: a problem of `problems()` (the first), or the engine refuses the setup.
        """
        problems = self.problems()
        if problems:
            raise ValueError(f"cannot start: {problems[0].key}")
        return GameSession.start(
            self.game,
            self.players,
            first=self.first,
            game_id=new_game_id(self.game),
            options=options,
            seed=seed,
            created=now_iso(),
            save=self.store.save if self.store is not None else None,
        )

    # ---- saved games ---
    def saved_games(self, limit: int = 5) -> list[SavedGameInfo]:
        """The most recent saved games that can be resumed (unfinished first)."""
        if self.store is None:
            return []
        games = self.store.list()
        games.sort(key=lambda info: info.finished)
        return games[:limit]

    def resume(self, game_id: str) -> GameSession:
        """Resume a saved game; later changes keep autosaving into the same file.

        Raises:
            ValueError: no store, or the saved game is missing or damaged.
        """
        if self.store is None:
            raise ValueError("no saved games here")
        record = self.store.load(game_id)
        return GameSession.from_record(record, save=self.store.save)


__all__ = ["COLOURS", "MAX_NAME_LENGTH", "Message", "PLAYER_RANGE", "HomeViewModel"]
