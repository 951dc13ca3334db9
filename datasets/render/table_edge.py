"""The edge of the table: beyond it the floor, far below, dark and out of focus; along it a lip.

An edge is a straight line on the table plane, ``x cos θ + y sin θ = offset``; the table lies on the
side where the left-hand side is smaller. It is placed beyond all the pieces, so oblique views show
where the table ends, as real photos often do.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from datasets.render.camera import Camera
from datasets.render.textures import FAMILIES, VARIANTS, texture_tile

EDGE_PROBABILITY = 0.35


@dataclass(frozen=True)
class TableEdge:
    """One straight table edge and what lies beyond it.

    Attributes:
        normal_deg: direction (table frame) pointing off the table.
        offset_mm: the edge line's distance from the table origin along the normal.
        lip_mm: width of the rounded lip that catches the light.
        lip_gain: brightness of the lip (above 1: a highlight, below: a shadowed bevel).
        floor_family, floor_variant: the floor's texture (same split as the table).
        floor_drop_mm: how far below the table top the floor is.
        floor_gain: how dark the floor looks.
    """

    normal_deg: float
    offset_mm: float
    lip_mm: float
    lip_gain: float
    floor_family: str
    floor_variant: int
    floor_drop_mm: float
    floor_gain: float

    def to_json(self) -> dict[str, Any]:
        """The parameters as a JSON object (rounded)."""
        return {
            key: round(value, 4) if isinstance(value, float) else value
            for key, value in self.__dict__.items()
        }


def sample_edge(
    rng: np.random.Generator, split: str, centre: tuple[float, float], radius: float
) -> TableEdge | None:
    """A random edge beyond the disc (`centre`, `radius`) that holds every piece, or None."""
    if rng.random() >= EDGE_PROBABILITY:
        return None
    angle = float(rng.uniform(0, 360))
    a = math.radians(angle)
    along = centre[0] * math.cos(a) + centre[1] * math.sin(a)
    families = FAMILIES[split]
    return TableEdge(
        normal_deg=angle,
        offset_mm=along + radius + float(rng.uniform(15, 220)),
        lip_mm=float(rng.uniform(2, 8)),
        lip_gain=float(rng.uniform(0.6, 1.35)),
        floor_family=families[int(rng.integers(len(families)))].name,
        floor_variant=int(rng.integers(VARIANTS)),
        floor_drop_mm=float(rng.uniform(600, 800)),
        floor_gain=float(rng.uniform(0.25, 0.6)),
    )


def draw_edge(image: np.ndarray, camera: Camera, edge: TableEdge, split: str) -> None:
    """Replace what lies beyond the edge with the floor and shade the lip (in place).

    Works on a quarter-size grid (the edge is one smooth line) and upsamples the masks.
    """
    h, w = image.shape[:2]
    qw, qh = w // 4 + 1, h // 4 + 1
    ys, xs = np.mgrid[0:qh, 0:qw].astype(np.float64) * 4.0
    inverse = np.linalg.inv(camera.plane_homography(0.0))
    pts = np.stack([xs, ys, np.ones_like(xs)], axis=-1) @ inverse.T
    wz = pts[..., 2]
    safe = np.where(np.abs(wz) < 1e-12, 1e-12, wz)
    a = math.radians(edge.normal_deg)
    signed = (pts[..., 0] * math.cos(a) + pts[..., 1] * math.sin(a)) / safe - edge.offset_mm
    signed = np.where(wz <= 0, 1e4, signed)  # rays that miss the table plane see the floor
    if not (signed > -edge.lip_mm).any():
        return
    # the signed distance is smooth: upsample it (and its scale in mm per pixel), then threshold
    # at full size, so the edge is a clean anti-aliased line
    grad_y, grad_x = np.gradient(np.clip(signed, -1e4, 1e4))
    mm_per_px = np.maximum(np.hypot(grad_x, grad_y) / 4.0, 1e-3)
    full_signed = cv2.resize(signed.astype(np.float32), (qw * 4, qh * 4))[:h, :w]
    full_scale = cv2.resize(mm_per_px.astype(np.float32), (qw * 4, qh * 4))[:h, :w]
    off = np.clip(0.5 + full_signed / full_scale, 0.0, 1.0)
    lip = np.clip(1.0 - np.abs(full_signed + edge.lip_mm / 2) / (edge.lip_mm / 2), 0.0, 1.0)
    # the floor: another texture on a plane far below, dark and blurred
    tile = texture_tile(split, edge.floor_family, edge.floor_variant)[1]
    scale = 4.0  # mm per texel of the half-size level
    texel_to_mm = np.array([[scale, 0, 0], [0, scale, 0], [0, 0, 1]])
    floor = cv2.warpPerspective(
        tile,
        camera.plane_homography(-edge.floor_drop_mm) @ texel_to_mm,
        (w, h),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REFLECT,
    )
    floor = cv2.GaussianBlur(floor, (0, 0), 2.5)
    floor = cv2.convertScaleAbs(floor, alpha=edge.floor_gain)
    image[:] = cv2.blendLinear(floor, image, off, 1.0 - off)
    x, y, bw, bh = cv2.boundingRect((lip > 0.01).astype(np.uint8))
    if bw and bh:
        area = (slice(y, y + bh), slice(x, x + bw))
        gain = 1.0 + (edge.lip_gain - 1.0) * lip[area]
        image[area] = np.clip(image[area] * gain[..., None], 0, 255).astype(np.uint8)
