"""Train the die reader (`DiceReaderNet`) on die crops cut from rendered scenes.

Verbs as for every model: build data (`models.data.extract_dice_crops`), train (this module),
evaluate (``python -m models.evaluate``), export (`models.export.export_dice_reader`).

Augmentation keeps labels exact: a mirror image of a die shows the same value; brightness,
contrast, noise, blur and down-then-up sampling imitate cameras. Colours are never shifted (r/g/b
are labels). No quarter turns: a camera at the table's edge sees the top face above the side
faces, and turning crops upside down taught the reader to count a side face's pips (real 4s read
as 5s, 2s as 3s). A die too blurred or too small to read (`models.data.die_is_readable`) is trained
towards "a die, value unknown" (equal odds on 1–6), so such dice get low scores, not guesses.
5 % of the scenes are held out to fit the softmax temperature (calibrated scores) and to report
accuracy (on readable dice). With ``--false-dice-from DETECTOR``, what that detector takes for a
die in the training scenes but is none (`models.data.mine_false_dice`) is added as "not a die".
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from models.runs import held_out_split, run_folder, train_epochs, write_json

DEFAULT_OUT = Path(__file__).resolve().parent / "dice_reader.onnx"


def _augment(x: Any, generator: Any, *, mirror: bool = True) -> Any:
    """Label-preserving camera augmentation of a (B, 3, S, S) batch in [0, 1] (`mirror`: half
    of the images mirrored left to right)."""
    import torch

    b = x.shape[0]
    out = x.clone()
    if mirror:
        flip = torch.rand(b, generator=generator) < 0.5
        out[flip] = out[flip].flip(3)
    # small dice: down to 14–30 px and back up
    return camera_effects(out, generator, small_sides=(14, 31))


def camera_effects(x: Any, generator: Any, *, small_sides: tuple[int, int]) -> Any:
    """A camera on a (B, 3, S, S) batch in [0, 1] (changed in place): 30 % of the images
    down-sampled to a side in `small_sides` (low inclusive, high exclusive) and back up, 25 %
    blurred (3 × 3 box), then `photometric`."""
    import torch
    import torch.nn.functional as F

    b, s = x.shape[0], x.shape[-1]
    small = torch.rand(b, generator=generator) < 0.3
    if small.any():
        side = int(torch.randint(*small_sides, (1,), generator=generator))
        part = F.interpolate(x[small], size=(side, side), mode="area")
        x[small] = F.interpolate(part, size=(s, s), mode="bilinear", align_corners=False)
    blur = torch.rand(b, generator=generator) < 0.25
    if blur.any():
        x[blur] = F.avg_pool2d(F.pad(x[blur], (1, 1, 1, 1), mode="replicate"), 3, 1)
    return photometric(x, generator)


def photometric(
    x: Any,
    generator: Any,
    *,
    contrast: tuple[float, float] = (0.6, 1.3),
    brightness: tuple[float, float] = (0.65, 1.35),
    noise: float = 0.04,
) -> Any:
    """A camera's exposure on a (B, 3, S, S) batch in [0, 1]: contrast and brightness drawn per
    image from the ranges, ±7 % channel gain, Gaussian noise of σ up to `noise`; clamped."""
    import torch

    b = x.shape[0]
    c = torch.empty(b, 1, 1, 1).uniform_(*contrast, generator=generator)
    k = torch.empty(b, 1, 1, 1).uniform_(*brightness, generator=generator)
    gain = torch.empty(b, 3, 1, 1).uniform_(0.93, 1.07, generator=generator)
    mean = x.mean(dim=(1, 2, 3), keepdim=True)
    out = ((x - mean) * c + mean) * k * gain
    sigma = torch.empty(b, 1, 1, 1).uniform_(0.0, noise, generator=generator)
    out = out + torch.randn(out.shape, generator=generator) * sigma
    return out.clamp_(0.0, 1.0)


CROP_ARRAYS = ("crops", "values", "colours", "scene", "readable")


def cached_arrays(
    path: Path,
    build: Callable[[], dict[str, np.ndarray]],
    keys: tuple[str, ...] = CROP_ARRAYS,
) -> dict[str, np.ndarray]:
    """The arrays `keys` saved at `path`, else `build()`'s, saved there atomically (a cache
    missing a key, e.g. written before readability was recorded, is rebuilt)."""
    if path.exists():
        data = dict(np.load(path))
        if all(k in data for k in keys):
            return data
    data = build()
    arrays: dict[str, Any] = {k: data[k] for k in keys}
    tmp = path.with_name(path.stem + ".tmp.npz")
    np.savez(tmp, **arrays)
    tmp.replace(path)
    return data


def value_colour_loss(
    value_logits: Any,
    colour_logits: Any,
    soft: Any,
    values: Any,
    colours: Any,
    readable: Any,
) -> Any:
    """A die reader's loss on one batch: cross-entropy of the value logits against the soft
    targets `soft`, plus half the colour cross-entropy on the readable dice (value > 0)."""
    import torch.nn.functional as F

    loss = -(soft * F.log_softmax(value_logits, dim=1)).sum(dim=1).mean()
    is_die = (values > 0) & readable
    if is_die.any():
        loss = loss + 0.5 * F.cross_entropy(colour_logits[is_die], colours[is_die])
    return loss


def _fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The softmax temperature minimising the negative log-likelihood on held-out crops."""
    best, best_nll = 1.0, np.inf
    for t in np.linspace(0.5, 4.0, 71):
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        nll = -logp[np.arange(len(labels)), labels].mean()
        if nll < best_nll:
            best, best_nll = float(t), float(nll)
    return best


def calibrate(
    value_logits: np.ndarray,
    colour_logits: np.ndarray,
    values: np.ndarray,
    colours: np.ndarray,
    readable: np.ndarray,
) -> tuple[float, float, np.ndarray]:
    """A reader's softmax temperatures (value, colour) fitted on held-out samples, and which of
    them are readable dice. The value temperature is fitted on readable samples (unreadable ones
    have no true value to hit), the colour temperature on readable dice; 1.0 when there are none."""
    value_t = _fit_temperature(value_logits[readable], values[readable]) if readable.any() else 1.0
    dice_mask = (values > 0) & readable
    colour_t = (
        _fit_temperature(colour_logits[dice_mask], colours[dice_mask]) if dice_mask.any() else 1.0
    )
    return value_t, colour_t, dice_mask


def _predict(net: Any, crops: np.ndarray, batch: int = 256) -> tuple[np.ndarray, np.ndarray]:
    import torch

    net.eval()
    values, colours = [], []
    with torch.no_grad():
        for start in range(0, len(crops), batch):
            x = torch.from_numpy(crops[start : start + batch]).permute(0, 3, 1, 2).float() / 255
            v, c = net(x)
            values.append(v.numpy())
            colours.append(c.numpy())
    if not values:
        return np.zeros((0, 7), np.float32), np.zeros((0, 4), np.float32)
    return np.concatenate(values), np.concatenate(colours)


def train_dice(args: argparse.Namespace) -> Path:
    """Train, calibrate and export the die reader; return the ONNX path."""
    import torch

    from models.architectures import DiceReaderNet, count_parameters
    from models.data import extract_dice_crops, mine_false_dice
    from models.export import checkpoint_from_exported, export_dice_reader
    from models.runs import scene_folders

    folder = run_folder(args)
    started = time.time()
    torch.manual_seed(args.seed)
    # --- data
    data = cached_arrays(
        folder / "crops.npz",
        lambda: extract_dice_crops(
            scene_folders(args), seed=args.seed, size=args.size, progress=not args.no_progress
        ),
    )
    if args.false_dice_from is not None:
        false = cached_arrays(
            folder / "false_dice.npz",
            lambda: mine_false_dice(
                scene_folders(args),
                args.false_dice_from,
                size=args.size,
                limit=3 if args.smoke else args.false_dice_scenes,
                progress=not args.no_progress,
            ),
        )
        data = {k: np.concatenate([data[k], false[k]]) for k in data}
    n = len(data["values"])
    if n == 0:
        raise SystemExit("no die crops: the rendered scenes hold no dice")
    scenes = np.unique(data["scene"])
    train_idx, held_idx = held_out_split(data["scene"], args.seed)
    crops = torch.from_numpy(data["crops"]).permute(0, 3, 1, 2).contiguous()
    values = torch.from_numpy(data["values"])
    colours = torch.from_numpy(data["colours"])
    readable = torch.from_numpy(data["readable"])
    # soft value targets: one-hot (lightly smoothed) when readable, equal odds on 1–6 when not
    soft = torch.nn.functional.one_hot(values, 7).float() * 0.98 + 0.02 / 7
    soft[~readable] = torch.tensor([0.0] + [1 / 6] * 6)
    # --- model
    net = DiceReaderNet(args.width or 16)
    init = args.init
    if init is not None and str(init).endswith(".onnx"):
        init = checkpoint_from_exported(folder, Path(init), net, crops[train_idx[:512]])

    def step_loss(idx: Any, generator: Any) -> Any:
        value_logits, colour_logits = net(_augment(crops[idx].float() / 255.0, generator))
        return value_colour_loss(
            value_logits, colour_logits, soft[idx], values[idx], colours[idx], readable[idx]
        )

    # --- train
    _, epochs, step = train_epochs("dice", folder, args, net, train_idx, step_loss, started, init)
    # --- calibrate on held-out scenes and report
    value_logits, colour_logits = _predict(net, data["crops"][held_idx])
    held_values, held_colours = data["values"][held_idx], data["colours"][held_idx]
    held_readable = data["readable"][held_idx]
    value_t, colour_t, dice_mask = calibrate(
        value_logits, colour_logits, held_values, held_colours, held_readable
    )
    pred_values = value_logits.argmax(axis=1)
    pred_colours = colour_logits.argmax(axis=1)
    metrics: dict[str, Any] = {
        "model": "dice_reader",
        "parameters": count_parameters(net),
        "crops_train": int(len(train_idx)),
        "crops_held_out": int(len(held_idx)),
        "scenes": int(len(scenes)),
        "epochs": epochs,
        "steps": step,
        "seed": args.seed,
        "crop_size": args.size,
        "false_dice_crops": int(len(false["values"])) if args.false_dice_from else 0,
        "value_temperature": value_t,
        "colour_temperature": colour_t,
        "held_out_unreadable_dice": int(((held_values > 0) & ~held_readable).sum()),
        "held_out_value_accuracy": float(
            (pred_values[held_readable] == held_values[held_readable]).mean()
        )
        if held_readable.any()
        else 0.0,
        "held_out_die_value_accuracy": float(
            (pred_values[dice_mask] == held_values[dice_mask]).mean()
        )
        if dice_mask.any()
        else 0.0,
        "held_out_colour_accuracy": float(
            (pred_colours[dice_mask] == held_colours[dice_mask]).mean()
        )
        if dice_mask.any()
        else 0.0,
        "train_seconds_this_call": round(time.time() - started, 1),
    }
    out = args.out or (folder / "dice_reader.onnx" if args.smoke else DEFAULT_OUT)
    export_dice_reader(
        net, out, size=args.size, value_temperature=value_t, colour_temperature=colour_t
    )
    metrics["onnx"] = str(out)
    write_json(folder / "metrics.json", metrics)
    print(json.dumps(metrics))
    return Path(out)
