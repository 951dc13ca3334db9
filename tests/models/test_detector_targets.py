"""Detector training targets decode back to the boxes they were made from (no torch needed)."""

from __future__ import annotations

import numpy as np

from models.train_detector import STRIDE, gaussian_radius, make_sample
from vision.detector import decode_maps


def objects() -> list[dict]:
    return [
        {"kind": "die", "box": [100, 100, 140, 136], "target": True, "value": 3},
        {
            "kind": "card",
            "box": [200, 50, 300, 200],
            "target": True,
            "corners": [[200, 50], [300, 50], [300, 200], [200, 200]],
        },
        {"kind": "tile", "box": [10, 10, 30, 30], "target": False},
    ]


def test_targets_decode_to_the_transformed_boxes() -> None:
    image = np.full((240, 320, 3), 120, np.uint8)
    rng = np.random.default_rng(3)
    _, t = make_sample(image, objects(), rng, 256)
    out = 256 // STRIDE
    heat = (t["heat"] == 1).astype(np.float32)
    size = np.zeros((2, out, out), np.float32)
    offset = np.zeros((2, out, out), np.float32)
    corners = np.zeros((8, out, out), np.float32)
    for i in np.flatnonzero(t["mask"]):
        y, x = divmod(int(t["index"][i]), out)
        size[:, y, x] = t["wh"][i]
        offset[:, y, x] = t["offset"][i]
        corners[:, y, x] = t["corners"][i].reshape(8)
    boxes, _, kinds, corner_pts = decode_maps(
        heat, size, offset, corners, np.full(3, 0.5, np.float32)
    )
    n = int(t["mask"].sum())
    assert len(boxes) == n
    # box sizes keep the aspect ratio of the originals (the crop only scales and shifts)
    for box, kind in zip(boxes, kinds, strict=True):
        w, h = box[2] - box[0], box[3] - box[1]
        expected = 40 / 36 if kind == 2 else 100 / 150
        np.testing.assert_allclose(w / h, expected, rtol=0.02)
    # card corners come back as the box's corners
    for box, kind, c in zip(boxes, kinds, corner_pts, strict=True):
        if kind == 0:
            np.testing.assert_allclose(c.min(axis=0), box[:2], atol=0.5)
            np.testing.assert_allclose(c.max(axis=0), box[2:], atol=0.5)


def test_non_targets_are_ignored_not_negative() -> None:
    image = np.full((240, 320, 3), 120, np.uint8)
    _, t = make_sample(image, objects(), np.random.default_rng(3), 256)
    assert t["heat"][1].max() < 1.0  # the tile is not a target


def test_gaussian_radius_grows_with_the_box() -> None:
    assert gaussian_radius(2, 2) < gaussian_radius(10, 10) < gaussian_radius(40, 40)
