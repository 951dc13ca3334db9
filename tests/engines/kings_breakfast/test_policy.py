"""The simulated players' heuristic: legal, sensible, and deterministic (KB-10..KB-14)."""

from __future__ import annotations

import random

import engines.kings_breakfast as kb
from engines.kings_breakfast.rules import sample_outcome
from engines.kings_breakfast.state import Phase
from tests.engines.kings_breakfast.factories import position


def test_kb10_heuristic_takes_a_pile_it_can_keep() -> None:
    """KB-10/KB-20: with the king well ahead in cheese, the cheese pile is taken."""
    state = position(3, offer={"cheese": 2, "wine": 1}, king={"cheese": 6}, deck={"ham": 6})
    assert kb.choose_action(state) == kb.TakePile("cheese")


def test_kb13_heuristic_uses_an_emerald_to_make_a_rival_too_greedy() -> None:
    """KB-13: the rival holds as much wine as the king; eating two wine ruins them."""
    state = position(
        3,
        offer={"bread": 1},
        king={"wine": 5, "ham": 2},
        emeralds_on_table=1,
        taken={1: {"wine": 5}},
        deck={"cake": 6},
    )
    assert kb.choose_action(state) == kb.UseEmerald(("wine", "wine"))


def test_kb12_heuristic_lays_a_drawn_emerald_that_would_only_hurt_itself() -> None:
    """KB-12: eating the king's only foods would cost the player its own points: lay it down."""
    state = position(
        3, phase=Phase.EMERALD, king={"ham": 2}, taken={0: {"ham": 2}}, deck={"cake": 6}
    )
    assert kb.choose_action(state) == kb.LayEmerald()


def test_kb14_heuristic_passes_only_when_nothing_else_is_possible() -> None:
    """KB-14: nothing possible → pass."""
    state = position(3, offer={}, deck={}, king={"ham": 1})
    assert kb.choose_action(state) == kb.Pass()


def test_heuristic_beats_uniformly_random_players() -> None:
    """A sensible heuristic: over 30 seeded 3-player games it wins most of them."""
    rng = random.Random(5)
    wins = 0
    for game in range(30):
        state = kb.new_game(["H", "R1", "R2"], cook=game % 3)
        while not kb.is_over(state):
            if kb.is_chance_node(state):
                action = sample_outcome(state, rng)
            elif state.current == 0:
                action = kb.choose_action(state)
            else:
                action = rng.choice(kb.legal_actions(state))
            state = kb.apply(state, action)
        points = kb.scores(state)
        wins += points["H"] >= max(points.values())
    assert wins >= 21
