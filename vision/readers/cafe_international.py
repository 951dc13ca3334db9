"""Café International reader: register the board, put each tile on its chair or bar stool.

Registration gives the homography from board units (the layout's coordinates) to image pixels:

- the companion board: its ArUco markers, in a band around the play area (corners and edge
  middles), found in the frame (`find_marker_candidates`) and matched to where the board carries
  them. Where that is comes from the spec file shared with the art
  (``vision/readers/board_markers.json``, placed by `vision.geometry.board_markers_units`), so the
  printed board and the reader cannot drift. Only markers that agree count, and a registration
  that the markers do not support well (too few, along one edge, large reprojection error,
  mirrored) is refused;
- a printed board: four corners the user gave once, remembered per layout in the user data
  folder (`save_board_corners`, `load_board_corners`), matched to the board's corners in units
  (`printed_board_corners_units`: those of a layout traced from a photo, else the layout's
  extent).

`read_table` then maps every tile's centre into board units: a tile within reach of a chair sits
on it, of a stool sits at the bar, outside the board lies in a player's face-up hand (CI-6), by
the side of the board it lies on. Two tiles on one chair, a tile between chairs, an
unidentified tile or another game's piece are problems, never guesses. Given the frame and a
`vision.readers.cafe_slots.SlotReader`, `read_frame` reads every chair and stool directly
instead (the detector finds the small tiles on the board poorly) and keeps the detections for
the players' hands and as a fallback name for a slot it could not identify. A slot seen taken
that neither names is `UNKNOWN_TILE` in the observation (the rules try every tile the player
could have put there and ask when several fit) and a note in ``seen["notes"]``, not a problem.
"""

from __future__ import annotations

import functools
import json
import math
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engines.cafe_international.explain import UNKNOWN_TILE, Observation
from engines.cafe_international.layout import Layout
from vision.detections import Detections
from vision.geometry import (
    board_markers_units,
    is_convex_clockwise,
    layout_spacing,
    load_board_marker_spec,
    polygon_area,
    project_points,
)
from vision.readers import (
    Reading,
    card_centres,
    foreign_problem,
    small_pieces,
    spread_pieces,
    unidentified_problem,
)
from vision.readers.cafe_slots import SlotRead, SlotReader
from vision.readers.zones import zones_file

GAME = "cafe-international"
PREFIX = GAME + "/"
SIDES: dict[int, tuple[str, ...]] = {
    2: ("near", "far"),
    3: ("near", "left", "far"),
    4: ("near", "left", "far", "right"),
}


class RegistrationError(ValueError):
    """The board cannot be registered (markers not found, corners degenerate)."""


@dataclass(frozen=True)
class CafeReaderConfig:
    """Thresholds in board units.

    Attributes:
        chair_reach: a tile whose centre is this close to a chair's centre sits on it.
        stool_reach: the same for a bar stool.
        board_margin: the board's edge lies this far outside the layout's extent.
        min_markers: registration needs this many distinct markers that agree.
        ransac_px: a marker corner this far (px) from the homography of the others disagrees.
        max_reprojection_px: the agreeing corners' largest error (px) after the refit; worse
            is refused.
        enough_markers: once this many markers agree, the costlier detection passes (enlarged,
            sharpened) are skipped.
        min_spread: the agreeing markers' centres must span this fraction of the area spanned
            by all the board's markers (three markers along one edge do not fix the far side).
        min_structure_score: the board's printed structure must be seen where the markers put
            it (`structure_score`). On 10 rendered eval tables registered right it scored
            0.69–0.88; moved by half a chair spacing, 0.18–0.42.
        hand_place: (from, to, along): where a player's hand lies, beside the middle of their
            side of the board: from `from` to `to` units beyond the layout's extent, `along`
            units either side of the edge's middle (the board's edge is `board_margin` beyond
            the extent; tiles laid in a row 60 units further on reach about 140). A hand
            whose place is not wholly in the frame is not read: tiles beyond the frame's edge
            would be missing from it. None: every hand is read.
    """

    chair_reach: float = 26.0
    stool_reach: float = 15.0
    board_margin: float = 60.0
    min_markers: int = 3
    ransac_px: float = 8.0
    max_reprojection_px: float = 8.0
    enough_markers: int = 5
    min_spread: float = 0.2
    min_structure_score: float = 0.45
    hand_place: tuple[float, float, float] | None = (60.0, 140.0, 110.0)


@dataclass(frozen=True)
class Registration:
    """Board units → image pixels (`homography`), and the board's extent in units.

    `marker_boxes_units` are the registration markers' squares with their quiet zones, as
    (u0, v0, u1, v1) in board units (none for a printed board): an unidentified "tile" found
    there is a marker, not a piece (`read_table` ignores it).
    """

    homography: np.ndarray
    extent_units: tuple[float, float, float, float]
    marker_boxes_units: tuple[tuple[float, float, float, float], ...] = ()

    def is_on_marker(self, points_units: np.ndarray) -> np.ndarray:
        """Which board-unit points (n, 2) lie on a registration marker: (n,) bool."""
        pts = np.asarray(points_units, np.float64).reshape(-1, 2)
        inside = np.zeros(len(pts), bool)
        for u0, v0, u1, v1 in self.marker_boxes_units:
            inside |= (pts[:, 0] >= u0) & (pts[:, 0] <= u1) & (pts[:, 1] >= v0) & (pts[:, 1] <= v1)
        return inside

    def image_to_units(self, points_px: np.ndarray) -> np.ndarray:
        """Image points (n, 2) → board units (n, 2)."""
        pts = np.asarray(points_px, np.float64).reshape(-1, 1, 2)
        if not len(pts):
            return np.zeros((0, 2))
        return cv2.perspectiveTransform(pts, np.linalg.inv(self.homography)).reshape(-1, 2)


def layout_extent(
    layout_json: Mapping[str, Any], margin: float = 60.0
) -> tuple[float, float, float, float]:
    """(u0, v0, u1, v1): the extent of every table, chair and stool, plus `margin`."""
    points = [t["center"] for t in layout_json["tables"]] + [
        c["center"] for c in layout_json["chairs"]
    ]
    points += list(layout_json.get("bar", {}).get("stools", []))
    array = np.asarray(points, float)
    (u0, v0), (u1, v1) = array.min(axis=0), array.max(axis=0)
    return (u0 - margin, v0 - margin, u1 + margin, v1 + margin)


def register_points(
    units: Sequence[Sequence[float]] | np.ndarray,
    image_px: Sequence[Sequence[float]] | np.ndarray,
    extent_units: tuple[float, float, float, float],
) -> Registration:
    """A registration from 4+ matching points (board units ↔ image pixels).

    Raises:
        RegistrationError: fewer than 4 points or a degenerate quadrilateral.
    """
    src = np.asarray(units, np.float64).reshape(-1, 2)
    dst = np.asarray(image_px, np.float64).reshape(-1, 2)
    if len(src) < 4 or len(src) != len(dst):
        raise RegistrationError(f"board registration needs 4 matching points, got {len(dst)}")
    homography, _ = cv2.findHomography(src, dst, 0)
    if homography is None or abs(np.linalg.det(homography[:2, :2])) < 1e-9:
        raise RegistrationError("board registration failed: the corners are degenerate")
    return Registration(homography, extent_units)


def companion_marker_units(layout_json: Mapping[str, Any]) -> dict[int, np.ndarray]:
    """Where the companion board of `layout_json` carries its markers: ArUco id → (4, 2) corners
    in board units (the spec shared with the art: `vision.geometry.board_markers_units`)."""
    return {m.marker_id: m.corners_units for m in board_markers_units(layout_json)}


def _sharpened(gray: np.ndarray, factor: float, sigma: float, amount: float) -> np.ndarray:
    """`gray` enlarged by `factor` and unsharp-masked (a blurred photo's cells stand out)."""
    big = cv2.resize(gray, None, fx=factor, fy=factor, interpolation=cv2.INTER_CUBIC)
    blurred = cv2.GaussianBlur(big, (0, 0), sigma * factor)
    return cv2.addWeighted(big, 1.0 + amount, blurred, -amount, 0)


def _detection_images(gray: np.ndarray) -> Iterator[tuple[np.ndarray, float]]:
    """The versions of a frame the markers are looked for in, cheapest first, with the factor
    each was enlarged by."""
    yield gray, 1.0
    yield cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8)).apply(gray), 1.0
    for factor, sigma, amount in _SHARPEN_PASSES:
        yield _sharpened(gray, factor, sigma, amount), factor


def _decode(
    image: np.ndarray, factor: float, units: Mapping[int, np.ndarray] | None
) -> list[Candidate]:
    """The markers decoded in `image` (the frame enlarged by `factor`), in frame pixels. With
    the board's marker `units`, other ids are dropped and markers that failed to decode are
    looked for again where the decoded ones say the board has them (OpenCV's
    ``refineDetectedMarkers``: a quad there, decoded with a looser bit tolerance)."""
    detector = _aruco_detector()
    corners, found_ids, rejected = detector.detectMarkers(image)
    quads = [q.reshape(4, 2) for q in corners] if found_ids is not None else []
    ids = [int(i) for i in found_ids.ravel()] if found_ids is not None else []
    if units is not None:
        kept = [k for k, marker_id in enumerate(ids) if marker_id in units]
        quads, ids = [quads[k] for k in kept], [ids[k] for k in kept]
        if ids and len(ids) < len(units) and len(rejected):
            quads, ids = _refind(image, units, quads, ids, rejected)
    # pixel-centre coordinates of the enlarged image back to the frame's
    return [
        (marker_id, (quad.astype(np.float64) + 0.5) / factor - 0.5)
        for marker_id, quad in zip(ids, quads, strict=True)
    ]


def _refind(
    image: np.ndarray,
    units: Mapping[int, np.ndarray],
    quads: list[np.ndarray],
    ids: list[int],
    rejected: Sequence[np.ndarray],
) -> tuple[list[np.ndarray], list[int]]:
    marker_ids = sorted(units)
    board = cv2.aruco.Board(
        [np.column_stack([units[i], np.zeros(4)]).astype(np.float32) for i in marker_ids],
        _aruco_detector().getDictionary(),
        np.array(marker_ids, np.int32),
    )
    corners_in = [np.asarray(q, np.float32).reshape(1, 4, 2) for q in quads]
    ids_in = np.array(ids, np.int32).reshape(-1, 1)
    corners_out, ids_out, _, _ = _aruco_refiner().refineDetectedMarkers(
        image, board, corners_in, ids_in, rejected
    )
    if ids_out is None:
        return quads, ids
    return [q.reshape(4, 2) for q in corners_out], [int(i) for i in np.ravel(ids_out)]


Candidate = tuple[int, np.ndarray]


def find_marker_candidates(
    frame: np.ndarray, units: Mapping[int, np.ndarray] | None = None
) -> list[Candidate]:
    """Every marker quad the ArUco detector decodes in `frame` (uint8 BGR) on a few versions of
    it (as is, contrast-equalised, enlarged and sharpened): (id, (4, 2) corners px) pairs,
    possibly several per id (one of them may be a false decode: `register_companion_board`
    keeps only those that agree). With the board's marker `units` (id → (4, 2) corners in
    board units, `companion_marker_units`), other ids are dropped and undecoded markers are
    looked for where the decoded ones place them."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    return [c for image, f in _detection_images(gray) for c in _decode(image, f, units)]


# enlargement, unsharp sigma (px of the frame) and amount of the sharpened detection passes
_SHARPEN_PASSES: tuple[tuple[float, float, float], ...] = ((1.5, 3.0, 2.0), (2.0, 4.0, 3.0))


def find_markers(frame: np.ndarray) -> dict[int, np.ndarray]:
    """The companion board's markers in `frame` (uint8 BGR): ArUco id → (4, 2) corners px (the
    first decode of each id, searching the costlier versions of the frame only while some are
    missing, and without looking again where the board places them; see
    `find_marker_candidates` for every decode)."""
    ids = {int(m["id"]) for m in load_board_marker_spec()["markers"]}
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found: dict[int, np.ndarray] = {}
    for image, factor in _detection_images(gray):
        for marker_id, quad in _decode(image, factor, None):
            if marker_id in ids:
                found.setdefault(marker_id, quad)
        if len(found) == len(ids):
            break
    return found


@functools.lru_cache(maxsize=1)
def _aruco_refiner() -> Any:
    """The detector that looks again for undecoded markers where the board places them: within
    `_REFIND_PX` of there, decoded with up to 3 × the dictionary's correcting capacity (only
    agreeing markers are kept afterwards)."""
    refine = cv2.aruco.RefineParameters(
        minRepDistance=_REFIND_PX, errorCorrectionRate=3.0, checkAllOrders=True
    )
    detector = _aruco_detector()
    return cv2.aruco.ArucoDetector(
        detector.getDictionary(), detector.getDetectorParameters(), refine
    )


_REFIND_PX = 30.0  # px of the searched image


@functools.lru_cache(maxsize=1)
def _aruco_detector() -> Any:
    """ArUco detection tuned for small, oblique, blurred markers (a board seen from the table's
    edge), corners refined to subpixel."""
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.01
    params.adaptiveThreshWinSizeMin = 3
    params.adaptiveThreshWinSizeStep = 4
    params.adaptiveThreshWinSizeMax = 33
    params.polygonalApproxAccuracyRate = 0.06
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.2
    params.errorCorrectionRate = 0.8
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    params.cornerRefinementWinSize = 4
    dictionary = cv2.aruco.getPredefinedDictionary(
        getattr(cv2.aruco, load_board_marker_spec()["dictionary"])
    )
    return cv2.aruco.ArucoDetector(dictionary, params)


def register_companion_board(
    frame: np.ndarray, layout_json: Mapping[str, Any], config: CafeReaderConfig | None = None
) -> Registration:
    """Register the companion board from its markers, or refuse.

    The frame is searched as is first, then contrast-equalised, then enlarged and sharpened
    (blurred photos), until `config.enough_markers` agree; in each, markers that failed to
    decode are looked for again where the decoded ones place them. Every decoded quad is a
    candidate; a RANSAC homography keeps those with 3 or more corners within
    `config.ransac_px` (a false decode, or another game's marker, disagrees). The registration
    is returned only when at least `config.min_markers` distinct markers agree, they span
    enough of the board (`config.min_spread`: not one edge's row), their corners reproject
    within `config.max_reprojection_px` and the board is seen the right way up (not mirrored).
    Last, the board's printed structure (tables, chairs, bar) must be seen where the markers
    put it (`config.min_structure_score`). Otherwise it is refused, never guessed.

    Raises:
        RegistrationError: too few markers, markers that do not agree, or a board that does
            not look like the layout where the markers put it.
    """
    config = config or CafeReaderConfig()
    units = companion_marker_units(layout_json)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    candidates: list[Candidate] = []
    best: Registration | None = None
    error = RegistrationError(f"board not registered: 0 of {len(units)} markers found")
    # cheapest detection first; stop once every marker found so far agrees on a registration
    for image, factor in _detection_images(gray):
        candidates += _decode(image, factor, units)
        try:
            best, agreeing = _register_markers(candidates, units, layout_json, config)
        except RegistrationError as refused:
            error = refused
            continue
        if len(agreeing) >= config.enough_markers:
            break
    if best is None:
        raise error
    score = structure_score(frame, best, layout_json)
    if score < config.min_structure_score:
        raise RegistrationError(
            f"board not registered: the board does not look like layout "
            f"{layout_json.get('name', 'layout')!r} where its markers put it "
            f"(structure score {score:.2f})"
        )
    return best


def _register_markers(
    candidates: Sequence[Candidate],
    units: Mapping[int, np.ndarray],
    layout_json: Mapping[str, Any],
    config: CafeReaderConfig,
) -> tuple[Registration, list[int]]:
    """The registration the candidate quads agree on, and the ids that agree; or refused."""
    distinct = {marker_id for marker_id, _ in candidates}
    if len(distinct) < config.min_markers:
        raise RegistrationError(
            f"board not registered: {len(distinct)} of {len(units)} markers found "
            f"(need {config.min_markers} or more)"
        )
    src = np.vstack([units[marker_id] for marker_id, _ in candidates])
    dst = np.vstack([quad for _, quad in candidates])
    homography, mask = cv2.findHomography(src, dst, cv2.RANSAC, config.ransac_px)
    if homography is None:
        raise RegistrationError("board not registered: the markers do not agree")
    inlier = mask.ravel().reshape(-1, 4).sum(axis=1) >= 3
    agreeing = sorted(
        {marker_id for (marker_id, _), ok in zip(candidates, inlier, strict=True) if ok}
    )
    if len(agreeing) < config.min_markers:
        raise RegistrationError(
            f"board not registered: only {len(agreeing)} markers agree "
            f"(need {config.min_markers} or more)"
        )
    # refit on the agreeing corners, then check what that fit explains
    keep = np.repeat(inlier, 4) & mask.ravel().astype(bool)
    homography, _ = cv2.findHomography(src[keep], dst[keep], 0)
    if homography is None:
        raise RegistrationError("board not registered: the markers are degenerate")
    residual = np.linalg.norm(project_points(homography, src[keep]) - dst[keep], axis=1)
    if not np.all(np.isfinite(residual)) or float(residual.max()) > config.max_reprojection_px:
        raise RegistrationError(
            f"board not registered: markers disagree by {float(np.nanmax(residual)):.1f} px"
        )
    centres = np.array([units[i].mean(axis=0) for i in agreeing])
    all_centres = np.array([c.mean(axis=0) for c in units.values()])
    spread = _hull_area(centres) / max(_hull_area(all_centres), 1e-9)
    if spread < config.min_spread:
        raise RegistrationError(
            "board not registered: the markers found lie along one edge of the board"
        )
    seen = project_points(homography, np.vstack([units[i] for i in agreeing])).reshape(-1, 4, 2)
    if not all(is_convex_clockwise(quad) for quad in seen):
        raise RegistrationError("board not registered: the board would be seen mirrored")
    quiet = float(load_board_marker_spec()["quiet"]) * layout_spacing(layout_json)
    boxes = tuple(
        (
            float(c[:, 0].min() - quiet),
            float(c[:, 1].min() - quiet),
            float(c[:, 0].max() + quiet),
            float(c[:, 1].max() + quiet),
        )
        for c in units.values()
    )
    registration = Registration(homography, layout_extent(layout_json, config.board_margin), boxes)
    return registration, agreeing


def _hull_area(points: np.ndarray) -> float:
    if len(points) < 3:
        return 0.0
    hull = cv2.convexHull(np.asarray(points, np.float32).reshape(-1, 1, 2)).reshape(-1, 2)
    return polygon_area(hull)


# --- verification: the board's printed structure -------------------------------------------------

_STRUCTURE_PX_PER_UNIT = 0.5  # resolution of the structure check's top-down view
# grey levels of the structure sketch: what is brighter or darker than what on the board
_GREY = {
    "floor": 200,
    "link": 190,
    "table": 250,
    "flag": 140,
    "chair": 130,
    "bar": 80,
    "stool": 110,
}


def structure_sketch(layout_json: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    """A grey sketch of the companion board's printed structure seen from above: bright table
    discs with a flag, darker chairs, the dark bar with its stools, the markers exactly.

    Only relative brightness matters (`structure_score` correlates). Returns the uint8 sketch
    and the 3×3 board units → sketch pixels matrix.
    """
    d = layout_spacing(layout_json)
    markers = board_markers_units(layout_json)
    quiet = float(load_board_marker_spec()["quiet"]) * d
    corners = np.vstack([m.corners_units for m in markers])
    lo, hi = corners.min(axis=0) - 2 * quiet, corners.max(axis=0) + 2 * quiet
    scale = _STRUCTURE_PX_PER_UNIT
    width, height = np.ceil((hi - lo) * scale).astype(int)
    to_px = np.array([[scale, 0, -lo[0] * scale], [0, scale, -lo[1] * scale], [0, 0, 1.0]])
    sketch = np.full((height, width), _GREY["floor"], np.uint8)
    shift = 4  # subpixel drawing: coordinates × 16

    def at(point: Sequence[float] | np.ndarray) -> tuple[int, int]:
        x, y = (np.asarray(point, float) - lo) * scale * (1 << shift)
        return int(round(x)), int(round(y))

    def box(centre: Sequence[float], half: Sequence[float], grey: int) -> None:
        c, h = np.asarray(centre, float), np.asarray(half, float)
        cv2.rectangle(sketch, at(c - h), at(c + h), grey, -1, cv2.LINE_AA, shift)

    tables = {t["id"]: t["center"] for t in layout_json["tables"]}
    for chair in layout_json["chairs"]:
        for table in chair["tables"]:
            if table in tables:
                thick = max(1, round(0.2 * d * scale))
                cv2.line(sketch, at(chair["center"]), at(tables[table]), _GREY["link"], thick)
    radius = 0.67 * d
    for centre in tables.values():
        cv2.circle(
            sketch, at(centre), round(radius * scale * 16), _GREY["table"], -1, cv2.LINE_AA, shift
        )
        box(centre, (0.62 * radius, 0.42 * radius), _GREY["flag"])
    stools = np.asarray(layout_json.get("bar", {}).get("stools", []), float).reshape(-1, 2)
    if len(stools):
        r = 0.25 * d
        box(
            (stools.min(axis=0) + stools.max(axis=0)) / 2,
            (stools.max(axis=0) - stools.min(axis=0)) / 2 + 1.5 * r,
            _GREY["bar"],
        )
        for stool in stools:
            cv2.circle(
                sketch, at(stool), round(r * scale * 16), _GREY["stool"], -1, cv2.LINE_AA, shift
            )
    for chair in layout_json["chairs"]:
        box(chair["center"], (0.3 * d, 0.3 * d), _GREY["chair"])
    dictionary = _aruco_detector().getDictionary()
    for marker in markers:
        first, last = marker.corners_units[0], marker.corners_units[2]
        box((first + last) / 2, (last - first) / 2 + quiet, 255)
        side = round((last[0] - first[0]) * scale)
        pattern = cv2.aruco.generateImageMarker(dictionary, marker.marker_id, 6, borderBits=1)
        x0, y0 = np.round((first - lo) * scale).astype(int)
        sketch[y0 : y0 + side, x0 : x0 + side] = cv2.resize(
            pattern, (side, side), interpolation=cv2.INTER_AREA
        )
    return sketch, to_px


def structure_score(
    frame: np.ndarray, registration: Registration, layout_json: Mapping[str, Any]
) -> float:
    """How well the frame (uint8 BGR) shows the companion board's printed structure where the
    registration puts it: the correlation (−1 … 1) of the frame seen from above through the
    registration with `structure_sketch`. A board seen where it is scores high; the board off
    by half a chair spacing, or another layout's board, scores low."""
    sketch, to_px = structure_sketch(layout_json)
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    sketch_to_frame = registration.homography @ np.linalg.inv(to_px)
    view = cv2.warpPerspective(
        gray,
        sketch_to_frame,
        (sketch.shape[1], sketch.shape[0]),
        flags=cv2.WARP_INVERSE_MAP | cv2.INTER_AREA,
    ).astype(np.float64)
    a = view - view.mean()
    b = sketch.astype(np.float64) - sketch.mean()
    norm = math.sqrt(float((a * a).sum()) * float((b * b).sum()))
    return float((a * b).sum() / norm) if norm > 0 else 0.0


# --- printed boards: corners remembered per layout ------------------------------------------------


def board_corners_file(layout_name: str, home: Path | None = None) -> Path:
    """Where the corners of a printed board of `layout_name` are remembered."""
    return zones_file("x", home).parent.parent / "boards" / f"{layout_name}.json"


def save_board_corners(
    layout_name: str,
    corners_px: Sequence[Sequence[float]],
    frame_size: tuple[int, int],
    home: Path | None = None,
) -> Path:
    """Remember the four corners (clockwise from top left, image px) the user gave for a layout."""
    corners = np.asarray(corners_px, float)
    if corners.shape != (4, 2):
        raise ValueError(f"board corners must be 4 [x, y] points, got shape {corners.shape}")
    path = board_corners_file(layout_name, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "layout": layout_name,
        "frame_size": list(frame_size),
        "corners": (corners / np.array(frame_size, float)).tolist(),
    }
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(tmp, path)
    return path


def load_board_corners(
    layout_name: str, frame_size: tuple[int, int], home: Path | None = None
) -> np.ndarray | None:
    """The remembered corners of `layout_name` in pixels of `frame_size`, or None."""
    path = board_corners_file(layout_name, home)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return np.asarray(data["corners"], float) * np.array(frame_size, float)


def printed_board_corners_units(layout_json: Mapping[str, Any], margin: float = 60.0) -> np.ndarray:
    """The four corners of a printed board of `layout_json` in board units, clockwise from the
    top left: the board's own corners for a layout traced from a photo (``traced_from``'s
    ``board_units``: origin at the board's top-left corner, see `vision.layout_trace`), else
    the layout's extent grown by `margin` (`layout_extent`)."""
    traced = layout_json.get("traced_from", {})
    size = traced.get("board_units") if isinstance(traced, Mapping) else None
    if size is not None:
        w, h = (float(v) for v in size)
        return np.array([[0.0, 0.0], [w, 0.0], [w, h], [0.0, h]])
    u0, v0, u1, v1 = layout_extent(layout_json, margin)
    return np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]])


def register_printed_board(
    corners_px: Sequence[Sequence[float]] | np.ndarray,
    layout_json: Mapping[str, Any],
    config: CafeReaderConfig | None = None,
) -> Registration:
    """Register a printed board from its four corners in the image (clockwise from the top
    left), matched to the board's corners in units (`printed_board_corners_units`).

    Raises:
        RegistrationError: the corners are not 4 points or are degenerate (not a convex
            quadrilateral listed clockwise).
    """
    config = config or CafeReaderConfig()
    corners = np.asarray(corners_px, np.float64)
    if corners.shape != (4, 2) or not is_convex_clockwise(corners):
        raise RegistrationError(
            "board not registered: the 4 board corners must form a convex quadrilateral, "
            "clockwise from the top left"
        )
    units = printed_board_corners_units(layout_json, config.board_margin)
    (u0, v0), (u1, v1) = units.min(axis=0), units.max(axis=0)
    return register_points(units, corners, (float(u0), float(v0), float(u1), float(v1)))


# --- reading --------------------------------------------------------------------------------------


def _layout_points(layout: Layout, layout_json: Mapping[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    chairs = {c["id"]: c["center"] for c in layout_json["chairs"]}
    missing = [chair.id for chair in layout.chairs if chair.id not in chairs]
    if missing:
        raise RegistrationError(f"layout has no position for chair {missing[0]}")
    chair_pts = np.asarray([chairs[chair.id] for chair in layout.chairs], float)
    stools = np.asarray(layout_json.get("bar", {}).get("stools", []), float).reshape(-1, 2)
    return chair_pts, stools


def _side(u: float, v: float, extent: tuple[float, float, float, float]) -> str:
    u0, v0, u1, v1 = extent
    du = max(u0 - u, 0.0, u - u1) / max(u1 - u0, 1e-9)
    dv = max(v0 - v, 0.0, v - v1) / max(v1 - v0, 1e-9)
    if dv >= du:
        return "near" if v > v1 else "far"
    return "left" if u < u0 else "right"


def hand_place_units(
    side: str, extent: tuple[float, float, float, float], place: tuple[float, float, float]
) -> np.ndarray:
    """(4, 2) the corners, in board units, of where the hand of the player at `side` lies
    (`CafeReaderConfig.hand_place`)."""
    u0, v0, u1, v1 = extent
    start, end, along = place
    mid_u, mid_v = (u0 + u1) / 2, (v0 + v1) / 2
    if side in ("near", "far"):
        edge, sign = (v1, 1.0) if side == "near" else (v0, -1.0)
        a, b = edge + sign * start, edge + sign * end
        return np.array(
            [[mid_u - along, a], [mid_u + along, a], [mid_u + along, b], [mid_u - along, b]]
        )
    edge, sign = (u0, -1.0) if side == "left" else (u1, 1.0)
    a, b = edge + sign * start, edge + sign * end
    return np.array(
        [[a, mid_v - along], [a, mid_v + along], [b, mid_v + along], [b, mid_v - along]]
    )


def hands_out_of_view(
    sides: Sequence[str],
    frame_size: tuple[int, int],
    registration: Registration,
    place: tuple[float, float, float] | None,
) -> list[str]:
    """The `sides` whose hand place (`hand_place_units`) the frame (width, height) does not
    wholly show. A corner beyond the table plane's horizon (its projective weight of the other
    sign than the board's centre's) is not shown, wherever its division would put it."""
    if place is None or not sides:
        return []
    width, height = frame_size
    h = np.asarray(registration.homography, np.float64)
    u0, v0, u1, v1 = registration.extent_units
    centre_w = float(h[2] @ np.array([(u0 + u1) / 2, (v0 + v1) / 2, 1.0]))
    out = []
    for side in sides:
        corners = hand_place_units(side, registration.extent_units, place)
        mapped = np.column_stack([corners, np.ones(len(corners))]) @ h.T
        with np.errstate(divide="ignore", invalid="ignore"):
            px = mapped[:, :2] / mapped[:, 2:]
        inside = (px[:, 0] >= 0) & (px[:, 0] < width) & (px[:, 1] >= 0) & (px[:, 1] < height)
        ahead = mapped[:, 2] * centre_w > 0
        if not (np.isfinite(px).all() and (inside & ahead).all()):
            out.append(side)
    return out


def read_table(
    detections: Detections,
    frame_size: tuple[int, int],
    registration: Registration,
    layout: Layout,
    layout_json: Mapping[str, Any],
    *,
    n_players: int | None = None,
    config: CafeReaderConfig | None = None,
    slots: Sequence[SlotRead] | None = None,
) -> Reading:
    """Tiles → chairs, stools and hands: an `Observation`, or the problems that prevent one.

    With `n_players`, tiles outside the board are each player's hand (sides as in `SIDES`);
    without, hands are not read (`Observation.hands` is None) and such tiles are ignored. An
    unidentified tile on one of the registration's markers is the marker, and is ignored. A
    hand that cannot be read (a tile beside it not identified, another game's piece there) does
    not block the board nor the other hands: that player's hand is None (the rules' `explain`
    accepts it: what they draw is then unknown), ``seen["hands_unread"]`` says why and
    ``seen["hands_unread_sides"]`` which; so is a hand whose place the frame does not wholly
    show (`CafeReaderConfig.hand_place`: its tiles beyond the frame's edge would be missing). A
    tile on a side where nobody sits leaves every hand unread (`Observation.hands` None): which
    hand it belongs to is unknown.

    With `slots` (every chair and stool read from the frame, `vision.readers.cafe_slots`), the
    board is what the slots show: an empty slot is empty, an identified one holds its tile, and
    an occupied slot the slot reader could not identify takes the identity of a detected tile
    on it, else it holds `UNKNOWN_TILE` (taken, identity unknown: the rules' `explain` decides
    what it can be). Those slots are listed in ``seen["unidentified_chairs"]`` and
    ``seen["unidentified_stools"]`` (stool numbers from 1), with one line each in
    ``seen["notes"]`` for the user. Detections then only add the hands (tiles off the board).
    """
    config = config or CafeReaderConfig()
    tiles = detections[detections.kinds == "tile"]
    units = registration.image_to_units(card_centres(tiles))
    chair_pts, stool_pts = _layout_points(layout, layout_json)
    seated: list[str | None] = [None] * len(layout.chairs)
    stools: dict[int, str] = {}
    sides = SIDES.get(n_players or 0, ())
    hands: dict[str, list[str]] = {side: [] for side in sides}
    problems: list[str] = []
    unread_sides: set[str] = set()  # a hand with a tile that could not be read
    board_problems: list[str] = []  # from detections on the board: replaced by the slots'
    out_of_view: list[str] = []  # also told as notes: moving the tablet fixes it
    if n_players:
        for cut in hands_out_of_view(sides, frame_size, registration, config.hand_place):
            out_of_view.append(f"the {cut} player's hand lies partly outside the camera's view")
            unread_sides.add(cut)
        problems.extend(out_of_view)
    u0, v0, u1, v1 = registration.extent_units
    on_marker = registration.is_on_marker(units)
    for (u, v), identity, marker in zip(units, tiles.identities, on_marker, strict=True):
        on_board = u0 <= u <= u1 and v0 <= v <= v1
        if identity is None and marker:
            continue  # a registration marker taken for a tile
        side = None if on_board else _side(u, v, registration.extent_units)
        if identity is None:
            if on_board:
                board_problems.append("a tile on the board could not be identified")
            elif n_players:
                problems.append("a tile beside the board could not be identified")
                unread_sides.add(str(side))
            continue
        if not str(identity).startswith(PREFIX):
            (board_problems if on_board else problems).append(foreign_problem(str(identity), GAME))
            if not on_board:
                unread_sides.add(str(side))
            continue
        tile = str(identity)[len(PREFIX) :]
        if side is not None:
            if side in hands:
                hands[side].append(tile)
            elif n_players:
                problems.append(f"a tile lies on the {side} side, where no player sits")
                unread_sides.update(sides)
            continue
        d_chair = np.hypot(*(chair_pts - (u, v)).T)
        d_stool = np.hypot(*(stool_pts - (u, v)).T) if len(stool_pts) else np.array([np.inf])
        if d_stool.min() <= config.stool_reach:
            stool = int(d_stool.argmin())
            if stool in stools:
                board_problems.append(f"two tiles on bar stool {stool + 1}")
            stools[stool] = tile
        elif d_chair.min() <= config.chair_reach:
            chair = int(d_chair.argmin())
            if seated[chair] is not None:
                board_problems.append(f"two tiles on chair {layout.chairs[chair].id}")
            seated[chair] = tile
        else:
            board_problems.append(
                f"a tile ({tile}) lies between chairs at board units ({u:.0f}, {v:.0f})"
            )
    unknown_chairs: list[str] = []
    unknown_stools: list[int] = []
    if slots is not None:
        seated, stools = _board_from_slots(slots, layout, seated, stools)
        board_problems = []  # the slots, not the detections, say what the board holds
        unknown_chairs = [layout.chairs[i].id for i, t in enumerate(seated) if t == UNKNOWN_TILE]
        unknown_stools = [i + 1 for i in sorted(stools) if stools[i] == UNKNOWN_TILE]
    hands_unread = tuple(dict.fromkeys(problems))  # everything so far is about the hands
    problems = list(board_problems)
    bar = [stools[i] for i in sorted(stools)]
    if sorted(stools) != list(range(len(stools))):
        problems.append("the bar has a gap: stools are filled in order (CI-14)")
    seen: dict[str, Any] = {
        # identified guests only: the unidentified are listed apart (below), as before
        "seated": {
            layout.chairs[i].id: t
            for i, t in enumerate(seated)
            if t is not None and t != UNKNOWN_TILE
        },
        "bar": bar,
        "hands": {side: sorted(h) for side, h in hands.items()},
    }
    if hands_unread:
        seen["hands_unread"] = list(hands_unread)
        seen["hands_unread_sides"] = [side for side in sides if side in unread_sides]
    # taken but not identified: information for the user, not a reason to refuse the board
    notes = out_of_view + [f"a tile on chair {c} could not be identified" for c in unknown_chairs]
    notes += [f"a tile on bar stool {n} could not be identified" for n in unknown_stools]
    if unknown_chairs:
        seen["unidentified_chairs"] = unknown_chairs
    if unknown_stools:
        seen["unidentified_stools"] = unknown_stools
    if notes:
        seen["notes"] = notes
    if problems:
        return Reading(None, tuple(dict.fromkeys(problems)), seen)
    read_hands = bool(n_players) and any(side not in unread_sides for side in sides)
    observation = Observation(
        seated=tuple(seated),
        bar=tuple(bar),
        hands=tuple(None if side in unread_sides else tuple(sorted(hands[side])) for side in sides)
        if read_hands
        else None,
    )
    return Reading(observation, (), seen)


def _board_from_slots(
    slots: Sequence[SlotRead],
    layout: Layout,
    detected_seated: Sequence[str | None],
    detected_stools: Mapping[int, str],
) -> tuple[list[str | None], dict[int, str]]:
    """Chairs (layout order) and stools as the slots show them: a detected tile names an
    occupied slot the slot reader could not identify (the detector's fallback), and a slot
    nothing names holds `UNKNOWN_TILE` (seen taken: never left empty, never guessed)."""
    chair_index = {chair.id: i for i, chair in enumerate(layout.chairs)}
    seated: list[str | None] = [None] * len(layout.chairs)
    stools: dict[int, str] = {}
    for read in slots:
        if not read.occupied:
            continue
        if read.slot.kind == "stool":
            stools[read.slot.index] = (
                read.tile or detected_stools.get(read.slot.index) or UNKNOWN_TILE
            )
            continue
        index = chair_index.get(read.slot.id)
        if index is None:
            continue  # a chair of another layout: the slot reader was built for another board
        seated[index] = read.tile or detected_seated[index] or UNKNOWN_TILE
    return seated, stools


def register_frame(
    frame: np.ndarray,
    layout_json: Mapping[str, Any],
    *,
    printed: bool = False,
    home: Path | None = None,
    config: CafeReaderConfig | None = None,
) -> Registration:
    """The board's registration in `frame`: the companion board's markers, or for a `printed`
    board the corners remembered for its layout (`save_board_corners`).

    Raises:
        RegistrationError: markers not found, or no corners remembered for a printed board.
    """
    if not printed:
        return register_companion_board(frame, layout_json, config)
    name = str(layout_json.get("name", "layout"))
    corners = load_board_corners(name, (frame.shape[1], frame.shape[0]), home)
    if corners is None:
        raise RegistrationError(f"board not registered: no corners given yet for layout {name!r}")
    return register_printed_board(corners, layout_json, config)


def read_frame(
    frame: np.ndarray,
    detections: Detections,
    layout: Layout,
    layout_json: Mapping[str, Any],
    *,
    n_players: int | None = None,
    registration: Registration | None = None,
    printed: bool = False,
    home: Path | None = None,
    config: CafeReaderConfig | None = None,
    slot_reader: SlotReader | None = None,
) -> tuple[Reading, Registration | None]:
    """Register (unless a `registration` is given: the board does not move) and read a frame.

    A `printed` board uses the corners remembered for its layout in `home` (the user data
    folder unless given). With a `slot_reader` (built once for the layout), every chair and
    stool is read from the frame itself (`vision.readers.cafe_slots`) and the detections only
    add the players' hands and name slots it could not identify (see `read_table`).

    A board that cannot be registered is a problem of the reading, never a guess. Returns the
    reading and the registration to reuse for the next frames.
    """
    if registration is None:
        try:
            registration = register_frame(
                frame, layout_json, printed=printed, home=home, config=config
            )
        except RegistrationError as error:
            return Reading(None, (str(error),), {}), None
    size = (int(frame.shape[1]), int(frame.shape[0]))
    slots = slot_reader.read(frame, registration) if slot_reader is not None else None
    reading = read_table(
        detections,
        size,
        registration,
        layout,
        layout_json,
        n_players=n_players,
        config=config,
        slots=slots,
    )
    return reading, registration


# Tiles are square: on a scoring photo their boxes are too (named tiles of 100 validation
# tables, seeds 8,000,100+: median 1.04 longer side over shorter, largest 1.38). A Dice King
# photo of two cards read as Café was scored: one box over both cards (1.48), the dark red
# penalty card on a yellow cloth named Spain.
SPREAD_TILE_MAX_ASPECT = 1.45


def read_spread(detections: Detections, *, what: str = "photo") -> Reading:
    """The tiles of one photo of a player's remaining tiles (observation: list of tile ids).

    Unidentified "cards" on a tile are set aside (`spread_pieces`), counted in ``seen["ignored"]``.
    """
    pieces, ignored = spread_pieces(detections, "tile")
    problems: list[str] = []
    tiles: list[str] = []
    if len(pieces) == 0:
        problems.append(f"no tiles found in the {what}")
    if small_pieces(pieces, "tile").any():
        problems.append(
            f"a tile in the {what} looks much smaller than the others (a pattern of the table?)"
        )
    sides = np.sort(pieces.boxes_xyxy[:, 2:] - pieces.boxes_xyxy[:, :2], axis=1)
    if (sides[:, 1] >= SPREAD_TILE_MAX_ASPECT * np.maximum(sides[:, 0], 1e-6)).any():
        problems.append(
            f"a tile in the {what} is not square (two tiles seen as one, or another game's card?)"
        )
    for index, identity in enumerate(pieces.identities):
        if identity is None:
            problems.append(unidentified_problem(what, "tile", pieces.boxes_xyxy, index))
        elif not str(identity).startswith(PREFIX):
            problems.append(foreign_problem(str(identity), GAME))
        else:
            tiles.append(str(identity)[len(PREFIX) :])
    seen = {"tiles": sorted(tiles), "ignored": ignored}
    return Reading(None if problems else sorted(tiles), tuple(dict.fromkeys(problems)), seen)


__all__ = [
    "SIDES",
    "CafeReaderConfig",
    "Registration",
    "RegistrationError",
    "board_corners_file",
    "companion_marker_units",
    "find_marker_candidates",
    "find_markers",
    "layout_extent",
    "load_board_corners",
    "printed_board_corners_units",
    "read_frame",
    "read_spread",
    "read_table",
    "register_companion_board",
    "register_frame",
    "register_points",
    "register_printed_board",
    "save_board_corners",
    "structure_score",
    "structure_sketch",
]
