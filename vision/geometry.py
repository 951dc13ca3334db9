"""Plane geometry shared by `datasets` (rendering) and `vision` (reading): the one neutral module.

Imports only numpy and OpenCV, nothing of ours, so both sides can depend on it.

Corner order convention (used everywhere: truth records, detections, rectification):
    a flat piece's 4 corners are listed as the corners of its **face as printed**, in the order
    top-left, top-right, bottom-right, bottom-left (TL, TR, BR, BL). "Top" is the top of the
    printed face (the edge above the text/pictogram when read upright), not the top of the image:
    a card lying upside down in the photo still lists its printed top-left corner first. In face
    pixel coordinates (x right, y down) a ``w × h`` face has corners
    ``(0, 0), (w, 0), (w, h), (0, h)`` — see `rect_corners`. For a die the 4 corners are those of
    its top face, starting at an arbitrary (but recorded) corner and going round clockwise as seen
    from above the die.

Points are arrays of shape (n, 2) (x, y) in float64 unless stated; homographies are (3, 3) arrays
mapping homogeneous column vectors: ``p' ~ H @ [x, y, 1]``.

Public names: `CORNER_NAMES`, `rect_corners`, `homography_from_corners`, `project_points`,
`box_from_corners`, `boxes_near`, `clip_box`, `box_area`, `polygon_area`, `clip_polygon_to_rect`,
`visible_fraction_in_rect`, `is_convex_clockwise`, `clockwise_quad`, `quad_overlap`,
`polygon_overlap`, `largest_share_covered`,
`order_corners_clockwise`; the companion Café board's registration markers, shared by its art
and its reader: `BOARD_MARKERS_FILE`, `BoardMarker`, `load_board_marker_spec`, `layout_spacing`,
`board_markers_units`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

CORNER_NAMES: tuple[str, str, str, str] = ("top-left", "top-right", "bottom-right", "bottom-left")


def rect_corners(width: float, height: float) -> np.ndarray:
    """Return the (4, 2) corners of a ``width × height`` face in its own coordinates, TL TR BR BL.

    >>> rect_corners(2, 1).tolist()
    [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]]
    """
    return np.array([[0, 0], [width, 0], [width, height], [0, height]], dtype=np.float64)


def homography_from_corners(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Return the (3, 3) homography that maps the 4 points `src` onto the 4 points `dst`.

    Raises:
        ValueError: either argument is not of shape (4, 2), or the points are degenerate.
    """
    src_arr = np.asarray(src, dtype=np.float64)
    dst_arr = np.asarray(dst, dtype=np.float64)
    for name, arr in (("src", src_arr), ("dst", dst_arr)):
        if arr.shape != (4, 2):
            raise ValueError(f"{name} corners must have shape (4, 2), got {arr.shape}")
    matrix = cv2.getPerspectiveTransform(src_arr.astype(np.float32), dst_arr.astype(np.float32))
    if not np.all(np.isfinite(matrix)) or abs(np.linalg.det(matrix)) < 1e-12:
        raise ValueError("degenerate corners: no homography maps src onto dst")
    return matrix.astype(np.float64)


def project_points(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map (n, 2) points through a (3, 3) homography; return (n, 2) float64 points.

    Points that map to infinity (behind the camera) come back as ``inf``.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    homogeneous = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(homography).T
    w = homogeneous[:, 2:3]
    with np.errstate(divide="ignore", invalid="ignore"):
        out = homogeneous[:, :2] / w
    out[~np.isfinite(out).all(axis=1) | (w[:, 0] <= 0)] = np.inf
    return out


def box_from_corners(corners: np.ndarray) -> np.ndarray:
    """Return the axis-aligned box ``[x1, y1, x2, y2]`` around (n, 2) points."""
    pts = np.asarray(corners, dtype=np.float64).reshape(-1, 2)
    return np.array([*pts.min(axis=0), *pts.max(axis=0)], dtype=np.float64)


def clip_box(box_xyxy: np.ndarray, width: float, height: float) -> np.ndarray:
    """Clip a box ``[x1, y1, x2, y2]`` to the image ``[0, width] × [0, height]``."""
    box = np.asarray(box_xyxy, dtype=np.float64).copy()
    box[[0, 2]] = np.clip(box[[0, 2]], 0, width)
    box[[1, 3]] = np.clip(box[[1, 3]], 0, height)
    return box


def box_area(box_xyxy: np.ndarray) -> float:
    """Area of a box ``[x1, y1, x2, y2]`` (0 when empty)."""
    x1, y1, x2, y2 = np.asarray(box_xyxy, dtype=np.float64)
    return float(max(0.0, x2 - x1) * max(0.0, y2 - y1))


def polygon_area(points: np.ndarray) -> float:
    """Unsigned area of a simple polygon given as (n, 2) vertices (shoelace formula)."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    if len(pts) < 3:
        return 0.0
    x, y = pts[:, 0], pts[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)


def clip_polygon_to_rect(
    points: np.ndarray, x1: float, y1: float, x2: float, y2: float
) -> np.ndarray:
    """Clip a convex or simple polygon to an axis-aligned rectangle (Sutherland–Hodgman).

    Returns the (m, 2) clipped polygon, possibly empty (shape (0, 2)).
    """
    poly = [tuple(p) for p in np.asarray(points, dtype=np.float64).reshape(-1, 2)]
    # each edge: (axis, bound, keep_greater)
    for axis, bound, keep_greater in ((0, x1, True), (0, x2, False), (1, y1, True), (1, y2, False)):
        if not poly:
            break

        def inside(
            p: tuple[float, float], a: int = axis, b: float = bound, g: bool = keep_greater
        ) -> bool:
            return p[a] >= b if g else p[a] <= b

        clipped: list[tuple[float, float]] = []
        for i, current in enumerate(poly):
            previous = poly[i - 1]
            if inside(current):
                if not inside(previous):
                    clipped.append(_intersect(previous, current, axis, bound))
                clipped.append(current)
            elif inside(previous):
                clipped.append(_intersect(previous, current, axis, bound))
        poly = clipped
    return np.array(poly, dtype=np.float64).reshape(-1, 2)


def _intersect(
    p: tuple[float, float], q: tuple[float, float], axis: int, bound: float
) -> tuple[float, float]:
    t = (bound - p[axis]) / (q[axis] - p[axis])
    return (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))


def visible_fraction_in_rect(points: np.ndarray, width: float, height: float) -> float:
    """Fraction of a polygon's area that lies inside the image ``[0, width] × [0, height]``."""
    total = polygon_area(points)
    if total <= 0:
        return 0.0
    inside = polygon_area(clip_polygon_to_rect(points, 0, 0, width, height))
    return float(min(1.0, inside / total))


def quad_overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Area of the intersection of two convex quads over the smaller one's area (1: one lies
    within the other; 0: apart or degenerate)."""
    return polygon_overlap(np.asarray(a).reshape(4, 2), np.asarray(b).reshape(4, 2))


def polygon_overlap(a: np.ndarray, b: np.ndarray) -> float:
    """`quad_overlap` for two convex polygons of any number of (m, 2) vertices, such as quads
    clipped to a rectangle; 0 when either is degenerate or empty."""
    polygons = [_distinct_vertices(p) for p in (a, b)]
    if any(len(p) < 3 or not np.isfinite(p).all() for p in polygons):
        return 0.0
    smaller = min(abs(polygon_area(p)) for p in polygons)
    if smaller <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(polygons[0], polygons[1])
    return float(inter) / smaller


def _distinct_vertices(polygon: np.ndarray) -> np.ndarray:
    """(m, 2) float32 `polygon` without repeated consecutive vertices (clipping through a
    corner repeats one, and cv2's convex intersection then measures wrongly)."""
    points = np.asarray(polygon, np.float64).reshape(-1, 2)
    step = np.linalg.norm(points - np.roll(points, 1, axis=0), axis=1)
    return points[step > 1e-6].astype(np.float32) if len(points) > 1 else points.astype(np.float32)


def largest_share_covered(box: np.ndarray, others: np.ndarray) -> float:
    """The largest share of `box` (xyxy) that one of the boxes `others` (k, 4) covers; 0 with
    none."""
    others = np.asarray(others, np.float64).reshape(-1, 4)
    if len(others) == 0:
        return 0.0
    box = np.asarray(box, np.float64)
    area = max(float(np.prod(box[2:] - box[:2])), 1e-6)
    wh = np.minimum(others[:, 2:], box[2:]) - np.maximum(others[:, :2], box[:2])
    return float(np.prod(np.maximum(wh, 0.0), axis=1).max()) / area


def is_convex_clockwise(corners: np.ndarray) -> bool:
    """True when 4 image-space corners form a convex quad listed clockwise on screen (y down)."""
    pts = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    edges = np.roll(pts, -1, axis=0) - pts
    nxt = np.roll(edges, -1, axis=0)
    cross = edges[:, 0] * nxt[:, 1] - edges[:, 1] * nxt[:, 0]
    return bool(np.all(cross > 0))


def clockwise_quad(corners: np.ndarray) -> np.ndarray | None:
    """4 corners as a convex quad listed clockwise on screen: as given, or reversed (a quad
    listed counter-clockwise keeps its first corner); None when they form no convex quad."""
    quad = np.asarray(corners, np.float64).reshape(4, 2)
    if not np.all(np.isfinite(quad)):
        return None
    if is_convex_clockwise(quad):
        return quad
    reversed_quad = quad[[0, 3, 2, 1]]
    return reversed_quad if is_convex_clockwise(reversed_quad) else None


def order_corners_clockwise(points: np.ndarray) -> np.ndarray:
    """Order 4 unlabeled points clockwise on screen, starting from the one nearest the top-left.

    For detections that do not know which corner is the printed top-left: a canonical order.
    """
    pts = np.asarray(points, dtype=np.float64).reshape(4, 2)
    center = pts.mean(axis=0)
    angles = np.arctan2(pts[:, 1] - center[1], pts[:, 0] - center[0])
    ordered = pts[np.argsort(angles)]
    start = int(np.argmin(ordered.sum(axis=1)))
    return np.roll(ordered, -start, axis=0)


def _signed_area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(np.roll(x, -1), y)))


def in_corner_order_of(quad: np.ndarray, reference: np.ndarray) -> np.ndarray:
    """`quad`'s 4 corners turning the way `reference`'s do, starting at the corner nearest
    `reference`'s first (a cyclic shift after any reversal: a mirrored order would be another
    quad): a refined quad listed in the order its rough one was given."""
    quad = np.asarray(quad, np.float64).reshape(4, 2)
    reference = np.asarray(reference, np.float64).reshape(4, 2)
    area = _signed_area(reference)
    if abs(area) > 1e-6 and (_signed_area(quad) > 0) != (area > 0):
        quad = quad[::-1]
    shifts = [np.roll(quad, k, axis=0) for k in range(4)]
    return min(shifts, key=lambda q: float(np.linalg.norm(q - reference, axis=1).sum()))


# --- the companion board's registration markers -----------------------------------------------

BOARD_MARKERS_FILE = Path(__file__).resolve().parent / "readers" / "board_markers.json"


@dataclass(frozen=True)
class BoardMarker:
    """One registration marker of a board: its ArUco id and its black square in board units.

    Attributes:
        name: where it stands (``top_left``, ``top``, …).
        marker_id: its id in the spec's ArUco dictionary.
        corners_units: (4, 2) corners of its black square in board units, the marker's own
            top-left first, clockwise (OpenCV's ArUco corner order; the marker stands upright).
    """

    name: str
    marker_id: int
    corners_units: np.ndarray


@functools.lru_cache(maxsize=4)
def _read_spec(path: str) -> str:
    return Path(path).read_text(encoding="utf-8")


def load_board_marker_spec(path: Path | None = None) -> dict[str, Any]:
    """The marker spec (`BOARD_MARKERS_FILE` unless `path`): a fresh dict on every call."""
    return json.loads(_read_spec(str(path or BOARD_MARKERS_FILE)))


def layout_spacing(layout: Mapping[str, Any]) -> float:
    """The layout's spacing d: the median distance from a chair to each of its tables (units).

    Falls back to a tenth of the larger side of the tables' extent when no chair has a table.
    """
    tables = {t["id"]: np.asarray(t["center"], np.float64) for t in layout.get("tables", [])}
    dists = [
        float(np.linalg.norm(np.asarray(c["center"], np.float64) - tables[t]))
        for c in layout.get("chairs", [])
        for t in c.get("tables", [])
        if t in tables and "center" in c
    ]
    if dists:
        return float(np.median(dists))
    points = np.asarray(list(tables.values()), np.float64).reshape(-1, 2)
    return max(float(np.ptp(points, axis=0).max()) / 10.0, 1.0) if len(points) else 60.0


def board_markers_units(
    layout: Mapping[str, Any], spec: Mapping[str, Any] | None = None
) -> list[BoardMarker]:
    """Where a board drawn from `layout` carries its registration markers (board units).

    The markers stand in a band around the play area: the centres of tables, chairs and stools,
    each grown by its ``clearance`` (× the layout's spacing d); a ``quiet`` white margin, then
    the ``side`` × d black square at its ``anchor`` along the band (see the spec file).

    Raises:
        ValueError: the layout has no positions.
    """
    spec = spec if spec is not None else load_board_marker_spec()
    d = layout_spacing(layout)
    clearance = spec["clearance"]
    grown: list[np.ndarray] = []
    try:
        for key, items in (("table", layout["tables"]), ("chair", layout["chairs"])):
            for item in items:
                centre = np.asarray(item["center"], np.float64)
                grown += [centre - clearance[key] * d, centre + clearance[key] * d]
        for stool in layout.get("bar", {}).get("stools", []):
            centre = np.asarray(stool, np.float64)
            grown += [centre - clearance["stool"] * d, centre + clearance["stool"] * d]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"layout without positions: missing {exc}") from None
    if not grown:
        raise ValueError("layout without positions: no tables or chairs")
    lo, hi = np.min(grown, axis=0), np.max(grown, axis=0)
    side, quiet = float(spec["side"]) * d, float(spec["quiet"]) * d
    # the band's centre line: the squares' centres at anchor 0 and 1
    first = lo - quiet - side / 2
    last = hi + quiet + side / 2
    markers = []
    for entry in spec["markers"]:
        a, b = (float(x) for x in entry["anchor"])
        centre = first + np.array([a, b]) * (last - first)
        markers.append(
            BoardMarker(
                str(entry["name"]),
                int(entry["id"]),
                centre + side / 2 * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64),
            )
        )
    return markers


def change_aspect(y: np.ndarray | float, from_aspect: float, to_aspect: float) -> np.ndarray:
    """Normalised image heights (0..1) in a frame of width/height `from_aspect`, as heights in
    a frame of `to_aspect` from the same camera: the same horizontal field of view, more or
    less of it above and below (a camera's 16:9 mode is its 4:3 picture with the top and bottom
    cut off)."""
    return 0.5 + (np.asarray(y, float) - 0.5) * (to_aspect / from_aspect)


def boxes_near(
    boxes_xyxy: np.ndarray, candidates: np.ndarray, anchors: np.ndarray, within: float
) -> np.ndarray:
    """(n,) bool: the `candidates` rows whose box lies within `within` × the median anchor box
    side of one of the `anchors` rows' boxes (gap between the boxes, 0 when they touch)."""
    near = np.zeros(len(boxes_xyxy), bool)
    if len(anchors) == 0 or not candidates.any():
        return near
    boxes = np.asarray(boxes_xyxy, np.float64)
    anchor_boxes = boxes[anchors]
    side = float(np.median((anchor_boxes[:, 2:] - anchor_boxes[:, :2]).max(axis=1)))
    for i in np.flatnonzero(candidates):
        gap = np.maximum(anchor_boxes[:, :2] - boxes[i, 2:], boxes[i, :2] - anchor_boxes[:, 2:])
        near[i] = bool((np.maximum(gap, 0.0).max(axis=1) <= within * side).any())
    return near


__all__ = [
    "BOARD_MARKERS_FILE",
    "CORNER_NAMES",
    "BoardMarker",
    "board_markers_units",
    "layout_spacing",
    "load_board_marker_spec",
    "box_area",
    "box_from_corners",
    "boxes_near",
    "change_aspect",
    "clip_box",
    "clip_polygon_to_rect",
    "homography_from_corners",
    "in_corner_order_of",
    "clockwise_quad",
    "is_convex_clockwise",
    "quad_overlap",
    "polygon_overlap",
    "largest_share_covered",
    "order_corners_clockwise",
    "polygon_area",
    "project_points",
    "rect_corners",
    "visible_fraction_in_rect",
]
