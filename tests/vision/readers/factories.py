"""Small factories of `Detections` for reader tests: cards, tiles and dice at given points."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.detections import Detections


def piece(
    kind: str,
    centre: Sequence[float],
    identity: str | None = None,
    *,
    half: float = 10.0,
    value: int = 0,
    colour: str | None = None,
) -> dict:
    """One detection record: an axis-aligned square of side 2 × `half` px around `centre`."""
    x, y = centre
    return {
        "kind": kind,
        "centre": (float(x), float(y)),
        "identity": identity,
        "half": half,
        "value": value,
        "colour": colour,
    }


def detections(pieces: Sequence[dict]) -> Detections:
    """Detections holding `pieces` (see `piece`)."""
    n = len(pieces)
    boxes = np.zeros((n, 4), np.float32)
    corners = np.full((n, 4, 2), np.nan, np.float32)
    for i, p in enumerate(pieces):
        (x, y), h = p["centre"], p["half"]
        boxes[i] = (x - h, y - h, x + h, y + h)
        if p["kind"] != "die":
            corners[i] = ((x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h))
    det = Detections.from_boxes(boxes, np.ones(n, np.float32), [p["kind"] for p in pieces], corners)
    ids = np.empty(n, dtype=object)
    ids[:] = [p["identity"] for p in pieces]
    cols = np.empty(n, dtype=object)
    cols[:] = [p["colour"] for p in pieces]
    return det.with_fields(
        identities=ids,
        identity_scores=np.array([1.0 if p["identity"] else 0.0 for p in pieces], np.float32),
        die_values=np.array([p["value"] for p in pieces], np.int64),
        die_colours=cols,
        die_value_scores=np.array([1.0 if p["value"] else 0.0 for p in pieces], np.float32),
    )


def zone_point(zones, name: str, size: tuple[int, int], shift: float = 0.0) -> tuple[float, float]:
    """A point well inside zone `name` (its centroid, moved by `shift` of its width), in px."""
    polygon = zones.polygons[name]
    centre = polygon.mean(axis=0)
    width = polygon[:, 0].max() - polygon[:, 0].min()
    return ((centre[0] + shift * width) * size[0], centre[1] * size[1])
