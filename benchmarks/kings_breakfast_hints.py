"""Benchmark: King's Breakfast hint latency and playouts per second, from public views.

Positions are taken from seeded heuristic games (3 and 5 players) early, mid-game and late;
for each, `hints` runs from the public view with the player's hand entered. Prints the time of
one call with the default budget, and of a call with exactly 1,000 playouts in all.
Run: ``python benchmarks/kings_breakfast_hints.py``.
"""

from __future__ import annotations

import random
import time

import engines.kings_breakfast as kb
from engines.kings_breakfast.hints import DEFAULT_PLAYOUTS, hints_for_state
from engines.kings_breakfast.policy import choose_action
from engines.kings_breakfast.rules import sample_outcome


def positions(n_players: int, seed: int) -> dict[str, kb.State]:
    """Decision positions of one seeded game: first, middle and last round."""
    rng = random.Random(seed)
    state = kb.new_game([f"P{i}" for i in range(n_players)])
    decisions = []
    while not kb.is_over(state):
        if kb.is_chance_node(state):
            state = kb.apply(state, sample_outcome(state, rng))
            continue
        decisions.append(state)
        state = kb.apply(state, choose_action(state))
    return {"early": decisions[0], "mid": decisions[len(decisions) // 2], "late": decisions[-2]}


def timed(state: kb.State, playouts: int, repeats: int = 3) -> tuple[float, int, int]:
    """Best wall time of `repeats` calls; the actions and the playouts actually run."""
    best = float("inf")
    for repeat in range(repeats):
        start = time.perf_counter()
        result = hints_for_state(state, playouts=playouts, seed=repeat)
        best = min(best, time.perf_counter() - start)
    n_actions = len(result["actions"])
    return best, n_actions, n_actions * result["playouts_per_action"]


def main() -> None:
    print(
        f"{'players':>7} {'when':<6} {'actions':>7} {'budget':>6} {'playouts':>8} "
        f"{'seconds':>8} {'playouts/s':>10}"
    )
    for n_players in (3, 5):
        for when, state in positions(n_players, seed=n_players).items():
            for budget in (1000, DEFAULT_PLAYOUTS):
                seconds, n_actions, played = timed(state, budget)
                print(
                    f"{n_players:>7} {when:<6} {n_actions:>7} {budget:>6} {played:>8} "
                    f"{seconds:>8.3f} {played / seconds:>10.0f}"
                )


if __name__ == "__main__":
    main()
