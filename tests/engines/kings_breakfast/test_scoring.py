"""Scoring: KB-19..KB-23, the counts contract, and a deliberately plain reimplementation."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engines.kings_breakfast as kb
from engines.errors import MalformedError
from engines.kings_breakfast.scoring import food_points, scores_from_counts
from tests.engines.kings_breakfast.factories import position


def plain_scores(counts: dict[str, Any]) -> dict[str, Any]:
    """The rules read aloud, written without the engine: KB-19..KB-23."""
    king = counts["king"]
    players: dict[str, dict[str, Any]] = {}
    for name, hand in counts["players"].items():
        total = 0
        discarded = 0
        by_food: dict[str, int] = {}
        for card, held in hand.items():
            if card == "emerald" or held == 0:
                continue  # KB-19: an Emerald in hand scores nothing
            king_has = king.get(card, 0)
            if held > king_has:  # KB-20, KB-22
                discarded += held
                by_food[card] = 0
            else:  # KB-21
                by_food[card] = held * king_has
                total += held * king_has
        players[name] = {"total": total, "discarded": discarded, "by_food": by_food}
    best_total = max(p["total"] for p in players.values())
    fewest = min(p["discarded"] for p in players.values() if p["total"] == best_total)
    winners = [
        n for n, p in players.items() if p["total"] == best_total and p["discarded"] == fewest
    ]
    ranking = sorted(players, key=lambda n: (-players[n]["total"], players[n]["discarded"]))
    return {"players": players, "ranking": ranking, "winners": winners}


def test_design_example_has_the_contract_shape() -> None:
    """KB-20, KB-21: the design's worked example, exactly."""
    counts = {
        "king": {"cheese": 4, "bread": 2},
        "players": {"Anna": {"cheese": 3}, "Ben": {"cheese": 5, "bread": 1}},
    }
    assert scores_from_counts(counts) == {
        "players": {
            "Anna": {"total": 12, "discarded": 0, "by_food": {"cheese": 12}},
            "Ben": {"total": 2, "discarded": 5, "by_food": {"cheese": 0, "bread": 2}},
        },
        "ranking": ["Anna", "Ben"],
        "winners": ["Anna"],
    }


def test_kb19_an_emerald_in_hand_scores_nothing() -> None:
    """KB-19: an Emerald seen in a hand scores 0 and is not a discarded food."""
    result = scores_from_counts({"king": {"ham": 2}, "players": {"Anna": {"ham": 1, "emerald": 2}}})
    assert result["players"]["Anna"] == {"total": 2, "discarded": 0, "by_food": {"ham": 2}}


def test_kb20_more_than_the_king_is_too_greedy_equal_is_allowed() -> None:
    """KB-20: more than the king → all of that food discarded; equal is fine."""
    assert food_points(5, 4) == 0
    assert food_points(4, 4) == 16
    result = scores_from_counts(
        {"king": {"wine": 3}, "players": {"A": {"wine": 4}, "B": {"wine": 3}}}
    )
    assert result["players"]["A"] == {"total": 0, "discarded": 4, "by_food": {"wine": 0}}
    assert result["players"]["B"]["total"] == 9


def test_kb21_each_card_scores_the_kings_count_of_that_food() -> None:
    """KB-21: the rulebook's example: king 4 cheese; 3 cheese → 12, 5 cheese → 0."""
    assert food_points(3, 4) == 12
    assert food_points(5, 4) == 0
    state = position(
        3, king={"cheese": 4, "ham": 1}, taken={0: {"cheese": 3}}, drawn={0: {"ham": 1}}
    )
    assert kb.scores(state) == {"Anna": 13, "Ben": 0, "Cleo": 0}


def test_kb22_a_food_the_king_lacks_scores_nothing_and_is_discarded() -> None:
    """KB-22: the king has none → 0 points, and the cards count as discarded."""
    assert food_points(2, 0) == 0
    result = scores_from_counts({"king": {}, "players": {"Anna": {"fruit": 2}}})
    assert result["players"]["Anna"] == {"total": 0, "discarded": 2, "by_food": {"fruit": 0}}


def test_kb23_highest_total_wins() -> None:
    """KB-23: most points wins; ranking by points."""
    result = scores_from_counts(
        {"king": {"ham": 5}, "players": {"A": {"ham": 1}, "B": {"ham": 3}, "C": {"ham": 2}}}
    )
    assert result["ranking"] == ["B", "C", "A"] and result["winners"] == ["B"]


def test_kb23_tie_broken_by_fewest_discarded() -> None:
    """KB-23: tied totals → the player who discarded fewer cards wins."""
    result = scores_from_counts(
        {
            "king": {"ham": 3, "wine": 1},
            "players": {"A": {"ham": 2, "wine": 2}, "B": {"ham": 2}, "C": {"ham": 1}},
        }
    )
    assert result["players"]["A"]["total"] == result["players"]["B"]["total"] == 6
    assert result["winners"] == ["B"] and result["ranking"] == ["B", "A", "C"]


def test_kb23_ruling_still_tied_players_share_the_win() -> None:
    """KB-23 ruling: equal points and equal discards → a shared win."""
    assert kb.RULINGS.shared_win_when_still_tied
    result = scores_from_counts(
        {"king": {"ham": 2, "cake": 2}, "players": {"A": {"ham": 1}, "B": {"cake": 1}, "C": {}}}
    )
    assert result["winners"] == ["A", "B"]


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([], "counts must be a json object"),
        ({"king": {}}, "missing field 'players'"),
        ({"players": {"A": {}}}, "missing field 'king'"),
        ({"king": {}, "players": {}}, "no players"),
        ({"king": {}, "players": [1]}, "players must be an object"),
        ({"king": {}, "players": {"Anna": {"bacon": 1}}}, "unknown food 'bacon' in players.Anna"),
        ({"king": {"bacon": 1}, "players": {"A": {}}}, "unknown food 'bacon' in king"),
        ({"king": {}, "players": {"A": {"ham": -1}}}, "players.A.ham must be a non-negative"),
        ({"king": {}, "players": {"A": {"ham": 1.5}}}, "players.A.ham must be a non-negative"),
        ({"king": {}, "players": {"A": {"ham": "2"}}}, "players.A.ham must be a non-negative"),
        ({"king": {}, "players": {"A": {"ham": True}}}, "players.A.ham must be a non-negative"),
        ({"king": {"ham": None}, "players": {"A": {}}}, "king.ham must be a non-negative"),
        ({"king": {"emerald": 1}, "players": {"A": {}}}, "king.emerald"),
        ({"king": {}, "players": {"A": 3}}, "players.A must be an object"),
        ({"king": {}, "players": {" ": {}}}, "must not be empty"),
        ({"king": {"ham": 10}, "players": {"A": {"ham": 6}}}, "too many ham: 16"),
        ({"king": {}, "players": {"A": {"emerald": 6}}}, "too many emerald"),
        ({"king": {}, "players": {"A": {}}, "extra": 1}, "unknown field 'extra'"),
    ],
)
def test_bad_counts_are_refused_naming_the_problem(counts: object, message: str) -> None:
    """Bad input (KB-1, KB-15, KB-19 context): one-line MalformedError naming field and value."""
    with pytest.raises(MalformedError) as error:
        scores_from_counts(counts)
    assert message in str(error.value)
    assert "\n" not in str(error.value)


# at most 5 players × 2 + 5 of a food and 5 Emeralds: within the box (KB-1)
_HAND = st.dictionaries(st.sampled_from(kb.FOODS), st.integers(0, 2), max_size=7).flatmap(
    lambda hand: st.sampled_from([hand, {**hand, "emerald": 1}])
)


@settings(max_examples=200, deadline=None)
@given(
    king=st.dictionaries(st.sampled_from(kb.FOODS), st.integers(0, 5), max_size=7),
    players=st.dictionaries(
        st.text("ABCDEFG", min_size=1, max_size=3), _HAND, min_size=1, max_size=5
    ),
)
def test_kb20_to_kb23_engine_agrees_with_the_plain_reimplementation(
    king: dict[str, int], players: dict[str, dict[str, int]]
) -> None:
    """KB-20..KB-23: the engine's scores equal the plain ones on random counts."""
    counts = {"king": king, "players": players}
    assert scores_from_counts(counts) == plain_scores(counts)
