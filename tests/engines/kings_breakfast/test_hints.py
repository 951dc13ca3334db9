"""Hints for the player to act, from the public view (KB-10..KB-13 choices, KB-20..KB-23 values)."""

from __future__ import annotations

import pytest

import engines.kings_breakfast as kb
from engines.errors import MalformedError
from engines.kings_breakfast.hints import hints, hints_for_state
from engines.kings_breakfast.state import Phase
from tests.engines.kings_breakfast.factories import position


def _by_type(result: dict, action: kb.Action) -> dict:
    wanted = kb.action_to_json(action)
    return next(row for row in result["actions"] if row["action"] == wanted)


def test_every_legal_action_is_hinted_once_best_first_and_seeded() -> None:
    """KB-10, KB-11, KB-13: one hint per legal action, sorted by expected points; seeded."""
    state = position(
        3,
        offer={"cheese": 2, "wine": 1},
        king={"ham": 3, "cheese": 2},
        emeralds_on_table=1,
        taken={0: {"ham": 1}, 1: {"cheese": 3}},
        drawn={0: {"wine": 1}, 2: {"cake": 2}},
    )
    result = hints_for_state(state, playouts=400, seed=3)
    listed = [kb.action_from_json(row["action"]) for row in result["actions"]]
    assert sorted(map(repr, listed)) == sorted(map(repr, kb.legal_actions(state)))
    expected = [row["expected_points"] for row in result["actions"]]
    assert expected == sorted(expected, reverse=True)
    assert result["player"] == "Anna"
    assert result["playouts_per_action"] * len(listed) >= 400
    for row in result["actions"]:
        assert 0.0 <= row["win_chance"] <= 1.0
        assert all(0.0 <= item["risk"] <= 1.0 for item in row["by_food"].values())
    assert hints_for_state(state, playouts=400, seed=3) == result
    assert hints_for_state(state, playouts=400, seed=4) != result


def test_kb20_kb21_hint_shows_counts_against_the_king_and_points_now() -> None:
    """KB-20/KB-21: the resulting count of each food vs the king's, and points if it ended now."""
    state = position(
        3, offer={"cheese": 2, "wine": 3}, king={"cheese": 3, "wine": 2}, taken={0: {"cheese": 1}}
    )
    result = hints_for_state(state, playouts=200, seed=1)
    take_cheese = _by_type(result, kb.TakePile("cheese"))
    assert take_cheese["by_food"]["cheese"] == {
        **take_cheese["by_food"]["cheese"],
        "held": 3,
        "king": 3,
        "points": 9,
    }
    assert take_cheese["points_now"] == 9
    take_wine = _by_type(result, kb.TakePile("wine"))
    assert take_wine["by_food"]["wine"]["held"] == 3
    assert take_wine["by_food"]["wine"]["points"] == 0  # too greedy now (KB-20)
    assert take_wine["points_now"] == 3


def test_kb18_kb20_risk_is_certain_when_the_game_ends_this_round() -> None:
    """KB-18 + KB-20: last round, no Emerald anywhere: taking past the king is certain loss."""
    state = position(
        3,
        offer={"cheese": 3, "wine": 1},
        king={"cheese": 2, "wine": 5},
        deck={"ham": 3},  # fewer than 6: this is the last round
    )
    result = hints_for_state(state, playouts=300, seed=2)
    take_cheese = _by_type(result, kb.TakePile("cheese"))
    assert take_cheese["by_food"]["cheese"]["risk"] == 1.0
    take_wine = _by_type(result, kb.TakePile("wine"))
    assert take_wine["by_food"]["wine"]["risk"] == 0.0
    assert take_wine["expected_points"] == 5.0  # wine 1 × 5, nobody can change it
    assert result["actions"][0]["action"] == {"type": "take", "food": "wine"}


def test_kb12_hints_for_a_just_drawn_emerald_are_use_or_lay() -> None:
    """KB-12: holding a drawn Emerald, the hints compare using it and laying it down."""
    state = position(3, phase=Phase.EMERALD, offer={"ham": 2}, king={"cake": 2, "ham": 1})
    result = hints_for_state(state, playouts=200, seed=1)
    kinds = sorted(row["action"]["type"] for row in result["actions"])
    assert kinds == ["emerald", "emerald", "lay_emerald"]  # (ham, cake), (cake, cake)
    use = _by_type(result, kb.UseEmerald(("ham", "cake")))
    assert use["by_food"]["cake"]["king"] == 1
    assert "ham" not in use["by_food"]  # neither held nor in the king's area any more


def test_hints_work_from_the_public_view_with_or_without_the_hand() -> None:
    """The camera's view is enough; an entered hand adds the hidden draws to the counts."""
    state = position(3, offer={"cheese": 2}, king={"bread": 2}, drawn={0: {"bread": 2}})
    view = kb.public_view(state)
    blind = hints(view, playouts=100, seed=1)
    seen = hints(view, {"bread": 2}, playouts=100, seed=1)
    assert "bread" not in _by_type(blind, kb.DrawCard())["by_food"] or (
        _by_type(blind, kb.DrawCard())["by_food"]["bread"]["held"] == 0
    )
    assert _by_type(seen, kb.DrawCard())["by_food"]["bread"]["held"] == 2


@pytest.mark.parametrize(
    ("change", "hand", "message"),
    [
        ({"phase": "deal"}, None, "no player decision"),
        ({}, {"bread": 3}, "hand"),
        ({}, {"bacon": 1}, "unknown food 'bacon' in hand"),
        ({"deck_count": 3}, None, "deck_count"),
        ({"current": "Zed"}, None, "view.current must name a player"),
    ],
)
def test_bad_views_and_hands_are_refused(change: dict, hand: dict | None, message: str) -> None:
    """Bad input: one-line MalformedError naming the field."""
    state = position(3, offer={"cheese": 2}, drawn={0: {"bread": 2}})
    view = {**kb.public_view(state), **change}
    with pytest.raises(MalformedError, match=message):
        hints(view, hand, playouts=10)
