"""`vision.pips.count_pips`: the plain pip counter on drawn dice (answers known by construction)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.dice_reader import crop_dice
from vision.pips import count_pips

# pip centres of each value on a unit face (the usual layout)
LAYOUT = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.2), (0.75, 0.2), (0.25, 0.5), (0.75, 0.5), (0.25, 0.8), (0.75, 0.8)],
}


def drawn_die(
    value: int,
    *,
    side: int = 60,
    body: tuple[int, int, int] = (235, 235, 235),
    pip: tuple[int, int, int] = (20, 20, 20),
    table: tuple[int, int, int] = (90, 120, 150),
) -> tuple[np.ndarray, np.ndarray]:
    """A frame with one flat die face of `value` and the die's box."""
    frame = np.full((200, 200, 3), table, np.uint8)
    x0, y0 = 70, 60
    cv2.rectangle(frame, (x0, y0), (x0 + side, y0 + side), body, -1)
    for u, v in LAYOUT[value]:
        centre = (round(x0 + u * side), round(y0 + v * side))
        cv2.circle(frame, centre, max(2, side // 10), pip, -1, lineType=cv2.LINE_AA)
    return frame, np.array([[x0, y0, x0 + side, y0 + side]], np.float32)


@pytest.mark.parametrize("value", [1, 2, 3, 4, 5, 6])
def test_counts_black_pips_on_white(value: int) -> None:
    frame, box = drawn_die(value)
    result = count_pips(crop_dice(frame, box, size=40)[0])
    assert (result.count, result.confidence) == (value, 1.0)


@pytest.mark.parametrize("value", [1, 4, 6])
def test_counts_coloured_pips_on_wood(value: int) -> None:
    frame, box = drawn_die(value, body=(155, 201, 232), pip=(40, 40, 200), side=80)
    assert count_pips(crop_dice(frame, box, size=48)[0]).count == value


def test_blank_crop_is_unsure() -> None:
    blank = np.full((40, 40, 3), 128, np.uint8)
    assert count_pips(blank).count == 0
    assert count_pips(blank).confidence == 0.0


def test_too_small_or_grey_crop_is_unsure() -> None:
    assert count_pips(np.zeros((8, 8, 3), np.uint8)).count == 0
    assert count_pips(np.zeros((40, 40), np.uint8)).count == 0


def test_does_not_modify_the_crop() -> None:
    frame, box = drawn_die(5)
    crop = crop_dice(frame, box, size=40)[0]
    before = crop.copy()
    count_pips(crop)
    np.testing.assert_array_equal(crop, before)
