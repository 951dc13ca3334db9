"""Stage 4: chair-like shapes near the tables (`find_chairs`): small, nearly square closed
outlines, or patches darker or lighter than their surroundings in blurred photos."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.layout_trace.config import TraceConfig

CHAIR_CANNY = (40, 120)  # Canny's thresholds when looking for chair outlines (grey levels)
CHAIR_OPENING = 0.12  # links thinner than this many table radii between patches are cut
CHAIR_CONTRAST = 6  # grey levels a chair patch differs from its surroundings' mean


def find_chairs(
    view: np.ndarray, tables: np.ndarray, config: TraceConfig | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Chair-like shapes near tables: (n, 2) centres and (n,) sides, in view pixels.

    A chair is a closed, nearly square outline (area over bounding-rectangle area at least
    ``chair_squareness``) of a size relative to the tables, whose centre lies outside every table
    and within ``chair_reach`` table radii of one.
    """
    config = config or TraceConfig()
    if len(tables) == 0:
        return np.zeros((0, 2)), np.zeros(0)
    radius = float(np.median(tables[:, 2]))
    lo, hi = config.chair_size_range[0] * radius, config.chair_size_range[1] * radius
    found: list[tuple[float, float, float]] = []

    def collect(mask: np.ndarray, mode: int, grow: int) -> None:
        contours, _ = cv2.findContours(mask, mode, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < lo * lo * 0.6 or area > hi * hi:
                continue
            (cx, cy), (w, h), _ = cv2.minAreaRect(contour)
            if min(w, h) <= 0 or max(w, h) / min(w, h) > 1.35:
                continue
            if area / (w * h) < config.chair_squareness:
                continue
            side = math.sqrt(w * h) + 2 * grow
            if lo <= side <= hi:
                found.append((cx, cy, side))

    # outlines touching other drawings (a flag, a neighbour) break up differently under different
    # smoothing: collect from a few edge maps, duplicates are merged below; edges in any colour
    # channel, as a chair may differ from the board in hue only
    for blur, grow in ((5, 1), (3, 0), (1, 0), (3, 2)):
        smooth = cv2.GaussianBlur(view, (blur, blur), 0) if blur > 1 else view
        edges = np.max([cv2.Canny(smooth[..., c], *CHAIR_CANNY) for c in range(3)], axis=0)
        if grow:  # bridge small gaps in outlines; the hole inside shrinks by `grow` per side
            edges = cv2.dilate(edges, np.ones((2 * grow + 1, 2 * grow + 1), np.uint8))
        collect(edges, cv2.RETR_LIST, grow)
    # blurred photos: chairs as patches darker or lighter than what lies around them
    gray = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    block = 2 * int(1.5 * radius) + 1
    for polarity in (cv2.THRESH_BINARY_INV, cv2.THRESH_BINARY):
        patches = cv2.adaptiveThreshold(
            gray, 255, cv2.ADAPTIVE_THRESH_MEAN_C, polarity, block, CHAIR_CONTRAST
        )
        # cut thin links (a table's rim, a shadow) between a chair and its neighbours
        size = 2 * max(int(CHAIR_OPENING * radius / 2), 1) + 1
        opening = np.ones((size, size), np.uint8)
        patches = cv2.morphologyEx(patches, cv2.MORPH_OPEN, opening)
        collect(patches, cv2.RETR_EXTERNAL, 0)
    if not found:
        return np.zeros((0, 2)), np.zeros(0)
    shapes = np.array(found)
    # nested outlines of one chair (rim, inner panel): keep the largest
    order = np.argsort(-shapes[:, 2])
    kept: list[int] = []
    for i in order:
        x, y, s = shapes[i]
        if all(math.hypot(x - shapes[k, 0], y - shapes[k, 1]) > 0.4 * shapes[k, 2] for k in kept):
            kept.append(int(i))
    shapes = shapes[sorted(kept)]
    d = np.hypot(
        shapes[:, None, 0] - tables[None, :, 0], shapes[:, None, 1] - tables[None, :, 1]
    )  # (chairs, tables)
    outside = np.all(d > 0.9 * tables[None, :, 2], axis=1)
    near = d.min(axis=1) <= config.chair_reach * radius
    shapes = shapes[outside & near]
    return shapes[:, :2], shapes[:, 2]
