"""Stage 8 and the orchestrator: `trace_layout` runs the stages in the order of the package's
diagram and builds the design's layout JSON (default bar values), validated by the engine's
loader; every problem and every unsure guess is listed in the `Trace`."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from engines.cafe_international.layout import (
    STOOLS,
    layout_from_json,
    layout_to_json,
    reference_layout,
)
from engines.errors import MalformedError
from vision.layout_trace._common import Point, _check_frame
from vision.layout_trace.bar import find_stools
from vision.layout_trace.board import find_board, rectify
from vision.layout_trace.chairs import find_chairs
from vision.layout_trace.config import TraceConfig, TraceError
from vision.layout_trace.flags import TracedTable, guess_nationalities
from vision.layout_trace.tables import _table_stretch, find_tables
from vision.layout_trace.touch import assign_chairs


@dataclass(frozen=True)
class TracedChair:
    """A chair found on the rectified board and the indexes of the tables it touches."""

    center_px: Point
    side_px: float
    tables: tuple[int, ...]


@dataclass(frozen=True)
class Trace:
    """What tracing found, and the layout JSON built from it.

    Attributes:
        corners_px: (4, 2) board corners in the photo, clockwise from the board's top left.
        corners_given: whether the user gave the corners.
        size_px: (width, height) of the rectified board.
        units_per_px: board units per rectified pixel (the board's long side is 1000 units).
        tables, chairs: what was found (chairs touching no table are left out).
        stools: bar stool centres (rectified pixels), numbered clockwise from the top-left one.
        loose_chairs: how many chair-like shapes touched no table.
        layout: the layout JSON object (design contract), with the default bar values.
        problems: what the engine's loader and the tracer's own checks report.
        unsure: guesses the user should confirm.
    """

    corners_px: np.ndarray
    corners_given: bool
    size_px: tuple[int, int]
    units_per_px: float
    tables: tuple[TracedTable, ...]
    chairs: tuple[TracedChair, ...]
    stools: tuple[Point, ...]
    loose_chairs: int
    layout: dict[str, Any]
    problems: tuple[str, ...] = field(default=())
    unsure: tuple[str, ...] = field(default=())

    @property
    def is_valid(self) -> bool:
        """Whether the engine's loader accepts the traced layout as it is."""
        return not self.problems


def _turn_points(points: np.ndarray, k: int, size: tuple[int, int]) -> np.ndarray:
    """Where points (n, 2) of an image of `size` (w, h) land in ``np.rot90(image, k)``."""
    pts = np.asarray(points, np.float64).reshape(-1, 2).copy()
    w, h = size
    for _ in range(k % 4):
        pts = np.stack([pts[:, 1], w - pts[:, 0]], axis=1)
        w, h = h, w
    return pts


def _row_major(points: np.ndarray, row_tolerance: float) -> np.ndarray:
    """Indexes of `points` in reading order: rows top to bottom, then left to right."""
    if len(points) == 0:
        return np.zeros(0, int)
    order = np.argsort(points[:, 1], kind="stable")
    rows: list[list[int]] = []
    for i in order:
        if rows and points[i, 1] - points[rows[-1][0], 1] <= row_tolerance:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return np.array([i for row in rows for i in sorted(row, key=lambda j: points[j, 0])])


def _units(point: Sequence[float], per_px: float) -> list[float]:
    return [round(float(point[0]) * per_px, 1), round(float(point[1]) * per_px, 1)]


def _default_bar() -> dict[str, Any]:
    bar = layout_to_json(reference_layout())["bar"]
    return {"values": bar["values"], **({"readings": bar["readings"]} if "readings" in bar else {})}


def trace_layout(
    photo: np.ndarray,
    corners_px: np.ndarray | Sequence[Sequence[float]] | None = None,
    config: TraceConfig | None = None,
    *,
    name: str = "traced",
) -> Trace:
    """Trace a board layout from `photo` (BGR uint8, (H, W, 3)).

    Args:
        corners_px: the board's corners in the photo, clockwise from the board's top left; when
            omitted, the board's outline is searched and the board turned so its flags read best.
        name: the layout's name.

    Raises:
        TraceError: no board outline, bad corners, or no table found on the board.
    """
    config = config or TraceConfig()
    _check_frame(photo)
    given = corners_px is not None
    if given:
        corners = np.asarray(corners_px, np.float64).reshape(4, 2)
    else:
        corners = find_board(photo, config)
    view, _ = rectify(photo, corners, config)
    tables = find_tables(view, config)
    # tables are round: when they look oval, the board's proportions were misjudged (lens,
    # a focal length guessed): stretch the view so they come out round, and look again
    stretch = _table_stretch(view, tables)
    if abs(stretch - 1.0) > 0.03:
        view = cv2.resize(view, (view.shape[1], round(view.shape[0] / stretch)))
        tables = find_tables(view, config)
    if len(tables) == 0:
        raise TraceError(
            "no tables found on the board: no family of round tables was seen (is the photo "
            "sharp, taken from above, with the whole board in view?)"
        )
    traced_tables, turn = guess_nationalities(
        view, tables, config, turns=(0,) if given else (0, 1, 2, 3)
    )
    if turn:
        size = (view.shape[1], view.shape[0])
        centres = _turn_points(tables[:, :2], turn, size)
        tables = np.column_stack([centres, tables[:, 2]])
        traced_tables = [
            TracedTable((float(c[0]), float(c[1])), *_rest(t))
            for c, t in zip(centres, traced_tables, strict=True)
        ]
        view = np.ascontiguousarray(np.rot90(view, turn))
        corners = np.roll(corners, -turn, axis=0)  # the photo corner now at the view's top left
    chairs, sides = find_chairs(view, tables, config)
    # chairs of one board are alike: the typical size stands in for each chair's own, which an
    # outline found only in part (an inner panel) would understate
    typical = np.full(len(sides), float(np.median(sides)) if len(sides) else 0.0)
    touches = assign_chairs(chairs, typical, tables, config)
    loose = sum(1 for t in touches if not t)
    stools = find_stools(view, tables, chairs, config)

    # ids in reading order
    radius = float(np.median(tables[:, 2]))
    table_order = _row_major(tables[:, :2], radius)
    table_rank = {int(old): new for new, old in enumerate(table_order)}
    table_ids = [f"T{i + 1:02d}" for i in range(len(tables))]
    kept = [i for i, t in enumerate(touches) if t]
    chair_points = chairs[kept] if kept else np.zeros((0, 2))
    chair_order = [kept[i] for i in _row_major(chair_points, 0.5 * radius)]
    per_px = 1000.0 / max(view.shape[:2])

    ordered_tables = [traced_tables[i] for i in table_order]
    ordered_chairs = [
        TracedChair(
            (float(chairs[i, 0]), float(chairs[i, 1])),
            float(sides[i]),
            tuple(sorted(table_rank[t] for t in touches[i])),
        )
        for i in chair_order
    ]
    layout: dict[str, Any] = {
        "name": name,
        "description": (
            f"traced from a photo; board units: the board's long side is 1000 units, "
            f"origin at its top-left corner; {sum(not t.sure for t in ordered_tables)} "
            "nationalities to confirm"
        ),
        "tables": [
            {
                "id": table_ids[i],
                "nationality": t.nationality,
                "center": _units(t.center_px, per_px),
                **({} if t.sure else {"unsure": f"or {t.runner_up}? please check"}),
            }
            for i, t in enumerate(ordered_tables)
        ],
        "chairs": [
            {
                "id": f"C{i + 1:02d}",
                "tables": [table_ids[t] for t in c.tables],
                "center": _units(c.center_px, per_px),
            }
            for i, c in enumerate(ordered_chairs)
        ],
        "bar": _default_bar(),
        "traced_from": {
            "corners_px": np.round(corners, 1).tolist(),
            "corners_given": given,
            "board_units": [
                round(view.shape[1] * per_px, 1),
                round(view.shape[0] * per_px, 1),
            ],
        },
    }
    if len(stools) == STOOLS:
        layout["bar"]["stools"] = [_units(p, per_px) for p in stools]

    problems, unsure = _check(layout, ordered_tables, ordered_chairs, table_ids, stools, loose)
    return Trace(
        corners_px=corners,
        corners_given=given,
        size_px=(view.shape[1], view.shape[0]),
        units_per_px=per_px,
        tables=tuple(ordered_tables),
        chairs=tuple(ordered_chairs),
        stools=tuple(stools),
        loose_chairs=loose,
        layout=layout,
        problems=tuple(problems),
        unsure=tuple(unsure),
    )


def _rest(table: TracedTable) -> tuple[Any, ...]:
    return (
        table.radius_px,
        table.nationality,
        table.distance,
        table.runner_up,
        table.runner_up_distance,
        table.sure,
    )


def _check(
    layout: Mapping[str, Any],
    tables: Sequence[TracedTable],
    chairs: Sequence[TracedChair],
    table_ids: Sequence[str],
    stools: Sequence[Point],
    loose: int,
) -> tuple[list[str], list[str]]:
    """Problems (the loader's, which make the layout unusable as is) and guesses to confirm."""
    problems: list[str] = []
    try:
        layout_from_json(layout)
    except MalformedError as error:
        problems = [p.strip() for p in str(error).removeprefix("bad layout:").split(";")]
    unsure: list[str] = []
    for table_id, table in zip(table_ids, tables, strict=True):
        if not table.sure:
            if math.isinf(table.distance):
                unsure.append(f"{table_id}: no flag seen, '{table.nationality}' is a placeholder")
            else:
                unsure.append(f"{table_id}: {table.nationality} or {table.runner_up}?")
    if loose:
        unsure.append(f"{loose} chair-like shapes touch no table and were left out")
    if len(stools) != STOOLS:
        unsure.append(f"found {len(stools)} bar stools, not {STOOLS}: stool positions left out")
    return problems, unsure
