"""JSON for Dice King states and actions, and the public view of a state.

`state_to_json` writes every field; `state_from_json` checks every field (naming it in a
`MalformedError`) and that every card lies in exactly one place. ``deck`` is written as
``"companion"``, the deck file's path, or the inline list of cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from engines.dice_king.catalogue import (
    DICE,
    LOCATIONS,
    CardType,
    load_deck,
    parse_dice,
    parse_reading,
    penalties,
    villages,
)
from engines.dice_king.rules import INHABITANTS, MAX_PLAYERS, MIN_PLAYERS, satisfied
from engines.dice_king.scoring import score_kingdom, winners
from engines.dice_king.state import (
    ROW_SLOTS,
    Action,
    Give,
    Phase,
    Reroll,
    Reveal,
    RollDie,
    State,
    Take,
    TakePenalty,
)
from engines.errors import MalformedError

# ---------------------------------------------------------------------------------------------
# Actions


def action_to_json(action: Action) -> dict[str, Any]:
    """An action as a JSON object with a ``type``."""
    if isinstance(action, RollDie):
        return {"type": "roll_die", "reading": action.reading}
    if isinstance(action, Reveal):
        return {"type": "reveal", "card": action.card}
    if isinstance(action, Reroll):
        return {"type": "reroll", "keep": list(action.keep)}
    if isinstance(action, Take):
        return {"type": "take", "card": action.card}
    if isinstance(action, TakePenalty):
        return {"type": "penalty"}
    if isinstance(action, Give):
        return {"type": "give", "card": action.card, "player": action.player}
    raise TypeError(f"not a dice king action: {action!r}")


def _str(data: Mapping[str, Any], name: str, where: str) -> str:
    if name not in data:
        raise MalformedError(f"missing {name!r} in {where}")
    value = data[name]
    if not isinstance(value, str) or not value:
        raise MalformedError(f"{where}.{name} must be a non-empty string, got {value!r}")
    return value


def action_from_json(data: Any) -> Action:
    """Parse an action object.

    Raises:
        MalformedError: unknown type or a bad field, named.
    """
    if not isinstance(data, Mapping):
        raise MalformedError(f"action must be an object, got {data!r}")
    kind = data.get("type")
    if kind == "roll_die":
        return RollDie(str(parse_reading(data.get("reading"), "action.reading")))
    if kind == "reveal":
        return Reveal(_str(data, "card", "action"))
    if kind == "reroll":
        return Reroll(parse_dice(data.get("keep"), "action.keep", count=None))
    if kind == "take":
        return Take(_str(data, "card", "action"))
    if kind == "penalty":
        return TakePenalty()
    if kind == "give":
        return Give(_str(data, "card", "action"), _str(data, "player", "action"))
    raise MalformedError(f"unknown action type {kind!r} in action.type")


# ---------------------------------------------------------------------------------------------
# States


def state_to_json(state: State) -> dict[str, Any]:
    """Every field of `state` as JSON (see `state_from_json`)."""
    return {
        "deck": state.deck.to_json(),
        "players": list(state.players),
        "first_player": state.first_player,
        "current": state.current,
        "phase": state.phase.value,
        "draw_pile": list(state.draw_pile),
        "row": list(state.row),
        "villages": {
            loc.value: list(stack) for loc, stack in zip(LOCATIONS, state.villages, strict=True)
        },
        "penalty_top": state.penalty_top,
        "penalty_pile": list(state.penalty_pile),
        "discard": list(state.discard),
        "kingdoms": {
            name: list(pile) for name, pile in zip(state.players, state.kingdoms, strict=True)
        },
        "dice": list(state.dice),
        "to_roll": state.to_roll,
        "rolls_done": state.rolls_done,
        "rolls_allowed": state.rolls_allowed,
        "to_refill": state.to_refill,
        "gifts": list(state.gifts),
        "extra_turn": state.extra_turn,
    }


def _int(data: Mapping[str, Any], name: str, low: int, high: int) -> int:
    if name not in data:
        raise MalformedError(f"missing {name!r} in state")
    value = data[name]
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise MalformedError(f"state.{name} must be an integer {low}-{high}, got {value!r}")
    return value


def _ids(data: Mapping[str, Any], name: str, known: set[str], what: str) -> tuple[str, ...]:
    if name not in data:
        raise MalformedError(f"missing {name!r} in state")
    value = data[name]
    if not isinstance(value, list):
        raise MalformedError(f"state.{name} must be a list of card ids, got {value!r}")
    for i, card_id in enumerate(value):
        if card_id not in known:
            raise MalformedError(f"unknown {what} {card_id!r} in state.{name}[{i}]")
    return tuple(value)


def state_from_json(data: Any) -> State:
    """Parse and check a state written by `state_to_json`.

    Raises:
        MalformedError: a missing or bad field (named), or a card missing or in two places.
    """
    if not isinstance(data, Mapping):
        raise MalformedError("state must be a json object")
    if "deck" not in data:
        raise MalformedError("missing 'deck' in state")
    deck = load_deck(data["deck"], "state.deck")
    if len(deck.cards) != INHABITANTS:
        raise MalformedError(f"state.deck must hold {INHABITANTS} inhabitants")
    players = data.get("players")
    if (
        not isinstance(players, list)
        or not MIN_PLAYERS <= len(players) <= MAX_PLAYERS
        or not all(isinstance(p, str) and p for p in players)
        or len(set(players)) != len(players)
    ):
        raise MalformedError(f"state.players must be 2-5 distinct names, got {players!r}")
    n = len(players)
    inhabitants = set(deck.ids)
    village_ids = {v.id for stack in villages() for v in stack}
    penalty_ids = {p.id for p in penalties()}
    every = inhabitants | village_ids | penalty_ids

    phase_name = data.get("phase")
    if phase_name not in {p.value for p in Phase}:
        raise MalformedError(f"unknown phase {phase_name!r} in state.phase")

    row_data = data.get("row")
    if not isinstance(row_data, list) or len(row_data) != ROW_SLOTS:
        raise MalformedError(f"state.row must list {ROW_SLOTS} slots, got {row_data!r}")
    for i, card_id in enumerate(row_data):
        if card_id is not None and card_id not in inhabitants:
            raise MalformedError(f"unknown inhabitant {card_id!r} in state.row[{i}]")

    stacks_data = data.get("villages")
    if not isinstance(stacks_data, Mapping) or set(stacks_data) != {loc.value for loc in LOCATIONS}:
        raise MalformedError("state.villages must map each location to its stack")
    stacks = []
    for loc, full in zip(LOCATIONS, villages(), strict=True):
        stack = stacks_data[loc.value]
        ids = [v.id for v in full]
        if not isinstance(stack, list) or stack != ids[len(ids) - len(stack) :]:
            raise MalformedError(f"bad village stack {stack!r} in state.villages.{loc.value}")
        stacks.append(tuple(stack))

    top = data.get("penalty_top")
    if top is not None and top not in penalty_ids:
        raise MalformedError(f"unknown penalty {top!r} in state.penalty_top")

    kingdoms_data = data.get("kingdoms")
    if not isinstance(kingdoms_data, Mapping) or set(kingdoms_data) != set(players):
        raise MalformedError("state.kingdoms must map every player to their pile")
    kingdoms = tuple(_ids(kingdoms_data, name, every, "card") for name in players)

    dice_data = data.get("dice")
    if not isinstance(dice_data, list) or len(dice_data) > DICE:
        raise MalformedError(f"state.dice must list at most six dice, got {dice_data!r}")
    dice = parse_dice(dice_data, "state.dice", count=None)
    extra = data.get("extra_turn")
    if not isinstance(extra, bool):
        raise MalformedError(f"state.extra_turn must be true or false, got {extra!r}")
    dragons = {c.id for c in deck.cards if c.type is CardType.DRAGON}

    state = State(
        deck=deck,
        players=tuple(players),
        first_player=_int(data, "first_player", 0, n - 1),
        current=_int(data, "current", 0, n - 1),
        phase=Phase(phase_name),
        draw_pile=tuple(sorted(_ids(data, "draw_pile", inhabitants, "inhabitant"))),
        row=tuple(row_data),
        villages=tuple(stacks),
        penalty_top=top,
        penalty_pile=tuple(sorted(_ids(data, "penalty_pile", penalty_ids, "penalty"))),
        discard=_ids(data, "discard", inhabitants, "inhabitant"),
        kingdoms=kingdoms,
        dice=dice,
        to_roll=_int(data, "to_roll", 0, DICE),
        rolls_done=_int(data, "rolls_done", 0, 4),
        rolls_allowed=_int(data, "rolls_allowed", 3, 4),
        to_refill=_int(data, "to_refill", 0, 2),
        gifts=_ids(data, "gifts", dragons, "dragon"),
        extra_turn=extra,
    )
    if len(state.dice) + state.to_roll > DICE:
        raise MalformedError("state.dice and state.to_roll make more than six dice")
    counts = Counter(state.draw_pile)
    counts.update(c for c in state.row if c is not None)
    for stack in state.villages:
        counts.update(stack)
    counts.update([top] if top is not None else [])
    counts.update(state.penalty_pile)
    counts.update(state.discard)
    for pile in state.kingdoms:
        counts.update(pile)
    counts.update(state.gifts)
    for card_id, count in counts.items():
        if count > 1:
            raise MalformedError(f"card {card_id!r} appears {count} times in state")
    missing = sorted(every - set(counts))
    if missing:
        raise MalformedError(f"card {missing[0]!r} is missing from state")
    return state


# ---------------------------------------------------------------------------------------------
# What everyone at the table sees


def public_view(state: State) -> dict[str, Any]:
    """What every player sees: no hidden card identity (only how many cards are unseen)."""
    points = {p.id: p.points for p in penalties()}
    village_points = {v.id: v.points for stack in villages() for v in stack}
    view: dict[str, Any] = {
        "players": list(state.players),
        "current": state.player,
        "phase": state.phase.value,
        "inhabitants_left": len(state.draw_pile),
        "row": [
            None
            if card_id is None
            else {
                "card": card_id,
                "village": LOCATIONS[i] == state.deck.card(card_id).colour
                and bool(state.villages[i]),
            }
            for i, card_id in enumerate(state.row)
        ],
        "villages": {
            loc.value: (village_points[stack[0]] if stack else None)
            for loc, stack in zip(LOCATIONS, state.villages, strict=True)
        },
        "penalty_top": None if state.penalty_top is None else points[state.penalty_top],
        "penalties_left": len(state.penalty_pile) + (state.penalty_top is not None),
        "discard": list(state.discard),
        "dice": list(state.dice),
        "rolls_left": state.rolls_left,
        "satisfied": satisfied(state),
        "gifts": list(state.gifts),
        "kingdoms": {
            name: {"cards": list(pile), "score": score_kingdom(state.deck, pile).total}
            for name, pile in zip(state.players, state.kingdoms, strict=True)
        },
    }
    if state.phase is Phase.OVER:
        view["winners"] = winners(state)
    return view


__all__ = [
    "action_from_json",
    "action_to_json",
    "public_view",
    "state_from_json",
    "state_to_json",
]
