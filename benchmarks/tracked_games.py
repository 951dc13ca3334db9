"""Tracked games: full games as frame sequences with hands passing between moves.

For each game, G seeded random games (eval seeds 8_000_000 + k) are played; after every move,
when the table is settled, frames are produced at 10 frames per second: first a hand reaching
over the table (3 frames, the hand moving towards a piece; the pieces under it vanish), then the
settled table (8 frames). Each frame goes through the game's reader and `vision.tracker.Tracker`
exactly as live frames would. A simulated user answers every question the tracker asks (picking
the candidate that is true, or entering the true state when none is).

Detections are TRUTH-DERIVED and drawn without pixels (`project_pieces`: pieces projected
through the tablet camera; covered pieces and pieces under a hand left out), because the real
detector is not available yet and rendering every frame would take hours on this machine. For
Café International the board registration comes from the known camera (four board corners
projected), not from the markers in pixels.

Prints per game: games, final state equal to the truth %, questions per game, and silently wrong
(an applied explanation that differs from the truth, never flagged to the user): must be 0.

    .venv/bin/python benchmarks/tracked_games.py [--games-per 20] [--csv FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines.cafe_international as ci  # noqa: E402
import engines.dice_king as dk  # noqa: E402
import engines.kings_breakfast as kb  # noqa: E402
from datasets.render.layouts import board_unit_to_local_mm  # noqa: E402
from datasets.state_render import (  # noqa: E402
    detections_from_truth,
    place_state,
    project_pieces,
    table_camera,
)
from engines.api import random_step  # noqa: E402
from engines.dice_king.explain import state_key as dk_key  # noqa: E402
from engines.kings_breakfast.explain import public_key as kb_key  # noqa: E402
from vision.readers import cafe_international as ci_reader  # noqa: E402
from vision.readers import dice_king as dk_reader  # noqa: E402
from vision.readers import kings_breakfast as kb_reader  # noqa: E402
from vision.tracker import Tracker  # noqa: E402

SEED_BASE = 8_000_000
NAMES = ("Anna", "Ben", "Cleo", "Dan", "Eve")
FPS = 10.0
HAND_FRAMES = 3
STILL_FRAMES = 8
SIZE = (800, 600)
LAYOUT_JSON = json.loads(
    (
        Path(__file__).resolve().parents[1]
        / "engines/cafe_international/data/reference_layout.json"
    ).read_text(encoding="utf-8")
)


def settle(module: Any, state: Any, rng: random.Random) -> Any:
    """Play chance outcomes until the table is settled (a player decides, or the game is over)."""
    while not module.is_over(state) and module.is_chance_node(state):
        state = module.apply(state, random_step(module, state, rng))
    return state


def cafe_registration(camera: Any) -> ci_reader.Registration:
    u0, v0, u1, v1 = ci_reader.layout_extent(LAYOUT_JSON)
    units = np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]], float)
    mm = board_unit_to_local_mm(units)
    px = camera.project(np.column_stack([mm, np.full(4, 3.7)]))
    return ci_reader.register_points(units, px, (u0, v0, u1, v1))


class Game:
    """One game's engine, reader and truth key."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.module = {"kings-breakfast": kb, "cafe-international": ci, "dice-king": dk}[name]

    def new(self, seed: int) -> tuple[Any, random.Random]:
        rng = random.Random(seed)
        n = {
            "kings-breakfast": 3 + seed % 3,
            "cafe-international": 2 + seed % 3,
            "dice-king": 2 + seed % 4,
        }[self.name]
        state = self.module.new_game(list(NAMES[:n]))
        if self.name != "kings-breakfast":  # the set-up deal is confirmed by the user
            state = settle(self.module, state, rng)
        return state, rng

    def key(self, state: Any) -> Any:
        if self.name == "kings-breakfast":
            return kb_key(state)
        if self.name == "dice-king":
            return dk_key(state)
        return state

    def read(self, state: Any, camera: Any, rng: np.random.Generator, hands: list) -> tuple:
        pieces = place_state(self.name, state, rng)
        detections = detections_from_truth(project_pieces(pieces, camera, hands=hands))
        if self.name == "kings-breakfast":
            return kb_reader.read_table(detections, SIZE), len(detections)
        if self.name == "dice-king":
            return dk_reader.read_table(detections, SIZE, len(state.players)), len(detections)
        reading = ci_reader.read_table(
            detections,
            SIZE,
            cafe_registration(camera),
            state.layout,
            LAYOUT_JSON,
            n_players=len(state.players),
        )
        return reading, len(detections)


def play(game: Game, seed: int) -> dict[str, Any]:
    truth, rng = game.new(seed)
    np_rng = np.random.default_rng(seed)
    camera = table_camera(game.name, SIZE, np_rng)
    tracker = Tracker(game.name, truth)
    clock = 0.0
    questions = silent = frames = 0
    current = truth

    def show(state: Any, hand_target: tuple[float, float] | None) -> None:
        nonlocal clock, questions, silent, frames
        schedule: list[list] = []
        if hand_target is not None:
            hx, hy = hand_target
            schedule += [[(hx * f, -350 + (hy + 350) * f)] for f in (0.5, 0.8, 1.0)][:HAND_FRAMES]
        schedule += [[]] * STILL_FRAMES
        for hands in schedule:
            reading, n = game.read(state, camera, np_rng, hands)
            frames += 1
            for event in tracker.update(clock, reading, n):
                if event.kind == "applied" and game.key(tracker.state) != game.key(state):
                    silent += 1
                    tracker.correct(state)  # the user would notice later; count it and go on
                if event.kind == "question":
                    questions += 1
                    keys = [game.key(s) for s in tracker.candidate_states]
                    if game.key(state) in keys:
                        tracker.answer(keys.index(game.key(state)))
                    else:
                        tracker.correct(state)
            clock += 1.0 / FPS

    show(current, None)
    while not game.module.is_over(current):
        current = game.module.apply(current, random_step(game.module, current, rng))
        current = settle(game.module, current, rng)
        pieces = [
            p
            for p in place_state(game.name, current, np.random.default_rng(0))
            if p.kind != "board"
        ]
        target = pieces[int(np_rng.integers(len(pieces)))].centre_mm if pieces else (0.0, 0.0)
        show(current, target)
    final_ok = game.key(tracker.state) == game.key(current) and tracker.question is None
    return {
        "game": game.name,
        "seed": seed,
        "final_ok": final_ok,
        "questions": questions,
        "silent": silent,
        "frames": frames,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games-per", type=int, default=20, help="games per game type")
    parser.add_argument(
        "--games", nargs="*", default=["kings-breakfast", "cafe-international", "dice-king"]
    )
    parser.add_argument("--csv", type=Path)
    args = parser.parse_args()
    print("detections: TRUTH-DERIVED, projected without pixels (no detector yet)")
    rows = []
    for name in args.games:
        game = Game(name)
        start = time.perf_counter()
        results = [play(game, SEED_BASE + k) for k in range(args.games_per)]
        rows += results
        n = len(results)
        ok = sum(r["final_ok"] for r in results)
        silent_games = sum(1 for r in results if r["silent"])
        print(
            f"{name:<20} games {n:>3}  final state right {100 * ok / n:6.2f} %"
            f"  questions/game {sum(r['questions'] for r in results) / n:5.2f}"
            f"  silently wrong games {silent_games}"
            f"  frames {sum(r['frames'] for r in results)}  {time.perf_counter() - start:6.1f} s"
        )
    if args.csv:
        with args.csv.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
