"""King's Breakfast companion cards: the seven foods, the Emerald (the king's dragon), the back.

Each food card has its own colour, its own medallion shape (circle, triangle, square, hexagon,
diamond, flower, shield; the Emerald an emerald-cut octagon) and its own pictogram, with the name
printed top and bottom (the card reads the same after a half turn, like a playing card).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from datasets.art.palette import FOOD_COLOURS, GOLD, KB_CARD_MM
from datasets.art.pictograms import (
    BGR,
    WHITE,
    Canvas,
    Point,
    crown,
    darker,
    dragon,
    hex_bgr,
    lighter,
    regular_polygon,
    rounded_rect_points,
)

KINDS: tuple[str, ...] = ("ham", "cheese", "bread", "cake", "wine", "fruit", "chicken", "emerald")
NAMES: dict[str, str] = {k: k.upper() for k in KINDS}


# -- pictograms (each fits a box of side `s` centred on `c`) ---------------------------------------
def _teardrop(c: Point, r: float, tip: Point, n: int = 40) -> list[Point]:
    """A teardrop: a circle of radius `r` around `c` drawn out to a point at `tip`."""
    dx, dy = tip[0] - c[0], tip[1] - c[1]
    d = math.hypot(dx, dy)
    a0 = math.atan2(dy, dx)
    half = math.acos(min(1.0, r / d))
    pts = [tip]
    for i in range(n + 1):
        a = a0 + half + (2 * math.pi - 2 * half) * i / n
        pts.append((c[0] + r * math.cos(a), c[1] + r * math.sin(a)))
    return pts


def _ham(cv: Canvas, c: Point, s: float) -> None:
    x, y = c
    skin, meat = hex_bgr("#B5532F"), hex_bgr("#E77F8F")
    bone = hex_bgr("#F3EBDD")
    # the bone knob at the narrow end
    cv.line((x + 0.2 * s, y - 0.2 * s), (x + 0.36 * s, y - 0.36 * s), bone, 0.1 * s)
    for dx, dy in ((0.42, -0.34), (0.34, -0.42)):
        cv.circle((x + dx * s, y + dy * s), 0.065 * s, bone)
    leg = _teardrop((x - 0.08 * s, y + 0.08 * s), 0.3 * s, (x + 0.3 * s, y - 0.3 * s))
    cv.poly(leg, skin)
    # scored glaze: a diamond lattice clipped to the leg by drawing inside a smaller teardrop
    cv.poly(
        _teardrop((x - 0.1 * s, y + 0.1 * s), 0.24 * s, (x + 0.2 * s, y - 0.2 * s)),
        hex_bgr("#C8693F"),
    )
    for gx, gy in ((-0.05, -0.05), (0.05, -0.12), (0.1, -0.02), (0.0, 0.05), (-0.12, 0.0)):
        cv.poly(regular_polygon((x + gx * s, y + gy * s), 0.03 * s, 4), darker(skin, 0.2))
    # the cut face showing pink meat and a ring of fat
    cv.ellipse((x - 0.14 * s, y + 0.14 * s), (0.2 * s, 0.14 * s), hex_bgr("#FFF1E6"), angle=-45)
    cv.ellipse((x - 0.14 * s, y + 0.14 * s), (0.17 * s, 0.11 * s), meat, angle=-45)
    cv.circle((x - 0.14 * s, y + 0.14 * s), 0.035 * s, bone)
    cv.poly(leg, darker(skin, 0.45), 0.02 * s)


def _cheese(cv: Canvas, c: Point, s: float) -> None:
    x, y = c
    body, rind = hex_bgr("#FFD54A"), hex_bgr("#E6A817")
    top = [(x - 0.42 * s, y - 0.02 * s), (x + 0.30 * s, y - 0.30 * s), (x + 0.42 * s, y - 0.02 * s)]
    cv.poly([*top, (x + 0.42 * s, y + 0.26 * s), (x - 0.42 * s, y + 0.26 * s)], body)
    cv.poly(top, hex_bgr("#FFE58A"))
    cv.rect(x + 0.36 * s, y - 0.02 * s, x + 0.42 * s, y + 0.26 * s, rind)
    for hx, hy, r in (
        (-0.22, 0.10, 0.07),
        (0.05, 0.16, 0.05),
        (0.20, 0.05, 0.075),
        (-0.05, 0.02, 0.04),
        (0.30, 0.18, 0.035),
    ):
        cv.circle((x + hx * s, y + hy * s), r * s, rind)
    cv.poly(
        [*top, (x + 0.42 * s, y + 0.26 * s), (x - 0.42 * s, y + 0.26 * s)],
        darker(rind, 0.3),
        0.02 * s,
    )


def _bread(cv: Canvas, c: Point, s: float) -> None:
    x, y = c
    crust, crumb = hex_bgr("#B7702E"), hex_bgr("#E2A65E")
    cv.ellipse((x, y), (0.44 * s, 0.28 * s), crust, start=180, end=360)
    cv.rect(x - 0.44 * s, y - 0.005 * s, x + 0.44 * s, y + 0.2 * s, crust, radius=0.06 * s)
    cv.ellipse(
        (x, y - 0.02 * s), (0.36 * s, 0.2 * s), crumb, start=190, end=350, thickness=0.03 * s
    )
    for i in (-1, 0, 1):
        cx = x + i * 0.2 * s
        cv.line((cx - 0.07 * s, y + 0.02 * s), (cx + 0.07 * s, y - 0.16 * s), crumb, 0.045 * s)
    cv.rect(
        x - 0.44 * s, y + 0.14 * s, x + 0.44 * s, y + 0.2 * s, darker(crust, 0.25), radius=0.03 * s
    )


def _cake(cv: Canvas, c: Point, s: float) -> None:
    x, y = c
    sponge, cream, icing = hex_bgr("#F2C38B"), hex_bgr("#FFF6E8"), hex_bgr("#F48FB1")
    cv.rect(x - 0.38 * s, y - 0.06 * s, x + 0.38 * s, y + 0.30 * s, sponge, radius=0.03 * s)
    cv.rect(x - 0.38 * s, y + 0.08 * s, x + 0.38 * s, y + 0.13 * s, cream)
    cv.rect(x - 0.40 * s, y - 0.14 * s, x + 0.40 * s, y - 0.02 * s, icing, radius=0.05 * s)
    for i in range(5):
        cv.circle((x + (-0.3 + 0.15 * i) * s, y - 0.02 * s), 0.045 * s, icing)
    cv.rect(
        x - 0.46 * s, y + 0.28 * s, x + 0.46 * s, y + 0.33 * s, hex_bgr("#DDDDDD"), radius=0.02 * s
    )
    # candle and cherry
    cv.rect(x - 0.03 * s, y - 0.36 * s, x + 0.03 * s, y - 0.14 * s, hex_bgr("#6EC6FF"))
    cv.ellipse((x, y - 0.41 * s), (0.03 * s, 0.055 * s), hex_bgr("#FFB300"))
    cv.circle((x + 0.2 * s, y - 0.19 * s), 0.055 * s, hex_bgr("#C62828"))


def _wine(cv: Canvas, c: Point, s: float) -> None:
    x, y = c
    glass, wine = hex_bgr("#EAF2F8"), hex_bgr("#8E1330")
    # bottle behind, left
    bottle = hex_bgr("#1E4D2B")
    bx = x - 0.17 * s
    cv.rect(bx - 0.13 * s, y - 0.12 * s, bx + 0.13 * s, y + 0.38 * s, bottle, radius=0.05 * s)
    cv.poly(
        [
            (bx - 0.13 * s, y - 0.10 * s),
            (bx - 0.04 * s, y - 0.26 * s),
            (bx + 0.04 * s, y - 0.26 * s),
            (bx + 0.13 * s, y - 0.10 * s),
        ],
        bottle,
    )
    cv.rect(bx - 0.045 * s, y - 0.44 * s, bx + 0.045 * s, y - 0.24 * s, bottle)
    cv.rect(bx - 0.05 * s, y - 0.46 * s, bx + 0.05 * s, y - 0.40 * s, hex_bgr("#B71C1C"))
    cv.rect(bx - 0.11 * s, y + 0.04 * s, bx + 0.11 * s, y + 0.20 * s, hex_bgr("#F5E6C8"))
    # goblet in front, right
    gx = x + 0.18 * s
    cv.ellipse((gx, y - 0.08 * s), (0.17 * s, 0.2 * s), glass, start=0, end=180)
    cv.rect(gx - 0.17 * s, y - 0.22 * s, gx + 0.17 * s, y - 0.08 * s, glass)
    cv.ellipse((gx, y - 0.08 * s), (0.15 * s, 0.18 * s), wine, start=0, end=180)
    cv.rect(gx - 0.15 * s, y - 0.13 * s, gx + 0.15 * s, y - 0.08 * s, wine)
    cv.line((gx, y + 0.1 * s), (gx, y + 0.32 * s), glass, 0.04 * s)
    cv.ellipse((gx, y + 0.34 * s), (0.13 * s, 0.035 * s), glass)
    outline = darker(glass, 0.5)
    cv.ellipse(
        (gx, y - 0.08 * s), (0.17 * s, 0.2 * s), outline, start=0, end=180, thickness=0.015 * s
    )
    cv.line((gx - 0.17 * s, y - 0.22 * s), (gx - 0.17 * s, y - 0.08 * s), outline, 0.015 * s)
    cv.line((gx + 0.17 * s, y - 0.22 * s), (gx + 0.17 * s, y - 0.08 * s), outline, 0.015 * s)


def _fruit(cv: Canvas, c: Point, s: float) -> None:
    x, y = c
    # grapes at the back, an orange and a red apple in front
    grape = hex_bgr("#6A1B9A")
    for gx, gy in (
        (0.18, -0.22),
        (0.30, -0.18),
        (0.24, -0.08),
        (0.36, -0.06),
        (0.30, 0.04),
        (0.12, -0.12),
    ):
        cv.circle((x + gx * s, y + gy * s), 0.07 * s, grape)
        cv.circle((x + (gx - 0.02) * s, y + (gy - 0.02) * s), 0.02 * s, lighter(grape, 0.4))
    cv.circle((x + 0.14 * s, y + 0.16 * s), 0.17 * s, hex_bgr("#FB8C00"))
    cv.circle((x + 0.10 * s, y + 0.12 * s), 0.04 * s, hex_bgr("#FFB74D"))
    red = hex_bgr("#D32F2F")
    cv.circle((x - 0.2 * s, y + 0.06 * s), 0.2 * s, red)
    cv.circle((x - 0.08 * s, y + 0.06 * s), 0.18 * s, red)
    cv.line((x - 0.14 * s, y - 0.1 * s), (x - 0.12 * s, y - 0.24 * s), hex_bgr("#5D4037"), 0.03 * s)
    cv.ellipse((x - 0.04 * s, y - 0.22 * s), (0.09 * s, 0.04 * s), hex_bgr("#388E3C"), angle=-25)
    cv.ellipse((x - 0.24 * s, y - 0.0 * s), (0.05 * s, 0.08 * s), lighter(red, 0.45), angle=20)


def _chicken(cv: Canvas, c: Point, s: float) -> None:
    x, y = c
    roast, bone = hex_bgr("#C27A2C"), hex_bgr("#F5EFE3")
    # a plate
    cv.ellipse((x, y + 0.24 * s), (0.46 * s, 0.13 * s), hex_bgr("#E0E0E0"))
    cv.ellipse((x, y + 0.22 * s), (0.38 * s, 0.09 * s), hex_bgr("#F5F5F5"))
    # the roast bird: body and two drumsticks with bone ends
    cv.ellipse((x + 0.02 * s, y - 0.02 * s), (0.34 * s, 0.24 * s), roast)
    cv.ellipse((x + 0.08 * s, y - 0.1 * s), (0.16 * s, 0.08 * s), hex_bgr("#E0A35A"), angle=-10)
    for side in (-1, 1):
        leg_c = (x + side * 0.22 * s, y + 0.06 * s)
        end = (x + side * 0.4 * s, y - 0.1 * s)
        edge = darker(bone, 0.45)
        cv.line(leg_c, end, edge, 0.07 * s)
        for k in (-1, 1):
            cv.circle((end[0] + side * 0.03 * s, end[1] + k * 0.03 * s), 0.045 * s, edge)
        cv.line(leg_c, end, bone, 0.045 * s)
        for k in (-1, 1):
            cv.circle((end[0] + side * 0.03 * s, end[1] + k * 0.03 * s), 0.033 * s, bone)
        cv.ellipse(leg_c, (0.14 * s, 0.1 * s), darker(roast, 0.12), angle=side * 35)
    cv.ellipse(
        (x + 0.02 * s, y - 0.02 * s), (0.34 * s, 0.24 * s), darker(roast, 0.45), thickness=0.015 * s
    )


def _emerald(cv: Canvas, c: Point, s: float) -> None:
    dragon(cv, (c[0], c[1] + 0.02 * s), s * 0.95, hex_bgr("#1FA37A"), hex_bgr("#FFD54F"))


PICTOGRAMS: dict[str, Callable[[Canvas, Point, float], None]] = {
    "ham": _ham, "cheese": _cheese, "bread": _bread, "cake": _cake, "wine": _wine,
    "fruit": _fruit, "chicken": _chicken, "emerald": _emerald,
}  # fmt: skip


# -- medallion shapes ---------------------------------------------------------------------------
def _medallion(kind: str, c: Point, r: float) -> list[Point]:
    x, y = c
    if kind == "ham":
        return regular_polygon(c, r, 48)
    if kind == "cheese":
        return regular_polygon((x, y + 0.22 * r), r * 1.25, 3)
    if kind == "bread":
        return rounded_rect_points(x - 0.9 * r, y - 0.9 * r, x + 0.9 * r, y + 0.9 * r, 0.12 * r)
    if kind == "cake":
        return regular_polygon(c, r, 6, 0)
    if kind == "wine":
        return regular_polygon(c, r * 1.15, 4)
    if kind == "fruit":  # scalloped flower
        pts = []
        for i in range(96):
            a = 2 * math.pi * i / 96
            rr = r * (0.92 + 0.08 * math.cos(8 * a))
            pts.append((x + rr * math.cos(a), y + rr * math.sin(a)))
        return pts
    if kind == "chicken":  # shield
        pts = [(x - 0.9 * r, y - 0.85 * r), (x + 0.9 * r, y - 0.85 * r)]
        for i in range(25):
            t = i / 24
            a = math.pi * t
            pts.append((x + 0.9 * r * math.cos(a), y + 0.1 * r + 0.95 * r * math.sin(a)))
        return [pts[0], pts[1], *pts[2:]]
    # emerald: emerald-cut octagon
    w, h, k = 0.85 * r, 1.05 * r, 0.3 * r
    return [
        (x - w + k, y - h),
        (x + w - k, y - h),
        (x + w, y - h + k),
        (x + w, y + h - k),
        (x + w - k, y + h),
        (x - w + k, y + h),
        (x - w, y + h - k),
        (x - w, y - h + k),
    ]


def _panel_pattern(
    cv: Canvas, kind: str, colour: BGR, x0: float, y0: float, x1: float, y1: float
) -> None:
    """A subtle repeating pattern on the coloured panel (small diamonds)."""
    pattern = lighter(colour, 0.12)
    step = 6.0
    for j in range(int((y1 - y0) / step) + 1):
        for i in range(int((x1 - x0) / step) + 1):
            px_ = x0 + 3 + i * step + (step / 2 if j % 2 else 0)
            py_ = y0 + 3 + j * step
            if px_ < x1 - 1.5 and py_ < y1 - 1.5:
                cv.poly(regular_polygon((px_, py_), 1.1, 4), pattern)


def draw_face(kind: str, width_px: int) -> np.ndarray:
    """The face of `kind` (a food or ``"emerald"``) at `width_px`, drawn directly (no caching)."""
    w, h = KB_CARD_MM
    colour = FOOD_COLOURS[kind]
    cv = Canvas(w, h, width_px, WHITE)
    m = 2.6
    panel_pts = rounded_rect_points(m, m, w - m, h - m, 3.0)
    cv.poly(panel_pts, colour)
    _panel_pattern(cv, kind, colour, m, m, w - m, h - m)
    if kind == "emerald":
        cv.poly(panel_pts, GOLD, 0.9)
    band = darker(colour, 0.3)
    # top band: corner icon and name (the bottom band is its half-turn copy)
    cv.rect(m, m, w - m, m + 12.5, band, radius=3.0)
    cv.rect(m, m + 9.0, w - m, m + 12.5, band)
    cv.circle((m + 6.3, m + 6.3), 5.0, WHITE)
    PICTOGRAMS[kind](cv, (m + 6.3, m + 6.3), 8.0)
    cv.text(NAMES[kind], (w / 2 + 4.5, m + 6.3), 4.4, WHITE, weight=0.16, max_width=w - 2 * m - 17)
    cv.rotated_copy_180(0, 0, w, m + 13.0, 0, h - (m + 13.0))
    # centre medallion with the big pictogram
    c = (w / 2, h / 2)
    r = 20.0
    shape = _medallion(kind, c, r)
    cv.poly(shape, darker(colour, 0.45))
    inner = _medallion(kind, c, r - 1.6)
    cv.poly(inner, hex_bgr("#FFF8EC"))
    cv.poly(inner, lighter(colour, 0.2), 0.5)
    pic_c = (c[0], c[1] + (3.0 if kind == "cheese" else 0.0))
    PICTOGRAMS[kind](cv, pic_c, 26.0 if kind != "cheese" else 22.0)
    return cv.image


def draw_back(width_px: int) -> np.ndarray:
    """The card back: navy with a gold frame, a crown and the game's name."""
    w, h = KB_CARD_MM
    navy = hex_bgr("#1B2A5A")
    cv = Canvas(w, h, width_px, WHITE)
    m = 2.6
    cv.rect(m, m, w - m, h - m, navy, radius=3.0)
    cv.rect(m + 2, m + 2, w - m - 2, h - m - 2, GOLD, 0.6, radius=2.0)
    cv.rect(m + 3.2, m + 3.2, w - m - 3.2, h - m - 3.2, GOLD, 0.3, radius=1.5)
    # lattice of small crowns' jewels
    for j in range(13):
        for i in range(8):
            x = 8 + i * 6.0 + (3.0 if j % 2 else 0.0)
            y = 9 + j * 6.0
            if x < w - 7 and y < h - 7:
                cv.poly(regular_polygon((x, y), 0.9, 4), lighter(navy, 0.15))
    cv.circle((w / 2, h / 2), 15.5, darker(navy, 0.3))
    cv.circle((w / 2, h / 2), 15.5, GOLD, 0.7)
    crown(cv, (w / 2, h / 2 - 1.0), 20.0, GOLD, hex_bgr("#C62828"))
    cv.text("KING'S", (w / 2, h / 2 - 22.5), 4.0, GOLD, weight=0.14)
    cv.text("BREAKFAST", (w / 2, h / 2 + 22.5), 4.0, GOLD, weight=0.14)
    return cv.image
