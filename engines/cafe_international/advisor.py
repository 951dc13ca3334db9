"""The placement advisor: every legal action for a position and hand, best first (CI-13…CI-20).

The position is the design's advice JSON: ``layout``, ``seated`` (chair → seated id), ``bar``
(tiles on the stools in order), ``hand`` and ``first_turn_of_game`` (CI-15). The answer lists
every legal action with the points it scores now and its change of hand limit (CI-20); two
orders of one pair of placements that lead to the same board are listed once, at their best.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.cafe_international.catalogue import (
    TILE_COUNTS,
    TILE_INDEX,
    TILE_KINDS,
    describe_tile,
    hand_tile,
)
from engines.cafe_international.json_io import (
    action_to_json,
    layout_value_from_json,
    placement_to_json,
)
from engines.cafe_international.layout import Layout
from engines.cafe_international.position import PositionError, check_position, lone_chairs
from engines.cafe_international.rules import ScoredAction, candidate_actions
from engines.cafe_international.state import HAND_SIZE, Pass, Seat, State, Swap, ToBar
from engines.errors import MalformedError, Problem

POSITION_FIELDS = ("layout", "bar_reading", "seated", "bar", "hand", "first_turn_of_game")
_TYPE_ORDER = {Seat: 0, ToBar: 1, Swap: 2, Pass: 3}


def position_from_json(data: Any, *, layouts: Mapping[str, Layout] | None = None) -> State:
    """Build the state of the player to move from an advice position.

    Raises:
        MalformedError: the JSON has the wrong shape (the message names the field).
        PositionError: the position breaks the rules: every problem, in one message.
    """
    if not isinstance(data, Mapping):
        raise MalformedError(f"the state must be a json object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(POSITION_FIELDS))
    if unknown:
        raise MalformedError(
            f"unknown field {unknown[0]!r} in state (known: {', '.join(POSITION_FIELDS)})"
        )
    layout = layout_value_from_json(
        data.get("layout", "reference"), data.get("bar_reading"), layouts
    )
    seated = data.get("seated", {})
    if not isinstance(seated, Mapping):
        raise MalformedError(f"seated must map chair ids to tiles, got {seated!r}")
    bar = data.get("bar", [])
    if not isinstance(bar, list):
        raise MalformedError(f"bar must be a list of tiles, got {bar!r}")
    hand = data.get("hand")
    if not isinstance(hand, list):
        raise MalformedError(f"hand must be a list of tiles, got {hand!r}")
    first_turn = data.get("first_turn_of_game", False)
    if not isinstance(first_turn, bool):
        raise MalformedError(f"first_turn_of_game must be true or false, got {first_turn!r}")
    problems = set(check_position(layout, seated, bar, hand))
    if len(hand) > HAND_SIZE:
        problems.add(Problem("CI-6", f"a hand holds at most {HAND_SIZE} tiles, got {len(hand)}"))
    if problems:
        raise PositionError(problems)
    board: list[str | None] = [None] * len(layout.chairs)
    for chair_id, guest in seated.items():
        board[layout.chair_index[chair_id]] = guest
    used = [hand_tile(g) for g in board if g is not None] + list(bar) + list(hand)
    bag = tuple(TILE_COUNTS[tile] - used.count(tile) for tile in TILE_KINDS)
    lone = lone_chairs(layout, board)
    return State(
        layout=layout,
        players=("player",),
        hands=(tuple(sorted(hand, key=TILE_INDEX.__getitem__)),),
        hand_limits=(HAND_SIZE,),
        points=(0,),
        seated=tuple(board),
        bar=tuple(bar),
        bag=bag,
        current=0,
        turn=0 if first_turn else 1,
        lone_chair=lone[0] if lone else None,
    )


def _sort_key(scored: ScoredAction) -> tuple[int, int, int, str]:
    return (
        -scored.points,
        scored.hand_limit_change,
        _TYPE_ORDER[type(scored.action)],
        repr(action_to_json(scored.action)),
    )


def advise(state: State) -> list[ScoredAction]:
    """Every legal action of the player to move, best first: most points, then the larger hand
    limit reduction (CI-20, fewer tiles to pay for at the end), seating before bar before swap."""
    return sorted(candidate_actions(state), key=_sort_key)


def scored_to_json(state: State, scored: ScoredAction) -> dict[str, Any]:
    """One entry of the advice answer (the design's shape)."""
    action = scored.action
    entry: dict[str, Any] = {}
    if isinstance(action, Seat):
        entry = {"type": "seat", "placements": [placement_to_json(p) for p in action.placements]}
    elif isinstance(action, ToBar):
        entry = {"type": "bar", "tile": action.tile, "stool": len(state.bar) + 1}
    else:
        entry = action_to_json(action)
    entry["points"] = scored.points
    entry["hand_limit_change"] = scored.hand_limit_change
    return entry


def advice_to_json(state: State, advice: list[ScoredAction]) -> dict[str, Any]:
    """``{"actions": [...]}``, best first."""
    return {"actions": [scored_to_json(state, scored) for scored in advice]}


def _where(layout: Layout, chair_id: str) -> str:
    return f"{'/'.join(layout.tables_of_chair(chair_id))} ({chair_id})"


def _signed(number: int) -> str:
    return f"+{number}" if number > 0 else str(number).replace("-", "−")


def _points(points: int, signed: bool = False) -> str:
    number = _signed(points) if signed else str(points)
    return f"{number} point{'' if abs(points) == 1 else 's'}"


def describe(state: State, scored: ScoredAction) -> str:
    """One readable line: ``Seat Italy ♀ at T07 (C25) and Italy ♂ at T07/T08 (C31): 14 points,
    hand −1``."""
    action = scored.action
    layout = state.layout
    if isinstance(action, Seat):
        parts = []
        for placement in action.placements:
            parts.append(f"{describe_tile(placement.seated)} at {_where(layout, placement.chair)}")
        text = f"Seat {' and '.join(parts)}: {_points(scored.points)}"
        if scored.hand_limit_change:
            text += f", hand {_signed(scored.hand_limit_change)}"
        return text
    if isinstance(action, ToBar):
        stool = len(state.bar) + 1
        return f"Bar: {describe_tile(action.tile)} on stool {stool}: {_points(scored.points, True)}"
    if isinstance(action, Swap):
        joker = state.seated[layout.chair_index[action.chair]]
        assert joker is not None
        return (
            f"Swap {describe_tile(action.tile)} for the {describe_tile(joker)} at "
            f"{_where(layout, action.chair)}: 0 points, the joker goes to your hand"
        )
    return "No legal action: pass (CI-16)"


__all__ = [
    "POSITION_FIELDS",
    "advice_to_json",
    "advise",
    "describe",
    "position_from_json",
    "scored_to_json",
]
