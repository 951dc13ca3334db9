"""Building blocks of real play: single pieces, piles, rows, cascades, fans and thrown dice.

Each returns `PlacedPiece` values around the origin (or a given centre) in table millimetres,
with the small placement errors of human hands; `layouts` turns them into whole tables, and a
given game state can be laid out with the same blocks.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from datasets.render import _art
from datasets.render.dice import possible_fronts
from datasets.render.pieces import (
    CARD_THICKNESS_MM,
    TILE_THICKNESS_MM,
    Distractor,
    PlacedPiece,
)


@dataclass(frozen=True)
class Group:
    """An arrangement of pieces (and distractors) around the origin, with its rough radius (mm)."""

    name: str
    pieces: tuple[PlacedPiece, ...]
    radius: float
    distractors: tuple[Distractor, ...] = ()


def _kind_of(identity: str) -> str:
    return "tile" if identity.startswith("cafe-international/") else "card"


def _game_of(identity: str) -> str:
    return identity.partition("/")[0]


def piece(
    identity: str | None,
    centre: tuple[float, float],
    yaw: float,
    *,
    z: float = 0.0,
    face_up: bool = True,
    kind: str | None = None,
    size: tuple[float, float] | None = None,
    art_seed: int | None = None,
    group: str = "",
) -> PlacedPiece:
    """One flat piece: a companion piece by identity, or a foreign one (no identity, art_seed)."""
    if identity is not None:
        kind = kind or _kind_of(identity)
        size = size or _art.piece_size_mm(identity)
        game = _game_of(identity)
    else:
        game = None
    assert kind is not None and size is not None
    thickness = TILE_THICKNESS_MM if kind == "tile" else CARD_THICKNESS_MM
    return PlacedPiece(
        kind,
        identity,
        centre,
        yaw,
        size,
        z,
        thickness,
        face_up,
        game,
        art_seed=art_seed,
        group=group,
    )


def pile(
    rng: np.random.Generator,
    template: list[PlacedPiece],
    *,
    messiness: float = 1.0,
    z: float = 0.0,
) -> list[PlacedPiece]:
    """Stack the pieces of `template` (bottom first) at the first one's place, slightly askew."""
    out = []
    height = z
    for p in template:
        jitter = rng.normal(0, 0.8 * messiness, 2)
        out.append(
            replace(
                p,
                centre_mm=(
                    template[0].centre_mm[0] + float(jitter[0]),
                    template[0].centre_mm[1] + float(jitter[1]),
                ),
                yaw_deg=template[0].yaw_deg + float(rng.normal(0, 1.5 * messiness)),
                z_mm=height,
            )
        )
        height += p.thickness_mm
    return out


def row(
    rng: np.random.Generator,
    template: list[PlacedPiece],
    *,
    gap: float = 6.0,
    yaw: float = 0.0,
    centre: tuple[float, float] = (0.0, 0.0),
) -> list[PlacedPiece]:
    """Lay pieces side by side (left to right), with small placement errors."""
    widths = [p.size_mm[0] for p in template]
    total = sum(widths) + gap * (len(widths) - 1)
    x = -total / 2
    out = []
    for p, w in zip(template, widths, strict=True):
        jitter = rng.normal(0, 1.2, 2)
        local = replace(
            p,
            centre_mm=(x + w / 2 + float(jitter[0]), float(jitter[1])),
            yaw_deg=float(rng.normal(0, 2.0)),
        )
        out.append(local.moved(centre[0], centre[1], yaw))
        x += w + gap
    return out


def cascade(
    rng: np.random.Generator,
    template: list[PlacedPiece],
    *,
    step: float = 18.0,
    yaw: float = 0.0,
    centre: tuple[float, float] = (0.0, 0.0),
) -> list[PlacedPiece]:
    """Overlap pieces in a column (each lower on the table lies on top), like a solitaire column."""
    out = []
    for i, p in enumerate(template):
        jitter = rng.normal(0, 0.8, 2)
        local = replace(
            p,
            centre_mm=(float(jitter[0]), -i * step + float(jitter[1])),
            yaw_deg=float(rng.normal(0, 1.5)),
            z_mm=i * p.thickness_mm,
        )
        out.append(local.moved(centre[0], centre[1], yaw))
    return out


def fan(
    rng: np.random.Generator,
    template: list[PlacedPiece],
    *,
    spread_deg: float = 60.0,
    yaw: float = 0.0,
    centre: tuple[float, float] = (0.0, 0.0),
) -> list[PlacedPiece]:
    """Spread pieces in a fan pivoting near their bottom edges (as held, then put down)."""
    n = len(template)
    out = []
    for i, p in enumerate(template):
        angle = (i - (n - 1) / 2) * spread_deg / max(n - 1, 1) + float(rng.normal(0, 1.0))
        pivot = p.size_mm[1] * 0.38
        a = math.radians(angle)
        local = replace(
            p,
            centre_mm=(-math.sin(a) * pivot, math.cos(a) * pivot - pivot),
            yaw_deg=angle,
            z_mm=i * p.thickness_mm,
        )
        out.append(local.moved(centre[0], centre[1], yaw))
    return out


def dice_cluster(
    rng: np.random.Generator,
    styles: list[Any],
    *,
    centre: tuple[float, float] = (0.0, 0.0),
    spread: float = 1.0,
    size_mm: float | tuple[float, float] = (13.0, 19.0),
    z: float = 0.0,
    group: str = "dice",
) -> list[PlacedPiece]:
    """Dice thrown near `centre`, not overlapping; one die per style (value random)."""
    out: list[PlacedPiece] = []
    placed: list[tuple[float, float, float]] = []
    for style in styles:
        edge = float(size_mm) if isinstance(size_mm, (int, float)) else float(rng.uniform(*size_mm))
        for _attempt in range(30):
            radius = edge * (1.2 + 1.3 * spread * math.sqrt(len(styles)))
            r = radius * math.sqrt(rng.uniform())
            t = rng.uniform(0, 2 * math.pi)
            x, y = centre[0] + r * math.cos(t), centre[1] + r * math.sin(t)
            if all(math.hypot(x - a, y - b) > (edge + e) * 0.78 for a, b, e in placed):
                break
        else:
            continue
        placed.append((x, y, edge))
        value = int(rng.integers(1, 7))
        front = int(rng.choice(possible_fronts(value)))
        out.append(
            PlacedPiece(
                "die",
                None,
                (x, y),
                float(rng.uniform(0, 360)),
                (edge, edge),
                z,
                edge,
                True,
                None,
                value,
                front,
                style,
                group=group,
            )
        )
    return out
