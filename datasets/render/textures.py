"""Procedural table surfaces: wood, cloth, felt, stone, paper and patterned cloths.

A texture family is a generator plus a colour palette. `TRAIN_FAMILIES` and `EVAL_FAMILIES` are
disjoint (different generators *and* palettes), so evaluation on `eval` measures generalisation.
Each family has a small bank of variants per process (drawn once, cached: deterministic because a
variant depends only on its family and index); a scene picks one and varies tint, scale and angle.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from datasets.render import _raster

TILE = 512
VARIANTS = 5  # bank size per family


def _rng(*key: object) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(repr(key).encode()))


def fbm(
    rng: np.random.Generator, size: int, cells: int, octaves: int = 4, aspect: float = 1.0
) -> np.ndarray:
    """Fractal value noise in [0, 1] of shape (size, size), `cells` blobs across at the base octave.

    `aspect` > 1 stretches the noise along x (wood fibres).
    """
    out = np.zeros((size, size), np.float32)
    amplitude, total = 1.0, 0.0
    for octave in range(octaves):
        n = max(2, int(cells * 2**octave))
        columns = max(2, int(n / aspect))
        grid = rng.random((n, columns)).astype(np.float32)
        layer = cv2.resize(grid, (size, size), interpolation=cv2.INTER_CUBIC)
        out += amplitude * layer
        total += amplitude
        amplitude *= 0.5
    out /= total
    lo, hi = float(out.min()), float(out.max())
    return (out - lo) / max(hi - lo, 1e-6)


def _colourise(gray: np.ndarray, dark: np.ndarray, light: np.ndarray) -> np.ndarray:
    g = gray[..., None]
    img = dark[None, None, :] * (1 - g) + light[None, None, :] * g
    return np.clip(img, 0, 255).astype(np.uint8)


def _pick(rng: np.random.Generator, palette: list[tuple[tuple[int, int, int], ...]]) -> Any:
    return palette[int(rng.integers(len(palette)))]


def _jitter(rng: np.random.Generator, bgr: tuple[int, int, int], amount: float = 18) -> np.ndarray:
    return np.clip(np.array(bgr, np.float32) + rng.normal(0, amount, 3), 0, 255)


# --- generators: (rng, palette) -> BGR tile ------------------------------------------------------
def _pair(rng: np.random.Generator, palette: list) -> tuple[np.ndarray, ...]:
    """A palette entry with one shared colour shift (keeps the hue relation between its colours)."""
    gain = rng.uniform(0.92, 1.08, 3) * rng.uniform(0.9, 1.1)
    return tuple(np.clip(np.array(c, np.float32) * gain, 0, 255) for c in _pick(rng, palette))


def _wood_grain(rng: np.random.Generator, palette: list) -> np.ndarray:
    dark, light = _pair(rng, palette)
    y = np.linspace(0, 1, TILE, dtype=np.float32)[:, None]
    warp = fbm(rng, TILE, 2, 3, aspect=6.0) * rng.uniform(0.1, 0.4)
    rings = rng.uniform(10, 30)
    phase = 2 * np.pi * rings * (y + warp)
    lines = (0.5 + 0.5 * np.cos(phase)) ** rng.uniform(4.0, 14.0)  # thin latewood lines
    bands = 0.5 + 0.5 * np.cos(phase)  # soft early/late wood banding
    fibres = fbm(rng, TILE, 40, 3, aspect=14.0)
    mottle = fbm(rng, TILE, 3, 3)
    gray = 0.45 * lines + 0.15 * bands + 0.2 * fibres + 0.2 * mottle
    gray = np.clip(gray * rng.uniform(0.7, 1.1), 0, 1)
    if rng.random() < 0.6:  # plank seams
        planks = int(rng.integers(2, 5))
        for k in range(1, planks):
            row = int(k * TILE / planks)
            gray[max(0, row - 1) : row + 1] = 1.0
    return _colourise(gray, light, dark)


def _felt(rng: np.random.Generator, palette: list) -> np.ndarray:
    (base,) = _pick(rng, palette)
    base = _jitter(rng, base, 12)
    mottle = fbm(rng, TILE, 4, 4) - 0.5
    fine = rng.random((TILE, TILE)).astype(np.float32) - 0.5
    fine = cv2.GaussianBlur(fine, (0, 0), 0.8) * 2.5
    shade = 1 + 0.12 * mottle + 0.12 * fine
    return np.clip(base[None, None, :] * shade[..., None], 0, 255).astype(np.uint8)


def _woven(rng: np.random.Generator, palette: list, twill: bool) -> np.ndarray:
    warp_c, weft_c = (_jitter(rng, c, 10) for c in _pick(rng, palette))
    period = rng.uniform(3.0, 6.0)
    yy, xx = np.mgrid[0:TILE, 0:TILE].astype(np.float32)
    if twill:
        u, v = (xx + yy) / period, (xx - yy) / period
    else:
        u, v = xx / period, yy / period
    threads_x = 0.5 + 0.5 * np.sin(2 * np.pi * u)
    threads_y = 0.5 + 0.5 * np.sin(2 * np.pi * v)
    over = ((np.floor(u) + np.floor(v)) % 2).astype(np.float32)
    mix = over * threads_x + (1 - over) * (1 - threads_y)
    img = _colourise(mix, weft_c, warp_c).astype(np.float32)
    slub = fbm(rng, TILE, 6, 3, aspect=4.0)
    img *= (0.85 + 0.25 * slub)[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _linen(rng: np.random.Generator, palette: list) -> np.ndarray:
    return _woven(rng, palette, twill=False)


def _denim(rng: np.random.Generator, palette: list) -> np.ndarray:
    return _woven(rng, palette, twill=True)


def _marble(rng: np.random.Generator, palette: list) -> np.ndarray:
    base, vein = (_jitter(rng, c, 10) for c in _pick(rng, palette))
    yy, xx = np.mgrid[0:TILE, 0:TILE].astype(np.float32) / TILE
    turb = fbm(rng, TILE, 3, 5)
    angle = rng.uniform(0, np.pi)
    s = np.cos(angle) * xx + np.sin(angle) * yy
    veins = np.abs(np.sin(2 * np.pi * (rng.uniform(2, 5) * s + 2.5 * turb))) ** 0.25
    cloud = fbm(rng, TILE, 4, 4)
    gray = 0.7 * veins + 0.3 * cloud
    return _colourise(gray, vein, base)


def _paper(rng: np.random.Generator, palette: list) -> np.ndarray:
    (base,) = _pick(rng, palette)
    base = _jitter(rng, base, 8)
    fibres = fbm(rng, TILE, 48, 2, aspect=3.0) - 0.5
    cloud = fbm(rng, TILE, 5, 4) - 0.5
    shade = 1 + 0.05 * fibres + 0.07 * cloud
    return np.clip(base[None, None, :] * shade[..., None], 0, 255).astype(np.uint8)


def _gingham(rng: np.random.Generator, palette: list) -> np.ndarray:
    light, dark = (_jitter(rng, c, 10) for c in _pick(rng, palette))
    period = int(rng.integers(24, 64))
    yy, xx = np.mgrid[0:TILE, 0:TILE]
    bx = ((xx // (period // 2)) % 2).astype(np.float32)
    by = ((yy // (period // 2)) % 2).astype(np.float32)
    level = (bx + by) / 2
    img = _colourise(level, light, dark).astype(np.float32)
    cloth = _woven(rng, [((255, 255, 255), (200, 200, 200))], twill=False).astype(np.float32)
    img *= cloth / 235.0
    return np.clip(img, 0, 255).astype(np.uint8)


def _stripes(rng: np.random.Generator, palette: list) -> np.ndarray:
    a, b = (_jitter(rng, c, 10) for c in _pick(rng, palette))
    period = rng.uniform(18, 70)
    yy = np.mgrid[0:TILE, 0:TILE][0].astype(np.float32)
    level = (np.sin(2 * np.pi * yy / period) > rng.uniform(-0.5, 0.5)).astype(np.float32)
    level = cv2.GaussianBlur(level, (0, 0), 1.0)
    img = _colourise(level, a, b).astype(np.float32)
    img *= (0.9 + 0.15 * fbm(rng, TILE, 40, 2, aspect=5.0))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _parquet(rng: np.random.Generator, palette: list) -> np.ndarray:
    dark, light = (_jitter(rng, c) for c in _pick(rng, palette))
    block = int(rng.integers(48, 96))
    img = np.zeros((TILE, TILE, 3), np.float32)
    fibres = fbm(rng, TILE, 40, 3, aspect=10.0)
    fibres_t = fibres.T
    for by in range(0, TILE, block):
        for bx in range(0, TILE, block):
            tone = rng.uniform(0.2, 0.9)
            patch = fibres if ((bx // block + by // block) % 2) else fibres_t
            g = np.clip(tone + 0.3 * (patch[by : by + block, bx : bx + block] - 0.5), 0, 1)
            img[by : by + block, bx : bx + block] = (
                dark[None, None] * (1 - g[..., None]) + light[None, None] * g[..., None]
            )
            img[by : by + 2, bx : bx + block] *= 0.55
            img[by : by + block, bx : bx + 2] *= 0.55
    return np.clip(img, 0, 255).astype(np.uint8)


def _terrazzo(rng: np.random.Generator, palette: list) -> np.ndarray:
    base, *chips = _pick(rng, palette)
    img = np.empty((TILE, TILE, 3), np.float32)
    img[:] = _jitter(rng, base, 8)
    for _ in range(int(rng.integers(250, 600))):
        colour = tuple(float(c) for c in _jitter(rng, chips[int(rng.integers(len(chips)))], 15))
        centre = (int(rng.integers(0, TILE)), int(rng.integers(0, TILE)))
        axes = (int(rng.integers(2, 9)), int(rng.integers(2, 9)))
        cv2.ellipse(img, centre, axes, float(rng.uniform(0, 180)), 0, 360, colour, -1, cv2.LINE_AA)
    img *= (0.92 + 0.12 * fbm(rng, TILE, 5, 3))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _polka(rng: np.random.Generator, palette: list) -> np.ndarray:
    base, dot = (_jitter(rng, c, 10) for c in _pick(rng, palette))
    img = np.empty((TILE, TILE, 3), np.float32)
    img[:] = base
    step = int(rng.integers(28, 64))
    radius = int(step * rng.uniform(0.15, 0.32))
    for row, y in enumerate(range(0, TILE + step, step)):
        offset = (step // 2) * (row % 2)
        for x in range(-step, TILE + step, step):
            cv2.circle(img, (x + offset, y), radius, tuple(float(c) for c in dot), -1, cv2.LINE_AA)
    img *= (0.9 + 0.15 * fbm(rng, TILE, 60, 2))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _granite(rng: np.random.Generator, palette: list) -> np.ndarray:
    """Speckled stone or speckled laminate: grains of two or three colours at several sizes.

    A busy surface teaches the detector that small coloured blobs are not pieces (on the eval
    split's terrazzo and polka tables, with only calm training surfaces, most tile detections
    were chips of the table).
    """
    base, *grains = _pick(rng, palette)
    img = np.empty((TILE, TILE, 3), np.float32)
    img[:] = _jitter(rng, base, 10)
    for blur in (0.6, 1.2, 2.5):
        for colour in grains:
            mask = (rng.random((TILE, TILE)) < rng.uniform(0.01, 0.05)).astype(np.float32)
            mask = np.clip(cv2.GaussianBlur(mask, (0, 0), blur) * (1.5 + 2.0 * blur), 0, 1)
            img += (np.array(_jitter(rng, colour, 12), np.float32) - img) * mask[..., None]
    img *= (0.92 + 0.1 * fbm(rng, TILE, 6, 3))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _confetti(rng: np.random.Generator, palette: list) -> np.ndarray:
    """A printed party or children's tablecloth: small squares, triangles and strokes."""
    (base,) = _pick(rng, palette)
    img = np.empty((TILE, TILE, 3), np.float32)
    img[:] = _jitter(rng, base, 10)
    for _ in range(int(rng.integers(120, 400))):
        colour = tuple(float(c) for c in rng.uniform(20, 240, 3))
        cx, cy = (float(v) for v in rng.uniform(0, TILE, 2))
        size = float(rng.uniform(3, 14))
        angle = float(rng.uniform(0, np.pi))
        shape = int(rng.integers(3))
        if shape == 2:  # a stroke
            dx, dy = size * np.cos(angle), size * np.sin(angle)
            cv2.line(
                img,
                (int(cx - dx), int(cy - dy)),
                (int(cx + dx), int(cy + dy)),
                colour,
                int(rng.integers(1, 4)),
                cv2.LINE_AA,
            )
            continue
        n = 3 if shape == 0 else 4
        pts = np.array(
            [
                (
                    cx + size * np.cos(angle + 2 * np.pi * k / n),
                    cy + size * np.sin(angle + 2 * np.pi * k / n),
                )
                for k in range(n)
            ],
            np.int32,
        )
        cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)
    return np.clip(img, 0, 255).astype(np.uint8)


def _spots(rng: np.random.Generator, palette: list) -> np.ndarray:
    """A spotted cloth: round spots of one or two sizes scattered at random (not in a grid),
    some overlapping. Card-sized patches of such a cloth are what the detector and the piece
    reader mistook for pieces beside scoring photos' spreads on dotted tables."""
    base, spot = (_jitter(rng, c, 12) for c in _pick(rng, palette))
    img = np.empty((TILE, TILE, 3), np.float32)
    img[:] = base
    radii = rng.integers(3, 16, 2)
    count = int(TILE * TILE * rng.uniform(0.08, 0.35) / (np.pi * float(radii.mean()) ** 2))
    for _ in range(count):
        centre = (int(rng.integers(0, TILE)), int(rng.integers(0, TILE)))
        shade = (int(spot[0]), int(spot[1]), int(spot[2]))
        colour = tuple(float(c) for c in _jitter(rng, shade, 6))
        cv2.circle(img, centre, int(radii[int(rng.integers(2))]), colour, -1, cv2.LINE_AA)
    img *= (0.9 + 0.15 * fbm(rng, TILE, 8, 3))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _prints(rng: np.random.Generator, palette: list) -> np.ndarray:
    """A printed cloth of soft-edged patches: pebbles, petals and leaves of a few colours, at
    several sizes and blurs, some overlapping. Scoring photos' weak boxes on busy withheld
    tables were patches of several colours that the piece reader took for a guest tile; the
    other busy training cloths (speckles, confetti, round spots) have sharp, one-colour marks."""
    (base,) = _pick(rng, palette)
    img: np.ndarray = np.empty((TILE, TILE, 3), np.float32)
    img[:] = _jitter(rng, base, 12)
    colours = rng.uniform(15, 245, (int(rng.integers(3, 7)), 3))
    turns = np.linspace(0, 2 * np.pi, 28, endpoint=False)  # the outline's points, about a centre
    for blur in (0.5, 1.2, 2.4):
        mask = np.zeros((TILE, TILE), np.float32)
        layer = np.zeros((TILE, TILE, 3), np.float32)
        for _ in range(int(rng.integers(20, 70))):
            radius = float(np.exp(rng.uniform(np.log(3), np.log(20))))
            stretch = float(rng.uniform(1.0, 2.6))
            angle = float(rng.uniform(0, np.pi))
            # a few smooth lobes: pebbles, petals, kidney shapes
            amplitudes, phases = rng.uniform(0, 0.25, 3), rng.uniform(0, 2 * np.pi, 3)
            radial = radius * (
                1 + sum(amplitudes[k] * np.cos((k + 1) * turns + phases[k]) for k in range(3))
            )
            xs, ys = radial * np.cos(turns) * stretch, radial * np.sin(turns)
            cx, cy = rng.uniform(0, TILE, 2)
            outline = np.stack(
                [
                    cx + xs * np.cos(angle) - ys * np.sin(angle),
                    cy + xs * np.sin(angle) + ys * np.cos(angle),
                ],
                axis=1,
            ).astype(np.int32)
            colour = colours[int(rng.integers(len(colours)))] + rng.normal(0, 10, 3)
            cv2.fillPoly(layer, [outline], tuple(float(c) for c in colour))
            cv2.fillPoly(mask, [outline], 1.0)
        soft = cv2.GaussianBlur(mask, (0, 0), blur)[..., None]
        blurred = cv2.GaussianBlur(layer, (0, 0), blur)
        # the blurred layer is premultiplied by the blurred mask: dividing restores its colour
        img = img * (1 - soft) + blurred / np.maximum(soft, 1e-3) * soft
    img *= (0.92 + 0.12 * fbm(rng, TILE, 6, 3))[..., None]
    return np.clip(img, 0, 255).astype(np.uint8)


def _slate(rng: np.random.Generator, palette: list) -> np.ndarray:
    dark, light = (_jitter(rng, c, 8) for c in _pick(rng, palette))
    layers = fbm(rng, TILE, 3, 5, aspect=3.0)
    grit = rng.random((TILE, TILE)).astype(np.float32)
    gray = 0.8 * layers + 0.2 * cv2.GaussianBlur(grit, (0, 0), 0.7)
    return _colourise(gray, dark, light)


def _laminate(rng: np.random.Generator, palette: list) -> np.ndarray:
    (base,) = _pick(rng, palette)
    base = _jitter(rng, base, 10)
    speck: np.ndarray = (rng.random((TILE, TILE)) < 0.02).astype(np.float32)
    speck = cv2.GaussianBlur(speck, (0, 0), 0.6)
    shade = 1 - 0.25 * speck + 0.05 * (fbm(rng, TILE, 4, 3) - 0.5)
    return np.clip(base[None, None, :] * shade[..., None], 0, 255).astype(np.uint8)


@dataclass(frozen=True)
class TextureFamily:
    """A named texture generator with its colour palette."""

    name: str
    generator: Callable[[np.random.Generator, list], np.ndarray]
    palette: list


# BGR palettes. Train and eval palettes are chosen apart (e.g. eval woods are reddish/grey-washed,
# train woods are yellow/brown).
TRAIN_FAMILIES: tuple[TextureFamily, ...] = (
    TextureFamily(
        "wood_grain",
        _wood_grain,
        [
            ((120, 170, 205), (175, 215, 240)),  # maple / birch (like a light desk)
            ((60, 105, 150), (110, 160, 205)),  # oak
            ((30, 50, 80), (60, 95, 130)),  # walnut
            ((140, 185, 215), (190, 225, 245)),  # pale pine
        ],
    ),
    TextureFamily(
        "felt", _felt, [((40, 110, 30),), ((110, 50, 20),), ((40, 40, 130),), ((70, 70, 70),)]
    ),
    TextureFamily(
        "linen", _linen, [((200, 215, 225), (170, 185, 200)), ((150, 150, 150), (120, 120, 125))]
    ),
    TextureFamily(
        "marble", _marble, [((235, 235, 235), (120, 120, 125)), ((60, 60, 60), (200, 200, 200))]
    ),
    TextureFamily("paper", _paper, [((235, 240, 245),), ((140, 175, 200),)]),
    TextureFamily(
        "gingham", _gingham, [((245, 245, 245), (50, 50, 190)), ((240, 240, 240), (140, 90, 30))]
    ),
    TextureFamily(
        "stripes", _stripes, [((220, 230, 235), (90, 130, 60)), ((60, 60, 60), (190, 190, 190))]
    ),
    TextureFamily(
        "granite",
        _granite,
        [
            ((180, 185, 190), (40, 40, 45), (120, 140, 170)),  # grey speckle
            ((225, 230, 235), (70, 80, 90), (150, 110, 60)),  # white laminate, blue flecks
            ((60, 60, 70), (170, 170, 175), (90, 120, 160)),  # dark granite
        ],
    ),
    TextureFamily("confetti", _confetti, [((245, 245, 245),), ((200, 225, 240),), ((50, 50, 50),)]),
    TextureFamily(
        "spots",
        _spots,
        [
            ((40, 40, 170), (235, 240, 245)),  # red, white spots
            ((90, 50, 20), (230, 230, 230)),  # navy, white spots
            ((200, 225, 235), (40, 80, 130)),  # cream, brown spots
            ((60, 140, 60), (120, 220, 240)),  # green, yellow spots
        ],
    ),
    TextureFamily(
        "prints",
        _prints,
        [((235, 240, 240),), ((170, 200, 215),), ((215, 205, 225),), ((45, 55, 60),)],
    ),
)

EVAL_FAMILIES: tuple[TextureFamily, ...] = (
    TextureFamily(
        "parquet",
        _parquet,
        [((40, 50, 110), (90, 110, 170)), ((140, 140, 140), (200, 205, 210))],
    ),
    TextureFamily(
        "terrazzo",
        _terrazzo,
        [((210, 215, 220), (60, 60, 60), (80, 120, 190), (140, 150, 160))],
    ),
    TextureFamily(
        "denim", _denim, [((120, 70, 30), (170, 130, 100)), ((90, 90, 40), (150, 150, 110))]
    ),
    TextureFamily(
        "polka", _polka, [((60, 200, 230), (250, 250, 250)), ((130, 40, 100), (230, 230, 230))]
    ),
    TextureFamily("slate", _slate, [((50, 45, 40), (110, 105, 100))]),
    TextureFamily(
        "laminate", _laminate, [((205, 200, 195),), ((160, 190, 170),), ((90, 160, 215),)]
    ),
)

FAMILIES: dict[str, tuple[TextureFamily, ...]] = {"train": TRAIN_FAMILIES, "eval": EVAL_FAMILIES}


def family_names(split: str) -> tuple[str, ...]:
    """Names of the texture families used by `split`."""
    return tuple(f.name for f in FAMILIES[split])


@functools.lru_cache(maxsize=64)
def texture_tile(split: str, family: str, variant: int) -> tuple[np.ndarray, ...]:
    """A (TILE, TILE, 3) texture and its blurred half-size pyramid levels (cached per process)."""
    by_name = {f.name: f for f in FAMILIES[split]}
    fam = by_name[family]
    tile = fam.generator(_rng("texture", split, family, variant), fam.palette)
    levels = [tile]
    for _ in range(3):
        levels.append(cv2.pyrDown(levels[-1]))
    for level in levels:
        level.setflags(write=False)
    return tuple(levels)


@dataclass(frozen=True)
class TableSurface:
    """A table surface as placed in a scene.

    Attributes:
        family, variant: which bank texture.
        mm_per_texel: scale of the texture on the table.
        angle_deg: rotation of the texture on the table.
        tint: per-channel BGR multiplier (colour variation within the family).
        offset_mm: shift of the texture origin.
    """

    split: str
    family: str
    variant: int
    mm_per_texel: float
    angle_deg: float
    tint: tuple[float, float, float]
    offset_mm: tuple[float, float]

    def to_json(self) -> dict[str, Any]:
        """The parameters as a JSON object."""
        return {
            "split": self.split,
            "family": self.family,
            "variant": self.variant,
            "mm_per_texel": round(self.mm_per_texel, 4),
            "angle_deg": round(self.angle_deg, 3),
            "tint": [round(t, 4) for t in self.tint],
            "offset_mm": [round(o, 2) for o in self.offset_mm],
        }


def sample_surface(rng: np.random.Generator, split: str) -> TableSurface:
    """A random table surface from `split`'s families."""
    families = FAMILIES[split]
    fam = families[int(rng.integers(len(families)))]
    return TableSurface(
        split=split,
        family=fam.name,
        variant=int(rng.integers(VARIANTS)),
        mm_per_texel=float(rng.uniform(0.4, 1.4)),
        angle_deg=float(rng.uniform(0, 360)),
        tint=_raster.float3(rng.uniform(0.85, 1.15, 3)),
        offset_mm=(float(rng.uniform(-500, 500)), float(rng.uniform(-500, 500))),
    )


def render_surface(
    surface: TableSurface, plane_to_image: np.ndarray, size: tuple[int, int]
) -> np.ndarray:
    """Draw the table surface seen through `plane_to_image` (table mm → pixels) at `size` (w, h).

    Picks a pre-blurred pyramid level so a tilted far table does not alias.
    """
    levels = texture_tile(surface.split, surface.family, surface.variant)
    a = np.radians(surface.angle_deg)
    s = surface.mm_per_texel
    texel_to_mm = np.array(
        [
            [s * np.cos(a), -s * np.sin(a), surface.offset_mm[0]],
            [s * np.sin(a), s * np.cos(a), surface.offset_mm[1]],
            [0, 0, 1],
        ]
    )
    matrix = plane_to_image @ texel_to_mm
    # pixels per texel at the image centre → pyramid level
    w, h = size
    inverse = np.linalg.inv(matrix)
    centre = inverse @ np.array([w / 2, h / 2, 1.0])
    step = inverse @ np.array([w / 2 + 1, h / 2, 1.0])
    texels_per_px = float(np.hypot(*(step[:2] / step[2] - centre[:2] / centre[2])))
    level = int(np.clip(np.floor(np.log2(max(texels_per_px, 1e-6)) + 0.3), 0, len(levels) - 1))
    scale = np.diag([2.0**level, 2.0**level, 1.0])
    image = cv2.warpPerspective(
        levels[level], matrix @ scale, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    return cv2.transform(image, np.diag(np.array(surface.tint, np.float32)))
