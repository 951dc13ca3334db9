"""Stage 6: each table's nationality read from its flag (`guess_nationalities`).

Flags are compared with a small table of simplified flags (`FLAGS`, read from
``layout_trace_flags.json`` beside this package) by colour names and colour distance; when no
orientation was given, the board is turned so that the flags read best; a close or poor match is
marked unsure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.layout_trace._common import Point, _flag_crop, _lab
from vision.layout_trace.config import TraceConfig

# the data file stays in `vision/`, beside this package
_FLAGS_FILE = Path(__file__).parent.with_name("layout_trace_flags.json")
FLAGS: dict[str, list[list[Any]]] = json.loads(_FLAGS_FILE.read_text(encoding="utf-8"))["flags"]
_FLAG_SIZE = (24, 16)  # (width, height) at which flags are compared
_DRAW_SCALE = 6  # templates are drawn this many times larger, then reduced


@dataclass(frozen=True)
class TracedTable:
    """A table found on the rectified board (pixels of the top-down view)."""

    center_px: Point
    radius_px: float
    nationality: str
    distance: float  # how far the flag seen is from the flag chosen (see `TraceConfig`)
    runner_up: str
    runner_up_distance: float
    sure: bool


def _hex_bgr(colour: str) -> tuple[int, int, int]:
    value = int(colour.lstrip("#"), 16)
    return (value & 255, (value >> 8) & 255, value >> 16)


def _star_points(cx: float, cy: float, r: float, aspect: float) -> np.ndarray:
    angles = -math.pi / 2 + np.arange(10) * math.pi / 5
    radii = np.where(np.arange(10) % 2 == 0, r, 0.4 * r)
    return np.stack([cx + radii * np.cos(angles) / aspect, cy + radii * np.sin(angles)], axis=1)


def _draw_flag(shapes: Sequence[Sequence[Any]]) -> np.ndarray:
    """A flag template (BGR uint8 at `_FLAG_SIZE`) drawn from its shape list."""
    w, h = _FLAG_SIZE[0] * _DRAW_SCALE, _FLAG_SIZE[1] * _DRAW_SCALE
    aspect = w / h
    image = np.zeros((h, w, 3), np.uint8)

    def px(points: np.ndarray) -> np.ndarray:
        return np.round(np.asarray(points, float) * [w, h]).astype(np.int32)

    for shape in shapes:
        kind, colour = shape[0], _hex_bgr(shape[-1])
        if kind == "rect":
            x0, y0, x1, y1 = shape[1:5]
            cv2.fillPoly(image, [px(np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))], colour)
        elif kind == "poly":
            cv2.fillPoly(image, [px(np.array(shape[1]))], colour)
        elif kind == "circle":
            cx, cy, r = shape[1:4]
            cv2.circle(image, (round(cx * w), round(cy * h)), round(r * h), colour, -1)
        elif kind == "star":
            cx, cy, r = shape[1:4]
            cv2.fillPoly(image, [px(_star_points(cx, cy, r, aspect))], colour)
        else:  # pragma: no cover - the table above is ours
            raise AssertionError(f"unknown flag shape {kind!r}")
    return cv2.resize(image, _FLAG_SIZE, interpolation=cv2.INTER_AREA)


@cache
def _flag_templates() -> tuple[tuple[str, ...], np.ndarray]:
    """Nationalities and their templates in Lab, shape (12, h, w, 3)."""
    names = tuple(sorted(FLAGS))
    return names, np.stack([_lab(_draw_flag(FLAGS[n])) for n in names])


# colour names a flag pixel is read as (the mismatch of names is what the flags are told apart by)
_COLOUR_NAMES: dict[str, str] = {
    "red": "#D52B1E",
    "white": "#FFFFFF",
    "blue": "#0039A6",
    "navy": "#012169",
    "green": "#009246",
    "yellow": "#FFCE00",
    "orange": "#FF9933",
    "black": "#111111",
}


@cache
def _name_prototypes() -> np.ndarray:
    bgr = np.array([[_hex_bgr(c) for c in _COLOUR_NAMES.values()]], np.uint8)
    return _lab(bgr)[0]


def _colour_names(lab: np.ndarray) -> np.ndarray:
    """The index of the nearest colour name of each Lab pixel."""
    d = np.linalg.norm(lab[..., None, :] - _name_prototypes(), axis=-1)
    return np.argmin(d, axis=-1)


@cache
def _template_names() -> np.ndarray:
    _, templates = _flag_templates()
    return _colour_names(templates)


def _flag_distances(crop: np.ndarray) -> np.ndarray:
    """(4, 12) distance of `crop` turned by k × 90° (k = 0..3) to each flag template: the
    percentage of pixels read as another colour name plus a fifth of the mean ΔE."""
    _, templates = _flag_templates()
    names = _template_names()
    rows = []
    for k in range(4):
        turned = np.rot90(crop, k)
        small = cv2.resize(np.ascontiguousarray(turned), _FLAG_SIZE, interpolation=cv2.INTER_AREA)
        lab = _lab(small)
        delta = np.linalg.norm(templates - lab[None], axis=3).mean(axis=(1, 2))
        mismatch = (names != _colour_names(lab)[None]).mean(axis=(1, 2))
        rows.append(100.0 * mismatch + 0.2 * delta)
    return np.array(rows)


def _white_balance(view: np.ndarray) -> np.ndarray:
    """Scale each channel so the board's bright whites come out white."""
    bright = np.percentile(view.reshape(-1, 3), 99.5, axis=0).astype(np.float32)
    gain = 245.0 / np.maximum(bright, 40.0)
    return np.clip(view.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def guess_nationalities(
    view: np.ndarray,
    tables: np.ndarray,
    config: TraceConfig | None = None,
    *,
    turns: Sequence[int] = (0, 1, 2, 3),
) -> tuple[list[TracedTable], int]:
    """Each table's nationality guessed from its flag, and the board turn that reads best.

    Args:
        view: the top-down board, BGR uint8.
        tables: (n, 3) table circles in view pixels.
        turns: the quarter turns (counter-clockwise, as `np.rot90`) of the board to consider;
            ``(0,)`` keeps the board as it is.

    Returns:
        The tables (in the order given, positions unchanged) and the chosen turn k: the flags
        read best on ``np.rot90(view, k)``.
    """
    config = config or TraceConfig()
    names, _ = _flag_templates()
    balanced = _white_balance(view)
    distances: list[np.ndarray | None] = []
    for x, y, r in tables:
        crop = _flag_crop(balanced, x, y, r)
        distances.append(None if crop is None else _flag_distances(crop))
    seen = [d for d in distances if d is not None]
    turn = turns[0]
    if seen and len(turns) > 1:
        totals = [sum(float(d[k].min()) for d in seen) for k in turns]
        turn = turns[int(np.argmin(totals))]
    traced: list[TracedTable] = []
    for (x, y, r), d in zip(tables, distances, strict=True):
        if d is None:
            traced.append(TracedTable((x, y), r, names[0], math.inf, names[1], math.inf, False))
            continue
        row = d[turn]
        first, second = np.argsort(row)[:2]
        sure = bool(
            row[first] <= config.unsure_distance
            and row[second] - row[first] >= config.unsure_margin
        )
        traced.append(
            TracedTable(
                (float(x), float(y)),
                float(r),
                names[first],
                float(row[first]),
                names[second],
                float(row[second]),
                sure,
            )
        )
    return traced, turn
