"""Train the corner refiner (`CornerRefinerNet`, used by `vision.corner_refiner`).

Data: every target card and tile of the rendered scenes, cut out once around its true quad
exactly as the refiner cuts a frame (`vision.corner_refiner.context_patch`) and kept in the run
folder (``pieces.npy``, memory-mapped: about 62 KB a piece). Samples are drawn fresh each step:
the true quad is disturbed as a detector would get it wrong (`disturb`: shifted, turned, scaled,
squashed, each corner moved; or the piece's upright box), the patch is warped onto the canvas
with the disturbed quad as the rectangle of the piece's kind's aspect (`canonical_warp`), and
the target is where each true corner then lies (over the canvas side). Photometric augmentation only
(a mirror image would swap the corners' order). 5 % of the scenes are held out: the report gives
the corner error there (mean corner distance over the piece's size) before and after one and
two rounds, from the same disturbed quads every run.
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
    held_out_split,
    one_cycle,
    restore_training,
    run_folder,
    save_checkpoint,
    time_is_up,
    write_json,
)
from models.train_dice import photometric
from vision.corner_refiner import (
    CANVAS,
    CONTEXT_SIZE,
    PIECE_ASPECTS,
    canonical_warp,
    context_patch,
)
from vision.geometry import order_corners_clockwise

DEFAULT_OUT = Path(__file__).resolve().parent / "corner_refiner.onnx"
KINDS = ("card", "tile")


def extract_pieces(
    folders: list[Path], out: Path, *, limit: int | None = None, progress: bool = True
) -> dict[str, np.ndarray]:
    """Context patches of every target card and tile of the scenes in `folders`.

    Writes ``out/pieces.npy`` (N, CONTEXT_SIZE, CONTEXT_SIZE, 3) uint8 and ``out/quads.npz``
    (``quads`` (N, 4, 2) true corners in patch pixels, clockwise from the top-left; ``kinds``;
    ``scene``); returns the arrays (patches memory-mapped).
    """
    from tqdm import tqdm

    from models.data import read_scene_cache

    records = [r for folder in folders for r in read_scene_cache(folder)]
    if limit is not None:
        records = records[:limit]
    found: list[tuple[int, int, np.ndarray, int]] = []
    for scene, record in enumerate(records):
        for o in record.truth["objects"]:
            if o["kind"] in KINDS and o.get("target") and o.get("corners"):
                quad = np.array(o["corners"], np.float64).reshape(4, 2)
                if (quad.max(axis=0) - quad.min(axis=0)).min() >= 8:
                    found.append((scene, len(found), quad, KINDS.index(o["kind"])))
    patches = np.lib.format.open_memmap(
        out / "pieces.npy.tmp",
        mode="w+",
        dtype=np.uint8,
        shape=(len(found), CONTEXT_SIZE, CONTEXT_SIZE, 3),
    )
    quads = np.zeros((len(found), 4, 2), np.float32)
    kinds = np.zeros(len(found), np.int64)
    scenes = np.zeros(len(found), np.int64)
    by_scene: dict[int, list[tuple[int, np.ndarray, int]]] = {}
    for scene, index, quad, kind in found:
        by_scene.setdefault(scene, []).append((index, quad, kind))
    for scene in tqdm(sorted(by_scene), desc="piece patches", disable=not progress):
        image = cv2.imread(str(records[scene].image_path), cv2.IMREAD_COLOR)
        if image is None:
            raise RuntimeError(f"unreadable training image {records[scene].image_path}")
        for index, quad, kind in by_scene[scene]:
            quad = order_corners_clockwise(quad)
            patch, affine = context_patch(image, quad)
            patches[index] = patch
            quads[index] = quad @ affine[:, :2].T + affine[:, 2]
            kinds[index] = kind
            scenes[index] = scene
    patches.flush()
    del patches
    (out / "pieces.npy.tmp").replace(out / "pieces.npy")
    np.savez(out / "quads.npz", quads=quads, kinds=kinds, scene=scenes)
    return load_pieces(out)


def load_pieces(folder: Path) -> dict[str, np.ndarray]:
    """The arrays `extract_pieces` wrote (patches memory-mapped)."""
    data = dict(np.load(folder / "quads.npz"))
    data["patches"] = np.load(folder / "pieces.npy", mmap_mode="r")
    return data


def disturb(quad: np.ndarray, rng: np.random.Generator, wild: float = 0.0) -> np.ndarray:
    """A rough quad a detector might give for the true `quad` (clockwise, (4, 2)).

    With probability `wild`, a far worse one (turned σ 20°, scaled σ 20 %): the detector's
    corners on dense spreads of cards."""
    centre = quad.mean(axis=0)
    size = float((quad.max(axis=0) - quad.min(axis=0)).max())
    if wild > 0 and rng.random() < wild:
        return _moved(quad, centre, size, rng, (0.12, 20.0, 0.2, 0.12, 0.06))
    mode = rng.random()
    if mode < 0.15:  # the piece's upright box, a little off
        lo, hi = quad.min(axis=0), quad.max(axis=0)
        rough = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
        rough = rough + rng.normal(0, 0.04 * size, (4, 2))
        return order_corners_clockwise(rough)
    coarse = mode < 0.7
    return _moved(
        quad,
        centre,
        size,
        rng,
        (0.09, 9.0, 0.12, 0.08, 0.05) if coarse else (0.02, 2.0, 0.03, 0.02, 0.015),
    )


def _moved(
    quad: np.ndarray,
    centre: np.ndarray,
    size: float,
    rng: np.random.Generator,
    spread: tuple[float, float, float, float, float],
) -> np.ndarray:
    """`quad` shifted, turned, scaled, squashed and its corners moved, by the σ of `spread`
    (shift, turn in degrees, log scale, log squash, corner jitter; lengths over `size`)."""
    shift, turn, scale, squash, jitter = spread
    angle = math.radians(float(np.clip(rng.normal(0, turn), -35, 35)))
    rotation = np.array([[math.cos(angle), -math.sin(angle)], [math.sin(angle), math.cos(angle)]])
    # scale and squash along the quad's own axes
    axis = quad[1] - quad[0]
    theta = math.atan2(axis[1], axis[0])
    frame = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
    s = math.exp(rng.normal(0, scale))
    a = math.exp(float(np.clip(rng.normal(0, squash), -0.3, 0.3)))
    stretch = frame @ np.diag([s * a, s / a]) @ frame.T
    rough = (quad - centre) @ (rotation @ stretch).T + centre
    rough = rough + rng.normal(0, shift * size, 2) + rng.normal(0, jitter * size, (4, 2))
    return order_corners_clockwise(rough)


def _matched(truth: np.ndarray, rough: np.ndarray) -> np.ndarray:
    """`truth`'s corners in the cyclic order that puts each nearest its rough corner."""
    shifts = [np.roll(truth, -k, axis=0) for k in range(4)]
    costs = [float(np.linalg.norm(s - rough, axis=1).sum()) for s in shifts]
    return shifts[int(np.argmin(costs))]


def _to(matrix: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.column_stack([points, np.ones(len(points))]) @ matrix.T
    return pts[:, :2] / pts[:, 2:3]


def aspects_of(kinds: np.ndarray) -> np.ndarray:
    """Each piece's short over long side, from its kind index (`KINDS`)."""
    return np.array([PIECE_ASPECTS[KINDS[int(k)]] for k in kinds], np.float64)


def make_samples(
    patches: np.ndarray, truths: np.ndarray, roughs: np.ndarray, aspects: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Canvases (n, CANVAS, CANVAS, 3) uint8 and targets (n, 8): each rough quad warped to its
    canvas rectangle, each true corner's position on the canvas over its side."""
    n = len(patches)
    canvases = np.empty((n, CANVAS, CANVAS, 3), np.uint8)
    targets = np.empty((n, 8), np.float32)
    for i in range(n):
        canvases[i], homography = canonical_warp(
            np.asarray(patches[i]), roughs[i], float(aspects[i])
        )
        truth = _matched(truths[i].astype(np.float64), roughs[i])
        targets[i] = (_to(homography, truth) / CANVAS).reshape(8)
    return canvases, np.clip(targets, -0.5, 1.5)


def corner_error(quads: np.ndarray, truths: np.ndarray) -> np.ndarray:
    """Mean corner distance over the true quad's larger extent, corners matched in cyclic order."""
    out = np.empty(len(quads))
    for i, (q, t) in enumerate(zip(quads, truths, strict=True)):
        size = float((t.max(axis=0) - t.min(axis=0)).max())
        out[i] = np.linalg.norm(_matched(t, q) - q, axis=1).mean() / size
    return out


def refine_in_patches(
    net: Any, patches: np.ndarray, roughs: np.ndarray, aspects: np.ndarray
) -> np.ndarray:
    """One round of refinement of quads given in patch pixels (as `vision.corner_refiner` does
    on frames, but on the stored patches)."""
    import torch

    out = np.empty_like(roughs)
    net.eval()
    with torch.no_grad():
        for start in range(0, len(roughs), 256):
            part = slice(start, start + 256)
            canvases, homographies = [], []
            for patch, rough, aspect in zip(
                patches[part], roughs[part], aspects[part], strict=True
            ):
                canvas, homography = canonical_warp(np.asarray(patch), rough, float(aspect))
                canvases.append(canvas)
                homographies.append(homography)
            x = torch.from_numpy(np.stack(canvases)).permute(0, 3, 1, 2).float() / 255.0
            found = net(x).numpy().reshape(-1, 4, 2).astype(np.float64) * CANVAS
            for k, homography in enumerate(homographies):
                back = _to(np.linalg.inv(homography), found[k])
                out[start + k] = order_corners_clockwise(back)
    return out


def evaluate_held(
    net: Any, data: dict[str, np.ndarray], held: np.ndarray, seed: int
) -> dict[str, Any]:
    """Corner error on held-out pieces from fixed disturbed quads: before, after 1 and 2 rounds."""
    rng = np.random.default_rng([seed, 404])
    truths = data["quads"][held].astype(np.float64)
    patches = data["patches"][held]
    aspects = aspects_of(data["kinds"][held])
    roughs = np.stack([disturb(t, rng) for t in truths])
    result: dict[str, Any] = {"held_out_pieces": int(len(held))}
    quads = roughs
    for name in ("rough", "round1", "round2"):
        if name != "rough":
            quads = refine_in_patches(net, patches, quads, aspects)
        err = corner_error(quads, truths)
        result[f"{name}_median"] = round(float(np.median(err)), 4) if len(err) else None
        result[f"{name}_within_2pct"] = round(float((err < 0.02).mean()), 4) if len(err) else None
        result[f"{name}_within_5pct"] = round(float((err < 0.05).mean()), 4) if len(err) else None
    return result


def train_corners(args: argparse.Namespace) -> Path:
    """Train and export the corner refiner; return the ONNX path."""
    import torch
    from tqdm import tqdm

    from models.architectures import CornerRefinerNet, count_parameters
    from models.export import checkpoint_from_exported, export_corner_refiner
    from models.runs import scene_folders

    folder = run_folder(args)
    started = time.time()
    torch.manual_seed(args.seed)
    if (folder / "pieces.npy").exists() and (folder / "quads.npz").exists():
        data = load_pieces(folder)
    else:
        data = extract_pieces(
            scene_folders(args),
            folder,
            limit=6 if args.smoke else None,
            progress=not args.no_progress,
        )
    n = len(data["quads"])
    if n == 0:
        raise SystemExit("no cards or tiles in the rendered scenes")
    scenes = np.unique(data["scene"])
    train_idx, held_idx = held_out_split(data["scene"], args.seed)
    net = CornerRefinerNet(args.width or 16)
    steps_per_epoch = max(1, len(train_idx) // args.batch)
    optimiser, schedule, epochs, max_steps = one_cycle(net, args, steps_per_epoch, pct_start=0.1)
    generator = torch.Generator().manual_seed(args.seed)
    init = args.init
    if init is not None and str(init).endswith(".onnx"):
        # a committed refiner (its run folder gone): its weights, read back from the graph
        rows = np.sort(train_idx[:256])
        truths = data["quads"][rows].astype(np.float64)
        canvases, _ = make_samples(
            data["patches"][rows], truths, truths, aspects_of(data["kinds"][rows])
        )
        sample = torch.from_numpy(canvases).permute(0, 3, 1, 2).contiguous()
        init = checkpoint_from_exported(folder, Path(init), net, sample, export_corner_refiner)
    start_epoch, step, _ = restore_training(folder, init, net, optimiser, schedule)
    for epoch in range(start_epoch, epochs):
        if time_is_up(args, started, epoch):
            break
        net.train()
        # every epoch's order and disturbances follow from (seed, epoch): a resumed run is the same
        epoch_rng = np.random.default_rng([args.seed, epoch])
        generator.manual_seed(args.seed * 1000 + epoch)
        order = train_idx[epoch_rng.permutation(len(train_idx))]
        bar = tqdm(
            range(steps_per_epoch),
            desc=f"corners epoch {epoch + 1}/{epochs}",
            disable=args.no_progress,
        )
        total = 0.0
        done = 0
        for i in bar:
            if step >= max_steps:
                break
            idx = np.sort(order[i * args.batch : (i + 1) * args.batch])
            truths = data["quads"][idx].astype(np.float64)
            roughs = np.stack([disturb(t, epoch_rng, args.wild) for t in truths])
            canvases, targets = make_samples(
                data["patches"][idx], truths, roughs, aspects_of(data["kinds"][idx])
            )
            x = torch.from_numpy(canvases).permute(0, 3, 1, 2).float() / 255.0
            x = photometric(x, generator, contrast=(0.7, 1.3), brightness=(0.7, 1.3), noise=0.03)
            loss = torch.nn.functional.smooth_l1_loss(net(x), torch.from_numpy(targets), beta=0.01)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            done += 1
            total += loss.item()
            bar.set_postfix(loss=f"{total / done:.4f}")
        save_checkpoint(folder, epoch_checkpoint(net, optimiser, schedule, epoch + 1, step))
        append_history(folder, {"epoch": epoch + 1, "step": step, "loss": total / max(done, 1)})
    held_report = evaluate_held(net, data, held_idx, args.seed)
    metrics: dict[str, Any] = {
        "model": "corner_refiner",
        "parameters": count_parameters(net),
        "pieces_train": int(len(train_idx)),
        "scenes": int(len(scenes)),
        "epochs": epochs,
        "steps": step,
        "seed": args.seed,
        **held_report,
        "train_seconds_this_call": round(time.time() - started, 1),
    }
    out = args.out or (folder / "corner_refiner.onnx" if args.smoke else DEFAULT_OUT)
    export_corner_refiner(net, out)
    metrics["onnx"] = str(out)
    write_json(folder / "metrics.json", metrics)
    print(json.dumps(metrics))
    return Path(out)
