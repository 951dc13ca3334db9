"""Benchmark: random full King's Breakfast games per second (3–5 players, seeded).

Three ways: the checked public `apply` with uniformly random actions (as the tests play), the
same with the private unchecked transition, and the numpy batch playouts the hints use
(heuristic players). Run: ``python benchmarks/kings_breakfast_playouts.py [--games N]``.
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

import numpy as np

import engines.kings_breakfast as kb
from engines.kings_breakfast.catalogue import CATALOGUE
from engines.kings_breakfast.playout import Batch, play_to_end, policy_turn
from engines.kings_breakfast.rules import _apply_unchecked, sample_outcome


def random_game(
    n_players: int, rng: random.Random, step: Callable[[kb.State, kb.Action], kb.State]
) -> int:
    """One random game; returns the number of steps (chance and decisions)."""
    state = kb.new_game([f"P{i}" for i in range(n_players)], cook=rng.randrange(n_players))
    steps = 0
    while not kb.is_over(state):
        if kb.is_chance_node(state):
            action = sample_outcome(state, rng)
        else:
            action = rng.choice(kb.legal_actions(state))
        state = step(state, action)
        steps += 1
    return steps


def batch_games(n_players: int, games: int, seed: int) -> None:
    """`games` whole games at once in the batch simulator (after the first deal)."""
    rng = np.random.default_rng(seed)
    box = np.repeat(np.arange(len(CATALOGUE.card_copies)), CATALOGUE.card_copies)
    deck = rng.permuted(np.tile(box, (games, 1)), axis=1)
    dealt = 2 * n_players
    first = deck[:, :dealt]
    counts = (first[:, :, None] == np.arange(8)).sum(axis=1)
    batch = Batch(
        hands=np.zeros((games, n_players, 7), dtype=np.int64),
        king=np.zeros((games, 7), dtype=np.int64),
        offer=counts[:, :7].astype(np.int64),
        emeralds=counts[:, 7].astype(np.int64),
        deck=deck[:, dealt:],
        top=np.zeros(games, dtype=np.int64),
        over=np.zeros(games, dtype=bool),
        cook=0,
        current=0,
        acted=0,
    )
    policy_turn(batch)
    play_to_end(batch)
    assert batch.over.all()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1500, help="games per player count")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(
        f"{'players':>7} {'mode':<28} {'games':>6} {'seconds':>8} {'games/s':>9} {'steps/game':>10}"
    )
    for n_players in (3, 4, 5):
        for mode, step in (
            ("checked apply, random", kb.apply),
            ("unchecked, random", _apply_unchecked),
        ):
            rng = random.Random(args.seed)
            games = args.games if step is _apply_unchecked else args.games // 3
            start = time.perf_counter()
            steps = sum(random_game(n_players, rng, step) for _ in range(games))
            seconds = time.perf_counter() - start
            print(
                f"{n_players:>7} {mode:<28} {games:>6} {seconds:>8.2f} {games / seconds:>9.0f} "
                f"{steps / games:>10.0f}"
            )
        games = args.games * 4
        start = time.perf_counter()
        batch_games(n_players, games, args.seed)
        seconds = time.perf_counter() - start
        print(
            f"{n_players:>7} {'numpy batch, heuristic':<28} {games:>6} {seconds:>8.2f} "
            f"{games / seconds:>9.0f} {'-':>10}"
        )


if __name__ == "__main__":
    main()
