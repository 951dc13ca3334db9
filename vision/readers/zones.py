"""Table zones: named areas of the camera image where the pieces of a game lie.

A zone is a polygon in normalised image coordinates (0..1 across and down), so one set of zones
fits any frame size. Defaults are the table areas of a game (in table millimetres, see
`TABLE_AREAS_MM`) seen by a tablet standing at the table's edge (`TabletPose`): the same table
layout the renderer's `datasets.state_render` uses. The user edits them (drag the corners in the
app) and they are saved per user in the user data folder (``$TABLE_COMPANION_HOME`` when set),
written atomically.

King's Breakfast: ``offer``, ``king``, ``emeralds``, ``reveal``. Dice King: ``row:0`` … ``row:4``,
``village:0`` … ``village:4``, ``penalty``, ``dice`` and ``kingdom:0`` … ``kingdom:4``.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.geometry import change_aspect

HOME_ENV = "TABLE_COMPANION_HOME"
APP_NAME = "table-companion"


@dataclass(frozen=True)
class TabletPose:
    """Where the tablet stands: the table point it looks at, distance, tilt from vertical, field.

    The tablet stands at the table's near edge (negative y) and looks towards +y.
    """

    target_mm: tuple[float, float]
    distance_mm: float
    tilt_deg: float
    hfov_deg: float = 68.0


DEFAULT_POSES: dict[str, TabletPose] = {
    "kings-breakfast": TabletPose((0.0, 250.0), 1100.0, 45.0),
    "dice-king": TabletPose((0.0, 0.0), 1000.0, 35.0),
}

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in table mm


def _dk_areas() -> dict[str, Rect]:
    areas: dict[str, Rect] = {}
    for k in range(5):
        x = (k - 2) * 78.0
        areas[f"row:{k}"] = (x - 39.0, -60.0, x + 39.0, 55.0)
        areas[f"village:{k}"] = (x - 39.0, 58.0, x + 39.0, 170.0)
    areas["penalty"] = (250.0, 55.0, 350.0, 170.0)
    areas["dice"] = (-150.0, -185.0, 150.0, -62.0)
    for n_players in (5,):
        for player in range(n_players):
            x = (player - (n_players - 1) / 2) * 110.0
            areas[f"kingdom:{player}"] = (x - 55.0, -310.0, x + 55.0, -190.0)
    return areas


TABLE_AREAS_MM: dict[str, dict[str, Rect]] = {
    "kings-breakfast": {
        "offer": (-330.0, -200.0, 330.0, 285.0),
        "king": (-330.0, 285.0, 330.0, 1200.0),
        "emeralds": (400.0, -200.0, 560.0, 285.0),
        "reveal": (-560.0, -200.0, -400.0, 285.0),
    },
    "dice-king": _dk_areas(),
}


def kingdom_areas_mm(n_players: int) -> dict[str, Rect]:
    """Dice King kingdom piles along the near edge, centred, 110 mm apart (player order)."""
    out = {}
    for player in range(n_players):
        x = (player - (n_players - 1) / 2) * 110.0
        out[f"kingdom:{player}"] = (x - 55.0, -310.0, x + 55.0, -190.0)
    return out


def project_table_points(
    points_mm: np.ndarray, pose: TabletPose, size: tuple[int, int]
) -> np.ndarray:
    """Table points (n, 2) mm → pinhole image pixels (n, 2) for a tablet at `pose`.

    The same pinhole model as the renderer's `look_at_table` (azimuth 90°, no roll, no lens).
    """
    width, height = size
    theta = math.radians(pose.tilt_deg)
    look = np.array([0.0, 1.0, 0.0])
    up = np.array([0.0, 0.0, 1.0])
    target = np.array([pose.target_mm[0], pose.target_mm[1], 0.0])
    centre = target + pose.distance_mm * (-math.sin(theta) * look + math.cos(theta) * up)
    forward = math.sin(theta) * look - math.cos(theta) * up
    y_axis = -(math.cos(theta) * look + math.sin(theta) * up)
    x_axis = np.cross(y_axis, forward)
    rotation = np.vstack([x_axis, y_axis, forward])
    pts = np.asarray(points_mm, float).reshape(-1, 2)
    cam = (np.column_stack([pts, np.zeros(len(pts))]) - centre) @ rotation.T
    focal = (width / 2.0) / math.tan(math.radians(pose.hfov_deg) / 2.0)
    return cam[:, :2] / np.maximum(cam[:, 2:3], 1e-6) * focal + np.array([width / 2, height / 2])


@dataclass(frozen=True)
class Zones:
    """Named polygons in normalised image coordinates (x, y in 0..1); the first match wins.

    `aspect` is the width / height of the frames the polygons were drawn for (the defaults:
    4:3); frames of another aspect from the same camera are matched through `change_aspect`.
    None (zones files saved before it was recorded): the polygons are the frame's own
    fractions, whatever its shape.
    """

    game: str
    polygons: dict[str, np.ndarray]
    aspect: float | None = None

    def in_frame(self, frame_size: tuple[int, int]) -> Zones:
        """The zones in the normalised coordinates of a frame of `frame_size` (width, height)."""
        width, height = frame_size
        frame_aspect = width / height
        if self.aspect is None or abs(frame_aspect - self.aspect) < 1e-9:
            return Zones(self.game, self.polygons, frame_aspect)
        polygons = {
            name: np.column_stack([p[:, 0], change_aspect(p[:, 1], self.aspect, frame_aspect)])
            for name, p in self.polygons.items()
        }
        return Zones(self.game, polygons, frame_aspect)

    def zone_of(self, points_px: np.ndarray, frame_size: tuple[int, int]) -> list[str | None]:
        """The zone of each image point (n, 2) px, or None outside every zone."""
        width, height = frame_size
        pts = np.asarray(points_px, float).reshape(-1, 2) / np.array([width, height], float)
        if self.aspect is not None:
            pts[:, 1] = change_aspect(pts[:, 1], width / height, self.aspect)
        out: list[str | None] = [None] * len(pts)
        for name, polygon in self.polygons.items():
            inside = _inside(pts, polygon)
            for i in np.nonzero(inside)[0]:
                if out[i] is None:
                    out[i] = name
        return out

    def bounds(self, name: str, margin: float = 0.0) -> tuple[float, float, float, float]:
        """The zone's bounding rectangle (x0, y0, x1, y1, normalised), widened on every side by
        `margin` × its size and kept inside the frame.

        Raises:
            KeyError: no zone of that name.
        """
        if name not in self.polygons:
            raise KeyError(f"no zone {name!r} (zones: {', '.join(self.polygons)})")
        points = self.polygons[name]
        (x0, y0), (x1, y1) = points.min(axis=0), points.max(axis=0)
        dx, dy = margin * (x1 - x0), margin * (y1 - y0)
        return (
            float(max(0.0, x0 - dx)),
            float(max(0.0, y0 - dy)),
            float(min(1.0, x1 + dx)),
            float(min(1.0, y1 + dy)),
        )

    def to_json(self) -> dict[str, object]:
        """JSON: the game and each zone's corners."""
        data: dict[str, object] = {
            "game": self.game,
            "zones": {name: np.round(p, 5).tolist() for name, p in self.polygons.items()},
        }
        if self.aspect is not None:
            data["aspect"] = round(self.aspect, 6)
        return data

    @classmethod
    def from_json(cls, data: object) -> Zones:
        """Read `to_json` output.

        Raises:
            ValueError: not a zones object, or a zone that is not 3+ points in 0..1.
        """
        if not isinstance(data, Mapping) or not isinstance(data.get("zones"), Mapping):
            raise ValueError("zones file must be an object with 'game' and 'zones'")
        polygons = {}
        for name, points in data["zones"].items():
            array = np.asarray(points, float)
            if array.ndim != 2 or array.shape[1] != 2 or len(array) < 3:
                raise ValueError(f"zone {name!r} must be a list of 3 or more [x, y] points")
            if np.any(array < -0.5) or np.any(array > 1.5):
                raise ValueError(f"zone {name!r} must use image fractions (0..1)")
            polygons[str(name)] = array
        aspect = data.get("aspect")
        if aspect is not None and (
            isinstance(aspect, bool)
            or not isinstance(aspect, (int, float))
            or not 0.2 <= aspect <= 5.0
        ):
            raise ValueError(f"zones 'aspect' must be a frame's width / height, got {aspect!r}")
        return cls(str(data.get("game", "")), polygons, None if aspect is None else float(aspect))


def _inside(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Even-odd point in polygon for many points (vectorised over points)."""
    x, y = points[:, 0:1], points[:, 1:2]
    px, py = polygon[:, 0], polygon[:, 1]
    qx, qy = np.roll(px, -1), np.roll(py, -1)
    crosses = ((py > y) != (qy > y)) & (
        x < (qx - px) * (y - py) / np.where(qy == py, 1e-12, qy - py) + px
    )
    return (np.count_nonzero(crosses, axis=1) % 2) == 1


def default_zones(game: str, *, n_players: int = 5, pose: TabletPose | None = None) -> Zones:
    """The default zones of `game` for a tablet at the table's edge.

    Raises:
        ValueError: a game without zones.
    """
    if game not in TABLE_AREAS_MM:
        raise ValueError(f"no zones for game {game!r} (known: {', '.join(TABLE_AREAS_MM)})")
    pose = pose or DEFAULT_POSES[game]
    areas = dict(TABLE_AREAS_MM[game])
    if game == "dice-king":
        areas = {k: v for k, v in areas.items() if not k.startswith("kingdom:")}
        areas.update(kingdom_areas_mm(n_players))
    size = (1000, 750)  # any 4:3 size: the result is normalised
    polygons = {}
    for name, (x0, y0, x1, y1) in areas.items():
        corners = np.array([[x0, y1], [x1, y1], [x1, y0], [x0, y0]], float)
        polygons[name] = project_table_points(corners, pose, size) / np.array(size, float)
    return Zones(game, polygons, size[0] / size[1])


def zones_file(game: str, home: Path | None = None) -> Path:
    """Where the user's zones of `game` are saved."""
    if home is None:
        override = os.environ.get(HOME_ENV, "").strip()
        if override:
            home = Path(override).expanduser()
        else:
            import platformdirs

            home = Path(platformdirs.user_data_dir(APP_NAME))
    return home / "zones" / f"{game}.json"


def save_zones(zones: Zones, home: Path | None = None) -> Path:
    """Save the user's zones (atomically: a temporary file, then rename)."""
    path = zones_file(zones.game, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(zones.to_json(), handle)
    os.replace(tmp, path)
    return path


def load_zones(game: str, home: Path | None = None, *, n_players: int = 5) -> Zones:
    """The user's saved zones of `game`, else the defaults."""
    path = zones_file(game, home)
    if path.exists():
        return Zones.from_json(json.loads(path.read_text(encoding="utf-8")))
    return default_zones(game, n_players=n_players)


__all__ = [
    "DEFAULT_POSES",
    "TABLE_AREAS_MM",
    "TabletPose",
    "Zones",
    "default_zones",
    "kingdom_areas_mm",
    "load_zones",
    "project_table_points",
    "save_zones",
    "zones_file",
]
