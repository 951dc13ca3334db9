"""Rectify cards and tiles: warp a quad to an upright face image; refine its corners on the frame.

`warp_face` maps a quad of the full-size frame onto an upright rectangle (the corners' first
point becomes the face image's top-left), with area averaging when the piece is larger in the
frame than the output, so small outputs do not alias. `align_to_reference` refines the 4 corners
of an identified piece on the full-size frame by aligning its known face (companion art or the
user's enrolled face) with the frame region by enhanced correlation (ECC, a homography): printed
borders and pictograms all pull the corners into place, which a search for the piece's outline
cannot match when the piece's edge is faint against the table and its printed borders are not.

Frames are `uint8` BGR (H, W, 3) arrays and are never modified. Corners are (4, 2) float arrays of
image pixels (OpenCV's convention: pixel centres at integers), in the order TL, TR, BR, BL
(`vision.geometry`). `benchmarks/identify_accuracy.py --corners` measures the refinement on
rendered scenes against their true corners.

`quad_in_box` gives a piece's 4 corners from its detected box alone: the box's dominant edge
direction (cards and tiles are printed with borders and frames parallel to their edges) and the
piece's known aspect fix the rotated rectangle that fills the box: the second look at pieces the
detector's own corners could not identify (`vision.pipeline`).

Public names: `AlignConfig`, `align_to_reference`, `warp_face`, `warp_many`, `face_size`,
`edge_direction`, `quad_in_box`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.geometry import order_corners_clockwise


def face_size(width_mm: float, height_mm: float, width_px: int) -> tuple[int, int]:
    """(width, height) in pixels of a face image `width_px` wide with the piece's aspect."""
    if not (width_mm > 0 and height_mm > 0 and width_px > 0):
        raise ValueError(f"bad face size {width_mm}x{height_mm} mm at {width_px} px")
    return int(width_px), max(1, int(round(width_px * height_mm / width_mm)))


def warp_face(
    frame: np.ndarray,
    corners: np.ndarray,
    size: tuple[int, int],
    *,
    supersample: float = 1.5,
    max_oversample: int = 4,
) -> np.ndarray:
    """Warp the quad `corners` of `frame` onto an upright `size` = (width, height) face image.

    Corner 0 goes to the image's top-left, 1 to top-right, 2 bottom-right, 3 bottom-left. When
    the quad is more than `supersample` times larger than the output, it is warped at up to
    `max_oversample` times the output size and area-averaged down (little aliasing, and the cost
    follows the output's size, not the piece's). Returns uint8 BGR (height, width, 3).
    """
    width, height = int(size[0]), int(size[1])
    quad = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    h, w = frame.shape[:2]
    if not np.all(np.isfinite(quad)):
        raise ValueError("corners must be finite to warp a face")
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    scale = max((lengths[0] + lengths[2]) / (2 * width), (lengths[1] + lengths[3]) / (2 * height))
    x0 = int(max(0, np.floor(quad[:, 0].min()) - 2))
    y0 = int(max(0, np.floor(quad[:, 1].min()) - 2))
    x1 = int(min(w, np.ceil(quad[:, 0].max()) + 3))
    y1 = int(min(h, np.ceil(quad[:, 1].max()) + 3))
    if x1 <= x0 or y1 <= y0:
        return np.zeros((height, width, 3), np.uint8)
    region = frame[y0:y1, x0:x1]
    local = (quad - (x0, y0)).astype(np.float32)
    over = int(min(max_oversample, np.ceil(scale / supersample))) if scale > supersample else 1
    big_w, big_h = width * over, height * over
    dst = np.array([[0, 0], [big_w, 0], [big_w, big_h], [0, big_h]], np.float32)
    matrix = cv2.getPerspectiveTransform(local, dst)
    warped = cv2.warpPerspective(
        region, matrix, (big_w, big_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    if over > 1:
        warped = cv2.resize(warped, (width, height), interpolation=cv2.INTER_AREA)
    return warped


@dataclass(frozen=True)
class AlignConfig:
    """Settings of corner refinement by aligning a known reference face (`align_to_reference`).

    Attributes:
        width_px: width of the canonical face both images are compared at.
        iterations: most iterations of the enhanced-correlation (ECC) alignment.
        epsilon: ECC stops when the correlation improves less than this.
        blur_px: Gaussian window (pixels, odd) ECC smooths both images with.
        min_correlation: an alignment correlating less than this is rejected.
        max_shift_fraction: a corner that moved more than this fraction of the quad's mean edge
            rejects the alignment.
        min_side_px: quads with a side shorter than this are left as they are (too few pixels
            to do better than the detector); larger ones are compared at no more than their own
            size (`width_px` at most).
    """

    width_px: int = 128
    iterations: int = 40
    epsilon: float = 1e-4
    blur_px: int = 3
    min_correlation: float = 0.5
    max_shift_fraction: float = 0.12
    min_side_px: float = 40.0


def _gray(image: np.ndarray) -> np.ndarray:
    if image.ndim == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return image.astype(np.float32)


def align_to_reference(
    frame: np.ndarray,
    corners: np.ndarray,
    reference: np.ndarray,
    config: AlignConfig | None = None,
) -> tuple[np.ndarray, float]:
    """Refine a quad's corners by aligning the piece's known face with the frame.

    `corners` (4, 2) list the printed TL, TR, BR, BL; `reference` is the upright face image (BGR
    uint8) of the identified piece. The quad is warped to the reference's canonical size and the
    homography between the two is estimated by enhanced correlation (ECC), which ignores exposure
    and contrast. Returns the refined corners and the alignment's correlation; on failure (no
    convergence, low correlation, implausible shift) the input corners and 0.0.
    """
    config = config or AlignConfig()
    quad = np.asarray(corners, np.float64).reshape(4, 2)
    if not np.all(np.isfinite(quad)):
        return quad.copy(), 0.0
    rh, rw = reference.shape[:2]
    sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    if sides.min() < config.min_side_px:
        return quad.copy(), 0.0
    width = int(min(config.width_px, max(32.0, round((sides[0] + sides[2]) / 2))))
    height = max(1, int(round(width * rh / rw)))
    template = _gray(cv2.resize(reference, (width, height), interpolation=cv2.INTER_AREA))
    warped = _gray(warp_face(frame, quad, (width, height)))
    rect = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float64)
    matrix = np.eye(3, dtype=np.float32)
    criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, config.iterations, config.epsilon)
    try:
        ecc: Any = cv2.findTransformECC  # the stubs refuse a None mask with a blur size
        correlation, matrix = ecc(
            template, warped, matrix, cv2.MOTION_HOMOGRAPHY, criteria, None, config.blur_px
        )
    except cv2.error:
        return quad.copy(), 0.0
    if not np.isfinite(correlation) or correlation < config.min_correlation:
        return quad.copy(), 0.0
    # template point x ↔ warped point W x ↔ frame point H⁻¹ W x
    to_frame = np.linalg.inv(
        cv2.getPerspectiveTransform(quad.astype(np.float32), rect.astype(np.float32))
    )
    points = np.hstack([rect, np.ones((4, 1))]) @ (to_frame @ matrix.astype(np.float64)).T
    refined = points[:, :2] / points[:, 2:3]
    mean_edge = float(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1).mean())
    shift = np.linalg.norm(refined - quad, axis=1)
    if not np.all(np.isfinite(refined)) or np.any(shift > config.max_shift_fraction * mean_edge):
        return quad.copy(), 0.0
    return refined, float(correlation)


def warp_many(frame: np.ndarray, corners: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`warp_face` for (n, 4, 2) quads; returns (n, height, width, 3) uint8."""
    quads = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    out = np.empty((len(quads), int(size[1]), int(size[0]), 3), np.uint8)
    for i, quad in enumerate(quads):
        out[i] = warp_face(frame, quad, size)
    return out


__all__ = [
    "AlignConfig",
    "align_to_reference",
    "face_size",
    "warp_face",
    "warp_many",
]


def edge_direction(gray: np.ndarray, bins: int = 90) -> float:
    """The dominant edge direction of a grey patch, in radians within [0, π/2) (a rectangle's
    edges are the same direction modulo a quarter turn); the gradient-magnitude-weighted peak of
    the orientation histogram (gradients of a lightly blurred patch), smoothed over ±2°."""
    # smoothed first: the staircase of a pixelated slanted edge has axis-aligned gradients
    patch = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 1.5)
    gx = cv2.Sobel(patch, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(patch, cv2.CV_32F, 0, 1, ksize=3)
    magnitude = np.hypot(gx, gy).ravel()
    angle = np.mod(np.arctan2(gy, gx).ravel(), np.pi / 2)
    hist = np.bincount(
        np.minimum((angle / (np.pi / 2) * bins).astype(np.int64), bins - 1),
        weights=magnitude,
        minlength=bins,
    )
    kernel = np.ones(5)
    smooth = np.convolve(np.concatenate([hist[-2:], hist, hist[:2]]), kernel, mode="valid")
    peak = int(np.argmax(smooth))
    # sub-bin: the weighted mean of the raw histogram around the peak (wrapping at 0 / π/2)
    offsets = np.arange(-3, 4)
    weights = hist[(peak + offsets) % bins]
    centre = peak + 0.5 + float((offsets * weights).sum() / max(weights.sum(), 1e-9))
    return float(np.mod(centre / bins * (np.pi / 2), np.pi / 2))


def quad_in_box(
    frame: np.ndarray, box: np.ndarray, aspect: float, *, margin: float = 0.1
) -> np.ndarray:
    """The 4 corners (TL, TR, BR, BL) of a rectangle of `aspect` (short / long side) that fills
    the axis-aligned `box` (x1, y1, x2, y2) of `frame`, turned to the edges seen in the box.

    A rectangle of sides a (at angle θ) and b has the box ``a·cos θ + b·sin θ`` wide and
    ``a·sin θ + b·cos θ`` high. Where that system is well conditioned (θ away from 45°) and its
    solution keeps roughly the piece's aspect, the sides are solved for (perspective may squash
    a piece); otherwise the piece's aspect is imposed and its size fitted to the box.
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    width, height = x2 - x1, y2 - y1
    h, w = frame.shape[:2]
    pad_x, pad_y = margin * width, margin * height
    xa, ya = int(max(0, np.floor(x1 - pad_x))), int(max(0, np.floor(y1 - pad_y)))
    xb, yb = int(min(w, np.ceil(x2 + pad_x))), int(min(h, np.ceil(y2 + pad_y)))
    patch = frame[ya:yb, xa:xb]
    theta = 0.0
    if patch.shape[0] >= 4 and patch.shape[1] >= 4:
        gray = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY) if patch.ndim == 3 else patch
        theta = edge_direction(gray)
    c, s = float(np.cos(theta)), float(np.sin(theta))
    sides: tuple[float, float] | None = None
    det = c * c - s * s
    if abs(det) > 0.3:
        a = (width * c - height * s) / det
        b = (height * c - width * s) / det
        if a > 0 and b > 0:
            ratio = min(a, b) / max(a, b)
            if abs(ratio - aspect) <= 0.35 * aspect:
                sides = (a, b)
    if sides is None:
        best = None
        for a_unit, b_unit in ((1.0, aspect), (aspect, 1.0)):  # long side along θ or across
            bw, bh = a_unit * c + b_unit * s, a_unit * s + b_unit * c
            scale = (width * bw + height * bh) / (bw * bw + bh * bh)
            residual = abs(width - scale * bw) + abs(height - scale * bh)
            if best is None or residual < best[0]:
                best = (residual, scale * a_unit, scale * b_unit)
        assert best is not None
        sides = (best[1], best[2])
    a, b = sides
    centre = np.array([(x1 + x2) / 2, (y1 + y2) / 2])
    u, v = np.array([c, s]) * a / 2, np.array([-s, c]) * b / 2
    quad = np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])
    return order_corners_clockwise(quad).astype(np.float32)
