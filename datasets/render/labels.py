"""Labels as files: YOLO text lines for targets and the per-image truth record.

Classes (fixed; `classes.txt` lists them in this order): ``0 card``, ``1 tile``, ``2 die``. A YOLO
line is ``class cx cy w h`` of the object's *visible* box, normalised by the image size. Objects
that are not targets (hidden beyond the visibility rules, too small, boards) are in the truth
record only.

Truth record (one JSON line per image in ``truth.jsonl``): ``image``, ``width``, ``height``,
``seed``, ``index``, ``split``, ``game``, ``params`` (camera, table, light, effects: every random
value), ``visibility`` (the rules), ``objects`` (kind, identity, face_up, corners TL TR BR BL in
pixels, visible ``box`` and amodal ``box_full`` as x1 y1 x2 y2, ``value``/``colour`` for dice,
``visible_fraction``, ``top_visible_fraction`` for dice, ``target``, ``pose`` on the table) and
``distractors``.
"""

from __future__ import annotations

import json
from typing import Any

CLASSES: tuple[str, str, str] = ("card", "tile", "die")
CLASS_IDS: dict[str, int] = {name: i for i, name in enumerate(CLASSES)}


def yolo_lines(objects: list[dict[str, Any]], width: int, height: int) -> list[str]:
    """YOLO lines (``class cx cy w h``, normalised, 6 decimals) of the target objects."""
    lines = []
    for obj in objects:
        if not obj.get("target") or obj.get("box") is None or obj["kind"] not in CLASS_IDS:
            continue
        x1, y1, x2, y2 = obj["box"]
        x1, x2 = max(0.0, x1), min(float(width), x2)
        y1, y2 = max(0.0, y1), min(float(height), y2)
        cx, cy = (x1 + x2) / 2 / width, (y1 + y2) / 2 / height
        bw, bh = (x2 - x1) / width, (y2 - y1) / height
        lines.append(f"{CLASS_IDS[obj['kind']]} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
    return lines


def parse_yolo_line(line: str) -> tuple[int, float, float, float, float]:
    """Parse one YOLO line.

    Raises:
        ValueError: not five numbers with a known class.
    """
    parts = line.split()
    if len(parts) != 5:
        raise ValueError(f"bad yolo line {line!r}: expected 5 fields")
    cls = int(parts[0])
    if not 0 <= cls < len(CLASSES):
        raise ValueError(f"bad yolo class {cls} in line {line!r}")
    cx, cy, w, h = (float(p) for p in parts[1:])
    return cls, cx, cy, w, h


def yolo_to_box(
    line: tuple[int, float, float, float, float], width: int, height: int
) -> tuple[str, list[float]]:
    """(class name, [x1, y1, x2, y2] in pixels) of a parsed YOLO line."""
    cls, cx, cy, w, h = line
    return CLASSES[cls], [
        (cx - w / 2) * width,
        (cy - h / 2) * height,
        (cx + w / 2) * width,
        (cy + h / 2) * height,
    ]


def truth_line(truth: dict[str, Any]) -> str:
    """One compact JSON line of a truth record."""
    return json.dumps(truth, separators=(",", ":"), ensure_ascii=False)


def classes_text() -> str:
    """The content of ``classes.txt``."""
    return "\n".join(CLASSES) + "\n"
