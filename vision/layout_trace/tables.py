"""Stage 3: the tables on the top-down board (`find_tables`): the weightiest family of circles of
one size with something printed inside, each circle refined on its edge; and how oval they look
(`_table_stretch`), which tells that the board's proportions were misjudged."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.layout_trace._common import _circles, _flag_crop, _lab, _same_size_family
from vision.layout_trace.config import TraceConfig

EDGE_MAGNITUDE = 30.0  # Sobel magnitude of an edge along a table's outline


def _circle_support(
    gx: np.ndarray, gy: np.ndarray, magnitude: np.ndarray, circles: np.ndarray
) -> np.ndarray:
    """For each circle (x, y, r), the fraction of its circumference where the image has a strong
    edge running along the circle."""
    angles = np.linspace(0, 2 * math.pi, 180, endpoint=False)
    cos, sin = np.cos(angles), np.sin(angles)
    h, w = magnitude.shape
    px = np.clip(np.round(circles[:, 0:1] + circles[:, 2:3] * cos), 0, w - 1).astype(int)
    py = np.clip(np.round(circles[:, 1:2] + circles[:, 2:3] * sin), 0, h - 1).astype(int)
    m = magnitude[py, px]
    radial = np.abs(gx[py, px] * cos + gy[py, px] * sin) / np.maximum(m, 1e-6)
    return ((m > EDGE_MAGNITUDE) & (radial > 0.85)).mean(axis=1)


def _refine_circles(gray: np.ndarray, circles: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each circle moved and resized a few pixels to lie best on its edge; and its support."""
    if len(circles) == 0:
        return circles.reshape(0, 3), np.zeros(0)
    g = gray.astype(np.float32)
    gx, gy = cv2.Sobel(g, cv2.CV_32F, 1, 0), cv2.Sobel(g, cv2.CV_32F, 0, 1)
    magnitude = np.hypot(gx, gy)
    refined = circles.astype(np.float64).copy()
    for step in (3.0, 1.0):
        offsets = np.array(
            [(dx, dy, dr) for dx in (-2, -1, 0, 1, 2) for dy in (-2, -1, 0, 1, 2) for dr in
             (-2, -1, 0, 1, 2)],
            np.float64,
        ) * step  # fmt: skip
        trials = (refined[:, None, :] + offsets[None]).reshape(-1, 3)
        support = _circle_support(gx, gy, magnitude, trials).reshape(len(refined), -1)
        # ties go to the offset nearest the current circle (offsets[62] is no move)
        support[:, len(offsets) // 2] += 1e-9
        refined = refined + offsets[np.argmax(support, axis=1)]
    return refined, _circle_support(gx, gy, magnitude, refined)


def _table_stretch(view: np.ndarray, tables: np.ndarray) -> float:
    """How much taller than wide the tables look (ellipse height / width; 1 when round)."""
    if len(tables) == 0:
        return 1.0
    gray = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), (5, 5), 0).astype(np.float32)
    gx, gy = cv2.Sobel(gray, cv2.CV_32F, 1, 0), cv2.Sobel(gray, cv2.CV_32F, 0, 1)
    magnitude = np.hypot(gx, gy)
    h, w = gray.shape
    angles = np.linspace(0, 2 * math.pi, 120, endpoint=False)
    cos, sin = np.cos(angles), np.sin(angles)

    def support_of(k: float) -> float:
        best_per_table = np.zeros(len(tables))
        for size in np.linspace(0.85, 1.15, 13):
            a = tables[:, 2:3] * size / math.sqrt(k)
            b = a * k
            px = np.clip(np.round(tables[:, 0:1] + a * cos), 0, w - 1).astype(int)
            py = np.clip(np.round(tables[:, 1:2] + b * sin), 0, h - 1).astype(int)
            nx, ny = cos / a, sin / b
            norm = np.hypot(nx, ny)
            m = magnitude[py, px]
            along = np.abs(gx[py, px] * nx + gy[py, px] * ny) / np.maximum(m * norm, 1e-6)
            support = ((m > EDGE_MAGNITUDE) & (along > 0.85)).mean(axis=1)
            best_per_table = np.maximum(best_per_table, support)
        return float(best_per_table.sum())

    def best_of(trials: np.ndarray) -> float:
        # round tables win ties: no stretch unless it helps
        scores = [support_of(float(k)) + (1e-9 if abs(k - 1.0) < 1e-6 else 0.0) for k in trials]
        return float(trials[int(np.argmax(scores))])

    coarse = best_of(np.round(np.arange(0.75, 1.34, 0.05), 2))
    best = best_of(np.round(coarse + np.arange(-0.04, 0.041, 0.01), 2))
    return best


def find_tables(view: np.ndarray, config: TraceConfig | None = None) -> np.ndarray:
    """Tables on the top-down view (BGR uint8): (n, 3) centres and radii in view pixels.

    Tables are the weightiest family of same-sized circles (smaller circles, such as the bar's
    stools, weigh less). Tables do not overlap: of two overlapping circles (a "circle" seen in the
    gap between four tables, say) the one with the better outline stays, and a table has something
    printed inside its rim (its flag).
    """
    config = config or TraceConfig()
    gray = cv2.GaussianBlur(cv2.cvtColor(view, cv2.COLOR_BGR2GRAY), (5, 5), 0)
    long_side = max(view.shape[:2])
    lo, hi = config.table_radius_range
    circles = _circles(gray, lo * long_side, hi * long_side, config.circle_perfectness)
    if len(circles) == 0:
        return circles
    circles, support = _refine_circles(gray, circles)
    keep = support >= config.min_outline
    circles, support = circles[keep], support[keep]
    if len(circles) == 0:
        return circles
    family = _same_size_family(circles, config.same_size)
    circles, support = circles[family], support[family]
    # a table is a plain cloth with its flag printed on it: circles with nothing inside are gaps
    # between tables, circles without a plain rim are other drawings
    printed = np.array(
        [
            _flag_crop(view, x, y, r) is not None
            and _rim_plainness(view, x, y, r) >= config.min_plain_rim
            for x, y, r in circles
        ],
        bool,
    )
    circles, support = circles[printed], support[printed]
    if len(circles) == 0:
        return circles
    # tables are drawn alike: an outline much fainter than the others' is something else
    alike = support >= config.outline_vs_others * float(np.median(support))
    circles, support = circles[alike], support[alike]
    kept: list[int] = []
    for i in np.argsort(-support, kind="stable"):
        x, y, r = circles[i]
        if all(
            math.hypot(x - circles[k, 0], y - circles[k, 1]) >= 0.9 * (r + circles[k, 2])
            for k in kept
        ):
            kept.append(int(i))
    return circles[sorted(kept)]


def _rim_plainness(view: np.ndarray, x: float, y: float, r: float) -> float:
    """The fraction of the band just inside a table's rim that has the band's median colour."""
    h, w = view.shape[:2]
    x0, x1 = max(int(x - r), 0), min(int(x + r) + 1, w)
    y0, y1 = max(int(y - r), 0), min(int(y + r) + 1, h)
    yy, xx = np.mgrid[y0:y1, x0:x1]
    dist = np.hypot(xx - x, yy - y) / r
    band = _lab(view[y0:y1, x0:x1])[(dist > 0.8) & (dist < 0.92)]
    if len(band) == 0:
        return 0.0
    return float((np.linalg.norm(band - np.median(band, axis=0), axis=1) < 12).mean())
