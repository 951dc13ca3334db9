"""Stages 1–2: the board's four corners in the photo (`find_board`) and its top-down view
(`rectify`), the board's true aspect ratio recovered from the perspective of its outline."""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.geometry import order_corners_clockwise
from vision.layout_trace._common import _check_frame, _lab
from vision.layout_trace.config import TraceConfig, TraceError


def find_board(photo: np.ndarray, config: TraceConfig | None = None) -> np.ndarray:
    """The board's four corners in `photo` (BGR uint8, (H, W, 3)), clockwise from the top left.

    The board is the largest convex quadrilateral outline covering at least
    ``min_board_fraction`` of the photo and not running off it; failing that, the region around
    the photo's centre in the centre's colour, as a quadrilateral.

    Raises:
        TraceError: no such outline.
    """
    config = config or TraceConfig()
    _check_frame(photo)
    scale = min(1.0, config.detect_px / max(photo.shape[:2]))
    small = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    smooth = cv2.GaussianBlur(small, (5, 5), 0)
    min_area = config.min_board_fraction * small.shape[0] * small.shape[1]
    best: np.ndarray | None = None
    best_area = 0.0
    reserve: np.ndarray | None = None
    reserve_area = 0.0
    for low, high in ((30, 90), (60, 180)):
        # edges in any colour channel: a board may differ from the table in hue more than in grey
        edges = np.max([cv2.Canny(smooth[..., c], low, high) for c in range(3)], axis=0)
        edges = cv2.dilate(edges, np.ones((3, 3), np.uint8))
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            area = cv2.contourArea(contour)
            if area < max(min_area, best_area):
                continue
            hull = cv2.convexHull(contour)
            perimeter = cv2.arcLength(hull, True)
            for eps in (0.01, 0.02, 0.04):
                quad = cv2.approxPolyDP(hull, eps * perimeter, True)
                if len(quad) == 4:
                    break
            if len(quad) != 4 or not cv2.isContourConvex(quad):
                continue
            quad_area = cv2.contourArea(quad)
            if quad_area <= 0 or area / quad_area < 0.85:  # the outline must fill its quad
                continue
            # a board in view does not run off the photo much: a quad with two corners on its
            # border is (a patch of) the table; one with one corner there is kept in reserve
            corners = quad.reshape(4, 2)
            on_border = _corners_on_border(corners, small.shape)
            if on_border >= 2:
                continue
            if on_border == 1:
                if area > reserve_area:
                    reserve, reserve_area = corners.astype(np.float64), area
                continue
            best, best_area = corners.astype(np.float64), area
    if best is None:
        best = reserve
    if best is None:
        best = _board_by_colour(smooth, min_area)
        if best is not None and _corners_on_border(best, small.shape) >= 2:
            best = None
    if best is None:
        raise TraceError(
            "no board found: no four-sided outline covers "
            f"{config.min_board_fraction:.0%} of the photo (give its corners with --corners)"
        )
    return order_corners_clockwise(best / scale)


def _corners_on_border(corners: np.ndarray, shape: tuple[int, ...]) -> int:
    """How many of the (4, 2) corners lie on the border of an image of `shape`."""
    margin = 0.005 * max(shape[:2])
    return int(
        (
            (corners.min(axis=1) < margin)
            | (corners[:, 0] > shape[1] - 1 - margin)
            | (corners[:, 1] > shape[0] - 1 - margin)
        ).sum()
    )


def _board_by_colour(smooth: np.ndarray, min_area: float) -> np.ndarray | None:
    """The board as the region around the photo's centre in the centre's colour, its gaps (tables,
    chairs) filled, as a quadrilateral: for boards whose outline merges with a busy table."""
    h, w = smooth.shape[:2]
    lab = _lab(smooth)
    centre = lab[h * 2 // 5 : h * 3 // 5, w * 2 // 5 : w * 3 // 5].reshape(-1, 3)
    # the board's ground: the commonest colour near the centre (coarsely binned)
    bins = np.round(centre / [10.0, 8.0, 8.0]).astype(int)
    values, counts = np.unique(bins, axis=0, return_counts=True)
    ground = values[np.argmax(counts)] * [10.0, 8.0, 8.0]
    mask = (np.linalg.norm(lab - ground, axis=2) < 18).astype(np.uint8)
    size = 2 * (max(h, w) // 40) + 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((size, size), np.uint8))
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((size, size), np.uint8))
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    if count < 2:
        return None
    label = int(labels[h // 2, w // 2]) or 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    contours, _ = cv2.findContours(
        (labels == label).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    if not contours:
        return None
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    area = cv2.contourArea(hull)
    if area < min_area or area > 0.9 * h * w:
        return None
    perimeter = cv2.arcLength(hull, True)
    for eps in (0.01, 0.02, 0.04, 0.06):
        quad = cv2.approxPolyDP(hull, eps * perimeter, True)
        if len(quad) == 4 and cv2.isContourConvex(quad):
            if cv2.contourArea(quad) >= 0.85 * area:
                return quad.reshape(4, 2).astype(np.float64)
            return None
    return None


def _aspect_ratio(
    corners: np.ndarray, image_size: tuple[int, int], focal_guess: float = 1.0
) -> float:
    """Width / height of the rectangle seen through `corners` (clockwise from the top left).

    A pinhole camera with its principal point at the image centre and square pixels: the focal
    length follows from the board's sides being at right angles, unless the photo shows a pair
    of sides (nearly) parallel, which leaves it undetermined; then `focal_guess` × the photo's
    long side, a typical phone camera, is assumed.
    """
    long_side = float(max(image_size))
    centre = np.array([image_size[0] / 2, image_size[1] / 2])
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    h = cv2.getPerspectiveTransform(unit, (corners - centre).astype(np.float32))
    h = h / np.linalg.norm(h[:2, :2])
    h1, h2 = h[:, 0], h[:, 1]
    f2 = (focal_guess * long_side) ** 2
    product = h1[2] * h2[2]
    if abs(product) * long_side**2 > 1e-3:  # both vanishing points within reach
        estimate = -(h1[0] * h2[0] + h1[1] * h2[1]) / product
        if (0.5 * long_side) ** 2 <= estimate <= (3.0 * long_side) ** 2:
            f2 = estimate
    n1 = math.sqrt((h1[0] ** 2 + h1[1] ** 2) / f2 + h1[2] ** 2)
    n2 = math.sqrt((h2[0] ** 2 + h2[1] ** 2) / f2 + h2[2] ** 2)
    return n1 / n2


def rectify(
    photo: np.ndarray, corners_px: np.ndarray, config: TraceConfig | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The top-down view of the board (BGR uint8) and the 3×3 photo → view homography.

    Raises:
        TraceError: the corners do not form a convex quadrilateral.
    """
    config = config or TraceConfig()
    corners = np.asarray(corners_px, np.float64).reshape(4, 2)
    if not cv2.isContourConvex(corners.astype(np.float32).reshape(-1, 1, 2)) or (
        cv2.contourArea(corners.astype(np.float32)) < 100
    ):
        raise TraceError(f"board corners do not form a convex quadrilateral: {corners.tolist()}")
    aspect = _aspect_ratio(corners, (photo.shape[1], photo.shape[0]))
    if aspect >= 1:
        width, height = config.work_px, max(round(config.work_px / aspect), 32)
    else:
        width, height = max(round(config.work_px * aspect), 32), config.work_px
    target = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    homography = cv2.getPerspectiveTransform(corners.astype(np.float32), target)
    view = cv2.warpPerspective(
        photo, homography, (width, height), flags=cv2.INTER_AREA, borderMode=cv2.BORDER_REPLICATE
    )
    return view, homography
