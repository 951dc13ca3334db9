"""A tiny game with the engine API, so the view models are tested without the real engines.

Two or more players take turns: a chance step rolls a die (1–3), then the player to act keeps the
roll (adds it to their score) or passes. Three rounds. States and actions are frozen values and
round-trip through JSON like a real engine's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

NAME = "toy"
TOTAL_PIECES = 0
ROUNDS = 3


@dataclass(frozen=True)
class State:
    players: tuple[str, ...]
    totals: tuple[int, ...]
    turn: int = 0
    round: int = 1
    roll: int | None = None


@dataclass(frozen=True)
class Roll:
    value: int


@dataclass(frozen=True)
class Keep:
    pass


@dataclass(frozen=True)
class Pass:
    pass


def new_game(players: Sequence[str], **options: Any) -> State:
    if len(players) < 2:
        raise ValueError(f"toy needs 2 or more players, got {len(players)}")
    return State(tuple(players), (0,) * len(players))


def is_over(state: State) -> bool:
    return state.round > ROUNDS


def is_chance_node(state: State) -> bool:
    return not is_over(state) and state.roll is None


def chance_outcomes(state: State) -> list[tuple[Any, float]]:
    return [(Roll(v), 1 / 3) for v in (1, 2, 3)] if is_chance_node(state) else []


def legal_actions(state: State) -> list[Any]:
    if is_over(state) or is_chance_node(state):
        return []
    return [Keep(), Pass()]


def is_legal(state: State, action: Any) -> bool:
    return action in legal_actions(state) or action in [a for a, _ in chance_outcomes(state)]


def apply(state: State, action: Any) -> State:
    if not is_legal(state, action):
        raise ValueError(f"TOY-1: illegal action {action!r}")
    if isinstance(action, Roll):
        return State(state.players, state.totals, state.turn, state.round, action.value)
    totals = list(state.totals)
    if isinstance(action, Keep):
        totals[state.turn] += state.roll or 0
    turn = (state.turn + 1) % len(state.players)
    round_ = state.round + (1 if turn == 0 else 0)
    return State(state.players, tuple(totals), turn, round_, None)


def scores(state: State) -> dict[str, int]:
    return dict(zip(state.players, state.totals, strict=True))


def public_view(state: State) -> dict[str, Any]:
    return {
        "round": state.round,
        "current_player": None if is_chance_node(state) else state.players[state.turn],
        "roll": state.roll,
    }


def inventory(state: State) -> Counter[str]:
    return Counter()


def state_to_json(state: State) -> dict[str, Any]:
    return {
        "players": list(state.players),
        "totals": list(state.totals),
        "turn": state.turn,
        "round": state.round,
        "roll": state.roll,
    }


def state_from_json(data: Any) -> State:
    return State(
        tuple(data["players"]), tuple(data["totals"]), data["turn"], data["round"], data["roll"]
    )


def action_to_json(action: Any) -> dict[str, Any]:
    if isinstance(action, Roll):
        return {"type": "roll", "value": action.value}
    return {"type": "keep" if isinstance(action, Keep) else "pass"}


def action_from_json(data: Any) -> Any:
    if data["type"] == "roll":
        return Roll(int(data["value"]))
    return Keep() if data["type"] == "keep" else Pass()
