"""`table-companion dataset …`: synthetic data — generate scenes, preview them, print the art.

- ``generate --out DIR --count N [--seed S] [--size WxH] [--game G] [--split train|eval]``
- ``preview DIR [DIR …] --out sheet.png [--count 32]`` (the first COUNT images of each folder)
- ``print GAME --out FILE.pdf [--card-size WxH] [--tile-size MM]``
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from companion_app.cli import GAME_NAMES
from companion_app.cli._common import UsageError, print_json


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the dataset actions and their options."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", parser_class=type(parser))

    gen = actions.add_parser("generate", help="render synthetic table photos with labels")
    gen.add_argument("--out", required=True, metavar="DIR", help="output folder (new)")
    gen.add_argument("--count", required=True, type=int, metavar="N", help="number of images")
    gen.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    gen.add_argument("--size", default="640x480", metavar="WxH", help="image size (640x480)")
    gen.add_argument(
        "--game",
        choices=GAME_NAMES,
        metavar="G",
        help="only this game's pieces (default: mixed scenes)",
    )
    gen.add_argument(
        "--split",
        choices=("train", "eval"),
        default="train",
        help="texture, colour and light families (eval ones never occur in train)",
    )
    gen.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="K",
        help="worker processes (default: one per core)",
    )
    gen.add_argument("--no-progress", action="store_true", help="no progress bar")
    gen.add_argument("--json", action="store_true", help="machine-readable summary")

    pre = actions.add_parser("preview", help="contact sheet of a dataset with its labels drawn")
    pre.add_argument("dirs", nargs="+", metavar="DIR", help="dataset folder(s)")
    pre.add_argument("--out", required=True, metavar="SHEET.png", help="image to write")
    pre.add_argument(
        "--count", type=int, default=32, metavar="N", help="images per folder (default 32)"
    )
    pre.add_argument("--json", action="store_true", help="machine-readable summary")

    prt = actions.add_parser("print", help="print-and-play PDF of a game's pieces at real size")
    prt.add_argument("game", choices=GAME_NAMES, metavar="GAME", help=", ".join(GAME_NAMES))
    prt.add_argument("--out", required=True, metavar="FILE.pdf", help="PDF to write")
    prt.add_argument("--card-size", metavar="WxH", help="card size in mm (e.g. 63x88)")
    prt.add_argument("--tile-size", metavar="MM", help="tile side in mm (e.g. 24)")
    prt.add_argument("--json", action="store_true", help="machine-readable summary")


def run(args: argparse.Namespace) -> int:
    """Run the chosen action; bad input raises ValueError (exit 2)."""
    if args.action == "generate":
        return _generate(args)
    if args.action == "preview":
        return _preview(args)
    if args.action == "print":
        return _print(args)
    raise UsageError("missing action: generate, preview or print")


def _generate(args: argparse.Namespace) -> int:
    from datasets.generate import GenerateConfig, generate, parse_size

    if args.workers is not None and args.workers < 1:
        raise UsageError(f"workers must be at least 1, got {args.workers}")
    config = GenerateConfig(
        out_dir=Path(args.out),
        count=args.count,
        seed=args.seed,
        size=parse_size(args.size),
        game=args.game,
        split=args.split,
    )
    summary = generate(config, workers=args.workers, progress=not args.no_progress)
    result = {
        "out": str(summary.out_dir),
        "images": summary.count,
        "targets": summary.targets,
        "seconds": round(summary.seconds, 3),
        "images_per_second": round(summary.images_per_second, 2),
        "workers": summary.workers,
    }
    if args.json:
        print_json(result)
    else:
        sys.stdout.write(
            f"wrote {summary.count} images ({summary.targets} labelled objects) to "
            f"{summary.out_dir} in {summary.seconds:.1f} s "
            f"({summary.images_per_second:.1f} images/s, {summary.workers} workers)\n"
        )
    return 0


def _preview(args: argparse.Namespace) -> int:
    from datasets.preview import contact_sheet

    drawn = contact_sheet([Path(d) for d in args.dirs], Path(args.out), count=args.count)
    if args.json:
        print_json({"out": args.out, "images": drawn})
    else:
        sys.stdout.write(f"wrote a contact sheet of {drawn} images to {args.out}\n")
    return 0


def _parse_card_size(text: str) -> tuple[float, float]:
    parts = text.lower().split("x")
    try:
        w, h = (float(p) for p in parts)
    except ValueError:
        raise UsageError(f"bad card size {text!r} (expected WxH in mm, e.g. 63x88)") from None
    if not (w > 0 and h > 0):
        raise UsageError(f"bad card size {text!r} (sides must be positive)")
    return (w, h)


def _parse_tile_size(text: str) -> float:
    try:
        side = float(text)
    except ValueError:
        raise UsageError(f"bad tile size {text!r} (expected a side in mm, e.g. 24)") from None
    if not side > 0:
        raise UsageError(f"bad tile size {text!r} (must be positive)")
    return side


def _print(args: argparse.Namespace) -> int:
    from datasets.art.print_pdf import make_pdf

    card = _parse_card_size(args.card_size) if args.card_size else None
    tile = _parse_tile_size(args.tile_size) if args.tile_size else None
    pages = make_pdf(args.game, Path(args.out), card_size_mm=card, tile_size_mm=tile)
    if args.json:
        print_json({"out": args.out, "game": args.game, "pages": pages})
    else:
        sys.stdout.write(f"wrote {pages} pages for {args.game} to {args.out}\n")
    return 0
