"""The pinhole camera: plane homographies, projection, lens distortion and its inverse."""

from __future__ import annotations

import math

import numpy as np
import pytest

from datasets.render.camera import look_at_table
from vision.geometry import project_points


def _camera(**overrides):
    params = dict(
        target_mm=(30.0, -20.0),
        distance_mm=500.0,
        tilt_deg=35.0,
        azimuth_deg=120.0,
        roll_deg=5.0,
        hfov_deg=60.0,
        k1=0.0,
    )
    params.update(overrides)
    return look_at_table(640, 480, **params)


def test_target_projects_to_the_image_centre():
    camera = _camera()
    centre = camera.project_pinhole(np.array([[30.0, -20.0, 0.0]]))[0]
    np.testing.assert_allclose(centre, [320, 240], atol=1e-6)


def test_camera_sits_at_the_distance_and_tilt_asked():
    camera = _camera()
    offset = camera.position - np.array([30.0, -20.0, 0.0])
    assert np.linalg.norm(offset) == pytest.approx(500.0)
    tilt = math.degrees(math.acos(offset[2] / np.linalg.norm(offset)))
    assert tilt == pytest.approx(35.0)


@pytest.mark.parametrize("z", [0.0, 16.0])
def test_plane_homography_agrees_with_3d_projection(z):
    camera = _camera()
    pts = np.array([[0.0, 0.0], [50.0, 10.0], [-40.0, 70.0]])
    via_h = project_points(camera.plane_homography(z), pts)
    via_3d = camera.project_pinhole(np.hstack([pts, np.full((3, 1), z)]))
    np.testing.assert_allclose(via_h, via_3d, atol=1e-6)


def test_straight_down_view_keeps_right_angles():
    camera = _camera(tilt_deg=0.0, roll_deg=0.0)
    square = np.array([[0, 0, 0], [40, 0, 0], [40, 40, 0], [0, 40, 0]], float)
    px = camera.project_pinhole(square)
    a, b = px[1] - px[0], px[3] - px[0]
    assert abs(np.dot(a, b)) < 1e-6 * np.linalg.norm(a) * np.linalg.norm(b)
    assert np.linalg.norm(a) == pytest.approx(np.linalg.norm(b))


def test_distortion_maps_invert_distort_points():
    camera = _camera(k1=0.15)
    assert camera.has_distortion
    map_x, map_y = camera.distortion_maps()
    rng = np.random.default_rng(0)
    distorted = np.column_stack([rng.integers(0, 640, 20), rng.integers(0, 480, 20)])
    pinhole = np.column_stack(
        [map_x[distorted[:, 1], distorted[:, 0]], map_y[distorted[:, 1], distorted[:, 0]]]
    )
    np.testing.assert_allclose(camera.distort_points(pinhole), distorted, atol=1e-3)


def test_distortion_keeps_the_image_corners_and_centre():
    camera = _camera(k1=0.15)
    corners = np.array([[0.0, 0.0], [640.0, 480.0], [320.0, 240.0]])
    np.testing.assert_allclose(camera.distort_points(corners), corners, atol=1e-6)
    # barrel with fixed corners: the centre is magnified, so the pinhole edge midpoint leaves
    # the frame (magnification falls off towards the corners)
    edge = camera.distort_points(np.array([[640.0, 240.0]]))[0]
    assert edge[0] > 640.0
