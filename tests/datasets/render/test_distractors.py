"""Distractors that real photos mistook for dice: laptop keyboards, ferrite beads on cables, and
plain die-sized cubes.

They must appear in training scenes, draw without error from any camera, be recorded in the truth
and never count as pieces: the id buffer is -1 wherever they cover the picture.
"""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from datasets.art import dice_king_style
from datasets.render import layouts
from datasets.render.camera import look_at_table
from datasets.render.distractors import (
    FLAT_KINDS,
    TALL_KINDS,
    _in_front,
    _key_rects,
    _rounded_rects,
    _swept,
    draw_distractor,
    sample_distractor,
)
from datasets.render.pieces import Distractor, PlacedPiece
from datasets.render.scene import neutral_environment, render_pieces

SIZE = (320, 240)
_SILVER, _DARK = [188, 190, 194], 30


def _camera(tilt: float = 40.0, azimuth: float = 90.0, distance: float = 450.0, target=(0.0, 0.0)):
    return look_at_table(
        *SIZE,
        target_mm=target,
        distance_mm=distance,
        tilt_deg=tilt,
        azimuth_deg=azimuth,
        roll_deg=0.0,
        hfov_deg=60.0,
    )


def _keyboard(seed: int = 0, **overrides) -> Distractor:
    d = sample_distractor(np.random.default_rng(seed), "keyboard", (0.0, 0.0))
    d.params.update(overrides)
    return d


def _ferrite_cable(colour=(150, 150, 150)) -> Distractor:
    d = sample_distractor(np.random.default_rng(0), "cable", (-120.0, 0.0))
    d.params["points"] = [[-120.0, 0.0], [-40.0, 5.0], [40.0, -5.0], [120.0, 0.0]]
    d.params["colour"] = [200, 200, 200]
    d.params["ferrite"] = {"at": 0.5, "length": 25.0, "diameter": 12.0, "colour": list(colour)}
    return d


def _painted(image: np.ndarray) -> np.ndarray:
    """Pixels clearly changed from the dark background (shadows change them less), without the
    anti-aliased rim, which the id buffer (like every piece's) does not count."""
    changed = np.abs(image.astype(int) - _DARK).max(axis=2) > 25
    kernel = np.ones((3, 3), np.uint8)
    return (
        cv2.erode(changed.astype(np.uint8), kernel, borderType=cv2.BORDER_CONSTANT, borderValue=0)
        > 0
    )


def _draw(d: Distractor, camera, piece_id: int = 7):
    """Draw `d` on a dark uniform picture whose id buffer says "piece 7" everywhere."""
    image = np.full((camera.height, camera.width, 3), _DARK, np.uint8)
    ids = np.full((camera.height, camera.width), piece_id, np.int16)
    draw_distractor(image, ids, camera, neutral_environment(camera).light, d)
    return image, ids


def test_keyboard_is_a_flat_kind_with_plain_json_parameters():
    assert "keyboard" in FLAT_KINDS
    for seed in range(20):
        d = _keyboard(seed)
        assert d.kind == "keyboard"
        record = json.loads(json.dumps(d.to_json()))
        assert record["kind"] == "keyboard"
        assert 11 <= record["cols"] <= 15
        assert 15 <= record["key"] <= 18 and 2.5 <= record["gap"] <= 3.5
        w, dep = record["size"]
        assert w > record["cols"] * record["key"] and dep > 5 * record["key"]


def test_about_one_book_in_three_stays_a_slab_and_the_rest_are_keyboards():
    rng = np.random.default_rng(1)
    kinds = [sample_distractor(rng, "book", (0.0, 0.0)).kind for _ in range(600)]
    share = kinds.count("keyboard") / len(kinds)
    assert set(kinds) == {"keyboard", "pad"}
    assert 0.58 < share < 0.72


def test_about_four_cables_in_ten_carry_a_ferrite_bead_of_the_asked_size():
    rng = np.random.default_rng(2)
    cables = [sample_distractor(rng, "cable", (0.0, 0.0)) for _ in range(600)]
    beads = [c.params["ferrite"] for c in cables if "ferrite" in c.params]
    assert 0.34 < len(beads) / len(cables) < 0.46
    for bead in beads:
        assert 10 <= bead["diameter"] <= 14 and 20 <= bead["length"] <= 30
        assert 0 < bead["at"] < 1 and max(bead["colour"]) < 80  # dark grey or black
    json.dumps([c.to_json() for c in cables])


def test_training_tables_hold_a_keyboard_in_about_a_tenth_of_scenes():
    rng = np.random.default_rng(3)
    n, keyboards, beads = 1500, 0, 0
    for _ in range(n):
        items = [d for g in layouts.distractor_groups(rng) for d in g.distractors]
        keyboards += any(d.kind == "keyboard" for d in items)
        beads += any("ferrite" in d.params for d in items)
    assert 0.07 < keyboards / n < 0.13
    assert 0.07 < beads / n < 0.13  # cables in a quarter of scenes, four in ten with a bead


@pytest.mark.parametrize("seed", range(6))
def test_everything_a_keyboard_paints_is_marked_no_piece(seed):
    camera = _camera(tilt=15.0 + 7 * seed, azimuth=60.0 * seed, distance=350.0 + 40 * seed)
    image, ids = _draw(_keyboard(seed, body_colour=_SILVER, key_colour=[240, 240, 238]), camera)
    painted = _painted(image)
    assert painted.mean() > 0.05
    assert np.all(ids[painted] == -1)


def test_keycaps_are_separate_light_blocks_on_a_dark_body():
    camera = _camera(tilt=35.0, distance=300.0)
    d = _keyboard(4, body_colour=[40, 40, 44], key_colour=[230, 230, 230], glyph_colour=[30] * 3)
    image, ids = _draw(d, camera)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    inside = cv2.erode((ids == -1).astype(np.uint8), np.ones((9, 9), np.uint8)) > 0
    count, _ = cv2.connectedComponents(((grey > 200) & inside).astype(np.uint8), connectivity=4)
    keys = len(_key_rects(d.params))
    # one light blob per keycap: gaps and the darker side faces part them
    assert 0.7 * keys <= count - 1 <= 1.2 * keys


def test_a_card_under_a_keyboard_is_hidden_and_not_a_target():
    camera = _camera(tilt=30.0, distance=500.0)
    card = layouts.piece("kings-breakfast/cheese", (0.0, 0.0), 0.0)
    environment = neutral_environment(camera)
    clear = render_pieces([card], [], environment)
    covered = render_pieces([card], [_keyboard(5)], environment)
    assert clear.objects[0]["target"] and clear.objects[0]["visible_fraction"] > 0.97
    assert not covered.objects[0]["target"]
    assert covered.objects[0]["visible_fraction"] < 0.05
    (record,) = covered.distractors
    assert record["kind"] == "keyboard" and json.loads(json.dumps(record)) == record


def test_a_ferrite_bead_is_drawn_raised_on_its_cable_and_marked_no_piece():
    camera = _camera(tilt=40.0, distance=300.0)
    with_bead = _ferrite_cable()
    plain = _ferrite_cable()
    del plain.params["ferrite"]
    image, ids = _draw(with_bead, camera)
    plain_image, plain_ids = _draw(plain, camera)
    bead = (ids == -1) & (plain_ids != -1)
    # a 12 mm bead on a 3-6 mm cable, ~1.2 px/mm here: a blob of at least 10 x 10 pixels
    assert bead.sum() > 100
    painted = _painted(image)
    assert np.all(ids[painted] == -1)
    # the glossy streak along the bead is brighter than its body colour
    assert image[bead].max() > 150 + 40


def test_a_ferrite_bead_is_recorded_with_its_cable_in_the_truth():
    camera = _camera()
    rendered = render_pieces([], [_ferrite_cable()], neutral_environment(camera))
    (record,) = rendered.distractors
    assert record["kind"] == "cable" and record["ferrite"]["diameter"] == 12.0


@pytest.mark.parametrize(
    "target, azimuth", [((150.0, 0.0), 0.0), ((-100.0, 0.0), 200.0), ((-60.0, -60.0), 225.0)]
)
def test_a_keyboard_reaching_behind_a_close_camera_is_clipped_not_folded(target, azimuth):
    camera = _camera(tilt=50.0, azimuth=azimuth, distance=180.0, target=target)
    d = _keyboard(1, body_colour=_SILVER, key_colour=[240, 240, 238])
    w, dep = d.params["size"]
    a = np.radians(d.params["yaw"])
    turn = np.array([[np.cos(a), np.sin(a)], [-np.sin(a), np.cos(a)]])
    corners = np.array([[-w, -dep], [w, -dep], [w, dep], [-w, dep]]) / 2 @ turn
    assert camera.depth(np.hstack([corners, np.zeros((4, 1))])).min() < 20.0  # the case at hand
    image, ids = _draw(d, camera)
    painted = _painted(image)
    assert painted.mean() > 0.3  # the near half fills much of the picture
    assert np.all(ids[painted] == -1)


def test_in_front_keeps_only_the_part_of_a_polygon_before_the_camera():
    camera = _camera(tilt=50.0, azimuth=0.0, distance=180.0, target=(150.0, 0.0))
    square = np.array([[-300.0, -100, 0], [300, -100, 0], [300, 100, 0], [-300, 100, 0]])
    assert np.any(camera.depth(square) < 0)
    front = _in_front(camera, square, near=20.0)
    assert len(front) >= 3
    assert np.all(camera.depth(front) >= 20.0 - 1e-6)
    assert front[:, 0].max() == pytest.approx(300.0)


def test_swept_rounded_rectangles_trace_their_convex_hull():
    boxes = np.array([[0.0, 0.0, 16.0, 16.0], [5.0, 2.0, 40.0, 18.0]])
    polygons = _rounded_rects(boxes, 2.0)
    shifts = np.array([[3.0, -2.0], [-1.5, 4.0]])
    for poly, outline, shift in zip(polygons, _swept(polygons, shifts), shifts, strict=True):
        hull = cv2.convexHull(np.vstack([poly, poly + shift]).astype(np.float32))
        assert cv2.contourArea(outline.astype(np.float32)) == pytest.approx(
            cv2.contourArea(hull), rel=0.01
        )


def test_drawing_is_deterministic():
    camera = _camera()
    for d in (_keyboard(2), _ferrite_cable()):
        first, first_ids = _draw(d, camera)
        second, second_ids = _draw(d, camera)
        assert np.array_equal(first, second) and np.array_equal(first_ids, second_ids)


def _cube(seed: int = 0, centre=(0.0, 0.0), **overrides) -> Distractor:
    d = sample_distractor(np.random.default_rng(seed), "cube", centre)
    d.params.update(overrides)
    return d


def test_cubes_are_tall_die_sized_blocks_with_plain_json_parameters():
    assert "cube" in TALL_KINDS and "cube" not in FLAT_KINDS
    for seed in range(30):
        record = json.loads(json.dumps(_cube(seed).to_json()))
        assert record["kind"] == "cube"
        assert all(5.0 <= side <= 26.0 for side in record["size"]), record
        assert record["grain"] >= 0.0


@pytest.mark.parametrize("seed", range(4))
def test_everything_a_cube_paints_is_marked_no_piece(seed):
    camera = _camera(tilt=10.0 + 12 * seed, azimuth=80.0 * seed, distance=150.0)
    image, ids = _draw(_cube(seed, colour=[236, 240, 242]), camera)
    painted = _painted(image)
    assert painted.sum() > 200  # a 10-26 mm block about 2 px/mm away
    assert np.all(ids[painted] == -1)


def test_a_cube_in_front_of_a_die_hides_part_of_it():
    camera = _camera(tilt=45.0, azimuth=90.0, distance=250.0)  # looks towards +y
    die = PlacedPiece(
        "die", None, (0.0, 0.0), 20.0, (16.0, 16.0), 0.0, 16.0, value=4, front=2,
        die_style=dice_king_style(0),
    )  # fmt: skip
    environment = neutral_environment(camera)
    cube = _cube(1, centre=(0.0, -17.0), size=[16.0, 16.0, 16.0], yaw=0.0)
    clear = render_pieces([die], [], environment)
    hidden = render_pieces([die], [cube], environment)
    assert clear.objects[0]["visible_fraction"] > 0.97
    assert hidden.objects[0]["visible_fraction"] < clear.objects[0]["visible_fraction"] - 0.1
    assert [d["kind"] for d in hidden.distractors] == ["cube"]
