"""Small helpers that two or more tracing stages need: frame checks, Lab colour, circle search,
same-size circle families and the flag printed on a table."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.layout_trace.config import TraceError

Point = tuple[float, float]
CANNY_HIGH = 100  # Canny's upper threshold inside the circle search (grey levels)


def _lab(image_bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image_bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)


def _check_frame(photo: np.ndarray) -> None:
    if not isinstance(photo, np.ndarray) or photo.dtype != np.uint8 or photo.ndim != 3:
        raise TraceError("photo must be a uint8 colour image")
    if photo.shape[2] != 3 or min(photo.shape[:2]) < 32:
        raise TraceError(f"photo too small or not bgr: shape {photo.shape}")


def _circles(gray: np.ndarray, r_min: float, r_max: float, perfectness: float) -> np.ndarray:
    """Circles (n, 3) of x, y, r found by ``HOUGH_GRADIENT_ALT``."""
    found = cv2.HoughCircles(
        gray,
        cv2.HOUGH_GRADIENT_ALT,
        dp=1.5,
        minDist=max(r_min, 4.0),
        param1=CANNY_HIGH,
        param2=perfectness,
        minRadius=max(int(r_min), 3),
        maxRadius=max(int(math.ceil(r_max)), 4),
    )
    return np.zeros((0, 3)) if found is None else found.reshape(-1, 3).astype(np.float64)


def _same_size_family(circles: np.ndarray, ratio: float) -> np.ndarray:
    """The circles of the family of one size that weighs most (count × radius³)."""
    best, best_weight = np.zeros(len(circles), bool), 0.0
    for r in circles[:, 2]:
        member = (circles[:, 2] >= r / ratio) & (circles[:, 2] <= r * ratio)
        weight = float(member.sum()) * r**3
        if weight > best_weight:
            best, best_weight = member, weight
    return best


def _flag_crop(view: np.ndarray, x: float, y: float, r: float) -> np.ndarray | None:
    """The flag printed on the table at (x, y, r): the box of what differs from the tablecloth."""
    h, w = view.shape[:2]
    x0, x1 = max(int(x - r), 0), min(int(x + r) + 1, w)
    y0, y1 = max(int(y - r), 0), min(int(y + r) + 1, h)
    patch = view[y0:y1, x0:x1]
    if patch.size == 0:
        return None
    yy, xx = np.mgrid[y0:y1, x0:x1]
    dist = np.hypot(xx - x, yy - y) / r
    lab = _lab(patch)
    cloth = np.median(lab[(dist > 0.8) & (dist < 0.92)], axis=0)
    differs = (np.linalg.norm(lab - cloth, axis=2) > 25) & (dist < 0.8)
    if differs.sum() < 0.05 * math.pi * r * r:
        return None
    # the flag is the patches around the centre (a white stripe may look like the cloth and split
    # it); chairs reaching over the rim are patches near the rim
    closed = cv2.morphologyEx(differs.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(closed, connectivity=8)
    central = [
        i
        for i in range(1, count)
        if math.hypot(centroids[i, 0] + x0 - x, centroids[i, 1] + y0 - y) < 0.5 * r
        and stats[i, cv2.CC_STAT_AREA] >= 0.01 * math.pi * r * r
    ]
    if sum(stats[i, cv2.CC_STAT_AREA] for i in central) < 0.05 * math.pi * r * r:
        return None
    ys, xs = np.nonzero(np.isin(labels, central))
    bx0, bx1 = np.percentile(xs, [1, 99]).astype(int)
    by0, by1 = np.percentile(ys, [1, 99]).astype(int)
    if bx1 - bx0 < 4 or by1 - by0 < 4:
        return None
    return patch[by0 : by1 + 1, bx0 : bx1 + 1]
