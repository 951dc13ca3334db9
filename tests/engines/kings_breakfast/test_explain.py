"""`explain(before, observation)`: the King's Breakfast actions behind what the camera saw."""

from __future__ import annotations

import random

import pytest

import engines.kings_breakfast as kb
from engines.api import random_step
from engines.kings_breakfast.explain import (
    Observation,
    check_observation,
    explain,
    explain_states,
    observe,
    public_key,
)
from engines.kings_breakfast.state import DealCard, DrawCard, DrawnCard, Phase, TakePile


def _dealt(seed: int = 1, players: int = 3) -> kb.State:
    """A game right after the table was set (phase ACT)."""
    rng = random.Random(seed)
    state = kb.new_game(["Anna", "Ben", "Cleo", "Dan"][:players])
    while kb.is_chance_node(state):
        state = kb.apply(state, random_step(kb, state, rng))
    return state


def _counts(**foods: int) -> tuple[int, ...]:
    return tuple(foods.get(food, 0) for food in kb.FOODS)


def test_kb6_the_deal_is_explained_by_dealt_cards() -> None:
    """KB-6: the cook's deal of 2 × players cards explains a full offer (order irrelevant)."""
    start = kb.new_game(["Anna", "Ben", "Cleo"])
    after = _dealt()
    found = explain_states(start, observe(after))
    assert len(found) == 1
    path, state = found[0]
    assert len(path) == 6 and all(isinstance(a, DealCard) for a in path)
    assert public_key(state) == public_key(after)


def test_kb10_a_vanished_pile_is_the_current_players_take() -> None:
    """KB-10: a pile leaving the offer is the current player taking it."""
    before = _dealt()
    food = next(f for f, n in zip(kb.FOODS, before.offer, strict=True) if n)
    after = kb.apply(before, TakePile(food))
    assert explain(before, observe(after)) == [(TakePile(food),)]


def test_kb11_an_unchanged_table_after_a_visit_is_a_hidden_draw() -> None:
    """KB-11: the drawn card is not shown, so a visit leaving the table unchanged is a draw."""
    before = _dealt()
    assert explain(before, observe(before)) == [()]
    paths = explain(before, observe(before), visited=True)
    assert len(paths) == 1
    assert paths[0][0] == DrawCard() and isinstance(paths[0][1], DrawnCard)
    assert paths[0][1].card != "emerald"


def test_kb12_a_drawn_emerald_is_shown_then_laid_down() -> None:
    """KB-12: an Emerald drawn is revealed (reveal area), then laid on the table."""
    before = _dealt()
    shown = Observation(before.offer, before.king, before.emeralds_on_table, revealed=1)
    assert explain(before, shown) == [(DrawCard(), DrawnCard("emerald"))]
    revealed = kb.apply(kb.apply(before, DrawCard()), DrawnCard("emerald"))
    assert revealed.phase == Phase.EMERALD
    laid = Observation(before.offer, before.king, before.emeralds_on_table + 1, 0)
    assert explain(revealed, laid) == [(kb.LayEmerald(),)]


def test_kb13_an_emerald_used_removes_two_of_the_kings_foods() -> None:
    """KB-13: an Emerald and two foods of the king's area leave the table together."""
    base = _dealt()
    before = base.__class__(
        **{
            **base.__dict__,
            "king": _counts(cheese=2, bread=1),
            "emeralds_on_table": 1,
            "deck": tuple(
                d - (1 if i in (1, 2) else 0) - (i == 2) for i, d in enumerate(base.deck)
            ),
        }
    )
    after = kb.apply(before, kb.UseEmerald(("cheese", "bread")))
    assert explain(before, observe(after)) == [(kb.UseEmerald(("cheese", "bread")),)]


def test_kb15_the_rest_of_the_offer_goes_to_the_king_at_the_round_end() -> None:
    """KB-15: after the last player's turn the offer's rest is in the king's area."""
    rng = random.Random(4)
    state = _dealt(seed=4)
    while state.acted < state.n_players - 1:
        state = kb.apply(
            state, TakePile(next(f for f, n in zip(kb.FOODS, state.offer, strict=True) if n))
        )
    food = next(f for f, n in zip(kb.FOODS, state.offer, strict=True) if n)
    after = kb.apply(state, TakePile(food))
    assert after.phase == Phase.DEAL and sum(after.offer) == 0
    assert explain(state, observe(after)) == [(TakePile(food),)]
    del rng


def test_kb1_nothing_explains_cards_appearing_in_the_kings_area() -> None:
    """KB-1/KB-15: food cannot appear in the king's area during a turn: no explanation."""
    before = _dealt()
    impossible = Observation(before.offer, _counts(ham=3), before.emeralds_on_table, 0)
    assert explain(before, impossible) == []


def test_kb1_check_observation_reports_every_problem_at_once() -> None:
    """KB-1: more cards than the box holds, negative counts, two revealed Emeralds."""
    bad = Observation(_counts(ham=20), _counts(ham=1, cheese=-1), emeralds=9, revealed=2)
    problems = check_observation(bad)
    messages = " | ".join(str(p) for p in problems)
    assert "cheese must be a count" in messages
    assert not check_observation(Observation(_counts(ham=2), _counts(), 1, 0))
    bad = Observation(_counts(ham=20), _counts(ham=1), emeralds=9, revealed=2)
    clauses = [p.clause for p in check_observation(bad)]
    assert clauses.count("KB-1") == 2 and "KB-12" in clauses


def test_observation_from_counts_rejects_an_unknown_food() -> None:
    """Observations name foods by their contract ids."""
    assert Observation.from_counts({"ham": 2}).offer[0] == 2
    with pytest.raises(ValueError, match="unknown food 'bacon' in king"):
        Observation.from_counts(king={"bacon": 1})


@pytest.mark.parametrize("seed", [11])
def test_kb9_every_settled_step_of_a_game_is_explained(seed: int) -> None:
    """KB-9: following a random game step by step, each settled table has one explanation
    whose public state is the true one (hidden draws only by their number)."""
    rng = random.Random(seed)
    truth = kb.new_game(["Anna", "Ben", "Cleo"])
    tracked = truth
    while not kb.is_over(truth):
        truth = kb.apply(truth, random_step(kb, truth, rng))
        while kb.is_chance_node(truth) and not kb.is_over(truth):
            truth = kb.apply(truth, random_step(kb, truth, rng))
        found = explain_states(tracked, observe(truth), visited=True)
        assert [public_key(s) for _, s in found].count(public_key(truth)) == 1
        tracked = next(s for _, s in found if public_key(s) == public_key(truth))


def test_kb10_kb15_a_pile_read_short_is_a_partial_view_a_pile_gone_is_not() -> None:
    """KB-10/KB-15/KB-13: cards leave a zone a whole pile at a time, or two from the king's
    area with an Emerald leaving the table; so the confirmed table with a pile read a card
    short is a partial view (nothing moved), while a pile gone, a pile larger than it is, an
    Emerald gone, or the table as it is, is not."""
    from dataclasses import replace

    from engines.kings_breakfast.explain import partial_view

    state = _dealt()
    shown = observe(state)
    big = next(i for i, n in enumerate(shown.offer) if n >= 2)
    small = next(i for i, n in enumerate(shown.offer) if n and i != big)

    def offer_with(index: int, count: int) -> Observation:
        offer = list(shown.offer)
        offer[index] = count
        return replace(shown, offer=tuple(offer))

    assert partial_view(state, offer_with(big, shown.offer[big] - 1))
    assert not partial_view(state, shown)
    assert not partial_view(state, offer_with(small, 0))  # a pile taken (KB-10)
    assert not partial_view(state, offer_with(big, shown.offer[big] + 1))
    short = offer_with(big, shown.offer[big] - 1)
    assert not partial_view(state, replace(short, emeralds=shown.emeralds + 1))
    # an unidentified card may stand for a pile not otherwise seen
    gone = offer_with(small, 0)
    assert partial_view(state, replace(gone, offer_unknown=1))
