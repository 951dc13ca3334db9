"""Seeded random full games (3–5 players), checked after every action (KB-1, KB-6, KB-8, KB-18).

Every card is accounted for; each round deals exactly 2 × players cards; the game ends exactly
when the deck cannot set the table; scores match a separate plain computation; undo, JSON and
``repr`` give back the same state; the public view rebuilds into a consistent position.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import cast

import pytest

import engines.kings_breakfast as kb
from engines.api import GameRules, History, sample_chance
from engines.kings_breakfast.policy import choose_action
from engines.kings_breakfast.view import TableView, sample_state

BOX = Counter({**{food: 15 for food in kb.FOODS}, "emerald": 5})
# engines.api.GameRules declares new_game(players, **options); ours takes only `cook`
RULES = cast(GameRules, kb)
NAMESPACE = {name: getattr(kb, name) for name in kb.__all__}


def plain_final_scores(state: kb.State) -> dict[str, int]:
    """KB-20..KB-22 without the engine's scoring module."""
    result = {}
    for index, name in enumerate(state.players):
        total = 0
        for food in range(7):
            held = state.taken[index][food] + state.drawn[index][food]
            if held <= state.king[food]:
                total += held * state.king[food]
        result[name] = total
    return result


def _play(n_players: int, seed: int, *, policy_share: float) -> list[tuple[kb.State, kb.Action]]:
    """One seeded game: chance sampled, decisions random or by the heuristic."""
    rng = random.Random(seed)
    state = kb.new_game([f"P{i}" for i in range(n_players)], cook=seed % n_players)
    steps = []
    while not kb.is_over(state):
        if kb.is_chance_node(state):
            action = sample_chance(RULES, state, rng)
        elif rng.random() < policy_share:
            action = choose_action(state)
        else:
            action = rng.choice(kb.legal_actions(state))
        steps.append((state, action))
        state = kb.apply(state, action)
    steps.append((state, kb.Pass()))
    return steps


GAMES = [
    (n, seed, share)
    for n in (3, 4, 5)
    for seed, share in ((1, 0.0), (2, 0.7), (3, 1.0), (4, 0.3), (5, 0.0))
]


@pytest.mark.parametrize(("n_players", "seed", "policy_share"), GAMES)
def test_kb1_kb6_kb18_random_full_game_keeps_every_invariant(
    n_players: int, seed: int, policy_share: float
) -> None:
    """KB-1 (all 110 cards always), KB-6/KB-8 (2 × players dealt per round), KB-18 (the end)."""
    steps = _play(n_players, seed, policy_share=policy_share)
    per_round = 2 * n_players
    history: History[kb.State, kb.Action] = History.start(steps[0][0])
    dealt_this_round = 0
    for (state, action), (next_state, _) in zip(steps, steps[1:], strict=False):
        assert kb.is_legal(state, action)
        history = history.push(RULES, action)
        assert history.current == next_state
        assert history.undo().current == state
        assert kb.inventory(next_state) == BOX, f"cards lost after {action!r}"
        assert (
            kb.state_from_json(json.loads(json.dumps(kb.state_to_json(next_state)))) == next_state
        )
        assert eval(repr(next_state), NAMESPACE) == next_state  # noqa: S307 - repr rebuilds
        assert eval(repr(action), NAMESPACE) == action  # noqa: S307

        if isinstance(action, kb.DealCard):
            dealt_this_round += 1
        if next_state.phase == kb.Phase.ACT and state.phase == kb.Phase.DEAL:
            assert dealt_this_round == per_round  # KB-6, KB-8
            dealt_this_round = 0
        if next_state.round != state.round or kb.is_over(next_state):  # a round ended
            assert state.acted == n_players - 1
            deck_left = state.deck_count - (1 if isinstance(action, kb.DrawnCard) else 0)
            assert kb.is_over(next_state) == (deck_left < per_round)  # KB-18
            if kb.is_over(next_state):
                assert sum(next_state.unused) == deck_left and next_state.deck_count == 0

    final = steps[-1][0]
    assert kb.is_over(final) and kb.legal_actions(final) == []
    assert sum(final.unused) < per_round
    assert kb.scores(final) == plain_final_scores(final)
    result = kb.scores_from_counts(
        {
            "king": dict(zip(kb.FOODS, final.king, strict=True)),
            "players": {
                name: dict(zip(kb.FOODS, final.hand(i), strict=True))
                for i, name in enumerate(final.players)
            },
        }
    )
    assert {name: r["total"] for name, r in result["players"].items()} == kb.scores(final)


@pytest.mark.parametrize("n_players", [3, 5])
def test_public_view_rebuilds_a_consistent_position_after_every_action(n_players: int) -> None:
    """The table's view (no hidden draw revealed) rebuilds into a state with the same view."""
    rng = random.Random(11)
    for state, _ in _play(n_players, 5, policy_share=0.5):
        view = json.loads(json.dumps(kb.public_view(state)))
        rebuilt = sample_state(TableView.from_json(view), rng)
        assert kb.public_view(rebuilt) == view
        assert kb.inventory(rebuilt) == BOX
        if state.phase == kb.Phase.ACT:
            assert kb.legal_actions(rebuilt) == kb.legal_actions(state)
            hand = dict(zip(kb.FOODS, state.hand(state.current), strict=True))
            with_hand = sample_state(TableView.from_json(view, hand), rng)
            assert with_hand.hand(state.current) == state.hand(state.current)
