"""Tests of `vision.outline.refine_quad` on drawn pieces: a card with a printed inner border on a
textured table, a card half under another, and inputs it must hand back untouched."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from models.evaluate import corner_error
from vision.outline import OutlineConfig, refine_quad

CARD_ASPECT = 57 / 89


def _table(rng: np.random.Generator, size: tuple[int, int] = (240, 320)) -> np.ndarray:
    """A wood-like table: brown with blurred grain stripes and speckle."""
    h, w = size
    grain = np.sin(np.linspace(0, 40, w))[None, :] * 18 + rng.normal(0, 10, (h, w))
    grain = np.asarray(cv2.GaussianBlur(grain.astype(np.float32), (0, 0), 1.2))
    base = np.array([40, 75, 120], np.float32)  # BGR brown
    return np.clip(base[None, None, :] + grain[..., None], 0, 255).astype(np.uint8)


def _card_corners(centre: tuple[float, float], long_side: float, angle_deg: float) -> np.ndarray:
    short = long_side * CARD_ASPECT
    t = np.radians(angle_deg)
    u = np.array([np.cos(t), np.sin(t)]) * short / 2
    v = np.array([-np.sin(t), np.cos(t)]) * long_side / 2
    c = np.array(centre, np.float64)
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])  # TL TR BR BL, clockwise


def _draw_card(image: np.ndarray, corners: np.ndarray, face: tuple[int, int, int]) -> None:
    """A light card with a dark printed border 7 % inside its edge and a picture in the middle,
    drawn at 4× and area-averaged down, so its edges lie where the corners say (OpenCV's own
    anti-aliased fill spreads a polygon by about half a pixel)."""
    scale = 4
    h, w = image.shape[:2]
    layer = np.zeros((h * scale, w * scale, 3), np.uint8)
    mask = np.zeros((h * scale, w * scale), np.uint8)
    centre = corners.mean(axis=0)

    def fill(target: np.ndarray, quad: np.ndarray, colour: tuple[int, ...] | int) -> None:
        big = (quad + 0.5) * scale - 0.5  # pixel centres at integers, at both scales
        cv2.fillConvexPoly(target, np.round(big * 16).astype(np.int32), colour, shift=4)

    fill(mask, corners, 255)
    fill(layer, corners, (225, 230, 235))
    fill(layer, centre + (corners - centre) * 0.86, (60, 50, 40))  # printed frame line ...
    fill(layer, centre + (corners - centre) * 0.80, face)  # ... round the face
    fill(layer, centre + (corners - centre) * 0.35, (30, 160, 200))
    alpha = cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    colour = cv2.resize(layer, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)
    under = image.astype(np.float32) * (1 - alpha[..., None])
    image[:] = np.clip(under + colour, 0, 255).astype(np.uint8)


def _perturbed(corners: np.ndarray, rng: np.random.Generator, fraction: float) -> np.ndarray:
    edge = float(np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1).mean())
    return corners + rng.uniform(-1, 1, corners.shape) * fraction * edge


def _box(corners: np.ndarray, rng: np.random.Generator, jitter: float = 0.04) -> np.ndarray:
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    size = hi - lo
    return np.concatenate([lo, hi]) + rng.uniform(-1, 1, 4) * jitter * np.tile(size, 2)


@pytest.mark.parametrize("seed, angle", [(0, 12.0), (1, -25.0), (2, 38.0), (3, 80.0)])
def test_rough_quad_snaps_to_the_card_edge_not_its_printed_border(seed: int, angle: float) -> None:
    rng = np.random.default_rng(seed)
    frame = _table(rng)
    truth = _card_corners((160, 120), 130, angle)
    _draw_card(frame, truth, (200, 210, 160))
    rough = _perturbed(truth, rng, 0.15)
    assert corner_error(rough, truth) > 0.05  # the start is well off

    refined, quality = refine_quad(frame, rough, _box(truth, rng), CARD_ASPECT)

    assert quality > 0.5
    assert corner_error(refined, truth) <= 0.02
    # corner order and turning sense follow the input's
    assert np.linalg.norm(refined - truth, axis=1).max() < 0.05 * 130


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_card_with_a_corner_under_another_still_found(seed: int) -> None:
    rng = np.random.default_rng(seed)
    frame = _table(rng)
    truth = _card_corners((150, 120), 130, 10.0)
    _draw_card(frame, truth, (200, 210, 160))
    # a second card on top covers the first one's bottom-right corner, as in a spread hand
    _draw_card(frame, _card_corners((205, 195), 130, 35.0), (150, 170, 220))
    rough = _perturbed(truth, rng, 0.15)

    refined, quality = refine_quad(frame, rough, _box(truth, rng), CARD_ASPECT)

    assert quality > 0.5
    assert corner_error(refined, truth) <= 0.02


@pytest.mark.parametrize("seed", range(6))
def test_card_half_under_another_is_never_stretched_onto_it(seed: int) -> None:
    # half of two sides hidden: the quad may settle on the card's printed face (its edges are all
    # visible), but the other card's edges must not be taken for this one's
    rng = np.random.default_rng(seed)
    frame = _table(rng)
    truth = _card_corners((150, 120), 130, 10.0)
    _draw_card(frame, truth, (200, 210, 160))
    _draw_card(frame, _card_corners((190, 175), 130, 35.0), (150, 170, 220))
    rough = _perturbed(truth, rng, 0.15)

    refined, quality = refine_quad(frame, rough, _box(truth, rng), CARD_ASPECT)

    if quality == 0:
        assert np.array_equal(refined, rough)
        return
    assert corner_error(refined, truth) <= 0.12
    # every refined corner lies within the true card (a 2 % allowance)
    edges = np.roll(truth, -1, axis=0) - truth
    inward = np.stack([-edges[:, 1], edges[:, 0]], axis=1)  # clockwise (y down): inside is left
    inward /= np.linalg.norm(inward, axis=1, keepdims=True)
    depth = np.einsum("sk,csk->cs", inward, refined[:, None, :] - truth[None, :, :])
    assert depth.min() >= -0.02 * np.linalg.norm(edges, axis=1).mean()


def test_small_tile_within_two_percent() -> None:
    rng = np.random.default_rng(11)
    frame = _table(rng)
    centre = np.array([100.0, 90.0])
    t = np.radians(20)
    u, v = np.array([np.cos(t), np.sin(t)]) * 24, np.array([-np.sin(t), np.cos(t)]) * 24
    truth = np.array([centre - u - v, centre + u - v, centre + u + v, centre - u + v])
    _draw_card(frame, truth, (90, 180, 90))
    frame = cv2.GaussianBlur(frame, (0, 0), 0.8)  # a camera's softness
    rough = _perturbed(truth, rng, 0.15)

    refined, quality = refine_quad(frame, rough, _box(truth, rng), 1.0)

    assert quality > 0.5
    assert corner_error(refined, truth) <= 0.02


def _unchanged(result: tuple[np.ndarray, float], quad: np.ndarray) -> bool:
    corners, quality = result
    return quality == 0.0 and np.array_equal(corners, quad, equal_nan=True)


def test_unusable_inputs_come_back_unchanged_with_quality_zero() -> None:
    rng = np.random.default_rng(3)
    frame = _table(rng)
    truth = _card_corners((160, 120), 130, 12.0)
    _draw_card(frame, truth, (200, 210, 160))
    box = _box(truth, rng, 0.0)
    quad = _perturbed(truth, rng, 0.1)

    empty_box = np.array([100.0, 100.0, 100.0, 100.0])
    assert _unchanged(refine_quad(frame, quad, empty_box, CARD_ASPECT), quad)
    outside = np.array([900.0, 900.0, 1000.0, 1000.0])
    assert _unchanged(refine_quad(frame, quad + 900, outside, CARD_ASPECT), quad + 900)
    nan_quad = quad.copy()
    nan_quad[2, 0] = np.nan
    assert _unchanged(refine_quad(frame, nan_quad, box, CARD_ASPECT), nan_quad)
    assert _unchanged(refine_quad(frame, quad, np.array([np.nan, 0, 50, 50]), CARD_ASPECT), quad)
    assert _unchanged(refine_quad(frame, quad, box, 0.0), quad)
    degenerate = np.repeat(truth[:1], 4, axis=0)
    alone = OutlineConfig(try_box_quad=False)
    assert _unchanged(refine_quad(frame, degenerate, box, CARD_ASPECT, alone), degenerate)
    # a bare table: no outline to find
    blank = np.full_like(frame, 128)
    assert _unchanged(refine_quad(blank, quad, box, CARD_ASPECT), quad)


def test_a_useless_quad_is_rescued_by_the_box() -> None:
    # the rectangle of the piece's aspect in the box (`quad_in_box`) is the second start
    rng = np.random.default_rng(4)
    frame = _table(rng)
    truth = _card_corners((160, 120), 130, 22.0)
    _draw_card(frame, truth, (200, 210, 160))
    degenerate = np.repeat(truth[:1], 4, axis=0)

    refined, quality = refine_quad(frame, degenerate, _box(truth, rng), CARD_ASPECT)

    assert quality > 0.5
    assert corner_error(refined, truth) <= 0.02


def test_input_is_not_modified_and_corners_are_float64() -> None:
    rng = np.random.default_rng(5)
    frame = _table(rng)
    truth = _card_corners((160, 120), 130, 30.0)
    _draw_card(frame, truth, (200, 210, 160))
    before = frame.copy()
    quad = _perturbed(truth, rng, 0.1).astype(np.float32)
    quad_before = quad.copy()

    refined, _ = refine_quad(frame, quad, _box(truth, rng), CARD_ASPECT, OutlineConfig())

    assert np.array_equal(frame, before)
    assert np.array_equal(quad, quad_before)
    assert refined.shape == (4, 2) and refined.dtype == np.float64


def test_grey_frame() -> None:
    rng = np.random.default_rng(6)
    frame = _table(rng)
    truth = _card_corners((160, 120), 130, -15.0)
    _draw_card(frame, truth, (200, 210, 160))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)

    refined, quality = refine_quad(
        grey, _perturbed(truth, rng, 0.15), _box(truth, rng), CARD_ASPECT
    )

    assert quality > 0.5
    assert corner_error(refined, truth) <= 0.02
