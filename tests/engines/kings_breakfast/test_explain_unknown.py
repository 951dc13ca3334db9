"""Cards seen but not identified (`Observation.offer_unknown`, `king_unknown`): each stands for
every card it could be, so the camera's doubt is an explanation per candidate, never a guess."""

from __future__ import annotations

import random
from dataclasses import replace

import engines.kings_breakfast as kb
from engines.api import random_step
from engines.kings_breakfast.explain import (
    Observation,
    check_observation,
    explain,
    explain_states,
    observe,
    shows,
)
from engines.kings_breakfast.state import DealCard, Phase, State, TakePile
from tests.engines.kings_breakfast.factories import foods, position


def _last_turn(offer: dict[str, int]) -> State:
    """The last of 3 players to act this round, the offer as given (KB-10, KB-15)."""
    return position(3, offer=offer, current=2, acted=2)


def _without_one(observation: Observation, food: str) -> Observation:
    """The observation with one `food` card of the king's area seen but not identified."""
    king = list(observation.king)
    king[kb.FOODS.index(food)] -= 1
    return replace(observation, king=tuple(king), king_unknown=observation.king_unknown + 1)


def test_kb15_an_unknown_king_card_after_a_take_is_explained_when_one_food_fits() -> None:
    """KB-10, KB-15: the last player takes the ham pile (2 cards), the rest goes to the king;
    one of those cards is not identified. Only a pile of 2 leaves 2 cards to the king, so only
    the ham take explains it."""
    before = _last_turn({"ham": 2, "cheese": 1, "bread": 1})
    after = kb.apply(before, TakePile("ham"))
    assert after.phase == Phase.DEAL and after.king == foods({"cheese": 1, "bread": 1})
    seen = _without_one(observe(after), "bread")
    assert explain(before, seen, visited=True) == [(TakePile("ham"),)]


def test_kb15_two_foods_fitting_an_unknown_king_card_are_two_explanations() -> None:
    """KB-10, KB-15: the cheese pile (1 card) is taken and the king's bread is not identified;
    taking the bread pile instead would leave cheese there, which fits too: two explanations
    (the tracker asks which), never a silent pick."""
    before = _last_turn({"ham": 2, "cheese": 1, "bread": 1})
    after = kb.apply(before, TakePile("cheese"))
    seen = _without_one(observe(after), "bread")
    found = explain_states(before, seen, visited=True)
    assert {path for path, _ in found} == {(TakePile("bread"),), (TakePile("cheese"),)}
    kings = {state.king for _, state in found}
    assert kings == {foods({"ham": 2, "bread": 1}), foods({"ham": 2, "cheese": 1})}


def test_kb7_an_unknown_card_in_the_offer_may_be_an_emerald_dealt_there() -> None:
    """KB-6, KB-7: the cook deals 5 foods and an Emerald; the Emerald lying in the offer is not
    identified. The Emerald is an explanation, and so is every food the deck could have dealt:
    the user is asked, the food is never picked silently."""
    start = kb.new_game(["Anna", "Ben", "Cleo"])
    state = start
    for card in ("ham", "ham", "cheese", "emerald", "bread", "wine"):
        state = kb.apply(state, DealCard(card))
    assert state.phase == Phase.ACT and state.emeralds_on_table == 1
    seen = replace(observe(state), emeralds=0, offer_unknown=1)
    found = explain_states(start, seen)
    ends = {(s.emeralds_on_table, s.offer) for _, s in found}
    dealt = foods({"ham": 2, "cheese": 1, "bread": 1, "wine": 1})
    assert (1, dealt) in ends  # the truth: an Emerald was dealt into the offer
    for index in range(len(kb.FOODS)):  # or one more of any food (all are in the deck)
        more = dealt[:index] + (dealt[index] + 1,) + dealt[index + 1 :]
        assert (0, more) in ends
    assert len(found) == 1 + len(kb.FOODS)
    assert all(len(path) == 6 for path, _ in found)


def test_kb10_an_unknown_card_left_in_the_offer_stands_for_every_food_that_fits() -> None:
    """KB-10: a pile is taken and one card left in the offer is not identified: the candidates
    are the takes that leave that many cards of foods at least as seen."""
    before = position(3, offer={"ham": 2, "cheese": 1, "bread": 1, "wine": 2})
    after = kb.apply(before, TakePile("cheese"))
    offer = list(observe(after).offer)
    offer[kb.FOODS.index("bread")] -= 1
    seen = replace(observe(after), offer=tuple(offer), offer_unknown=1)
    # taking bread would leave the cheese as the unknown card: both fit, a pile of 2 does not
    assert set(explain(before, seen)) == {(TakePile("cheese"),), (TakePile("bread"),)}


def test_kb1_unknown_counts_zero_show_exactly_what_observe_shows() -> None:
    """Without unknown cards a state shows an observation exactly when `observe` equals it
    (today's meaning, the fast path), over states of random games."""
    rng = random.Random(3)
    state = kb.new_game(["Anna", "Ben", "Cleo", "Dan"])
    states = [state]
    while not kb.is_over(state) and len(states) < 200:
        state = kb.apply(state, random_step(kb, state, rng))
        states.append(state)
    for a in states[::7]:
        for b in states[::11]:
            assert shows(a, observe(b)) == (observe(a) == observe(b))


def test_kb1_an_observation_with_unknown_counts_is_json_only_with_them() -> None:
    """The JSON of a fully identified table is as before; unknown counts appear when non-zero."""
    plain = Observation(foods({"ham": 2}), foods(), 1, 0)
    assert "offer_unknown" not in plain.to_json() and "king_unknown" not in plain.to_json()
    doubt = Observation.from_counts({"ham": 2}, emeralds=1, offer_unknown=1, king_unknown=2)
    assert doubt.to_json()["offer_unknown"] == 1 and doubt.to_json()["king_unknown"] == 2
    assert replace(doubt, offer_unknown=0, king_unknown=0) == plain


def test_kb1_check_observation_rejects_negative_and_too_many_unknown_cards() -> None:
    """KB-1: unknown counts are whole and not negative, and a zone never holds more cards,
    identified or not, than the box has of what may lie there (KB-15: food only in the king's
    area)."""
    bad = Observation(foods(), foods(), offer_unknown=-1, king_unknown=-2)
    messages = " | ".join(str(p) for p in check_observation(bad))
    assert "offer_unknown must be a count" in messages
    assert "king_unknown must be a count" in messages
    assert not check_observation(Observation(foods({"ham": 2}), foods(), 0, 0, 1, 1))
    food_cards = sum(kb.CATALOGUE.card_copies) - 5
    too_many = Observation(foods({"ham": 10}), foods({"cheese": 10}), 0, 0, 0, food_cards - 9)
    problems = check_observation(too_many)
    assert [p.clause for p in problems] == ["KB-1"]
    assert "in the king's area" in str(problems[0])
