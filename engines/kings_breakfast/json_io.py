"""King's Breakfast states and actions to and from JSON-able dictionaries.

Counts are written as sparse objects in catalogue order (``{"cheese": 3}``; zero counts
left out). Reading checks every field and names it in the error, then checks that the position
is one the rules can reach in shape: 3–5 players, indices in range, the full box of cards.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.errors import MalformedError
from engines.kings_breakfast.catalogue import (
    CARDS,
    CATALOGUE,
    FOODS,
    N_FOODS,
    counts_from_mapping,
    counts_to_dict,
    parse_count,
)
from engines.kings_breakfast.rules import cards_per_round, new_game
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

GAME = "kings-breakfast"


def state_to_json(state: State) -> dict[str, Any]:
    """The whole state (hidden draws included) as a JSON-able dictionary."""
    return {
        "game": GAME,
        "players": list(state.players),
        "cook": state.cook,
        "round": state.round,
        "phase": state.phase,
        "current": state.current,
        "acted": state.acted,
        "dealt": state.dealt,
        "deck": counts_to_dict(state.deck),
        "offer": counts_to_dict(state.offer),
        "emeralds_on_table": state.emeralds_on_table,
        "king": counts_to_dict(state.king),
        "hands": {
            name: {"taken": counts_to_dict(taken), "drawn": counts_to_dict(drawn)}
            for name, taken, drawn in zip(state.players, state.taken, state.drawn, strict=True)
        },
        "removed": counts_to_dict(state.removed),
        "unused": counts_to_dict(state.unused),
    }


def state_from_json(data: object) -> State:
    """Rebuild a state written by `state_to_json`.

    Raises:
        MalformedError: a field is missing, has the wrong type or value (the message names it),
            or the cards do not add up to the box (KB-1).
    """
    obj = _object(data, "state")
    if obj.get("game", GAME) != GAME:
        raise MalformedError(f"state.game must be {GAME!r}, got {obj.get('game')!r}")
    players = _field(obj, "players")
    if not isinstance(players, list):
        raise MalformedError(f"state.players must be a list of names, got {players!r}")
    new_game(players)  # validates the names and their number (KB-3)
    n = len(players)
    phase = _field(obj, "phase")
    if phase not in Phase.ALL:
        raise MalformedError(f"state.phase must be one of {', '.join(Phase.ALL)}, got {phase!r}")
    hands = _object(_field(obj, "hands"), "state.hands")
    if list(hands) != players:
        raise MalformedError(f"state.hands must have one entry per player, got {list(hands)!r}")
    taken, drawn = [], []
    for name in players:
        hand = _object(hands[name], f"state.hands.{name}")
        taken.append(_counts(hand.get("taken", {}), f"state.hands.{name}.taken", N_FOODS))
        drawn.append(_counts(hand.get("drawn", {}), f"state.hands.{name}.drawn", N_FOODS))
    state = State(
        players=tuple(players),
        cook=_index(obj, "cook", n),
        round=_int(obj, "round", minimum=1),
        phase=phase,
        current=_index(obj, "current", n),
        acted=_int(obj, "acted", maximum=n - 1),
        dealt=_int(obj, "dealt", maximum=cards_per_round(n)),
        deck=_counts(obj.get("deck", {}), "state.deck", len(CARDS)),
        offer=_counts(obj.get("offer", {}), "state.offer", N_FOODS),
        emeralds_on_table=_int(obj, "emeralds_on_table"),
        king=_counts(obj.get("king", {}), "state.king", N_FOODS),
        taken=tuple(taken),
        drawn=tuple(drawn),
        removed=_counts(obj.get("removed", {}), "state.removed", len(CARDS)),
        unused=_counts(obj.get("unused", {}), "state.unused", len(CARDS)),
    )
    box = dict(zip(CARDS, CATALOGUE.card_copies, strict=True))
    if dict(inventory(state)) != box:
        raise MalformedError(
            f"state: the cards do not add up to the box (KB-1): counted {dict(inventory(state))}"
        )
    return state


def action_to_json(action: Action) -> dict[str, Any]:
    """An action as ``{"type": …}`` plus its fields."""
    if isinstance(action, DealCard):
        return {"type": "deal", "card": action.card}
    if isinstance(action, DrawnCard):
        return {"type": "drawn", "card": action.card}
    if isinstance(action, TakePile):
        return {"type": "take", "food": action.food}
    if isinstance(action, DrawCard):
        return {"type": "draw"}
    if isinstance(action, UseEmerald):
        return {"type": "emerald", "foods": list(action.foods)}
    if isinstance(action, LayEmerald):
        return {"type": "lay_emerald"}
    if isinstance(action, Pass):
        return {"type": "pass"}
    raise MalformedError(f"not a king's breakfast action: {action!r}")


def action_from_json(data: object) -> Action:
    """Rebuild an action written by `action_to_json`.

    Raises:
        MalformedError: unknown type or a bad field (the message names it).
    """
    obj = _object(data, "action")
    kind = obj.get("type")
    if kind == "deal":
        return DealCard(_field(obj, "card", "action"))
    if kind == "drawn":
        return DrawnCard(_field(obj, "card", "action"))
    if kind == "take":
        return TakePile(_field(obj, "food", "action"))
    if kind == "draw":
        return DrawCard()
    if kind == "emerald":
        foods = _field(obj, "foods", "action")
        if not isinstance(foods, list):
            raise MalformedError(f"action.foods must be a list of two foods, got {foods!r}")
        return UseEmerald(tuple(foods))  # type: ignore[arg-type]
    if kind == "lay_emerald":
        return LayEmerald()
    if kind == "pass":
        return Pass()
    raise MalformedError(
        "action.type must be one of deal, drawn, take, draw, emerald, lay_emerald, pass; "
        f"got {kind!r}"
    )


# --- field readers ------------------------------------------------------------------------------


def _object(value: object, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise MalformedError(f"{field} must be a json object, got {type(value).__name__}")
    return value


def _field(obj: Mapping[str, Any], name: str, where: str = "state") -> Any:
    if name not in obj:
        raise MalformedError(f"missing field {where}.{name}")
    return obj[name]


def _int(obj: Mapping[str, Any], name: str, *, minimum: int = 0, maximum: int | None = None) -> int:
    value = parse_count(_field(obj, name), f"state.{name}")
    if value < minimum or (maximum is not None and value > maximum):
        raise MalformedError(f"state.{name} out of range: {value}")
    return value


def _index(obj: Mapping[str, Any], name: str, n_players: int) -> int:
    return _int(obj, name, maximum=n_players - 1)


def _counts(value: object, field: str, width: int) -> tuple[int, ...]:
    return counts_from_mapping(value, field, allow_emerald=width > N_FOODS, width=width)


__all__ = ["FOODS", "action_from_json", "action_to_json", "state_from_json", "state_to_json"]
