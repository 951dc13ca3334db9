"""Train the detector (`CenterNetDetector`) on rendered scenes.

Verbs as for every model: build data (`models.data.build_scene_cache`), train (this module),
evaluate (``python -m models.evaluate``), export (`models.export.export_detector`).

Each training sample is a random square crop of a scene rescaled by a log-uniform factor (so dice
of 8–150 px are seen), mirrored half the time, with brightness and contrast changes. Targets are
the renderer's `target` objects; objects that are recorded but not targets (mostly hidden, cut by
the border) are "ignore" regions: the heatmap is not penalised there. Corners are learnt without
an order: the loss takes the best of the 4 cyclic shifts of the clockwise corners, and decoding
orders them clockwise from the top-left (`vision.geometry.order_corners_clockwise`).
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from models.runs import (
    append_history,
    epoch_checkpoint,
    restore_training,
    run_folder,
    save_checkpoint,
    time_is_up,
    write_json,
)

DEFAULT_OUT = Path(__file__).resolve().parent / "detector.onnx"
KIND_INDEX = {"card": 0, "tile": 1, "die": 2}
STRIDE = 8
MAX_OBJECTS = 96


def gaussian_radius(height: float, width: float, min_overlap: float = 0.7) -> float:
    """CenterNet's radius: the largest centre shift keeping IoU ≥ `min_overlap` with the box."""
    a1, b1 = 1.0, height + width
    c1 = width * height * (1 - min_overlap) / (1 + min_overlap)
    r1 = (b1 + math.sqrt(b1**2 - 4 * a1 * c1)) / 2
    a2, b2 = 4.0, 2 * (height + width)
    c2 = (1 - min_overlap) * width * height
    r2 = (b2 + math.sqrt(b2**2 - 4 * a2 * c2)) / 2
    a3, b3 = 4 * min_overlap, -2 * min_overlap * (height + width)
    c3 = (min_overlap - 1) * width * height
    r3 = (b3 + math.sqrt(b3**2 - 4 * a3 * c3)) / 2
    return min(r1, r2, r3)


def _draw_gaussian(heat: np.ndarray, cx: float, cy: float, sigma: float) -> None:
    h, w = heat.shape
    r = max(1, int(3 * sigma))
    x0, x1 = max(0, int(cx) - r), min(w, int(cx) + r + 1)
    y0, y1 = max(0, int(cy) - r), min(h, int(cy) + r + 1)
    if x0 >= x1 or y0 >= y1:
        return
    xs = np.arange(x0, x1) - int(cx)
    ys = np.arange(y0, y1) - int(cy)
    g = np.exp(-(xs[None, :] ** 2 + ys[:, None] ** 2) / (2 * sigma**2))
    np.maximum(heat[y0:y1, x0:x1], g, out=heat[y0:y1, x0:x1])


def _clockwise(corners: np.ndarray) -> np.ndarray:
    from vision.geometry import order_corners_clockwise

    return order_corners_clockwise(corners)


def make_sample(
    image: np.ndarray, objects: list[dict[str, Any]], rng: np.random.Generator, size: int
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """One augmented training crop and its stride-8 targets."""
    scale = float(np.exp(rng.uniform(np.log(0.4), np.log(1.4))))
    h, w = image.shape[:2]
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    resized = cv2.resize(
        image, (nw, nh), interpolation=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    )
    canvas = np.full((max(size, nh), max(size, nw), 3), rng.integers(0, 255, 3), np.uint8)
    py, px = (
        int(rng.integers(0, canvas.shape[0] - nh + 1)),
        int(rng.integers(0, canvas.shape[1] - nw + 1)),
    )
    canvas[py : py + nh, px : px + nw] = resized
    oy = int(rng.integers(0, canvas.shape[0] - size + 1))
    ox = int(rng.integers(0, canvas.shape[1] - size + 1))
    crop = canvas[oy : oy + size, ox : ox + size]
    flip = rng.random() < 0.5
    if flip:
        crop = crop[:, ::-1]
    shift = np.array([px - ox, py - oy], np.float64)

    def to_crop(points: np.ndarray) -> np.ndarray:
        p = np.asarray(points, np.float64).reshape(-1, 2) * scale + shift
        if flip:
            p[:, 0] = size - p[:, 0]
        return p

    out = size // STRIDE
    heat = np.zeros((3, out, out), np.float32)
    ignore = np.zeros((3, out, out), np.float32)
    index = np.zeros(MAX_OBJECTS, np.int64)
    mask = np.zeros(MAX_OBJECTS, np.float32)
    corner_mask = np.zeros(MAX_OBJECTS, np.float32)
    wh = np.zeros((MAX_OBJECTS, 2), np.float32)
    offset = np.zeros((MAX_OBJECTS, 2), np.float32)
    corners = np.zeros((MAX_OBJECTS, 4, 2), np.float32)
    n = 0
    for o in objects:
        if o["kind"] not in KIND_INDEX or not o.get("box"):
            continue
        k = KIND_INDEX[o["kind"]]
        box_pts = to_crop(np.array(o["box"], np.float64).reshape(2, 2))
        x1, x2 = sorted(box_pts[:, 0])
        y1, y2 = sorted(box_pts[:, 1])
        bw, bh = (x2 - x1) / STRIDE, (y2 - y1) / STRIDE
        cx, cy = (x1 + x2) / 2 / STRIDE, (y1 + y2) / 2 / STRIDE
        if not (0 <= cx < out and 0 <= cy < out):
            continue
        if not o.get("target") or min(x2 - x1, y2 - y1) < 5:
            gx0, gx1 = max(0, int(x1 / STRIDE)), min(out, int(math.ceil(x2 / STRIDE)))
            gy0, gy1 = max(0, int(y1 / STRIDE)), min(out, int(math.ceil(y2 / STRIDE)))
            ignore[k, gy0:gy1, gx0:gx1] = 1.0
            continue
        sigma = max(0.5, (2 * gaussian_radius(bh, bw) + 1) / 6)
        _draw_gaussian(heat[k], cx, cy, sigma)
        if n >= MAX_OBJECTS:
            continue
        ix, iy = int(cx), int(cy)
        index[n] = iy * out + ix
        mask[n] = 1.0
        wh[n] = (math.log(max(bw, 0.25)), math.log(max(bh, 0.25)))
        offset[n] = (cx - ix, cy - iy)
        if o["kind"] != "die" and o.get("corners"):
            c = _clockwise(to_crop(np.array(o["corners"], np.float64)))
            corners[n] = (c - np.array([cx, cy]) * STRIDE) / STRIDE
            corner_mask[n] = 1.0
        n += 1
    ignore = np.where(heat > 0, 0.0, ignore).astype(np.float32)
    # photometric changes
    img = crop.astype(np.float32) / 255.0
    img = (img - img.mean()) * rng.uniform(0.7, 1.3) + img.mean()
    img = img * rng.uniform(0.7, 1.3) * rng.uniform(0.94, 1.06, 3)
    if rng.random() < 0.2:
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.5, 1.2))
    # uint8 (the trainer scales to [0, 1]): a quarter of the bytes through the loader's queues.
    tensor = np.clip(img * 255.0 + 0.5, 0, 255).astype(np.uint8).transpose(2, 0, 1).copy()
    return tensor, {
        "heat": heat,
        "ignore": ignore,
        "index": index,
        "mask": mask,
        "wh": wh,
        "offset": offset,
        "corners": corners,
        "corner_mask": corner_mask,
    }


def _focal_loss(logits: Any, target: Any, ignore: Any) -> Any:
    """CenterNet's penalty-reduced focal loss on heatmap logits."""
    import torch

    pred = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    positive = target.eq(1).float()
    negative = (1 - positive) * (1 - ignore)
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * positive
    neg_loss = torch.log(1 - pred) * pred**2 * (1 - target) ** 4 * negative
    count = positive.sum().clamp(min=1.0)
    return -(pos_loss.sum() + neg_loss.sum()) / count


def _gather(feature: Any, index: Any) -> Any:
    """(B, C, H, W) maps at flat cell indices (B, K) → (B, K, C)."""
    b, c = feature.shape[:2]
    flat = feature.view(b, c, -1).permute(0, 2, 1)
    return flat.gather(1, index.unsqueeze(2).expand(-1, -1, c))


def detector_loss(outputs: Any, targets: dict[str, Any]) -> tuple[Any, dict[str, float]]:
    """Total loss and its parts."""
    import torch

    heat_logits, size, offset, corners = outputs
    heat_loss = _focal_loss(heat_logits, targets["heat"], targets["ignore"])
    mask = targets["mask"].unsqueeze(2)
    count = mask.sum().clamp(min=1.0)
    size_loss = (torch.abs(_gather(size, targets["index"]) - targets["wh"]) * mask).sum() / count
    off_loss = (
        torch.abs(_gather(offset, targets["index"]) - targets["offset"]) * mask
    ).sum() / count
    pred_corners = _gather(corners, targets["index"]).view(*targets["index"].shape, 4, 2)
    truth = targets["corners"]
    shifted = torch.stack([torch.roll(truth, k, dims=2) for k in range(4)], dim=0)
    per_shift = torch.abs(pred_corners.unsqueeze(0) - shifted).sum(dim=(3, 4))  # (4, B, K)
    cmask = targets["corner_mask"]
    corner_loss = (per_shift.min(dim=0).values * cmask).sum() / cmask.sum().clamp(min=1.0) / 8
    total = heat_loss + size_loss + off_loss + 0.5 * corner_loss
    parts = {
        "heat": heat_loss.item(),
        "size": size_loss.item(),
        "offset": off_loss.item(),
        "corners": corner_loss.item(),
    }
    return total, parts


def _slim(record: Any) -> tuple[str, list[dict[str, Any]]]:
    """A scene record as its image path and the object fields training reads: loader workers are
    spawned, so the records are pickled to each of them."""
    keep = ("kind", "box", "target", "corners")
    objects = [{k: o[k] for k in keep if k in o} for o in record.truth["objects"]]
    return str(record.image_path), objects


class _SceneSamples:
    """Training samples: sample ``epoch * len(records) + i`` is scene `order(epoch)[i]` augmented
    by a generator seeded (seed, epoch, i), so a run gives the same samples with any number of
    loader workers."""

    def __init__(self, records: list[Any], size: int, seed: int) -> None:
        self.records = records
        self.size = size
        self.seed = seed
        self._orders: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.records)

    def order(self, epoch: int) -> np.ndarray:
        if epoch not in self._orders:
            self._orders = {epoch: np.random.default_rng([self.seed, epoch]).permutation(len(self))}
        return self._orders[epoch]

    def __getitem__(self, key: int) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        epoch, i = divmod(int(key), len(self))
        path, objects = self.records[int(self.order(epoch)[i])]
        image = cv2.imread(path, cv2.IMREAD_COLOR)
        if image is None:
            raise RuntimeError(f"unreadable training image {path}")
        rng = np.random.default_rng([self.seed, epoch, i])
        return make_sample(image, objects, rng, self.size)


class _EpochSampler:
    """The sample keys of one epoch (`_SceneSamples`); set `epoch` before iterating."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.epoch = 0

    def __iter__(self) -> Any:
        return iter(range(self.epoch * self.count, (self.epoch + 1) * self.count))

    def __len__(self) -> int:
        return self.count


def _quiet_worker(_: int) -> None:
    """Loader workers: one OpenCV thread each (the workers are the parallelism)."""
    cv2.setNumThreads(1)


def _scene_loader(
    records: list[Any], size: int, batch: int, seed: int, workers: int
) -> tuple[Any, _EpochSampler]:
    """A loader of (images, targets) batches (incomplete last batch dropped) and its sampler.

    Workers are spawned, not forked: a fork after OpenCV's thread pool ran (the scene renders)
    can inherit a held lock and hang. They persist across epochs.
    """
    import torch

    sampler = _EpochSampler(len(records))
    loader: Any = torch.utils.data.DataLoader(
        _SceneSamples(records, size, seed),  # type: ignore[arg-type]
        batch_size=batch,
        sampler=sampler,
        drop_last=True,
        num_workers=workers,
        worker_init_fn=_quiet_worker if workers else None,
        multiprocessing_context="spawn" if workers else None,
        persistent_workers=workers > 0,
        pin_memory=torch.cuda.is_available(),
        prefetch_factor=4 if workers else None,
    )
    return loader, sampler


def training_device(name: str) -> str:
    """`name` as a torch device: ``auto`` is CUDA when there is a GPU, else the CPU.

    Raises:
        SystemExit: ``cuda`` asked for on a machine without one.
    """
    import torch

    if name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    if name == "cuda" and not torch.cuda.is_available():
        raise SystemExit("--device cuda: torch sees no CUDA GPU here")
    return name


def _checkpoint_from_onnx(
    folder: Path, path: Path, net: Any, records: list[Any], size: int, seed: int
) -> Path:
    """``--init`` a committed detector's ONNX file (its run gone): its weights as a checkpoint
    to start from; the batch norms are rebuilt on 32 training samples
    (`models.export.checkpoint_from_exported`)."""
    import torch

    from models.export import checkpoint_from_exported, export_detector

    samples = _SceneSamples(records, size, seed)
    sample = torch.from_numpy(np.stack([samples[i][0] for i in range(min(32, len(records)))]))
    return checkpoint_from_exported(folder, path, net.cpu(), sample, export_detector)


def train_detector(args: argparse.Namespace) -> Path:
    """Train and export the detector; return the ONNX path."""
    import torch
    from tqdm import tqdm

    from models.architectures import CenterNetDetector, count_parameters
    from models.data import read_scene_cache
    from models.export import export_detector
    from models.runs import scene_folders

    folder = run_folder(args)
    started = time.time()
    torch.manual_seed(args.seed)
    records = [_slim(r) for f in scene_folders(args) for r in read_scene_cache(f)]
    if args.smoke:
        records = records[:4]
    if not records:
        raise SystemExit("no rendered scenes to train on")
    size = 128 if args.smoke else args.input
    batch = min(args.batch, len(records))
    device = training_device(args.device)
    net = CenterNetDetector(args.width or 16).to(device)
    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    epochs = 1 if args.smoke else args.epochs
    steps_per_epoch = 2 if args.smoke else len(records) // batch
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=args.lr, total_steps=max(1, steps_per_epoch * epochs), pct_start=0.1
    )
    init = args.init
    if init is not None and str(init).endswith(".onnx"):
        init = _checkpoint_from_onnx(folder, Path(init), net, records, size, args.seed)
    start_epoch, step, _ = restore_training(folder, init, net, optimiser, schedule)
    loader, sampler = _scene_loader(records, size, batch, args.seed, args.workers)
    stopped_early = False
    for epoch in range(start_epoch, epochs):
        if time_is_up(args, started, epoch):
            stopped_early = True
            break
        net.train()
        sampler.epoch = epoch
        bar = tqdm(
            loader,
            total=steps_per_epoch,
            desc=f"detector epoch {epoch + 1}/{epochs}",
            disable=args.no_progress,
        )
        sums: dict[str, float] = {}
        done = 0
        for images, targets in bar:
            if done >= steps_per_epoch:
                break
            images = images.to(device, non_blocking=True).float() / 255.0
            targets = {k: v.to(device, non_blocking=True) for k, v in targets.items()}
            loss, parts = detector_loss(net(images), targets)
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 10.0)
            optimiser.step()
            schedule.step()
            step += 1
            done += 1
            for k, v in parts.items():
                sums[k] = sums.get(k, 0.0) + v
            bar.set_postfix({k: f"{v / done:.3f}" for k, v in sums.items()})
        save_checkpoint(folder, epoch_checkpoint(net, optimiser, schedule, epoch + 1, step))
        line = {"epoch": epoch + 1, "step": step, **{k: v / max(done, 1) for k, v in sums.items()}}
        append_history(folder, {**line, "seconds": round(time.time() - started, 1)})
        if args.no_progress:
            print(json.dumps(line), flush=True)
    out = args.out or (folder / "detector.onnx" if args.smoke else DEFAULT_OUT)
    export_detector(net.cpu(), out, metadata={"stride": STRIDE, "kinds": list(KIND_INDEX)})
    metrics = {
        "model": "detector",
        "parameters": count_parameters(net),
        "scenes": len(records),
        "input": size,
        "epochs": epochs,
        "stopped_early": stopped_early,
        "steps": step,
        "device": device,
        "seed": args.seed,
        "train_seconds_this_call": round(time.time() - started, 1),
        "onnx": str(out),
    }
    write_json(folder / "metrics.json", metrics)
    print(json.dumps(metrics))
    return Path(out)
