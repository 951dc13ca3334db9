"""Dataset generation speed: images per second with all cores, and with one process.

Usage: ``python benchmarks/dataset_speed.py [--count N] [--size WxH] [--seed S]``

Prints one line per run (wall-clock images/s, including the per-process warm-up of texture banks
and art caches) and, for the single-process run, CPU milliseconds per image (what an image costs
regardless of other load on the machine), plus the warm steady state of one process.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from datasets.generate import GenerateConfig, default_workers, generate, parse_size  # noqa: E402


def main() -> int:
    """Run the benchmark and print its numbers."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=240)
    parser.add_argument("--size", default="640x480")
    parser.add_argument("--seed", type=int, default=123)
    args = parser.parse_args()
    size = parse_size(args.size)
    cores = default_workers()
    print(f"machine: {os.cpu_count()} cpus ({cores} usable), load average {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as tmp:
        for workers in (cores, 1):
            config = GenerateConfig(Path(tmp) / f"w{workers}", args.count, args.seed, size)
            cpu0 = time.process_time()
            summary = generate(config, workers=workers, progress=False)
            cpu = time.process_time() - cpu0
            line = (
                f"{workers} worker(s): {summary.count} images {size[0]}x{size[1]} in "
                f"{summary.seconds:.1f} s = {summary.images_per_second:.1f} images/s"
            )
            if workers == 1:
                line += f", {1000 * cpu / summary.count:.1f} ms cpu/image"
            print(line, flush=True)
        # steady state of one warm process (caches filled by the run above)
        from datasets.render.scene import render_sample

        n = max(20, args.count // 4)
        start, cpu0 = time.perf_counter(), time.process_time()
        for i in range(n):
            render_sample(args.seed + 1, i, size=size)
        wall, cpu = time.perf_counter() - start, time.process_time() - cpu0
        print(
            f"1 warm process: {n / wall:.1f} images/s, {1000 * cpu / n:.1f} ms cpu/image "
            f"(≈ {cores * n / cpu:.1f} images/s on {cores} idle cores)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
