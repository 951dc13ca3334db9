"""JSON to and from states and actions: round trips (property tests) and named errors."""

from __future__ import annotations

import json
import random
from typing import Any, cast

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engines.kings_breakfast as kb
from engines.api import GameRules, random_step
from engines.errors import MalformedError

# engines.api.GameRules declares new_game(players, **options); ours takes only `cook`
RULES = cast(GameRules, kb)
NAMESPACE = {name: getattr(kb, name) for name in kb.__all__}


def _state_after(seed: int, steps: int, n_players: int) -> kb.State:
    rng = random.Random(seed)
    state = kb.new_game([f"P{i}" for i in range(n_players)])
    for _ in range(steps):
        if kb.is_over(state):
            break
        state = kb.apply(state, random_step(RULES, state, rng))
    return state


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 250), n_players=st.integers(3, 5))
def test_state_json_and_repr_round_trip(seed: int, steps: int, n_players: int) -> None:
    """Parse, print, parse again gives the same value; ``repr`` rebuilds the state."""
    state = _state_after(seed, steps, n_players)
    text = json.dumps(kb.state_to_json(state))
    again = kb.state_from_json(json.loads(text))
    assert again == state
    assert json.dumps(kb.state_to_json(again)) == text
    assert eval(repr(state), NAMESPACE) == state  # noqa: S307 - repr rebuilds


_ACTIONS = st.one_of(
    st.sampled_from(kb.CARDS).map(kb.DealCard),
    st.sampled_from(kb.CARDS).map(kb.DrawnCard),
    st.sampled_from(kb.FOODS).map(kb.TakePile),
    st.tuples(st.sampled_from(kb.FOODS), st.sampled_from(kb.FOODS)).map(kb.UseEmerald),
    st.sampled_from([kb.DrawCard(), kb.LayEmerald(), kb.Pass()]),
)


@given(action=_ACTIONS)
def test_action_json_round_trip(action: kb.Action) -> None:
    """Every action survives JSON text and ``repr``."""
    data = json.loads(json.dumps(kb.action_to_json(action)))
    assert kb.action_from_json(data) == action
    assert eval(repr(action), NAMESPACE) == action  # noqa: S307


def _valid() -> dict[str, Any]:
    return kb.state_to_json(_state_after(3, 40, 3))


def _edit(path: str, value: Any) -> dict[str, Any]:
    data = json.loads(json.dumps(_valid()))
    *parents, last = path.split(".")
    target = data
    for key in parents:
        target = target[key]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value
    return data


_DELETE = object()


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("phase", _DELETE, "missing field state.phase"),
        ("phase", "lunch", "state.phase must be one of"),
        ("players", ["A", "B"], "KB-3"),
        ("cook", 7, "state.cook out of range"),
        ("round", 0, "state.round out of range"),
        ("deck.cheese", -1, "state.deck.cheese must be a non-negative integer"),
        ("deck.bacon", 1, "unknown food 'bacon' in state.deck"),
        ("offer.emerald", 1, "state.offer cannot hold 'emerald'"),
        ("emeralds_on_table", "two", "state.emeralds_on_table must be a non-negative integer"),
        ("hands", {}, "state.hands must have one entry per player"),
        ("game", "dice-king", "state.game"),
        ("deck.ham", 40, "the cards do not add up to the box (KB-1)"),
    ],
)
def test_kb1_malformed_states_name_the_field(path: str, value: Any, message: str) -> None:
    """Bad state JSON: MalformedError naming the field (KB-1: the cards must add up)."""
    with pytest.raises(MalformedError, match=message.replace("(", r"\(").replace(")", r"\)")):
        kb.state_from_json(_edit(path, value))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "take", "food": "bacon"}, "unknown food 'bacon' in take.food"),
        ({"type": "take"}, "missing field action.food"),
        ({"type": "emerald", "foods": ["ham"]}, "exactly two foods"),
        ({"type": "emerald", "foods": "ham"}, "list of two foods"),
        ({"type": "deal", "card": "joker"}, "unknown card 'joker'"),
        ({"type": "eat"}, "action.type must be one of"),
        ([], "action must be a json object"),
    ],
)
def test_malformed_actions_name_the_field(data: object, message: str) -> None:
    """Bad action JSON: MalformedError naming the field and value."""
    with pytest.raises(MalformedError, match=message):
        kb.action_from_json(data)


def test_apply_rejects_something_that_is_not_an_action() -> None:
    """Only King's Breakfast actions are accepted."""
    with pytest.raises(MalformedError, match="not a king's breakfast action"):
        kb.apply(kb.new_game(["A", "B", "C"]), "draw")  # type: ignore[arg-type]
    assert not kb.is_legal(kb.new_game(["A", "B", "C"]), kb.DrawCard())
