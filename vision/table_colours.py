"""Does a box show the table? Its colours against the colours of the table around the pieces.

A detector that has seen many pieces laid in rows and grids sometimes boxes the empty place where
the next piece would lie (weakly, 0.15–0.5). Such a box holds only the table, so its colours
are the colours of the frame outside every box; a piece's face mostly has colours the table
does not. `table_colour_shares` measures, for chosen boxes, the share of the box's own pixels
(its inner part, less what other boxes cover) whose colour is one the table shows: Lab
quantised to 32 levels per channel on a frame shrunk to 400 px, a colour being the table's
when at least `TABLE_COLOUR_MIN_FRACTION` of the uncovered frame has it.

Plain numpy and OpenCV; no models.
"""

from __future__ import annotations

import cv2
import numpy as np

LEVELS = 32  # per Lab channel: 8-level steps (16-level steps made every colour a table's)
WORK_SIDE = 400  # the frame is shrunk to this longer side (colours, not detail, matter)
TABLE_COLOUR_MIN_FRACTION = 5e-4  # of the uncovered frame: rarer colours are noise or glare
BOX_GROW = 0.05  # boxes are grown by this much of their size before the table is sampled
BOX_SHRINK = 0.1  # a box's own pixels: its inner part, this much of its size in from each side
MIN_OWN_PART = 0.3  # a box mostly under others has too little of its own to judge (NaN)
MIN_TABLE_PART = 0.1  # a frame mostly covered by boxes shows too little table to judge (NaN)


def table_colour_shares(
    frame: np.ndarray, boxes_xyxy: np.ndarray, rows: np.ndarray | list[int]
) -> np.ndarray:
    """For each of `rows` of `boxes_xyxy` (all the frame's detections, dice included), the
    share in [0, 1] of the box's own pixels whose colour the table around the pieces shows;
    NaN where the box has too little of its own or the frame too little table to judge.

    Raises:
        ValueError: `frame` is not an (H, W, 3) uint8 image or `boxes_xyxy` not (n, 4).
    """
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"frame must be (H, W, 3) uint8, got {frame.shape} {frame.dtype}")
    boxes = np.asarray(boxes_xyxy, np.float64).reshape(-1, 4)
    rows = np.asarray(rows, np.int64).reshape(-1)
    shares = np.full(len(rows), np.nan)
    if len(rows) == 0:
        return shares
    h, w = frame.shape[:2]
    scale = min(1.0, WORK_SIDE / max(h, w))
    sw, sh = max(1, round(w * scale)), max(1, round(h * scale))
    small = cv2.resize(frame, (sw, sh), interpolation=cv2.INTER_AREA)
    lab = (cv2.cvtColor(small, cv2.COLOR_BGR2LAB) // (256 // LEVELS)).astype(np.int64)
    colour = (lab[..., 0] * LEVELS + lab[..., 1]) * LEVELS + lab[..., 2]
    b = boxes * scale
    covered = np.zeros((sh, sw), bool)
    for x1, y1, x2, y2 in b:
        gx, gy = BOX_GROW * (x2 - x1), BOX_GROW * (y2 - y1)
        covered[_span(y1 - gy, y2 + gy, sh), _span(x1 - gx, x2 + gx, sw)] = True
    table = colour[~covered]
    if table.size < MIN_TABLE_PART * colour.size:
        return shares
    counts = np.bincount(table, minlength=LEVELS**3)
    is_table = counts >= TABLE_COLOUR_MIN_FRACTION * table.size
    for k, row in enumerate(rows):
        x1, y1, x2, y2 = b[row]
        sx, sy = BOX_SHRINK * (x2 - x1), BOX_SHRINK * (y2 - y1)
        own = np.zeros((sh, sw), bool)
        own[_span(y1 + sy, y2 - sy, sh), _span(x1 + sx, x2 - sx, sw)] = True
        inner = int(own.sum())
        for j, (a1, c1, a2, c2) in enumerate(b):
            if j != row:
                own[_span(c1, c2, sh), _span(a1, a2, sw)] = False
        if inner == 0 or own.sum() < MIN_OWN_PART * inner:
            continue
        shares[k] = float(is_table[colour[own]].mean())
    return shares


def _span(start: float, stop: float, size: int) -> slice:
    """Pixel rows (or columns) from `start` to `stop`, clipped to [0, size)."""
    return slice(min(size, max(0, int(start))), min(size, max(0, int(stop) + 1)))
