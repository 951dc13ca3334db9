"""Dice as solid cubes in perspective: top face (the value), visible side faces with their own pips,
per-face shading, bevel edges and a cast shadow.

Die frame: centre of the underside at the origin, z up, edge `s`. Canonical die (before yaw): value
on +z is the top, `front` on −y, and the rest follows a real die (opposite faces sum to 7, the
1-2-3 corner turning the same way on every die). Face textures come from the art's `die_face`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from datasets.render import _art, _raster
from datasets.render.camera import Camera
from datasets.render.lighting import Light
from datasets.render.pieces import PlacedPiece

_AXES: dict[int, tuple[int, int, int]] = {
    1: (0, 0, 1),
    6: (0, 0, -1),
    2: (0, -1, 0),
    5: (0, 1, 0),
    3: (1, 0, 0),
    4: (-1, 0, 0),
}
_BY_AXIS = {v: k for k, v in _AXES.items()}

# local face corners (TL, TR, BR, BL as printed, seen from outside), unit cube centred in x/y,
# z from 0 to 1; and the outward normal of each face
_FACES: dict[str, tuple[np.ndarray, tuple[float, float, float]]] = {
    "top": (np.array([[-1, 1, 2], [1, 1, 2], [1, -1, 2], [-1, -1, 2]]) / 2, (0, 0, 1)),
    "front": (np.array([[-1, -1, 2], [1, -1, 2], [1, -1, 0], [-1, -1, 0]]) / 2, (0, -1, 0)),
    "right": (np.array([[1, -1, 2], [1, 1, 2], [1, 1, 0], [1, -1, 0]]) / 2, (1, 0, 0)),
    "back": (np.array([[1, 1, 2], [-1, 1, 2], [-1, 1, 0], [1, 1, 0]]) / 2, (0, 1, 0)),
    "left": (np.array([[-1, 1, 2], [-1, -1, 2], [-1, -1, 0], [-1, 1, 0]]) / 2, (-1, 0, 0)),
}

_TEXTURE_SIZES = (16, 24, 32, 48, 64, 96, 128, 192)


def side_values(top: int, front: int) -> dict[str, int]:
    """Values on each face of a die showing `top` up and `front` on its −y side.

    Raises:
        ValueError: `front` is `top` or its opposite.
    """
    if front in (top, 7 - top):
        raise ValueError(f"front {front} cannot neighbour top {top}")
    t, f = np.array(_AXES[top]), np.array(_AXES[front])
    x, y, z = (int(v) for v in np.cross(t, f))
    right = _BY_AXIS[(x, y, z)]
    return {"top": top, "front": front, "right": right, "back": 7 - front, "left": 7 - right}


def possible_fronts(top: int) -> tuple[int, ...]:
    """The four values that can face front when `top` is up."""
    return tuple(v for v in range(1, 7) if v not in (top, 7 - top))


@dataclass(frozen=True)
class DieGeometry:
    """World geometry of a placed die."""

    vertices: np.ndarray  # (8, 3) cube corners, world mm
    faces: dict[str, np.ndarray]  # name → (4, 3) corners (TL, TR, BR, BL)
    normals: dict[str, np.ndarray]  # name → (3,) world normal


def die_geometry(die: PlacedPiece) -> DieGeometry:
    """The cube of `die` in the table frame."""
    s = die.size_mm[0]
    a = math.radians(die.yaw_deg)
    c, sn = math.cos(a), math.sin(a)
    rot = np.array([[c, -sn, 0], [sn, c, 0], [0, 0, 1]])
    origin = np.array([die.centre_mm[0], die.centre_mm[1], die.z_mm])
    faces, normals = {}, {}
    for name, (local, normal) in _FACES.items():
        faces[name] = (local * s) @ rot.T + origin
        normals[name] = rot @ np.array(normal, np.float64)
    xs = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (0, 1)]) * s
    return DieGeometry(xs @ rot.T + origin, faces, normals)


def top_corners_mm(die: PlacedPiece) -> np.ndarray:
    """(4, 3) world corners of the die's top face, in the order its texture is printed."""
    return die_geometry(die).faces["top"]


def silhouette_px(camera: Camera, die: PlacedPiece) -> np.ndarray:
    """Convex hull (pinhole pixels) of the die."""
    pts = camera.project_pinhole(die_geometry(die).vertices).astype(np.float32)
    return cv2.convexHull(pts).reshape(-1, 2).astype(np.float64)


def _texture_size(quad: np.ndarray) -> int:
    edge = float(np.max(np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)))
    for size in _TEXTURE_SIZES:
        if size >= edge * 1.2:
            return size
    return _TEXTURE_SIZES[-1]


def _light_vector(light: Light) -> np.ndarray:
    az, el = math.radians(light.direction_deg), math.radians(light.elevation_deg)
    return np.array([math.cos(az) * math.cos(el), math.sin(az) * math.cos(el), math.sin(el)])


def draw_die(image: np.ndarray, camera: Camera, light: Light, die: PlacedPiece) -> np.ndarray:
    """Draw `die` with its shadow into the pinhole `image` (in place); return its silhouette."""
    geometry = die_geometry(die)
    s = die.size_mm[0]
    # cast shadow: footprint plus the top face pushed along the light, on the surface below
    dx, dy = light.shadow_offset(s)
    shadow_world = np.vstack(
        [
            geometry.faces["top"][:, :2] + (dx, dy),
            geometry.faces["front"][2:, :2],
            geometry.faces["back"][2:, :2],
        ]
    )
    shadow = camera.project_pinhole(np.hstack([shadow_world, np.full((8, 1), die.z_mm)]))
    hull = cv2.convexHull(shadow.astype(np.float32)).reshape(-1, 2)
    px_per_mm = _px_per_mm(camera, die)
    _raster.soft_shadow(
        image,
        hull,
        sigma=max(0.6, px_per_mm * s * 0.12 * (0.4 + light.shadow_softness)),
        strength=0.35 + 0.5 * light.shadow_strength,
    )
    silhouette = cv2.convexHull(
        camera.project_pinhole(geometry.vertices).astype(np.float32)
    ).reshape(-1, 2)
    h, w = image.shape[:2]
    box = _raster.roi(silhouette, w, h, margin=3)
    background = None if box is None else image[box[1] : box[3], box[0] : box[2]].copy()
    # faces, back to front: sides first, top last (a die is convex: visible faces never overlap)
    values = side_values(
        int(die.value or 1), int(die.front or possible_fronts(int(die.value or 1))[0])
    )
    eye = camera.position
    to_light = _light_vector(light)
    # soft light (a room's walls and ceiling) fills the side faces: under it a white die's sides are
    # nearly as bright as its top, as on real webcam photos, so brightness alone cannot tell the top
    # face from the sides (with hard light only, the die reader learned that cue and read real 4s as
    # 5s: a side face's pip counted with the top's)
    side_fill = 0.5 + 0.4 * light.shadow_softness
    rounding = _art.die_rounding(die.die_style)
    for name in ("front", "right", "back", "left", "top"):
        corners = geometry.faces[name]
        normal = geometry.normals[name]
        if float(np.dot(normal, eye - corners.mean(axis=0))) <= 0:
            continue
        quad = camera.project_pinhole(corners)
        texture = _art.die_face(values[name], die.die_style, _texture_size(quad))
        lambert = max(0.0, float(np.dot(normal, to_light)))
        shade = side_fill + 0.55 * lambert if name != "top" else 0.78 + 0.3 * lambert
        _raster.warp_quad(image, texture, quad, shade=min(shade, 1.12))
    # bevel: a soft darker outline, thicker for rounded dice
    thickness = max(1, round(px_per_mm * s * (0.02 + 0.06 * rounding)))
    if box is not None and background is not None:
        x0, y0, x1, y1 = box
        region = image[y0:y1, x0:x1]
        mask = np.zeros(region.shape[:2], np.uint8)
        outline = [_raster.fixed(silhouette, (x0, y0))]
        cv2.polylines(mask, outline, True, 160, thickness, cv2.LINE_AA, _raster.SHIFT)
        top_quad = camera.project_pinhole(geometry.faces["top"])
        cv2.polylines(
            mask,
            [_raster.fixed(top_quad, (x0, y0))],
            True,
            90,
            max(1, thickness - 1),
            cv2.LINE_AA,
            _raster.SHIFT,
        )
        _raster.darken_inplace(region, mask, 0.45)
        # rounded corners: open the silhouette with a disc and let the background show outside
        radius = int(round(px_per_mm * s * rounding * 1.4))
        if radius >= 1:
            body = np.zeros(region.shape[:2], np.uint8)
            cv2.fillPoly(body, outline, 255, cv2.LINE_AA, _raster.SHIFT)
            disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))
            rounded = cv2.morphologyEx(body, cv2.MORPH_OPEN, disc)
            rounded = cv2.GaussianBlur(rounded, (3, 3), 0)
            keep = rounded.astype(np.float32) * np.float32(1 / 255.0)
            region[:] = cv2.blendLinear(region, background, keep, 1.0 - keep)
    return silhouette.astype(np.float64)


def _px_per_mm(camera: Camera, die: PlacedPiece) -> float:
    centre = np.array([[die.centre_mm[0], die.centre_mm[1], die.z_mm]])
    depth = float(camera.depth(centre)[0])
    return camera.focal_px / max(depth, 1.0)
