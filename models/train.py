"""Train our models: ``python -m models.train dice|detector|corners|corner-snap|top-face|pieces …``.

One command per model. Each run lives in ``runs/<model>-<name>/`` (git-ignored): the rendered
scene cache it used, a checkpoint after every epoch (``checkpoint.pt``; a rerun with the same
``--name`` resumes from it), ``metrics.json`` and the exported ONNX. Runs are never deleted: a new
``--name`` starts a new folder. Everything is seeded. ``--smoke`` does a few steps on a few scenes,
for CI.

Examples::

    python -m models.train dice --name v1 --scenes 4000 --epochs 12
    python -m models.train detector --name v1 --scenes 4000 --epochs 20
    python -m models.train corners --name v1 --cache runs/cache/train_s1 --epochs 8
    python -m models.train corner-snap --name v1 --cache runs/cache/train_s1 --epochs 6
    python -m models.train top-face --name v1 --cache runs/cache/train_close_s5 --epochs 10
    python -m models.train pieces --name v1 --cache runs/cache/train_s1 --epochs 8
    python -m models.train pieces --name penalty-v1 --faces dice-king/penalty- --size 96 \
        --cache runs/cache/train_kingdoms_s91 --epochs 4
    python -m models.train dice --smoke --out /tmp/dice.onnx
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

RUNS = Path(__file__).resolve().parent.parent / "runs"


def _common(parser: argparse.ArgumentParser, model: str) -> None:
    parser.add_argument("--name", default="default", help="run name (runs/<model>-<name>/)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the data and of training")
    parser.add_argument("--scenes", type=int, default=2000, help="rendered scenes to train on")
    parser.add_argument(
        "--cache",
        type=Path,
        action="append",
        default=None,
        help="extra rendered scene folders to train on (repeatable; our cache or dataset generate)",
    )
    parser.add_argument("--epochs", type=int, default=10)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--threads", type=int, default=2, help="torch CPU threads")
    parser.add_argument("--width", type=int, default=None, help="network width (channels)")
    parser.add_argument("--out", type=Path, default=None, help="ONNX path (default models/…)")
    parser.add_argument("--runs", type=Path, default=RUNS, help="folder of run folders")
    parser.add_argument(
        "--init",
        type=Path,
        default=None,
        help="start from the weights of another run folder's checkpoint (fine-tuning); the "
        "detector, the corner refiner and the piece and die readers also take a committed .onnx "
        "file (its run gone)",
    )
    parser.add_argument("--smoke", action="store_true", help="a few steps on a few scenes (CI)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bars")
    parser.set_defaults(model=model)


def _stop_after(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stop-after",
        type=float,
        default=None,
        metavar="MINUTES",
        help="end at the first epoch boundary after this many minutes (rerun to resume)",
    )


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``python -m models.train``."""
    parser = argparse.ArgumentParser(prog="python -m models.train", description=__doc__)
    sub = parser.add_subparsers(dest="model", required=True)
    dice = sub.add_parser("dice", help="the die reader (value 1-6 and pip colour)")
    _common(dice, "dice")
    dice.add_argument("--size", type=int, default=40, help="crop side in pixels")
    dice.add_argument(
        "--false-dice-from",
        type=Path,
        default=None,
        help="a detector ONNX model: its false dice in the training scenes become 'not a die'",
    )
    dice.add_argument(
        "--false-dice-scenes",
        type=int,
        default=3000,
        help="scenes to mine false dice from (the first N of the training scenes)",
    )
    detector = sub.add_parser("detector", help="the card/tile/die detector")
    _common(detector, "detector")
    detector.add_argument("--input", type=int, default=320, help="square training crop side")
    detector.add_argument(
        "--device", default="auto", help="torch device: auto (CUDA when there is a GPU), cpu, cuda"
    )
    detector.add_argument(
        "--workers", type=int, default=0, help="data loader processes (0: load in the trainer)"
    )
    _stop_after(detector)
    corners = sub.add_parser("corners", help="the corner refiner (a card's or tile's 4 corners)")
    _common(corners, "corners")
    corners.add_argument(
        "--wild",
        type=float,
        default=0.0,
        help="share of training quads disturbed far more (turned σ 20°, scaled σ 20 %%)",
    )
    _stop_after(corners)
    snap = sub.add_parser(
        "corner-snap", help="the corner snapper (each refined corner onto the true one)"
    )
    _common(snap, "corner-snap")
    _stop_after(snap)
    top_face = sub.add_parser(
        "top-face", help="the dice top-face locator and the reader of rectified top faces"
    )
    _common(top_face, "top-face")
    top_face.add_argument(
        "--mask-stride",
        type=int,
        choices=(1, 2),
        default=2,
        help="the locator's mask resolution: 2 = half the crop's (the committed v2), 1 = full",
    )
    _stop_after(top_face)
    pieces = sub.add_parser("pieces", help="the piece reader (which companion card or tile face)")
    _common(pieces, "pieces")
    pieces.add_argument("--size", type=int, default=64, help="crop side in pixels")
    pieces.add_argument("--jitters", type=int, default=1, help="crops per piece (other boxes)")
    pieces.add_argument(
        "--warps",
        action="store_true",
        help="a face-warp reader: each piece's corners, disturbed, warped onto a square "
        "(vision.piece_reader.PieceReader.read_quads), not a crop around its box",
    )
    pieces.add_argument(
        "--faces",
        default=None,
        metavar="PREFIX",
        help="read only the faces whose identities start with PREFIX (every other piece is "
        "class 0), e.g. dice-king/penalty- for the penalty reader (models/penalty_reader.onnx)",
    )
    pieces.add_argument(
        "--false-pieces-from",
        type=Path,
        default=None,
        help="a detector ONNX model: what it boxes where no piece lies, run as scoring photos "
        "run it, becomes 'no companion face' (models.data.mine_false_pieces)",
    )
    pieces.add_argument(
        "--false-pieces-cache",
        action="append",
        type=Path,
        default=None,
        help="scene folders to mine false pieces from (repeatable; default the training scenes)",
    )
    pieces.add_argument(
        "--false-pieces-scenes",
        type=int,
        default=None,
        help="mine only the first N of those scenes",
    )
    pieces.add_argument(
        "--recolour-not-pieces",
        nargs="?",
        const="hue",
        default=None,
        choices=("hue", "channels"),
        help="turn the hue of half the 'no piece' crops in each batch (channels: reorder their"
        " colour channels instead, as reader v6 was trained)",
    )
    pieces.add_argument(
        "--white-balance",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="cast SHARE of the crops of each batch in the colour of a light from 1,800 to "
        "9,500 K that the camera's white balance only partly corrects "
        "(models.train_pieces.white_balance_cast)",
    )
    pieces.add_argument(
        "--tone-curve",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="pass SHARE of the crops of each batch through a tone curve x ** g, g from 0.6 to "
        "1.7, so that a print's shade does not tell its face (models.train_pieces.tone_curve)",
    )
    _stop_after(pieces)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        import torch
    except ImportError:
        print("training needs torch: pip install -e '.[train]'", file=sys.stderr)
        return 2
    torch.set_num_threads(max(1, args.threads))
    if args.model == "dice":
        from models.train_dice import train_dice

        train_dice(args)
    elif args.model == "top-face":
        from models.train_top_face import train_top_face

        train_top_face(args)
    elif args.model == "pieces":
        from models.train_pieces import train_pieces

        train_pieces(args)
    elif args.model == "corners":
        from models.train_corners import train_corners

        train_corners(args)
    elif args.model == "corner-snap":
        from models.train_corner_snap import train_corner_snap

        train_corner_snap(args)
    else:
        from models.train_detector import train_detector

        train_detector(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
