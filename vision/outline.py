"""Refine a card's or tile's rough quad to its outline in the image (edges, no identity needed).

The detector's corner head and `vision.rectify.quad_in_box` place a piece's corners some 20 % of
its edge off; identification needs a few percent. `refine_quad` moves each side of a rough quad
onto a straight edge near it: for every side, colour profiles are sampled along the side's normal
at points spread along it, each profile's derivative gives the edge strength at every offset, and
a search over lines (offset and tilt across the side) scores each line by the mean strength where
it crosses the profiles — a straight edge many samples agree on, not the table's texture.

The first, wide pass keeps a few strong lines per side and picks one per side jointly: the
combination whose quad has the strongest sides, best fills the detected box, lies furthest out
(printed borders run inside the edge, parallel to it) and shows the same colour just inside all
four sides (the piece's margin; a printed stripe or a neighbour's edge has another colour inside),
among those that are convex, keep roughly the piece's aspect and have nearly parallel opposite
sides (another piece's edge crossing a hidden side is not). Each side's line is then refit to the
sub-pixel edge peaks near it (total least squares, samples without a peak there dropped), the
lines are intersected, and narrower passes repeat the fit. The given quad and `quad_in_box`'s
rectangle both start a wide pass; the better supported goes on.

Frames are `uint8` BGR (H, W, 3) arrays and are never modified; corners are (4, 2) image pixels
(pixel centres at integers), returned in the same corner order as the input quad.
`benchmarks/corner_refinement.py` measures it on rendered scenes.

Public names: `OutlineConfig`, `refine_quad`.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

import cv2
import numpy as np

from vision.geometry import in_corner_order_of
from vision.rectify import quad_in_box


@dataclass(frozen=True)
class OutlineConfig:
    """Settings of `refine_quad`.

    Attributes:
        margin: the box is expanded by this fraction of its longer side before looking for edges.
        samples_per_side: profiles sampled along each side (spread over its middle part, so the
            corners' neighbours do not pull the line).
        side_span: the fraction of each side the samples cover (centred).
        search: half-width of the normal search per pass, as a fraction of the mean side length
            (one pass per value: a wide one first, then narrower ones).
        tilt: the most a side's line may turn per pass: offset change from one end of the side
            to the other, as a fraction of the side's length.
        tilt_steps: tilts tried per pass (odd, so "no turn" is one of them).
        step_px: spacing of the samples along each profile (pixels).
        blur_px: Gaussian blur (sigma, pixels) of the patch before sampling: noise and JPEG blocks.
        candidate_floor: in the first pass each side offers the straight edges scoring at least
            this fraction of its best as candidates ...
        max_candidates: ... the strongest this many of them; the combination of one per side
            whose quad is best supported and best fills the detected box wins (`box_weight`).
        box_weight: weight of the quad's bounding-box IoU with the detected box against the mean
            relative edge score of its sides (a side on a printed stripe or on a neighbour's
            edge moves the quad off the box).
        outer_weight: weight of the candidates' mean offset outwards (over the search's
            half-width) in that choice: printed borders run inside the piece's edge.
        colour_weight: weight (per 100 grey levels) of how much the colours just inside the
            four chosen lines differ: a piece's margin is one colour all round, while a printed
            stripe or a neighbour's edge has another colour inside.
        inset_px: how far inside a line that colour is read (pixels).
        inlier_px: a sample's edge peak further than this from the side's line is an outlier.
        min_quality: results whose share of supporting samples is below this are rejected.
        min_foreshortening: the most a view may shorten one of a piece's sides against the
            other (a factor); a result whose short-over-long side ratio is outside what the
            piece's aspect gives under that is rejected (a card of 0.64 may look anywhere from
            0.64 x 0.55 to square, a tile from 0.55 to square).
        min_box_iou: a result whose bounding box overlaps the detected box less is rejected.
        max_skew_deg: opposite sides further than this from parallel are rejected (a side on
            another piece's edge; perspective turns a flat piece's sides less).
        min_side_px: quads or boxes with a side shorter than this are left alone.
        try_box_quad: also start from `quad_in_box` (its orientation comes from the edges in the
            box and is usually closer than the detector's corners); the better supported wins.
        good_enough: a start whose first pass has at least this support is not tried again
            from the next start (time).
    """

    margin: float = 0.15
    samples_per_side: int = 24
    side_span: float = 0.76
    search: tuple[float, ...] = (0.25, 0.03)
    tilt: tuple[float, ...] = (0.25, 0.05)
    tilt_steps: int = 11
    step_px: float = 0.5
    blur_px: float = 0.4
    candidate_floor: float = 0.4
    max_candidates: int = 4
    box_weight: float = 1.0
    outer_weight: float = 0.2
    colour_weight: float = 0.5
    inset_px: float = 1.5
    inlier_px: float = 1.0
    min_quality: float = 0.3
    min_foreshortening: float = 0.55
    min_box_iou: float = 0.5
    min_side_px: float = 6.0
    max_skew_deg: float = 15.0
    try_box_quad: bool = True
    good_enough: float = 0.9


_NEXT = np.array([1, 2, 3, 0])  # side i runs from corner i to corner _NEXT[i]
_PREV = np.array([3, 0, 1, 2])


def _unchanged(quad: object) -> tuple[np.ndarray, float]:
    try:
        return np.array(quad, dtype=np.float64, copy=True), 0.0
    except (TypeError, ValueError):
        return np.full((4, 2), np.nan), 0.0


def _sides(quad: np.ndarray) -> np.ndarray:
    d = quad[_NEXT] - quad
    return np.asarray(np.sqrt((d * d).sum(axis=1)))


def _signed_area(quad: np.ndarray) -> float:
    x, y = quad[:, 0], quad[:, 1]
    return float(0.5 * (np.dot(x, y[_NEXT]) - np.dot(x[_NEXT], y)))


def _ratio_ok(ratio: np.ndarray, aspect: float, foreshortening: float) -> np.ndarray:
    """Whether short-over-long side ratios are within what `aspect` gives when a view shortens
    either side by up to `foreshortening`."""
    return np.asarray(
        (ratio >= aspect * foreshortening) & (ratio <= min(1.0, aspect / foreshortening) + 1e-9)
    )


def _skew_ok(normals: np.ndarray, max_deg: float) -> np.ndarray:
    """Whether opposite sides (unit normals (..., 4, 2)) are within `max_deg` of parallel."""
    cos = np.abs((normals[..., :2, :] * normals[..., 2:, :]).sum(axis=-1))
    return np.asarray(np.all(cos >= np.cos(np.radians(max_deg)), axis=-1))


def _is_convex(quad: np.ndarray) -> bool:
    edges = quad[_NEXT] - quad
    cross = edges[:, 0] * edges[_NEXT, 1] - edges[:, 1] * edges[_NEXT, 0]
    return bool(np.all(cross > 0) or np.all(cross < 0))


def _intersect(lines: np.ndarray) -> np.ndarray:
    """Corners of 4 lines n·x = c (rows n_x, n_y, c), corner i between lines i-1 and i; NaN where
    two adjacent lines are parallel."""
    prev = lines[_PREV]
    det = prev[:, 0] * lines[:, 1] - prev[:, 1] * lines[:, 0]
    safe = np.where(np.abs(det) > 1e-9, det, np.nan)
    x = (prev[:, 2] * lines[:, 1] - prev[:, 1] * lines[:, 2]) / safe
    y = (prev[:, 0] * lines[:, 2] - prev[:, 2] * lines[:, 0]) / safe
    return np.stack([x, y], axis=1)


class _Patch:
    """The blurred colour patch around a piece and its edge-profile sampler."""

    def __init__(self, image: np.ndarray, origin: np.ndarray, config: OutlineConfig) -> None:
        patch: np.ndarray = image.astype(np.float32)
        if config.blur_px > 0:
            patch = np.asarray(cv2.GaussianBlur(patch, (0, 0), config.blur_px))
        self.image = patch
        self.origin = origin
        self.config = config
        self.colours: np.ndarray = np.zeros((4, 0, 0, 3), np.float32)

    def profiles(self, quad: np.ndarray, half_px: float) -> tuple[np.ndarray, ...]:
        """Edge strength along each side's outward normal.

        Returns (strength (4, K, S), offsets (S,), u (K,), points (4, K, 2), normals (4, 2)):
        strength[i, k, j] is the colour derivative along side i's normal at sample k, offset
        offsets[j] (positive = outwards).
        """
        cfg = self.config
        k = cfg.samples_per_side
        u = np.linspace(0.5 - cfg.side_span / 2, 0.5 + cfg.side_span / 2, k)
        steps = int(np.ceil(half_px / cfg.step_px))
        offsets = np.arange(-steps - 1, steps + 2) * cfg.step_px
        start, end = quad, quad[_NEXT]
        direction = end - start
        direction /= np.maximum(np.linalg.norm(direction, axis=1, keepdims=True), 1e-9)
        # outward normal of a side: clockwise in image coordinates (y down) has it on the left
        sign = 1.0 if _signed_area(quad) > 0 else -1.0
        normals = sign * np.stack([direction[:, 1], -direction[:, 0]], axis=1)
        points = start[:, None, :] + u[None, :, None] * (end - start)[:, None, :]
        grid = points[:, :, None, :] + offsets[None, None, :, None] * normals[:, None, None, :]
        grid = (grid - self.origin).astype(np.float32)
        sampled = cv2.remap(
            self.image,
            grid[..., 0].reshape(4 * k, -1),
            grid[..., 1].reshape(4 * k, -1),
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_REPLICATE,
        ).reshape(4, k, len(offsets), -1)
        derivative = (sampled[:, :, 2:] - sampled[:, :, :-2]) / (2 * cfg.step_px)
        strength = np.sqrt((derivative * derivative).sum(axis=3))
        self.colours = sampled[:, :, 1:-1]  # aligned with the strengths' offsets
        return strength, offsets[1:-1], u, points, normals


def _line_scores(
    strength: np.ndarray, offsets: np.ndarray, u: np.ndarray, tilt_px: np.ndarray, steps: int
) -> tuple[np.ndarray, np.ndarray]:
    """Edge score of every straight line across each side's profiles.

    The line (d, t) of side i crosses sample k at offset d + t (u_k - 1/2); its score is the mean
    edge strength there. Returns (per_offset (4, D): the best score over tilts at each offset,
    tilts (4, D): that tilt in pixels)."""
    sides, samples, count = strength.shape
    step = offsets[1] - offsets[0]
    tilts = np.linspace(-1.0, 1.0, steps)[None, :] * tilt_px[:, None]  # (4, T)
    shift = np.rint(tilts[:, :, None] * (u[None, None, :] - 0.5) / step).astype(np.int64)
    # zero-padded on both ends by the largest shift, so no index needs clipping
    pad = int(np.abs(shift).max())
    padded = np.pad(strength, ((0, 0), (0, 0), (pad, pad)))
    width = count + 2 * pad
    base = (np.arange(sides)[:, None] * samples + np.arange(samples)[None, :]) * width + pad
    index = base[:, None, None, :] + np.arange(count)[None, None, :, None] + shift[:, :, None, :]
    values = padded.ravel()[index]  # (4, T, D, K)
    scores = values.mean(axis=3)  # (4, T, D)
    best = scores.argmax(axis=1)  # (4, D)
    per_offset = np.take_along_axis(scores, best[:, None, :], axis=1)[:, 0, :]
    return per_offset, np.take_along_axis(tilts, best, axis=1)


def _candidates(
    per_offset: np.ndarray, offsets: np.ndarray, tilts: np.ndarray, floor: float, most: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per side: (offsets, tilts, relative scores) of the local maxima over offset scoring at
    least `floor` of the side's best, strongest first, `most` at most."""
    top = np.maximum(per_offset.max(axis=1, keepdims=True), 1e-12)
    padded = np.pad(per_offset, ((0, 0), (1, 1)), constant_values=-1.0)
    peaks = (per_offset >= padded[:, :-2]) & (per_offset > padded[:, 2:])
    peaks &= per_offset >= floor * top
    out = []
    for i in range(len(per_offset)):
        chosen = np.flatnonzero(peaks[i])
        if len(chosen) == 0:
            chosen = np.array([int(per_offset[i].argmax())])
        chosen = chosen[np.argsort(-per_offset[i, chosen], kind="stable")[:most]]
        out.append((offsets[chosen], tilts[i, chosen], per_offset[i, chosen] / top[i, 0]))
    return out


def _inside_colours(
    colours: np.ndarray,
    offsets: np.ndarray,
    u: np.ndarray,
    candidates: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    inset_px: float,
) -> list[np.ndarray]:
    """Per side, (C, channels): the mean colour just inside each candidate line."""
    step = offsets[1] - offsets[0]
    rows = np.arange(len(u))[None, :]
    out = []
    for i, (offset, tilt, _) in enumerate(candidates):
        at = offset[:, None] + tilt[:, None] * (u[None, :] - 0.5) - inset_px  # (C, K)
        j = np.clip(np.rint((at - offsets[0]) / step).astype(np.int64), 0, len(offsets) - 1)
        out.append(colours[i][rows, j].mean(axis=1))
    return out


def _fit_sides(
    strength: np.ndarray,
    offsets: np.ndarray,
    u: np.ndarray,
    points: np.ndarray,
    normals: np.ndarray,
    chosen: np.ndarray,
    inlier_px: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Refit each side's line (n·x = c) to the sub-pixel edge peaks near its chosen line
    (`chosen` (4, 2): offset, tilt); returns the lines (4, 3) and each side's share of samples
    that an edge peak supports."""
    sides, samples, count = strength.shape
    step = offsets[1] - offsets[0]
    expected = chosen[:, :1] + chosen[:, 1:] * (u[None, :] - 0.5)  # (4, K)
    window = max(1, int(round(inlier_px / step)))
    centre = np.rint((expected - offsets[0]) / step).astype(np.int64)
    span = np.arange(-window, window + 1)
    index = np.clip(centre[:, :, None] + span, 1, count - 2)  # (4, K, W)
    side = np.arange(sides)[:, None]
    sample = np.arange(samples)[None, :]
    near = strength[side[:, :, None], sample[:, :, None], index]
    j = np.take_along_axis(index, near.argmax(axis=2)[:, :, None], axis=2)[:, :, 0]
    left, mid, right = (
        strength[side, sample, j - 1],
        strength[side, sample, j],
        strength[side, sample, j + 1],
    )
    # no peak there (the edge is hidden or faint at that sample): no position
    peak = (mid >= left) & (mid >= right) & (mid > 0)
    curve = left - 2 * mid + right
    safe = np.where(curve < 0, curve, -1.0)
    frac = np.where(curve < 0, np.clip(0.5 * (left - right) / safe, -0.5, 0.5), 0.0)
    found = offsets[0] + (j + frac) * step
    ok = peak & (np.abs(found - expected) <= inlier_px)
    positions = points + found[:, :, None] * normals[:, None, :]  # (4, K, 2)
    # total least squares over each side's supported peaks: the line's normal is across their
    # principal direction (sides with under 3 peaks keep the chosen line)
    weight = ok.astype(np.float64)
    count_ok = weight.sum(axis=1)
    centroid = (positions * weight[:, :, None]).sum(axis=1) / np.maximum(count_ok, 1)[:, None]
    dx, dy = np.moveaxis(positions - centroid[:, None, :], 2, 0) * weight
    angle = 0.5 * np.arctan2(2 * (dx * dy).sum(axis=1), (dx * dx - dy * dy).sum(axis=1))
    fitted = np.stack([-np.sin(angle), np.cos(angle)], axis=1)
    fitted *= np.where((fitted * normals).sum(axis=1) >= 0, 1.0, -1.0)[:, None]
    fallback = points.mean(axis=1) + chosen[:, :1] * normals
    enough = (count_ok >= 3)[:, None]
    normal = np.where(enough, fitted, normals)
    through = np.where(enough, centroid, fallback)
    lines = np.concatenate([normal, (normal * through).sum(axis=1, keepdims=True)], axis=1)
    return lines, ok.mean(axis=1)


def _lines_through(
    start: np.ndarray, end: np.ndarray, normal: np.ndarray, offset: np.ndarray, tilt: np.ndarray
) -> np.ndarray:
    """The lines n·x = c (rows) crossing a side's normals at offset - tilt/2 at its start and
    offset + tilt/2 at its end."""
    p0 = start + (offset - tilt / 2)[:, None] * normal
    p1 = end + (offset + tilt / 2)[:, None] * normal
    direction = p1 - p0
    n = np.stack([direction[:, 1], -direction[:, 0]], axis=1)
    n /= np.maximum(np.sqrt((n * n).sum(axis=1, keepdims=True)), 1e-9)
    n *= np.where(n @ normal >= 0, 1.0, -1.0)[:, None]
    return np.concatenate([n, (n * p0).sum(axis=1, keepdims=True)], axis=1)


def _joint_choice(
    quad: np.ndarray,
    normals: np.ndarray,
    candidates: list[tuple[np.ndarray, np.ndarray, np.ndarray]],
    inside: list[np.ndarray],
    box: np.ndarray,
    aspect: float,
    half_px: float,
    config: OutlineConfig,
) -> list[int]:
    """Which candidate line of each side: the combination whose quad the edges support best and
    whose bounding box agrees with the detected box."""
    ends = quad[_NEXT]
    lines = [
        _lines_through(quad[i], ends[i], normals[i], c[0], c[1]) for i, c in enumerate(candidates)
    ]
    grids = np.meshgrid(*[np.arange(len(c[0])) for c in candidates], indexing="ij")
    combos = np.stack([g.ravel() for g in grids], axis=1)  # (M, 4)
    chosen = np.stack([lines[i][combos[:, i]] for i in range(4)], axis=1)  # (M, 4, 3)
    prev = chosen[:, _PREV]
    det = prev[..., 0] * chosen[..., 1] - prev[..., 1] * chosen[..., 0]
    safe = np.where(np.abs(det) > 1e-6, det, 1.0)
    x = (prev[..., 2] * chosen[..., 1] - prev[..., 1] * chosen[..., 2]) / safe
    y = (prev[..., 0] * chosen[..., 2] - prev[..., 2] * chosen[..., 0]) / safe
    corners = np.stack([x, y], axis=2)  # (M, 4, 2): corner i between lines i-1 and i
    proper = np.all(np.abs(det) > 1e-6, axis=1)
    edges = corners[:, _NEXT] - corners
    turn = edges[..., 0] * edges[:, _NEXT, 1] - edges[..., 1] * edges[:, _NEXT, 0]
    convex = np.all(turn > 0, axis=1) | np.all(turn < 0, axis=1)
    lengths = np.sqrt((edges * edges).sum(axis=2))
    a = (lengths[:, 0] + lengths[:, 2]) / 2
    b = (lengths[:, 1] + lengths[:, 3]) / 2
    ratio = np.minimum(a, b) / np.maximum(np.maximum(a, b), 1e-9)
    shaped = _ratio_ok(ratio, aspect, config.min_foreshortening)
    shaped &= _skew_ok(chosen[..., :2], config.max_skew_deg)
    lo, hi = corners.min(axis=1), corners.max(axis=1)
    iw = np.clip(np.minimum(hi[:, 0], box[2]) - np.maximum(lo[:, 0], box[0]), 0, None)
    ih = np.clip(np.minimum(hi[:, 1], box[3]) - np.maximum(lo[:, 1], box[1]), 0, None)
    inter = iw * ih
    union = np.prod(hi - lo, axis=1) + (box[2] - box[0]) * (box[3] - box[1]) - inter
    iou = inter / np.maximum(union, 1e-9)
    support = np.mean([candidates[i][2][combos[:, i]] for i in range(4)], axis=0)
    # printed borders run inside the edge: the further out, the likelier the piece's own edge
    outward = np.mean([candidates[i][0][combos[:, i]] for i in range(4)], axis=0) / half_px
    # a piece's margin shows the same colour just inside all four of its edges
    colour = np.stack([inside[i][combos[:, i]] for i in range(4)], axis=1)  # (M, 4, 3)
    spread = np.sqrt(((colour - colour.mean(axis=1, keepdims=True)) ** 2).sum(axis=2)).mean(axis=1)
    score = support + config.box_weight * iou + config.outer_weight * outward
    score = score - config.colour_weight * spread / 100.0
    score = np.where(proper & convex & shaped, score, -np.inf)
    return [int(v) for v in combos[int(np.argmax(score))]]


def _refine_once(
    patch: _Patch,
    quad: np.ndarray,
    half: float,
    tilt: float,
    box: np.ndarray,
    aspect: float,
    joint: bool,
) -> tuple[np.ndarray, float]:
    """One pass: each side onto its edge within `half` (fraction of the mean side) of it."""
    cfg = patch.config
    side_lengths = _sides(quad)
    strength, offsets, u, points, normals = patch.profiles(
        quad, max(half * float(side_lengths.mean()), 1.5)
    )
    per_offset, tilts = _line_scores(strength, offsets, u, tilt * side_lengths, cfg.tilt_steps)
    if joint:
        candidates = _candidates(
            per_offset, offsets, tilts, cfg.candidate_floor, cfg.max_candidates
        )
        inside = _inside_colours(patch.colours, offsets, u, candidates, cfg.inset_px)
        picks = _joint_choice(
            quad, normals, candidates, inside, box, aspect, float(offsets[-1]), cfg
        )
        chosen = np.array([(c[0][k], c[1][k]) for c, k in zip(candidates, picks, strict=True)])
    else:
        best = per_offset.argmax(axis=1)
        chosen = np.stack([offsets[best], tilts[np.arange(4), best]], axis=1)
    lines, supports = _fit_sides(strength, offsets, u, points, normals, chosen, cfg.inlier_px)
    return _intersect(lines), float(supports.mean())


def _plausible(quad: np.ndarray, box: np.ndarray, aspect: float, config: OutlineConfig) -> bool:
    if not np.all(np.isfinite(quad)) or not _is_convex(quad):
        return False
    edges = quad[_NEXT] - quad
    directions = edges / np.maximum(np.sqrt((edges * edges).sum(axis=1, keepdims=True)), 1e-9)
    if not _skew_ok(directions, config.max_skew_deg):
        return False
    sides = _sides(quad)
    if sides.min() < config.min_side_px:
        return False
    a, b = (sides[0] + sides[2]) / 2, (sides[1] + sides[3]) / 2
    ratio = min(a, b) / max(a, b)
    if not _ratio_ok(np.array(ratio), aspect, config.min_foreshortening):
        return False
    qx1, qy1 = quad.min(axis=0)
    qx2, qy2 = quad.max(axis=0)
    x1, y1, x2, y2 = box
    iw = max(0.0, min(qx2, x2) - max(qx1, x1))
    ih = max(0.0, min(qy2, y2) - max(qy1, y1))
    inter = iw * ih
    union = (qx2 - qx1) * (qy2 - qy1) + (x2 - x1) * (y2 - y1) - inter
    return bool(union > 0 and inter / union >= config.min_box_iou)


def refine_quad(
    frame: np.ndarray,
    quad: np.ndarray,
    box: np.ndarray,
    aspect: float,
    config: OutlineConfig | None = None,
) -> tuple[np.ndarray, float]:
    """Move a rough quad's sides onto the piece's outline seen in the frame.

    Args:
        frame: uint8 BGR (H, W, 3) (grey (H, W) works too).
        quad: (4, 2) rough corners (any order round the piece; the result keeps it).
        box: the piece's detected box (x1, y1, x2, y2); edges are looked for in it, expanded.
        aspect: the piece's short over long side (card 57/89, tile 1.0).
        config: settings (`OutlineConfig`).

    Returns:
        (corners, quality): the refined (4, 2) float64 corners and the share of the outline's
        samples that an edge supports, in (0, 1]; the input unchanged and 0.0 when the quad,
        box or frame are unusable or no plausible outline was found.
    """
    config = config or OutlineConfig()
    try:
        start = np.asarray(quad, dtype=np.float64).reshape(4, 2)
        box_arr = np.asarray(box, dtype=np.float64).reshape(4)
    except (TypeError, ValueError):
        return _unchanged(quad)
    if (
        not np.all(np.isfinite(start))
        or not np.all(np.isfinite(box_arr))
        or not (np.isfinite(aspect) and 0 < aspect <= 1)
        or frame.ndim not in (2, 3)
    ):
        return _unchanged(quad)
    x1, y1, x2, y2 = box_arr
    if x2 - x1 < config.min_side_px or y2 - y1 < config.min_side_px:
        return _unchanged(quad)
    height, width = frame.shape[:2]
    pad = config.margin * max(x2 - x1, y2 - y1) + 2
    xa, ya = int(max(0, np.floor(x1 - pad))), int(max(0, np.floor(y1 - pad)))
    xb, yb = int(min(width, np.ceil(x2 + pad) + 1)), int(min(height, np.ceil(y2 + pad) + 1))
    if xb - xa < config.min_side_px or yb - ya < config.min_side_px:
        return _unchanged(quad)
    patch = _Patch(frame[ya:yb, xa:xb], np.array([xa, ya], np.float64), config)

    starts = [start]
    if config.try_box_quad:
        with contextlib.suppress(ValueError, cv2.error):
            starts.append(quad_in_box(frame, box_arr, aspect).astype(np.float64))
    # the wide first pass from every start; the narrower ones only from the best supported
    best: tuple[float, np.ndarray] | None = None
    for initial in starts:
        if not _is_convex(initial) or _sides(initial).min() < config.min_side_px:
            continue
        refined, support = _refine_once(
            patch, initial, config.search[0], config.tilt[0], box_arr, aspect, True
        )
        if _plausible(refined, box_arr, aspect, config) and (best is None or support > best[0]):
            best = (support, refined)
            if support >= config.good_enough:
                break  # no other start would be supported much better
    if best is not None:
        support, current = best
        for half, tilt in zip(config.search[1:], config.tilt[1:], strict=True):
            refined, support = _refine_once(patch, current, half, tilt, box_arr, aspect, False)
            if not _plausible(refined, box_arr, aspect, config):
                support = 0.0
                break
            current = refined
        best = (support, current) if support >= config.min_quality else None
    if best is None:
        return _unchanged(quad)
    return in_corner_order_of(best[1], start), best[0]


__all__ = ["OutlineConfig", "refine_quad"]
