"""Speed of the piece reader (`vision.piece_reader`): milliseconds to read N pieces of a 1280 × 720
frame (crops cut from the frame and the network, one batch), median of repeats after warm-up.

    .venv/bin/python benchmarks/piece_reader_speed.py [--threads 1] [--repeats 30]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.piece_reader import PieceReader, PieceReaderConfig  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=30)
    args = parser.parse_args()
    reader = PieceReader(config=PieceReaderConfig(threads=args.threads))
    frame = np.random.default_rng(0).integers(0, 256, (720, 1280, 3), dtype=np.uint8)
    result: dict[str, float] = {}
    for n in (1, 5, 17, 40):
        boxes = np.array([[40 + 30 * i, 100, 100 + 30 * i, 190] for i in range(n)], float)
        for _ in range(3):
            reader.read(frame, boxes)
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            reader.read(frame, boxes)
            times.append((time.perf_counter() - start) * 1000)
        result[f"{n} pieces"] = round(float(np.median(times)), 2)
    per_piece = result["40 pieces"] / 40
    print(json.dumps({"median_ms": result, "ms_per_piece_at_40": round(per_piece, 2)}))


if __name__ == "__main__":
    main()
