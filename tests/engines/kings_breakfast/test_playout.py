"""The fast batch playouts follow the same rules as the checked engine (KB-6..KB-18)."""

from __future__ import annotations

import random

import numpy as np
import pytest

import engines.kings_breakfast as kb
from engines.kings_breakfast.catalogue import CARD_INDEX, CARDS, CATALOGUE
from engines.kings_breakfast.playout import Batch, final_points, play_to_end, policy_turn
from engines.kings_breakfast.policy import choose_action


def _engine_game(n_players: int, order: list[int]) -> tuple[kb.State, kb.State]:
    """The checked engine, every card off the deck taken from `order`; the heuristic plays.

    Returns the first position where the cook acts, and the final position.
    """
    cards = iter(order)
    state = kb.new_game([f"P{i}" for i in range(n_players)])
    first_decision = None
    while not kb.is_over(state):
        if state.phase == kb.Phase.DEAL:
            action: kb.Action = kb.DealCard(CARDS[next(cards)])
        elif state.phase == kb.Phase.DRAW:
            action = kb.DrawnCard(CARDS[next(cards)])
        else:
            first_decision = first_decision or state
            action = choose_action(state)
        state = kb.apply(state, action)
    assert first_decision is not None
    return first_decision, state


@pytest.mark.parametrize(("n_players", "seed"), [(3, 1), (3, 2), (4, 3), (4, 4), (5, 5), (5, 6)])
def test_kb6_to_kb18_batch_playout_matches_the_checked_engine(n_players: int, seed: int) -> None:
    """KB-6..KB-18: same deck order and same heuristic → same king, hands and scores."""
    order = [i for i, copies in enumerate(CATALOGUE.card_copies) for _ in range(copies)]
    random.Random(seed).shuffle(order)
    start, final = _engine_game(n_players, order)

    dealt = 2 * n_players
    batch = Batch(
        hands=np.zeros((1, n_players, 7), dtype=np.int64),
        king=np.zeros((1, 7), dtype=np.int64),
        offer=np.array([start.offer], dtype=np.int64),
        emeralds=np.array([start.emeralds_on_table], dtype=np.int64),
        deck=np.array([order[dealt:]], dtype=np.int64),
        top=np.zeros(1, dtype=np.int64),
        over=np.zeros(1, dtype=bool),
        cook=0,
        current=0,
        acted=0,
    )
    policy_turn(batch)
    play_to_end(batch)
    assert batch.over.all()
    assert tuple(batch.king[0]) == final.king
    for player in range(n_players):
        assert tuple(batch.hands[0, player]) == final.hand(player)
    points, _ = final_points(batch)
    assert list(points[0]) == list(kb.scores(final).values())
    emeralds_out = final.emeralds_on_table + final.removed[CARD_INDEX["emerald"]]
    assert int(batch.emeralds[0]) == final.emeralds_on_table, emeralds_out
