"""Trace a Café International board layout from a photo: a helper for describing one's own board.

The pipeline reads as its diagram:

1. **board** — the four corners of the board: given by the user, or the largest convex
   quadrilateral outline in the photo (`find_board`);
2. **rectify** — a top-down view of the board; the board's true aspect ratio is recovered from
   the perspective of its outline (`rectify`);
3. **tables** — the weightiest family of circles of one size with something printed inside
   (`find_tables`, Hough transform, each circle refined on its edge); tables that look oval
   mean the board's proportions were misjudged: the view is stretched until they are round;
4. **chairs** — small square shapes that touch a table (`find_chairs`, closed outlines);
5. **touch** — each chair belongs to the 1 or 2 tables its outline reaches (`assign_chairs`);
6. **flags** — each table's flag compared with a small table of simplified flags (`FLAGS`, read
   from ``layout_trace_flags.json`` beside this module); when no orientation was given, the
   board is turned so that the flags read best; a close or poor match is marked unsure;
7. **bar** — circles smaller than the tables, off the tables: the bar's stools when there are 20;
8. **layout** — the design's layout JSON with the default bar values, validated by the engine's
   loader; every problem and every unsure guess is listed for the user to check.

It is a helper, not an oracle: the result is meant to be drawn (``layout show``), compared with
the board and edited. Frames are ``uint8`` BGR arrays of shape (H, W, 3).

Public names: `TraceConfig`, `TraceError`, `TracedTable`, `TracedChair`, `Trace`, `FLAGS`,
`find_board`, `rectify`, `find_tables`, `find_chairs`, `assign_chairs`, `guess_nationalities`,
`find_stools`, `trace_layout`, `compare_layouts`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engines.cafe_international.layout import (
    STOOLS,
    layout_from_json,
    layout_to_json,
    reference_layout,
)
from engines.errors import MalformedError
from vision.geometry import order_corners_clockwise

Point = tuple[float, float]
CANNY_HIGH = 100  # Canny's upper threshold inside the circle search (grey levels)
EDGE_MAGNITUDE = 30.0  # Sobel magnitude of an edge along a table's outline
CHAIR_CANNY = (40, 120)  # Canny's thresholds when looking for chair outlines (grey levels)
CHAIR_OPENING = 0.12  # links thinner than this many table radii between patches are cut
CHAIR_CONTRAST = 6  # grey levels a chair patch differs from its surroundings' mean


class TraceError(ValueError):
    """No board layout can be traced from the photo (no board outline, no tables, bad corners)."""


@dataclass(frozen=True)
class TraceConfig:
    """Thresholds of the tracing stages (defaults tuned on synthetic photos of the companion board
    and of hand-drawn boards; see ``tests/vision/test_layout_trace.py``).

    Attributes:
        detect_px: long side of the photo when searching for the board's outline.
        min_board_fraction: smallest board outline, as a fraction of the photo's area.
        work_px: long side of the rectified top-down board.
        table_radius_range: smallest and largest table radius, as fractions of the long side.
        circle_perfectness: Hough (``HOUGH_GRADIENT_ALT``) circle perfectness, 0–1.
        min_outline: smallest fraction of a table's circumference seen as an edge.
        outline_vs_others: smallest outline fraction of a table relative to the tables' median.
        min_plain_rim: smallest fraction of the band inside a table's rim in the cloth's colour.
        same_size: circles within this radius ratio are one family.
        chair_size_range: chair side, as multiples of the table radius.
        chair_squareness: smallest area / bounding-rectangle area of a chair outline (a circle
            has 0.785).
        chair_reach: a chair's centre lies within this many table radii of a table centre.
        touch_gap: a chair touches a table when the gap between them is at most this many chair
            sides.
        stool_radius_range: bar stool radius, as multiples of the table radius.
        unsure_margin: a flag guess is unsure when the runner-up's distance is within this of
            the best one's (distances: % of pixels of another colour name + mean ΔE / 5).
        unsure_distance: a flag guess is unsure when its distance exceeds this.
    """

    detect_px: int = 1000
    min_board_fraction: float = 0.15
    work_px: int = 1400
    table_radius_range: tuple[float, float] = (0.02, 0.14)
    circle_perfectness: float = 0.8
    min_outline: float = 0.4
    min_plain_rim: float = 0.55
    outline_vs_others: float = 0.6
    same_size: float = 1.2
    chair_size_range: tuple[float, float] = (0.3, 1.3)
    chair_squareness: float = 0.86
    chair_reach: float = 2.5
    touch_gap: float = 0.2
    stool_radius_range: tuple[float, float] = (0.15, 0.65)
    unsure_margin: float = 8.0
    unsure_distance: float = 70.0


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


@dataclass(frozen=True)
class TracedChair:
    """A chair found on the rectified board and the indexes of the tables it touches."""

    center_px: Point
    side_px: float
    tables: tuple[int, ...]


@dataclass(frozen=True)
class Trace:
    """What tracing found, and the layout JSON built from it.

    Attributes:
        corners_px: (4, 2) board corners in the photo, clockwise from the board's top left.
        corners_given: whether the user gave the corners.
        size_px: (width, height) of the rectified board.
        units_per_px: board units per rectified pixel (the board's long side is 1000 units).
        tables, chairs: what was found (chairs touching no table are left out).
        stools: bar stool centres (rectified pixels), numbered clockwise from the top-left one.
        loose_chairs: how many chair-like shapes touched no table.
        layout: the layout JSON object (design contract), with the default bar values.
        problems: what the engine's loader and the tracer's own checks report.
        unsure: guesses the user should confirm.
    """

    corners_px: np.ndarray
    corners_given: bool
    size_px: tuple[int, int]
    units_per_px: float
    tables: tuple[TracedTable, ...]
    chairs: tuple[TracedChair, ...]
    stools: tuple[Point, ...]
    loose_chairs: int
    layout: dict[str, Any]
    problems: tuple[str, ...] = field(default=())
    unsure: tuple[str, ...] = field(default=())

    @property
    def is_valid(self) -> bool:
        """Whether the engine's loader accepts the traced layout as it is."""
        return not self.problems


# --- flags: simplified flags as data ------------------------------------------------------------
_FLAGS_FILE = Path(__file__).with_name("layout_trace_flags.json")
FLAGS: dict[str, list[list[Any]]] = json.loads(_FLAGS_FILE.read_text(encoding="utf-8"))["flags"]
_FLAG_SIZE = (24, 16)  # (width, height) at which flags are compared
_DRAW_SCALE = 6  # templates are drawn this many times larger, then reduced


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


def _lab(image_bgr: np.ndarray) -> np.ndarray:
    return cv2.cvtColor(image_bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2Lab)


@cache
def _flag_templates() -> tuple[tuple[str, ...], np.ndarray]:
    """Nationalities and their templates in Lab, shape (12, h, w, 3)."""
    names = tuple(sorted(FLAGS))
    return names, np.stack([_lab(_draw_flag(FLAGS[n])) for n in names])


# --- 1. board -------------------------------------------------------------------------------------
def _check_frame(photo: np.ndarray) -> None:
    if not isinstance(photo, np.ndarray) or photo.dtype != np.uint8 or photo.ndim != 3:
        raise TraceError("photo must be a uint8 colour image")
    if photo.shape[2] != 3 or min(photo.shape[:2]) < 32:
        raise TraceError(f"photo too small or not bgr: shape {photo.shape}")


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


# --- 2. rectify -----------------------------------------------------------------------------------
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


# --- 3. tables ------------------------------------------------------------------------------------
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


def _drop_overlapping(circles: np.ndarray) -> np.ndarray:
    """Keep the larger of two circles whose centres lie within the smaller one's radius."""
    order = np.argsort(-circles[:, 2])
    kept: list[int] = []
    for i in order:
        x, y, r = circles[i]
        if all(math.hypot(x - circles[k, 0], y - circles[k, 1]) > 0.9 * r for k in kept):
            kept.append(int(i))
    return circles[sorted(kept)]


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


# --- 4. chairs ------------------------------------------------------------------------------------
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


# --- 5. touch -------------------------------------------------------------------------------------
def assign_chairs(
    chairs: np.ndarray, sides: np.ndarray, tables: np.ndarray, config: TraceConfig | None = None
) -> list[tuple[int, ...]]:
    """For each chair, the indexes of the 1 or 2 nearest tables it touches (possibly none).

    The gap between a chair and a table is the distance between their centres less the table's
    radius and half the chair's side; the chair touches the table when the gap is at most
    ``touch_gap`` chair sides.
    """
    config = config or TraceConfig()
    result: list[tuple[int, ...]] = []
    for (x, y), side in zip(chairs, sides, strict=True):
        d = np.hypot(tables[:, 0] - x, tables[:, 1] - y)
        gap = d - tables[:, 2] - side / 2
        touching = [int(i) for i in np.argsort(gap) if gap[i] <= config.touch_gap * side]
        result.append(tuple(sorted(touching[:2])))
    return result


# --- 6. flags -------------------------------------------------------------------------------------
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


# --- 7. bar ---------------------------------------------------------------------------------------
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


# --- 8. layout ------------------------------------------------------------------------------------
def _turn_points(points: np.ndarray, k: int, size: tuple[int, int]) -> np.ndarray:
    """Where points (n, 2) of an image of `size` (w, h) land in ``np.rot90(image, k)``."""
    pts = np.asarray(points, np.float64).reshape(-1, 2).copy()
    w, h = size
    for _ in range(k % 4):
        pts = np.stack([pts[:, 1], w - pts[:, 0]], axis=1)
        w, h = h, w
    return pts


def _row_major(points: np.ndarray, row_tolerance: float) -> np.ndarray:
    """Indexes of `points` in reading order: rows top to bottom, then left to right."""
    if len(points) == 0:
        return np.zeros(0, int)
    order = np.argsort(points[:, 1], kind="stable")
    rows: list[list[int]] = []
    for i in order:
        if rows and points[i, 1] - points[rows[-1][0], 1] <= row_tolerance:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return np.array([i for row in rows for i in sorted(row, key=lambda j: points[j, 0])])


def _units(point: Sequence[float], per_px: float) -> list[float]:
    return [round(float(point[0]) * per_px, 1), round(float(point[1]) * per_px, 1)]


def _default_bar() -> dict[str, Any]:
    bar = layout_to_json(reference_layout())["bar"]
    return {"values": bar["values"], **({"readings": bar["readings"]} if "readings" in bar else {})}


def trace_layout(
    photo: np.ndarray,
    corners_px: np.ndarray | Sequence[Sequence[float]] | None = None,
    config: TraceConfig | None = None,
    *,
    name: str = "traced",
) -> Trace:
    """Trace a board layout from `photo` (BGR uint8, (H, W, 3)).

    Args:
        corners_px: the board's corners in the photo, clockwise from the board's top left; when
            omitted, the board's outline is searched and the board turned so its flags read best.
        name: the layout's name.

    Raises:
        TraceError: no board outline, bad corners, or no table found on the board.
    """
    config = config or TraceConfig()
    _check_frame(photo)
    given = corners_px is not None
    if given:
        corners = np.asarray(corners_px, np.float64).reshape(4, 2)
    else:
        corners = find_board(photo, config)
    view, _ = rectify(photo, corners, config)
    tables = find_tables(view, config)
    # tables are round: when they look oval, the board's proportions were misjudged (lens,
    # a focal length guessed): stretch the view so they come out round, and look again
    stretch = _table_stretch(view, tables)
    if abs(stretch - 1.0) > 0.03:
        view = cv2.resize(view, (view.shape[1], round(view.shape[0] / stretch)))
        tables = find_tables(view, config)
    if len(tables) == 0:
        raise TraceError(
            "no tables found on the board: no family of round tables was seen (is the photo "
            "sharp, taken from above, with the whole board in view?)"
        )
    traced_tables, turn = guess_nationalities(
        view, tables, config, turns=(0,) if given else (0, 1, 2, 3)
    )
    if turn:
        size = (view.shape[1], view.shape[0])
        centres = _turn_points(tables[:, :2], turn, size)
        tables = np.column_stack([centres, tables[:, 2]])
        traced_tables = [
            TracedTable((float(c[0]), float(c[1])), *_rest(t))
            for c, t in zip(centres, traced_tables, strict=True)
        ]
        view = np.ascontiguousarray(np.rot90(view, turn))
        corners = np.roll(corners, -turn, axis=0)  # the photo corner now at the view's top left
    chairs, sides = find_chairs(view, tables, config)
    # chairs of one board are alike: the typical size stands in for each chair's own, which an
    # outline found only in part (an inner panel) would understate
    typical = np.full(len(sides), float(np.median(sides)) if len(sides) else 0.0)
    touches = assign_chairs(chairs, typical, tables, config)
    loose = sum(1 for t in touches if not t)
    stools = find_stools(view, tables, chairs, config)

    # ids in reading order
    radius = float(np.median(tables[:, 2]))
    table_order = _row_major(tables[:, :2], radius)
    table_rank = {int(old): new for new, old in enumerate(table_order)}
    table_ids = [f"T{i + 1:02d}" for i in range(len(tables))]
    kept = [i for i, t in enumerate(touches) if t]
    chair_points = chairs[kept] if kept else np.zeros((0, 2))
    chair_order = [kept[i] for i in _row_major(chair_points, 0.5 * radius)]
    per_px = 1000.0 / max(view.shape[:2])

    ordered_tables = [traced_tables[i] for i in table_order]
    ordered_chairs = [
        TracedChair(
            (float(chairs[i, 0]), float(chairs[i, 1])),
            float(sides[i]),
            tuple(sorted(table_rank[t] for t in touches[i])),
        )
        for i in chair_order
    ]
    layout: dict[str, Any] = {
        "name": name,
        "description": (
            f"traced from a photo; board units: the board's long side is 1000 units, "
            f"origin at its top-left corner; {sum(not t.sure for t in ordered_tables)} "
            "nationalities to confirm"
        ),
        "tables": [
            {
                "id": table_ids[i],
                "nationality": t.nationality,
                "center": _units(t.center_px, per_px),
                **({} if t.sure else {"unsure": f"or {t.runner_up}? please check"}),
            }
            for i, t in enumerate(ordered_tables)
        ],
        "chairs": [
            {
                "id": f"C{i + 1:02d}",
                "tables": [table_ids[t] for t in c.tables],
                "center": _units(c.center_px, per_px),
            }
            for i, c in enumerate(ordered_chairs)
        ],
        "bar": _default_bar(),
        "traced_from": {
            "corners_px": np.round(corners, 1).tolist(),
            "corners_given": given,
            "board_units": [
                round(view.shape[1] * per_px, 1),
                round(view.shape[0] * per_px, 1),
            ],
        },
    }
    if len(stools) == STOOLS:
        layout["bar"]["stools"] = [_units(p, per_px) for p in stools]

    problems, unsure = _check(layout, ordered_tables, ordered_chairs, table_ids, stools, loose)
    return Trace(
        corners_px=corners,
        corners_given=given,
        size_px=(view.shape[1], view.shape[0]),
        units_per_px=per_px,
        tables=tuple(ordered_tables),
        chairs=tuple(ordered_chairs),
        stools=tuple(stools),
        loose_chairs=loose,
        layout=layout,
        problems=tuple(problems),
        unsure=tuple(unsure),
    )


def _rest(table: TracedTable) -> tuple[Any, ...]:
    return (
        table.radius_px,
        table.nationality,
        table.distance,
        table.runner_up,
        table.runner_up_distance,
        table.sure,
    )


def _check(
    layout: Mapping[str, Any],
    tables: Sequence[TracedTable],
    chairs: Sequence[TracedChair],
    table_ids: Sequence[str],
    stools: Sequence[Point],
    loose: int,
) -> tuple[list[str], list[str]]:
    """Problems (the loader's, which make the layout unusable as is) and guesses to confirm."""
    problems: list[str] = []
    try:
        layout_from_json(layout)
    except MalformedError as error:
        problems = [p.strip() for p in str(error).removeprefix("bad layout:").split(";")]
    unsure: list[str] = []
    for table_id, table in zip(table_ids, tables, strict=True):
        if not table.sure:
            if math.isinf(table.distance):
                unsure.append(f"{table_id}: no flag seen, '{table.nationality}' is a placeholder")
            else:
                unsure.append(f"{table_id}: {table.nationality} or {table.runner_up}?")
    if loose:
        unsure.append(f"{loose} chair-like shapes touch no table and were left out")
    if len(stools) != STOOLS:
        unsure.append(f"found {len(stools)} bar stools, not {STOOLS}: stool positions left out")
    return problems, unsure


# --- measuring against a known layout -------------------------------------------------------------
def _match(a: np.ndarray, b: np.ndarray, tolerance: float) -> dict[int, int]:
    """Greedy nearest-pair matching of points a → b within `tolerance`."""
    if len(a) == 0 or len(b) == 0:
        return {}
    d = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
    pairs: dict[int, int] = {}
    used: set[int] = set()
    for flat in np.argsort(d, axis=None):
        i, j = divmod(int(flat), len(b))
        if d[i, j] > tolerance:
            break
        if i not in pairs and j not in used:
            pairs[i] = j
            used.add(j)
    return pairs


def compare_layouts(traced: Mapping[str, Any], truth: Mapping[str, Any]) -> dict[str, int]:
    """How well a traced layout agrees with the true one (both layout JSON with positions).

    Positions are aligned by a similarity fitted on the tables (traced units differ from the
    true ones); tables and chairs are then paired by position.

    Returns:
        Counts: ``tables``/``chairs`` (true), ``tables_found``/``chairs_found`` (traced),
        ``tables_matched``/``chairs_matched``, ``adjacency_exact`` (matched chairs whose tables
        are the matched tables of the truth), ``nationality_right`` (matched tables),
        ``stools``/``stools_found`` and ``stools_in_order`` (traced stool i at true stool i).
    """
    t_true = np.array([t["center"] for t in truth["tables"]], np.float64)
    t_found = np.array([t["center"] for t in traced["tables"]], np.float64).reshape(-1, 2)
    c_true = np.array([c["center"] for c in truth["chairs"]], np.float64)
    c_found = np.array([c["center"] for c in traced["chairs"]], np.float64).reshape(-1, 2)

    def normalise(points: np.ndarray, ref: np.ndarray) -> np.ndarray:
        centre = ref.mean(axis=0)
        scale = math.sqrt(((ref - centre) ** 2).sum(axis=1).mean()) or 1.0
        return (points - centre) / scale

    result = {
        "tables": len(t_true),
        "tables_found": len(t_found),
        "chairs": len(c_true),
        "chairs_found": len(c_found),
        "tables_matched": 0,
        "chairs_matched": 0,
        "adjacency_exact": 0,
        "nationality_right": 0,
        "stools": len(truth.get("bar", {}).get("stools", [])),
        "stools_found": len(traced.get("bar", {}).get("stools", [])),
        "stools_in_order": 0,
    }
    if len(t_found) == 0:
        return result
    # a rough alignment by the tables' spread, refined by a similarity on the first matching
    a, b = normalise(t_found, t_found), normalise(t_true, t_true)
    pairs = _match(a, b, 0.3)
    if len(pairs) >= 2:
        src = np.array([t_found[i] for i in pairs], np.float32)
        dst = np.array([t_true[j] for j in pairs.values()], np.float32)
        matrix, _ = cv2.estimateAffine2D(src, dst)
        if matrix is not None:

            def to_true(p: np.ndarray) -> np.ndarray:
                return p @ matrix[:, :2].T + matrix[:, 2]

            spacing = (
                float(np.median(np.sort(np.hypot(*(t_true[:, None] - t_true[None]).T), 1)[:, 1]))
                if len(t_true) > 1
                else 1.0
            )
            pairs = _match(to_true(t_found), t_true, 0.35 * spacing)
            chair_pairs = _match(to_true(c_found), c_true, 0.25 * spacing)
            result["chairs_matched"] = len(chair_pairs)
            s_true = np.array(truth.get("bar", {}).get("stools", []), np.float64).reshape(-1, 2)
            s_found = np.array(traced.get("bar", {}).get("stools", []), np.float64).reshape(-1, 2)
            if len(s_true) == len(s_found) and len(s_true):
                off = np.hypot(*(to_true(s_found) - s_true).T)
                result["stools_in_order"] = int((off < 0.15 * spacing).sum())
            table_of = {
                traced["tables"][i]["id"]: truth["tables"][j]["id"] for i, j in pairs.items()
            }
            for i, j in chair_pairs.items():
                mapped = {table_of.get(t, "?") for t in traced["chairs"][i]["tables"]}
                if mapped == set(truth["chairs"][j]["tables"]):
                    result["adjacency_exact"] += 1
    result["tables_matched"] = len(pairs)
    result["nationality_right"] = sum(
        traced["tables"][i]["nationality"] == truth["tables"][j]["nationality"]
        for i, j in pairs.items()
    )
    return result


__all__ = [
    "FLAGS",
    "Trace",
    "TraceConfig",
    "TraceError",
    "TracedChair",
    "TracedTable",
    "assign_chairs",
    "compare_layouts",
    "find_board",
    "find_chairs",
    "find_stools",
    "find_tables",
    "guess_nationalities",
    "rectify",
    "trace_layout",
]
