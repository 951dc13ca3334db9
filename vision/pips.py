"""A plain pip counter (blob detection), used as a cross-check of the learned die reader.

It looks for pips on a die crop: pixels far in colour from the die's body (estimated as the median
colour near the crop's centre), grouped into connected blobs; keeps round blobs of a plausible pip
size; and, because side faces show foreshortened (smaller, flatter) pips, keeps only the blobs
close in size to the largest. It answers a count with a confidence, or 0 when unsure. The pipeline
uses it only to **veto**: when it is sure and disagrees with the reader, the die's score drops.

Public names: `PipCounterConfig`, `PipCount`, `count_pips`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class PipCounterConfig:
    """Pip counter settings (fractions are of the die crop's side unless stated).

    Attributes:
        min_pip: smallest pip diameter.
        max_pip: largest pip diameter.
        min_fill: a blob must fill at least this fraction of its bounding box (round-ish).
        max_aspect: longest over shortest bounding-box side of a pip.
        same_size: a top-face pip's area is at least this fraction of the largest pip's area.
        min_contrast: least colour distance (Lab units) between pips and the body.
        sure_spread: the areas of the kept pips may vary by at most this factor to be "sure".
    """

    min_pip: float = 0.05
    max_pip: float = 0.3
    min_fill: float = 0.45
    max_aspect: float = 2.2
    same_size: float = 0.45
    min_contrast: float = 25.0
    sure_spread: float = 2.2


@dataclass(frozen=True)
class PipCount:
    """A pip count: `count` 1–6 (0: unsure) and a confidence in [0, 1]."""

    count: int
    confidence: float


def count_pips(crop: np.ndarray, config: PipCounterConfig | None = None) -> PipCount:
    """Count the top face's pips on a die crop (uint8 BGR (S, S, 3), the die roughly centred).

    Never modifies `crop`. Returns ``PipCount(0, 0.0)`` when it cannot tell.
    """
    cfg = config or PipCounterConfig()
    if crop.ndim != 3 or crop.shape[2] != 3 or min(crop.shape[:2]) < 12:
        return PipCount(0, 0.0)
    side = float(min(crop.shape[:2]))
    lab = cv2.cvtColor(cv2.GaussianBlur(crop, (3, 3), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    h, w = lab.shape[:2]
    centre = lab[h // 3 : h - h // 3, w // 3 : w - w // 3].reshape(-1, 3)
    body = np.median(centre, axis=0)
    distance = np.linalg.norm(lab - body, axis=2)
    if float(distance.max()) < cfg.min_contrast:
        return PipCount(0, 0.0)
    level, _ = cv2.threshold(
        np.clip(distance, 0, 255).astype(np.uint8), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU
    )
    mask = (distance > max(level, cfg.min_contrast)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return PipCount(0, 0.0)
    stats = stats[1:]
    bw, bh, area = stats[:, 2].astype(float), stats[:, 3].astype(float), stats[:, 4].astype(float)
    x, y = stats[:, 0].astype(float), stats[:, 1].astype(float)
    diameter = np.maximum(bw, bh)
    ok = (diameter >= cfg.min_pip * side) & (diameter <= cfg.max_pip * side)
    ok &= area >= cfg.min_fill * bw * bh
    ok &= np.maximum(bw, bh) <= cfg.max_aspect * np.minimum(bw, bh)
    # blobs touching the crop border are context (neighbours, table), not pips
    ok &= (x > 0) & (y > 0) & (x + bw < w) & (y + bh < h)
    if not ok.any():
        return PipCount(0, 0.0)
    areas = area[ok]
    top = areas >= cfg.same_size * areas.max()
    n = int(top.sum())
    if not 1 <= n <= 6:
        return PipCount(0, 0.0)
    kept = areas[top]
    spread = float(kept.max() / max(kept.min(), 1.0))
    confidence = 1.0 if spread <= cfg.sure_spread else 0.5
    # pips of the top face cluster within about the face: far-flung blobs make it unsure
    cx = (x + bw / 2)[ok][top]
    cy = (y + bh / 2)[ok][top]
    if n > 1 and max(np.ptp(cx), np.ptp(cy)) > 0.75 * side:
        confidence = min(confidence, 0.3)
    return PipCount(n, confidence)


__all__ = ["PipCount", "PipCounterConfig", "count_pips"]
