"""Latency of the Café International placement advisor (`advise cafe-international`), in ms.

Positions: the reference board half full (34 of 68 chairs taken, reached by seeded games whose
players prefer seating guests), with the 5-tile hand the player to move holds there; then the same
boards with a hand holding both women jokers (the worst case: jokers fit every chair). Each query
goes through the contract JSON: `position_from_json` + `advise` + `advice_to_json`. Run:

    python benchmarks/cafe_international_advisor.py [--positions 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any

import engines.cafe_international as ci
from engines.api import sample_chance
from engines.cafe_international.advisor import advice_to_json, advise, position_from_json
from engines.cafe_international.rules import apply_unchecked


def half_full_position(rng: random.Random, chairs: int = 34) -> dict[str, Any] | None:
    """Play a seeded game until `chairs` chairs are taken; the advice position there."""
    state = ci.new_game(["a", "b", "c"])
    while not ci.is_over(state):
        if ci.is_chance_node(state):
            state = apply_unchecked(state, sample_chance(ci, state, rng))
            continue
        if sum(g is not None for g in state.seated) >= chairs:
            return {
                "layout": "reference",
                "seated": state.seated_by_chair(),
                "bar": list(state.bar),
                "hand": list(state.hands[state.current]),
                "first_turn_of_game": False,
            }
        actions = ci.legal_actions(state)
        seats = [a for a in actions if isinstance(a, ci.Seat)]
        state = apply_unchecked(state, rng.choice(seats or actions))
    return None


def with_jokers(position: dict[str, Any]) -> dict[str, Any]:
    """The same board with two women jokers in the hand (if none is seated)."""
    used = [g.split("@")[0] for g in position["seated"].values()]
    if "joker/w" in used:
        return position
    hand = [t for t in position["hand"] if not t.startswith("joker")][:3] + ["joker/w"] * 2
    return position | {"hand": hand}


def time_query(position: dict[str, Any]) -> tuple[float, int]:
    start = time.perf_counter()
    state = position_from_json(position)
    answer = advice_to_json(state, advise(state))
    return (time.perf_counter() - start) * 1000, len(answer["actions"])


def report(name: str, positions: list[dict[str, Any]]) -> None:
    times, counts = zip(*(time_query(p) for p in positions), strict=True)
    ordered = sorted(times)
    print(
        f"{name:<28} n={len(times):>4}  median {statistics.median(times):6.1f} ms  "
        f"p90 {ordered[int(0.9 * (len(ordered) - 1))]:6.1f} ms  max {ordered[-1]:6.1f} ms  "
        f"actions median {statistics.median(counts):.0f} (max {max(counts)})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    positions: list[dict[str, Any]] = []
    while len(positions) < args.positions:
        position = half_full_position(rng)
        if position is not None and len(position["hand"]) == 5:
            positions.append(position)
    time_query(positions[0])  # warm imports and caches
    report("half-full board, 5-tile hand", positions)
    report("same boards, 2 jokers in hand", [with_jokers(p) for p in positions])


if __name__ == "__main__":
    main()
