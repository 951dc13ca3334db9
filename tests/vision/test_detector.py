"""`vision.detector`: decoding, NMS and scale choice on small arrays; the committed detector."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.detector import DEFAULT_MODEL, Detector, DetectorConfig, decode_maps, nms_per_kind
from vision.errors import ModelError


def maps_with(peaks: list[tuple[int, int, int, float, float, float]], h: int = 10, w: int = 12):
    """Stride-8 maps holding peaks (kind, y, x, score, box w px, box h px), offsets 0.5."""
    heat = np.zeros((3, h, w), np.float32)
    size = np.zeros((2, h, w), np.float32)
    offset = np.full((2, h, w), 0.5, np.float32)
    corners = np.zeros((8, h, w), np.float32)
    for kind, y, x, score, bw, bh in peaks:
        heat[kind, y, x] = score
        size[:, y, x] = np.log([bw / 8, bh / 8])
        corners[:, y, x] = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32).reshape(8)
    return heat, size, offset, corners


def test_decode_places_boxes_at_peak_centres() -> None:
    maps = maps_with([(2, 3, 4, 0.9, 16, 24), (0, 5, 1, 0.2, 40, 40)])
    boxes, scores, kinds, corners = decode_maps(*maps, np.array([0.3, 0.3, 0.3], np.float32))
    assert kinds.tolist() == [2]  # the weak card peak is under its threshold
    cx, cy = (4 + 0.5) * 8, (3 + 0.5) * 8
    np.testing.assert_allclose(boxes[0], [cx - 8, cy - 12, cx + 8, cy + 12], atol=1e-3)
    np.testing.assert_allclose(scores, [0.9])
    np.testing.assert_allclose(corners[0, 0], [cx - 8, cy - 8], atol=1e-3)


def test_decode_of_empty_maps_is_empty() -> None:
    boxes, scores, kinds, corners = decode_maps(*maps_with([]), np.full(3, 0.3, np.float32))
    assert boxes.shape == (0, 4) and corners.shape == (0, 4, 2) and len(scores) == len(kinds) == 0


def test_nms_keeps_the_best_of_overlapping_boxes_per_kind() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10], [50, 50, 60, 60]], np.float32)
    scores = np.array([0.5, 0.9, 0.7, 0.4], np.float32)
    kinds = np.array([2, 2, 0, 2])
    keep = nms_per_kind(boxes, scores, kinds, 0.5)
    assert keep.tolist() == [1, 2, 3]  # best first; the card overlapping dice is another kind


@pytest.mark.parametrize(
    ("size", "main", "tiled"),
    [
        ((640, 480), 1.0, None),
        ((1280, 720), 0.5, None),
        ((320, 240), 1.0, None),
        ((4032, 3024), 640 / 4032, 0.5),
    ],
)
def test_scales_tile_only_when_small_dice_would_vanish(
    size: tuple[int, int], main: float, tiled: float | None
) -> None:
    detector = Detector.__new__(Detector)
    detector.config = DetectorConfig()
    got_main, got_tiled = detector.scales(*size)
    assert got_main == pytest.approx(main)
    assert got_tiled == (None if tiled is None else pytest.approx(tiled))


def test_missing_model_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="detector model not found"):
        Detector(tmp_path / "missing.onnx")


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no committed detector")
@pytest.mark.parametrize("shape", [(480, 640), (720, 1280), (100, 37), (2000, 2600)])
def test_committed_detector_runs_on_any_size(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 255, (*shape, 3), dtype=np.uint8)
    detections = Detector().detect(frame)
    h, w = shape
    assert (detections.boxes_xyxy[:, [0, 2]] <= w).all()
    assert (detections.boxes_xyxy[:, [1, 3]] <= h).all()
    assert set(detections.kinds) <= {"card", "tile", "die"}


def test_a_small_die_inside_a_big_die_is_dropped() -> None:
    from vision.detector import contained_dice

    boxes = np.array(
        [[0, 0, 40, 40], [10, 10, 16, 16], [38, 38, 60, 60], [12, 12, 18, 18]], np.float32
    )
    kinds = np.array([2, 2, 2, 0])  # the last is a card: never dropped
    assert contained_dice(boxes, kinds, 0.7).tolist() == [False, True, False, False]
