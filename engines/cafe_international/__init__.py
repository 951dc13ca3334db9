"""Café International (Rudi Hoffmann, 1989): the rules engine, its board layouts and the advisor.

Owns the catalogue of tiles (CI-2), board layouts as data (CI-3…CI-5), the game state and turn
rules (CI-6…CI-22), the position check and the placement advisor. The API is the one every game
implements (`engines.api.GameRules`).

Public names: `NAME`, `TOTAL_PIECES`, `new_game`, `legal_actions`, `is_legal`, `apply`,
`is_chance_node`, `chance_outcomes`, `is_over`, `scores`, `public_view`, `inventory`,
`state_to_json`, `state_from_json`, `action_to_json`, `action_from_json`, and `State`, `Layout`,
the actions (`Seat`, `Placement`, `ToBar`, `Swap`, `Pass`, `Draw`), `check_position`,
`PositionError`, `layout_from_json`, `layout_to_json`, `reference_layout`, `end_reason`.
"""

from __future__ import annotations

from typing import Any

from engines.cafe_international.catalogue import TOTAL_TILES, Gender, Nationality
from engines.cafe_international.explain import (
    UNKNOWN_TILE,
    Observation,
    check_observation,
    explain,
    explain_states,
    observe,
)
from engines.cafe_international.json_io import (
    action_from_json,
    action_to_json,
    state_from_json,
    state_to_json,
)
from engines.cafe_international.layout import (
    Layout,
    layout_from_json,
    layout_to_json,
    reference_layout,
)
from engines.cafe_international.position import PositionError, check_position
from engines.cafe_international.rules import (
    apply,
    chance_outcomes,
    end_reason,
    inventory,
    is_chance_node,
    is_legal,
    is_over,
    legal_actions,
    new_game,
    scores,
)
from engines.cafe_international.scoring import hand_penalty, ranking, winners
from engines.cafe_international.state import (
    Action,
    Draw,
    Pass,
    Placement,
    Seat,
    State,
    Swap,
    ToBar,
)

NAME = "cafe-international"
TOTAL_PIECES = TOTAL_TILES


def public_view(state: State) -> dict[str, Any]:
    """What everyone at the table sees: hands are face up (CI-6), so that is everything but the
    order of the bag; plus the bar tally and, once over, the final result (CI-21, CI-22)."""
    layout = state.layout
    taken = len(state.bar)
    reason = end_reason(state)
    totals = scores(state)
    view: dict[str, Any] = {
        "game": NAME,
        "layout": layout.name,
        "players": [
            {
                "name": name,
                "score": totals[name],
                "hand": list(hand),
                "hand_limit": limit,
            }
            for name, hand, limit in zip(state.players, state.hands, state.hand_limits, strict=True)
        ],
        "to_move": state.players[state.current],
        "drawing": state.players[state.refill[0]] if state.refill and reason is None else None,
        "seated": state.seated_by_chair(),
        "bar": {
            "guests": list(state.bar),
            "taken": taken,
            "points_given": sum(layout.bar_values[:taken]),
            "next_stool": taken + 1 if taken < len(layout.bar_values) else None,
            "next_value": layout.bar_values[taken] if taken < len(layout.bar_values) else None,
        },
        "bag": state.bag_size,
        "over": reason is not None,
        "end_reason": reason,
    }
    if reason is not None:
        view["penalties"] = {
            name: hand_penalty(hand) for name, hand in zip(state.players, state.hands, strict=True)
        }
        view["ranking"] = ranking(totals)
        view["winners"] = winners(totals)
    return view


__all__ = [
    "Action",
    "Draw",
    "Gender",
    "Layout",
    "NAME",
    "Nationality",
    "Observation",
    "Pass",
    "Placement",
    "PositionError",
    "Seat",
    "State",
    "Swap",
    "TOTAL_PIECES",
    "ToBar",
    "UNKNOWN_TILE",
    "action_from_json",
    "action_to_json",
    "apply",
    "chance_outcomes",
    "check_observation",
    "check_position",
    "end_reason",
    "explain",
    "explain_states",
    "inventory",
    "is_chance_node",
    "is_legal",
    "is_over",
    "layout_from_json",
    "layout_to_json",
    "legal_actions",
    "new_game",
    "observe",
    "public_view",
    "reference_layout",
    "scores",
    "state_from_json",
    "state_to_json",
]
