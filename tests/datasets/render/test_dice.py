"""Dice as cubes: real face arrangement, top-face corners from the pose."""

from __future__ import annotations

import math

import numpy as np
import pytest

from datasets.render import dice
from datasets.render.pieces import PlacedPiece


@pytest.mark.parametrize("top", range(1, 7))
def test_side_values_form_a_real_die(top):
    for front in dice.possible_fronts(top):
        faces = dice.side_values(top, front)
        assert set(faces.values()) == set(range(1, 7)) - {7 - top}
        assert faces["front"] + faces["back"] == 7
        assert faces["left"] + faces["right"] == 7


def test_side_values_reject_an_impossible_front():
    with pytest.raises(ValueError, match="cannot neighbour"):
        dice.side_values(2, 5)


def test_die_chirality_is_the_same_for_every_orientation():
    # the corner where 1, 2 and 3 meet always turns the same way
    def handedness(top: int, front: int) -> float:
        faces = dice.side_values(top, front)
        axes = {
            "top": (0, 0, 1),
            "front": (0, -1, 0),
            "right": (1, 0, 0),
            "back": (0, 1, 0),
            "left": (-1, 0, 0),
        }
        axis = {v: np.array(axes[k]) for k, v in faces.items()}
        axis[7 - top] = -axis[top]
        return float(np.dot(np.cross(axis[1], axis[2]), axis[3]))

    signs = {np.sign(handedness(t, f)) for t in range(1, 7) for f in dice.possible_fronts(t)}
    assert len(signs) == 1


def test_top_corners_follow_the_pose():
    die = PlacedPiece("die", None, (40.0, -10.0), 30.0, (16.0, 16.0), 3.0, 16.0, value=5, front=1)
    corners = dice.top_corners_mm(die)
    a = math.radians(30.0)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    local = np.array([[-8, 8], [8, 8], [8, -8], [-8, -8]], float)
    expected_xy = local @ rot.T + [40.0, -10.0]
    np.testing.assert_allclose(corners[:, :2], expected_xy, atol=1e-9)
    np.testing.assert_allclose(corners[:, 2], 19.0)
