"""Things on a real table that are not pieces: coins, pens, score pads, cups, cables (some with a
ferrite bead), dice trays, laptop keyboards, plain cubes (sugar, erasers, wooden blocks), and hands
and arms reaching over the pieces.

Keyboards and ferrite beads are here because a detector trained without them took keycaps and beads
on real webcam photos for dice: both are small raised blocks with a printed mark or a highlight.

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

FLAT_KINDS = ("coin", "pen", "pad", "cable", "tray", "keyboard")
TALL_KINDS = ("cup", "cube")


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
# keyboards: (body, keycaps, printed glyphs), BGR; silver or dark bodies, light or black keycaps
_KEYBOARDS = [
    ((188, 190, 194), (34, 34, 37), (228, 228, 228)),
    ((48, 48, 52), (30, 30, 33), (220, 220, 220)),
    ((222, 223, 220), (240, 240, 238), (70, 70, 70)),
    ((72, 72, 78), (196, 198, 200), (45, 45, 45)),
    ((28, 28, 30), (214, 214, 216), (30, 30, 30)),
    ((170, 172, 176), (236, 236, 234), (90, 90, 90)),
]
_FERRITES = [(24, 24, 27), (40, 40, 44), (62, 62, 66)]
# plain die-sized blocks without pips: (name, colours, edge range mm, height share range, grainy)
_CUBES = [
    ("sugar", [(236, 240, 242), (225, 232, 236)], (11.0, 16.0), (0.9, 1.05), True),
    (
        "eraser",
        [(238, 238, 240), (190, 175, 235), (225, 205, 180)],
        (14.0, 26.0),
        (0.35, 0.6),
        False,
    ),
    ("block", [(150, 195, 225), (120, 170, 205), (230, 230, 228)], (14.0, 22.0), (0.95, 1.0), True),
]
# a book lying about is often a laptop: this share of "book" draws is a keyboard (~10% of scenes)
_LAPTOP_SHARE_OF_BOOKS = 0.65
# a cable carries a ferrite bead this often
_FERRITE_PROBABILITY = 0.4
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
    if kind == "book":  # a book, box or laptop lying about: a keyboard or a big plain slab
        if rng.random() < _LAPTOP_SHARE_OF_BOOKS:
            return sample_distractor(rng, "keyboard", centre)
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
        params: dict[str, Any] = {
            "points": pts,
            "width": float(rng.uniform(3, 6)),
            "colour": list(_INKS[int(rng.integers(2))]),
        }
        if rng.random() < _FERRITE_PROBABILITY:
            params["ferrite"] = {
                "at": float(rng.uniform(0.08, 0.92)),  # fraction of the cable's length
                "length": float(rng.uniform(20, 30)),
                "diameter": float(rng.uniform(10, 14)),
                "colour": list(_FERRITES[int(rng.integers(len(_FERRITES)))]),
            }
        return Distractor("cable", params, z_mm=0.5)
    if kind == "keyboard":
        return _sample_keyboard(rng, x, y, yaw)
    if kind == "cube":  # die-sized but no die: sugar cube, eraser, wooden block
        name, colours, edge, height, grainy = _CUBES[int(rng.integers(len(_CUBES)))]
        side = float(rng.uniform(*edge))
        depth = side * (
            float(rng.uniform(0.5, 0.8)) if name == "eraser" else float(rng.uniform(0.92, 1.0))
        )
        return Distractor(
            "cube",
            {
                "centre": [x, y],
                "yaw": yaw,
                "size": [side, depth, side * float(rng.uniform(*height))],
                "colour": list(colours[int(rng.integers(len(colours)))]),
                "grain": float(rng.uniform(6, 16)) if grainy else 0.0,
                "seed": int(rng.integers(1 << 30)),
            },
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


def _sample_keyboard(rng: np.random.Generator, x: float, y: float, yaw: float) -> Distractor:
    """A laptop (keys at the back, palm rest and touchpad in front) or a separate keyboard."""
    laptop = bool(rng.random() < 0.65)
    body, keys, glyphs = _KEYBOARDS[int(rng.integers(len(_KEYBOARDS)))]
    key, gap = float(rng.uniform(15, 18)), float(rng.uniform(2.5, 3.5))
    cols = int(rng.integers(11, 16))
    function_row = bool(rng.random() < 0.7)
    margin = float(rng.uniform(8, 18)) if laptop else float(rng.uniform(6, 12))
    palm = float(rng.uniform(60, 100)) if laptop else 0.0
    pitch = key + gap
    rows_depth = 5 * pitch + (0.6 * pitch if function_row else 0.0) - gap
    return Distractor(
        "keyboard",
        {
            "centre": [x, y],
            "yaw": yaw,
            "size": [cols * pitch - gap + 2 * margin, rows_depth + 2 * margin + palm],
            "thickness": float(rng.uniform(8, 18)) if laptop else float(rng.uniform(10, 22)),
            "margin": margin,
            "key": key,
            "gap": gap,
            "cols": cols,
            "function_row": function_row,
            # laptop keys barely stand out; a desk keyboard's caps stand like small dice
            "key_height": float(rng.uniform(0.6, 1.6)) if laptop else float(rng.uniform(3, 6)),
            "touchpad": laptop,
            "body_colour": list(body),
            "key_colour": list(keys),
            "glyph_colour": list(glyphs),
            "glyph_centred": bool(rng.random() < 0.5),
            "lowercase": bool(rng.random() < 0.3),
        },
    )


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
    if "ferrite" in p:
        _draw_ferrite(image, ids, camera, light, pts, p["ferrite"])


def _light_vector(light: Light) -> np.ndarray:
    """Unit vector from the table towards the light (the shadow falls the other way)."""
    a, e = math.radians(light.direction_deg), math.radians(max(light.elevation_deg, 5.0))
    return np.array([math.cos(a) * math.cos(e), math.sin(a) * math.cos(e), math.sin(e)])


def _draw_ferrite(
    image: np.ndarray,
    ids: np.ndarray,
    camera: Camera,
    light: Light,
    path_mm: np.ndarray,
    ferrite: dict[str, Any],
) -> None:
    """A ferrite bead: a dark cylinder lying on the table around the cable at `ferrite["at"]`.

    Drawn as lit bands round its axis (diffuse from the scene light plus a highlight from the
    ceiling, so a glossy streak runs along its length in every scene) and the end facing the camera.
    """
    seg = np.diff(path_mm, axis=0)
    lengths = np.hypot(seg[:, 0], seg[:, 1])
    cum = np.concatenate([[0.0], np.cumsum(lengths)])
    if cum[-1] <= 0:
        return
    along = float(ferrite["at"]) * cum[-1]
    i = int(np.clip(np.searchsorted(cum, along) - 1, 0, len(seg) - 1))
    frac = (along - cum[i]) / max(float(lengths[i]), 1e-9)
    centre = path_mm[i] + seg[i] * frac
    axis = seg[i] / max(float(lengths[i]), 1e-9)
    side = np.array([-axis[1], axis[0]])
    r, half = float(ferrite["diameter"]) / 2, float(ferrite["length"]) / 2
    base = np.array(ferrite["colour"], np.float64)
    footprint = np.array(
        [
            centre - axis * half - side * r,
            centre + axis * half - side * r,
            centre + axis * half + side * r,
            centre - axis * half + side * r,
        ]
    )
    thetas = np.linspace(-np.pi, np.pi, 17)  # angle round the axis, 0 = top

    def ring(t: float, angles: np.ndarray) -> np.ndarray:
        xy = centre + axis * t + np.outer(np.sin(angles), side) * r
        return np.column_stack([xy, r + r * np.cos(angles)])

    ends = [ring(-half, thetas), ring(half, thetas)]
    if np.any(camera.depth(np.vstack(ends)) < 20.0):
        return  # at or behind the camera: out of the picture, and its projection would fold
    _raster.soft_shadow(
        image, _cast(camera, light, footprint, 2 * r), 2.5, 0.3 + 0.45 * light.shadow_strength
    )
    px = [camera.project_pinhole(e) for e in ends]
    silhouette = _hull(np.vstack(px))
    _raster.fill_polygon(image, silhouette, _shade(ferrite["colour"], 0.7))
    eye = camera.position
    to_light = _light_vector(light)
    up = np.array([0.0, 0.0, 1.0])
    for j in range(len(thetas) - 1):
        mid = (thetas[j] + thetas[j + 1]) / 2
        normal = np.array([side[0] * math.sin(mid), side[1] * math.sin(mid), math.cos(mid)])
        point = np.array([*(centre + side * r * math.sin(mid)), r + r * math.cos(mid)])
        view = eye - point
        view /= max(float(np.linalg.norm(view)), 1e-9)
        if float(normal @ view) <= 0:
            continue
        diffuse = max(0.0, float(normal @ to_light))
        half_light = (to_light + view) / max(float(np.linalg.norm(to_light + view)), 1e-9)
        half_up = (up + view) / max(float(np.linalg.norm(up + view)), 1e-9)
        gloss = 0.6 * max(0.0, float(normal @ half_light)) ** 30
        gloss += 0.45 * max(0.0, float(normal @ half_up)) ** 16
        colour = np.clip(base * (0.5 + 0.7 * diffuse) + 255 * gloss, 0, 255)
        band = np.vstack([px[0][j : j + 2], px[1][j : j + 2][::-1]])
        _raster.fill_polygon(image, band, _raster.float3(colour))
    for sign, end in ((-1.0, 0), (1.0, 1)):
        normal = np.array([axis[0] * sign, axis[1] * sign, 0.0])
        cap_centre = np.array([*(centre + axis * half * sign), r])
        if float(normal @ (eye - cap_centre)) > 0:
            shade = 0.45 + 0.6 * max(0.0, float(normal @ to_light))
            _raster.fill_polygon(image, px[end], _shade(ferrite["colour"], shade))
    _raster.fill_ids(ids, silhouette, -1)


# --- keyboards
_KEY_ROW_CHARS = ("1234567890-=", "QWERTYUIOP[]", "ASDFGHJKL;'", "ZXCVBNM,./")


def _key_rows(cols: int, function_row: bool, lowercase: bool) -> list[list[tuple[float, str]]]:
    """Rows of (width in key pitches, printed label), back to front; every row spans `cols`."""

    def ones(chars: str, n: int) -> list[tuple[float, str]]:
        text = (chars * 3)[:n]
        return [(1.0, ch.lower() if lowercase else ch) for ch in text]

    rows = [
        ones(_KEY_ROW_CHARS[0], cols - 2) + [(2.0, "del")],
        [(1.5, "tab"), *ones(_KEY_ROW_CHARS[1], cols - 3), (1.5, "\\")],
        [(1.75, "caps"), *ones(_KEY_ROW_CHARS[2], cols - 4), (2.25, "enter")],
        [(2.25, "shift"), *ones(_KEY_ROW_CHARS[3], cols - 5), (2.75, "shift")],
        [(1.0, "fn"), (1.0, "ctrl"), (1.25, "alt"), (cols - 7.5, ""), (1.25, "alt")]
        + [(1.0, "<"), (1.0, "v"), (1.0, ">")],
    ]
    if function_row:
        rows.insert(0, [(1.0, "esc")] + [(1.0, f"F{i + 1}") for i in range(cols - 1)])
    return rows


def _key_rects(p: dict[str, Any]) -> list[tuple[float, float, float, float, str]]:
    """Keycaps as (u0, v0, u1, v1, label) in mm from the body's back-left corner."""
    key, gap = float(p["key"]), float(p["gap"])
    pitch = key + gap
    out = []
    v = float(p["margin"])
    for r, row in enumerate(_key_rows(int(p["cols"]), bool(p["function_row"]), p["lowercase"])):
        short = r == 0 and p["function_row"]  # laptops' function keys are half height
        height = 0.6 * pitch - gap if short else key
        u = float(p["margin"])
        for units, label in row:
            out.append((u, v, u + units * pitch - gap, v + height, label))
            u += units * pitch
        v += height + gap
    return out


_ARC = np.linspace(0, np.pi / 2, 4)
# outward normals of a rounded rectangle's 16 vertices: top-right, bottom-right, bottom-left and
# top-left arcs, clockwise on the image (v down)
_ROUND_NORMALS = np.vstack(
    [
        np.column_stack([np.sin(_ARC), -np.cos(_ARC)]),
        np.column_stack([np.cos(_ARC), np.sin(_ARC)]),
        np.column_stack([-np.sin(_ARC), np.cos(_ARC)]),
        np.column_stack([-np.cos(_ARC), -np.sin(_ARC)]),
    ]
)


def _rounded_rects(boxes: np.ndarray, radius: float) -> np.ndarray:
    """Polygons (n, 16, 2) of axis-aligned rectangles (n, 4: u0, v0, u1, v1), rounded corners."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    u0, v0, u1, v1 = boxes.T
    r = np.clip(np.minimum(radius, np.minimum(u1 - u0, v1 - v0) / 2), 0.0, None)
    centres = np.stack(
        [
            np.column_stack([u1 - r, v0 + r]),
            np.column_stack([u1 - r, v1 - r]),
            np.column_stack([u0 + r, v1 - r]),
            np.column_stack([u0 + r, v0 + r]),
        ],
        axis=1,
    )
    return np.repeat(centres, 4, axis=1) + r[:, None, None] * _ROUND_NORMALS[None]


def _swept(polygons: np.ndarray, shifts: np.ndarray) -> np.ndarray:
    """Outlines (n, 32, 2) of rounded rectangles (n, 16, 2) swept along `shifts` (n, 2).

    Vertices facing along the shift move with it; at each change of side both positions are kept,
    which traces the convex hull of each rectangle and its shifted copy without a hull call.
    """
    moves = (_ROUND_NORMALS @ shifts.T).T > 0  # (n, 16)
    first = polygons + shifts[:, None] * moves[..., None]
    second = polygons + shifts[:, None] * np.roll(moves, -1, axis=1)[..., None]
    return np.stack([first, second], axis=2).reshape(len(polygons), -1, 2)


def _mix(colour: list[float] | tuple[float, ...], towards: float, t: float) -> tuple[float, ...]:
    """`colour` moved a fraction `t` towards the grey level `towards`, opaque (BGRA)."""
    return (*(float(c + (towards - c) * t) for c in colour[:3]), 255.0)


def _keyboard_texture(
    p: dict[str, Any],
    scale: float,
    pad_mm: float,
    eye_uv: np.ndarray,
    eye_height: float,
    shadow_uv: np.ndarray,
) -> np.ndarray:
    """BGRA top view of the keyboard at `scale` px/mm with `pad_mm` transparent border.

    The texture lies on the body's top plane. Each keycap's top is drawn where the camera sees it
    (pushed away from the camera's foot `eye_uv` by its height, seen from `eye_height` above the
    plane), joined to its foot by its side faces, so caps stand up like small dice; their shadows
    fall by `shadow_uv` (mm). Shadows, then sides, then caps: a nearer cap covers the foot of the
    cap behind it, as it does in a photo.
    """
    w, dep = p["size"]
    size = (int(math.ceil((w + 2 * pad_mm) * scale)), int(math.ceil((dep + 2 * pad_mm) * scale)))
    tex = np.zeros((size[1], size[0], 4), np.uint8)

    def fill(polygons_mm: np.ndarray, colour: tuple[float, ...]) -> None:
        px = np.round((np.asarray(polygons_mm) + pad_mm) * (scale * (1 << _raster.SHIFT)))
        polygons = list(px.astype(np.int32).reshape(-1, px.shape[-2], 1, 2))
        cv2.fillPoly(tex, polygons, colour, cv2.LINE_AA, _raster.SHIFT)

    body, keys, glyph = p["body_colour"], p["key_colour"], p["glyph_colour"]
    fill(_rounded_rects(np.array([0, 0, w, dep]), 9.0), _mix(body, 255, 0.16))  # chamfered rim
    inset = max(0.6, 1.2 / scale)
    fill(_rounded_rects(np.array([inset, inset, w - inset, dep - inset]), 8.0), _mix(body, 0, 0))
    rects = _key_rects(p)
    boxes = np.array([r[:4] for r in rects], np.float64)
    gap, kh, margin = float(p["gap"]), float(p["key_height"]), float(p["margin"])
    keys_bottom = float(boxes[:, 3].max())
    if p["touchpad"]:  # the keyboard sits in a slightly darker well; the palm rest has a touchpad
        well = np.array([margin - gap, margin - gap, w - margin + gap, keys_bottom + gap])
        fill(_rounded_rects(well, 3.0), _mix(body, 0, 0.12))
        top, height = keys_bottom + margin, dep - keys_bottom - 2 * margin
        pad_w = min(0.45 * w, 1.6 * height)
        outline = _rounded_rects(
            np.array([w / 2 - pad_w / 2, top, w / 2 + pad_w / 2, top + height]), 4.0
        )
        fill(outline, _mix(body, 0, 0.15))
        fill(outline * 0.985 + outline.mean(axis=1) * 0.015, _mix(body, 255, 0.04))
    lift = kh / max(eye_height - kh, 30.0)  # how far a cap's top moves per mm from the camera foot
    taper = 0.3 + 0.08 * kh  # caps are a little wider at the foot
    corner = 0.12 * float(p["key"])
    feet = _rounded_rects(boxes + np.array([-taper, -taper, taper, taper]), corner)
    shifts = ((boxes[:, :2] + boxes[:, 2:]) / 2 - eye_uv) * lift
    caps = _rounded_rects(boxes, corner) + shifts[:, None]
    fill(feet + shadow_uv, _mix(body, 0, 0.45))
    fill(_swept(feet, shifts), _mix(keys, 0, 0.3))
    fill(caps, _mix(keys, 0, 0))
    key_px = float(p["key"]) * scale
    if key_px < 8:  # glyphs would be a pixel or two: the warp blurs them away anyway
        return tex
    glyph_colour = (*(float(c) for c in glyph[:3]), 255.0)
    thickness = max(1, round(key_px * 0.05))
    for (u0, v0, u1, v1, label), shift in zip(rects, shifts, strict=True):
        if not label:
            continue
        letter = len(label) == 1
        font_scale = (0.34 if letter else 0.2) * min(v1 - v0, float(p["key"])) * scale / 22.0
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, font_scale, thickness)
        cu, cv = (u0 + shift[0] + pad_mm) * scale, (v0 + shift[1] + pad_mm) * scale
        cw, ch = (u1 - u0) * scale, (v1 - v0) * scale
        if p["glyph_centred"] and letter:
            org = (cu + (cw - tw) / 2, cv + (ch + th) / 2)
        else:
            org = (cu + 0.16 * key_px, cv + 0.16 * key_px + th)
        cv2.putText(
            tex,
            label,
            (round(org[0]), round(org[1])),
            cv2.FONT_HERSHEY_SIMPLEX,
            font_scale,
            glyph_colour,
            thickness,
            cv2.LINE_AA,
        )
    return tex


def _in_front(camera: Camera, polygon_mm: np.ndarray, near: float = 20.0) -> np.ndarray:
    """The part of the convex (n, 3) polygon at least `near` mm in front of the camera.

    A big object next to a close camera can reach behind it; projecting those corners would fold
    the polygon through infinity (Sutherland-Hodgman against the one near plane).
    """
    depth = camera.depth(polygon_mm) - near
    if np.all(depth >= 0):
        return polygon_mm
    out = []
    for i in range(len(polygon_mm)):
        j = (i + 1) % len(polygon_mm)
        if depth[i] >= 0:
            out.append(polygon_mm[i])
        if (depth[i] >= 0) != (depth[j] >= 0):
            out.append(
                polygon_mm[i] + (polygon_mm[j] - polygon_mm[i]) * (depth[i] / (depth[i] - depth[j]))
            )
    return np.array(out, np.float64).reshape(-1, 3)


def _draw_keyboard(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, d: Distractor
) -> None:
    p = d.params
    w, dep = p["size"]
    t, kh = float(p["thickness"]), float(p["key_height"])
    z0, z_top = d.z_mm, d.z_mm + t
    a = math.radians(p["yaw"])
    ex, ey = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    centre = np.array(p["centre"], np.float64)

    def world(uv: np.ndarray) -> np.ndarray:
        """Texture-frame mm (from the back-left corner, v to the front) → table mm."""
        uv = np.asarray(uv, np.float64).reshape(-1, 2)
        return centre + np.outer(uv[:, 0] - w / 2, ex) + np.outer(dep / 2 - uv[:, 1], ey)

    def seen(xy: np.ndarray, z: float) -> np.ndarray:
        """Pinhole pixels of the part of the table-mm polygon `xy` at height `z` the camera sees."""
        front = _in_front(camera, np.hstack([xy, np.full((len(xy), 1), z)]))
        return camera.project_pinhole(front) if len(front) else np.zeros((0, 2))

    corners = np.array([[0.0, 0.0], [w, 0.0], [w, dep], [0.0, dep]])
    footprint = world(corners)
    sides = np.vstack([seen(footprint, z0), seen(footprint, z_top)])
    if len(sides) < 3:
        return
    sides = _hull(sides)
    eye = camera.position
    eye_height = float(eye[2]) - z_top
    rel = eye[:2] - centre
    eye_uv = np.array([rel @ ex + w / 2, dep / 2 - rel @ ey])
    lift = kh / max(eye_height - kh, 30.0)
    reach = max(float(np.linalg.norm(c - eye_uv)) for c in corners) * lift
    pad_mm = min(reach, 40.0) + 1.0
    dx, dy = light.shadow_offset(kh)
    shadow_uv = np.array([dx * ex[0] + dy * ex[1], -(dx * ey[0] + dy * ey[1])])
    shadow_uv *= min(1.0, 0.5 * float(p["gap"]) / max(float(np.linalg.norm(shadow_uv)), 1e-9))
    scale = float(
        np.clip(1.3 * _px_per_mm(camera, float(centre[0]), float(centre[1]), z_top), 1.2, 5.0)
    )
    scale = min(scale, 1600.0 / (max(w, dep) + 2 * pad_mm))

    sx, sy = light.shadow_offset(t + 1.0)
    shadow = seen(_hull(np.vstack([footprint, footprint + (sx, sy)])), z0)
    if len(shadow) >= 3:
        _raster.soft_shadow(image, _hull(shadow), 4.0, 0.3 + 0.45 * light.shadow_strength)
    _raster.fill_polygon(image, sides, _shade(p["body_colour"], 0.62))
    outer = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * pad_mm + corners
    top = seen(world(outer), z_top)
    h, wi = image.shape[:2]
    box = _raster.roi(top, wi, h, 1.0) if len(top) >= 3 else None
    if box is not None:
        x0, y0, x1, y1 = box
        # texture px → table mm on the top plane → pinhole px of the region
        to_plane = np.array(
            [
                [ex[0] / scale, -ey[0] / scale, 0.0],
                [ex[1] / scale, -ey[1] / scale, 0.0],
                [0.0, 0.0, 1.0],
            ]
        )
        to_plane[:2, 2] = world(np.array([[-pad_mm, -pad_mm]]))[0]
        shift = np.array([[1.0, 0.0, -x0], [0.0, 1.0, -y0], [0.0, 0.0, 1.0]])
        matrix = shift @ camera.plane_homography(z_top) @ to_plane
        tex = _keyboard_texture(p, scale, pad_mm, eye_uv, eye_height, shadow_uv)
        warped = cv2.warpPerspective(
            tex, matrix, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
        )
        outline = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(outline, [_raster.fixed(top, (x0, y0))], 255, cv2.LINE_AA, _raster.SHIFT)
        cover = cv2.min(warped[:, :, 3], outline)
        _raster.blend_inplace(image[y0:y1, x0:x1], warped[:, :, :3], cover)
        # a magnified texture's edge spreads past the outline: whatever it tints is no piece
        ids[y0:y1, x0:x1][cover >= 32] = -1
    rects = _key_rects(p)
    lo = (min(r[0] for r in rects), min(r[1] for r in rects))
    hi = (max(r[2] for r in rects), max(r[3] for r in rects))
    key_area = seen(world(np.array([lo, (hi[0], lo[1]), hi, (lo[0], hi[1])])), z_top + kh)
    _raster.fill_ids(ids, _hull(np.vstack([sides, key_area])), -1)


def _draw_cube(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, d: Distractor
) -> None:
    """A plain block: lit faces like a die's, a soft edge, and (sugar, wood) a grainy surface."""
    p = d.params
    length, width, height = p["size"]
    a = math.radians(p["yaw"])
    ex, ey = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
    centre = np.array(p["centre"], np.float64)
    base = np.array(
        [
            centre + (sx * length / 2) * ex + (sy * width / 2) * ey
            for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))
        ]
    )
    z0 = d.z_mm
    bottom = np.hstack([base, np.full((4, 1), z0)])
    top = np.hstack([base, np.full((4, 1), z0 + height)])
    if np.any(camera.depth(np.vstack([bottom, top])) < 20.0):
        return
    sx, sy = light.shadow_offset(height)
    scale = _px_per_mm(camera, float(centre[0]), float(centre[1]), z0)
    shadow = camera.project_pinhole(
        np.hstack([np.vstack([base, base + (sx, sy)]), np.full((8, 1), z0)])
    )
    _raster.soft_shadow(
        image,
        _hull(shadow),
        max(0.6, scale * max(length, height) * 0.12 * (0.4 + light.shadow_softness)),
        0.35 + 0.5 * light.shadow_strength,
    )
    silhouette = _hull(camera.project_pinhole(np.vstack([bottom, top])))
    colour = np.array(p["colour"], np.float64)
    _raster.fill_polygon(image, silhouette, _raster.float3(colour * 0.5))
    eye, to_light = camera.position, _light_vector(light)
    faces = [(top, np.array([0.0, 0.0, 1.0]))]
    for i in range(4):
        j = (i + 1) % 4
        quad = np.array([bottom[i], bottom[j], top[j], top[i]])
        outward = quad.mean(axis=0)[:2] - centre
        faces.append((quad, np.array([*outward / max(float(np.linalg.norm(outward)), 1e-9), 0.0])))
    for corners, normal in faces:
        if float(normal @ (eye - corners.mean(axis=0))) <= 0:
            continue
        lambert = max(0.0, float(normal @ to_light))
        shade = 0.78 + 0.3 * lambert if normal[2] > 0.5 else 0.5 + 0.55 * lambert
        _raster.fill_polygon(
            image, camera.project_pinhole(corners), _raster.float3(np.clip(colour * shade, 0, 255))
        )
    h, w = image.shape[:2]
    box = _raster.roi(silhouette, w, h, 1.0)
    if box is not None:
        x0, y0, x1, y1 = box
        region = image[y0:y1, x0:x1]
        mask = np.zeros(region.shape[:2], np.uint8)
        cv2.fillPoly(mask, [_raster.fixed(silhouette, (x0, y0))], 255, cv2.LINE_AA, _raster.SHIFT)
        # a darker rim: the edges are worn round (sugar, erasers) or chamfered (blocks)
        rim = max(1, round(scale * 0.8))
        edge = cv2.morphologyEx(mask, cv2.MORPH_GRADIENT, np.ones((rim + 1, rim + 1), np.uint8))
        _raster.darken_inplace(region, cv2.min(edge, mask), 0.25)
        if p["grain"] > 0:
            rng = np.random.default_rng(int(p["seed"]))
            noise = rng.normal(0.0, p["grain"], region.shape[:2]).astype(np.float32)
            weight = mask.astype(np.float32)[..., None] / 255.0
            grained = region.astype(np.float32) + noise[..., None] * weight
            region[:] = np.clip(grained, 0, 255).astype(np.uint8)
    _raster.fill_ids(ids, silhouette, -1)


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
    "keyboard": _draw_keyboard,
    "cube": _draw_cube,
}


def draw_distractor(
    image: np.ndarray, ids: np.ndarray, camera: Camera, light: Light, distractor: Distractor
) -> None:
    """Draw `distractor` into the pinhole `image` and mark it as "no piece" in `ids` (in place)."""
    DRAWERS[distractor.kind](image, ids, camera, light, distractor)
