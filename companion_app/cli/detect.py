"""``table-companion detect IMAGE... [--json]``: find cards, tiles and dice in images.

With ``--json``, one JSON object per line per image, exactly the design's "Detections" object
(``{"image", "width", "height", "objects"}``). An image that cannot be processed still gets its
line, with ``"objects": []`` and an ``"error"`` field saying why in one lower-case line (``width``
and ``height`` are null when the file could not be decoded); the other images are still processed.
Grey, 16-bit and BGRA images are converted to 8-bit colour first. Exit status: 0 when at least one
image was processed, 2 when none could be (every image failed, or the models cannot be loaded).
Without ``--json``, a readable summary line per image.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np


def configure(parser: argparse.ArgumentParser) -> None:
    """Options of ``detect``."""
    parser.add_argument("images", nargs="+", metavar="IMAGE", help="image files (jpg, png, …)")
    parser.add_argument("--json", action="store_true", help="one JSON object per line per image")
    parser.add_argument("--detector-model", type=Path, default=None, help="detector ONNX file")
    parser.add_argument("--dice-model", type=Path, default=None, help="die reader ONNX file")
    parser.add_argument(
        "--game",
        choices=("kings-breakfast", "cafe-international", "dice-king"),
        help="identify cards and tiles among this game's pieces only",
    )


def read_image(path: str) -> np.ndarray:
    """Decode an image file as it is stored (grey, colour, 8 or 16 bit).

    Raises:
        ValueError: the file cannot be read, is empty, or is not an image.
    """
    import cv2

    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read image {path!r}: {error.strerror or error}") from None
    if not data:
        raise ValueError(f"image {path!r} is empty")
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_UNCHANGED)
    if image is None:
        raise ValueError(f"image {path!r} is not a readable image")
    return image


def _summary(line: dict[str, Any]) -> str:
    if "error" in line:
        return f"{line['image']}: error: {line['error']}"
    objects = line["objects"]
    dice = [o for o in objects if o["kind"] == "die"]
    readings = ", ".join(
        f"{o['value'] if o['value'] else '?'}{o['colour'] or ''} ({o['score']:.2f})" for o in dice
    )
    cards = sum(o["kind"] == "card" for o in objects)
    tiles = sum(o["kind"] == "tile" for o in objects)
    text = f"{line['image']} {line['width']}x{line['height']}: {len(dice)} dice"
    if dice:
        text += f" [{readings}]"
    return text + f", {cards} cards, {tiles} tiles"


def run(args: argparse.Namespace) -> int:
    """Detect in every image; print one line each. Returns 0, or 2 when none was processed."""
    from vision.errors import PerceptionError
    from vision.pipeline import Perception

    try:
        perception = Perception(
            detector_model=args.detector_model,
            dice_model=args.dice_model,
            games=[args.game] if args.game else None,
        )
    except PerceptionError as error:
        sys.stderr.write(f"table-companion detect: {error}\n")
        return 2
    processed = 0
    for path in args.images:
        line: dict[str, Any]
        width: int | None = None
        height: int | None = None
        try:
            image = read_image(path)
            height, width = (int(v) for v in image.shape[:2])
            detections = perception.process(image)
            line = detections.to_json(path, width, height)
            processed += 1
        except ValueError as error:  # includes PerceptionError (bad frames)
            line = {
                "image": path,
                "width": width,
                "height": height,
                "objects": [],
                "error": str(error),
            }
        if args.json:
            sys.stdout.write(json.dumps(line) + "\n")
        else:
            sys.stdout.write(_summary(line) + "\n")
        sys.stdout.flush()
    if processed == 0:
        sys.stderr.write("table-companion detect: no image could be processed\n")
        return 2
    return 0
