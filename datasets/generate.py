"""Generate a synthetic dataset: rendered table photos with YOLO labels and truth records.

Output layout: ``DIR/images/NNNNNN.jpg``, ``DIR/labels/NNNNNN.txt``, ``DIR/truth.jsonl`` (one line
per image, in index order), ``DIR/classes.txt``. Image ``i`` depends only on (seed, i, size, game,
split), never on the number of worker processes: each image has its own seeded generator and the
per-process caches (texture banks, art) are deterministic.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from datasets.render.labels import classes_text, truth_line, yolo_lines
from datasets.render.ranges import SPLITS

GAMES = ("kings-breakfast", "cafe-international", "dice-king")
MAX_SIDE = 4096
MIN_SIDE = 64


@dataclass(frozen=True)
class GenerateConfig:
    """What to generate (validated by `check`)."""

    out_dir: Path
    count: int
    seed: int = 0
    size: tuple[int, int] = (640, 480)
    game: str | None = None
    split: str = "train"

    def check(self) -> None:
        """Raise ValueError with a one-line reason when a field is out of range."""
        if self.count < 1:
            raise ValueError(f"count must be at least 1, got {self.count}")
        w, h = self.size
        if not (MIN_SIDE <= w <= MAX_SIDE and MIN_SIDE <= h <= MAX_SIDE):
            raise ValueError(f"size {w}x{h} out of range ({MIN_SIDE}..{MAX_SIDE} per side)")
        if self.game is not None and self.game not in GAMES:
            raise ValueError(f"unknown game {self.game!r} (known: {', '.join(GAMES)})")
        if self.split not in SPLITS:
            raise ValueError(f"unknown split {self.split!r} (train or eval)")
        if self.seed < 0:
            raise ValueError(f"seed must not be negative, got {self.seed}")


@dataclass(frozen=True)
class GenerateSummary:
    """What a run produced."""

    out_dir: Path
    count: int
    targets: int
    seconds: float
    workers: int

    @property
    def images_per_second(self) -> float:
        """Throughput of the run."""
        return self.count / max(self.seconds, 1e-9)


def image_name(index: int) -> str:
    """File stem of image `index`."""
    return f"{index:06d}"


def parse_size(text: str) -> tuple[int, int]:
    """Parse ``WxH`` (e.g. ``640x480``).

    Raises:
        ValueError: not two positive integers joined by ``x``.
    """
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts):
        raise ValueError(f"bad size {text!r} (expected WxH, e.g. 640x480)")
    return int(parts[0]), int(parts[1])


# --- worker --------------------------------------------------------------------------------------
_CONFIG: GenerateConfig | None = None


def _init_worker(config: GenerateConfig) -> None:
    import cv2

    global _CONFIG
    _CONFIG = config
    cv2.setNumThreads(1)  # one process per core: OpenCV's own threads would only contend


def _render_one(index: int) -> tuple[int, str, int]:
    from datasets.render.scene import render_sample

    config = _CONFIG
    assert config is not None
    sample = render_sample(
        config.seed, index, size=config.size, game=config.game, split=config.split
    )
    stem = image_name(index)
    (config.out_dir / "images" / f"{stem}.jpg").write_bytes(sample.jpeg)
    lines = yolo_lines(sample.truth["objects"], *config.size)
    text = "\n".join(lines) + ("\n" if lines else "")
    (config.out_dir / "labels" / f"{stem}.txt").write_text(text, encoding="utf-8")
    truth = {"image": f"images/{stem}.jpg", **sample.truth}
    return index, truth_line(truth), len(lines)


def _results(config: GenerateConfig, workers: int) -> Iterator[tuple[int, str, int]]:
    indices = range(config.count)
    if workers <= 1:
        _init_worker(config)
        yield from map(_render_one, indices)
        return
    context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
    with context.Pool(workers, initializer=_init_worker, initargs=(config,)) as pool:
        yield from pool.imap(_render_one, indices, chunksize=2)


def default_workers() -> int:
    """One worker per available core."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def generate(
    config: GenerateConfig, *, workers: int | None = None, progress: bool = True
) -> GenerateSummary:
    """Render `config.count` images into `config.out_dir` (see the module docstring).

    Raises:
        ValueError: bad config, or the folder already holds a dataset (runs never overwrite).
    """
    config.check()
    out = config.out_dir
    if (out / "truth.jsonl").exists():
        raise ValueError(f"output folder {str(out)!r} already holds a dataset (truth.jsonl)")
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    (out / "classes.txt").write_text(classes_text(), encoding="utf-8")
    n_workers = max(1, min(workers or default_workers(), config.count))
    start = time.perf_counter()
    targets = 0
    partial = out / "truth.jsonl.partial"
    with partial.open("w", encoding="utf-8") as truth_file:
        results = _results(config, n_workers)
        if progress:
            from tqdm import tqdm

            results = tqdm(results, total=config.count, unit="img", desc="rendering")
        for _index, line, n_targets in results:
            truth_file.write(line + "\n")
            targets += n_targets
    partial.replace(out / "truth.jsonl")
    return GenerateSummary(out, config.count, targets, time.perf_counter() - start, n_workers)
