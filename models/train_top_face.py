"""Train the top-face locator (`TopFaceNet`) and the face reader (`DiceReaderNet` on rectified
top faces): ``python -m models.train top-face``.

One command, two phases, both from the same data (`models.data.extract_top_faces`, cached in the
run folder as ``data.npz``): the locator learns each die crop's top-face mask; the face reader
learns the value and pip colour of top faces rectified from the true corners, each corner moved a
little (a located quad is not exact). Each phase has its own checkpoint (``locator/``,
``reader/``): a rerun resumes the phase it stopped in. Augmentation keeps labels exact: mirror
images (the crop and its mask together), brightness, contrast, noise, blur, small-and-up; the
rectified faces are also turned by quarter turns (a face seen from above has no "up"; the
whole-die crops are not: there the top face lies above the side faces). As for the die reader, a
die too blurred or too small to read is trained towards "value unknown", and temperatures fitted on
5 % held-out scenes calibrate the face reader's probabilities.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from models.runs import held_out_split, run_folder, train_epochs, write_json
from models.train_dice import _augment, _predict, cached_arrays, calibrate, value_colour_loss

MODELS = Path(__file__).resolve().parent
DEFAULT_LOCATOR = MODELS / "dice_top_face.onnx"
DEFAULT_FACE_READER = MODELS / "dice_face_reader.onnx"
CROP_SIZE = 48
FACE_SIZE = 32


def _data(folder: Path, args: argparse.Namespace) -> dict[str, np.ndarray]:
    from models.data import TOP_FACE_ARRAYS, extract_top_faces
    from models.runs import scene_folders

    return cached_arrays(
        folder / "data.npz",
        lambda: extract_top_faces(
            scene_folders(args),
            seed=args.seed,
            crop_size=CROP_SIZE,
            face_size=FACE_SIZE,
            progress=not args.no_progress,
        ),
        TOP_FACE_ARRAYS,
    )


def _mask_iou(predicted: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """IoU per sample of boolean masks (n, h, w)."""
    inter = (predicted & truth).sum(axis=(1, 2))
    union = (predicted | truth).sum(axis=(1, 2))
    return inter / np.maximum(union, 1)


def _phase_epochs(
    name: str,
    folder: Path,
    args: argparse.Namespace,
    net: Any,
    train_idx: np.ndarray,
    step_loss: Any,
    started: float,
) -> bool:
    """Train one phase's `net` (resuming; `--init` names the run whose phase to start from);
    False when ``--stop-after`` ended it early."""
    init = Path(args.init) / name if args.init is not None else None
    return train_epochs(name, folder, args, net, train_idx, step_loss, started, init)[0]


def _train_locator(
    folder: Path, args: argparse.Namespace, data: dict[str, np.ndarray], started: float
) -> tuple[Any, dict[str, Any]] | None:
    import torch
    import torch.nn.functional as F

    from models.architectures import TopFaceNet, count_parameters

    dice = np.flatnonzero(data["values"] > 0)
    train_rows, held_rows = held_out_split(data["scene"][dice], args.seed)
    train_idx, held_idx = dice[train_rows], dice[held_rows]
    crops = torch.from_numpy(data["crops"]).permute(0, 3, 1, 2).contiguous()
    masks = torch.from_numpy(data["masks"])[:, None]
    net = TopFaceNet(args.width or 16, mask_stride=args.mask_stride)

    def step_loss(idx: Any, generator: Any) -> Any:
        x = crops[idx].float() / 255.0
        y = masks[idx].float() / 255.0
        flip = torch.rand(len(idx), generator=generator) < 0.5
        x[flip], y[flip] = x[flip].flip(3), y[flip].flip(3)
        x = _augment(x, generator, mirror=False)
        target = F.avg_pool2d(y, 2) if args.mask_stride == 2 else y
        logits = net(x)
        bce = F.binary_cross_entropy_with_logits(logits, target)
        p = torch.sigmoid(logits)
        dice_loss = 1 - (2 * (p * target).sum((1, 2, 3)) + 1) / (
            p.sum((1, 2, 3)) + target.sum((1, 2, 3)) + 1
        )
        return bce + dice_loss.mean()

    if not _phase_epochs("locator", folder / "locator", args, net, train_idx, step_loss, started):
        return None
    # held-out: the quad fitted to the predicted mask against the true mask
    from vision.top_face import mask_targets, quad_from_mask

    net.eval()
    ious = []
    with torch.no_grad():
        for start in range(0, len(held_idx), 256):
            rows = held_idx[start : start + 256]
            prob = torch.sigmoid(net(crops[rows].float() / 255.0))
            prob = F.interpolate(prob, size=CROP_SIZE, mode="bilinear", align_corners=False)
            for k, row in enumerate(rows):
                quad = quad_from_mask(prob[k, 0].numpy())
                truth = data["masks"][row] >= 128
                if quad is None:
                    ious.append(0.0)
                    continue
                fitted = mask_targets(quad[None], CROP_SIZE)[0] >= 128
                ious.append(float(_mask_iou(fitted[None], truth[None])[0]))
    iou = np.array(ious)
    metrics = {
        "parameters": count_parameters(net),
        "crops_train": int(len(train_idx)),
        "crops_held_out": int(len(held_idx)),
        "held_out_quad_iou_median": float(np.median(iou)) if len(iou) else 0.0,
        "held_out_quad_iou_at_least_0.7": float((iou >= 0.7).mean()) if len(iou) else 0.0,
        "held_out_no_quad": float((iou == 0).mean()) if len(iou) else 0.0,
    }
    return net, metrics


def _train_reader(
    folder: Path, args: argparse.Namespace, data: dict[str, np.ndarray], started: float
) -> tuple[Any, dict[str, Any], tuple[float, float]] | None:
    import torch
    import torch.nn.functional as F

    from models.architectures import DiceReaderNet, count_parameters

    train_idx, held_idx = held_out_split(data["scene"], args.seed)
    faces = torch.from_numpy(data["faces"]).permute(0, 3, 1, 2).contiguous()
    values = torch.from_numpy(data["values"])
    colours = torch.from_numpy(data["colours"])
    readable = torch.from_numpy(data["readable"])
    soft = F.one_hot(values, 7).float() * 0.98 + 0.02 / 7
    soft[~readable] = torch.tensor([0.0] + [1 / 6] * 6)
    net = DiceReaderNet(args.width or 16)

    def step_loss(idx: Any, generator: Any) -> Any:
        x = faces[idx].float() / 255.0
        turns = int(torch.randint(0, 4, (1,), generator=generator))
        x = torch.rot90(x, turns, dims=(2, 3))
        x = _augment(x, generator)
        value_logits, colour_logits = net(x)
        return value_colour_loss(
            value_logits, colour_logits, soft[idx], values[idx], colours[idx], readable[idx]
        )

    if not _phase_epochs("reader", folder / "reader", args, net, train_idx, step_loss, started):
        return None
    value_logits, colour_logits = _predict(net, data["faces"][held_idx])
    held_values, held_colours = data["values"][held_idx], data["colours"][held_idx]
    value_t, colour_t, dice_mask = calibrate(
        value_logits, colour_logits, held_values, held_colours, data["readable"][held_idx]
    )
    predicted = value_logits.argmax(axis=1)
    metrics = {
        "parameters": count_parameters(net),
        "faces_train": int(len(train_idx)),
        "faces_held_out": int(len(held_idx)),
        "value_temperature": value_t,
        "colour_temperature": colour_t,
        "held_out_value_accuracy_readable_dice": float(
            (predicted[dice_mask] == held_values[dice_mask]).mean()
        )
        if dice_mask.any()
        else 0.0,
        "held_out_colour_accuracy": float(
            (colour_logits.argmax(axis=1)[dice_mask] == held_colours[dice_mask]).mean()
        )
        if dice_mask.any()
        else 0.0,
    }
    return net, metrics, (value_t, colour_t)


def train_top_face(args: argparse.Namespace) -> tuple[Path, Path] | None:
    """Train and export both models; return their ONNX paths (None when stopped early)."""
    import torch

    from models.export import export_dice_reader, export_top_face

    folder = run_folder(args)
    started = time.time()
    torch.manual_seed(args.seed)
    data = _data(folder, args)
    if not (data["values"] > 0).any():
        raise SystemExit("no dice with a visible top face in the rendered scenes")
    located = _train_locator(folder, args, data, started)
    if located is None:
        return None
    read = _train_reader(folder, args, data, started)
    if read is None:
        return None
    locator, locator_metrics = located
    reader, reader_metrics, (value_t, colour_t) = read
    # --out names the locator's file; the face reader is written beside it
    locator_out = Path(
        args.out or (folder / "dice_top_face.onnx" if args.smoke else DEFAULT_LOCATOR)
    )
    reader_out = (
        locator_out.with_name("dice_face_reader.onnx")
        if args.out or args.smoke
        else DEFAULT_FACE_READER
    )
    export_top_face(locator, locator_out, size=CROP_SIZE)
    export_dice_reader(
        reader, reader_out, size=FACE_SIZE, value_temperature=value_t, colour_temperature=colour_t
    )
    metrics = {
        "model": "top_face",
        "seed": args.seed,
        "samples": int(len(data["values"])),
        "scenes": int(len(np.unique(data["scene"]))),
        "locator": locator_metrics,
        "face_reader": reader_metrics,
        "train_seconds_this_call": round(time.time() - started, 1),
        "onnx": [str(locator_out), str(reader_out)],
    }
    write_json(folder / "metrics.json", metrics)
    print(json.dumps(metrics))
    return Path(locator_out), Path(reader_out)
