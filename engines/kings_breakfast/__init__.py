"""King's Breakfast (King Lui): the rules engine, clauses KB-1..KB-23.

Owns the deck catalogue (`catalogue`), the rulings (`rulings`), the state and action values
(`state`), the rules (`rules`), scoring (`scoring`), the public view of the table (`view`),
JSON (`json_io`), the simulated players' heuristic (`policy`) and hints for the player to act
(`hints`). The module-level API is the one every game implements (`engines.api.GameRules`):

`NAME`, `TOTAL_PIECES`, `new_game`, `legal_actions`, `is_legal`, `apply`, `is_chance_node`,
`chance_outcomes`, `is_over`, `scores`, `public_view`, `inventory`, `state_to_json`,
`state_from_json`, `action_to_json`, `action_from_json`; plus `scores_from_counts` (the
``score kings-breakfast --counts`` contract), the value types `State`, `Phase`, `Food`,
`DealCard`, `DrawnCard`, `TakePile`, `DrawCard`, `UseEmerald`, `LayEmerald`, `Pass`,
`TableView` and `RULINGS`; `hints` and `hints_for_state` (advice for the player to act, from
the public view) and `choose_action` (the simulated players' heuristic).
"""

from __future__ import annotations

from engines.kings_breakfast.catalogue import CARDS, CATALOGUE, EMERALD, FOODS, Food
from engines.kings_breakfast.explain import (
    Observation,
    check_observation,
    explain,
    explain_states,
    observe,
    public_key,
    shows,
)
from engines.kings_breakfast.hints import hints, hints_for_state
from engines.kings_breakfast.json_io import (
    action_from_json,
    action_to_json,
    state_from_json,
    state_to_json,
)
from engines.kings_breakfast.policy import choose_action
from engines.kings_breakfast.rules import (
    apply,
    chance_outcomes,
    is_chance_node,
    is_legal,
    is_over,
    legal_actions,
    new_game,
)
from engines.kings_breakfast.rulings import RULINGS
from engines.kings_breakfast.scoring import scores, scores_from_counts
from engines.kings_breakfast.state import (
    Action,
    DealCard,
    DrawCard,
    DrawnCard,
    LayEmerald,
    Pass,
    Phase,
    State,
    TakePile,
    UseEmerald,
    inventory,
)
from engines.kings_breakfast.view import TableView, public_view

NAME = "kings-breakfast"
TOTAL_PIECES = CATALOGUE.total_cards

__all__ = [
    "CARDS",
    "EMERALD",
    "FOODS",
    "NAME",
    "RULINGS",
    "TOTAL_PIECES",
    "Action",
    "DealCard",
    "DrawCard",
    "DrawnCard",
    "Food",
    "LayEmerald",
    "Observation",
    "Pass",
    "Phase",
    "State",
    "TableView",
    "TakePile",
    "UseEmerald",
    "action_from_json",
    "action_to_json",
    "apply",
    "chance_outcomes",
    "check_observation",
    "choose_action",
    "explain",
    "explain_states",
    "hints",
    "hints_for_state",
    "inventory",
    "is_chance_node",
    "is_legal",
    "is_over",
    "legal_actions",
    "new_game",
    "observe",
    "public_key",
    "shows",
    "public_view",
    "scores",
    "scores_from_counts",
    "state_from_json",
    "state_to_json",
]
