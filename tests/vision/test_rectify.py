"""Rectification: upright face images from quads, and corners refined by aligning the known face."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from datasets import art
from vision.rectify import AlignConfig, align_to_reference, face_size, warp_face, warp_many


def scene_with(
    face: np.ndarray, quad: np.ndarray, size: tuple[int, int] = (800, 600)
) -> np.ndarray:
    fh, fw = face.shape[:2]
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    matrix = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
    frame = np.full((size[1], size[0], 3), (50, 80, 60), np.uint8)
    cv2.warpPerspective(face, matrix, size, frame, borderMode=cv2.BORDER_TRANSPARENT)
    return frame


QUAD = np.array([[250, 120], [520, 150], [500, 540], [210, 500]], np.float64)


def test_face_size_follows_the_piece_aspect() -> None:
    assert face_size(57, 89, 100) == (100, 156)
    assert face_size(24, 24, 64) == (64, 64)
    with pytest.raises(ValueError, match="bad face size"):
        face_size(0, 89, 100)


def test_warp_recovers_the_face_and_leaves_the_frame_alone() -> None:
    face = art.face("dice-king/hypnotist-2", 300)
    frame = scene_with(face, QUAD)
    before = frame.copy()
    w, h = face_size(63, 88, 120)
    warped = warp_face(frame, QUAD, (w, h))
    expected = cv2.resize(face, (w, h), interpolation=cv2.INTER_AREA)
    inner = (slice(6, h - 6), slice(6, w - 6))
    diff = np.abs(warped[inner].astype(int) - expected[inner].astype(int)).mean()
    assert diff < 12
    assert np.array_equal(frame, before)


def test_starting_at_another_corner_turns_the_face_image() -> None:
    face = art.face("cafe-international/spain/m", 200)
    quad = np.array([[200, 100], [500, 110], [490, 410], [195, 400]], np.float64)
    frame = scene_with(face, quad)
    upright = warp_face(frame, quad, (96, 96))
    turned = warp_face(frame, np.roll(quad, -1, axis=0), (96, 96))
    # the printed top-right corner first: the face turned a quarter counter-clockwise
    diffs = [np.abs(np.rot90(upright, k).astype(int) - turned.astype(int)).mean() for k in range(4)]
    assert int(np.argmin(diffs)) == 1 and diffs[1] < 15


def test_warp_many_stacks_faces() -> None:
    frame = scene_with(art.face("kings-breakfast/cake", 200), QUAD)
    out = warp_many(frame, np.stack([QUAD, QUAD]), (40, 60))
    assert out.shape == (2, 60, 40, 3) and out.dtype == np.uint8


def test_alignment_brings_perturbed_corners_within_one_percent() -> None:
    face = art.face("kings-breakfast/chicken", 400)
    frame = scene_with(face, QUAD)
    frame = cv2.GaussianBlur(frame, (0, 0), 0.7)
    rng = np.random.default_rng(1)
    width = float(np.linalg.norm(QUAD[1] - QUAD[0]))
    for _ in range(3):
        noisy = QUAD + rng.normal(0, 0.02 * width, QUAD.shape)
        refined, correlation = align_to_reference(frame, noisy, face, AlignConfig(width_px=128))
        before = np.linalg.norm(noisy - QUAD, axis=1).max() / width
        after = np.linalg.norm(refined - QUAD, axis=1).max() / width
        assert correlation > 0.8
        assert after < 0.01 < before


def test_failed_alignment_keeps_the_corners() -> None:
    blank = np.full((400, 400, 3), 128, np.uint8)
    quad = np.array([[100, 100], [300, 100], [300, 300], [100, 300]], np.float64)
    refined, correlation = align_to_reference(blank, quad, art.face("kings-breakfast/ham", 100))
    assert correlation == 0.0
    assert np.array_equal(refined, quad)


def test_nan_corners_cannot_be_warped() -> None:
    with pytest.raises(ValueError, match="finite"):
        warp_face(np.zeros((10, 10, 3), np.uint8), np.full((4, 2), np.nan), (4, 4))


@pytest.mark.parametrize("angle_deg", [0.0, 12.0, 30.0, 58.0, 80.0])
@pytest.mark.parametrize("aspect", [57 / 89, 1.0])
def test_quad_in_box_recovers_a_turned_rectangle_from_its_box(
    angle_deg: float, aspect: float
) -> None:
    """A card (or square tile) drawn turned on a plain table: its box and the edges inside it
    give back its corners to a few percent of its side."""
    from vision.rectify import quad_in_box

    frame = np.full((400, 400, 3), 90, np.uint8)
    long_side = 160.0
    a, b = long_side, long_side * aspect
    t = np.radians(angle_deg)
    u, v = np.array([np.cos(t), np.sin(t)]) * a / 2, np.array([-np.sin(t), np.cos(t)]) * b / 2
    centre = np.array([200.0, 200.0])
    truth = np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])
    cv2.fillConvexPoly(frame, np.round(truth).astype(np.int32), (235, 235, 235), cv2.LINE_AA)
    inner = centre + (truth - centre) * 0.8  # a printed frame parallel to the edges
    cv2.polylines(frame, [np.round(inner).astype(np.int32)], True, (40, 40, 160), 3, cv2.LINE_AA)
    box = np.array([*truth.min(axis=0), *truth.max(axis=0)])
    quad = quad_in_box(frame, box, aspect)
    errors = [np.abs(np.roll(quad, k, axis=0) - truth).max() for k in range(4)]
    assert min(errors) < 0.04 * long_side
