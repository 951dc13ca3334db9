"""Components and setup: KB-1..KB-5."""

from __future__ import annotations

import pytest

import engines.kings_breakfast as kb
from engines.errors import MalformedError
from engines.kings_breakfast.catalogue import CATALOGUE, Food, card_identity


def test_kb1_the_box_holds_110_cards_105_food_and_5_emeralds() -> None:
    """KB-1: 7 foods × 15 and 5 Emeralds; a new game counts all 110 in the deck."""
    assert CATALOGUE.food_copies == (15,) * 7
    assert CATALOGUE.emerald_copies == 5
    assert kb.TOTAL_PIECES == CATALOGUE.total_cards == 110
    inventory = kb.inventory(kb.new_game(["Anna", "Ben", "Cleo"]))
    assert sum(inventory.values()) == 110
    assert inventory["emerald"] == 5
    assert all(inventory[food] == 15 for food in kb.FOODS)


def test_kb2_food_ids_are_the_design_contract_ids() -> None:
    """KB-2: seven foods told apart; ids are the design's contract strings."""
    assert kb.FOODS == ("ham", "cheese", "bread", "cake", "wine", "fruit", "chicken")
    assert [food.value for food in Food] == list(kb.FOODS)
    assert (*kb.FOODS, "emerald") == kb.CARDS
    assert card_identity("cheese") == "kings-breakfast/cheese"
    assert card_identity(kb.EMERALD) == "kings-breakfast/emerald"


@pytest.mark.parametrize("n_players", [3, 4, 5])
def test_kb3_three_to_five_players_may_play(n_players: int) -> None:
    """KB-3: 3, 4 or 5 players."""
    names = [f"P{i}" for i in range(n_players)]
    assert kb.new_game(names).players == tuple(names)


@pytest.mark.parametrize("n_players", [0, 1, 2, 6, 7])
def test_kb3_other_player_counts_are_rejected(n_players: int) -> None:
    """KB-3: any other number of players is refused, naming the count."""
    with pytest.raises(MalformedError, match=f"got {n_players}"):
        kb.new_game([f"P{i}" for i in range(n_players)])


@pytest.mark.parametrize(
    ("names", "message"),
    [(["Anna", "Anna", "Ben"], "names must differ"), (["Anna", "", "Ben"], "non-empty")],
)
def test_kb3_player_names_must_be_distinct_and_non_empty(names: list[str], message: str) -> None:
    """KB-3 (setup): each seat is a distinct, named player."""
    with pytest.raises(MalformedError, match=message):
        kb.new_game(names)


def test_kb4_the_kings_area_starts_empty() -> None:
    """KB-4: the king's area is collected in front of the box; nothing in it at the start."""
    state = kb.new_game(["Anna", "Ben", "Cleo"])
    assert kb.public_view(state)["king"] == {}
    assert sum(state.king) == 0


def test_kb5_players_choose_the_first_cook_who_sets_a_shuffled_deck() -> None:
    """KB-5: the chosen cook starts; all 110 cards form one deck of hidden order (a chance node)."""
    state = kb.new_game(["Anna", "Ben", "Cleo", "Dan"], cook=2)
    assert state.cook == 2 and state.current_player == "Cleo"
    assert state.deck_count == 110
    assert kb.is_chance_node(state)
    outcomes = dict(kb.chance_outcomes(state))
    assert outcomes[kb.DealCard("cheese")] == pytest.approx(15 / 110, abs=1e-12)
    assert outcomes[kb.DealCard("emerald")] == pytest.approx(5 / 110, abs=1e-12)
    with pytest.raises(MalformedError, match="cook"):
        kb.new_game(["Anna", "Ben", "Cleo"], cook=3)
