"""Stage 7: the bar's stools (`find_stools`): circles smaller than the tables, off every table
and chair, numbered clockwise."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.layout_trace._common import Point, _circles, _same_size_family
from vision.layout_trace.config import TraceConfig


def _drop_overlapping(circles: np.ndarray) -> np.ndarray:
    """Keep the larger of two circles whose centres lie within the smaller one's radius."""
    order = np.argsort(-circles[:, 2])
    kept: list[int] = []
    for i in order:
        x, y, r = circles[i]
        if all(math.hypot(x - circles[k, 0], y - circles[k, 1]) > 0.9 * r for k in kept):
            kept.append(int(i))
    return circles[sorted(kept)]


def find_stools(
    view: np.ndarray,
    tables: np.ndarray,
    chairs: np.ndarray,
    config: TraceConfig | None = None,
) -> list[Point]:
    """The bar's stools: circles smaller than the tables, off every table and chair, numbered
    clockwise (on the view) from the top-most, left-most one."""
    config = config or TraceConfig()
    if len(tables) == 0:
        return []
    radius = float(np.median(tables[:, 2]))
    gray = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    lo, hi = config.stool_radius_range
    circles = _circles(gray, lo * radius, hi * radius, config.circle_perfectness)
    if len(circles) == 0:
        return []
    d_tables = np.hypot(
        circles[:, None, 0] - tables[None, :, 0], circles[:, None, 1] - tables[None, :, 1]
    )
    keep = np.all(d_tables > tables[None, :, 2] + 0.5 * circles[:, None, 2], axis=1)
    if len(chairs):
        d_chairs = np.hypot(
            circles[:, None, 0] - chairs[None, :, 0], circles[:, None, 1] - chairs[None, :, 1]
        )
        keep &= np.all(d_chairs > 0.6 * radius, axis=1)
    circles = _drop_overlapping(circles[keep])  # one circle per stool: its outer rim
    if len(circles) == 0:
        return []
    # a stool whose outer rim was missed shows an inner ring: a looser family than the tables'
    circles = circles[_same_size_family(circles, config.same_size**2)]
    centre = circles[:, :2].mean(axis=0)
    angles = np.arctan2(circles[:, 1] - centre[1], circles[:, 0] - centre[0])
    top = circles[:, 1].min()
    first_row = np.nonzero(circles[:, 1] <= top + 0.5 * np.median(circles[:, 2]))[0]
    start = first_row[np.argmin(circles[first_row, 0])]
    order = np.argsort((angles - angles[start]) % (2 * math.pi))
    return [(float(circles[i, 0]), float(circles[i, 1])) for i in order]
