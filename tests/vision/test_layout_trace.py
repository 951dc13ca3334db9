"""Tracing a Café International board layout from a photo (`vision.layout_trace`).

Photos are synthetic: a drawn board (the companion board from the reference layout, or a small
board drawn here with plain OpenCV shapes) seen through a pinhole camera above a textured table,
with uneven light, a colour cast, noise, blur and JPEG compression. The answer is the layout the
board was drawn from; `compare_layouts` measures the agreement.
"""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from datasets.art import board
from engines.cafe_international import layout_from_json
from vision import layout_trace as lt
from vision.layout_trace import flags as lt_flags

REFERENCE = Path(__file__).resolve().parents[2] / (
    "engines/cafe_international/data/reference_layout.json"
)


# -- synthetic photos -----------------------------------------------------------------------------
def camera_quad(
    width: float, height: float, size: tuple[int, int], tilt_deg: float, yaw_deg: float
) -> np.ndarray:
    """Where a width × height board's corners land in a photo of `size` taken by a pinhole camera
    tilted by `tilt_deg` and turned by `yaw_deg`, the board filling about 80 % of the frame."""
    w_img, h_img = size
    t, y = math.radians(tilt_deg), math.radians(yaw_deg)
    rz = np.array([[math.cos(y), -math.sin(y), 0], [math.sin(y), math.cos(y), 0], [0, 0, 1]])
    rx = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    rotation = rx @ rz
    f = 1.2 * w_img
    k = np.array([[f, 0, w_img / 2], [0, f, h_img / 2], [0, 0, 1]])
    corners = np.array([[-1, -1, 0], [1, -1, 0], [1, 1, 0], [-1, 1, 0]], np.float64) * [
        width / 2,
        height / 2,
        0,
    ]

    def project(distance: float) -> np.ndarray:
        p = (corners @ rotation.T + [0, 0, distance]) @ k.T
        return p[:, :2] / p[:, 2:]

    distance = 1000.0
    for _ in range(30):
        q = project(distance)
        span = max(np.ptp(q[:, 0]) / w_img, np.ptp(q[:, 1]) / h_img)
        distance *= span / 0.8
    return project(distance).astype(np.float32)


def photograph(
    image: np.ndarray,
    seed: int,
    *,
    tilt: float = 30.0,
    yaw: float = 0.0,
    size: tuple[int, int] = (1600, 1200),
) -> tuple[np.ndarray, np.ndarray]:
    """A synthetic photo of the board `image` (BGR uint8) and the board's corners in it."""
    rng = np.random.default_rng(seed)
    w_img, h_img = size
    grain = cv2.resize(rng.normal(0, 1, (h_img // 40, w_img // 40, 3)), (w_img, h_img))
    table = np.array([60.0, 90.0, 130.0]) + 12 * grain
    h, w = image.shape[:2]
    quad = camera_quad(w, h, size, tilt, yaw)
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, quad)
    warped = cv2.warpPerspective(image, matrix, size, flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), matrix, size) > 0
    out = np.where(inside[..., None], warped.astype(np.float64), table)
    light = 0.85 + 0.2 * np.arange(w_img) / w_img  # brighter to the right
    out = out * light[None, :, None] * np.array([0.95, 1.0, 1.05])  # a warm cast
    out = np.clip(out + rng.normal(0, 3, out.shape), 0, 255).astype(np.uint8)
    out = cv2.GaussianBlur(out, (3, 3), 0)
    _, jpeg = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 85])
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    assert decoded is not None
    return decoded, quad


@cache
def reference_json() -> dict[str, Any]:
    """The reference layout file."""
    return json.loads(REFERENCE.read_text(encoding="utf-8"))


@cache
def reference_art() -> np.ndarray:
    """The companion board drawn from the reference layout."""
    return board(reference_json(), 2.0).image


# a small board of our own: three tables, T1 and T2 share one chair, no bar, plain shapes
OWN_LAYOUT: dict[str, Any] = {
    "name": "own",
    "tables": [
        {"id": "T1", "nationality": "italy", "center": [150, 150]},
        {"id": "T2", "nationality": "germany", "center": [290, 150]},
        {"id": "T3", "nationality": "usa", "center": [220, 330]},
    ],
    "chairs": [
        {"id": "C1", "tables": ["T1"], "center": [150, 80]},
        {"id": "C2", "tables": ["T1"], "center": [80, 150]},
        {"id": "C3", "tables": ["T1"], "center": [150, 220]},
        {"id": "C4", "tables": ["T1", "T2"], "center": [220, 150]},
        {"id": "C5", "tables": ["T2"], "center": [290, 80]},
        {"id": "C6", "tables": ["T2"], "center": [360, 150]},
        {"id": "C7", "tables": ["T2"], "center": [290, 220]},
        {"id": "C8", "tables": ["T3"], "center": [220, 260]},
        {"id": "C9", "tables": ["T3"], "center": [150, 330]},
        {"id": "C10", "tables": ["T3"], "center": [290, 330]},
        {"id": "C11", "tables": ["T3"], "center": [220, 400]},
    ],
    "bar": {
        "values": [1, 2, 3, 4, 5, -2, -4, -6, -8, -10, -4, -6, -8, -10, -12, -6, -8, -10]
        + [-12, -14]
    },
}


def own_board(px_per_unit: float = 2.0) -> np.ndarray:
    """`OWN_LAYOUT` drawn with OpenCV circles, rectangles and stripes on a grey-blue board."""
    s = px_per_unit
    image = np.full((round(470 * s), round(440 * s), 3), (150, 120, 95), np.uint8)  # BGR
    stripes = {
        "italy": ("v", [(70, 146, 0), (255, 255, 255), (55, 43, 206)]),
        "germany": ("h", [(20, 20, 20), (0, 0, 221), (0, 206, 255)]),
    }
    for table in OWN_LAYOUT["tables"]:
        cx, cy = (round(v * s) for v in table["center"])
        cv2.circle(image, (cx, cy), round(55 * s), (235, 245, 250), -1, cv2.LINE_AA)
        cv2.circle(image, (cx, cy), round(55 * s), (40, 40, 40), max(round(2 * s), 1), cv2.LINE_AA)
        fw, fh = round(30 * s), round(20 * s)
        x0, y0 = cx - fw, cy - fh
        if table["nationality"] == "usa":
            for i in range(7):
                colour = (52, 34, 178) if i % 2 == 0 else (255, 255, 255)
                cv2.rectangle(
                    image,
                    (x0, y0 + i * 2 * fh // 7),
                    (cx + fw, y0 + (i + 1) * 2 * fh // 7),
                    colour,
                    -1,
                )
            cv2.rectangle(
                image, (x0, y0), (x0 + round(0.9 * fw), y0 + 8 * fh // 7), (110, 59, 60), -1
            )
        else:
            direction, colours = stripes[table["nationality"]]
            for i, colour in enumerate(colours):
                if direction == "v":
                    a, b = x0 + i * 2 * fw // 3, x0 + (i + 1) * 2 * fw // 3
                    cv2.rectangle(image, (a, y0), (b, cy + fh), colour, -1)
                else:
                    a, b = y0 + i * 2 * fh // 3, y0 + (i + 1) * 2 * fh // 3
                    cv2.rectangle(image, (x0, a), (cx + fw, b), colour, -1)
    for chair in OWN_LAYOUT["chairs"]:
        cx, cy = (round(v * s) for v in chair["center"])
        half = round(16 * s)
        cv2.rectangle(image, (cx - half, cy - half), (cx + half, cy + half), (60, 90, 200), -1)
        cv2.rectangle(image, (cx - half, cy - half), (cx + half, cy + half), (20, 30, 80), 2)
    return image


# -- the companion board ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("seed", "tilt", "yaw"),
    [(0, 30.0, 5.0), (2, 40.0, 93.0)],
    ids=["tilted", "turned-a-quarter"],
)
def test_reference_board_is_traced_table_by_table(seed: int, tilt: float, yaw: float) -> None:
    """The companion board photographed at an angle (or turned a quarter): 24 tables, 68 chairs,
    every chair on the right tables, every flag, 20 stools in order; the loader accepts it."""
    photo, _ = photograph(reference_art(), seed, tilt=tilt, yaw=yaw)
    trace = lt.trace_layout(photo)
    agreement = lt.compare_layouts(trace.layout, reference_json())
    assert agreement == {
        "tables": 24,
        "tables_found": 24,
        "tables_matched": 24,
        "chairs": 68,
        "chairs_found": 68,
        "chairs_matched": 68,
        "adjacency_exact": 68,
        "nationality_right": agreement["nationality_right"],
        "stools": 20,
        "stools_found": 20,
        "stools_in_order": 20,
    }
    assert agreement["nationality_right"] >= 22
    assert trace.is_valid and trace.problems == ()
    loaded = layout_from_json(trace.layout)
    assert sum(chair.is_shared for chair in loaded.chairs) == 28
    assert loaded.bar_values[:5] == (1, 2, 3, 4, 5) and loaded.stools is not None


def test_given_corners_are_used_as_they_are() -> None:
    """With the board's corners given, no outline is searched and the board is not turned."""
    photo, quad = photograph(reference_art(), 4, tilt=35.0, yaw=-10.0)
    trace = lt.trace_layout(photo, quad)
    assert trace.corners_given
    np.testing.assert_allclose(trace.corners_px, quad, atol=1e-3)
    agreement = lt.compare_layouts(trace.layout, reference_json())
    assert agreement["tables_matched"] == 24 and agreement["adjacency_exact"] == 68
    assert trace.layout["traced_from"]["corners_given"] is True


def test_found_board_outline_is_near_the_true_corners() -> None:
    photo, quad = photograph(reference_art(), 5, tilt=25.0, yaw=8.0)
    corners = lt.find_board(photo)
    # the outline found may be the inner edge of the board's frame: a few pixels in
    assert np.abs(corners - quad).max() < 25


# -- a board of our own ---------------------------------------------------------------------------
def test_own_board_drawn_with_plain_shapes_is_traced() -> None:
    """Not tied to our art: three tables drawn as OpenCV circles with striped flags and square
    chairs, one chair shared; no bar (so no stools, which is reported)."""
    photo, _ = photograph(own_board(), 7, tilt=30.0, yaw=-6.0, size=(1200, 900))
    trace = lt.trace_layout(photo)
    agreement = lt.compare_layouts(trace.layout, OWN_LAYOUT)
    assert agreement["tables_found"] == 3 and agreement["tables_matched"] == 3
    assert agreement["chairs_found"] == 11 and agreement["chairs_matched"] == 11
    assert agreement["adjacency_exact"] == 11
    assert agreement["nationality_right"] == 3
    assert trace.is_valid
    assert "stools" not in trace.layout["bar"]
    assert any("bar stools" in line for line in trace.unsure)


def test_a_missing_chair_is_reported_by_the_loader() -> None:
    """A table with 3 chairs: the layout is still written, the loader's problem is named."""
    image = own_board()
    s = 2.0
    cx, cy = (round(v * s) for v in (150, 80))  # C1 of T1
    image[cy - 40 : cy + 41, cx - 40 : cx + 41] = (150, 120, 95)
    photo, _ = photograph(image, 8, tilt=20.0, size=(1200, 900))
    trace = lt.trace_layout(photo)
    assert len(trace.chairs) == 10
    assert not trace.is_valid
    assert any("has 3 chairs, expected 4" in problem for problem in trace.problems)


# -- stages on small inputs ---------------------------------------------------------------------
def test_chairs_touch_the_one_or_two_tables_they_reach() -> None:
    tables = np.array([[100.0, 100.0, 40.0], [220.0, 100.0, 40.0]])
    chairs = np.array([[160.0, 100.0], [100.0, 40.0], [142.0, 100.0], [300.0, 300.0]])
    sides = np.array([36.0, 36.0, 33.0, 36.0])
    touches = lt.assign_chairs(chairs, sides, tables)
    # shared between both; above the first; pushed against the first (78 from the second: a
    # chair's width away); far from both
    assert touches == [(0, 1), (0,), (0,), ()]


@pytest.mark.parametrize("nationality", sorted(lt.FLAGS))
def test_each_flag_is_told_from_the_others(nationality: str) -> None:
    """A table with a flag drawn from the flag table is read as that flag, upright."""
    view = np.full((300, 300, 3), (238, 246, 250), np.uint8)
    flag = cv2.resize(
        lt_flags._draw_flag(lt.FLAGS[nationality]), (96, 64), interpolation=cv2.INTER_NEAREST
    )
    view[118:182, 102:198] = flag
    cv2.circle(view, (150, 150), 75, (40, 40, 40), 3)
    traced, turn = lt.guess_nationalities(view, np.array([[150.0, 150.0, 75.0]]))
    assert turn == 0
    assert traced[0].nationality == nationality


def test_rectify_recovers_the_board_aspect_ratio() -> None:
    """A 3:2 board seen at 40° tilt comes out 3:2 again (focal length from the outline)."""
    quad = camera_quad(900, 600, (1600, 1200), 40.0, 12.0)
    photo = np.zeros((1200, 1600, 3), np.uint8)
    view, _ = lt.rectify(photo, quad)
    assert view.shape[1] / view.shape[0] == pytest.approx(1.5, rel=0.02)


@pytest.mark.parametrize(
    ("photo", "reason"),
    [
        (np.full((600, 800, 3), 128, np.uint8), "no board found"),
        (
            np.random.default_rng(1).integers(0, 255, (600, 800, 3), dtype=np.uint8),
            "no board found|no tables found",
        ),
        (np.zeros((600, 800), np.uint8), "photo must be a uint8 colour image"),
    ],
    ids=["grey", "noise", "grey-single-channel"],
)
def test_no_board_is_an_error_with_a_reason(photo: np.ndarray, reason: str) -> None:
    with pytest.raises(lt.TraceError, match=reason):
        lt.trace_layout(photo)


def test_a_board_without_tables_is_an_error() -> None:
    """A plain board: the outline is there, but no tables."""
    image = np.full((400, 500, 3), (150, 120, 95), np.uint8)
    photo, _ = photograph(image, 9, size=(800, 600))
    with pytest.raises(lt.TraceError, match="no tables found"):
        lt.trace_layout(photo)


def test_bad_corners_are_an_error() -> None:
    photo = np.zeros((300, 400, 3), np.uint8)
    with pytest.raises(lt.TraceError, match="convex quadrilateral"):
        lt.trace_layout(photo, [[0, 0], [100, 100], [100, 0], [0, 100]])
