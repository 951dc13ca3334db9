"""A round of King's Breakfast and the end of the game: KB-6..KB-18, on scripted positions."""

from __future__ import annotations

import pytest

import engines.kings_breakfast as kb
from engines.errors import IllegalActionError
from engines.kings_breakfast.state import Phase
from tests.engines.kings_breakfast.factories import cards, foods, position


def _deal(state: kb.State, *card_ids: str) -> kb.State:
    for card in card_ids:
        state = kb.apply(state, kb.DealCard(card))
    return state


def _clause(state: kb.State, action: kb.Action) -> str:
    with pytest.raises(IllegalActionError) as error:
        kb.apply(state, action)
    return error.value.clause


# --- 1. setting the table ---------------------------------------------------------------------


def test_kb6_cook_deals_two_cards_per_player_face_up_grouped_by_food() -> None:
    """KB-6: 2 × players cards dealt into the offer, one pile per food; then the cook acts."""
    state = kb.new_game(["Anna", "Ben", "Cleo"])
    state = _deal(state, "cheese", "cheese", "wine", "ham", "cheese")
    assert state.phase == Phase.DEAL and kb.legal_actions(state) == []
    state = _deal(state, "bread")
    assert state.phase == Phase.ACT and state.current_player == "Anna"
    assert kb.public_view(state)["offer"] == {"ham": 1, "cheese": 3, "bread": 1, "wine": 1}
    assert state.deck_count == 110 - 6


def test_kb6_only_dealt_cards_are_accepted_while_the_table_is_set() -> None:
    """KB-6: while dealing, a player action or a card no longer in the deck is refused."""
    state = kb.new_game(["Anna", "Ben", "Cleo"])
    assert _clause(state, kb.DrawCard()) == "KB-6"
    state = position(phase=Phase.DEAL, dealt=0, deck={"cheese": 6, "wine": 2})
    assert _clause(state, kb.DealCard("ham")) == "KB-6"
    assert kb.is_legal(state, kb.DealCard("wine"))


def test_kb7_dealt_emeralds_lie_beside_the_piles() -> None:
    """KB-7: an Emerald dealt goes to the table, not into a food pile."""
    state = _deal(kb.new_game(["Anna", "Ben", "Cleo"]), "emerald", "cheese")
    assert state.emeralds_on_table == 1
    assert state.offer == foods({"cheese": 1})


def test_kb8_emeralds_count_among_the_cards_dealt() -> None:
    """KB-8: always 2 × players cards, Emeralds included; Emeralds already out change nothing."""
    state = position(4, phase=Phase.DEAL, dealt=0, emeralds_on_table=2)
    state = _deal(state, "emerald", "emerald", "cheese", "wine", "ham", "ham", "cake")
    assert state.phase == Phase.DEAL  # 7 of 8 dealt
    state = _deal(state, "fruit")
    assert state.phase == Phase.ACT
    assert state.emeralds_on_table == 4
    assert sum(state.offer) == 6


# --- 2. collecting portions --------------------------------------------------------------------


def test_kb9_cook_acts_first_then_clockwise_one_action_each() -> None:
    """KB-9: the cook, then each player to the left, one action each; then the next round."""
    state = position(3, cook=1, offer={"cheese": 2, "wine": 2, "ham": 2})
    seen = []
    for food in ("cheese", "wine", "ham"):
        seen.append(state.current_player)
        state = kb.apply(state, kb.TakePile(food))
    assert seen == ["Ben", "Cleo", "Anna"]
    assert state.phase == Phase.DEAL and state.cook == 2 and state.round == 2
    assert _clause(position(3), kb.DealCard("cheese")) == "KB-9"


def test_kb10_take_pile_takes_all_cards_of_that_food_publicly() -> None:
    """KB-10: the whole pile goes to the player's hand, and the table shows it."""
    state = position(3, offer={"cheese": 3, "wine": 1})
    after = kb.apply(state, kb.TakePile("cheese"))
    assert after.offer == foods({"wine": 1})
    assert after.taken[0] == foods({"cheese": 3})
    assert kb.public_view(after)["hands"]["Anna"]["taken"] == {"cheese": 3}


def test_kb10_cannot_take_a_food_that_is_not_in_the_offer() -> None:
    """KB-10: a pile must be in the offer; partial takes do not exist as actions."""
    state = position(3, offer={"cheese": 3})
    assert _clause(state, kb.TakePile("wine")) == "KB-10"
    assert kb.TakePile("wine") not in kb.legal_actions(state)
    assert [a for a in kb.legal_actions(state) if isinstance(a, kb.TakePile)] == [
        kb.TakePile("cheese")
    ]


def test_kb11_draw_is_hidden_and_always_allowed_while_the_deck_has_cards() -> None:
    """KB-11: draw the top card unseen; allowed even when piles are on offer."""
    state = position(3, offer={"cheese": 3})
    assert kb.DrawCard() in kb.legal_actions(state)
    drawing = kb.apply(state, kb.DrawCard())
    assert kb.is_chance_node(drawing) and kb.legal_actions(drawing) == []
    after = kb.apply(drawing, kb.DrawnCard("wine"))
    assert after.drawn[0] == foods({"wine": 1})
    view = kb.public_view(after)
    assert view["hands"]["Anna"] == {"taken": {}, "hidden_draws": 1}
    assert "wine" not in str(view["hands"])


def test_kb11_with_no_food_in_the_offer_the_player_must_draw() -> None:
    """KB-11: no food on offer and no usable Emerald → drawing is the only action."""
    state = position(3, offer={})
    assert kb.legal_actions(state) == [kb.DrawCard()]
    assert _clause(state, kb.Pass()) == "KB-14"


def test_kb11_ruling_emerald_stays_allowed_without_food_in_the_offer() -> None:
    """KB-11 ruling: "must draw" means "may not pass"; the Emerald action remains."""
    state = position(3, offer={}, emeralds_on_table=1, king={"cheese": 2})
    assert kb.RULINGS.emerald_allowed_without_food_in_offer
    assert kb.legal_actions(state) == [kb.DrawCard(), kb.UseEmerald(("cheese", "cheese"))]


def test_kb11_cannot_draw_from_an_empty_deck_or_reveal_a_missing_card() -> None:
    """KB-11: drawing needs a card in the deck, and the drawn card must be one of them."""
    state = position(3, offer={"cheese": 1}, deck={})
    assert _clause(state, kb.DrawCard()) == "KB-11"
    drawing = kb.apply(position(3, deck={"wine": 7}), kb.DrawCard())
    assert _clause(drawing, kb.DrawnCard("ham")) == "KB-11"
    assert _clause(drawing, kb.TakePile("ham")) == "KB-11"
    assert kb.chance_outcomes(drawing) == [(kb.DrawnCard("wine"), 1.0)]


def test_kb12_a_drawn_emerald_must_be_used_or_laid_down_without_replacement() -> None:
    """KB-12: use it at once (two of the king's foods) or lay it on the table; no new card."""
    state = position(3, offer={"cheese": 2}, king={"wine": 1, "ham": 1})
    holding = kb.apply(kb.apply(state, kb.DrawCard()), kb.DrawnCard("emerald"))
    assert holding.phase == Phase.EMERALD and holding.current_player == "Anna"
    assert kb.legal_actions(holding) == [kb.UseEmerald(("ham", "wine")), kb.LayEmerald()]
    assert _clause(holding, kb.TakePile("cheese")) == "KB-12"
    assert _clause(holding, kb.DrawCard()) == "KB-12"

    laid = kb.apply(holding, kb.LayEmerald())
    assert laid.emeralds_on_table == 1 and laid.current_player == "Ben"
    assert laid.drawn[0] == foods() and laid.deck_count == state.deck_count - 1

    used = kb.apply(holding, kb.UseEmerald(("wine", "ham")))
    assert used.king == foods() and used.emeralds_on_table == 0
    assert used.removed == tuple(
        r + a
        for r, a in zip(state.removed, cards({"wine": 1, "ham": 1, "emerald": 1}), strict=True)
    )
    assert used.current_player == "Ben"


def test_kb12_a_drawn_emerald_cannot_be_used_when_the_king_has_under_two_foods() -> None:
    """KB-12 with KB-13's condition: fewer than two foods in the king's area → lay it down."""
    holding = position(3, phase=Phase.EMERALD, king={"wine": 1})
    assert kb.legal_actions(holding) == [kb.LayEmerald()]
    assert _clause(holding, kb.UseEmerald(("wine", "wine"))) == "KB-12"
    assert _clause(position(3), kb.LayEmerald()) == "KB-12"


def test_kb13_emerald_removes_itself_and_two_foods_of_the_kings_choice() -> None:
    """KB-13: one Emerald from the table and any two food cards from the king leave the game."""
    state = position(3, offer={"ham": 1}, emeralds_on_table=2, king={"cheese": 3, "wine": 1})
    pairs = [a.foods for a in kb.legal_actions(state) if isinstance(a, kb.UseEmerald)]
    assert pairs == [("cheese", "cheese"), ("cheese", "wine")]
    after = kb.apply(state, kb.UseEmerald(("cheese", "cheese")))
    assert after.king == foods({"cheese": 1, "wine": 1})
    assert after.emeralds_on_table == 1
    assert after.removed == tuple(
        r + a for r, a in zip(state.removed, cards({"cheese": 2, "emerald": 1}), strict=True)
    )
    assert kb.UseEmerald(("wine", "cheese")) == kb.UseEmerald(("cheese", "wine"))


@pytest.mark.parametrize(
    ("emeralds", "king", "action"),
    [
        (0, {"cheese": 3}, kb.UseEmerald(("cheese", "cheese"))),
        (1, {"cheese": 1}, kb.UseEmerald(("cheese", "cheese"))),
        (1, {"cheese": 1, "wine": 0}, kb.UseEmerald(("cheese", "wine"))),
        (1, {"cheese": 2}, kb.UseEmerald(("cheese", "wine"))),
    ],
)
def test_kb13_emerald_needs_one_on_the_table_and_the_chosen_foods_in_the_kings_area(
    emeralds: int, king: dict[str, int], action: kb.Action
) -> None:
    """KB-13: an Emerald must lie on the table and the king must hold the two chosen foods."""
    state = position(3, offer={"ham": 1}, emeralds_on_table=emeralds, king=king)
    assert _clause(state, action) == "KB-13"
    assert action not in kb.legal_actions(state)


def test_kb14_ruling_a_player_with_no_legal_action_passes() -> None:
    """KB-14: no food on offer, empty deck, no usable Emerald → the only action is to pass."""
    state = position(3, offer={}, deck={}, emeralds_on_table=1, king={"cheese": 1})
    assert kb.legal_actions(state) == [kb.Pass()]
    after = kb.apply(state, kb.Pass())
    assert after.current_player == "Ben" and after.acted == 1
    assert _clause(position(3, offer={"ham": 1}), kb.Pass()) == "KB-14"


# --- 3. serving the king, and the end ------------------------------------------------------


def test_kb15_leftover_food_goes_to_the_king_after_everyone_acted() -> None:
    """KB-15: after the last player, the offer's food joins the king's area, by food."""
    state = position(3, offer={"cheese": 2, "wine": 3, "ham": 1}, king={"wine": 1}, acted=0)
    state = kb.apply(state, kb.TakePile("ham"))
    state = kb.apply(state, kb.TakePile("cheese"))
    assert state.king == foods({"wine": 1})  # not yet
    state = kb.apply(state, kb.DrawCard())
    state = kb.apply(state, kb.DrawnCard("bread"))
    assert state.king == foods({"wine": 4})
    assert state.offer == foods()


def test_kb15_if_nothing_is_left_the_king_gets_nothing() -> None:
    """KB-15: an empty offer at the end of the round adds nothing."""
    state = position(3, offer={"cheese": 1}, king={"ham": 2}, current=2, acted=2)
    state = kb.apply(state, kb.TakePile("cheese"))
    assert state.king == foods({"ham": 2})


def test_kb16_the_kings_food_leaves_only_through_an_emerald() -> None:
    """KB-16: no action but the Emerald lowers the king's area."""
    state = position(3, offer={"cheese": 1}, king={"ham": 2, "cheese": 4}, emeralds_on_table=1)
    for action in kb.legal_actions(state):
        after = kb.apply(state, action)
        if kb.is_chance_node(after):
            after = kb.apply(after, kb.chance_outcomes(after)[0][0])
        lowered = any(a < b for a, b in zip(after.king, state.king, strict=True))
        assert lowered == isinstance(action, kb.UseEmerald), action


def test_kb17_emeralds_on_the_table_stay_until_used() -> None:
    """KB-17: unused Emeralds remain across rounds."""
    state = position(3, offer={"cheese": 1, "wine": 1, "ham": 1}, emeralds_on_table=2)
    for food in ("cheese", "wine", "ham"):
        state = kb.apply(state, kb.TakePile(food))
    assert state.round == 2 and state.emeralds_on_table == 2
    state = _deal(state, *["bread"] * 6)
    assert state.emeralds_on_table == 2


@pytest.mark.parametrize(("deck_left", "over"), [(5, True), (6, False), (0, True)])
def test_kb18_game_ends_when_the_deck_cannot_set_the_table(deck_left: int, over: bool) -> None:
    """KB-18: at the start of a round, fewer than 2 × players cards left → the game ends at once;
    the rest leaves the game unused."""
    state = position(3, offer={"cheese": 1}, current=2, acted=2, deck={"wine": deck_left})
    after = kb.apply(state, kb.TakePile("cheese"))
    assert kb.is_over(after) == over
    if over:
        assert after.unused == cards({"wine": deck_left}) and after.deck_count == 0
        assert kb.legal_actions(after) == [] and not kb.is_chance_node(after)
        assert _clause(after, kb.DrawCard()) == "KB-18"
        assert kb.public_view(after)["rounds_left"] == 0
    else:
        assert after.phase == Phase.DEAL and after.round == 2


def test_kb11_kb14_rulings_live_in_one_place_and_can_be_changed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """KB-11/KB-14 rulings: flipping the flag in `RULINGS` changes the rule, nothing else."""
    from engines.kings_breakfast import rules
    from engines.kings_breakfast.rulings import Rulings

    state = position(3, offer={}, emeralds_on_table=1, king={"cheese": 2})
    monkeypatch.setattr(rules, "RULINGS", Rulings(emerald_allowed_without_food_in_offer=False))
    assert kb.legal_actions(state) == [kb.DrawCard()]
    assert _clause(state, kb.UseEmerald(("cheese", "cheese"))) == "KB-11"
