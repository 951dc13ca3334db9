"""Rectify cards and tiles: refine their 4 corners on the full-size frame, warp to a face image.

`refine_corners` moves each of a quad's 4 edges onto the strongest nearby straight edge in the
frame: it samples the intensity gradient across the edge at points along its middle, takes the
sub-pixel peak of each profile (closest strong edge to the estimate), fits a straight line to the
peaks robustly (iteratively re-weighted, Tukey), and intersects neighbouring lines for the new
corners. An edge that finds too little support keeps its estimate, so refinement never makes a
good estimate much worse. `warp_face` maps the quad onto an upright rectangle (the corners'
first point becomes the face image's top-left), with area averaging when the piece is larger in
the frame than the output so small outputs do not alias.

Frames are `uint8` BGR (H, W, 3) arrays and are never modified. Corners are (4, 2) float arrays of
image pixels (OpenCV's convention: pixel centres at integers), in the order TL, TR, BR, BL of the
quad (`vision.geometry`). The benchmark `benchmarks/identify_accuracy.py --corners` measures the
refinement on rendered scenes against their true corners.

Public names: `RectifyConfig`, `refine_corners`, `refine_many`, `warp_face`, `warp_many`,
`face_size`.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class RectifyConfig:
    """Thresholds of corner refinement (defaults tuned on rendered eval scenes).

    Attributes:
        search_fraction: how far (fraction of the edge's length) each side of the estimated edge
            the true edge is looked for; the detector's corner error should be within it.
        min_search_px: the search reaches at least this many pixels each side.
        span: the part of each edge (from, to as fractions of its length) sampled; the ends are
            left out because rounded corners bend away from the straight edge.
        samples_per_edge: profiles sampled across each edge.
        step_px: spacing of the samples along each profile.
        prior_sigma: width of the preference for peaks near the estimate, as a fraction of the
            search distance (a strong edge far away loses to a good edge close by).
        min_peak_ratio: a profile whose peak is weaker than this fraction of the edge's median
            peak is left out of the line fit.
        min_support: an edge needs at least this fraction of its profiles as inliers of the
            fitted line; otherwise it keeps its estimate.
        tukey_px: Tukey's constant of the robust line fit, in pixels (at least).
        max_shift_fraction: a refined corner that moved more than this fraction of the quad's
            mean edge is rejected (the quad keeps its estimate).
        min_edge_px: quads with an edge shorter than this are returned unchanged (too small to
            refine).
        passes: refinement passes; later passes search a quarter as far.
        outer_peak_ratio: along each profile, the outermost local peak at least this fraction
            of the strongest is taken (printed borders inside the piece are often stronger than
            the piece's own edge against the table).
    """

    search_fraction: float = 0.05
    min_search_px: float = 2.5
    span: tuple[float, float] = (0.14, 0.86)
    samples_per_edge: int = 24
    step_px: float = 0.5
    prior_sigma: float = 0.7
    min_peak_ratio: float = 0.35
    min_support: float = 0.4
    tukey_px: float = 1.5
    max_shift_fraction: float = 0.12
    min_edge_px: float = 12.0
    passes: int = 2
    outer_peak_ratio: float = 0.4


def face_size(width_mm: float, height_mm: float, width_px: int) -> tuple[int, int]:
    """(width, height) in pixels of a face image `width_px` wide with the piece's aspect."""
    if not (width_mm > 0 and height_mm > 0 and width_px > 0):
        raise ValueError(f"bad face size {width_mm}x{height_mm} mm at {width_px} px")
    return int(width_px), max(1, int(round(width_px * height_mm / width_mm)))


def _gradients(frame: np.ndarray, box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    x0, y0, x1, y1 = box
    region = frame[y0:y1, x0:x1]
    gray = cv2.cvtColor(region, cv2.COLOR_BGR2GRAY) if region.ndim == 3 else region
    gray = cv2.GaussianBlur(gray.astype(np.float32), (0, 0), 0.8)
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    return gx, gy


def _fit_lines(
    points: np.ndarray, valid: np.ndarray, tukey: float, iterations: int = 6
) -> tuple[np.ndarray, np.ndarray]:
    """Robust total-least-squares lines through (4, S, 2) points; (4, 3) lines, (4, S) inliers."""
    weights = valid.astype(np.float64)
    lines = np.zeros((points.shape[0], 3))
    inliers = valid.copy()
    for _ in range(iterations):
        total = weights.sum(axis=1, keepdims=True)
        total = np.where(total > 0, total, 1.0)
        centre = (points * weights[..., None]).sum(axis=1) / total
        diff = points - centre[:, None, :]
        cov = np.einsum("esi,esj,es->eij", diff, diff, weights)
        _, vectors = np.linalg.eigh(cov)
        normal = vectors[:, :, 0]  # smallest eigenvalue: the line's normal
        offset = -(normal * centre).sum(axis=1)
        lines = np.column_stack([normal, offset])
        residual = np.abs((points * normal[:, None, :]).sum(axis=2) + offset[:, None])
        scale = np.maximum(tukey, 1.4826 * _masked_median(residual, valid))
        u = residual / (4.685 * scale[:, None])
        weights = np.where(valid & (u < 1), (1 - u**2) ** 2, 0.0)
        inliers = valid & (residual < 2.5 * scale[:, None])
    return lines, inliers


def _masked_median(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    masked = np.where(mask, values, np.nan)
    with np.errstate(all="ignore"):
        out = np.nanmedian(masked, axis=1) if masked.size else np.zeros(len(values))
    return np.nan_to_num(out, nan=0.0)


def _intersect(lines: np.ndarray) -> np.ndarray:
    """Corner k is where edge k−1 (ending at it) meets edge k (starting at it)."""
    previous = np.roll(lines, 1, axis=0)
    points = np.cross(previous, lines)
    with np.errstate(all="ignore"):
        return points[:, :2] / points[:, 2:3]


def _one_pass(
    frame: np.ndarray, quad: np.ndarray, search_px: float, config: RectifyConfig
) -> np.ndarray:
    h, w = frame.shape[:2]
    starts, ends = quad, np.roll(quad, -1, axis=0)
    vectors = ends - starts
    lengths = np.linalg.norm(vectors, axis=1)
    directions = vectors / lengths[:, None]
    normals = np.column_stack([directions[:, 1], -directions[:, 0]])
    centre = quad.mean(axis=0)
    outward = ((starts + ends) / 2 - centre) * normals
    normals *= np.where(outward.sum(axis=1) < 0, -1.0, 1.0)[:, None]

    margin = search_px + 3
    x0 = int(max(0, np.floor(quad[:, 0].min() - margin)))
    y0 = int(max(0, np.floor(quad[:, 1].min() - margin)))
    x1 = int(min(w, np.ceil(quad[:, 0].max() + margin) + 1))
    y1 = int(min(h, np.ceil(quad[:, 1].max() + margin) + 1))
    if x1 - x0 < 4 or y1 - y0 < 4:
        return quad
    gx, gy = _gradients(frame, (x0, y0, x1, y1))

    t = np.linspace(config.span[0], config.span[1], config.samples_per_edge)
    offsets = np.arange(-search_px, search_px + 1e-9, config.step_px)
    base = starts[:, None, :] + t[None, :, None] * vectors[:, None, :]  # (4, S, 2)
    samples = base[:, :, None, :] + offsets[None, None, :, None] * normals[:, None, None, :]
    map_x = (samples[..., 0] - x0).astype(np.float32).reshape(-1, len(offsets))
    map_y = (samples[..., 1] - y0).astype(np.float32).reshape(-1, len(offsets))
    sx = cv2.remap(gx, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    sy = cv2.remap(gy, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    n_rep = np.repeat(normals, config.samples_per_edge, axis=0)
    strength = np.abs(sx * n_rep[:, :1] + sy * n_rep[:, 1:])
    sigma = max(config.prior_sigma * search_px, 1.0)
    scored = strength * np.exp(-0.5 * (offsets / sigma) ** 2)[None, :]
    # the piece's own edge is its outermost strong edge: inside it lie printed borders
    is_peak = np.zeros_like(scored, dtype=bool)
    is_peak[:, 1:-1] = (scored[:, 1:-1] >= scored[:, :-2]) & (scored[:, 1:-1] > scored[:, 2:])
    strong = is_peak & (scored >= config.outer_peak_ratio * scored.max(axis=1, keepdims=True))
    outermost = len(offsets) - 1 - np.argmax(strong[:, ::-1], axis=1)
    best = np.where(strong.any(axis=1), outermost, np.argmax(scored, axis=1))
    rows = np.arange(len(best))
    peak = strength[rows, best]
    # sub-pixel: a parabola through the peak and its neighbours
    left = scored[rows, np.clip(best - 1, 0, len(offsets) - 1)]
    right = scored[rows, np.clip(best + 1, 0, len(offsets) - 1)]
    middle = scored[rows, best]
    denominator = left - 2 * middle + right
    with np.errstate(all="ignore"):
        delta = np.where(np.abs(denominator) > 1e-6, 0.5 * (left - right) / denominator, 0.0)
    delta = np.clip(delta, -0.5, 0.5)
    inside = (best > 0) & (best < len(offsets) - 1)
    position = offsets[best] + delta * config.step_px
    position = position.reshape(4, -1)
    peak = peak.reshape(4, -1)
    inside = inside.reshape(4, -1)
    median_peak = np.median(peak, axis=1, keepdims=True)
    valid = inside & (peak >= config.min_peak_ratio * median_peak) & (peak > 1.0)
    points = base + position[..., None] * normals[:, None, :]
    lines, inliers = _fit_lines(points, valid, config.tukey_px)
    support = inliers.mean(axis=1)
    # edges without support keep their estimate
    estimate = np.column_stack([normals, -(normals * starts).sum(axis=1)])
    keep_estimate = support < config.min_support
    lines[keep_estimate] = estimate[keep_estimate]
    corners = _intersect(lines)
    mean_edge = float(lengths.mean())
    shift = np.linalg.norm(corners - quad, axis=1)
    if not np.all(np.isfinite(corners)) or np.any(shift > config.max_shift_fraction * mean_edge):
        return quad
    return corners


def refine_corners(
    frame: np.ndarray, corners: np.ndarray, config: RectifyConfig | None = None
) -> np.ndarray:
    """Refine one quad's corners on the full-size `frame` (uint8 BGR (H, W, 3)).

    Returns (4, 2) float64 corners in the input's order; the input when the quad is too small,
    not finite, or no edge can be found (never worse than a failed search).
    """
    config = config or RectifyConfig()
    quad = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    if not np.all(np.isfinite(quad)):
        return quad.copy()
    lengths = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
    if lengths.min() < config.min_edge_px:
        return quad.copy()
    out = quad.copy()
    search = max(config.search_fraction * float(lengths.mean()), config.min_search_px)
    for _ in range(max(1, config.passes)):
        out = _one_pass(frame, out, search, config)
        search = max(search / 4, config.min_search_px)
    return out


def refine_many(
    frame: np.ndarray, corners: np.ndarray, config: RectifyConfig | None = None
) -> np.ndarray:
    """`refine_corners` for (n, 4, 2) quads; rows that are NaN (dice) stay NaN."""
    quads = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    return np.stack([refine_corners(frame, q, config) for q in quads]) if len(quads) else quads


def warp_face(
    frame: np.ndarray, corners: np.ndarray, size: tuple[int, int], *, supersample: float = 1.5
) -> np.ndarray:
    """Warp the quad `corners` of `frame` onto an upright `size` = (width, height) face image.

    Corner 0 goes to the image's top-left, 1 to top-right, 2 bottom-right, 3 bottom-left. When
    the quad is more than `supersample` times larger than the output, its region is first shrunk
    with area averaging (no aliasing). Returns uint8 BGR (height, width, 3).
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
    local = quad - (x0, y0)
    if scale > supersample:
        factor = supersample / scale
        small_w = max(1, int(round(region.shape[1] * factor)))
        small_h = max(1, int(round(region.shape[0] * factor)))
        region = cv2.resize(region, (small_w, small_h), interpolation=cv2.INTER_AREA)
        local = (local + 0.5) * (small_w / (x1 - x0), small_h / (y1 - y0)) - 0.5
    dst = np.array([[0, 0], [width, 0], [width, height], [0, height]], np.float32)
    matrix = cv2.getPerspectiveTransform(local.astype(np.float32), dst)
    return cv2.warpPerspective(
        region, matrix, (width, height), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def warp_many(frame: np.ndarray, corners: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """`warp_face` for (n, 4, 2) quads; returns (n, height, width, 3) uint8."""
    quads = np.asarray(corners, dtype=np.float64).reshape(-1, 4, 2)
    out = np.empty((len(quads), int(size[1]), int(size[0]), 3), np.uint8)
    for i, quad in enumerate(quads):
        out[i] = warp_face(frame, quad, size)
    return out


__all__ = ["RectifyConfig", "face_size", "refine_corners", "refine_many", "warp_face", "warp_many"]
