"""Stage 5: which 1 or 2 tables each chair touches (`assign_chairs`)."""

from __future__ import annotations

import numpy as np

from vision.layout_trace.config import TraceConfig


def assign_chairs(
    chairs: np.ndarray, sides: np.ndarray, tables: np.ndarray, config: TraceConfig | None = None
) -> list[tuple[int, ...]]:
    """For each chair, the indexes of the 1 or 2 nearest tables it touches (possibly none).

    The gap between a chair and a table is the distance between their centres less the table's
    radius and half the chair's side; the chair touches the table when the gap is at most
    ``touch_gap`` chair sides.
    """
    config = config or TraceConfig()
    result: list[tuple[int, ...]] = []
    for (x, y), side in zip(chairs, sides, strict=True):
        d = np.hypot(tables[:, 0] - x, tables[:, 1] - y)
        gap = d - tables[:, 2] - side / 2
        touching = [int(i) for i in np.argsort(gap) if gap[i] <= config.touch_gap * side]
        result.append(tuple(sorted(touching[:2])))
    return result
