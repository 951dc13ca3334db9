"""Latency of the Dice King keep advisor (`advise dice-king`), per query, in milliseconds.

Random seeded positions of the companion deck (five face-up cards, six random readings) with
2 rolls left (and 1 and 3 for comparison). Each query goes through the contract JSON
(`request_from_json` + `advise` + `to_json`). The first query pays for building the DP tables of
its cards; the tables are cached per requirement afterwards. Run:

    python benchmarks/dice_king_advisor.py [--queries 300] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from engines.dice_king.advisor import advise, request_from_json
from engines.dice_king.catalogue import ALL_READINGS, companion_deck


def random_state(rng: random.Random, rolls_left: int) -> dict[str, object]:
    ids = list(companion_deck().ids)
    return {
        "deck": "companion",
        "row": rng.sample(ids, 5),
        "dice": [rng.choice(ALL_READINGS) for _ in range(6)],
        "rolls_left": rolls_left,
    }


def time_query(state: dict[str, object]) -> float:
    start = time.perf_counter()
    advise(request_from_json(state)).to_json()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    cold = time_query(random_state(rng, 2))
    print(f"first query (cold tables for its 5 cards): {cold:.1f} ms")
    start = time.perf_counter()
    for card in companion_deck().cards:  # warm every table of the deck
        time_query({"deck": "companion", "row": [card.id], "dice": ["1r"] * 6, "rolls_left": 3})
    print(f"building every table of the companion deck: {(time.perf_counter() - start):.2f} s")
    for rolls_left in (2, 1, 3):
        times = sorted(time_query(random_state(rng, rolls_left)) for _ in range(args.queries))
        p90 = times[int(0.9 * len(times))]
        print(
            f"rolls_left={rolls_left}: median {statistics.median(times):.2f} ms, "
            f"p90 {p90:.2f} ms, max {times[-1]:.2f} ms over {len(times)} queries"
        )


if __name__ == "__main__":
    main()
