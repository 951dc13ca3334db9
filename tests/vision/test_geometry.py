"""Plane geometry shared by datasets and vision: homographies, corner order, boxes, polygons."""

from __future__ import annotations

import numpy as np
import pytest

from vision import geometry as g


def test_rect_corners_are_tl_tr_br_bl():
    assert g.rect_corners(4, 3).tolist() == [[0, 0], [4, 0], [4, 3], [0, 3]]
    assert g.CORNER_NAMES == ("top-left", "top-right", "bottom-right", "bottom-left")


def test_homography_maps_the_corners_it_was_built_from():
    src = g.rect_corners(100, 150)
    dst = np.array([[10.0, 20.0], [110.0, 30.0], [120.0, 190.0], [5.0, 170.0]])
    matrix = g.homography_from_corners(src, dst)
    np.testing.assert_allclose(g.project_points(matrix, src), dst, atol=1e-6)
    # the centre of the face maps inside the quad
    centre = g.project_points(matrix, np.array([[50.0, 75.0]]))[0]
    assert 5 < centre[0] < 120 and 20 < centre[1] < 190


@pytest.mark.parametrize(
    ("src", "dst", "message"),
    [
        (np.zeros((3, 2)), np.zeros((4, 2)), "src corners must have shape"),
        (np.zeros((4, 2)), np.zeros((4, 3)), "dst corners must have shape"),
    ],
)
def test_homography_rejects_bad_shapes(src, dst, message):
    with pytest.raises(ValueError, match=message):
        g.homography_from_corners(src, dst)


def test_project_points_marks_points_behind_the_camera():
    flip = np.diag([1.0, 1.0, -1.0])
    assert np.all(np.isinf(g.project_points(flip, np.array([[1.0, 2.0]]))))


def test_box_from_corners_and_area():
    corners = np.array([[3.0, 4.0], [9.0, 1.0], [8.0, 7.0], [2.0, 6.0]])
    assert g.box_from_corners(corners).tolist() == [2, 1, 9, 7]
    assert g.box_area(np.array([2, 1, 9, 7])) == pytest.approx(42)
    assert g.box_area(np.array([5, 5, 4, 9])) == 0


def test_clip_box_to_image():
    assert g.clip_box(np.array([-5, 10, 700, 500]), 640, 480).tolist() == [0, 10, 640, 480]


@pytest.mark.parametrize(
    ("points", "area"),
    [
        ([[0, 0], [2, 0], [2, 2], [0, 2]], 4.0),
        ([[0, 0], [4, 0], [0, 3]], 6.0),
        ([[0, 0], [1, 1]], 0.0),
    ],
)
def test_polygon_area(points, area):
    assert g.polygon_area(np.array(points, float)) == pytest.approx(area)


def test_clip_polygon_and_visible_fraction_at_the_border():
    square = np.array([[-10.0, 0.0], [10.0, 0.0], [10.0, 10.0], [-10.0, 10.0]])
    clipped = g.clip_polygon_to_rect(square, 0, 0, 100, 100)
    assert g.polygon_area(clipped) == pytest.approx(100)
    assert g.visible_fraction_in_rect(square, 100, 100) == pytest.approx(0.5)
    outside = square + [500, 0]
    assert g.visible_fraction_in_rect(outside, 100, 100) == 0.0
    assert g.clip_polygon_to_rect(outside, 0, 0, 100, 100).shape == (0, 2)


def test_is_convex_clockwise_on_screen():
    quad = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)  # clockwise with y down
    assert g.is_convex_clockwise(quad)
    assert not g.is_convex_clockwise(quad[::-1])
    assert not g.is_convex_clockwise(quad[[0, 2, 1, 3]])  # a bow tie


def test_order_corners_clockwise_is_independent_of_input_order():
    quad = np.array([[12, 3], [40, 8], [35, 30], [9, 25]], float)
    rng = np.random.default_rng(3)
    for _ in range(5):
        shuffled = quad[rng.permutation(4)]
        np.testing.assert_allclose(g.order_corners_clockwise(shuffled), quad)


def test_quad_overlap_is_the_shared_area_over_the_smaller_quad() -> None:
    from vision.geometry import quad_overlap

    big = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float64)
    inner = np.array([[2, 2], [6, 2], [6, 6], [2, 6]], np.float64)
    half = np.array([[5, 0], [15, 0], [15, 10], [5, 10]], np.float64)
    assert quad_overlap(big, inner) == pytest.approx(1.0)
    assert quad_overlap(big, half) == pytest.approx(0.5)
    assert quad_overlap(big, big + 20) == 0.0
    assert quad_overlap(big, np.full((4, 2), np.nan)) == 0.0


def test_clockwise_quad_keeps_or_reverses_the_order_and_refuses_a_bow_tie():
    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], float)
    np.testing.assert_array_equal(g.clockwise_quad(square), square)
    # counter-clockwise on screen: read in reverse, from the same first corner
    np.testing.assert_array_equal(g.clockwise_quad(square[[0, 3, 2, 1]]), square)
    assert g.clockwise_quad(square[[0, 2, 1, 3]]) is None  # crossing edges
    assert g.clockwise_quad(np.array([[0, 0], [np.nan, 0], [1, 1], [0, 1]])) is None
