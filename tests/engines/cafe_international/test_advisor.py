"""The placement advisor (design contract): every legal action for a hand, best first."""

from __future__ import annotations

import pytest

import engines.cafe_international as ci
from engines.cafe_international.advisor import (
    advice_to_json,
    advise,
    describe,
    position_from_json,
)
from engines.cafe_international.rules import legal_actions
from engines.errors import MalformedError
from tests.engines.cafe_international.factory import mini_layout_json


def _position(**fields: object) -> dict:
    data: dict = {
        "layout": mini_layout_json(),
        "seated": {"a1": "italy/w", "a2": "italy/m"},
        "bar": [],
        "hand": ["italy/w", "joker/m"],
        "first_turn_of_game": False,
    }
    data.update(fields)
    return data


def test_advice_on_a_users_own_small_layout_follows_the_contract() -> None:
    """CI-18/CI-20 in the advice: the best is 14 points and hand −1, as in the design's text."""
    state = position_from_json(_position())
    advice = advise(state)
    answer = advice_to_json(state, advice)
    best = answer["actions"][0]
    assert best["type"] == "seat" and best["points"] == 14 and best["hand_limit_change"] == -1
    assert {p["chair"] for p in best["placements"]} == {"a3", "s12"}
    assert all(set(p) == {"tile", "chair", "as"} for p in best["placements"])
    points = [entry["points"] for entry in answer["actions"]]
    assert points == sorted(points, reverse=True)
    bar = [entry for entry in answer["actions"] if entry["type"] == "bar"]
    assert bar == [
        {"type": "bar", "tile": "italy/w", "stool": 1, "points": 1, "hand_limit_change": 0}
    ]
    assert describe(state, advice[0]) in {
        "Seat Italy ♀ at T1 (a3) and Joker ♂ as Italy at T1/T2 (s12): 14 points, hand −1",
        "Seat Joker ♂ as Italy at T1 (a3) and Italy ♀ at T1/T2 (s12): 14 points, hand −1",
    }


def test_advice_lists_every_legal_action_once() -> None:
    """Every legal action of the position appears, and nothing else."""
    state = position_from_json(_position(hand=["italy/w", "joker/m", "france/m", "germany/w"]))
    advised = [s.action for s in advise(state)]
    assert len(advised) == len(set(advised))
    assert set(advised) == set(legal_actions(state))
    assert all(ci.is_legal(state, action) for action in advised)


def test_advice_includes_swaps_and_jokers_declarations() -> None:
    """CI-19 and CI-9 in the advice: a swap for a seated joker, `as` for jokers."""
    state = position_from_json(
        _position(seated={"a1": "joker/w@italy", "a2": "italy/m"}, hand=["italy/w", "joker/m"])
    )
    answer = advice_to_json(state, advise(state))["actions"]
    assert {
        "type": "swap",
        "chair": "a1",
        "tile": "italy/w",
        "points": 0,
        "hand_limit_change": 0,
    } in answer
    declared = {
        p["as"]
        for a in answer
        if a["type"] == "seat"
        for p in a["placements"]
        if p["tile"] == "joker/m" and p["chair"] == "s12"
    }
    assert declared == {"italy", "france"}


def test_ci15_advice_on_the_first_turn() -> None:
    """CI-15: on the first turn, a hand that cannot score may seat one guest alone."""
    state = position_from_json(
        _position(seated={}, hand=["italy/w", "france/w"], first_turn_of_game=True)
    )
    seats = [s for s in advise(state) if isinstance(s.action, ci.Seat)]
    assert seats and all(s.points == 0 for s in seats)
    assert all(len(s.action.placements) == 1 for s in seats if isinstance(s.action, ci.Seat))
    later = position_from_json(_position(seated={}, hand=["italy/w", "france/w"]))
    assert not [s for s in advise(later) if isinstance(s.action, ci.Seat)]


def test_ci16_nothing_legal_is_a_pass() -> None:
    """CI-16 ruling: only jokers and nowhere to score: the advice is a pass."""
    seated = {"d1": "italy/w", "d2": "italy/w", "d3": "italy/m", "a1": "italy/w", "a2": "italy/m"}
    seated |= {"a3": "italy/m", "s12": "joker/w@italy", "b1": "france/m", "b2": "france/w"}
    seated |= {"s23": "germany/m", "c1": "germany/m", "c2": "germany/w", "c3": "germany/w"}
    state = position_from_json(_position(seated=seated, hand=["joker/w"]))
    [only] = advise(state)
    assert only.action == ci.Pass() and describe(state, only).startswith("No legal action")


def test_bad_positions_are_refused_with_every_reason() -> None:
    """CI-8, CI-10, CI-3: a photographed board that breaks the rules is refused, all reasons."""
    bad = _position(
        seated={"d1": "italy/m", "d2": "italy/m", "d3": "italy/m", "b1": "germany/w", "q": "uk/w"}
    )
    with pytest.raises(ci.PositionError) as error:
        position_from_json(bad)
    text = str(error.value)
    assert "CI-10: table T4 has three men" in text
    assert "CI-8: germany/w at chair b1" in text
    assert "CI-3: unknown chair 'q'" in text
    with pytest.raises(ci.PositionError, match="CI-6: a hand holds at most 5 tiles"):
        position_from_json(_position(hand=["uk/w"] * 4 + ["uk/m"] * 2))


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"hand": "italy/w"}, "hand must be a list of tiles"),
        ({"hand": ["italy/q"]}, "CI-2: unknown tile 'italy/q' in hand"),
        ({"seat": {}}, "unknown field 'seat' in state"),
        ({"first_turn_of_game": "no"}, "first_turn_of_game must be true or false"),
        ({"layout": "castle"}, "unknown layout 'castle'"),
        ({"layout": {"tables": []}}, "bad layout: tables must be a non-empty list"),
    ],
)
def test_malformed_positions_name_the_field(fields: dict, message: str) -> None:
    with pytest.raises(ValueError) as error:
        position_from_json(_position(**fields))
    assert message in str(error.value) and "\n" not in str(error.value)
    assert isinstance(error.value, MalformedError | ci.PositionError)


def test_reference_layout_by_name_and_alternative_bar() -> None:
    """CI-5 in the advice: the alternative reading changes the bar's points."""
    data = {
        "layout": "reference",
        "bar": ["uk/w"] * 4 + ["uk/m"] * 4 + ["usa/w"] * 3,
        "hand": ["cuba/w"],
        "bar_reading": "alternative",
    }
    state = position_from_json(data)
    [bar] = [s for s in advise(state) if isinstance(s.action, ci.ToBar)]
    assert bar.points == -14
    data.pop("bar_reading")
    [bar] = [s for s in advise(position_from_json(data)) if isinstance(s.action, ci.ToBar)]
    assert bar.points == -6
