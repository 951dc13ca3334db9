"""Benchmark the app's live loop: preview FPS and perception latency while perception runs.

A folder or video source feeds `companion_app.live.LiveLoop`; a synthetic `perceive` does real
OpenCV work for about `--perceive-ms` per frame (the cost of a detector pass on a tablet CPU); a
preview consumer on the main thread does what the Table screen does per frame (shrink to the
view, convert, copy out) at `--preview-hz`. No window is opened, so the number is the loop's own
ceiling, not the GPU's. Prints one table of figures; `--json` prints them as one JSON line.

    .venv/bin/python benchmarks/app_live_loop.py                 # 1280×720 generated frames
    .venv/bin/python benchmarks/app_live_loop.py --source clip.mp4 --perceive-ms 120
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

import cv2
import numpy as np

from companion_app.live import LiveLoop, PerceptionResult
from vision.frames import open_source

PREVIEW_SIZE = (720, 405)  # pixels the Table screen's preview covers on a 1280×800 tablet


def generated_folder(folder: Path, count: int = 60, size: tuple[int, int] = (1280, 720)) -> Path:
    """Write `count` seeded table-like JPEG frames (green felt, cards, dice) into `folder`."""
    rng = np.random.default_rng(0)
    width, height = size
    for index in range(count):
        frame = np.empty((height, width, 3), np.uint8)
        frame[:] = (40, 95, 35)
        frame += rng.integers(0, 12, frame.shape, dtype=np.uint8)  # felt texture
        for card in range(6):
            x = 80 + card * 190 + int(6 * np.sin(index / 5 + card))
            cv2.rectangle(frame, (x, 240), (x + 150, 460), (235, 235, 235), -1)
            cv2.putText(
                frame, str(card + 1), (x + 50, 380), cv2.FONT_HERSHEY_SIMPLEX, 3, (40, 40, 170), 6
            )
        cv2.imwrite(str(folder / f"frame_{index:04d}.jpg"), frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
    return folder


def synthetic_perceive(cost_ms: float):  # noqa: ANN201 (returns the perceive callable)
    """A `perceive(frame)` doing about `cost_ms` of detector-like OpenCV work per frame."""

    def perceive(frame: np.ndarray) -> dict[str, object]:
        start = time.perf_counter()
        objects = []
        while True:
            small = cv2.resize(frame, (640, 360), interpolation=cv2.INTER_AREA)
            grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
            edges = cv2.Canny(cv2.GaussianBlur(grey, (5, 5), 0), 50, 150)
            contours, _ = cv2.findContours(edges, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
            objects = [cv2.boundingRect(c) for c in contours if cv2.contourArea(c) > 500]
            if (time.perf_counter() - start) * 1000.0 >= cost_ms:
                break
        return {
            "objects": [{"kind": "card", "box": [x, y, x + w, y + h]} for x, y, w, h in objects]
        }

    return perceive


def run(source: str, seconds: float, perceive_ms: float, preview_hz: float) -> dict[str, float]:
    """Run the loop for `seconds`; return the measured figures."""
    latencies: list[float] = []

    def keep(result: PerceptionResult) -> None:
        latencies.append(result.latency_s)

    loop = LiveLoop(
        open_source(source, loop=True),
        synthetic_perceive(perceive_ms),
        max_source_fps=30.0,
        on_result=keep,
    )
    loop.start()
    period = 1.0 / preview_hz
    shown = -1
    preview_stamps: list[float] = []
    end = time.perf_counter() + seconds
    next_tick = time.perf_counter()
    while time.perf_counter() < end:
        latest = loop.latest_frame()
        if latest is not None and latest[0] != shown:
            shown, frame = latest
            view = cv2.resize(frame, PREVIEW_SIZE, interpolation=cv2.INTER_LINEAR)
            cv2.cvtColor(view, cv2.COLOR_BGR2RGBA).tobytes()  # what the texture receives
            loop.note_preview_shown()
            preview_stamps.append(time.perf_counter())
        next_tick += period
        time.sleep(max(0.0, next_tick - time.perf_counter()))
    stats = loop.stats()
    loop.stop()
    spans = np.diff(preview_stamps) if len(preview_stamps) > 1 else np.array([np.nan])
    lat = np.array(latencies) * 1000.0 if latencies else np.array([np.nan])
    return {
        "seconds": seconds,
        "perceive_cost_ms": perceive_ms,
        "preview_fps": float(len(preview_stamps) / seconds),
        "preview_gap_p95_ms": float(np.percentile(spans, 95) * 1000.0),
        "source_fps": float(stats.frames_read / seconds),
        "perception_fps": float(stats.frames_perceived / seconds),
        "perception_latency_p50_ms": float(np.percentile(lat, 50)),
        "perception_latency_p90_ms": float(np.percentile(lat, 90)),
        "frames_read": float(stats.frames_read),
        "frames_perceived": float(stats.frames_perceived),
    }


def main() -> int:
    """Parse the options, run, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", help="video file or image folder (default: generated frames)")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--perceive-ms", type=float, default=80.0)
    parser.add_argument("--preview-hz", type=float, default=30.0)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        source = args.source or str(generated_folder(Path(temp)))
        figures = run(source, args.seconds, args.perceive_ms, args.preview_hz)
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:28s} {value:10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
