"""Seeded random full games of Café International per second (2–4 players, reference board).

Each game draws chance outcomes with their exact probabilities and picks a uniformly random
legal action; `--checked` applies actions through the public checked `apply` (as the app does),
otherwise through `apply_unchecked` (as playouts may). Prints games per second, steps per game
and how the games ended (CI-21). Run:

    python benchmarks/cafe_international_playouts.py [--games 300] [--seed 1] [--checked]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter

import engines.cafe_international as ci
from engines.api import random_step
from engines.cafe_international.rules import apply_unchecked


def play(rng: random.Random, players: int, checked: bool) -> tuple[int, str]:
    state = ci.new_game([f"P{i + 1}" for i in range(players)])
    apply = ci.apply if checked else apply_unchecked
    steps = 0
    while not ci.is_over(state):
        state = apply(state, random_step(ci, state, rng))
        steps += 1
    reason = ci.end_reason(state) or ""
    return steps, " ".join(reason.split()[-3:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--checked", action="store_true", help="use the checked apply")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    endings: Counter[str] = Counter()
    total_steps = 0
    start = time.perf_counter()
    for game in range(args.games):
        steps, ending = play(rng, 2 + game % 3, args.checked)
        total_steps += steps
        endings[ending] += 1
    elapsed = time.perf_counter() - start
    mode = "checked apply" if args.checked else "unchecked apply"
    print(
        f"{args.games} games ({mode}) in {elapsed:.2f} s: {args.games / elapsed:.1f} games/s, "
        f"{total_steps / args.games:.0f} steps per game, {total_steps / elapsed:.0f} steps/s"
    )
    print("ended by: " + ", ".join(f"{k} ×{v}" for k, v in endings.most_common()))


if __name__ == "__main__":
    main()
