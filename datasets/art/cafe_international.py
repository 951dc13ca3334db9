"""Café International companion art: the guest tiles, their back, and the board from a layout.

A guest tile shows its nationality's flag over the upper part and, on a band below, the gender
symbol (♀ or ♂, drawn as shapes) beside a short label (``ITA``). Women have a cream band with a
round frame around the symbol, men a dark band with a square frame: gender differs in colour and in
shape. Jokers show a multicoloured harlequin flag with a jester's hat.

The board is drawn from a layout (design contract): tables with their nationality's flag, chair
places (a shared chair is linked to both its tables), the bar with its numbered stools
and values, and ArUco registration markers in a white-framed band around the play area: where they
stand, their size and ids come from the spec the reader uses too
(`vision/readers/board_markers.json`, placed by `vision.geometry.board_markers_units`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from datasets.art.palette import CI_TILE_MM, FLAG, NATIONALITY_CODES
from datasets.art.pictograms import (
    BGR,
    WHITE,
    Canvas,
    darker,
    gender_symbol,
    hex_bgr,
    lighter,
    rounded_rect_points,
    star,
)
from vision.geometry import board_markers_units, layout_spacing, load_board_marker_spec

_FLAG_FRACTION = 0.6  # of the inner tile height taken by the flag


# -- flags ----------------------------------------------------------------------------------------
def draw_flag(cv: Canvas, nationality: str, x0: float, y0: float, x1: float, y1: float) -> None:
    """Draw the simplified flag of `nationality` (or ``"joker"``) into a rectangle of `cv`."""
    w, h = x1 - x0, y1 - y0

    def hstripes(colours: list[BGR], weights: list[float] | None = None) -> None:
        weights = weights or [1.0] * len(colours)
        total, y = sum(weights), y0
        for col, wt in zip(colours, weights, strict=True):
            y_next = y + h * wt / total
            cv.rect(x0, y, x1, y_next + 0.05, col)
            y = y_next

    def vstripes(colours: list[BGR]) -> None:
        for i, col in enumerate(colours):
            cv.rect(x0 + w * i / len(colours), y0, x0 + w * (i + 1) / len(colours) + 0.05, y1, col)

    # drawing may spill over the rectangle (thick diagonals): keep what lies around it
    xa, ya = int(round(x0 * cv.scale)), int(round(y0 * cv.scale))
    xb, yb = int(round(x1 * cv.scale)), int(round(y1 * cv.scale))
    pad = int(math.ceil(0.3 * max(xb - xa, yb - ya))) + 2
    H, W = cv.image.shape[:2]
    ra, rb = max(ya - pad, 0), min(yb + pad, H)
    ca, cb = max(xa - pad, 0), min(xb + pad, W)
    before = cv.image[ra:rb, ca:cb].copy()
    _draw_flag_unclipped(cv, nationality, x0, y0, x1, y1, hstripes, vstripes)
    outside = np.ones(before.shape[:2], bool)
    outside[max(ya - ra, 0) : max(yb - ra, 0), max(xa - ca, 0) : max(xb - ca, 0)] = False
    cv.image[ra:rb, ca:cb][outside] = before[outside]


def _draw_flag_unclipped(
    cv: Canvas,
    nationality: str,
    x0: float,
    y0: float,
    x1: float,
    y1: float,
    hstripes: Any,
    vstripes: Any,
) -> None:
    w, h = x1 - x0, y1 - y0
    f = FLAG
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    if nationality == "africa":
        hstripes([f["africa_green"], f["africa_yellow"], f["africa_red"]])
        cv.poly(star((cx, cy), h * 0.3, h * 0.12), f["black"])
    elif nationality == "china":
        cv.rect(x0, y0, x1, y1, f["red"])
        cv.poly(star((x0 + w * 0.2, y0 + h * 0.3), h * 0.2, h * 0.08), f["yellow"])
        for ax, ay in ((0.38, 0.12), (0.46, 0.26), (0.46, 0.45), (0.38, 0.58)):
            cv.poly(star((x0 + w * ax, y0 + h * ay), h * 0.07, h * 0.028), f["yellow"])
    elif nationality == "cuba":
        hstripes([f["cuba_blue"], f["white"], f["cuba_blue"], f["white"], f["cuba_blue"]])
        cv.poly([(x0, y0), (x0 + w * 0.45, cy), (x0, y1)], f["red"])
        cv.poly(star((x0 + w * 0.15, cy), h * 0.16, h * 0.065), f["white"])
    elif nationality == "france":
        vstripes([f["french_blue"], f["white"], f["french_red"]])
    elif nationality == "germany":
        hstripes([f["black"], f["red"], f["gold"]])
    elif nationality == "india":
        hstripes([f["saffron"], f["white"], f["india_green"]])
        cv.circle((cx, cy), h * 0.13, f["navy"], h * 0.03)
        for i in range(12):
            a = math.pi * i / 12
            cv.line(
                (cx - h * 0.13 * math.cos(a), cy - h * 0.13 * math.sin(a)),
                (cx + h * 0.13 * math.cos(a), cy + h * 0.13 * math.sin(a)),
                f["navy"],
                h * 0.012,
            )
    elif nationality == "italy":
        vstripes([f["green"], f["white"], f["red"]])
    elif nationality == "russia":
        hstripes([f["white"], f["blue"], f["red"]])
    elif nationality == "spain":
        hstripes([f["red"], f["yellow"], f["red"]], [1, 2, 1])
    elif nationality == "turkey":
        cv.rect(x0, y0, x1, y1, f["turkey_red"])
        cv.circle((x0 + w * 0.38, cy), h * 0.26, f["white"])
        cv.circle((x0 + w * 0.43, cy), h * 0.21, f["turkey_red"])
        cv.poly(star((x0 + w * 0.6, cy), h * 0.13, h * 0.055, rotation_deg=180), f["white"])
    elif nationality == "uk":
        cv.rect(x0, y0, x1, y1, f["navy"])
        cv.line((x0, y0), (x1, y1), f["white"], h * 0.2)
        cv.line((x0, y1), (x1, y0), f["white"], h * 0.2)
        cv.line((x0, y0), (x1, y1), f["red"], h * 0.07)
        cv.line((x0, y1), (x1, y0), f["red"], h * 0.07)
        cv.rect(cx - h * 0.17, y0, cx + h * 0.17, y1, f["white"])
        cv.rect(x0, cy - h * 0.17, x1, cy + h * 0.17, f["white"])
        cv.rect(cx - h * 0.1, y0, cx + h * 0.1, y1, f["red"])
        cv.rect(x0, cy - h * 0.1, x1, cy + h * 0.1, f["red"])
    elif nationality == "usa":
        hstripes([f["usa_red"] if i % 2 == 0 else f["white"] for i in range(7)])
        cv.rect(x0, y0, x0 + w * 0.45, y0 + h * 4 / 7, f["usa_blue"])
        for j in range(3):
            for i in range(4):
                cv.poly(
                    star(
                        (x0 + w * (0.07 + 0.105 * i), y0 + h * (0.1 + 0.17 * j)), h * 0.05, h * 0.02
                    ),
                    f["white"],
                )
    elif nationality == "joker":
        colours = [hex_bgr(c) for c in ("#E53935", "#FDD835", "#43A047", "#1E88E5", "#8E24AA")]
        n = 6
        for j in range(2):
            for i in range(n):
                col = colours[(i + 2 * j) % len(colours)]
                xa, xb = x0 + w * i / n, x0 + w * (i + 1) / n
                ya, yb = y0 + h * j / 2, y0 + h * (j + 1) / 2
                cv.poly(
                    [
                        ((xa + xb) / 2, ya),
                        (xb, (ya + yb) / 2),
                        ((xa + xb) / 2, yb),
                        (xa, (ya + yb) / 2),
                    ],
                    col,
                )
        _jester_hat(cv, (cx, cy + h * 0.05), h * 0.8)
    else:
        raise ValueError(f"unknown nationality {nationality!r}")


def _jester_hat(cv: Canvas, c: Point2, s: float) -> None:
    x, y = c
    left, right, mid = hex_bgr("#C62828"), hex_bgr("#283593"), hex_bgr("#F9A825")
    base = y + s * 0.3
    cv.poly([(x - s * 0.35, base), (x - s * 0.55, y - s * 0.3), (x, base)], left)
    cv.poly([(x + s * 0.35, base), (x + s * 0.55, y - s * 0.3), (x, base)], right)
    cv.poly([(x - s * 0.15, base), (x, y - s * 0.45), (x + s * 0.15, base)], mid)
    for bx, by in ((-0.55, -0.3), (0.55, -0.3), (0.0, -0.45)):
        cv.circle((x + bx * s, y + by * s), s * 0.07, hex_bgr("#FFEB3B"))
        cv.circle((x + bx * s, y + by * s), s * 0.07, darker(hex_bgr("#FFEB3B"), 0.5), s * 0.015)
    cv.rect(
        x - s * 0.4,
        base - s * 0.02,
        x + s * 0.4,
        base + s * 0.1,
        hex_bgr("#FFFFFF"),
        radius=s * 0.04,
    )


Point2 = tuple[float, float]


# -- tiles ----------------------------------------------------------------------------------------
def draw_tile(nationality: str, gender: str, width_px: int) -> np.ndarray:
    """The face of the guest tile `nationality`/`gender` (``"w"`` or ``"m"``) at `width_px`."""
    w, h = CI_TILE_MM
    woman = gender == "w"
    edge = hex_bgr("#F3EEE3")
    cv = Canvas(w, h, width_px, edge)
    m = 1.1
    flag_y1 = m + (h - 2 * m) * _FLAG_FRACTION
    draw_flag(cv, nationality, m, m, w - m, flag_y1)
    band = hex_bgr("#FFF7E6") if woman else hex_bgr("#24283B")
    ink = hex_bgr("#B0174F") if woman else hex_bgr("#FFFFFF")
    cv.rect(m, flag_y1, w - m, h - m, band)
    cv.line((m, flag_y1), (w - m, flag_y1), darker(band, 0.3) if woman else hex_bgr("#000000"), 0.3)
    band_cy = (flag_y1 + h - m) / 2
    band_h = h - m - flag_y1
    sym_c = (m + band_h * 0.62, band_cy)
    # frame: round for women, square for men
    frame_r = band_h * 0.42
    if woman:
        cv.circle(sym_c, frame_r, lighter(ink, 0.75))
        cv.circle(sym_c, frame_r, ink, 0.35)
    else:
        cv.rect(
            sym_c[0] - frame_r,
            sym_c[1] - frame_r,
            sym_c[0] + frame_r,
            sym_c[1] + frame_r,
            hex_bgr("#3D4466"),
        )
        cv.rect(
            sym_c[0] - frame_r,
            sym_c[1] - frame_r,
            sym_c[0] + frame_r,
            sym_c[1] + frame_r,
            ink,
            0.35,
        )
    gender_symbol(
        cv, (sym_c[0], sym_c[1] + (0.35 if woman else -0.1)), frame_r * 0.36, ink, woman, 0.45
    )
    label = NATIONALITY_CODES[nationality]
    text_x0 = sym_c[0] + frame_r + 0.6
    cv.text(
        label,
        ((text_x0 + w - m - 0.5) / 2, band_cy),
        band_h * 0.4,
        ink,
        weight=0.17,
        max_width=w - m - 0.8 - text_x0,
    )
    cv.poly(rounded_rect_points(0.35, 0.35, w - 0.35, h - 0.35, 1.6), darker(edge, 0.15), 0.25)
    return cv.image


def draw_tile_back(width_px: int) -> np.ndarray:
    """The tile back: a coffee-brown cup on cream, the same for every tile."""
    w, h = CI_TILE_MM
    cv = Canvas(w, h, width_px, hex_bgr("#6D4C41"))
    cv.rect(1.5, 1.5, w - 1.5, h - 1.5, hex_bgr("#F3E5CF"), radius=1.2)
    cup = hex_bgr("#6D4C41")
    cv.ellipse((w / 2, h * 0.72), (7.0, 1.6), darker(cup, 0.1))
    cv.poly(
        [
            (w / 2 - 5.5, h * 0.35),
            (w / 2 + 5.5, h * 0.35),
            (w / 2 + 4.0, h * 0.68),
            (w / 2 - 4.0, h * 0.68),
        ],
        cup,
    )
    cv.ellipse((w / 2 + 5.6, h * 0.48), (2.0, 2.6), cup, thickness=0.9)
    cv.ellipse((w / 2, h * 0.35), (5.5, 1.2), hex_bgr("#3E2723"))
    for dx in (-2.0, 0.0, 2.0):
        cv.ellipse(
            (w / 2 + dx, h * 0.23),
            (0.6, 1.8),
            lighter(cup, 0.45),
            thickness=0.35,
            start=90,
            end=270,
        )
    cv.text("CAFE", (w / 2, h * 0.87), 2.2, cup, weight=0.15)
    return cv.image


# -- the board ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class BoardArt:
    """A drawn board.

    Attributes:
        image: the board, BGR uint8 (H, W, 3).
        unit_to_px: 3×3 float64 affine matrix mapping board units (x, y, 1) to image pixels.
        markers: marker name → (4, 2) float32 outer corners in image pixels (pixel-centre
            coordinates), clockwise from the marker's own top-left corner (ArUco corner order).
        marker_ids: marker name → ArUco id in `MARKER_DICTIONARY`.
    """

    image: np.ndarray
    unit_to_px: np.ndarray
    markers: dict[str, np.ndarray]
    marker_ids: dict[str, int] = field(default_factory=dict)


MARKER_NAMES: tuple[str, ...] = tuple(m["name"] for m in load_board_marker_spec()["markers"])
MARKER_DICTIONARY: str = load_board_marker_spec()["dictionary"]


def marker_bits(marker_id: int) -> np.ndarray:
    """The 6×6 cell pattern (1 = white) of ArUco `marker_id` in `MARKER_DICTIONARY`, border
    included."""
    dictionary = cv2.aruco.getPredefinedDictionary(getattr(cv2.aruco, MARKER_DICTIONARY))
    img = cv2.aruco.generateImageMarker(dictionary, marker_id, 6, borderBits=1)
    return (img > 127).astype(np.uint8)


def load_layout(path: str | Path) -> dict[str, Any]:
    """Read a layout JSON file."""
    return json.loads(Path(path).read_text(encoding="utf-8"))


def default_layout() -> dict[str, Any]:
    """The reference layout when the engine ships it, else this package's placeholder layout."""
    ref = (
        Path(__file__).resolve().parents[2]
        / "engines"
        / "cafe_international"
        / "data"
        / "reference_layout.json"
    )
    if ref.is_file():
        try:
            layout = load_layout(ref)
            if layout.get("tables") and layout.get("chairs"):
                return layout
        except (OSError, ValueError):
            pass
    return load_layout(Path(__file__).with_name("placeholder_layout.json"))


def _min_gap(points: list[np.ndarray], default: float) -> float:
    gaps = [float(np.linalg.norm(a - b)) for i, a in enumerate(points) for b in points[i + 1 :]]
    gaps = [g for g in gaps if g > 1e-9]
    return min(gaps) if gaps else default


@dataclass(frozen=True)
class _Geometry:
    tables: dict[str, np.ndarray]
    chairs: dict[str, np.ndarray]
    stools: list[np.ndarray]
    chair_side: float
    chair_sides: dict[str, float]
    table_radius: float
    stool_radius: float


def _geometry(layout: dict[str, Any]) -> _Geometry:
    """Centres of tables, chairs, stools and the sizes drawn, in board units."""
    try:
        tables = {t["id"]: np.array(t["center"], np.float64) for t in layout["tables"]}
        chairs = {c["id"]: np.array(c["center"], np.float64) for c in layout["chairs"]}
        stools = [np.array(s, np.float64) for s in layout.get("bar", {}).get("stools", [])]
        dists = [
            float(np.linalg.norm(chairs[c["id"]] - tables[t]))
            for c in layout["chairs"]
            for t in c["tables"]
            if t in tables
        ]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"layout without positions: missing {exc}") from None
    d = float(np.median(dists)) if dists else 35.0
    # chair size from the typical spacing; a chair closer than usual to a neighbour shrinks
    nearest = {
        cid: min(
            (float(np.linalg.norm(p - q)) for k, q in chairs.items() if k != cid), default=2 * d
        )
        for cid, p in chairs.items()
    }
    side = min(0.7 * float(np.median(list(nearest.values()))), 0.6 * d) if nearest else d
    sides = {cid: min(side, 0.92 * nearest[cid]) for cid in chairs}
    table_r = max(d - 0.55 * side, 0.4 * side)
    stool_r = min(0.45 * _min_gap(stools, side), 0.5 * side)
    return _Geometry(tables, chairs, stools, side, sides, table_r, stool_r)


def draw_board(layout: dict[str, Any], px_per_unit: float) -> BoardArt:
    """Draw the board described by `layout` at `px_per_unit` pixels per board unit.

    Raises:
        ValueError: the layout has no positions or names an unknown nationality.
    """
    geo = _geometry(layout)
    tables, chairs, stools = geo.tables, geo.chairs, geo.stools
    side, table_r, stool_r = geo.chair_side, geo.table_radius, geo.stool_radius
    # the drawn extent of tables, chairs and the bar
    extents = [(p, table_r * 1.05) for p in tables.values()]
    extents += [(p, side / 2) for p in chairs.values()]
    extents += [(p, stool_r * 1.6) for p in stools]
    lo = np.min([p - r for p, r in extents], axis=0)
    hi = np.max([p + r for p, r in extents], axis=0)
    # registration markers in a band around the play area (shared spec, see `vision.geometry`)
    spec = load_board_marker_spec()
    placed = board_markers_units(layout, spec)
    quiet = float(spec["quiet"]) * layout_spacing(layout)
    corners_units = np.vstack([m.corners_units for m in placed])
    lo = np.minimum(lo, corners_units.min(axis=0) - quiet)
    hi = np.maximum(hi, corners_units.max(axis=0) + quiet)
    frame = 0.3 * side
    lo = lo - frame
    hi = hi + frame
    w_units, h_units = hi - lo
    width_px = int(math.ceil(w_units * px_per_unit))
    w_units = width_px / px_per_unit  # so that the drawing scale is exactly px_per_unit
    felt = hex_bgr("#2E6B4F")
    cv = Canvas(float(w_units), float(h_units), width_px, felt)

    def u(p: np.ndarray | tuple[float, float]) -> tuple[float, float]:
        return (float(p[0] - lo[0]), float(p[1] - lo[1]))

    # floor: a checked parquet inside a felt frame
    cv.rect(0, 0, w_units, h_units, hex_bgr("#E9D8B4"))
    step = side * 1.2
    for j in range(int(h_units / step) + 1):
        for i in range(int(w_units / step) + 1):
            if (i + j) % 2 == 0:
                cv.rect(i * step, j * step, (i + 1) * step, (j + 1) * step, hex_bgr("#E2CFA6"))
    f2 = frame * 0.5
    for x0, y0, x1, y1 in (
        (0, 0, w_units, f2),
        (0, h_units - f2, w_units, h_units),
        (0, 0, f2, h_units),
        (w_units - f2, 0, w_units, h_units),
    ):
        cv.rect(x0, y0, x1, y1, felt)
    # links from each chair to its tables, then the tables, then the chairs on top
    chair_fill, chair_edge = hex_bgr("#8D5A3B"), hex_bgr("#4E2F1C")
    for c in layout["chairs"]:
        p = chairs[c["id"]]
        for tid in c["tables"]:
            if tid in tables:
                cv.line(u(p), u(tables[tid]), hex_bgr("#C9B48A"), side * 0.35)
    # tables with their flags
    for t in layout["tables"]:
        c = u(tables[t["id"]])
        cv.circle(c, table_r * 1.04, hex_bgr("#3E2A1E"))
        cv.circle(c, table_r, hex_bgr("#FAF6EE"))
        fw, fh = table_r * 1.25, table_r * 0.84
        draw_flag(cv, t["nationality"], c[0] - fw / 2, c[1] - fh / 2, c[0] + fw / 2, c[1] + fh / 2)
        cv.rect(
            c[0] - fw / 2,
            c[1] - fh / 2,
            c[0] + fw / 2,
            c[1] + fh / 2,
            hex_bgr("#555555"),
            table_r * 0.03,
        )
    # the bar: a counter under the stools, each stool with its number and value
    values = layout.get("bar", {}).get("values", [])
    if stools:
        sp = np.array(stools)
        blo, bhi = sp.min(axis=0) - stool_r * 1.5, sp.max(axis=0) + stool_r * 1.5
        cv.rect(*u(blo), *u(bhi), hex_bgr("#5D3A1A"), radius=stool_r * 0.6)
        cv.rect(
            *u(blo + stool_r * 0.25),
            *u(bhi - stool_r * 0.25),
            hex_bgr("#7B4F2A"),
            radius=stool_r * 0.5,
        )
        for i, stool in enumerate(stools):
            sp_ = u(stool)
            cv.circle(sp_, stool_r, hex_bgr("#B71C1C"))
            cv.circle(sp_, stool_r * 0.84, hex_bgr("#E53935"))
            cv.text(
                str(i + 1), (sp_[0], sp_[1] - stool_r * 0.36), stool_r * 0.4, WHITE, weight=0.14
            )
            if i < len(values):
                v = int(values[i])
                cv.text(
                    f"{v:+d}",
                    (sp_[0], sp_[1] + stool_r * 0.34),
                    stool_r * 0.46,
                    hex_bgr("#FFF59D"),
                    weight=0.16,
                )
    # chair places (a tile's seat); shared chairs have an inner ring
    for c in layout["chairs"]:
        cp = u(chairs[c["id"]])
        s2 = geo.chair_sides[c["id"]] / 2
        cv.rect(cp[0] - s2, cp[1] - s2, cp[0] + s2, cp[1] + s2, chair_fill, radius=side * 0.18)
        cv.rect(
            cp[0] - s2 * 0.86,
            cp[1] - s2 * 0.86,
            cp[0] + s2 * 0.86,
            cp[1] + s2 * 0.86,
            lighter(chair_fill, 0.25),
            radius=side * 0.14,
        )
        cv.rect(
            cp[0] - s2,
            cp[1] - s2,
            cp[0] + s2,
            cp[1] + s2,
            chair_edge,
            side * 0.04,
            radius=side * 0.18,
        )
        if len(c["tables"]) > 1:  # a shared chair: two-tone rim
            cv.rect(
                cp[0] - s2 * 0.7,
                cp[1] - s2 * 0.7,
                cp[0] + s2 * 0.7,
                cp[1] + s2 * 0.7,
                hex_bgr("#F0E0C0"),
                side * 0.04,
                radius=side * 0.1,
            )
    # registration markers: white quiet square, then the black cells of the ArUco pattern
    markers: dict[str, np.ndarray] = {}
    ids: dict[str, int] = {}
    for m in placed:
        (x0, y0), (x1, y1) = u(m.corners_units[0]), u(m.corners_units[2])
        cv.rect(x0 - quiet, y0 - quiet, x1 + quiet, y1 + quiet, WHITE)
        bits = marker_bits(m.marker_id)
        cell = (x1 - x0) / bits.shape[1]
        for j, i in zip(*np.nonzero(bits == 0), strict=True):
            cv.poly(
                [
                    (x0 + i * cell, y0 + j * cell),
                    (x0 + (i + 1) * cell, y0 + j * cell),
                    (x0 + (i + 1) * cell, y0 + (j + 1) * cell),
                    (x0 + i * cell, y0 + (j + 1) * cell),
                ],
                (0, 0, 0),
            )
        ids[m.name] = m.marker_id
    image = cv.image
    scale = cv.scale
    unit_to_px = np.array(
        [[scale, 0.0, -lo[0] * scale], [0.0, scale, -lo[1] * scale], [0.0, 0.0, 1.0]], np.float64
    )
    for m in placed:
        pts = np.column_stack([m.corners_units, np.ones(4)]) @ unit_to_px.T
        markers[m.name] = pts[:, :2].astype(np.float32)
    return BoardArt(image=image, unit_to_px=unit_to_px, markers=markers, marker_ids=ids)
