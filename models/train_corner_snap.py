"""Train the corner snapper (`CornerSnapNet`, used by `vision.corner_snap`).

Data: every target card and tile of the rendered scenes whose four true corners lie in the frame;
around each true corner a crop is cut once, exactly as the snapper cuts a frame
(`vision.corner_snap.corner_crop`, `CROP_EXTENT` of the piece's mean edge each way), and kept in
the run folder (``corners.npy``, memory-mapped: 48 KB a piece). Samples are drawn fresh each
step: the true quad is disturbed as the corner refiner leaves it (`disturb_refined`: a few per
cent of the piece's size, now and then more; no corner further than `MAX_OFFSET` of the mean
edge from its true place), the corner's canvas is read from its crop with the disturbed quad's
view (`corner_view`), and the target is where the true corner lies on that canvas (over its
side). Photometric augmentation only (a mirror image would swap the piece's sides). 5 % of the
scenes are held out: the report gives the corner error there (mean corner distance over the
piece's mean edge) before and after one and two rounds, from the same disturbed quads every run.
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

from models.runs import held_out_split, run_folder, train_epochs, write_json
from models.train_dice import photometric
from vision.corner_snap import (
    CANVAS,
    CROP,
    CROP_EXTENT,
    corner_crop,
    corner_view,
    mean_edge,
    to_canvas,
    to_frame,
    view_canvas,
)
from vision.geometry import order_corners_clockwise

DEFAULT_OUT = Path(__file__).resolve().parent / "corner_snapper.onnx"
KINDS = ("card", "tile")
MAX_OFFSET = 0.12  # the farthest a disturbed corner lies from its true place (over the mean edge)


def extract_corners(
    folders: list[Path], out: Path, *, limit: int | None = None, progress: bool = True
) -> dict[str, np.ndarray]:
    """Corner crops of every target card and tile of the scenes in `folders`.

    Writes ``out/corners.npy`` (N, 4, CROP, CROP, 3) uint8 and ``out/quads.npz`` (``quads``
    (N, 4, 2) true corners in frame pixels, clockwise from the top-left; ``affines`` (N, 4, 2, 3)
    frame → crop of each corner; ``kinds``; ``scene``); returns the arrays (crops memory-mapped).
    """
    from tqdm import tqdm

    from models.data import read_scene_cache

    records = [r for folder in folders for r in read_scene_cache(folder)]
    if limit is not None:
        records = records[:limit]
    found: list[tuple[int, np.ndarray, int]] = []
    for scene, record in enumerate(records):
        # the frame's size (older caches may not record it: then every piece is kept)
        width = float(record.truth.get("width") or np.inf)
        height = float(record.truth.get("height") or np.inf)
        for o in record.truth["objects"]:
            if o["kind"] not in KINDS or not o.get("target") or not o.get("corners"):
                continue
            quad = order_corners_clockwise(np.array(o["corners"], np.float64).reshape(4, 2))
            if mean_edge(quad) < 8 or not np.all(quad >= 0):
                continue
            if not (np.all(quad[:, 0] <= width - 1) and np.all(quad[:, 1] <= height - 1)):
                continue
            found.append((scene, quad, KINDS.index(o["kind"])))
    crops = np.lib.format.open_memmap(
        out / "corners.npy.tmp", mode="w+", dtype=np.uint8, shape=(len(found), 4, CROP, CROP, 3)
    )
    quads = np.zeros((len(found), 4, 2), np.float64)
    affines = np.zeros((len(found), 4, 2, 3), np.float64)
    kinds = np.zeros(len(found), np.int64)
    scenes = np.zeros(len(found), np.int64)
    by_scene: dict[int, list[int]] = {}
    for index, (scene, _, _) in enumerate(found):
        by_scene.setdefault(scene, []).append(index)
    for scene in tqdm(sorted(by_scene), desc="corner crops", disable=not progress):
        image = cv2.imread(str(records[scene].image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise RuntimeError(f"unreadable training image {records[scene].image_path}")
        for index in by_scene[scene]:
            _, quad, kind = found[index]
            half = CROP_EXTENT * mean_edge(quad)
            for k in range(4):
                crops[index, k], affines[index, k] = corner_crop(image, quad[k], half)
            quads[index] = quad
            kinds[index] = kind
            scenes[index] = scene
    crops.flush()
    del crops
    (out / "corners.npy.tmp").replace(out / "corners.npy")
    np.savez(out / "quads.npz", quads=quads, affines=affines, kinds=kinds, scene=scenes)
    return load_corners(out)


def load_corners(folder: Path) -> dict[str, np.ndarray]:
    """The arrays `extract_corners` wrote (crops memory-mapped)."""
    data = dict(np.load(folder / "quads.npz"))
    data["crops"] = np.load(folder / "corners.npy", mmap_mode="r")
    return data


def disturb_refined(quad: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A quad the corner refiner might leave for the true `quad` (clockwise, (4, 2)), in the
    same corner order: shifted, turned, scaled and each corner moved by a few per cent of the
    mean edge (a fifth of the time by three times that), no corner beyond `MAX_OFFSET`."""
    edge = mean_edge(quad)
    spread = 3.0 if rng.random() < 0.2 else 1.0
    centre = quad.mean(axis=0)
    angle = math.radians(float(rng.normal(0, 2.0 * spread)))
    rotation = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    scale = math.exp(float(rng.normal(0, 0.02 * spread)))
    rough = (quad - centre) @ rotation.T * scale + centre
    rough = rough + rng.normal(0, 0.015 * spread * edge, 2)
    rough = rough + rng.normal(0, 0.015 * spread * edge, (4, 2))
    offset = rough - quad
    length = np.linalg.norm(offset, axis=1, keepdims=True)
    limit = MAX_OFFSET * edge
    offset = np.where(length > limit, offset * limit / np.maximum(length, 1e-9), offset)
    return quad + offset


def make_samples(
    crops: np.ndarray, affines: np.ndarray, truths: np.ndarray, roughs: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Canvases (4n, CANVAS, CANVAS, 3) uint8 and targets (4n, 2): corner k of piece i is row
    4i + k, read with the rough quad's view; the target is the true corner on it over CANVAS."""
    n = len(truths)
    canvases = np.empty((4 * n, CANVAS, CANVAS, 3), np.uint8)
    targets = np.empty((4 * n, 2), np.float32)
    for i in range(n):
        for k in range(4):
            view = corner_view(roughs[i], k)
            canvases[4 * i + k] = view_canvas(np.asarray(crops[i, k]), affines[i, k], view)
            targets[4 * i + k] = to_canvas(view, truths[i, k])[0] / CANVAS
    return canvases, np.clip(targets, -0.25, 1.25)


def snap_in_crops(
    net: Any, crops: np.ndarray, affines: np.ndarray, roughs: np.ndarray
) -> np.ndarray:
    """One round of snapping quads given in frame pixels, read from the stored crops (as
    `vision.corner_snap` does on frames; the crops stay centred on the true corners)."""
    import torch

    out = np.empty_like(roughs)
    net.eval()
    with torch.no_grad():
        for start in range(0, len(roughs), 128):
            part = slice(start, start + 128)
            views = [[corner_view(r, k) for k in range(4)] for r in roughs[part]]
            canvases = np.stack(
                [
                    view_canvas(np.asarray(c[k]), a[k], v[k])
                    for c, a, v in zip(crops[part], affines[part], views, strict=True)
                    for k in range(4)
                ]
            )
            x = torch.from_numpy(canvases).permute(0, 3, 1, 2).float() / 255.0
            found = net(x).numpy().astype(np.float64).reshape(-1, 4, 2) * CANVAS
            for j, v in enumerate(views):
                out[start + j] = np.vstack([to_frame(v[k], found[j, k]) for k in range(4)])
    return out


def corner_error(quads: np.ndarray, truths: np.ndarray) -> np.ndarray:
    """Mean corner distance over the true quad's mean edge (corners in the same order)."""
    return np.array(
        [
            float(np.linalg.norm(q - t, axis=1).mean()) / mean_edge(t)
            for q, t in zip(quads, truths, strict=True)
        ]
    )


def evaluate_held(
    net: Any, data: dict[str, np.ndarray], held: np.ndarray, seed: int
) -> dict[str, Any]:
    """Corner error on held-out pieces from fixed disturbed quads: before, after 1 and 2 rounds
    (the second round reads the same crops, centred on the true corners)."""
    rng = np.random.default_rng([seed, 404])
    truths = data["quads"][held]
    crops, affines = data["crops"][held], data["affines"][held]
    roughs = np.stack([disturb_refined(t, rng) for t in truths]) if len(held) else truths
    result: dict[str, Any] = {"held_out_pieces": int(len(held))}
    quads = roughs
    for name in ("rough", "round1", "round2"):
        if name != "rough" and len(held):
            quads = snap_in_crops(net, crops, affines, quads)
        err = corner_error(quads, truths)
        for label, value in (
            ("median", np.median(err) if len(err) else None),
            ("within_1pct", (err <= 0.01).mean() if len(err) else None),
            ("within_2pct", (err <= 0.02).mean() if len(err) else None),
            ("within_5pct", (err <= 0.05).mean() if len(err) else None),
        ):
            result[f"{name}_{label}"] = None if value is None else round(float(value), 4)
    return result


def train_corner_snap(args: argparse.Namespace) -> Path:
    """Train and export the corner snapper; return the ONNX path."""
    import torch

    from models.architectures import CornerSnapNet, count_parameters
    from models.export import export_corner_snapper
    from models.runs import scene_folders

    folder = run_folder(args)
    started = time.time()
    torch.manual_seed(args.seed)
    if (folder / "corners.npy").exists() and (folder / "quads.npz").exists():
        data = load_corners(folder)
    else:
        data = extract_corners(
            scene_folders(args),
            folder,
            limit=6 if args.smoke else None,
            progress=not args.no_progress,
        )
    if len(data["quads"]) == 0:
        raise SystemExit("no cards or tiles in the rendered scenes")
    train_idx, held_idx = held_out_split(data["scene"], args.seed)
    net = CornerSnapNet(args.width or 16)

    def step_loss(idx: Any, generator: Any) -> Any:
        # a batch of `--batch` pieces is 4 × as many corner canvases; the disturbances follow
        # from the generator, whose state the checkpoint keeps (a resumed run is the same)
        rows = np.sort(idx.numpy())
        rng = np.random.default_rng(int(torch.randint(2**31, (1,), generator=generator)))
        truths = data["quads"][rows]
        roughs = np.stack([disturb_refined(t, rng) for t in truths])
        canvases, targets = make_samples(data["crops"][rows], data["affines"][rows], truths, roughs)
        x = torch.from_numpy(canvases).permute(0, 3, 1, 2).float() / 255.0
        x = photometric(x, generator, contrast=(0.7, 1.3), brightness=(0.7, 1.3), noise=0.03)
        return torch.nn.functional.smooth_l1_loss(net(x), torch.from_numpy(targets), beta=0.01)

    _, epochs, step = train_epochs(
        "corner-snap", folder, args, net, train_idx, step_loss, started, args.init
    )
    held_report = evaluate_held(net, data, held_idx, args.seed)
    metrics: dict[str, Any] = {
        "model": "corner_snapper",
        "parameters": count_parameters(net),
        "pieces_train": int(len(train_idx)),
        "scenes": int(len(np.unique(data["scene"]))),
        "epochs": epochs,
        "steps": step,
        "seed": args.seed,
        **held_report,
        "train_seconds_this_call": round(time.time() - started, 1),
    }
    out = args.out or (folder / "corner_snapper.onnx" if args.smoke else DEFAULT_OUT)
    export_corner_snapper(net, out)
    metrics["onnx"] = str(out)
    write_json(folder / "metrics.json", metrics)
    print(json.dumps(metrics))
    return Path(out)
