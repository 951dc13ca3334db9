"""`vision.top_face`: the top face located (mask → quad), rectified and read; and how the
pipeline folds its readings into the whole-die reader's."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.test_pips import drawn_die
from vision.dice_reader import DieReadings, crop_dice
from vision.errors import ModelError
from vision.pipeline import combine_readings
from vision.top_face import (
    DEFAULT_FACE_READER,
    DEFAULT_LOCATOR,
    TopFaceConfig,
    TopFaceReader,
    TopFaceReadings,
    crop_geometry,
    face_views,
    mask_targets,
    order_quad,
    quad_from_mask,
    rectify_faces,
)


def test_order_quad_is_clockwise_from_top_left_whatever_the_input_order() -> None:
    quad = np.array([[10, 0], [20, 10], [10, 20], [0, 10]], np.float64)  # a diamond
    for shift in range(4):
        ordered = order_quad(np.roll(quad, shift, axis=0)[::-1])
        # clockwise on screen (y down): the signed area is positive
        x, y = ordered[:, 0], ordered[:, 1]
        assert 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) > 0
        assert ordered[0].sum() == quad.sum(axis=1).min()


def test_quad_from_mask_recovers_a_drawn_quad() -> None:
    quad = np.array([[14.0, 9.0], [37.0, 15.0], [33.0, 36.0], [10.0, 30.0]])
    mask = mask_targets(quad[None], 48)[0].astype(np.float32) / 255
    found = quad_from_mask(mask)
    assert found is not None
    # every true corner has a found corner within a pixel and a half
    distances = np.linalg.norm(found[:, None] - quad[None], axis=2).min(axis=0)
    assert distances.max() < 1.5


def test_quad_from_mask_refuses_an_empty_or_tiny_mark() -> None:
    assert quad_from_mask(np.zeros((48, 48), np.float32)) is None
    speck = np.zeros((48, 48), np.float32)
    speck[20:22, 20:22] = 1.0
    assert quad_from_mask(speck, min_fraction=0.02) is None


def test_crop_geometry_maps_the_box_centre_to_the_crop_centre() -> None:
    boxes = np.array([[40.0, 30.0, 80.0, 50.0]])
    centres, scales = crop_geometry(boxes, size=48, margin=0.2)
    np.testing.assert_allclose(centres[0], (60, 40))
    np.testing.assert_allclose(scales[0], 48 / (40 * 1.4))


@pytest.mark.parametrize("value", [1, 4, 6])
def test_rectify_faces_shows_the_face_from_above(value: int) -> None:
    frame, box = drawn_die(value, side=80)
    x1, y1, x2, y2 = box[0]
    quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
    # the same face turned by a quarter turn in its corner order gives the same (turned) image
    face = rectify_faces(frame, quad[None], size=32, margin=0.0)[0]
    assert face.shape == (32, 32, 3)
    # the face fills the square: its border is the die's body, not the table
    assert face[1, 16].min() > 200 and face[16, 1].min() > 200
    dark = (face.max(axis=2) < 100).astype(np.uint8)
    blobs = cv2.connectedComponents(dark)[0] - 1
    assert blobs == value


def test_rectify_faces_area_averages_large_faces() -> None:
    frame = np.zeros((600, 600, 3), np.uint8)
    frame[::2] = 255  # stripes finer than the output: averaged to grey, not aliased
    quad = np.array([[50, 50], [550, 50], [550, 550], [50, 550]], np.float64)
    face = rectify_faces(frame, quad[None], size=32, margin=0.0)[0]
    assert 100 < face.mean() < 155 and face.std() < 30


def test_committed_models_find_and_read_a_drawn_die() -> None:
    reader = TopFaceReader()
    frame, box = drawn_die(5, side=70)
    readings = reader.read(frame, box)
    assert readings.found[0]
    quad = readings.quads_px[0]
    x1, y1, x2, y2 = box[0]
    # the located face covers the drawn face (a flat die is all top face)
    assert x1 - 8 < quad[:, 0].min() and quad[:, 0].max() < x2 + 8
    assert y1 - 8 < quad[:, 1].min() and quad[:, 1].max() < y2 + 8
    assert int(readings.value_probabilities[0].argmax()) == 5


def test_read_of_no_boxes_is_empty() -> None:
    readings = TopFaceReader().read(np.zeros((50, 50, 3), np.uint8), np.zeros((0, 4)))
    assert readings.quads_px.shape == (0, 4, 2) and readings.value_probabilities.shape == (0, 7)


def test_missing_models_are_reported_by_name(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="top-face locator model not found"):
        TopFaceReader(locator_path=tmp_path / "none.onnx")
    with pytest.raises(ModelError, match="face reader model not found"):
        TopFaceReader(DEFAULT_LOCATOR, face_reader_path=tmp_path / "none.onnx")
    assert DEFAULT_FACE_READER.is_file()


def _whole(probabilities: list[list[float]]) -> DieReadings:
    p = np.array(probabilities, np.float32)
    values = p.argmax(axis=1)
    colours = np.array([None] * len(p), object)
    scores = np.where(values > 0, p.max(axis=1), 0.0).astype(np.float32)  # as DiceReader does
    return DieReadings(values, colours, scores, p)


def _faces(probabilities: list[list[float]], found: list[bool]) -> TopFaceReadings:
    p = np.array(probabilities, np.float32)
    quads = np.zeros((len(p), 4, 2))
    quads[~np.array(found)] = np.nan
    colours = np.zeros((len(p), 4), np.float32)
    colours[:, 0] = 1.0
    return TopFaceReadings(
        quads, p, colours, np.zeros(len(p), np.int64), np.zeros(len(p), np.float32)
    )


# whole reader: die 0 reads 5 (side pip counted), barely above 4; die 1 is not a die;
# die 2 reads 3 but its top face was not found
WHOLE = [
    [0.0, 0.0, 0.0, 0.0, 0.45, 0.55, 0.0],
    [0.9, 0.02, 0.02, 0.02, 0.02, 0.01, 0.01],
    [0.0, 0.0, 0.1, 0.9, 0.0, 0.0, 0.0],
]
FACES = [
    [0.0, 0.0, 0.0, 0.0, 0.9, 0.1, 0.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0],
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
]


@pytest.mark.parametrize("mode", ["product", "replace"])
def test_combined_readings_take_the_top_face_where_it_was_found(mode: str) -> None:
    combined = combine_readings(_whole(WHOLE), _faces(FACES, [True, True, False]), mode)
    assert combined.values.tolist() == [4, 0, 3]
    # the die stays a die with the whole reader's odds; "not a die" is the whole reader's call
    np.testing.assert_allclose(combined.value_probabilities.sum(axis=1), 1.0, atol=1e-5)
    assert combined.scores[1] == 0.0
    np.testing.assert_allclose(combined.value_probabilities[2], WHOLE[2])


def test_combination_off_changes_nothing() -> None:
    whole = _whole(WHOLE)
    assert combine_readings(whole, _faces(FACES, [True, True, True]), "off") is whole


def test_pipeline_rejects_an_unknown_top_face_mode() -> None:
    from vision.pipeline import Perception, PerceptionConfig

    with pytest.raises(ValueError, match="top_face must be one of"):
        Perception(PerceptionConfig(top_face="both"))


def test_pipeline_takes_another_top_face_pair_from_a_folder(tmp_path: Path) -> None:
    """`Perception(top_face_models=DIR)` (`models.evaluate --top-face-models`) loads DIR's pair."""
    import shutil

    from vision.pipeline import Perception

    with pytest.raises(ModelError, match="top-face locator model not found"):
        Perception(top_face_models=tmp_path)
    shutil.copy(DEFAULT_LOCATOR, tmp_path / "dice_top_face.onnx")
    with pytest.raises(ModelError, match="face reader model not found"):
        Perception(top_face_models=tmp_path)
    shutil.copy(DEFAULT_FACE_READER, tmp_path / "dice_face_reader.onnx")
    assert Perception(top_face_models=tmp_path).top_face is not None


def test_crops_and_masks_agree_for_training_data() -> None:
    # the mask rasterised in crop pixels lies on the die's face in the crop cut by crop_dice
    frame, box = drawn_die(1, side=60)
    x1, y1, x2, y2 = box[0]
    quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
    centres, scales = crop_geometry(box, size=48, margin=0.2)
    in_crop = (quad - centres[0]) * scales[0] + 24
    mask = mask_targets(in_crop[None], 48)[0] >= 128
    crop = crop_dice(frame, box, size=48, margin=0.2)[0]
    face_pixels = crop[mask].mean(axis=0)
    table_pixels = crop[~mask].mean(axis=0)
    assert face_pixels.mean() > 180 and table_pixels.mean() < 150


def test_a_sure_pip_count_is_evidence_in_the_product() -> None:
    # both readers lean to 5 a little; the pip counter on the rectified face is sure of 4
    whole = _whole([[0.0, 0.0, 0.0, 0.0, 0.45, 0.55, 0.0]])
    faces = replace(
        _faces([[0.0, 0.0, 0.0, 0.0, 0.4, 0.6, 0.0]], [True]),
        pip_counts=np.array([4]),
        pip_confidences=np.array([1.0], np.float32),
    )
    assert combine_readings(whole, faces, "product").values.tolist() == [5]
    assert combine_readings(whole, faces, "product", pip_likelihood=0.8).values.tolist() == [4]
    # an unsure count is no evidence
    unsure = replace(faces, pip_confidences=np.array([0.5], np.float32))
    assert combine_readings(whole, unsure, "product", pip_likelihood=0.8).values.tolist() == [5]


def test_colour_odds_of_both_readers_are_multiplied() -> None:
    whole = replace(
        _whole([[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]]),
        colours=np.array(["g"], object),
        colour_probabilities=np.array([[0.0, 0.1, 0.8, 0.1]], np.float32),  # sure it is green
    )
    faces = replace(
        _faces([[0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]], [True]),
        colour_probabilities=np.array([[0.0, 0.45, 0.4, 0.15]], np.float32),  # leans red, barely
    )
    combined = combine_readings(whole, faces, "product")
    assert combined.colours.tolist() == ["g"]
    # without the whole-die reader's colour odds, the face's colour is taken: red
    no_odds = replace(whole, colour_probabilities=None)
    assert combine_readings(no_odds, faces, "product").colours.tolist() == ["r"]


def test_face_views_are_the_turns_and_mirror_images() -> None:
    faces = np.arange(2 * 4 * 4 * 3, dtype=np.uint8).reshape(2, 4, 4, 3)
    assert face_views(faces, 1).shape == (2, 4, 4, 3)
    eight = face_views(faces, 8)
    assert eight.shape == (16, 4, 4, 3)
    np.testing.assert_array_equal(eight[:2], faces)  # view by view: the first is the faces
    np.testing.assert_array_equal(eight[2:4], faces[:, ::-1, ::-1])  # then the half turn
    np.testing.assert_array_equal(eight[8:10], faces[:, :, ::-1])  # then the mirror images
    with pytest.raises(ValueError, match="views must be one of"):
        face_views(faces, 3)
    with pytest.raises(ValueError, match="views must be one of"):
        TopFaceReader(config=TopFaceConfig(views=5))


def test_eight_views_read_a_face_the_same_however_it_is_turned() -> None:
    frame, box = drawn_die(3, side=64)
    x1, y1, x2, y2 = box[0]
    quad = np.array([[x1, y1], [x2, y1], [x2, y2], [x1, y2]], np.float64)
    face = rectify_faces(frame, quad[None], size=32)
    turned = np.ascontiguousarray(np.rot90(face, 1, axes=(1, 2)))
    reader = TopFaceReader(config=TopFaceConfig(views=8))
    np.testing.assert_allclose(reader.read_faces(face)[0], reader.read_faces(turned)[0], atol=1e-5)


def test_rectify_faces_survives_degenerate_and_outside_quads() -> None:
    frame = np.full((50, 50, 3), 90, np.uint8)
    quads = np.array(
        [
            [[0, 0], [10, 10], [20, 20], [30, 30]],  # a line
            [[5, 5], [5, 5], [5, 5], [5, 5]],  # a point
            [[-80, -80], [200, -80], [200, 200], [-80, 200]],  # far beyond the frame
        ],
        np.float64,
    )
    faces = rectify_faces(frame, quads, size=32)
    assert faces.shape == (3, 32, 32, 3)
    assert faces[2].min() == 90  # the frame's border repeated, nothing made up


def test_both_readers_odds_of_no_die_are_multiplied_in_the_product() -> None:
    # die 0: the whole reader leans to "a 1" (a keyboard key's glyph), the face reader saw no
    # face: together "no die" is likelier than any die; die 1: the whole reader is sure of a die,
    # so the face reader's "no face" alone does not drop it; die 2: an unreadable die (value
    # unknown to both) stays a die
    whole = _whole(
        [
            [0.3, 0.6, 0.02, 0.02, 0.02, 0.02, 0.02],
            [0.01, 0.0, 0.0, 0.0, 0.9, 0.09, 0.0],
            [0.04, 0.16, 0.16, 0.16, 0.16, 0.16, 0.16],
        ]
    )
    faces = _faces(
        [
            [0.9, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01],
            [0.9, 0.0, 0.0, 0.0, 0.09, 0.01, 0.0],
            [0.0, 0.16, 0.16, 0.17, 0.17, 0.17, 0.17],
        ],
        [True, True, True],
    )
    combined = combine_readings(whole, faces, "product")
    assert combined.values[0] == 0
    assert combined.value_probabilities[0, 0] > 0.5
    assert combined.values[1] == 4
    assert combined.values[2] > 0 and combined.value_probabilities[2, 0] < 0.01
    # "replace" keeps "not a die" the whole reader's call
    assert combine_readings(whole, faces, "replace").values[0] > 0


def test_dk8_two_readers_naming_different_values_cap_the_dies_score() -> None:
    """DK-8: the whole-die reader says 5 (barely), the top face 4 (surely): the product reads 4;
    with a disagreement cap its score is at most the cap (the live table then refuses it),
    while a die both readers call 4 keeps its score."""
    whole = _whole([[0.0, 0.0, 0.0, 0.0, 0.45, 0.55, 0.0], [0.0, 0.0, 0.0, 0.0, 0.9, 0.1, 0.0]])
    faces = _faces(
        [[0.0, 0.0, 0.0, 0.0, 0.95, 0.05, 0.0], [0.0, 0.0, 0.0, 0.0, 0.95, 0.05, 0.0]],
        [True, True],
    )
    free = combine_readings(whole, faces, "product")
    capped = combine_readings(whole, faces, "product", disagreement=0.5)
    assert free.values.tolist() == capped.values.tolist() == [4, 4]
    assert free.scores[0] > 0.9 and capped.scores[0] == pytest.approx(0.5)
    assert capped.scores[1] == pytest.approx(free.scores[1]) and capped.scores[1] > 0.9
    # replace: the face's value stands alone; no cap applies
    assert combine_readings(whole, faces, "replace", disagreement=0.5).scores[0] > 0.9
