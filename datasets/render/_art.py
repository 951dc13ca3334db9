"""The companion art (`datasets.art`) as the renderer sees it.

Also caches drawn faces per process (the art is deterministic, so caching never changes output).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from datasets import art as _source

dice_king_style = _source.dice_king_style
foreign_face = _source.foreign_face
board = _source.board

STYLE_BANK_SIZE = 128


@functools.lru_cache(maxsize=2)
def style_bank(split: str) -> tuple[Any, ...]:
    """A fixed bank of generic die styles per split (so their face textures cache well).

    Drawn from the art's `random_die_style(rng, split)` with fixed seeds: eval styles never occur
    in train because the art keeps its colour families apart.
    """
    code = {"train": 1, "eval": 2}[split]
    return tuple(
        _source.random_die_style(np.random.default_rng([7919, code, k]), split)
        for k in range(STYLE_BANK_SIZE)
    )


@functools.lru_cache(maxsize=8)
def identities(game: str) -> tuple[str, ...]:
    """Every identity of `game` (cached)."""
    return tuple(_source.identities(game))


@functools.lru_cache(maxsize=512)
def piece_size_mm(identity: str) -> tuple[float, float]:
    """(width, height) in mm of `identity` (cached)."""
    w, h = _source.piece_size_mm(identity)
    return (float(w), float(h))


@functools.lru_cache(maxsize=1024)
def face(identity: str, width_px: int) -> np.ndarray:
    """The printed face of `identity` at `width_px` (cached; do not modify the array)."""
    image = np.ascontiguousarray(_source.face(identity, int(width_px))[:, :, :3])
    image.setflags(write=False)
    return image


@functools.lru_cache(maxsize=64)
def back(game: str, width_px: int) -> np.ndarray:
    """The back of `game`'s pieces at `width_px` (cached)."""
    image = np.ascontiguousarray(_source.back(game, int(width_px))[:, :, :3])
    image.setflags(write=False)
    return image


def _style_key(style: Any) -> Any:
    try:
        hash(style)
        return style
    except TypeError:
        return repr(style)


_die_cache: dict[tuple[Any, int, int], np.ndarray] = {}


def die_face(value: int, style: Any, size_px: int) -> np.ndarray:
    """Flat texture of face `value` of a die in `style`, `size_px` square (cached)."""
    key = (_style_key(style), int(value), int(size_px))
    image = _die_cache.get(key)
    if image is None:
        if len(_die_cache) > 16384:
            _die_cache.clear()
        image = np.ascontiguousarray(_source.die_face(int(value), style, int(size_px))[:, :, :3])
        image.setflags(write=False)
        _die_cache[key] = image
    return image


def die_colour(style: Any, value: int) -> str | None:
    """The colour label (`r`, `g`, `b`) of face `value` of a die in `style`, or None (generic)."""
    colour_of = getattr(style, "colour_of", None)
    if callable(colour_of):
        colour = colour_of(int(value))
        return colour if colour in ("r", "g", "b") else None
    for attribute in ("face_colours", "face_colors", "colours", "pip_colours"):
        mapping = getattr(style, attribute, None)
        if isinstance(mapping, dict) and mapping:
            colour = mapping.get(value, mapping.get(str(value)))
            return colour if colour in ("r", "g", "b") else None
        if isinstance(mapping, (list, tuple)) and len(mapping) == 6:
            colour = mapping[value - 1]
            return colour if colour in ("r", "g", "b") else None
    return None


def corner_radius_mm(identity: str | None, width_mm: float) -> float:
    """Physical corner rounding of a piece (mm); foreign pieces get a typical card rounding."""
    source = getattr(_source, "piece_corner_radius_mm", None)
    if identity is not None and callable(source):
        return float(source(identity))
    return 0.055 * width_mm


def die_rounding(style: Any) -> float:
    """Corner rounding 0..0.5 of a die in `style` (fraction of the edge)."""
    for attribute in ("rounding", "corner_radius", "roundness"):
        value = getattr(style, attribute, None)
        if isinstance(value, (int, float)):
            return float(min(0.5, max(0.0, value if value <= 0.5 else value / 100)))
    return 0.12
