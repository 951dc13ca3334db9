"""Compose a scene: a plain description of placed pieces → an image and what the camera sees.

`render_pieces` is the public core: it draws a given list of placed pieces (and distractors) under
a given environment (camera, table surface, light, camera effects) and returns the image with one
truth record per piece. `render_sample` draws everything at random from a seed.

Drawing order: table; flat things by height (board, cards, tiles, coins, pads…, each with its soft
shadow and edge thickness); tall things far to near (dice, cups); hands. Then light, lens
distortion and camera effects. An id buffer drawn alongside gives each piece's visible fraction and
visible box (occlusion by pieces above, distractors and hands, and the image border).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from datasets.render import _art, _raster, dice, layouts
from datasets.render.camera import Camera, sample_camera
from datasets.render.distractors import FLAT_KINDS, TALL_KINDS, draw_distractor
from datasets.render.effects import Effects, apply_effects, encode_jpeg, sample_effects
from datasets.render.lighting import Light, apply_light, sample_light
from datasets.render.pieces import Distractor, PlacedPiece, TableScene
from datasets.render.ranges import SPLITS, CameraRanges, VisibilityRules
from datasets.render.table_edge import TableEdge, draw_edge, sample_edge
from datasets.render.textures import TableSurface, render_surface, sample_surface
from vision.geometry import box_from_corners

_WIDTHS = (16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
_MAX_PIECES = 16000  # the id buffer is int16 with two ids per piece
_NEAR_MM = 30.0  # pieces closer to the camera plane than this are not drawn
_EDGE_COLOURS = {"card": (222, 228, 232), "tile": (150, 175, 190), "board": (70, 90, 110)}


@dataclass(frozen=True)
class Environment:
    """Everything about a photo except the pieces: camera, table, light, camera effects."""

    camera: Camera
    surface: TableSurface
    light: Light
    effects: Effects
    edge: TableEdge | None = None

    def to_json(self) -> dict[str, Any]:
        """All random parameters, for the truth record."""
        return {
            "camera": self.camera.params,
            "table": self.surface.to_json(),
            "table_edge": None if self.edge is None else self.edge.to_json(),
            "light": self.light.to_json(),
            "effects": self.effects.to_json(),
        }


@dataclass
class Rendered:
    """A rendered image (BGR uint8, before JPEG) and one truth record per piece."""

    image: np.ndarray
    objects: list[dict[str, Any]]
    distractors: list[dict[str, Any]] = field(default_factory=list)


# --- textures
def _width_bucket(pixels: float) -> int:
    for w in _WIDTHS:
        if w >= pixels * 1.15:
            return w
    return _WIDTHS[-1]


@functools.lru_cache(maxsize=256)
def _rounded_alpha(width: int, height: int, radius_px: float) -> np.ndarray:
    scale = 4
    big = np.zeros((height * scale, width * scale), np.uint8)
    r = max(0, int(radius_px * scale))
    w, h = width * scale, height * scale
    cv2.rectangle(big, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(big, (0, r), (w - 1, h - 1 - r), 255, -1)
    if r > 0:
        for cx, cy in ((r, r), (w - 1 - r, r), (w - 1 - r, h - 1 - r), (r, h - 1 - r)):
            cv2.circle(big, (cx, cy), r, 255, -1)
    return cv2.resize(big, (width, height), interpolation=cv2.INTER_AREA)


@functools.lru_cache(maxsize=4096)
def piece_texture(
    identity: str | None,
    game: str | None,
    kind: str,
    face_up: bool,
    art_seed: int | None,
    size_mm: tuple[float, float],
    width_px: int,
) -> np.ndarray:
    """BGRA texture of a piece's visible side (alpha: rounded corners), `width_px` wide (cached)."""
    w_mm, h_mm = size_mm
    if identity is not None:
        image = _art.face(identity, width_px) if face_up else _art.back(game or "", width_px)
    else:
        seed = int(art_seed or 0)
        if not face_up:
            seed = (seed // 64) * 64 + 63  # a deck shares its back
        image = _art.foreign_face(kind, np.random.default_rng(seed), width_px, h_mm / w_mm)
    image = np.ascontiguousarray(image[:, :, :3])
    h, w = image.shape[:2]
    radius = _art.corner_radius_mm(identity, w_mm) * w / w_mm
    alpha = _rounded_alpha(w, h, radius)
    out = np.dstack([image, alpha])
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=8)
def _board_levels() -> tuple[np.ndarray, ...]:
    image = layouts.board_art().image[:, :, :3]
    levels = [np.ascontiguousarray(image)]
    while levels[-1].shape[1] > 96:
        levels.append(cv2.pyrDown(levels[-1]))
    return tuple(levels)


def _board_texture(width_px: float) -> np.ndarray:
    levels = _board_levels()
    for level in reversed(levels):
        if level.shape[1] >= width_px * 1.1:
            return level
    return levels[0]


# --- drawing
def _draw_flat(
    image: np.ndarray, camera: Camera, light: Light, p: PlacedPiece, *, stacked: bool = False
) -> np.ndarray | None:
    """Draw a card, tile or board with shadow and edge; return its face quad (pinhole px).

    `stacked`: the piece lies squarely on an equal one (a pile), so its shadow cannot show.
    """
    top = p.face_corners_mm()
    if np.any(camera.depth(top) < _NEAR_MM):
        return None
    quad = camera.project_pinhole(top)
    h, w = image.shape[:2]
    if _raster.roi(quad, w, h, margin=20) is None:
        return quad
    bottom = p.face_corners_mm(p.z_mm)
    # soft shadow: the piece lifted a little (curl, thickness) cast on the surface below
    lift = p.thickness_mm + (0.8 if p.kind == "card" else 0.6)
    dx, dy = light.shadow_offset(lift)
    cast = camera.project_pinhole(
        np.column_stack([top[:, 0] + dx, top[:, 1] + dy, np.full(4, p.z_mm)])
    )
    edge_px = float(np.linalg.norm(quad[1] - quad[0]))
    px_per_mm = edge_px / max(p.size_mm[0], 1e-6)
    sigma = max(0.7, px_per_mm * (0.8 + 2.5 * light.shadow_softness))
    if not stacked:
        _raster.soft_shadow(
            image,
            np.vstack([cast, quad]) if p.kind != "board" else cast,
            sigma,
            0.18 + 0.45 * light.shadow_strength,
        )
    # edge thickness: the hull of top and bottom faces in the edge colour, darker on the far side
    slab = cv2.convexHull(np.vstack([quad, camera.project_pinhole(bottom)]).astype(np.float32))
    _raster.fill_polygon(image, slab.reshape(-1, 2), _EDGE_COLOURS.get(p.kind, (200, 200, 200)))
    if p.kind == "board":
        texture = _board_texture(edge_px)
    else:
        texture = piece_texture(
            p.identity,
            p.game,
            p.kind,
            p.face_up,
            p.art_seed,
            (float(p.size_mm[0]), float(p.size_mm[1])),
            _width_bucket(edge_px),
        )
    # pieces catch the light a little differently (curl, gloss): a small per-piece gain
    sheen = 0.93 + 0.12 * ((p.centre_mm[0] * 12.9898 + p.centre_mm[1] * 78.233) % 1.0)
    _raster.warp_quad(image, texture, quad, shade=sheen)
    return quad


def _is_stacked(piece: PlacedPiece, below: PlacedPiece | None) -> bool:
    if below is None or piece.z_mm <= below.z_mm or piece.size_mm != below.size_mm:
        return False
    dx, dy = piece.centre_mm[0] - below.centre_mm[0], piece.centre_mm[1] - below.centre_mm[1]
    return dx * dx + dy * dy < 9.0


def _depth(camera: Camera, x: float, y: float) -> float:
    return float(camera.depth(np.array([[x, y, 0.0]]))[0])


def render_pieces(
    pieces: list[PlacedPiece] | tuple[PlacedPiece, ...],
    distractors: list[Distractor] | tuple[Distractor, ...],
    environment: Environment,
    *,
    rules: VisibilityRules | None = None,
) -> Rendered:
    """Render placed pieces and distractors under `environment`; return image and truth records.

    The image is BGR uint8 of the camera's size, lit, lens-distorted and with camera effects, but
    not yet JPEG-compressed. Each piece gets one record (see `datasets.render.labels`).
    """
    rules = rules or VisibilityRules()
    camera, light = environment.camera, environment.light
    w, h = camera.width, camera.height
    image = render_surface(environment.surface, camera.plane_homography(0.0), (w, h))
    if environment.edge is not None:
        draw_edge(image, camera, environment.edge, environment.surface.split)
    if len(pieces) > _MAX_PIECES:
        raise ValueError(f"too many pieces: {len(pieces)} (at most {_MAX_PIECES})")
    # id buffer: 2i+1 marks piece i's face (a die's top), 2i a die's sides; -1 nothing countable
    ids = np.full((h, w), -1, np.int16)
    index = {id(p): i for i, p in enumerate(pieces)}
    drawn: set[int] = set()
    drawn_dice: set[int] = set()

    # flat things by height (stable: list order breaks ties)
    flat: list[tuple[float, int, Any]] = [
        (p.z_mm, i, p) for i, p in enumerate(pieces) if p.kind != "die"
    ]
    flat += [
        (d.z_mm, len(pieces) + j, d) for j, d in enumerate(distractors) if d.kind in FLAT_KINDS
    ]
    tops: dict[tuple[int, int, tuple[float, float]], PlacedPiece] = {}  # piles: top piece so far
    for _, _, item in sorted(flat, key=lambda t: (t[0], t[1])):
        if isinstance(item, Distractor):
            draw_distractor(image, ids, camera, light, item)
            continue
        spot = (round(item.centre_mm[0] / 4), round(item.centre_mm[1] / 4), item.size_mm)
        quad = _draw_flat(image, camera, light, item, stacked=_is_stacked(item, tops.get(spot)))
        tops[spot] = item
        if quad is None:
            continue
        i = index[id(item)]
        drawn.add(i)
        if item.kind == "board":
            _raster.fill_ids(ids, quad, -1)
        else:
            _raster.fill_ids(ids, quad, 2 * i + 1)
    # tall things far to near
    tall: list[tuple[float, Any]] = [
        (_depth(camera, *p.centre_mm), p) for p in pieces if p.kind == "die"
    ]
    tall += [(_depth(camera, *d.params["centre"]), d) for d in distractors if d.kind in TALL_KINDS]
    for _, item in sorted(tall, key=lambda t: -t[0]):
        if isinstance(item, Distractor):
            draw_distractor(image, ids, camera, light, item)
            continue
        i = index[id(item)]
        if np.any(camera.depth(dice.die_geometry(item).vertices) < _NEAR_MM):
            continue
        hull = dice.draw_die(image, camera, light, item)
        top = camera.project_pinhole(dice.top_corners_mm(item))
        drawn.add(i)
        drawn_dice.add(i)
        _raster.fill_ids(ids, hull, 2 * i)
        _raster.fill_ids(ids, top, 2 * i + 1)
    for d in distractors:
        if d.kind == "hand":
            draw_distractor(image, ids, camera, light, d)

    # light, lens, camera
    image = apply_light(image, light, environment.effects)
    if camera.has_distortion:
        image = camera.distort_image(image)
        ids = camera.distort_image(ids, interpolation=cv2.INTER_NEAREST)
    image = apply_effects(image, environment.effects)
    # every piece's corners and outline through the lens in one call
    corner_sets, outline_sets = [], []
    for p in pieces:
        if p.kind == "die":
            geometry = dice.die_geometry(p)
            corner_sets.append(geometry.faces["top"])
            outline_sets.append(geometry.vertices)
        else:
            corners_mm = p.face_corners_mm()
            corner_sets.append(corners_mm)
            outline_sets.append(corners_mm)
    sizes = [len(c) for c in corner_sets] + [len(o) for o in outline_sets]
    projected: np.ndarray | list[np.ndarray] = (
        camera.project(np.vstack(corner_sets + outline_sets)) if pieces else []
    )
    parts = np.split(projected, np.cumsum(sizes)[:-1]) if pieces else []
    n = len(pieces)
    # visibility in the final image: visible id pixels over the pixels of the whole outline
    final_quads = {i: parts[i] for i in drawn}
    final_hulls = {
        i: cv2.convexHull(parts[n + i].astype(np.float32)).reshape(-1, 2).astype(np.float64)
        for i in drawn_dice
    }
    counts = _visible_counts(ids, pieces, final_quads, final_hulls)
    objects = [
        _record(i, p, parts[i], parts[n + i], camera, ids, counts, rules)
        for i, p in enumerate(pieces)
    ]
    return Rendered(image, objects, [d.to_json() for d in distractors])


def _visible_counts(
    ids: np.ndarray,
    pieces: list[PlacedPiece] | tuple[PlacedPiece, ...],
    quads: dict[int, np.ndarray],
    hulls: dict[int, np.ndarray],
) -> dict[int, tuple[float, float]]:
    """Per drawn piece: (visible fraction of the object, of its face or die top).

    `quads` are faces (die tops), `hulls` die silhouettes, both in final-image pixels.
    """
    h, w = ids.shape
    out: dict[int, tuple[float, float]] = {}
    for i, p in enumerate(pieces):
        if i not in quads or p.kind == "board":
            continue
        outline = hulls.get(i, quads[i])
        box = _raster.roi(outline, w, h, margin=2)
        face_full = _raster.pixel_count(quads[i])
        if box is None or face_full == 0:
            out[i] = (0.0, 0.0)
            continue
        x0, y0, x1, y1 = box
        region = ids[y0:y1, x0:x1]
        face_seen = int(np.count_nonzero(region == 2 * i + 1))
        face_fraction = min(1.0, face_seen / face_full)
        if p.kind == "die":
            body_full = _raster.pixel_count(hulls[i])
            body_seen = face_seen + int(np.count_nonzero(region == 2 * i))
            out[i] = (min(1.0, body_seen / max(body_full, 1)), face_fraction)
        else:
            out[i] = (face_fraction, face_fraction)
    return out


def _die_colour(p: PlacedPiece) -> str | None:
    """The colour label of a die piece's top face (None: not a die, or a generic die)."""
    if p.kind != "die":
        return None
    assert p.value is not None, "a placed die always has a top value"
    return _art.die_colour(p.die_style, int(p.value))


def _record(
    i: int,
    p: PlacedPiece,
    corners: np.ndarray,
    outline: np.ndarray,
    camera: Camera,
    ids: np.ndarray,
    counts: dict[int, tuple[float, float]],
    rules: VisibilityRules,
) -> dict[str, Any]:
    """The truth record of piece `i`; `corners` and `outline` are final-image pixels."""
    w, h = camera.width, camera.height
    visible, face_visible = counts.get(i, (0.0, 0.0))
    box = None
    if visible > 0 and np.all(np.isfinite(outline)):
        area = _raster.roi(outline, w, h, margin=3)
        if area is not None:
            x0, y0, x1, y1 = area
            region = ids[y0:y1, x0:x1]
            mask = (
                (region == 2 * i + 1) | (region == 2 * i)
                if p.kind == "die"
                else (region == 2 * i + 1)
            )
            ys, xs = np.nonzero(mask)
            if len(xs):
                # pixel extent, never beyond the piece's own outline (rasterising rounds outwards)
                full = box_from_corners(outline)
                box = [
                    float(max(x0 + xs.min(), full[0])),
                    float(max(y0 + ys.min(), full[1])),
                    float(min(x0 + xs.max() + 1, full[2])),
                    float(min(y0 + ys.max() + 1, full[3])),
                ]
    target = box is not None and p.kind != "board"
    if target and box is not None:
        target = min(box[2] - box[0], box[3] - box[1]) >= rules.min_box_px
        if p.kind == "die":
            target = target and visible >= rules.die_min_visible
            target = target and face_visible >= rules.die_top_min_visible
        else:
            target = target and visible >= rules.flat_min_visible
    record: dict[str, Any] = {
        "kind": p.kind,
        "identity": p.identity,
        "face_up": p.face_up,
        "corners": [[round(float(x), 2), round(float(y), 2)] for x, y in corners],
        "box": None if box is None else [round(v, 2) for v in box],
        "box_full": [round(float(v), 2) for v in box_from_corners(outline)],
        "value": p.value if p.kind == "die" else None,
        "colour": _die_colour(p),
        "visible_fraction": round(float(visible), 4),
        "target": bool(target),
        "pose": p.to_json(),
    }
    if p.kind == "die":
        record["top_visible_fraction"] = round(float(face_visible), 4)
    return record


# --- random samples
def sample_environment(
    rng: np.random.Generator,
    scene: TableScene,
    size: tuple[int, int],
    split: str,
    *,
    camera_ranges: CameraRanges | None = None,
) -> Environment:
    """Random camera (framing the scene or one of its areas), table, light and camera effects.

    `camera_ranges` replaces the default camera ranges (e.g. close, oblique views of dice)."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (train or eval)")
    w, h = size
    focus = scene.focus or ((0.0, 0.0, 300.0),)
    if len(focus) > 1 and rng.random() < 0.7:
        x, y, r = focus[1 + int(rng.integers(len(focus) - 1))]
    else:
        x, y, r = focus[0]
    # a phone or webcam frames a part of a big table, not all of it
    radius = float(np.clip(r * rng.uniform(0.5, 1.0), 45.0, 380.0))
    camera = sample_camera(
        rng, w, h, scene_centre_mm=(x, y), scene_radius_mm=radius, ranges=camera_ranges
    )
    whole_x, whole_y, whole_r = focus[0]
    return Environment(
        camera=camera,
        surface=sample_surface(rng, split),
        light=sample_light(rng, split),
        effects=sample_effects(rng, w),
        edge=sample_edge(rng, split, (whole_x, whole_y), whole_r),
    )


@dataclass
class Sample:
    """One generated image: JPEG bytes, the rendered objects and every parameter used."""

    jpeg: bytes
    rendered: Rendered
    truth: dict[str, Any]


def sample_rng(seed: int, index: int, split: str = "train") -> np.random.Generator:
    """The random generator of image `index` of a run seeded `seed` (independent of workers).

    The split is part of the seed, so eval scenes are never train scenes in other colours.
    """
    code = SPLITS.index(split) if split in SPLITS else len(SPLITS)
    return np.random.default_rng(np.random.SeedSequence([int(seed), int(index), code]))


def render_sample(
    seed: int,
    index: int,
    *,
    size: tuple[int, int] = (640, 480),
    game: str | None = None,
    split: str = "train",
    rules: VisibilityRules | None = None,
) -> Sample:
    """Render image `index` of the run seeded `seed`: scene, environment, image, truth."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (train or eval)")
    rng = sample_rng(seed, index, split)
    scene = layouts.sample_table(rng, game, split)
    environment = sample_environment(rng, scene, size, split)
    rendered = render_pieces(scene.pieces, scene.distractors, environment, rules=rules)
    jpeg = encode_jpeg(rendered.image, environment.effects.jpeg_quality)
    truth = {
        "seed": int(seed),
        "index": int(index),
        "width": size[0],
        "height": size[1],
        "split": split,
        "game": game,
        "params": environment.to_json(),
        "visibility": (rules or VisibilityRules()).__dict__,
        "objects": rendered.objects,
        "distractors": rendered.distractors,
    }
    return Sample(jpeg, rendered, truth)


def neutral_environment(camera: Camera, *, split: str = "train") -> Environment:
    """A plain environment around `camera`: first texture family, soft daylight, no camera effects.

    For tests and for rendering a given state where the look should not vary.
    """
    family = sample_surface(np.random.default_rng(0), split).family
    surface = TableSurface(split, family, 0, 1.0, 0.0, (1.0, 1.0, 1.0), (0.0, 0.0))
    light = Light(
        family="neutral",
        kelvin=5500.0,
        awb=1.0,
        direction_deg=45.0,
        elevation_deg=70.0,
        gradient=0.0,
        gradient_angle_deg=0.0,
        spot=0.0,
        spot_centre=(0.5, 0.5),
        spot_radius=0.5,
        shadow_strength=0.3,
        shadow_softness=0.5,
        tint=(1.0, 1.0, 1.0),
        glare=None,
    )
    effects = Effects(
        exposure=1.0,
        gamma=1.0,
        contrast=1.0,
        saturation=1.0,
        white_balance=(1.0, 1.0, 1.0),
        vignetting=0.0,
        defocus_sigma=0.0,
        motion_length=0.0,
        motion_angle_deg=0.0,
        noise_sigma=0.0,
        noise_offset=(0, 0),
        jpeg_quality=95,
    )
    return Environment(camera, surface, light, effects)
