"""Run folders shared by both trainers: where a run lives, its data, checkpoints and metrics.

A run folder ``runs/<model>-<name>/`` holds ``args.json`` (the command's arguments),
``checkpoint.pt`` (model, optimiser and epoch, written atomically after every epoch),
``metrics.json`` and ``history.jsonl`` (one line per epoch). Rendered scenes are cached in
``runs/cache/<split>_s<seed>/`` and shared between runs: the same seed and index always render the
same scene, so a cache is only ever extended.

Public names: `run_folder`, `scene_folders`, `save_checkpoint`, `load_checkpoint`, `write_json`,
`held_out_split`, `epoch_checkpoint`, `one_cycle`, `time_is_up`, `train_epochs`.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any


def run_folder(args: argparse.Namespace) -> Path:
    """The run's folder (created); records the arguments the first time."""
    name = "smoke" if args.smoke and args.name == "default" else args.name
    folder = Path(args.runs) / f"{args.model}-{name}"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "args.json").exists():
        write_json(folder / "args.json", {k: str(v) for k, v in vars(args).items()})
    return folder


def scene_folders(args: argparse.Namespace, split: str = "train") -> list[Path]:
    """Rendered scene folders to use: ``--cache`` folders, else a seeded cache of ``--scenes``."""
    from models.data import build_scene_cache

    if args.cache:
        return [Path(c) for c in args.cache]
    count = 6 if args.smoke else args.scenes
    seed = args.seed + (0 if split == "train" else 100)
    folder = Path(args.runs) / "cache" / f"{split}_s{seed}"
    if args.smoke:
        folder = run_folder(args) / f"scenes_{split}"
    build_scene_cache(
        folder,
        count,
        seed=seed,
        split=split,
        chunk=3 if args.smoke else 25,
        progress=not args.no_progress,
    )
    return [folder]


def write_json(path: Path, value: Any) -> None:
    """Write JSON atomically (temp file, then rename)."""
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(value, indent=2) + "\n")
    os.replace(tmp, path)


def save_checkpoint(folder: Path, state: dict[str, Any]) -> None:
    """Save a checkpoint atomically."""
    import torch

    tmp = folder / "checkpoint.pt.tmp"
    torch.save(state, tmp)
    os.replace(tmp, folder / "checkpoint.pt")


def load_checkpoint(folder: Path) -> dict[str, Any] | None:
    """The run's last checkpoint, or None."""
    import torch

    path = folder / "checkpoint.pt"
    if not path.exists():
        return None
    return torch.load(path, map_location="cpu", weights_only=False)


def restore_training(
    folder: Path, init: str | Path | None, net: Any, optimiser: Any, schedule: Any
) -> tuple[int, int, dict[str, Any] | None]:
    """Start weights from `init` (fine-tuning from another run), then resume `folder`'s own last
    checkpoint if it has one. Returns (epoch, step, checkpoint) to continue from.

    Raises:
        SystemExit: `init` names a run with no checkpoint.
    """
    if init is not None:
        initial = load_checkpoint(Path(init))
        if initial is None:
            raise SystemExit(f"no checkpoint in {init}")
        net.load_state_dict(initial["model"])
    checkpoint = load_checkpoint(folder)
    if checkpoint is None:
        return 0, 0, None
    net.load_state_dict(checkpoint["model"])
    optimiser.load_state_dict(checkpoint["optimiser"])
    schedule.load_state_dict(checkpoint["schedule"])
    print(f"resuming {folder.name} at epoch {checkpoint['epoch']}")
    return checkpoint["epoch"], checkpoint["step"], checkpoint


def held_out_split(scenes: Any, seed: int) -> tuple[Any, Any]:
    """(train rows, held-out rows) of samples whose scene ids are `scenes`: 5 % of the scenes
    (at least one) are held out, chosen by `seed`; a single scene: a fifth of its samples."""
    import numpy as np

    scenes = np.asarray(scenes)
    n = len(scenes)
    unique = np.unique(scenes)
    rng = np.random.default_rng(seed)
    held_scenes = rng.choice(unique, size=max(1, len(unique) // 20), replace=False)
    held = np.isin(scenes, held_scenes)
    if held.all():
        held[:] = False
        held[: max(1, n // 5)] = True
    return np.flatnonzero(~held), np.flatnonzero(held)


def epoch_checkpoint(
    net: Any, optimiser: Any, schedule: Any, epoch: int, step: int, **extra: Any
) -> dict[str, Any]:
    """What a trainer saves after an epoch (`save_checkpoint`; `restore_training` reads it)."""
    return {
        "model": net.state_dict(),
        "optimiser": optimiser.state_dict(),
        "schedule": schedule.state_dict(),
        "epoch": epoch,
        "step": step,
        **extra,
    }


def one_cycle(
    net: Any, args: argparse.Namespace, steps_per_epoch: int, *, pct_start: float
) -> tuple[Any, Any, int, int]:
    """(optimiser, schedule, epochs, total steps) of a trainer: AdamW and a one-cycle learning
    rate over ``--epochs`` (one epoch of 3 steps with ``--smoke``)."""
    import torch

    optimiser = torch.optim.AdamW(net.parameters(), lr=args.lr, weight_decay=1e-4)
    epochs = 1 if args.smoke else args.epochs
    max_steps = 3 if args.smoke else steps_per_epoch * epochs
    schedule = torch.optim.lr_scheduler.OneCycleLR(
        optimiser, max_lr=args.lr, total_steps=max_steps, pct_start=pct_start
    )
    return optimiser, schedule, epochs, max_steps


def time_is_up(args: argparse.Namespace, started: float, epoch: int) -> bool:
    """Whether ``--stop-after`` minutes have passed since `started` (then says so): a time-boxed
    call (a lent GPU, a CI job) ends at an epoch boundary, and rerunning it resumes there."""
    import time

    minutes = getattr(args, "stop_after", None)
    if minutes is None or time.time() - started <= minutes * 60:
        return False
    print(f"stopping before epoch {epoch + 1}: --stop-after {minutes} min passed")
    return True


def append_history(folder: Path, line: dict[str, Any]) -> None:
    """Append one epoch's numbers to ``history.jsonl``."""
    with (folder / "history.jsonl").open("a") as f:
        f.write(json.dumps(line) + "\n")


def train_epochs(
    desc: str,
    folder: Path,
    args: argparse.Namespace,
    net: Any,
    train_idx: Any,
    step_loss: Any,
    started: float,
    init: Path | None,
) -> tuple[bool, int, int]:
    """Train `net` over ``--epochs`` of `train_idx` in shuffled batches (AdamW, one-cycle
    learning rate), resuming `folder`'s checkpoint or starting from `init`'s weights; a
    checkpoint and a history line after every epoch. ``step_loss(batch_rows, generator)`` gives
    a batch's loss. Returns (finished: False when ``--stop-after`` ended it before the last
    epoch, the run's epochs, the steps taken so far)."""
    import torch
    from tqdm import tqdm

    folder.mkdir(parents=True, exist_ok=True)
    steps_per_epoch = max(1, len(train_idx) // args.batch)
    optimiser, schedule, epochs, max_steps = one_cycle(net, args, steps_per_epoch, pct_start=0.15)
    generator = torch.Generator().manual_seed(args.seed)
    start_epoch, step, checkpoint = restore_training(folder, init, net, optimiser, schedule)
    if checkpoint is not None:
        generator.set_state(checkpoint["generator"])
    for epoch in range(start_epoch, epochs):
        if time_is_up(args, started, epoch):
            return False, epochs, step
        net.train()
        order = train_idx[torch.randperm(len(train_idx), generator=generator).numpy()]
        bar = tqdm(
            range(steps_per_epoch),
            desc=f"{desc} epoch {epoch + 1}/{epochs}",
            disable=args.no_progress,
        )
        total = 0.0
        for i in bar:
            if step >= max_steps:
                break
            idx = torch.from_numpy(order[i * args.batch : (i + 1) * args.batch])
            loss = step_loss(idx, generator)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            step += 1
            total += loss.item()
            bar.set_postfix(loss=f"{total / (i + 1):.3f}")
        save_checkpoint(
            folder,
            epoch_checkpoint(
                net, optimiser, schedule, epoch + 1, step, generator=generator.get_state()
            ),
        )
        append_history(folder, {"epoch": epoch + 1, "step": step, "loss": total / steps_per_epoch})
    return True, epochs, step


__all__ = [
    "append_history",
    "epoch_checkpoint",
    "held_out_split",
    "load_checkpoint",
    "one_cycle",
    "run_folder",
    "save_checkpoint",
    "scene_folders",
    "time_is_up",
    "train_epochs",
    "write_json",
]
