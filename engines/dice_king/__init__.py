"""Dice King (HABA "Würfelkönig"): cards as data, the rules DK-1 … DK-26, an exact keep advisor.

Owns the dice readings and card catalogue (`catalogue`), the ten requirements (`requirements`),
the state and actions (`state`), the rules (`rules`), scoring (`scoring`), JSON (`json_io`) and the
keep advisor (`advisor`). The module-level functions below are the engine API of `engines.api`.

Public names: `NAME`, `TOTAL_PIECES`, `new_game`, `legal_actions`, `is_legal`, `apply`,
`is_chance_node`, `chance_outcomes`, `is_over`, `scores`, `public_view`, `inventory`,
`state_to_json`, `state_from_json`, `action_to_json`, `action_from_json`, and the types `State`,
`Phase`, `RollDie`, `Reveal`, `Reroll`, `Take`, `TakePenalty`, `Give`; `UNKNOWN_CARD` marks a card
seen but not identified in an `Observation`.
"""

from __future__ import annotations

from engines.dice_king.explain import (
    UNKNOWN_CARD,
    Observation,
    check_kingdom,
    check_observation,
    explain,
    explain_states,
    observe,
    score_pile,
    state_key,
)
from engines.dice_king.json_io import (
    action_from_json,
    action_to_json,
    public_view,
    state_from_json,
    state_to_json,
)
from engines.dice_king.rules import (
    apply,
    chance_outcomes,
    inventory,
    is_chance_node,
    is_legal,
    is_over,
    legal_actions,
    new_game,
)
from engines.dice_king.scoring import scores
from engines.dice_king.state import (
    Give,
    Phase,
    Reroll,
    Reveal,
    RollDie,
    State,
    Take,
    TakePenalty,
)

NAME = "dice-king"
TOTAL_PIECES = 65  # DK-2 … DK-4: 15 villages + 10 penalties + 40 inhabitants

__all__ = [
    "NAME",
    "TOTAL_PIECES",
    "UNKNOWN_CARD",
    "Give",
    "Observation",
    "Phase",
    "Reroll",
    "Reveal",
    "RollDie",
    "State",
    "Take",
    "TakePenalty",
    "action_from_json",
    "action_to_json",
    "apply",
    "chance_outcomes",
    "check_kingdom",
    "check_observation",
    "explain",
    "explain_states",
    "inventory",
    "is_chance_node",
    "is_legal",
    "is_over",
    "legal_actions",
    "new_game",
    "observe",
    "public_view",
    "score_pile",
    "scores",
    "state_from_json",
    "state_key",
    "state_to_json",
]
