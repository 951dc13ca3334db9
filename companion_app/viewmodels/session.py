"""`GameSession`: one game in progress — the engine, its history, the players, autosave.

The session is the only place the app changes a game. Every change (an action, a chance outcome,
undo, redo) makes a new `engines.api.History` value, saves the session through its save hook
(atomically, by `companion_app.storage`) and then tells its listeners. A saved record holds the
first state and every action as JSON, plus the current state itself, so resuming after a crash
restores the exact engine state even if replaying the actions were to fail.
"""

from __future__ import annotations

import inspect
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from engines import game_rules
from engines.api import History

RECORD_FORMAT = 1

# Keys an engine's public view may use for the round and the player to act (first match wins).
_ROUND_KEYS = ("round", "round_number", "turn_number")
_PLAYER_KEYS = ("current_player", "current", "to_move", "player_to_act", "active_player", "turn")
# Parameter names of `new_game` that take the starting player (cook, first king, first player).
_FIRST_PARAMETERS = ("first_player", "first", "starter", "cook", "first_cook", "first_king")


@dataclass(frozen=True)
class Player:
    """A player at the table: a name and a colour name (see `viewmodels.home.COLOURS`)."""

    name: str
    colour: str

    def to_json(self) -> dict[str, str]:
        """The player as a JSON object."""
        return {"name": self.name, "colour": self.colour}


@dataclass(frozen=True)
class LogEntry:
    """One step of the game's log: the action, when it happened and who took it."""

    step: int
    round: Any
    player: str | None
    action: dict[str, Any]
    is_chance: bool


SaveHook = Callable[[dict[str, Any]], Any]
Listener = Callable[["GameSession"], None]


def _first_parameter(rules: ModuleType) -> tuple[str, bool] | None:
    """The `new_game` parameter that takes the starter, and whether it wants an index."""
    try:
        parameters = inspect.signature(rules.new_game).parameters
    except (TypeError, ValueError):
        return None
    name = next((name for name in _FIRST_PARAMETERS if name in parameters), None)
    if name is None:
        return None
    parameter = parameters[name]
    wants_index = isinstance(parameter.default, int) or "int" in str(parameter.annotation)
    return name, wants_index


def _json_safe(value: Any) -> Any:
    """`value` if it is plain JSON, else a short name for it (e.g. a board layout's name)."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    if isinstance(value, list | tuple):
        return [_json_safe(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _json_safe(item) for key, item in value.items()}
    return str(getattr(value, "name", None) or type(value).__name__)


def _lookup(view: dict[str, Any], keys: Sequence[str]) -> Any:
    return next((view[key] for key in keys if key in view), None)


class GameSession:
    """A game in progress with undo/redo, autosave and a log by round."""

    def __init__(
        self,
        *,
        game: str,
        players: Sequence[Player],
        history: History[Any, Any],
        game_id: str,
        options: dict[str, Any] | None = None,
        seed: int = 0,
        created: str = "",
        save: SaveHook | None = None,
        rules: ModuleType | None = None,
    ) -> None:
        self.game = game
        self.rules: ModuleType = rules or game_rules(game)
        self.players: tuple[Player, ...] = tuple(players)
        self.history = history
        self.game_id = game_id
        self.options = dict(options or {})
        self.seed = seed
        self.created = created
        self._save = save
        self._listeners: list[Listener] = []
        self._views: dict[int, tuple[Any, dict[str, Any]]] = {}
        self.last_error: str | None = None

    # ---- construction ---------------------------------------------------------------------------

    @classmethod
    def start(
        cls,
        game: str,
        players: Sequence[Player],
        *,
        first: int = 0,
        game_id: str,
        options: dict[str, Any] | None = None,
        seed: int = 0,
        created: str = "",
        save: SaveHook | None = None,
        rules: ModuleType | None = None,
    ) -> GameSession:
        """A new game. `players` are in seat order (clockwise); `first` starts (or cooks).

        When the engine's `new_game` takes no starting-player argument, the seat order is
        rotated so that the starting player comes first (clockwise order is kept).

        Raises:
            ValueError: the engine refuses the players or options (message from the engine).
        """
        rules = rules or game_rules(game)
        if not 0 <= first < len(players):
            raise ValueError(f"first player index {first} out of range")
        names = [player.name for player in players]
        options = dict(options or {})
        parameter = _first_parameter(rules)
        if parameter is not None:
            name, wants_index = parameter
            starter: int | str = first if wants_index else names[first]
            state = rules.new_game(names, **{name: starter}, **options)
            seated = tuple(players)
        else:
            seated = tuple(players[first:]) + tuple(players[:first])
            state = rules.new_game([player.name for player in seated], **options)
        session = cls(
            game=game,
            players=seated,
            history=History.start(state),
            game_id=game_id,
            options=options,
            seed=seed,
            created=created,
            save=save,
            rules=rules,
        )
        session._autosave()
        return session

    @classmethod
    def from_record(
        cls,
        record: dict[str, Any],
        *,
        save: SaveHook | None = None,
        rules: ModuleType | None = None,
    ) -> GameSession:
        """Resume a saved game: the exact saved state, with its history when it replays.

        Raises:
            ValueError: the record is not a saved game of a known game.
        """
        try:
            game = str(record["game"])
            players = [Player(str(p["name"]), str(p.get("colour", ""))) for p in record["players"]]
            state_json = record["state"]
        except (KeyError, TypeError):
            raise ValueError("saved game is damaged: missing game, players or state") from None
        rules = rules or game_rules(game)
        current = rules.state_from_json(state_json)
        history = cls._replay(rules, record, current)
        return cls(
            game=game,
            players=players,
            history=history,
            game_id=str(record.get("id", "")),
            options=dict(record.get("options", {})),
            seed=int(record.get("seed", 0)),
            created=str(record.get("created", "")),
            save=save,
            rules=rules,
        )

    @staticmethod
    def _replay(rules: ModuleType, record: dict[str, Any], current: Any) -> History[Any, Any]:
        """Rebuild the history from the first state and the actions; fall back to `current`."""
        try:
            history: History[Any, Any] = History.start(rules.state_from_json(record["initial"]))
            for data in record.get("actions", []):
                history = history.push(rules, rules.action_from_json(data))
            redo = tuple(rules.action_from_json(data) for data in record.get("redo", []))
        except (KeyError, TypeError, ValueError):
            return History.start(current)
        if history.current != current:
            return History.start(current)
        return History(history.states, history.actions, redo)

    def to_record(self) -> dict[str, Any]:
        """The session as a JSON-ready dict (what autosave writes)."""
        rules = self.rules
        return {
            "format": RECORD_FORMAT,
            "id": self.game_id,
            "game": self.game,
            "players": [player.to_json() for player in self.players],
            "options": {key: _json_safe(value) for key, value in self.options.items()},
            "seed": self.seed,
            "created": self.created,
            "finished": self.is_over,
            "initial": rules.state_to_json(self.history.states[0]),
            "actions": [rules.action_to_json(action) for action in self.history.actions],
            "redo": [rules.action_to_json(action) for action in self.history.redo_stack],
            "state": rules.state_to_json(self.state),
        }

    # ---- reading --------------------------------------------------------------------------------

    @property
    def state(self) -> Any:
        """The current engine state."""
        return self.history.current

    @property
    def view(self) -> dict[str, Any]:
        """The engine's public view of the current state (cached per state)."""
        return self.view_at(len(self.history.states) - 1)

    def view_at(self, index: int) -> dict[str, Any]:
        """The public view of the state after `index` steps (cached)."""
        state = self.history.states[index]
        cached = self._views.get(index)
        if cached is None or cached[0] is not state:
            cached = (state, dict(self.rules.public_view(state)))
            self._views[index] = cached
        return cached[1]

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return bool(self.rules.is_over(self.state))

    @property
    def is_chance_node(self) -> bool:
        """Whether the next step is chance (a deal, a draw, a roll), not a player's choice."""
        return not self.is_over and bool(self.rules.is_chance_node(self.state))

    def scores(self) -> dict[str, int]:
        """The engine's scores for the current state."""
        return dict(self.rules.scores(self.state))

    @property
    def round(self) -> Any:
        """The current round as the engine's view reports it (None if it does not)."""
        return _lookup(self.view, _ROUND_KEYS)

    @property
    def player_to_act(self) -> str | None:
        """The name of the player to act, as the engine's view reports it (None at chance)."""
        value = _lookup(self.view, _PLAYER_KEYS)
        if isinstance(value, int) and 0 <= value < len(self.players):
            return self.players[value].name
        return None if value is None else str(value)

    def legal_actions(self) -> list[Any]:
        """The legal actions of the player to act (empty at chance nodes and at the end)."""
        if self.is_over or self.is_chance_node:
            return []
        return list(self.rules.legal_actions(self.state))

    def chance_outcomes(self) -> list[tuple[Any, float]]:
        """The possible chance outcomes with exact probabilities (empty when not at chance)."""
        return list(self.rules.chance_outcomes(self.state)) if self.is_chance_node else []

    def action_json(self, action: Any) -> dict[str, Any]:
        """An engine action as its JSON object."""
        return dict(self.rules.action_to_json(action))

    def log(self) -> list[LogEntry]:
        """Every step taken so far, oldest first."""
        entries: list[LogEntry] = []
        for step, action in enumerate(self.history.actions):
            view = self.view_at(step)
            state = self.history.states[step]
            player = _lookup(view, _PLAYER_KEYS)
            if isinstance(player, int) and 0 <= player < len(self.players):
                player = self.players[player].name
            entries.append(
                LogEntry(
                    step=step + 1,
                    round=_lookup(view, _ROUND_KEYS),
                    player=None if player is None else str(player),
                    action=self.action_json(action),
                    is_chance=bool(self.rules.is_chance_node(state)),
                )
            )
        return entries

    def log_by_round(self) -> list[tuple[Any, list[LogEntry]]]:
        """The log grouped by round, newest round first (round None when the engine has none)."""
        groups: list[tuple[Any, list[LogEntry]]] = []
        for entry in self.log():
            if groups and groups[-1][0] == entry.round:
                groups[-1][1].append(entry)
            else:
                groups.append((entry.round, [entry]))
        groups.reverse()
        return groups

    # ---- changing -------------------------------------------------------------------------------

    def apply(self, action: Any) -> None:
        """Apply a player's action or a chance outcome (checked by the engine), then autosave.

        Raises:
            ValueError: the engine rejects the action (its message names the clause).
        """
        self.history = self.history.push(self.rules, action)
        self._changed()

    def apply_json(self, data: dict[str, Any]) -> None:
        """Apply an action given as its JSON object (see `apply`)."""
        self.apply(self.rules.action_from_json(data))

    def play_chance(self, rng: random.Random | None = None) -> Any:
        """Sample one chance outcome with its exact probability and apply it; returns it.

        Without `rng`, a generator seeded from the session's seed and step count is used, so a
        replayed demo game is the same every time.
        """
        rng = rng or random.Random(self.seed * 100_003 + len(self.history.actions))
        outcomes = self.chance_outcomes()
        if not outcomes:
            raise ValueError("no chance step is due")
        actions = [action for action, _ in outcomes]
        weights = [probability for _, probability in outcomes]
        action = rng.choices(actions, weights=weights, k=1)[0]
        self.apply(action)
        return action

    @property
    def can_undo(self) -> bool:
        """Whether there is a step to undo."""
        return self.history.can_undo()

    @property
    def can_redo(self) -> bool:
        """Whether there is an undone step to redo."""
        return self.history.can_redo()

    def undo(self) -> None:
        """Take back the last step (kept for redo)."""
        self.history = self.history.undo()
        self._changed()

    def redo(self) -> None:
        """Replay the last undone step."""
        self.history = self.history.redo(self.rules)
        self._changed()

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(session)` after every change."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Listener) -> None:
        """Stop calling `listener`."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _autosave(self) -> None:
        if self._save is not None:
            self._save(self.to_record())

    def _changed(self) -> None:
        self._autosave()
        for listener in list(self._listeners):
            listener(self)


__all__ = ["GameSession", "LogEntry", "Player", "RECORD_FORMAT"]
