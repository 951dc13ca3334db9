"""Dice King full games per second: random play and advisor play, 2–5 players, seeded.

"checked" also runs the conformance checks of the tests on every action (JSON round-trip and the
65-card inventory). Run:

    python benchmarks/dice_king_playouts.py [--games 40] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from typing import Any, cast

import engines.dice_king as dk
from engines.api import GameRules, random_step, sample_chance
from engines.dice_king.advisor import advised_action

RULES = cast(GameRules, dk)  # the module implements the engine API


def play(seed: int, players: int, policy: str, checked: bool) -> int:
    rng = random.Random(seed)
    state = dk.new_game([f"P{i + 1}" for i in range(players)])
    steps = 0

    def at_random(position: Any) -> Any:
        return random_step(RULES, position, rng)

    choose: Callable[[Any], Any] = advised_action if policy == "advisor" else at_random
    while not dk.is_over(state):
        action = sample_chance(RULES, state, rng) if dk.is_chance_node(state) else choose(state)
        state = dk.apply(state, action)
        steps += 1
        if checked:
            assert dk.state_from_json(dk.state_to_json(state)) == state
            assert sum(dk.inventory(state).values()) == dk.TOTAL_PIECES
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for policy in ("random", "advisor"):
        for checked in (False, True):
            start = time.perf_counter()
            steps = sum(play(args.seed + g, 2 + g % 4, policy, checked) for g in range(args.games))
            elapsed = time.perf_counter() - start
            print(
                f"{policy:8s} {'checked' if checked else 'plain':8s}: "
                f"{args.games / elapsed:7.1f} games/s, {steps / elapsed:8.0f} actions/s "
                f"({args.games} games, {steps} actions, {elapsed:.2f} s)"
            )


if __name__ == "__main__":
    main()
