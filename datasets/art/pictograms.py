"""Vector drawing in millimetres on a BGR canvas: the primitives every piece's art is made of.

A `Canvas` owns one image and a scale (pixels per millimetre). Every drawing call takes
coordinates and lengths in millimetres and draws anti-aliased with sub-pixel precision, so the same
drawing code makes a 64-pixel thumbnail and a 600-dpi print. Shapes used by more than one game
(dice icons, stars, the dragon, the gender symbols, Σ and ≤ signs) live here too.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import cv2
import numpy as np

BGR = tuple[int, int, int]
Point = tuple[float, float]

_SHIFT = 4  # sub-pixel bits for OpenCV drawing
_ONE = 1 << _SHIFT

BLACK: BGR = (20, 20, 20)
WHITE: BGR = (255, 255, 255)
CREAM: BGR = (226, 244, 250)


def hex_bgr(code: str) -> BGR:
    """Convert ``"#RRGGBB"`` to a BGR tuple."""
    code = code.lstrip("#")
    r, g, b = (int(code[i : i + 2], 16) for i in (0, 2, 4))
    return (b, g, r)


def mix(a: BGR, b: BGR, t: float) -> BGR:
    """Blend two colours: ``t = 0`` gives `a`, ``t = 1`` gives `b`."""
    r = [int(round(x + (y - x) * t)) for x, y in zip(a, b, strict=True)]
    return (r[0], r[1], r[2])


def darker(c: BGR, t: float = 0.35) -> BGR:
    """The colour `c` mixed towards black by `t`."""
    return mix(c, (0, 0, 0), t)


def lighter(c: BGR, t: float = 0.35) -> BGR:
    """The colour `c` mixed towards white by `t`."""
    return mix(c, (255, 255, 255), t)


class Canvas:
    """A BGR image drawn on in millimetres (origin top left, y down).

    Args:
        width_mm, height_mm: the piece's size.
        width_px: the image width; the height follows from the aspect ratio.
        background: fill colour.
    """

    def __init__(self, width_mm: float, height_mm: float, width_px: int, background: BGR) -> None:
        self.width_mm = float(width_mm)
        self.height_mm = float(height_mm)
        self.scale = width_px / self.width_mm
        height_px = max(1, int(round(height_mm * self.scale)))
        self.image = np.empty((height_px, width_px, 3), np.uint8)
        self.image[:] = background

    # -- conversions ---------------------------------------------------------------------------
    def _p(self, p: Point) -> tuple[int, int]:
        return (int(round(p[0] * self.scale * _ONE)), int(round(p[1] * self.scale * _ONE)))

    def _len(self, mm: float) -> int:
        return max(0, int(round(mm * self.scale * _ONE)))

    def _thick(self, mm: float) -> int:
        return -1 if mm < 0 else max(1, int(round(mm * self.scale)))

    def px(self, mm: float) -> float:
        """Millimetres to pixels."""
        return mm * self.scale

    # -- primitives ----------------------------------------------------------------------------
    def circle(self, c: Point, r: float, colour: BGR, thickness: float = -1) -> None:
        """A disc (``thickness < 0``) or ring of radius `r` around `c`."""
        cv2.circle(
            self.image,
            self._p(c),
            self._len(r),
            colour,
            self._thick(thickness),
            cv2.LINE_AA,
            _SHIFT,
        )

    def ellipse(
        self,
        c: Point,
        axes: Point,
        colour: BGR,
        angle: float = 0.0,
        start: float = 0.0,
        end: float = 360.0,
        thickness: float = -1,
    ) -> None:
        """An ellipse (or arc/sector from `start` to `end` degrees) with semi-axes `axes`."""
        cv2.ellipse(
            self.image,
            self._p(c),
            (self._len(axes[0]), self._len(axes[1])),
            angle,
            start,
            end,
            colour,
            self._thick(thickness),
            cv2.LINE_AA,
            _SHIFT,
        )

    def poly(
        self, pts: Sequence[Point], colour: BGR, thickness: float = -1, closed: bool = True
    ) -> None:
        """A filled polygon (``thickness < 0``) or a polyline."""
        arr = np.array([self._p(p) for p in pts], np.int32).reshape(-1, 1, 2)
        if thickness < 0:
            cv2.fillPoly(self.image, [arr], colour, cv2.LINE_AA, _SHIFT)
        else:
            cv2.polylines(
                self.image, [arr], closed, colour, self._thick(thickness), cv2.LINE_AA, _SHIFT
            )

    def line(self, a: Point, b: Point, colour: BGR, thickness: float) -> None:
        """A straight line with round caps."""
        cv2.line(
            self.image, self._p(a), self._p(b), colour, self._thick(thickness), cv2.LINE_AA, _SHIFT
        )

    def rect(
        self,
        x0: float,
        y0: float,
        x1: float,
        y1: float,
        colour: BGR,
        thickness: float = -1,
        radius: float = 0.0,
    ) -> None:
        """An axis-aligned rectangle, optionally with rounded corners of `radius`."""
        self.poly(rounded_rect_points(x0, y0, x1, y1, radius), colour, thickness)

    def text(
        self,
        s: str,
        c: Point,
        height: float,
        colour: BGR,
        *,
        weight: float = 0.12,
        font: int = cv2.FONT_HERSHEY_DUPLEX,
        max_width: float | None = None,
        anchor: str = "center",
    ) -> None:
        """Text whose capital letters are `height` mm tall, centred on `c` (or left-anchored).

        `weight` is the stroke thickness as a fraction of `height`; `max_width` shrinks the text
        to fit.
        """
        base_w, base_h = cv2.getTextSize(s, font, 1.0, 1)[0]
        scale = self.px(height) / max(base_h, 1)
        if max_width is not None and base_w * scale > self.px(max_width):
            scale = self.px(max_width) / base_w
        thick = max(1, int(round(base_h * scale * weight)))
        (w, h), _ = cv2.getTextSize(s, font, scale, thick)
        cx, cy = c[0] * self.scale, c[1] * self.scale
        x = cx - w / 2 if anchor == "center" else cx
        y = cy + h / 2
        cv2.putText(
            self.image, s, (int(round(x)), int(round(y))), font, scale, colour, thick, cv2.LINE_AA
        )

    def rotated_copy_180(
        self, x0: float, y0: float, x1: float, y1: float, dx0: float, dy0: float
    ) -> None:
        """Copy the region (x0, y0)–(x1, y1), turned by 180°, to the region at (dx0, dy0)."""
        a = [int(round(v * self.scale)) for v in (x0, y0, x1, y1)]
        patch = self.image[a[1] : a[3], a[0] : a[2]][::-1, ::-1].copy()
        px0, py0 = int(round(dx0 * self.scale)), int(round(dy0 * self.scale))
        h = min(patch.shape[0], self.image.shape[0] - py0)
        w = min(patch.shape[1], self.image.shape[1] - px0)
        # keep the far edge of the copy aligned with the far edge of the source's rotation
        self.image[py0 : py0 + h, px0 : px0 + w] = patch[patch.shape[0] - h :, patch.shape[1] - w :]

    def vertical_gradient(
        self, x0: float, y0: float, x1: float, y1: float, top: BGR, bottom: BGR
    ) -> None:
        """Fill a rectangle with a top-to-bottom colour gradient."""
        a = [int(round(v * self.scale)) for v in (x0, y0, x1, y1)]
        h = max(1, a[3] - a[1])
        t = np.linspace(0.0, 1.0, h, dtype=np.float32)[:, None, None]
        col = np.array(top, np.float32) * (1 - t) + np.array(bottom, np.float32) * t
        self.image[a[1] : a[3], a[0] : a[2]] = np.clip(col, 0, 255).astype(np.uint8)


# -- shape helpers --------------------------------------------------------------------------------
def rounded_rect_points(
    x0: float, y0: float, x1: float, y1: float, r: float, steps: int = 8
) -> list[Point]:
    """The outline of a rounded rectangle as a polygon."""
    r = max(0.0, min(r, (x1 - x0) / 2, (y1 - y0) / 2))
    if r == 0:
        return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    pts: list[Point] = []
    for cx, cy, a0 in (
        (x1 - r, y0 + r, -90),
        (x1 - r, y1 - r, 0),
        (x0 + r, y1 - r, 90),
        (x0 + r, y0 + r, 180),
    ):
        for i in range(steps + 1):
            a = math.radians(a0 + 90 * i / steps)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return pts


def regular_polygon(c: Point, r: float, n: int, rotation_deg: float = -90.0) -> list[Point]:
    """Vertices of a regular `n`-gon of circumradius `r`, first vertex at `rotation_deg`."""
    return [
        (
            c[0] + r * math.cos(math.radians(rotation_deg + 360 * i / n)),
            c[1] + r * math.sin(math.radians(rotation_deg + 360 * i / n)),
        )
        for i in range(n)
    ]


def star(
    c: Point, r_out: float, r_in: float, n: int = 5, rotation_deg: float = -90.0
) -> list[Point]:
    """Vertices of an `n`-pointed star."""
    pts: list[Point] = []
    for i in range(2 * n):
        r = r_out if i % 2 == 0 else r_in
        a = math.radians(rotation_deg + 180 * i / n)
        pts.append((c[0] + r * math.cos(a), c[1] + r * math.sin(a)))
    return pts


def pip_layout(value: int, spread: float = 0.25) -> list[Point]:
    """Pip centres of a die face showing `value` (1–6) in unit-square coordinates (y down).

    `spread` is how far the outer pips sit from the face's centre, as a fraction of the side: 0.25
    is the classic layout; many real dice set them closer (about 0.2).

    Raises:
        ValueError: `value` is not 1–6, or `spread` is outside 0.1–0.4.
    """
    if not 0.1 <= spread <= 0.4:
        raise ValueError(f"pip spread {spread!r} is outside 0.1–0.4 of the face side")
    lo, mid, hi = 0.5 - spread, 0.5, 0.5 + spread
    layouts: dict[int, list[Point]] = {
        1: [(mid, mid)],
        2: [(hi, lo), (lo, hi)],
        3: [(hi, lo), (mid, mid), (lo, hi)],
        4: [(lo, lo), (hi, lo), (lo, hi), (hi, hi)],
        5: [(lo, lo), (hi, lo), (mid, mid), (lo, hi), (hi, hi)],
        6: [(lo, lo), (hi, lo), (lo, mid), (hi, mid), (lo, hi), (hi, hi)],
    }
    if value not in layouts:
        raise ValueError(f"unknown die value {value!r}")
    return list(layouts[value])


def die_icon(
    cv: Canvas,
    x: float,
    y: float,
    size: float,
    value: int | None,
    *,
    body: BGR = WHITE,
    pip: BGR = BLACK,
    outline: BGR = BLACK,
    symbol: str | None = None,
) -> None:
    """A small flat die icon with top-left corner (x, y).

    `value` draws pips; `symbol` (``"star"``, ``"moon"``, ``"ring"``, ``"square"``, ``"?"``) draws a
    symbol instead; neither leaves the face blank.
    """
    r = size * 0.18
    cv.rect(x, y, x + size, y + size, body, -1, r)
    cv.rect(x, y, x + size, y + size, outline, size * 0.06, r)
    c = (x + size / 2, y + size / 2)
    if value is not None:
        for px, py in pip_layout(value):
            cv.circle((x + px * size, y + py * size), size * 0.095, pip)
    elif symbol == "star":
        cv.poly(star(c, size * 0.34, size * 0.14), pip)
    elif symbol == "moon":
        cv.circle(c, size * 0.3, pip)
        cv.circle((c[0] + size * 0.13, c[1] - size * 0.08), size * 0.25, body)
    elif symbol == "ring":
        cv.circle(c, size * 0.25, pip, size * 0.1)
    elif symbol == "square":
        cv.poly(regular_polygon(c, size * 0.3, 4, 45), pip)
    elif symbol == "triangle":
        cv.poly(regular_polygon((c[0], c[1] + size * 0.04), size * 0.32, 3), pip)
    elif symbol == "?":
        cv.text("?", c, size * 0.55, pip, weight=0.16)


def sigma(cv: Canvas, c: Point, h: float, colour: BGR, thickness: float) -> None:
    """The summation sign Σ, `h` tall, centred on `c`."""
    w = h * 0.75
    x0, y0 = c[0] - w / 2, c[1] - h / 2
    cv.poly(
        [
            (x0 + w, y0 + h * 0.12),
            (x0 + w, y0),
            (x0, y0),
            (x0 + w * 0.55, y0 + h / 2),
            (x0, y0 + h),
            (x0 + w, y0 + h),
            (x0 + w, y0 + h * 0.88),
        ],
        colour,
        thickness,
        closed=False,
    )


def comparison(
    cv: Canvas, c: Point, h: float, colour: BGR, thickness: float, at_most: bool
) -> None:
    """The sign ≤ (`at_most`) or ≥, `h` tall, centred on `c`."""
    w = h * 0.7
    x0, x1 = c[0] - w / 2, c[0] + w / 2
    top, mid, low = c[1] - h / 2, c[1] - h * 0.1, c[1] + h * 0.3
    if at_most:
        cv.poly([(x1, top), (x0, mid), (x1, low)], colour, thickness, closed=False)
    else:
        cv.poly([(x0, top), (x1, mid), (x0, low)], colour, thickness, closed=False)
    cv.line((x0, c[1] + h / 2), (x1, c[1] + h / 2), colour, thickness)


def gender_symbol(
    cv: Canvas, c: Point, r: float, colour: BGR, woman: bool, thickness: float
) -> None:
    """♀ (`woman`) or ♂ drawn from a ring of radius `r` whose centre is near `c`."""
    if woman:
        ring = (c[0], c[1] - r * 0.45)
        cv.circle(ring, r, colour, thickness)
        stem_top = ring[1] + r
        cv.line((ring[0], stem_top), (ring[0], stem_top + r * 1.0), colour, thickness)
        cv.line(
            (ring[0] - r * 0.5, stem_top + r * 0.5),
            (ring[0] + r * 0.5, stem_top + r * 0.5),
            colour,
            thickness,
        )
    else:
        ring = (c[0] - r * 0.3, c[1] + r * 0.3)
        cv.circle(ring, r, colour, thickness)
        d = r / math.sqrt(2)
        a = (ring[0] + d, ring[1] - d)
        tip = (a[0] + r * 0.9, a[1] - r * 0.9)
        cv.line(a, tip, colour, thickness)
        cv.poly([tip, (tip[0] - r * 0.7, tip[1]), (tip[0], tip[1] + r * 0.7)], colour)


def dragon(cv: Canvas, c: Point, s: float, body: BGR, detail: BGR) -> None:
    """A dragon head-and-wings silhouette of size about `s` (its width) centred on `c`."""
    x, y = c
    u = s / 10.0
    # wings
    for side in (-1, 1):
        cv.poly(
            [
                (x + side * 0.8 * u, y - 0.5 * u),
                (x + side * 5.0 * u, y - 4.2 * u),
                (x + side * 4.2 * u, y - 1.6 * u),
                (x + side * 5.0 * u, y - 0.6 * u),
                (x + side * 3.6 * u, y + 0.2 * u),
                (x + side * 4.0 * u, y + 1.4 * u),
                (x + side * 1.2 * u, y + 1.2 * u),
            ],
            darker(body, 0.2),
        )
    # body and tail
    cv.ellipse((x, y + 1.8 * u), (1.6 * u, 2.6 * u), body)
    cv.poly(
        [
            (x + 0.6 * u, y + 4.0 * u),
            (x + 3.4 * u, y + 4.6 * u),
            (x + 4.2 * u, y + 3.6 * u),
            (x + 3.6 * u, y + 4.9 * u),
            (x + 0.2 * u, y + 4.6 * u),
        ],
        body,
    )
    # head with horns
    cv.circle((x, y - 1.4 * u), 1.5 * u, body)
    cv.poly(
        [(x - 1.0 * u, y - 2.4 * u), (x - 1.8 * u, y - 4.2 * u), (x - 0.3 * u, y - 2.8 * u)], body
    )
    cv.poly(
        [(x + 1.0 * u, y - 2.4 * u), (x + 1.8 * u, y - 4.2 * u), (x + 0.3 * u, y - 2.8 * u)], body
    )
    cv.ellipse((x, y - 0.6 * u), (1.0 * u, 0.8 * u), body)
    # eyes, nostrils, belly scales
    for side in (-1, 1):
        cv.circle((x + side * 0.6 * u, y - 1.7 * u), 0.35 * u, detail)
        cv.circle((x + side * 0.35 * u, y - 0.4 * u), 0.15 * u, darker(body, 0.5))
    for i in range(4):
        cv.ellipse(
            (x, y + (0.8 + 0.8 * i) * u),
            (0.9 * u, 0.3 * u),
            lighter(body, 0.35),
            0,
            0,
            180,
            0.15 * u,
        )


def crown(cv: Canvas, c: Point, w: float, colour: BGR, jewel: BGR) -> None:
    """A five-point crown `w` wide centred on `c`."""
    x, y = c
    h = w * 0.6
    pts = [
        (x - w / 2, y + h / 2),
        (x - w / 2, y - h / 4),
        (x - w / 4, y + h / 8),
        (x, y - h / 2),
        (x + w / 4, y + h / 8),
        (x + w / 2, y - h / 4),
        (x + w / 2, y + h / 2),
    ]
    cv.poly(pts, colour)
    cv.rect(x - w / 2, y + h / 2 - w * 0.08, x + w / 2, y + h / 2 + w * 0.04, darker(colour, 0.2))
    for px_, py_ in ((x - w / 2, y - h / 4), (x, y - h / 2), (x + w / 2, y - h / 4)):
        cv.circle((px_, py_), w * 0.06, colour)
    cv.circle((x, y + h * 0.22), w * 0.07, jewel)


def render_supersampled(
    draw: Callable[[int], np.ndarray], width_px: int, min_internal_px: int = 360
) -> np.ndarray:
    """Call ``draw(internal_width_px)`` at a larger width when needed and downsample with area.

    Thin strokes and Hershey text look clean at small sizes this way.
    """
    factor = 1
    while width_px * factor < min_internal_px:
        factor += 1
    big = draw(width_px * factor)
    if factor == 1:
        return big
    h = max(1, int(round(big.shape[0] / factor)))
    return cv2.resize(big, (width_px, h), interpolation=cv2.INTER_AREA)
