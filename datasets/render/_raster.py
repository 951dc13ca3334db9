"""Small raster helpers: draw into a region of interest only, so per-piece cost stays small.

All coordinates are pinhole-image pixels (float); polygons are (n, 2) arrays. Fills use 4 bits of
sub-pixel precision so the id buffer and the full-area count rasterise a polygon identically.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import SupportsFloat

import cv2
import numpy as np

SHIFT = 4
_ONE = 1 << SHIFT


def float3(values: Iterable[SupportsFloat]) -> tuple[float, float, float]:
    """Three values (a BGR colour or per-channel gains) as a tuple of floats.

    Raises:
        ValueError: `values` does not hold exactly three values.
    """
    a, b, c = (float(v) for v in values)
    return (a, b, c)


def fixed(points: np.ndarray, offset: tuple[float, float] = (0.0, 0.0)) -> np.ndarray:
    """Points as int32 fixed-point (for cv2 fills with `shift=SHIFT`), shifted by -offset."""
    pts = np.asarray(points, np.float64).reshape(-1, 2) - np.asarray(offset, np.float64)
    if not np.isfinite(pts).all():
        pts = np.nan_to_num(pts, nan=0.0, posinf=1e6, neginf=-1e6)
    pts = np.clip(pts, -1e6, 1e6)
    return np.round(pts * _ONE).astype(np.int32).reshape(-1, 1, 2)


def roi(
    points: np.ndarray, width: int, height: int, margin: float = 1.0
) -> tuple[int, int, int, int] | None:
    """Integer region (x0, y0, x1, y1) around `points` clipped to the image, or None if empty."""
    pts = np.asarray(points, np.float64).reshape(-1, 2)
    if not np.all(np.isfinite(pts)):
        return None
    x0 = max(0, int(np.floor(pts[:, 0].min() - margin)))
    y0 = max(0, int(np.floor(pts[:, 1].min() - margin)))
    x1 = min(width, int(np.ceil(pts[:, 0].max() + margin)) + 1)
    y1 = min(height, int(np.ceil(pts[:, 1].max() + margin)) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def fill_ids(ids: np.ndarray, polygon: np.ndarray, value: int) -> None:
    """Fill `polygon` with `value` in the int32 id buffer (in place)."""
    cv2.fillPoly(ids, [fixed(polygon)], int(value), cv2.LINE_8, SHIFT)


def pixel_count(polygon: np.ndarray) -> int:
    """Pixels `fill_ids` sets for `polygon` on an unbounded image (the full, unclipped area)."""
    pts = np.asarray(polygon, np.float64).reshape(-1, 2)
    if not np.all(np.isfinite(pts)):
        return 0
    origin = np.floor(pts.min(axis=0)) - 1
    size = [int(v) + 2 for v in np.ceil(pts.max(axis=0) - origin)]
    if size[0] * size[1] > 16_000_000:  # absurdly large (camera grazing); geometric area instead
        x, y = pts[:, 0], pts[:, 1]
        return int(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2)
    canvas = np.zeros((int(size[1]), int(size[0])), np.uint8)
    cv2.fillPoly(canvas, [fixed(pts, tuple(origin))], 1, cv2.LINE_8, SHIFT)
    return int(cv2.countNonZero(canvas))


def warp_quad(
    image: np.ndarray,
    texture: np.ndarray,
    quad: np.ndarray,
    *,
    shade: np.ndarray | float = 1.0,
    opacity: float = 1.0,
) -> None:
    """Warp `texture` onto the image quad `quad` (TL, TR, BR, BL), anti-aliased (in place).

    `shade` multiplies the texture (a scalar or a BGR triple).
    """
    h, w = image.shape[:2]
    box = roi(quad, w, h, margin=1.0)
    if box is None:
        return
    x0, y0, x1, y1 = box
    th, tw = texture.shape[:2]
    src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
    dst = (np.asarray(quad, np.float64) - (x0, y0)).astype(np.float32)
    matrix = cv2.getPerspectiveTransform(src, dst)
    size = (x1 - x0, y1 - y0)
    if texture.ndim == 3 and texture.shape[2] == 4:  # BGRA: the alpha is the mask
        warped = cv2.warpPerspective(
            texture, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
        )
        blend_inplace(
            image[y0:y1, x0:x1], warped[:, :, :3], warped[:, :, 3], shade=shade, opacity=opacity
        )
        return
    warped = cv2.warpPerspective(
        texture, matrix, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    mask = np.zeros((size[1], size[0]), np.uint8)
    cv2.fillConvexPoly(mask, fixed(dst), 255, cv2.LINE_AA, SHIFT)
    blend_inplace(image[y0:y1, x0:x1], warped, mask, shade=shade, opacity=opacity)


def blend_inplace(
    region: np.ndarray,
    colour: np.ndarray,
    mask: np.ndarray,
    *,
    shade: np.ndarray | float = 1.0,
    opacity: float = 1.0,
) -> None:
    """region ← region·(1−a) + colour·shade·a with a = mask/255·opacity (in place)."""
    if colour.dtype != np.uint8:
        colour = np.clip(colour, 0, 255).astype(np.uint8)
    if np.ndim(shade) == 0:
        if abs(float(shade) - 1.0) > 1e-3:
            colour = cv2.convertScaleAbs(colour, alpha=float(shade))
    else:
        colour = cv2.transform(colour, np.diag(np.asarray(shade, np.float32)))
    weight = mask.astype(np.float32) * np.float32(opacity / 255.0)
    region[:] = cv2.blendLinear(colour, region, weight, 1.0 - weight)


def fill_polygon(
    image: np.ndarray, polygon: np.ndarray, colour: tuple[float, float, float], opacity: float = 1.0
) -> None:
    """Fill an anti-aliased polygon with a flat colour (in place)."""
    if opacity >= 0.999:
        pts = np.asarray(polygon, np.float64).reshape(-1, 2)
        if np.all(np.isfinite(pts)):
            cv2.fillPoly(image, [fixed(pts)], tuple(float(c) for c in colour), cv2.LINE_AA, SHIFT)
        return
    _fill_blended(image, polygon, colour, opacity)


def _fill_blended(
    image: np.ndarray, polygon: np.ndarray, colour: tuple[float, float, float], opacity: float
) -> None:
    h, w = image.shape[:2]
    box = roi(polygon, w, h, margin=1.0)
    if box is None:
        return
    x0, y0, x1, y1 = box
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [fixed(polygon, (x0, y0))], 255, cv2.LINE_AA, SHIFT)
    flat = np.empty((y1 - y0, x1 - x0, 3), np.uint8)
    flat[:] = colour
    blend_inplace(image[y0:y1, x0:x1], flat, mask, opacity=opacity)


def soft_shadow(image: np.ndarray, polygon: np.ndarray, sigma: float, strength: float) -> None:
    """Darken the image under a blurred `polygon` by up to `strength` (in place).

    Wide blurs run on a reduced grid (a blur of sigma s at 1/f size, then upsampled), so their cost
    does not grow with the shadow's softness.
    """
    if strength <= 0.0:
        return
    h, w = image.shape[:2]
    pad = 2.5 * sigma + 2.0
    box = roi(polygon, w, h, margin=pad)
    if box is None:
        return
    x0, y0, x1, y1 = box
    factor = max(1, int(sigma / 2.0))
    sw, sh = max(1, (x1 - x0) // factor + 1), max(1, (y1 - y0) // factor + 1)
    mask: np.ndarray = np.zeros((sh, sw), np.uint8)
    pts = (np.asarray(polygon, np.float64).reshape(-1, 2) - (x0, y0)) / factor
    cv2.fillPoly(mask, [fixed(pts)], 255, cv2.LINE_AA, SHIFT)
    if sigma / factor > 0.3:
        mask = cv2.GaussianBlur(mask, (0, 0), sigma / factor)
    if factor > 1:
        mask = cv2.resize(mask, (sw * factor, sh * factor), interpolation=cv2.INTER_LINEAR)
    mask = mask[: y1 - y0, : x1 - x0]
    darken_inplace(image[y0:y1, x0:x1], mask, strength)


def darken_inplace(region: np.ndarray, mask: np.ndarray, strength: float) -> None:
    """region ← region · (1 − strength · mask/255) (in place)."""
    weight = 1.0 - mask.astype(np.float32) * np.float32(strength / 255.0)
    # blendLinear normalises by the weight sum: blend towards black with weights w and 1 − w
    region[:] = cv2.blendLinear(region, np.zeros_like(region), weight, 1.0 - weight)
