"""Train the piece reader (`PieceReaderNet`): which companion face a card or tile crop shows.

Verbs as for every model: build data (`models.data.extract_piece_crops`), train (this module),
evaluate (``python -m models.evaluate``), export (`models.export.export_piece_reader`).

The classes are the distinct companion faces (`models.data.face_classes`) plus class 0, "no
companion face" (a back, a foreign piece, bare table). Crops are cut around disturbed boxes (often
only part of the piece, as a detector boxes a half-covered card). Augmentation keeps labels
exact: quarter turns (a piece lies any way round on the table), camera exposure, noise, blur and
down-then-up sampling. 5 % of the scenes are held out to fit the softmax temperature and to
report accuracy. ``--faces PREFIX`` trains a face reader of those faces only (every other
piece is class 0; `vision.piece_reader.FACE_READER_MODELS`): the Dice King, penalty and King's
Breakfast readers. The companion art is all it knows: a user's own printing is matched by the
gallery (`vision.identify`) from its enrolled faces, not by this network.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from models.runs import held_out_split, run_folder, train_epochs, write_json
from vision.piece_reader import FACE_READER_MODELS, FACE_WARP_MODELS

DEFAULT_OUT = Path(__file__).resolve().parent / "piece_reader.onnx"


def _augment(x: Any, generator: Any) -> Any:
    """Label-preserving augmentation of a (B, 3, S, S) batch in [0, 1]: quarter turns, and 30 %
    of the crops down to S/4-5S/8 px and back up (16-40 px at 64)."""
    import torch

    from models.train_dice import camera_effects

    b = x.shape[0]
    out = x.clone()
    turns = torch.randint(0, 4, (b,), generator=generator)
    for k in (1, 2, 3):
        rows = turns == k
        if rows.any():
            out[rows] = torch.rot90(out[rows], k, dims=(2, 3))
    side = x.shape[-1]
    return camera_effects(out, generator, small_sides=(side // 4, side * 5 // 8))


# the channel orders a "no piece" crop may be given in ``channels`` mode (identity excluded)
_OTHER_CHANNEL_ORDERS = ((0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0))
RECOLOUR_MODES = ("hue", "channels")


def recolour_not_pieces(
    x: Any, labels: Any, generator: Any, share: float = 0.5, mode: str = "hue"
) -> Any:
    """`share` of the class-0 crops (no companion face: the table, a foreign card) turned to
    another hue (``hue``: a rotation of the colour cube about its grey axis, by a random angle;
    brightness kept; ``channels``, reader v6: the colour channels reordered): a cloth of another
    colour is still no piece, and the faces' colours, which name them, are left alone. Players'
    cloths come in more colours than the training families, and card-sized patches of spotted
    cloths in a card's colours were read as that card."""
    import math

    import torch

    out = x.clone()
    rows = torch.nonzero((labels == 0) & (torch.rand(x.shape[0], generator=generator) < share))
    rows = rows.flatten()
    if len(rows) == 0:
        return out
    if mode == "channels":
        order = torch.randint(0, len(_OTHER_CHANNEL_ORDERS), (len(rows),), generator=generator)
        for k, channels in enumerate(_OTHER_CHANNEL_ORDERS):
            some = rows[order == k]
            out[some] = x[some][:, list(channels)]
        return out
    if mode != "hue":
        raise ValueError(f"recolour mode must be one of {', '.join(RECOLOUR_MODES)}, not {mode!r}")
    angles = torch.rand(len(rows), generator=generator) * 2 * math.pi
    axis = torch.full((3,), 1 / math.sqrt(3.0))
    cross = torch.tensor(
        [[0.0, -axis[2], axis[1]], [axis[2], 0.0, -axis[0]], [-axis[1], axis[0], 0.0]]
    )
    cos, sin = torch.cos(angles)[:, None, None], torch.sin(angles)[:, None, None]
    # Rodrigues: cos I + sin [u]x + (1 - cos) u uT, one 3 x 3 matrix a crop
    turn = cos * torch.eye(3) + sin * cross + (1 - cos) * torch.outer(axis, axis)
    picked = x[rows]
    out[rows] = torch.einsum("nij,njhw->nihw", turn, picked).clamp(0.0, 1.0)
    return out


# colour temperatures a cast is drawn from (log-uniform): candle light to a blue sky's shade
WHITE_BALANCE_KELVIN = (1800.0, 9500.0)


def white_balance_cast(
    x: Any,
    generator: Any,
    share: float,
    kelvin: tuple[float, float] = WHITE_BALANCE_KELVIN,
) -> Any:
    """`share` of a (B, 3, S, S) BGR batch in [0, 1] multiplied by the colour of a light of
    `kelvin` (`datasets.render.lighting.kelvin_to_bgr`) that the camera's white balance
    corrects by 30-100 % (the renderer corrects its lights by 30-85 %): every face keeps its
    label under any lamp. The rendered training scenes' lights span 2,700-6,500 K only, and
    cards under a candle's 2,000 K (cake and chicken cards gone orange on a yellow cloth) were
    read as no face at all."""
    import math

    import torch

    from datasets.render.lighting import kelvin_to_bgr

    rows = torch.nonzero(torch.rand(x.shape[0], generator=generator) < share).flatten()
    if len(rows) == 0:
        return x
    low, high = math.log(kelvin[0]), math.log(kelvin[1])
    temperatures = torch.exp(low + torch.rand(len(rows), generator=generator) * (high - low))
    corrected = 0.3 + torch.rand(len(rows), generator=generator) * 0.7
    gains = torch.from_numpy(
        np.stack([kelvin_to_bgr(float(t)) for t in temperatures]).astype(np.float32)
    )
    # balanced to a mean gain of 1 (exposure is `photometric`'s), then partly corrected
    gains = gains / gains.mean(dim=1, keepdim=True)
    gains = gains * (1 - corrected[:, None]) + corrected[:, None]
    out = x.clone()
    out[rows] = (x[rows] * gains[:, :, None, None]).clamp(0.0, 1.0)
    return out


# the gamma a tone curve is drawn from (log-uniform): a print's shade against the pale parts
# around it, as different cameras and exposures render it
TONE_GAMMA = (0.6, 1.7)


def tone_curve(
    x: Any, generator: Any, share: float, gamma: tuple[float, float] = TONE_GAMMA
) -> Any:
    """`share` of a (B, 3, S, S) batch in [0, 1] passed through a tone curve x ** g, g drawn
    log-uniform from `gamma`: how light a colour looks next to white then changes, which an
    exposure's brightness and contrast (affine, `photometric`) leave readable. The companion
    penalty faces print a red that darkens with the value (red channel medians 168, 138, 107, 76
    of 255); a reader that learnt that shade read a lamp-lit "-3" as a 2. Under the curve the
    shade no longer tells the value; the printed digit and crowns still do."""
    import math

    import torch

    rows = torch.nonzero(torch.rand(x.shape[0], generator=generator) < share).flatten()
    if len(rows) == 0:
        return x
    low, high = math.log(gamma[0]), math.log(gamma[1])
    g = torch.exp(low + torch.rand(len(rows), generator=generator) * (high - low))
    out = x.clone()
    out[rows] = x[rows].clamp(0.0, 1.0) ** g[:, None, None, None]
    return out


def _predict(net: Any, crops: np.ndarray, batch: int = 256) -> np.ndarray:
    import torch

    net.eval()
    parts = []
    with torch.no_grad():
        for start in range(0, len(crops), batch):
            x = torch.from_numpy(crops[start : start + batch]).permute(0, 3, 1, 2).float() / 255
            parts.append(net(x).numpy())
    return np.concatenate(parts) if parts else np.zeros((0, 1), np.float32)


def _checkpoint_from_onnx(
    folder: Path, path: Path, net: Any, classes: list[tuple[str, ...]], sample: Any
) -> Path:
    """``--init`` a committed reader's ONNX file whose face classes are this run's
    (`models.export.checkpoint_from_exported`)."""
    import onnx

    from models.export import checkpoint_from_exported

    meta = {p.key: p.value for p in onnx.load(str(path)).metadata_props}
    if json.loads(meta.get("face_classes", "null") or "null") != [list(c) for c in classes]:
        raise SystemExit(f"{path}: its face classes are not this run's (--faces, the gallery)")
    return checkpoint_from_exported(folder, path, net, sample)


def train_pieces(args: argparse.Namespace) -> Path:
    """Train, calibrate and export the piece reader; return the ONNX path."""
    import torch
    import torch.nn.functional as F

    from models.architectures import PieceReaderNet, count_parameters
    from models.data import (
        PIECE_ARRAYS,
        extract_face_warps,
        extract_piece_crops,
        face_classes,
        mine_false_pieces,
    )
    from models.export import export_piece_reader
    from models.runs import scene_folders
    from models.train_dice import _fit_temperature, cached_arrays

    folder = run_folder(args)
    started = time.time()
    torch.manual_seed(args.seed)
    classes = face_classes()
    faces = getattr(args, "faces", None)
    if faces:
        classes = [c for c in classes if c[0].startswith(faces)]
        if not classes:
            raise SystemExit(f"no companion face's identity starts with {faces!r}")
    classes_file = folder / "classes.json"
    if classes_file.exists() and json.loads(classes_file.read_text()) != [list(c) for c in classes]:
        raise SystemExit(f"{folder}: its crops were labelled with other face classes (new --name)")
    write_json(classes_file, [list(c) for c in classes])
    warps = bool(getattr(args, "warps", False))
    if warps and getattr(args, "false_pieces_from", None) is not None:
        raise SystemExit("--warps reads rectified faces: mined false boxes have no corners")
    extract = extract_face_warps if warps else extract_piece_crops
    data = cached_arrays(
        folder / ("warps.npz" if warps else "crops.npz"),
        lambda: extract(
            scene_folders(args),
            classes,
            seed=args.seed,
            size=args.size,
            jitters=args.jitters,
            limit=6 if args.smoke else None,
            progress=not args.no_progress,
        ),
        PIECE_ARRAYS,
    )
    n = len(data["labels"])
    if n == 0:
        raise SystemExit("no piece crops: the rendered scenes hold no cards or tiles")
    false_count = 0
    if getattr(args, "false_pieces_from", None) is not None:
        false = cached_arrays(
            folder / "false_pieces.npz",
            lambda: mine_false_pieces(
                args.false_pieces_cache or scene_folders(args),
                args.false_pieces_from,
                size=args.size,
                limit=3 if args.smoke else args.false_pieces_scenes,
                progress=not args.no_progress,
            ),
            PIECE_ARRAYS,
        )
        # scenes of their own: the held-out split keeps whole scenes out
        false["scene"] = false["scene"] + int(data["scene"].max()) + 1
        false_count = len(false["labels"])
        data = {k: np.concatenate([data[k], false[k]]) for k in PIECE_ARRAYS}
        print(f"{false_count} false pieces mined, {n} piece crops")
    train_idx, held_idx = held_out_split(data["scene"], args.seed)
    crops = torch.from_numpy(data["crops"]).permute(0, 3, 1, 2).contiguous()
    labels = torch.from_numpy(data["labels"])
    net = PieceReaderNet(len(classes) + 1, args.width or 24)
    recolour = getattr(args, "recolour_not_pieces", None)
    white_balance = float(getattr(args, "white_balance", 0.0) or 0.0)
    if not 0.0 <= white_balance <= 1.0:
        raise SystemExit(f"--white-balance is a share from 0 to 1, not {white_balance}")
    tone = float(getattr(args, "tone_curve", 0.0) or 0.0)
    if not 0.0 <= tone <= 1.0:
        raise SystemExit(f"--tone-curve is a share from 0 to 1, not {tone}")

    def step_loss(idx: Any, generator: Any) -> Any:
        x = crops[idx].float() / 255.0
        if recolour:
            x = recolour_not_pieces(x, labels[idx], generator, mode=recolour)
        if white_balance:
            x = white_balance_cast(x, generator, white_balance)
        if tone:
            x = tone_curve(x, generator, tone)
        logits = net(_augment(x, generator))
        return F.cross_entropy(logits, labels[idx], label_smoothing=0.02)

    init = args.init
    if init is not None and str(init).endswith(".onnx"):
        init = _checkpoint_from_onnx(folder, Path(init), net, classes, crops[train_idx[:512]])
    _, epochs, step = train_epochs("pieces", folder, args, net, train_idx, step_loss, started, init)
    logits = _predict(net, data["crops"][held_idx])
    held = data["labels"][held_idx]
    temperature = _fit_temperature(logits, held) if len(held) else 1.0
    z = logits / temperature
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    predicted, confidence = p.argmax(axis=1), p.max(axis=1)
    is_face = held > 0
    metrics: dict[str, Any] = {
        "model": "piece_reader",
        "parameters": count_parameters(net),
        "classes": len(classes) + 1,
        "crops_train": int(len(train_idx)),
        "crops_held_out": int(len(held_idx)),
        "epochs": epochs,
        "steps": step,
        "seed": args.seed,
        "crop_size": args.size,
        "temperature": temperature,
        "held_out_accuracy": float((predicted == held).mean()) if len(held) else 0.0,
        "held_out_face_accuracy": float((predicted[is_face] == held[is_face]).mean())
        if is_face.any()
        else 0.0,
        "train_seconds_this_call": round(time.time() - started, 1),
    }
    for threshold in (0.8, 0.9, 0.95):
        sure = is_face & (confidence >= threshold)
        metrics[f"held_out_faces_named_at_{threshold}"] = {
            "right": float((sure & (predicted == held)).sum() / max(is_face.sum(), 1)),
            "wrong": float((sure & (predicted != held)).sum() / max(is_face.sum(), 1)),
        }
    if faces:
        metrics["faces"] = faces
    if warps:
        metrics["input"] = "rectified face warps"
    if getattr(args, "false_pieces_from", None) is not None:
        metrics["false_piece_crops"] = false_count
    if recolour:
        metrics["recolour_not_pieces"] = recolour
    if white_balance:
        metrics["white_balance"] = white_balance
    if tone:
        metrics["tone_curve"] = tone
    # a face reader (``--faces PREFIX``) is exported where the pipeline loads it
    default = (FACE_WARP_MODELS if warps else FACE_READER_MODELS).get(faces or "", DEFAULT_OUT)
    if warps and faces not in FACE_WARP_MODELS and args.out is None and not args.smoke:
        raise SystemExit(f"a face-warp reader of {faces!r} has no place in the pipeline: --out")
    out = args.out or (folder / default.name if args.smoke else default)
    export_piece_reader(net, out, size=args.size, temperature=temperature, classes=classes)
    metrics["onnx"] = str(out)
    write_json(folder / "metrics.json", metrics)
    print(json.dumps(metrics))
    return Path(out)
