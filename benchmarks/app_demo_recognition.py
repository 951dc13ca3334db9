"""Benchmark the demo's live loop with the REAL recognition: preview FPS and perception latency.

The demo's bundled clip (`companion_app/demo_clips/<game>.mp4`, played by `ClipSource` at 30
FPS) feeds `companion_app.live.LiveLoop` with the app's settings (perception share 0.5); the
perceive callable is `companion_app.viewmodels.recognition.load_recognition` (detector + die
reader, identification restricted to the game, votes, the game's reader, the tracker). A
preview consumer on the main thread does what the Table screen does per new frame (shrink to
the view, convert to RGBA, copy out) at 30 Hz, without a window (the GPU's share is not here:
the app prints its own figures at exit, see `table-companion demo --screenshot`). Needs the
detector model (`recognition.detector_model_path(game)` or ``$TABLE_COMPANION_DETECTOR``).

    .venv/bin/python benchmarks/app_demo_recognition.py [--game dice-king] [--seconds 10]
"""

from __future__ import annotations

import argparse
import json
import time

import cv2
import numpy as np

from companion_app.live import CLIP_REPEAT, PERCEPTION_SHARE, ClipSource, LiveLoop
from companion_app.viewmodels.recognition import load_recognition
from datasets.demo_clips import CLIP_FOLDER, load_manifest
from engines import game_rules

PREVIEW_SIZE = (720, 540)  # pixels the Table's preview covers for a 4:3 frame on 1280×800


def run(game: str, seconds: float) -> dict[str, float]:
    """Run the demo's loop on `game`'s clip for `seconds`; return the measured figures."""
    data = load_manifest(game)
    rules = game_rules(game)
    state = rules.new_game(data["players"])
    for step in data["prelude"]:
        state = rules.apply(state, rules.action_from_json(step))
    recognition = load_recognition(game, state, len(data["players"]), demo=True)
    source = ClipSource(CLIP_FOLDER / f"{game}.mp4", repeat=CLIP_REPEAT)
    loop = LiveLoop(
        source, recognition, max_source_fps=source.fps, perception_share=PERCEPTION_SHARE
    )
    loop.start()
    shown, stamps, recognised = -1, [], []
    end = time.perf_counter() + seconds
    next_tick = time.perf_counter()
    while time.perf_counter() < end:
        latest = loop.latest_frame()
        if latest is not None and latest[0] != shown:
            shown, frame = latest
            view = cv2.resize(frame, PREVIEW_SIZE, interpolation=cv2.INTER_LINEAR)
            cv2.cvtColor(view, cv2.COLOR_BGR2RGBA).tobytes()
            loop.note_preview_shown()
            stamps.append(time.perf_counter())
        result = loop.latest_result()
        if result is not None and isinstance(result.value, dict):
            objects = [o for o in result.value["objects"] if o["kind"] != "die"]
            recognised.append(sum(1 for o in objects if o.get("identity")) / max(1, len(objects)))
        next_tick += 1.0 / 30.0
        time.sleep(max(0.0, next_tick - time.perf_counter()))
    stats = loop.stats()
    loop.stop()
    gaps = np.diff(stamps) if len(stamps) > 1 else np.array([np.nan])
    return {
        "seconds": seconds,
        "preview_fps": len(stamps) / seconds,
        "preview_gap_p95_ms": float(np.percentile(gaps, 95) * 1000.0),
        "source_fps": stats.frames_read / seconds,
        "perception_fps": stats.frames_perceived / seconds,
        "perception_latency_median_ms": stats.perception_latency_ms or float("nan"),
        "frames_perceived": float(stats.frames_perceived),
        "cards_tiles_identified_share": float(np.mean(recognised)) if recognised else 0.0,
        **{f"stage_{k}_ms": v for k, v in recognition.stage_ms.items()},
    }


def main() -> int:
    """Parse the options, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="dice-king")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    figures = run(args.game, args.seconds)
    if args.json:
        print(json.dumps(figures))
    else:
        print(f"game {args.game} (demo clip, real recognition)")
        for key, value in figures.items():
            print(f"{key:34s} {value:10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
