"""How much identification adds per card or tile: warp, describe and match, on rendered scenes.

Renders a few eval scenes per game (1280×960), builds the identifier once (timed apart), then
times `Identifier.match` on every scene's target cards and tiles (true corners) several times and
prints milliseconds per piece (wall clock, and this process's CPU time, which other programs on a
busy machine disturb less), per game and overall, with and without restricting the candidates to
the game. Frames with few pieces pay the per-frame overhead (a few describe calls) over fewer
pieces, so King's Breakfast scenes (3–6 cards) cost more per piece than Café boards. Also times
the optional corner alignment (`vision.rectify.align_to_reference`).

    .venv/bin/python benchmarks/identify_speed.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from datasets import art  # noqa: E402
from datasets.render.scene import render_sample  # noqa: E402
from vision.detections import Detections  # noqa: E402
from vision.gallery import default_gallery  # noqa: E402
from vision.identify import Identifier  # noqa: E402
from vision.rectify import align_to_reference  # noqa: E402

GAMES = ("kings-breakfast", "cafe-international", "dice-king")


def _decode(jpeg: bytes) -> np.ndarray:
    """A rendered JPEG as a uint8 BGR frame."""
    frame = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        raise ValueError("cannot decode a rendered image")
    return np.asarray(frame)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenes", type=int, default=4, help="scenes per game")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=99)
    args = parser.parse_args()

    started = time.perf_counter()
    identifier = Identifier(default_gallery())
    print(f"build identifier (companion gallery, all games): {time.perf_counter() - started:.2f} s")

    scenes = []
    for game in GAMES:
        for index in range(args.scenes):
            sample = render_sample(args.seed, index, game=game, split="eval", size=(1280, 960))
            frame = _decode(sample.jpeg)
            chosen = [
                o for o in sample.truth["objects"] if o["kind"] in ("card", "tile") and o["target"]
            ]
            if not chosen:
                continue
            corners = np.array([o["corners"] for o in chosen], np.float32)
            detections = Detections.from_boxes(
                np.zeros((len(chosen), 4), np.float32),
                np.ones(len(chosen), np.float32),
                [o["kind"] for o in chosen],
                corners,
            )
            scenes.append((game, frame, detections, chosen))

    identifier.match(scenes[0][1], scenes[0][2])  # warm up caches
    total_pieces = sum(len(d) for _, _, d, _ in scenes)
    for restrict in (True, False):
        wall: dict[str, float] = dict.fromkeys(GAMES, 0.0)
        cpu: dict[str, float] = dict.fromkeys(GAMES, 0.0)
        count: dict[str, int] = dict.fromkeys(GAMES, 0)
        for _ in range(args.repeat):
            for game, frame, detections, _ in scenes:
                t, c = time.perf_counter(), time.process_time()
                identifier.match(frame, detections, [game] if restrict else None)
                wall[game] += time.perf_counter() - t
                cpu[game] += time.process_time() - c
                count[game] += len(detections)
        label = "restricted to the game" if restrict else "all games"
        pieces = max(sum(count.values()), 1)
        parts = " ".join(f"{g}={1000 * cpu[g] / max(count[g], 1):.3f}" for g in GAMES)
        print(
            f"match ms/piece ({label}): wall {1000 * sum(wall.values()) / pieces:.3f}, "
            f"cpu {1000 * sum(cpu.values()) / pieces:.3f}  [cpu per game: {parts}]"
        )

    seconds, aligned = 0.0, 0
    for _game, frame, detections, chosen in scenes[: 2 * args.scenes]:
        for o, quad in zip(chosen, detections.corners_px, strict=True):
            if not (o["face_up"] and o["identity"]):
                continue
            face = art.face(o["identity"], 96)
            t = time.perf_counter()
            align_to_reference(frame, quad, face)
            seconds += time.perf_counter() - t
            aligned += 1
    print(
        f"corner alignment ms/piece (optional; pieces under 40 px are skipped): "
        f"{1000 * seconds / max(aligned, 1):.2f}"
    )
    print(f"pieces per pass: {total_pieces} in {len(scenes)} scenes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
