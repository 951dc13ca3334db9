"""Conformance tests every game gets by being registered in `engines.GAMES`.

Seeded random full games, checked after every action: every piece accounted for, the state and
the action round-trip through JSON text, undo gives back the previous state, chance outcomes are
exact probabilities, and a finished game offers no action and scores every player.
Player counts: KB-3 (3–5), the Café's box (2–4, CI rules intro), DK (2–5, DK rules intro).
"""

from __future__ import annotations

import importlib
import json
import math
import random
from collections import Counter
from types import ModuleType
from typing import Any

import pytest

from engines import GAMES
from engines.api import History, random_step

PLAYER_COUNTS: dict[str, tuple[int, ...]] = {
    "kings-breakfast": (3, 4, 5),
    "cafe-international": (2, 3, 4),
    "dice-king": (2, 3, 4, 5),
}
SEEDS = (1, 2)
MAX_STEPS = 20_000

CASES = [
    (game, players, seed) for game in GAMES for players in PLAYER_COUNTS[game] for seed in SEEDS
]


def _rules(game: str) -> ModuleType:
    return importlib.import_module(GAMES[game])


def _via_json_text(value: Any) -> Any:
    """Serialise to JSON text and parse it back, as a save file or a pipe would."""
    return json.loads(json.dumps(value))


def _check_chance_outcomes(rules: ModuleType, state: Any) -> None:
    outcomes = rules.chance_outcomes(state)
    assert outcomes, "a chance node must list its outcomes"
    assert all(probability > 0 for _, probability in outcomes)
    assert math.isclose(sum(p for _, p in outcomes), 1.0, rel_tol=0, abs_tol=1e-9)
    assert len({action for action, _ in outcomes}) == len(outcomes), "outcomes must be distinct"


@pytest.mark.parametrize(("game", "players", "seed"), CASES)
def test_random_full_game_keeps_every_invariant(game: str, players: int, seed: int) -> None:
    rules = _rules(game)
    rng = random.Random(seed)
    names = [f"P{i + 1}" for i in range(players)]
    state = rules.new_game(names)
    history: History[Any, Any] = History.start(state)
    initial_inventory: Counter[str] = rules.inventory(state)
    assert sum(initial_inventory.values()) == rules.TOTAL_PIECES

    for _ in range(MAX_STEPS):
        if rules.is_over(state):
            break
        if rules.is_chance_node(state):
            _check_chance_outcomes(rules, state)
        action = random_step(rules, state, rng)
        assert rules.is_legal(state, action)
        assert rules.action_from_json(_via_json_text(rules.action_to_json(action))) == action

        next_state = rules.apply(state, action)
        history = history.push(rules, action)
        assert history.current == next_state
        assert history.undo().current == state, "undo must give back the previous state"

        assert rules.inventory(next_state) == initial_inventory, "a piece appeared or vanished"
        restored = rules.state_from_json(_via_json_text(rules.state_to_json(next_state)))
        assert restored == next_state
        assert hash(restored) == hash(next_state)
        state = next_state
    else:
        pytest.fail(f"{game} did not end within {MAX_STEPS} steps")

    assert rules.legal_actions(state) == []
    assert not rules.is_chance_node(state)
    final_scores = rules.scores(state)
    assert set(final_scores) == set(names)
    assert all(isinstance(points, int) for points in final_scores.values())
    json.dumps(rules.public_view(state))


@pytest.mark.parametrize("game", list(GAMES))
def test_history_redo_replays_the_undone_action(game: str) -> None:
    rules = _rules(game)
    rng = random.Random(7)
    names = [f"P{i + 1}" for i in range(PLAYER_COUNTS[game][0])]
    history: History[Any, Any] = History.start(rules.new_game(names))
    for _ in range(25):
        history = history.push(rules, random_step(rules, history.current, rng))
    undone = history.undo().undo()
    assert undone.redo(rules).redo(rules).current == history.current
    assert not history.can_redo()


@pytest.mark.parametrize("game", list(GAMES))
def test_a_random_playout_stops_where_a_player_acts_or_at_the_end(game: str) -> None:
    """`random_playout`: a few random steps, then pending chance resolved — a player is to act
    (or the game is over); a long playout ends the game; the same seed gives the same state."""
    from engines.api import random_playout

    rules = _rules(game)
    start = rules.new_game(["Anna", "Ben", "Cleo"])
    for steps in (0, 5, 17):
        state = random_playout(rules, start, steps, random.Random(steps))
        assert rules.is_over(state) or not rules.is_chance_node(state)
        again = random_playout(rules, start, steps, random.Random(steps))
        assert rules.state_to_json(state) == rules.state_to_json(again)
    assert rules.is_over(random_playout(rules, start, 100_000, random.Random(1)))
