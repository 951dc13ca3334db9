"""Dice: styles (body, pips, corners, materials) and flat face textures for the scene renderer.

A `DieStyle` describes one six-sided die. `die_face` draws one face as a flat square texture that
the renderer maps onto the cube in perspective. Rounded cube edges show as a darker rim and corners
filled with the edge colour; translucent and marbled bodies are textures (the renderer may add
transparency effects of its own from the `translucent` flag).

Colour families for generated generic dice (`random_die_style`):

- ``train`` bodies: white, ivory, black, red, blue, green, yellow; translucent red, blue, green,
  clear; marbled pairs of those solid colours. Pips: black, white, red, blue, green, or engraved
  (cut into the body: the body's hue, darker).
- ``eval`` bodies (never produced for ``train``): purple, orange, pink, teal, grey, brown;
  translucent purple, orange; marbled pairs of those solid colours. Eval pips: gold, silver, cream,
  dark brown, purple, orange, or engraved (never the train pip colours).

The six Dice King dice (`dice_king_style`) are light wood with pips red, green or blue per face, as
listed in `engines/dice_king/data/companion_dice.json` (a fixed fallback pattern of our own when the
file is missing).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from datasets.art.palette import DIE_COLOURS
from datasets.art.pictograms import BGR, darker, hex_bgr, lighter, mix, pip_layout

PIP_SHAPES: tuple[str, ...] = ("round", "square", "engraved")
SPLITS: tuple[str, ...] = ("train", "eval")

_DICE_FILE = (
    Path(__file__).resolve().parents[2] / "engines" / "dice_king" / "data" / "companion_dice.json"
)
# Our own fallback pattern: each die has two faces of each colour, and each value's colour varies.
_FALLBACK_DICE: tuple[dict[str, str], ...] = (
    {"1": "r", "2": "g", "3": "b", "4": "r", "5": "g", "6": "b"},
    {"1": "g", "2": "b", "3": "r", "4": "g", "5": "b", "6": "r"},
    {"1": "b", "2": "r", "3": "g", "4": "b", "5": "r", "6": "g"},
    {"1": "r", "2": "b", "3": "g", "4": "g", "5": "r", "6": "b"},
    {"1": "g", "2": "r", "3": "b", "4": "b", "5": "g", "6": "r"},
    {"1": "b", "2": "g", "3": "r", "4": "r", "5": "b", "6": "g"},
)


@dataclass(frozen=True)
class DieStyle:
    """How one six-sided die looks.

    Attributes:
        body_bgr: body colour.
        pip_bgr: pip colour (when `face_pip_bgr` is None).
        face_pip_bgr: per-face pip colours, index value − 1, or None.
        face_colours: per-face colour codes ``r``/``g``/``b`` (index value − 1), or None for dice
            whose pips carry no game colour; `colour_of` reads it.
        pip_shape: ``round``, ``square`` or ``engraved``.
        pip_size: pip diameter as a fraction of the face side (about 0.12–0.22).
        pip_spread: distance of the outer pips from the face's centre as a fraction of the side
            (0.25 classic; real dice often set them closer, about 0.2).
        corner_radius: rounding of the cube's edges as a fraction of the face side (0 = sharp).
        edge_bgr: colour of the rounded rim and corners.
        translucent: a see-through body (drawn lighter, with an inner glow).
        marbled: a swirled two-colour body; `marble_bgr` is the second colour, `marble_seed` its
            pattern.
        wood: a wooden body with grain (seeded by `marble_seed`).
        family: a short name of the colour family (``white``, ``translucent_red`` …).
        split: ``train`` or ``eval``: the split whose colour families it belongs to.
        size_mm: the cube's edge length in millimetres (generic dice 12–20, Dice King 16).
    """

    body_bgr: BGR
    pip_bgr: BGR
    face_pip_bgr: tuple[BGR, ...] | None = None
    face_colours: tuple[str, ...] | None = None
    pip_shape: str = "round"
    pip_size: float = 0.17
    pip_spread: float = 0.25
    corner_radius: float = 0.12
    edge_bgr: BGR = (200, 200, 200)
    translucent: bool = False
    marbled: bool = False
    marble_bgr: BGR = (255, 255, 255)
    marble_seed: int = 0
    wood: bool = False
    family: str = "white"
    split: str = "train"
    size_mm: float = 16.0

    def colour_of(self, value: int) -> str | None:
        """The game colour (``r``/``g``/``b``) of face `value`, or None for a generic die."""
        if self.face_colours is None:
            return None
        return self.face_colours[value - 1]

    def pip_colour(self, value: int) -> BGR:
        """The pip colour on face `value`."""
        if self.face_pip_bgr is not None:
            return self.face_pip_bgr[value - 1]
        return self.pip_bgr


# -- colour families ------------------------------------------------------------------------------
_TRAIN_BODIES: dict[str, BGR] = {
    "white": hex_bgr("#F7F7F2"),
    "ivory": hex_bgr("#F2E8CF"),
    "black": hex_bgr("#1C1C1C"),
    "red": hex_bgr("#C62828"),
    "blue": hex_bgr("#1E4FBF"),
    "green": hex_bgr("#2E8B3E"),
    "yellow": hex_bgr("#F9D423"),
}
_TRAIN_TRANSLUCENT: dict[str, BGR] = {
    "translucent_red": hex_bgr("#E53935"),
    "translucent_blue": hex_bgr("#42A5F5"),
    "translucent_green": hex_bgr("#66BB6A"),
    "translucent_clear": hex_bgr("#DDE7EE"),
}
_EVAL_BODIES: dict[str, BGR] = {
    "purple": hex_bgr("#6A1B9A"),
    "orange": hex_bgr("#EF6C00"),
    "pink": hex_bgr("#F48FB1"),
    "teal": hex_bgr("#00897B"),
    "grey": hex_bgr("#8A8F96"),
    "brown": hex_bgr("#6D4C41"),
}
_EVAL_TRANSLUCENT: dict[str, BGR] = {
    "translucent_purple": hex_bgr("#AB47BC"),
    "translucent_orange": hex_bgr("#FFA726"),
}
_TRAIN_PIPS: dict[str, BGR] = {
    "black": hex_bgr("#111111"),
    "white": hex_bgr("#FAFAFA"),
    "red": hex_bgr("#C62828"),
    "blue": hex_bgr("#1565C0"),
    "green": hex_bgr("#2E7D32"),
}
_EVAL_PIPS: dict[str, BGR] = {
    "gold": hex_bgr("#D4AF37"),
    "silver": hex_bgr("#C0C0C0"),
    "cream": hex_bgr("#FFF1C9"),
    "dark_brown": hex_bgr("#3E2723"),
    "purple": hex_bgr("#7B1FA2"),
    "orange": hex_bgr("#F57C00"),
}


def _luma(c: BGR) -> float:
    return 0.114 * c[0] + 0.587 * c[1] + 0.299 * c[2]


def _contrast(a: BGR, b: BGR) -> float:
    return abs(_luma(a) - _luma(b)) + 0.35 * float(np.abs(np.subtract(a, b)).sum()) / 3


def random_die_style(rng: np.random.Generator, split: str = "train") -> DieStyle:
    """A random generic die of the `split`'s colour families (see the module docstring).

    Raises:
        ValueError: `split` is not ``train`` or ``eval``.
    """
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}")
    train = split == "train"
    bodies = _TRAIN_BODIES if train else _EVAL_BODIES
    translucents = _TRAIN_TRANSLUCENT if train else _EVAL_TRANSLUCENT
    pips = _TRAIN_PIPS if train else _EVAL_PIPS
    material = rng.choice(["solid", "solid", "solid", "translucent", "marbled"])
    translucent = material == "translucent"
    marbled = material == "marbled"
    pool = translucents if translucent else bodies
    family = str(rng.choice(sorted(pool)))
    body = pool[family]
    marble: BGR = (255, 255, 255)
    if marbled:
        others = [k for k in sorted(bodies) if k != family]
        second = str(rng.choice(others))
        marble = bodies[second]
        family = f"marbled_{family}_{second}"
    # jitter the body a little so no two dice are exactly alike
    jitter = rng.normal(0.0, 6.0, 3)
    jittered = [int(np.clip(v + j, 0, 255)) for v, j in zip(body, jitter, strict=True)]
    body = (jittered[0], jittered[1], jittered[2])
    pip_shape = str(rng.choice(["round", "round", "round", "square", "engraved"]))
    if pip_shape == "engraved":
        pip = darker(body, 0.55) if _luma(body) > 90 else lighter(body, 0.45)
    else:
        # any pip colour that reads well on this body (the clearest one when none does)
        backgrounds = [body, marble] if marbled else [body]
        readable = [
            k for k in sorted(pips) if all(abs(_luma(pips[k]) - _luma(b)) > 75 for b in backgrounds)
        ]
        choices = readable or [max(sorted(pips), key=lambda k: _contrast(pips[k], body))]
        pip = pips[str(rng.choice(choices))]
    face_pips = None
    if pip_shape != "engraved" and rng.random() < 0.12:  # casino-style per-face colours
        face_pips = tuple(pips[str(rng.choice(sorted(pips)))] for _ in range(6))
        face_pips = tuple(p if abs(_luma(p) - _luma(body)) > 75 else pip for p in face_pips)
    corner = float(rng.choice([0.0, 0.04, 0.1, 0.16, 0.22]))
    edge = darker(body, 0.25) if _luma(body) > 60 else lighter(body, 0.2)
    pip_size = float(rng.uniform(0.13, 0.21))
    marble_seed = int(rng.integers(0, 2**31 - 1))
    size_mm = float(rng.choice([12.0, 14.0, 16.0, 16.0, 18.0, 20.0]))
    pip_spread = 0.25
    if train:
        # Real dice often set their pips closer to the centre than the classic layout. Drawn from
        # a stream of its own so every other draw (and the eval split) stays as it was.
        spread_rng = np.random.default_rng([marble_seed, 7])
        pip_spread = float(spread_rng.uniform(max(0.19, 1.2 * pip_size), 0.29))
    return DieStyle(
        body_bgr=body,
        pip_bgr=pip,
        face_pip_bgr=face_pips,
        pip_shape=pip_shape,
        pip_size=pip_size,
        pip_spread=pip_spread,
        corner_radius=corner,
        edge_bgr=edge,
        translucent=translucent,
        marbled=marbled,
        marble_bgr=marble,
        marble_seed=marble_seed,
        family=family,
        split=split,
        size_mm=size_mm,
    )


@lru_cache(maxsize=1)
def companion_dice() -> tuple[dict[str, str], ...]:
    """The six Dice King dice's face colours (value string → ``r``/``g``/``b``)."""
    try:
        data = json.loads(_DICE_FILE.read_text(encoding="utf-8"))
        dice = tuple({str(k): str(v) for k, v in d.items()} for d in data)
        if len(dice) == 6 and all(
            set(d) == {"1", "2", "3", "4", "5", "6"} and set(d.values()) <= {"r", "g", "b"}
            for d in dice
        ):
            return dice
    except (OSError, ValueError, AttributeError, TypeError):
        pass
    return _FALLBACK_DICE


def dice_king_style(die_index: int) -> DieStyle:
    """The Dice King die number `die_index` (0–5): light wood, red/green/blue pips per face.

    Raises:
        ValueError: `die_index` is not 0–5.
    """
    dice = companion_dice()
    if not 0 <= die_index < len(dice):
        raise ValueError(f"unknown dice king die {die_index!r}")
    colours = tuple(dice[die_index][str(v)] for v in range(1, 7))
    return DieStyle(
        body_bgr=hex_bgr("#E8C99B"),
        pip_bgr=DIE_COLOURS["r"],
        face_pip_bgr=tuple(DIE_COLOURS[c] for c in colours),
        face_colours=colours,
        pip_shape="round",
        pip_size=0.19,
        corner_radius=0.1,
        edge_bgr=hex_bgr("#C9A574"),
        wood=True,
        marble_seed=1000 + die_index,
        family="dice_king_wood",
        split="train",
        size_mm=16.0,
    )


# -- textures -------------------------------------------------------------------------------------
def _smooth_noise(seed: int, size: int, cells: int) -> np.ndarray:
    """Deterministic smooth noise in [0, 1] of shape (size, size)."""
    rng = np.random.default_rng(seed)
    grid = rng.random((cells, cells)).astype(np.float32)
    return cv2.resize(grid, (size, size), interpolation=cv2.INTER_CUBIC).clip(0, 1)


def _body_texture(style: DieStyle, size: int, value: int) -> np.ndarray:
    body = np.array(style.body_bgr, np.float32)
    img: np.ndarray = np.empty((size, size, 3), np.float32)
    img[:] = body
    if style.wood:
        yy = np.linspace(0, 1, size, dtype=np.float32)[:, None]
        warp = _smooth_noise(style.marble_seed * 7 + value, size, 4) * 3.0
        grain = 0.5 + 0.5 * np.sin((yy * 9.0 + warp) * np.pi * 2)
        fine = _smooth_noise(style.marble_seed * 13 + value, size, max(8, size // 6))
        shade = (grain * 0.7 + fine * 0.3)[..., None]
        dark = np.array(darker(style.body_bgr, 0.22), np.float32)
        img = body * (1 - shade * 0.6) + dark * (shade * 0.6)
    elif style.marbled:
        n1 = _smooth_noise(style.marble_seed + value, size, 4)
        n2 = _smooth_noise(style.marble_seed * 3 + value, size, 7)
        swirl = np.sin((n1 * 1.4 + n2 * 0.5) * np.pi * 2)
        t = np.clip(0.5 + swirl * 0.9, 0, 1)[..., None] ** 1.5
        img = body * (1 - t) + np.array(style.marble_bgr, np.float32) * t
    if style.translucent:
        # light passes through: lighter centre, deeper rim
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / max(size - 1, 1)
        r = np.sqrt((xx - 0.45) ** 2 + (yy - 0.4) ** 2)
        glow = np.clip(1.0 - r * 1.6, 0, 1)[..., None]
        img = img * (0.8 + 0.2 * (1 - glow)) + 255.0 * 0.3 * glow
    return img


def die_face(value: int, style: DieStyle, size_px: int) -> np.ndarray:
    """One face of a die as a flat square BGR texture of side `size_px`, pips in standard layout.

    Raises:
        ValueError: `value` is not 1–6 or `size_px` < 8.
    """
    if value not in range(1, 7):
        raise ValueError(f"unknown die value {value!r}")
    if size_px < 8:
        raise ValueError(f"die face size too small: {size_px!r}")
    ss = 4 if size_px < 64 else 2
    big = size_px * ss
    img = _body_texture(style, big, value)
    # rounded edges: darken towards the rim, corners filled with the edge colour
    rim = style.corner_radius * big
    if rim > 0:
        yy, xx = np.mgrid[0:big, 0:big].astype(np.float32) + 0.5
        d_edge = np.minimum.reduce([xx, yy, big - xx, big - yy])
        t = np.clip(1.0 - d_edge / rim, 0, 1)[..., None] ** 1.5
        edge = np.array(style.edge_bgr, np.float32)
        img = img * (1 - t * 0.6) + edge * (t * 0.6)
        # corners outside the rounding radius show the edge colour (the rounded cube corner)
        cx = np.clip(xx, rim, big - rim)
        cy = np.clip(yy, rim, big - rim)
        outside = ((xx - cx) ** 2 + (yy - cy) ** 2) > rim**2
        img[outside] = edge * 0.8
    # pips
    out = np.clip(img, 0, 255).astype(np.uint8)
    pip_r = style.pip_size * big / 2
    colour = style.pip_colour(value)
    shift = 4
    one = 1 << shift
    for px, py in pip_layout(value, style.pip_spread):
        c = (int(round(px * big * one)), int(round(py * big * one)))
        r = int(round(pip_r * one))
        if style.pip_shape == "square":
            half = pip_r * 0.9
            pts = np.array(
                [
                    [px * big - half, py * big - half],
                    [px * big + half, py * big - half],
                    [px * big + half, py * big + half],
                    [px * big - half, py * big + half],
                ]
            )
            cv2.fillPoly(out, [np.round(pts * one).astype(np.int32)], colour, cv2.LINE_AA, shift)
        elif style.pip_shape == "engraved":
            # a cut: shadowed upper-left inside, lit lower-right rim
            cv2.circle(out, c, r, colour, -1, cv2.LINE_AA, shift)
            hi = lighter(style.body_bgr, 0.35)
            cv2.ellipse(out, c, (r, r), 0, 20, 160, hi, max(1, big // 90), cv2.LINE_AA, shift)
            inner = (c[0] + r // 5, c[1] + r // 5)
            cv2.circle(
                out, inner, int(r * 0.7), mix(colour, style.body_bgr, 0.25), -1, cv2.LINE_AA, shift
            )
        else:
            cv2.circle(out, c, r, colour, -1, cv2.LINE_AA, shift)
            # a slight dimple: darker rim of the pip
            cv2.circle(out, c, r, darker(colour, 0.25), max(1, big // 160), cv2.LINE_AA, shift)
    return cv2.resize(out, (size_px, size_px), interpolation=cv2.INTER_AREA)


__all__ = [
    "DieStyle",
    "companion_dice",
    "dice_king_style",
    "die_face",
    "pip_layout",
    "random_die_style",
]
