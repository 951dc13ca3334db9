"""Small factories for Dice King positions used by the rule tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import engines.dice_king as dk
from engines.dice_king.state import State

PLAYERS = ("Anna", "Ben", "Cleo")

# Canonical penalty card of each value (identical-looking cards are one chance outcome).
PENALTY_OF_VALUE = {1: "penalty-1", 2: "penalty-3", 3: "penalty-6", 4: "penalty-9"}

EVEN = ("2r", "4g", "6b", "2g", "4r", "6r")  # meets a rich snob
LOW_10 = ("1r", "1g", "1b", "2r", "2g", "3b")  # sum 10: hypnotists
HIGH_32 = ("6r", "6g", "6b", "5r", "5g", "4b")  # sum 32: every dragon


def dealt(
    row: Sequence[str],
    *,
    players: Sequence[str] = PLAYERS,
    penalty: str = "penalty-3",
    first_player: int = 0,
) -> State:
    """A new game whose row (left to right) and top penalty are as given (DK-6, DK-7)."""
    state = dk.new_game(players, first_player=first_player)
    for card in reversed(row):  # dealt from the right
        state = dk.apply(state, dk.Reveal(card))
    return dk.apply(state, dk.Reveal(penalty))


def rolled(state: State, dice: Sequence[str]) -> State:
    """Roll the pending dice showing `dice`, one at a time."""
    for reading in dice:
        state = dk.apply(state, dk.RollDie(reading))
    return state


def edit(state: State, change: Callable[[dict[str, Any]], None]) -> State:
    """A state changed through its JSON (checked again by `state_from_json`)."""
    data = dk.state_to_json(state)
    change(data)
    return dk.state_from_json(data)


def move(data: dict[str, Any], card: str, to_player: str) -> None:
    """Move `card` from wherever it lies in the JSON into a player's kingdom (on top)."""
    for field in ("draw_pile", "discard", "penalty_pile", "gifts"):
        if card in data[field]:
            data[field].remove(card)
    for stack in data["villages"].values():
        if card in stack:
            stack.remove(card)
    data["row"] = [None if c == card else c for c in data["row"]]
    data["kingdoms"][to_player].append(card)


def fill_row_from_draw(data: dict[str, Any]) -> None:
    """Fill empty row slots with cards from the draw pile (to keep a JSON state whole)."""
    for i, card in enumerate(data["row"]):
        if card is None:
            data["row"][i] = data["draw_pile"].pop(0)
