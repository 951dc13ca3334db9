"""The plain description of what lies on a table: placed pieces and distractors, in table mm.

A scene is first this description (JSON-able values), then rendered. Stacking order is the order
of the list: later pieces lie on top of earlier ones; `z_mm` is the height of a piece's underside.

Face frame of a flat piece: its printed top edge points along the piece's local +y axis; `yaw_deg`
turns the piece counter-clockwise (seen from above) about its centre. The 4 corners are the printed
face's top-left, top-right, bottom-right, bottom-left (see `vision.geometry`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

CARD_THICKNESS_MM = 0.32
TILE_THICKNESS_MM = 2.2

KINDS = ("card", "tile", "die", "board")


@dataclass(frozen=True)
class PlacedPiece:
    """One piece on the table.

    Attributes:
        kind: ``card``, ``tile``, ``die`` or ``board`` (a board is drawn but is not a label class).
        identity: companion identity (``kings-breakfast/cheese``); None for foreign pieces.
        centre_mm: centre on the table plane.
        yaw_deg: rotation about the vertical (counter-clockwise seen from above).
        size_mm: face (width, height); a die's (edge, edge).
        z_mm: height of the underside above the table.
        thickness_mm: height of the piece (a die: its edge).
        face_up: whether the printed face (not the back) is up.
        game: the game whose back a face-down companion piece shows.
        value: a die's top value.
        front: a die's value on its local −y side (fixes the side faces).
        die_style: the art's die style.
        art_seed: seed of a foreign piece's art.
        layout: a board's layout (Café International).
        group: name of the arrangement it belongs to (``offer``, ``pile``, ``dice``…).
    """

    kind: str
    identity: str | None
    centre_mm: tuple[float, float]
    yaw_deg: float
    size_mm: tuple[float, float]
    z_mm: float = 0.0
    thickness_mm: float = CARD_THICKNESS_MM
    face_up: bool = True
    game: str | None = None
    value: int | None = None
    front: int | None = None
    die_style: Any = None
    art_seed: int | None = None
    layout: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    group: str = ""

    @property
    def top_mm(self) -> float:
        """Height of the piece's top surface."""
        return self.z_mm + self.thickness_mm

    def local_to_table(self, points: np.ndarray) -> np.ndarray:
        """Map (n, 2) points in the piece frame (mm, centre at 0) to table mm."""
        a = math.radians(self.yaw_deg)
        c, s = math.cos(a), math.sin(a)
        pts = np.asarray(points, np.float64).reshape(-1, 2)
        rotated = pts @ np.array([[c, s], [-s, c]])
        return rotated + np.asarray(self.centre_mm, np.float64)

    def face_corners_mm(self, z: float | None = None) -> np.ndarray:
        """(4, 3) table-frame corners of the visible face at height `z` (default: the top).

        For a face-down piece the visible side is the back, whose printed top-left lies over the
        face's top-right: the corners list the back's own TL, TR, BR, BL.
        """
        w, h = self.size_mm
        local = np.array([[-w / 2, h / 2], [w / 2, h / 2], [w / 2, -h / 2], [-w / 2, -h / 2]])
        if not self.face_up:
            local = local[[1, 0, 3, 2]]
        xy = self.local_to_table(local)
        height = self.top_mm if z is None else z
        return np.hstack([xy, np.full((4, 1), height)])

    def moved(
        self, dx: float, dy: float, dyaw: float = 0.0, about: tuple[float, float] = (0.0, 0.0)
    ) -> PlacedPiece:
        """The piece after the whole arrangement is turned by `dyaw` about `about`, then shifted."""
        a = math.radians(dyaw)
        c, s = math.cos(a), math.sin(a)
        x, y = self.centre_mm[0] - about[0], self.centre_mm[1] - about[1]
        centre = (about[0] + c * x - s * y + dx, about[1] + s * x + c * y + dy)
        return replace(self, centre_mm=centre, yaw_deg=self.yaw_deg + dyaw)

    def to_json(self) -> dict[str, Any]:
        """The description as JSON (die style by name)."""
        out = {
            "kind": self.kind,
            "identity": self.identity,
            "centre_mm": [round(float(v), 3) for v in self.centre_mm],
            "yaw_deg": round(float(self.yaw_deg), 3),
            "size_mm": [round(float(v), 3) for v in self.size_mm],
            "z_mm": round(float(self.z_mm), 3),
            "face_up": self.face_up,
            "group": self.group,
        }
        if self.kind == "die":
            out["value"] = self.value
            out["front"] = self.front
            out["die_style"] = style_name(self.die_style)
        if self.art_seed is not None:
            out["art_seed"] = self.art_seed
        return out


def style_name(style: Any) -> str | None:
    """A readable name for a die style (its `name` attribute, else its repr)."""
    if style is None:
        return None
    for attribute in ("name", "family"):
        name = getattr(style, attribute, None)
        if name:
            shape = getattr(style, "pip_shape", None)
            return f"{name}/{shape}" if shape else str(name)
    return repr(style)


@dataclass(frozen=True)
class Distractor:
    """Something on the table that is not a piece: coin, pen, pad, cup, cable, tray or hand.

    `params` holds what the drawer needs (all JSON values); `z_mm` orders it among flat pieces.
    """

    kind: str
    params: dict[str, Any]
    z_mm: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """The description as JSON."""
        return {"kind": self.kind, "z_mm": round(self.z_mm, 3), **_round(self.params)}


def _round(value: Any) -> Any:
    if isinstance(value, float):
        return round(value, 3)
    if isinstance(value, dict):
        return {k: _round(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_round(v) for v in value]
    return value


@dataclass(frozen=True)
class TableScene:
    """What lies on the table: pieces (stacking order), distractors, and where the action is.

    Attributes:
        pieces: placed pieces, bottom first.
        distractors: non-pieces.
        focus: (x, y, radius) areas in mm a camera may frame (whole scene first).
        game: the game the scene shows (None: mixed).
    """

    pieces: tuple[PlacedPiece, ...]
    distractors: tuple[Distractor, ...] = ()
    focus: tuple[tuple[float, float, float], ...] = ()
    game: str | None = None
