"""Things on a real table that are not pieces: coins, pens, score pads, cups, cables, dice trays,
and hands and arms reaching over the pieces.

Each kind has a sampler (random parameters → `Distractor`, plain JSON values) and a drawer that
renders it into the pinhole image and marks what it covers in the id buffer (``-1``: no piece).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

from datasets.render import _raster
from datasets.render.camera import Camera
from datasets.render.lighting import Light
from datasets.render.pieces import Distractor

FLAT_KINDS = ("coin", "pen", "pad", "cable", "tray")
TALL_KINDS = ("cup",)


def _circle(centre: tuple[float, float], radius: float, z: float, n: int = 28) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.column_stack(
        [centre[0] + radius * np.cos(t), centre[1] + radius * np.sin(t), np.full(n, z)]
    )


def _hull(points: np.ndarray) -> np.ndarray:
    return cv2.convexHull(np.asarray(points, np.float32)).reshape(-1, 2).astype(np.float64)


def _shade(colour: tuple[float, ...] | list[float], factor: float) -> tuple[float, float, float]:
    return tuple(float(min(255.0, c * factor)) for c in colour[:3])  # type: ignore[return-value]


def _cast(
    camera: Camera, light: Light, footprint_mm: np.ndarray, height: float, z0: float = 0.0
) -> np.ndarray:
    """Image polygon of the shadow of a prism standing on `footprint_mm` to `height`."""
    dx, dy = light.shadow_offset(height)
    pts = np.vstack([footprint_mm, footprint_mm + (dx, dy)])
    return _hull(camera.project_pinhole(np.hstack([pts, np.full((len(pts), 1), z0)])))


def _pt(point: np.ndarray) -> tuple[int, int]:
    return (int(round(float(point[0]))), int(round(float(point[1]))))


def _px_per_mm(camera: Camera, x: float, y: float, z: float = 0.0) -> float:
    return camera.focal_px / max(float(camera.depth(np.array([[x, y, z]]))[0]), 1.0)


# --- samplers
_METALS = [(60, 160, 200), (190, 190, 195), (70, 110, 180), (40, 140, 170)]
_INKS = [(30, 30, 30), (160, 60, 20), (30, 30, 170), (40, 120, 40), (200, 200, 200)]
_CUPS = [(245, 245, 245), (40, 40, 40), (60, 60, 170), (160, 110, 40), (80, 170, 210)]
_COVERS = [(175, 175, 180), (45, 45, 50), (30, 60, 140), (120, 90, 40), (230, 230, 225)]
_SKINS = [(190, 210, 240), (150, 180, 225), (110, 150, 200), (70, 105, 160), (45, 70, 110)]
_SLEEVES = [(60, 60, 60), (140, 80, 30), (40, 40, 150), (200, 200, 200), (60, 120, 60)]
_TRAYS = [
    ((40, 110, 30), (40, 60, 90)),
    ((110, 50, 20), (30, 30, 30)),
    ((40, 40, 130), (70, 90, 110)),
]
# the 3x3 square OpenCV dilates with when given no kernel
_DILATE_3X3 = np.ones((3, 3), np.uint8)


def sample_distractor(
    rng: np.random.Generator, kind: str, centre: tuple[float, float], **extra: Any
) -> Distractor:
    """A random distractor of `kind` near `centre` (table mm)."""
    x, y = centre
    yaw = float(rng.uniform(0, 360))
    if kind == "coin":
        return Distractor(
            "coin",
            {
                "centre": [x, y],
                "radius": float(rng.uniform(8, 14)),
                "colour": list(_METALS[int(rng.integers(len(_METALS)))]),
                "thickness": float(rng.uniform(1.2, 2.5)),
            },
        )
    if kind == "pen":
        return Distractor(
            "pen",
            {
                "centre": [x, y],
                "yaw": yaw,
                "length": float(rng.uniform(110, 150)),
                "radius": float(rng.uniform(3.5, 5.5)),
                "colour": list(_INKS[int(rng.integers(len(_INKS)))]),
            },
        )
    if kind == "pad":
        return Distractor(
            "pad",
            {
                "centre": [x, y],
                "yaw": yaw,
                "size": [float(rng.uniform(75, 110)), float(rng.uniform(110, 160))],
                "seed": int(rng.integers(1 << 30)),
                "thickness": float(rng.uniform(1, 6)),
            },
        )
    if kind == "book":  # a book, box or laptop lying about: a big plain slab
        return Distractor(
            "pad",
            {
                "centre": [x, y],
                "yaw": yaw,
                "size": [float(rng.uniform(150, 320)), float(rng.uniform(200, 330))],
                "seed": int(rng.integers(1 << 30)),
                "thickness": float(rng.uniform(12, 35)),
                "cover": list(_COVERS[int(rng.integers(len(_COVERS)))]),
            },
        )
    if kind == "cup":
        return Distractor(
            "cup",
            {
                "centre": [x, y],
                "radius": float(rng.uniform(32, 45)),
                "height": float(rng.uniform(70, 105)),
                "colour": list(_CUPS[int(rng.integers(len(_CUPS)))]),
                "drink": list(rng.choice([(20, 45, 75), (30, 70, 120), (210, 220, 230)]).tolist()),
            },
        )
    if kind == "cable":
        pts = [[x, y]]
        heading = float(rng.uniform(0, 2 * np.pi))
        for _ in range(5):
            heading += float(rng.normal(0, 0.6))
            step = float(rng.uniform(60, 140))
            pts.append(
                [pts[-1][0] + step * math.cos(heading), pts[-1][1] + step * math.sin(heading)]
            )
        return Distractor(
            "cable",
            {
                "points": pts,
                "width": float(rng.uniform(3, 6)),
                "colour": list(_INKS[int(rng.integers(2))]),
            },
            z_mm=0.5,
        )
    if kind == "tray":
        floor, wall = _TRAYS[int(rng.integers(len(_TRAYS)))]
        size = extra.get("size") or [float(rng.uniform(180, 260)), float(rng.uniform(130, 180))]
        return Distractor(
            "tray",
            {
                "centre": [x, y],
                "yaw": float(extra.get("yaw", yaw)),
                "size": size,
                "rim": float(rng.uniform(12, 25)),
                "wall": float(rng.uniform(6, 12)),
                "floor_colour": list(floor),
                "wall_colour": list(wall),
            },
            z_mm=-1.0,
        )
    if kind == "hand":
        return Distractor(
            "hand",
            {
                "target": [x, y],
                "side": float(rng.uniform(0, 4)),
                "height": float(rng.uniform(40, 160)),
                "width": float(rng.uniform(70, 95)),
                "skin": list(_SKINS[int(rng.integers(len(_SKINS)))]),
                "sleeve": list(_SLEEVES[int(rng.integers(len(_SLEEVES)))]),
                "sleeve_start": float(rng.uniform(0.2, 0.85)),
                "spread": float(rng.uniform(0.0, 1.0)),
                "fist": bool(rng.random() < 0.15),
                "motion": float(rng.uniform(5, 40)) if rng.random() < 0.4 else 0.0,
            },
            z_mm=1e6,
        )
    raise ValueError(f"unknown distractor kind {kind!r}")


# --- drawers
def _draw_coin(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, d: Distractor
) -> None:
    p = d.params
    c, r, t = p["centre"], p["radius"], p["thickness"]
    z0 = d.z_mm
    bottom, top = _circle(c, r, z0), _circle(c, r, z0 + t)
    _raster.soft_shadow(
        image,
        _cast(camera, light, bottom[:, :2], t + 1, z0),
        2.0,
        0.3 + 0.4 * light.shadow_strength,
    )
    body = _hull(camera.project_pinhole(np.vstack([bottom, top])))
    _raster.fill_polygon(image, body, _shade(p["colour"], 0.6))
    face = camera.project_pinhole(top)
    _raster.fill_polygon(image, face, _shade(p["colour"], 1.0))
    inner = camera.project_pinhole(_circle(c, r * 0.78, z0 + t))
    _raster.fill_polygon(image, inner, _shade(p["colour"], 1.18), opacity=0.7)
    _raster.fill_ids(ids, body, -1)


def _draw_pen(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, d: Distractor
) -> None:
    p = d.params
    a = math.radians(p["yaw"])
    axis = np.array([math.cos(a), math.sin(a)])
    side = np.array([-axis[1], axis[0]])
    half, r = p["length"] / 2, p["radius"]
    c = np.array(p["centre"], np.float64)
    base = np.array(
        [
            c - axis * half - side * r,
            c + axis * half - side * r,
            c + axis * half + side * r,
            c - axis * half + side * r,
        ]
    )
    _raster.soft_shadow(
        image, _cast(camera, light, base, 2 * r), 2.5, 0.3 + 0.4 * light.shadow_strength
    )
    pts = np.vstack(
        [np.hstack([base, np.zeros((4, 1))]), np.hstack([base, np.full((4, 1), 2 * r)])]
    )
    body = _hull(camera.project_pinhole(pts))
    _raster.fill_polygon(image, body, _shade(p["colour"], 0.75))
    stripe = np.array(
        [
            c - axis * half * 0.95 - side * r * 0.3,
            c + axis * half * 0.9 - side * r * 0.3,
            c + axis * half * 0.9 + side * r * 0.1,
            c - axis * half * 0.95 + side * r * 0.1,
        ]
    )
    stripe_px = camera.project_pinhole(np.hstack([stripe, np.full((4, 1), 2 * r)]))
    _raster.fill_polygon(image, stripe_px, _shade(p["colour"], 1.5), opacity=0.6)
    tip = np.array(
        [c + axis * half, c + axis * (half + 12) - side * 0.8, c + axis * (half + 12) + side * 0.8]
    )
    _raster.fill_polygon(
        image, camera.project_pinhole(np.hstack([tip, np.full((3, 1), r)])), (170, 170, 175)
    )
    _raster.fill_ids(ids, body, -1)


@functools.lru_cache(maxsize=32)
def _pad_texture(seed: int, w: int, h: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    img = np.full((h, w, 3), (235, 245, 250), np.uint8)
    step = max(4, h // 18)
    for yy in range(step * 2, h, step):
        cv2.line(img, (0, yy), (w, yy), (215, 190, 160), 1)
    cv2.line(img, (w // 6, 0), (w // 6, h), (160, 160, 230), 1)
    ink = tuple(int(v) for v in rng.choice([(120, 40, 20), (30, 30, 30), (40, 40, 160)]))
    for yy in range(step * 2, h - step, step):
        if rng.random() < 0.35:
            continue
        x = w // 6 + 4
        end = int(rng.uniform(w * 0.3, w * 0.95))
        pts = []
        while x < end:
            pts.append((x, yy - int(rng.uniform(1, step * 0.7))))
            x += int(rng.uniform(2, 6))
        if len(pts) > 1:
            cv2.polylines(img, [np.array(pts, np.int32)], False, ink, 1, cv2.LINE_AA)
    return img


def _draw_pad(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, d: Distractor
) -> None:
    p = d.params
    w, h = p["size"]
    a = math.radians(p["yaw"])
    c, s = math.cos(a), math.sin(a)
    local = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
    xy = local @ np.array([[c, s], [-s, c]]) + np.array(p["centre"])
    t = p["thickness"]
    _raster.soft_shadow(
        image, _cast(camera, light, xy, t + 1.5, d.z_mm), 3.0, 0.3 + 0.4 * light.shadow_strength
    )
    sides = _hull(
        camera.project_pinhole(
            np.vstack(
                [
                    np.hstack([xy, np.full((4, 1), d.z_mm)]),
                    np.hstack([xy, np.full((4, 1), d.z_mm + t)]),
                ]
            )
        )
    )
    cover = p.get("cover")
    _raster.fill_polygon(image, sides, _shade(cover, 0.7) if cover else (200, 210, 215))
    quad = camera.project_pinhole(np.hstack([xy, np.full((4, 1), d.z_mm + t)]))
    if cover:
        _raster.fill_polygon(image, quad, _raster.float3(cover))
    else:
        _raster.warp_quad(image, _pad_texture(int(p["seed"]), 120, int(120 * h / w)), quad)
    _raster.fill_ids(ids, sides, -1)


def _draw_cup(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, d: Distractor
) -> None:
    p = d.params
    c, r, hgt = p["centre"], p["radius"], p["height"]
    bottom = _circle(c, r * 0.85, 0.0)
    top = _circle(c, r, hgt)
    _raster.soft_shadow(
        image, _cast(camera, light, top[:, :2], hgt), 6.0, 0.3 + 0.5 * light.shadow_strength
    )
    body = _hull(camera.project_pinhole(np.vstack([bottom, top])))
    h, w = image.shape[:2]
    box = _raster.roi(body, w, h, 2)
    if box is not None:
        x0, y0, x1, y1 = box
        region = image[y0:y1, x0:x1]
        mask = np.zeros(region.shape[:2], np.uint8)
        cv2.fillPoly(mask, [_raster.fixed(body, (x0, y0))], 255, cv2.LINE_AA, _raster.SHIFT)
        # cylindrical shading across the body's screen width
        xs = np.linspace(-1, 1, x1 - x0, dtype=np.float32)
        profile = 0.55 + 0.55 * np.cos(xs * 1.3 - 0.4) ** 2
        colour = np.empty(region.shape, np.float32)
        colour[:] = np.array(p["colour"], np.float32)
        colour *= profile[None, :, None]
        _raster.blend_inplace(region, colour, mask)
    rim = camera.project_pinhole(top)
    _raster.fill_polygon(image, rim, _shade(p["colour"], 1.1))
    liquid = camera.project_pinhole(_circle(c, r * 0.88, hgt * 0.85))
    _raster.fill_polygon(image, liquid, tuple(p["drink"]))
    _raster.fill_ids(ids, body, -1)
    _raster.fill_ids(ids, rim, -1)


def _draw_cable(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, d: Distractor
) -> None:
    p = d.params
    pts = np.array(p["points"], np.float64)
    # smooth the control polygon (Chaikin) for a natural curve
    for _ in range(3):
        q = 0.75 * pts[:-1] + 0.25 * pts[1:]
        r = 0.25 * pts[:-1] + 0.75 * pts[1:]
        pts = np.vstack([pts[:1], np.column_stack([q, r]).reshape(-1, 2), pts[-1:]])
    px = camera.project_pinhole(np.hstack([pts, np.full((len(pts), 1), d.z_mm + p["width"] / 2)]))
    if not np.all(np.isfinite(px)):
        return
    scale = _px_per_mm(camera, *pts[len(pts) // 2])
    width = int(min(60, max(1, round(p["width"] * scale))))
    h, w = image.shape[:2]
    # shadow on a quarter-size grid (cheap wide blur)
    shadow = np.zeros((h // 4 + 1, w // 4 + 1), np.uint8)
    dx, dy = light.shadow_offset(p["width"])
    spx = camera.project_pinhole(np.hstack([pts + (dx, dy), np.zeros((len(pts), 1))])) / 4
    cv2.polylines(
        shadow, [_raster.fixed(spx)], False, 255, max(1, width // 4), cv2.LINE_AA, _raster.SHIFT
    )
    shadow = cv2.GaussianBlur(shadow, (0, 0), min(6.0, max(0.6, width * 0.15)))
    shadow = cv2.resize(shadow, (w // 4 * 4 + 4, h // 4 * 4 + 4))[:h, :w]
    _raster.darken_inplace(image, shadow, 0.45 * light.shadow_strength + 0.2)
    cv2.polylines(
        image, [_raster.fixed(px)], False, tuple(p["colour"]), width, cv2.LINE_AA, _raster.SHIFT
    )
    if width >= 3:
        cv2.polylines(
            image,
            [_raster.fixed(px - (0, width * 0.2))],
            False,
            _shade(p["colour"], 2.6),
            max(1, width // 4),
            cv2.LINE_AA,
            _raster.SHIFT,
        )
    cv2.polylines(ids, [_raster.fixed(px)], False, -1, width, cv2.LINE_8, _raster.SHIFT)


def tray_floor_height(d: Distractor) -> float:
    """Height (mm) of a tray's floor, where dice inside it rest."""
    return 3.0


def _draw_tray(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, d: Distractor
) -> None:
    p = d.params
    w, h = p["size"]
    a = math.radians(p["yaw"])
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, s], [-s, c]])
    centre = np.array(p["centre"])

    def rect(ww: float, hh: float) -> np.ndarray:
        return (
            np.array([[-ww / 2, hh / 2], [ww / 2, hh / 2], [ww / 2, -hh / 2], [-ww / 2, -hh / 2]])
            @ rot
            + centre
        )

    outer = rect(w, h)
    wall = p["wall"]
    inner = rect(w - 2 * wall, h - 2 * wall)
    rim = p["rim"]

    def at(xy: np.ndarray, z: float) -> np.ndarray:
        return camera.project_pinhole(np.hstack([xy, np.full((len(xy), 1), z)]))

    _raster.soft_shadow(
        image, _cast(camera, light, outer, rim), 5.0, 0.3 + 0.5 * light.shadow_strength
    )
    body = _hull(np.vstack([at(outer, 0), at(outer, rim)]))
    _raster.fill_polygon(image, body, _shade(p["wall_colour"], 0.7))
    _raster.fill_polygon(image, at(outer, rim), _shade(p["wall_colour"], 1.0))
    opening = at(inner, rim)
    _raster.fill_polygon(image, opening, _shade(p["wall_colour"], 0.85))
    floor = at(inner, tray_floor_height(d))
    ok, clipped = cv2.intersectConvexConvex(opening.astype(np.float32), floor.astype(np.float32))
    if ok > 0 and clipped is not None:
        _raster.fill_polygon(image, clipped.reshape(-1, 2), tuple(p["floor_colour"]))
        _raster.soft_shadow(image, opening, 4.0, 0.0)
    _raster.fill_ids(ids, body, -1)


def _draw_hand(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, d: Distractor
) -> None:
    p = d.params
    h, w = image.shape[:2]
    tx, ty = p["target"]
    camera_height = float(camera.position[2])
    if camera_height < 300.0:  # a camera this close to the table leaves no room for a hand
        return
    height = min(p["height"], 0.3 * camera_height)
    target = camera.project_pinhole(np.array([[tx, ty, height]]))[0]
    if not np.all(np.isfinite(target)) or np.any(np.abs(target) > 4 * (w + h)):
        return
    scale = _px_per_mm(camera, tx, ty, height)
    # entry point on the image border ("side" 0..4 walks round the frame)
    side = p["side"]
    k, t = int(side) % 4, side - int(side)
    if t < 0.7:
        # most arms come in over the nearest edge of the picture (the player's side), slanted
        gaps = [target[1], w - target[0], h - target[1], target[0]]
        k = int(np.argmin(gaps))
        slant = (t / 0.7 - 0.5) * (w if k in (0, 2) else h) * 0.6
        along = [target[0] + slant, target[1] + slant, target[0] + slant, target[1] + slant][k]
        t = float(np.clip(along / (w if k in (0, 2) else h), 0, 1))
        t = t if k in (0, 1) else 1 - t
    entry = np.array(
        [(t * w, -40.0), (w + 40.0, t * h), ((1 - t) * w, h + 40.0), (-40.0, (1 - t) * h)][k]
    )
    direction = target - entry
    length = float(np.linalg.norm(direction))
    if length < 1:
        return
    u = direction / length
    v = np.array([-u[1], u[0]])
    width = p["width"] * scale
    palm_len = width * 1.05
    wrist = target - u * palm_len * 0.5
    start = entry - u * width * 2
    mask = np.zeros((h, w), np.uint8)
    sleeve = np.zeros((h, w), np.uint8)
    # forearm: tapers from the elbow side to the wrist
    wrist_half, elbow_half = width * 0.36, width * 0.55
    arm = np.array(
        [
            wrist + v * wrist_half,
            start + v * elbow_half,
            start - v * elbow_half,
            wrist - v * wrist_half,
        ]
    )
    cv2.fillConvexPoly(mask, _raster.fixed(arm), 255, cv2.LINE_AA, _raster.SHIFT)
    cut = start + (wrist - start) * p["sleeve_start"]
    cuff = np.array(
        [
            cut + v * elbow_half * 1.25,
            start + v * elbow_half * 1.3,
            start - v * elbow_half * 1.3,
            cut - v * elbow_half * 1.25,
        ]
    )
    cv2.fillConvexPoly(sleeve, _raster.fixed(cuff), 255, cv2.LINE_AA, _raster.SHIFT)
    centre = _pt(target)
    angle = math.degrees(math.atan2(u[1], u[0]))
    cv2.ellipse(
        mask,
        centre,
        (max(1, round(palm_len * 0.55)), max(1, round(width * 0.5))),
        angle,
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
    )
    if not p["fist"]:
        finger_w = max(1, round(width * 0.22))
        for i, off in enumerate((-0.36, -0.12, 0.12, 0.36)):
            spread = (off * 0.9) * (0.3 + p["spread"])
            fu = u * math.cos(spread) + v * math.sin(spread)
            base = target + u * palm_len * 0.4 + v * off * width
            flen = width * (0.55 if i in (0, 3) else 0.68)
            tip = base + fu * flen
            cv2.line(mask, _pt(base), _pt(tip), 255, finger_w, cv2.LINE_AA)
        thumb_base = target - u * palm_len * 0.1 + v * width * 0.45
        thumb_tip = thumb_base + (u * 0.5 + v * 0.7) * width * 0.6
        cv2.line(
            mask, _pt(thumb_base), _pt(thumb_tip), 255, max(1, round(width * 0.22)), cv2.LINE_AA
        )
    # shadow: the same shape pushed along the light, blurred with height
    dx, dy = light.shadow_offset(height)
    shift = (
        camera.project_pinhole(np.array([[tx + dx, ty + dy, 0.0]]))[0]
        - camera.project_pinhole(np.array([[tx, ty, 0.0]]))[0]
    )
    small = cv2.resize(mask, (w // 8, h // 8), interpolation=cv2.INTER_AREA)
    matrix = np.array([[1, 0, shift[0] / 8], [0, 1, shift[1] / 8]], np.float32)
    small = cv2.warpAffine(small, matrix, (w // 8, h // 8))
    sigma = min(12.0, max(0.8, height * scale / 8 * (0.15 + 0.3 * light.shadow_softness)))
    small = cv2.GaussianBlur(small, (0, 0), sigma)
    shadow = cv2.resize(small, (w, h))
    _raster.darken_inplace(image, shadow, 0.25 + 0.45 * light.shadow_strength)
    # colour with cylindrical shading (brighter in the middle of each limb)
    # limbs are cylinders: brightness follows the distance to the outline (quarter grid)
    quarter = cv2.resize(mask, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    inside = cv2.distanceTransform((quarter > 127).astype(np.uint8), cv2.DIST_L2, 3)
    radius = max(1.0, width * 0.5 / 4)
    depth = np.clip(inside / radius, 0.0, 1.0)
    profile = np.sqrt(1.0 - (1.0 - depth) ** 2)
    profile = cv2.GaussianBlur(profile, (0, 0), 0.8)
    soft_full = cv2.resize((profile * 255).astype(np.uint8), (w, h))
    full = np.maximum(mask, cv2.bitwise_and(sleeve, cv2.dilate(mask, _DILATE_3X3)))
    x, y, bw, bh = cv2.boundingRect(full)
    if bw == 0 or bh == 0:
        return
    area = (slice(y, y + bh), slice(x, x + bw))
    soft = soft_full[area].astype(np.float32) * np.float32(1 / 255.0)
    skin = np.array(p["skin"], np.float32)
    cloth = np.array(p["sleeve"], np.float32)
    sleeve_f = (sleeve[area].astype(np.float32) * np.float32(1 / 255.0))[..., None]
    colour = skin * (1 - sleeve_f) + cloth * sleeve_f
    colour = np.clip(colour * (0.45 + 0.7 * soft[..., None] ** 0.7), 0, 255).astype(np.uint8)
    cover = full[area]
    blur = float(p.get("motion", 0.0)) * scale  # a moving hand smears along the arm
    if blur >= 2.0:
        kernel = np.zeros((int(blur) | 1, int(blur) | 1), np.float32)
        c = kernel.shape[0] // 2
        end = (round(c + u[0] * blur / 2), round(c + u[1] * blur / 2))
        start_pt = (round(c - u[0] * blur / 2), round(c - u[1] * blur / 2))
        cv2.line(kernel, start_pt, end, 1.0, 1, cv2.LINE_AA)
        kernel /= max(float(kernel.sum()), 1e-6)
        colour = cv2.filter2D(colour, -1, kernel)
        cover = cv2.filter2D(cover, -1, kernel)
    _raster.blend_inplace(image[area], colour, cover)
    ids[area][full[area] > 127] = -1


DRAWERS: dict[str, Callable[..., None]] = {
    "coin": _draw_coin,
    "pen": _draw_pen,
    "pad": _draw_pad,
    "cup": _draw_cup,
    "cable": _draw_cable,
    "tray": _draw_tray,
    "hand": _draw_hand,
}


def draw_distractor(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, distractor: Distractor
) -> None:
    """Draw `distractor` into the pinhole `image` and mark it as "no piece" in `ids` (in place)."""
    DRAWERS[distractor.kind](image, ids, camera, light, distractor)
