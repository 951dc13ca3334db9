"""Live tables: how many of the pieces the tablet sees the detector finds, per game.

For each game, N positions of seeded random games (validation seeds 8_000_000 + k, the tracked
games' seeds) are laid out as players do (`datasets.state_render.render_state`: King's Breakfast
columns in the king's area and the offer, the Café board and hands, Dice King's inhabitants,
village stacks and kingdoms), seen by the game's tablet camera (800x600, eval-split tables and
light), and run through the game's live detector (`recognition.detector_model_path`; another
with ``--detector-model``) with the app's live settings
(`companion_app.viewmodels.recognition.live_perception_config`; Dice King without its dice zoom,
which needs the zones). Detections of the game's piece kind are matched one-to-one to the
renderer's target pieces (IoU >= 0.5, best score first).

Prints per game: positions, target pieces, found (recall), precision, and for cards the recall
by the distance from a card's centre to the nearest other target's centre in the frame
(King's Breakfast's columns put overlapping cards 15-25 px apart), and ms per frame.
``--identify`` runs the app's whole live perception instead (`vision.pipeline.Perception` with
the live config and the companion gallery of the game) and also prints how many of the found
pieces were named right and wrong (the rest unnamed).

    .venv/bin/python benchmarks/live_table_detection.py [--positions 24] [--detector-model F]
        [--games kings-breakfast,dice-king] [--identify]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from companion_app.viewmodels.recognition import (  # noqa: E402
    detector_model_path,
    live_perception_config,
)
from datasets.state_render import GAMES, render_state  # noqa: E402
from engines import game_rules  # noqa: E402
from engines.api import random_playout  # noqa: E402
from vision.detector import Detector  # noqa: E402
from vision.gallery import default_gallery  # noqa: E402
from vision.identify import Identifier  # noqa: E402
from vision.pipeline import Perception  # noqa: E402
from vision.readers.photos import PIECE_KIND  # noqa: E402
from vision.voting import box_iou  # noqa: E402

SEED_BASE = 8_000_000
PLAYERS = {"kings-breakfast": 4, "cafe-international": 3, "dice-king": 3}
# bins of the distance (frame px) from a card's centre to the nearest other target's centre
DISTANCE_BINS = (0.0, 15.0, 26.0, 40.0, float("inf"))


def positions(game: str, count: int) -> list[tuple[int, object]]:
    """`count` (seed, state) pairs: game k after 10 + 9k % 120 random steps."""
    rules = game_rules(game)
    out = []
    for k in range(count):
        seed = SEED_BASE + k
        start = rules.new_game([f"P{i}" for i in range(PLAYERS[game])])
        state = random_playout(rules, start, 10 + (9 * k) % 120, random.Random(seed))
        out.append((seed, state))
    return out


def match(
    boxes: np.ndarray, scores: np.ndarray, truth: np.ndarray, iou_min: float = 0.5
) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Detections matched one-to-one to truth boxes (best score first): a bool per truth box
    (found) and the (detection, truth) index pairs."""
    found = np.zeros(len(truth), bool)
    pairs: list[tuple[int, int]] = []
    if not len(boxes) or not len(truth):
        return found, pairs
    iou = box_iou(boxes, truth)
    for i in np.argsort(-scores):
        candidates = np.where(~found, iou[i], 0.0)
        j = int(candidates.argmax())
        if candidates[j] >= iou_min:
            found[j] = True
            pairs.append((int(i), j))
    return found, pairs


def nearest_distances(centres: np.ndarray) -> np.ndarray:
    """Each centre's distance to the nearest other one (inf when alone)."""
    if len(centres) < 2:
        return np.full(len(centres), np.inf)
    d = np.linalg.norm(centres[:, None] - centres[None], axis=2)
    np.fill_diagonal(d, np.inf)
    return d.min(axis=1)


@dataclass(frozen=True)
class LiveResult:
    """One game's figures: target pieces, found, boxes reported, found / all per distance bin."""

    game: str
    positions: int
    targets: int
    found: int
    predicted: int
    by_distance: np.ndarray  # (bins, 2): found, all
    ms: float
    named: tuple[int, int] | None = None  # found pieces named right, named wrong

    def line(self) -> str:
        bins = ", ".join(
            f"{lo:.0f}-{hi:.0f} px {f}/{n}"
            for lo, hi, (f, n) in zip(
                DISTANCE_BINS[:-1], DISTANCE_BINS[1:], self.by_distance, strict=True
            )
        )
        return (
            f"{self.game}: {self.positions} positions, {self.targets} pieces, found "
            f"{self.found / max(self.targets, 1):.3f}, precision "
            f"{self.found / max(self.predicted, 1):.3f}, {self.ms:.0f} ms a frame; "
            f"found by nearest centre: {bins}"
            + (
                f"; found named right {self.named[0]}, wrong {self.named[1]}"
                if self.named is not None
                else ""
            )
        )


def evaluate(game: str, count: int, detector: Detector | Perception) -> LiveResult:
    """Run `detector` (or a whole live `Perception`, which also names pieces) on `count`
    positions of `game`."""
    kind = PIECE_KIND[game]
    targets = matched = predicted = 0
    right = wrong = 0
    by_distance = np.zeros((len(DISTANCE_BINS) - 1, 2), int)
    seconds = 0.0
    for seed, state in positions(game, count):
        image, truth = render_state(game, state, seed)
        objects = [o for o in truth["objects"] if o["kind"] == kind and o.get("target")]
        truth_boxes = np.array([o["box"] for o in objects], float).reshape(-1, 4)
        start = time.perf_counter()
        if isinstance(detector, Detector):
            detections = detector.detect(image)
        else:
            detections = detector.process(image)
        seconds += time.perf_counter() - start
        mine = np.array([k == kind for k in detections.kinds], bool)
        boxes, scores = detections.boxes_xyxy[mine], detections.scores[mine]
        found, pairs = match(boxes, scores, truth_boxes)
        names = [detections.identities[i] for i in np.flatnonzero(mine)]
        for i, j in pairs:
            if names[i] is not None:
                same = names[i] == objects[j]["identity"]
                right, wrong = right + same, wrong + (not same)
        targets += len(truth_boxes)
        matched += int(found.sum())
        predicted += len(boxes)
        centres = (truth_boxes[:, :2] + truth_boxes[:, 2:]) / 2
        bins = np.digitize(nearest_distances(centres), DISTANCE_BINS[1:-1])
        for b, f in zip(bins, found, strict=True):
            by_distance[b] += (int(f), 1)
    return LiveResult(
        game,
        count,
        targets,
        matched,
        predicted,
        by_distance,
        1000 * seconds / max(count, 1),
        None if isinstance(detector, Detector) else (right, wrong),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=24)
    parser.add_argument(
        "--detector-model", type=Path, default=None, help="default: the game's live table's"
    )
    parser.add_argument("--games", default=",".join(GAMES))
    parser.add_argument(
        "--identify", action="store_true", help="the whole live perception, names counted"
    )
    args = parser.parse_args()
    if args.positions < 1:
        parser.error("--positions must be at least 1")
    for game in args.games.split(","):
        if game not in GAMES:
            parser.error(f"unknown game {game!r} (one of {', '.join(GAMES)})")
        config = live_perception_config(game)
        model = args.detector_model or detector_model_path(game)
        runner: Detector | Perception
        if args.identify:
            identifier = Identifier(default_gallery([game]))
            runner = Perception(config, detector_model=model, identifier=identifier, games=[game])
        else:
            runner = Detector(model, config.detector)
        print(evaluate(game, args.positions, runner).line(), flush=True)


if __name__ == "__main__":
    main()
