"""Café International reader: register the board, put each tile on its chair or bar stool.

Registration gives the homography from board units (the layout's coordinates) to image pixels:

- the companion board: its four ArUco corner markers (OpenCV ``DICT_4X4_50``, ids 0–3 clockwise
  from the top left) found in the frame (`find_markers`), matched to where the art draws them;
- a printed board: four corners the user tapped, matched to four layout points (by default the
  corners of the layout's extent), remembered per layout in the user data folder
  (`save_board_corners`, `load_board_corners`).

`read_table` then maps every tile's centre into board units: a tile within reach of a chair sits
on it, of a stool sits at the bar, outside the board lies in a player's face-up hand (CI-6), by
the side of the board it lies on. Two tiles on one chair, a tile between chairs, an
unidentified tile or another game's piece are problems, never guesses.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from engines.cafe_international.explain import Observation
from engines.cafe_international.layout import Layout
from vision.detections import Detections
from vision.readers import Reading, card_centres, foreign_problem
from vision.readers.zones import zones_file

GAME = "cafe-international"
PREFIX = GAME + "/"
MARKER_NAMES = ("top_left", "top_right", "bottom_right", "bottom_left")
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
        min_markers: registration needs this many of the 4 corner markers (2 markers leave the
            far side of the board up to 25 px off on rendered tables; 3 stay within 9 px).
    """

    chair_reach: float = 26.0
    stool_reach: float = 15.0
    board_margin: float = 60.0
    min_markers: int = 3


@dataclass(frozen=True)
class Registration:
    """Board units → image pixels (`homography`), and the board's extent in units."""

    homography: np.ndarray
    extent_units: tuple[float, float, float, float]

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


@functools.lru_cache(maxsize=4)
def companion_marker_units(layout_key: str = "reference") -> dict[str, np.ndarray]:
    """Where the companion board's art draws its markers, in board units (marker → (4, 2)).

    Reads the companion art (`datasets.art.board`) once; the art is the board we print.
    """
    from datasets.art import board, default_layout

    art = board(default_layout(), 1.0)
    to_units = np.linalg.inv(np.asarray(art.unit_to_px, np.float64))
    out = {}
    for name, corners in art.markers.items():
        pts = np.column_stack([np.asarray(corners, float), np.ones(4)]) @ to_units.T
        out[name] = pts[:, :2] / pts[:, 2:3]
    return out


def find_markers(frame: np.ndarray) -> dict[str, np.ndarray]:
    """The companion board's markers in `frame` (uint8 BGR): marker name → (4, 2) corners px."""
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
    found: dict[str, np.ndarray] = {}
    # second try on a contrast-equalised image (dim or washed-out light)
    for image in (gray, cv2.createCLAHE(clipLimit=3.0, tileGridSize=(8, 8)).apply(gray)):
        corners, ids, _ = _aruco_detector().detectMarkers(image)
        if ids is not None:
            for quad, marker_id in zip(corners, ids.ravel(), strict=True):
                name = MARKER_NAMES[int(marker_id)] if 0 <= marker_id < len(MARKER_NAMES) else None
                if name is not None and name not in found:
                    found[name] = quad.reshape(4, 2)
        if len(found) == len(MARKER_NAMES):
            break
    return found


@functools.lru_cache(maxsize=1)
def _aruco_detector() -> Any:
    """ArUco detection tuned for small, oblique markers (a board seen from the table's edge)."""
    params = cv2.aruco.DetectorParameters()
    params.minMarkerPerimeterRate = 0.01
    params.adaptiveThreshWinSizeMin = 3
    params.adaptiveThreshWinSizeStep = 4
    params.adaptiveThreshWinSizeMax = 33
    params.polygonalApproxAccuracyRate = 0.06
    params.perspectiveRemovePixelPerCell = 8
    params.perspectiveRemoveIgnoredMarginPerCell = 0.2
    params.errorCorrectionRate = 0.8
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    return cv2.aruco.ArucoDetector(dictionary, params)


def register_companion_board(
    frame: np.ndarray, layout_json: Mapping[str, Any], config: CafeReaderConfig | None = None
) -> Registration:
    """Register the companion board from its corner markers (`config.min_markers` of the 4).

    Raises:
        RegistrationError: too few markers of the board in the frame.
    """
    config = config or CafeReaderConfig()
    found = find_markers(frame)
    if len(found) < config.min_markers:
        raise RegistrationError(
            f"board not registered: {len(found)} of 4 corner markers found "
            f"(need {config.min_markers} or more)"
        )
    units = companion_marker_units()
    src = np.vstack([units[name] for name in found])
    dst = np.vstack([found[name] for name in found])
    return register_points(src, dst, layout_extent(layout_json, config.board_margin))


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


def register_printed_board(
    corners_px: Sequence[Sequence[float]] | np.ndarray,
    layout_json: Mapping[str, Any],
    config: CafeReaderConfig | None = None,
) -> Registration:
    """Register a printed board from its four corners (clockwise from the top left) in the image:
    they are matched to the corners of the layout's extent."""
    config = config or CafeReaderConfig()
    u0, v0, u1, v1 = layout_extent(layout_json, config.board_margin)
    units = [[u0, v0], [u1, v0], [u1, v1], [u0, v1]]
    return register_points(units, corners_px, (u0, v0, u1, v1))


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


def read_table(
    detections: Detections,
    frame_size: tuple[int, int],
    registration: Registration,
    layout: Layout,
    layout_json: Mapping[str, Any],
    *,
    n_players: int | None = None,
    config: CafeReaderConfig | None = None,
) -> Reading:
    """Tiles → chairs, stools and hands: an `Observation`, or the problems that prevent one.

    With `n_players`, tiles outside the board are each player's hand (sides as in `SIDES`);
    without, hands are not read (`Observation.hands` is None) and such tiles are ignored.
    """
    del frame_size  # pixels are mapped through the registration
    config = config or CafeReaderConfig()
    tiles = detections[detections.kinds == "tile"]
    units = registration.image_to_units(card_centres(tiles))
    chair_pts, stool_pts = _layout_points(layout, layout_json)
    seated: list[str | None] = [None] * len(layout.chairs)
    stools: dict[int, str] = {}
    sides = SIDES.get(n_players or 0, ())
    hands: dict[str, list[str]] = {side: [] for side in sides}
    problems: list[str] = []
    u0, v0, u1, v1 = registration.extent_units
    for (u, v), identity in zip(units, tiles.identities, strict=True):
        on_board = u0 <= u <= u1 and v0 <= v <= v1
        if identity is None:
            if on_board or n_players:
                where = "on the board" if on_board else "beside the board"
                problems.append(f"a tile {where} could not be identified")
            continue
        if not str(identity).startswith(PREFIX):
            problems.append(foreign_problem(str(identity), GAME))
            continue
        tile = str(identity)[len(PREFIX) :]
        if not on_board:
            side = _side(u, v, registration.extent_units)
            if side in hands:
                hands[side].append(tile)
            elif n_players:
                problems.append(f"a tile lies on the {side} side, where no player sits")
            continue
        d_chair = np.hypot(*(chair_pts - (u, v)).T)
        d_stool = np.hypot(*(stool_pts - (u, v)).T) if len(stool_pts) else np.array([np.inf])
        if d_stool.min() <= config.stool_reach:
            stool = int(d_stool.argmin())
            if stool in stools:
                problems.append(f"two tiles on bar stool {stool + 1}")
            stools[stool] = tile
        elif d_chair.min() <= config.chair_reach:
            chair = int(d_chair.argmin())
            if seated[chair] is not None:
                problems.append(f"two tiles on chair {layout.chairs[chair].id}")
            seated[chair] = tile
        else:
            problems.append(
                f"a tile ({tile}) lies between chairs at board units ({u:.0f}, {v:.0f})"
            )
    bar = [stools[i] for i in sorted(stools)]
    if sorted(stools) != list(range(len(stools))):
        problems.append("the bar has a gap: stools are filled in order (CI-14)")
    seen = {
        "seated": {layout.chairs[i].id: t for i, t in enumerate(seated) if t is not None},
        "bar": bar,
        "hands": {side: sorted(h) for side, h in hands.items()},
    }
    if problems:
        return Reading(None, tuple(dict.fromkeys(problems)), seen)
    observation = Observation(
        seated=tuple(seated),
        bar=tuple(bar),
        hands=tuple(tuple(sorted(hands[side])) for side in sides) if n_players else None,
    )
    return Reading(observation, (), seen)


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
    config: CafeReaderConfig | None = None,
) -> tuple[Reading, Registration | None]:
    """Register (unless a `registration` is given: the board does not move) and read a frame.

    A board that cannot be registered is a problem of the reading, never a guess. Returns the
    reading and the registration to reuse for the next frames.
    """
    if registration is None:
        try:
            registration = register_frame(frame, layout_json, printed=printed, config=config)
        except RegistrationError as error:
            return Reading(None, (str(error),), {}), None
    size = (int(frame.shape[1]), int(frame.shape[0]))
    reading = read_table(
        detections, size, registration, layout, layout_json, n_players=n_players, config=config
    )
    return reading, registration


def read_spread(detections: Detections, *, what: str = "photo") -> Reading:
    """The tiles of one photo of a player's remaining tiles (observation: list of tile ids)."""
    pieces = detections[detections.kinds != "die"]
    problems: list[str] = []
    tiles: list[str] = []
    if len(pieces) == 0:
        problems.append(f"no tiles found in the {what}")
    for identity in pieces.identities:
        if identity is None:
            problems.append(f"a tile in the {what} could not be identified")
        elif not str(identity).startswith(PREFIX):
            problems.append(foreign_problem(str(identity), GAME))
        else:
            tiles.append(str(identity)[len(PREFIX) :])
    seen = {"tiles": sorted(tiles)}
    return Reading(None if problems else sorted(tiles), tuple(dict.fromkeys(problems)), seen)


__all__ = [
    "SIDES",
    "CafeReaderConfig",
    "Registration",
    "RegistrationError",
    "board_corners_file",
    "companion_marker_units",
    "find_markers",
    "layout_extent",
    "load_board_corners",
    "read_frame",
    "read_spread",
    "read_table",
    "register_companion_board",
    "register_frame",
    "register_points",
    "register_printed_board",
    "save_board_corners",
]
