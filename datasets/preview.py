"""Contact sheet of a generated dataset with its labels drawn on the images.

Targets: a box in the class colour (card green, tile orange, die magenta), the 4 corners joined
with the top-left corner marked by a filled dot, and a die's value (and colour letter). Objects
recorded but not targets (too hidden, too small): a thin grey box.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

_COLOURS = {"card": (60, 220, 60), "tile": (0, 160, 255), "die": (255, 60, 255)}


def read_truth(dataset_dir: Path, count: int | None = None) -> list[dict[str, Any]]:
    """The first `count` truth records of a dataset folder (all when None).

    Raises:
        ValueError: the folder holds no ``truth.jsonl`` or a line is not JSON.
    """
    path = Path(dataset_dir) / "truth.jsonl"
    if not path.is_file():
        raise ValueError(f"no dataset in {str(dataset_dir)!r} (truth.jsonl missing)")
    records: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if count is not None and len(records) >= count:
                break
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                raise ValueError(f"malformed json in truth.jsonl line {number}") from None
    return records


def draw_labels(image: np.ndarray, record: dict[str, Any]) -> np.ndarray:
    """Return a copy of `image` with the record's objects drawn on it."""
    out = image.copy()
    scale = max(1, round(out.shape[1] / 640))
    for obj in record["objects"]:
        if obj["kind"] not in _COLOURS or obj.get("box") is None:
            continue
        x1, y1, x2, y2 = (int(round(v)) for v in obj["box"])
        if not obj["target"]:
            cv2.rectangle(out, (x1, y1), (x2, y2), (150, 150, 150), 1)
            continue
        colour = _COLOURS[obj["kind"]]
        cv2.rectangle(out, (x1, y1), (x2, y2), colour, scale)
        corners = np.round(np.array(obj["corners"])).astype(np.int32)
        cv2.polylines(out, [corners.reshape(-1, 1, 2)], True, (255, 255, 0), 1, cv2.LINE_AA)
        cv2.circle(out, (int(corners[0][0]), int(corners[0][1])), 2 + scale, (0, 0, 255), -1)
        if obj["kind"] == "die":
            text = f"{obj['value']}{obj['colour'] or ''}"
            cv2.putText(
                out,
                text,
                (x1, max(10, y1 - 3)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.45 * scale,
                (0, 0, 0),
                3,
                cv2.LINE_AA,
            )
            cv2.putText(
                out,
                text,
                (x1, max(10, y1 - 3)),
                cv2.FONT_HERSHEY_SIMPLEX,
                0.45 * scale,
                (255, 255, 255),
                1,
                cv2.LINE_AA,
            )
    return out


def contact_sheet(
    dataset_dirs: list[Path], out_path: Path, *, count: int = 32, cell_width: int = 400
) -> int:
    """Write a contact sheet of the first `count` images of each folder; return images drawn.

    Raises:
        ValueError: a folder holds no dataset, or `count` is not positive.
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, got {count}")
    cells = []
    for folder in dataset_dirs:
        for record in read_truth(folder, count):
            image = cv2.imread(str(Path(folder) / record["image"]), cv2.IMREAD_COLOR)
            if image is None:
                raise ValueError(f"cannot read image {record['image']!r} in {str(folder)!r}")
            drawn = draw_labels(image, record)
            h = round(drawn.shape[0] * cell_width / drawn.shape[1])
            cell = cv2.resize(drawn, (cell_width, h), interpolation=cv2.INTER_AREA)
            label = f"{record.get('split', '')} #{record.get('index', '')}"
            cv2.putText(cell, label, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3)
            cv2.putText(cell, label, (4, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (255, 255, 255), 1)
            cells.append(cell)
    if not cells:
        raise ValueError("no images to draw")
    columns = min(len(cells), 4 if len(cells) <= 16 else 8)
    rows = math.ceil(len(cells) / columns)
    cell_h = max(c.shape[0] for c in cells)
    sheet = np.full((rows * (cell_h + 2), columns * (cell_width + 2), 3), 255, np.uint8)
    for i, cell in enumerate(cells):
        r, c = divmod(i, columns)
        y, x = r * (cell_h + 2), c * (cell_width + 2)
        sheet[y : y + cell.shape[0], x : x + cell.shape[1]] = cell
    out_path = Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(out_path), sheet):
        raise ValueError(f"cannot write {str(out_path)!r}")
    return len(cells)
