"""`vision.dice_reader`: crops cut from the full frame, and the committed die reader model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.vision.test_pips import drawn_die
from vision.dice_reader import COLOUR_CLASSES, DEFAULT_MODEL, DiceReader, crop_dice
from vision.errors import ModelError


def square_frame(box: tuple[int, int, int, int], colour: tuple[int, int, int]) -> np.ndarray:
    frame = np.zeros((100, 160, 3), np.uint8)
    x1, y1, x2, y2 = box
    frame[y1:y2, x1:x2] = colour
    return frame


@pytest.mark.parametrize(
    ("box", "size"),
    [
        ((40, 30, 60, 50), 40),
        ((20, 10, 90, 80), 40),
        ((70, 40, 74, 44), 20),
        ((0, 0, 100, 100), 24),
    ],
)
def test_crop_centres_the_box_with_margin(box: tuple[int, int, int, int], size: int) -> None:
    frame = square_frame(box, (10, 200, 30))
    crop = crop_dice(frame, np.array([box], np.float32), size=size, margin=0.25)[0]
    assert crop.shape == (size, size, 3) and crop.dtype == np.uint8
    # the box fills the middle 1/1.5 of the crop: its centre is the square's colour
    np.testing.assert_allclose(crop[size // 2, size // 2], (10, 200, 30), atol=2)
    if box[0] > 10 and box[2] < 150:
        # the margin shows the background (black) at the crop's corners
        assert crop[0, 0].max() < 40


def test_crop_outside_the_frame_repeats_the_border() -> None:
    frame = square_frame((0, 0, 160, 100), (50, 60, 70))
    crop = crop_dice(frame, np.array([[-20, -20, 10, 10]], np.float32), size=32)[0]
    np.testing.assert_allclose(crop.reshape(-1, 3).mean(axis=0), (50, 60, 70), atol=1)


def test_crop_of_no_boxes_is_empty_and_frame_untouched() -> None:
    frame = square_frame((1, 1, 5, 5), (1, 2, 3))
    before = frame.copy()
    assert crop_dice(frame, np.zeros((0, 4)), size=40).shape == (0, 40, 40, 3)
    crop_dice(frame, np.array([[0, 0, 50, 50]]), size=40)
    np.testing.assert_array_equal(frame, before)


def test_missing_model_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="die reader model not found"):
        DiceReader(tmp_path / "nope.onnx")


needs_model = pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no committed die reader")


@needs_model
def test_committed_reader_outputs_probabilities_and_scores() -> None:
    reader = DiceReader()
    crops = []
    for value in range(1, 7):
        frame, box = drawn_die(value)
        crops.append(crop_dice(frame, box, size=reader.config.crop_size)[0])
    readings = reader.read_crops(np.stack(crops))
    assert readings.values.shape == (6,)
    np.testing.assert_allclose(readings.value_probabilities.sum(axis=1), 1.0, atol=1e-4)
    assert ((readings.scores >= 0) & (readings.scores <= 1)).all()
    assert set(readings.colours) <= set(COLOUR_CLASSES)
    assert len(reader.read_crops(np.zeros((0, 40, 40, 3), np.uint8)).values) == 0
