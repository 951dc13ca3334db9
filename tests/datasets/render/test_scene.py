"""Rendered scenes: labels checked geometrically against the truth, occlusion, determinism."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from datasets.art import dice_king_style
from datasets.render import dice, layouts
from datasets.render.camera import look_at_table
from datasets.render.distractors import sample_distractor
from datasets.render.labels import CLASSES, parse_yolo_line, yolo_lines, yolo_to_box
from datasets.render.pieces import PlacedPiece
from datasets.render.scene import neutral_environment, render_pieces, render_sample
from datasets.render.table_edge import TableEdge
from datasets.render.textures import family_names

SIZE = (320, 240)


def _top_down(**overrides):
    params = dict(
        target_mm=(0.0, 0.0),
        distance_mm=400.0,
        tilt_deg=0.0,
        azimuth_deg=90.0,
        roll_deg=0.0,
        hfov_deg=60.0,
    )
    params.update(overrides)
    return look_at_table(*SIZE, **params)


def _card(centre=(0.0, 0.0), yaw=0.0, z=0.0):
    return layouts.piece("kings-breakfast/cheese", centre, yaw, z=z)


@pytest.fixture(scope="module")
def samples():
    return [render_sample(11, i, size=SIZE) for i in range(4)] + [
        render_sample(12, 0, size=SIZE, game="dice-king", split="eval")
    ]


def _border_touch(box, width, height, tol=1.5):
    x1, y1, x2, y2 = box
    return x1 <= tol or y1 <= tol or x2 >= width - tol or y2 >= height - tol


def test_targets_have_corners_in_the_image_unless_cut_by_the_border(samples):
    checked = 0
    for sample in samples:
        w, h = sample.truth["width"], sample.truth["height"]
        for obj in sample.truth["objects"]:
            if not obj["target"]:
                continue
            corners = np.array(obj["corners"])
            inside = np.all((corners >= -0.5) & (corners <= [w + 0.5, h + 0.5]))
            assert inside or _border_touch(obj["box"], w, h), obj
            checked += 1
    assert checked > 10


def test_visible_box_contains_the_corners_of_unhidden_targets(samples):
    checked = 0
    for sample in samples:
        for obj in sample.truth["objects"]:
            if not obj["target"] or obj["visible_fraction"] < 0.995:
                continue
            x1, y1, x2, y2 = obj["box"]
            corners = np.array(obj["corners"])
            assert np.all(corners[:, 0] >= x1 - 1.5) and np.all(corners[:, 0] <= x2 + 1.5), obj
            assert np.all(corners[:, 1] >= y1 - 1.5) and np.all(corners[:, 1] <= y2 + 1.5), obj
            checked += 1
    assert checked > 3


def test_visible_box_lies_inside_the_full_box(samples):
    for sample in samples:
        for obj in sample.truth["objects"]:
            if obj["box"] is None:
                continue
            bx, fx = obj["box"], obj["box_full"]
            assert bx[0] >= fx[0] - 1.5 and bx[1] >= fx[1] - 1.5
            assert bx[2] <= fx[2] + 1.5 and bx[3] <= fx[3] + 1.5


def test_yolo_lines_agree_with_the_truth_boxes(samples):
    for sample in samples:
        w, h = sample.truth["width"], sample.truth["height"]
        targets = [o for o in sample.truth["objects"] if o["target"]]
        lines = yolo_lines(sample.truth["objects"], w, h)
        assert len(lines) == len(targets)
        for line, obj in zip(lines, targets, strict=True):
            kind, box = yolo_to_box(parse_yolo_line(line), w, h)
            assert kind == obj["kind"] and kind in CLASSES
            np.testing.assert_allclose(box, obj["box"], atol=0.01)


def test_dice_records_carry_value_and_colour(samples):
    dice_king = [
        o
        for o in samples[-1].truth["objects"]
        if o["kind"] == "die" and o["pose"]["group"].startswith("dice-king")
    ]
    assert dice_king, "a dice-king scene has its six dice"
    for obj in dice_king:
        assert obj["value"] in range(1, 7)
        assert obj["colour"] in ("r", "g", "b")


def test_every_random_parameter_is_recorded(samples):
    params = samples[0].truth["params"]
    assert set(params) == {"camera", "table", "table_edge", "light", "effects"}
    assert {"tilt_deg", "azimuth_deg", "distance_mm", "hfov_deg", "k1"} <= set(params["camera"])
    assert {"family", "variant", "tint"} <= set(params["table"])
    assert {"family", "kelvin", "glare"} <= set(params["light"])
    assert {"jpeg_quality", "noise_sigma", "defocus_sigma"} <= set(params["effects"])


def test_same_seed_gives_the_same_bytes():
    a = render_sample(5, 3, size=SIZE)
    b = render_sample(5, 3, size=SIZE)
    c = render_sample(5, 4, size=SIZE)
    assert a.jpeg == b.jpeg
    assert a.truth == b.truth
    assert a.jpeg != c.jpeg


def test_eval_scenes_are_not_train_scenes_recoloured():
    train = render_sample(5, 3, size=SIZE, split="train").truth
    evaluation = render_sample(5, 3, size=SIZE, split="eval").truth
    assert train["params"]["camera"] != evaluation["params"]["camera"]


def test_die_top_corners_project_from_the_pose():
    camera = _top_down(tilt_deg=30.0, k1=0.1)
    die = PlacedPiece(
        "die",
        None,
        (10.0, 5.0),
        20.0,
        (16.0, 16.0),
        0.0,
        16.0,
        value=4,
        front=2,
        die_style=dice_king_style(0),
    )
    rendered = render_pieces([die], [], neutral_environment(camera))
    (obj,) = rendered.objects
    expected = camera.project(dice.top_corners_mm(die))
    np.testing.assert_allclose(obj["corners"], expected, atol=0.01)
    assert obj["value"] == 4 and obj["target"]
    assert obj["visible_fraction"] == pytest.approx(1.0, abs=0.02)


def test_card_corners_are_the_printed_face_corners():
    camera = _top_down()
    card = _card(yaw=0.0)
    (obj,) = render_pieces([card], [], neutral_environment(camera)).objects
    corners = np.array(obj["corners"])
    # azimuth 90: the table's +y (the card's printed top) is the image's up
    tl, tr, br, bl = corners
    assert tl[1] < bl[1] and tr[1] < br[1]
    assert tl[0] < tr[0] and bl[0] < br[0]


def test_a_card_under_another_is_hidden_and_not_a_target():
    camera = _top_down()
    below = _card()
    above = _card(z=below.top_mm)
    objects = render_pieces([below, above], [], neutral_environment(camera)).objects
    assert objects[0]["visible_fraction"] < 0.05 and not objects[0]["target"]
    assert objects[1]["visible_fraction"] > 0.97 and objects[1]["target"]


def test_half_out_of_frame_counts_the_border():
    camera = _top_down()
    # half-width of the view at 400 mm with 60° is 230.9 mm: put the card's centre on the edge
    edge_x = 400.0 * np.tan(np.radians(30.0))
    card = _card(centre=(edge_x, 0.0))
    (obj,) = render_pieces([card], [], neutral_environment(camera)).objects
    assert obj["visible_fraction"] == pytest.approx(0.5, abs=0.05)


def test_visible_fraction_drops_when_a_hand_covers_the_piece():
    camera = _top_down()
    card = _card()
    clear = render_pieces([card], [], neutral_environment(camera)).objects[0]
    hand = sample_distractor(np.random.default_rng(1), "hand", (0.0, 0.0))
    covered = render_pieces([card], [hand], neutral_environment(camera)).objects[0]
    assert clear["visible_fraction"] > 0.97
    assert covered["visible_fraction"] < clear["visible_fraction"] - 0.1


def test_beyond_the_table_edge_is_the_darker_floor():
    camera = _top_down(tilt_deg=30.0)
    edge = TableEdge(
        normal_deg=90.0,  # off the table towards +y, the top of the picture
        offset_mm=60.0,
        lip_mm=4.0,
        lip_gain=1.0,
        floor_family=family_names("train")[0],
        floor_variant=0,
        floor_drop_mm=700.0,
        floor_gain=0.3,
    )
    plain = render_pieces([], [], neutral_environment(camera)).image
    edged = render_pieces([], [], replace(neutral_environment(camera), edge=edge)).image
    top, bottom = slice(0, 20), slice(-20, None)
    assert edged[top].mean() < 0.6 * plain[top].mean()
    np.testing.assert_array_equal(edged[bottom], plain[bottom])
