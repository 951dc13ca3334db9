"""`vision.detections.Detections`: validation, indexing, merge and the detect JSON contract."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vision.detections import Detections


def make(kinds: list[str], *, offset: float = 0.0) -> Detections:
    """Detections with one 10-pixel box per kind, shifted by `offset`."""
    n = len(kinds)
    boxes = np.array([[i * 20 + offset, 0, i * 20 + 10 + offset, 10] for i in range(n)], np.float32)
    corners = np.full((n, 4, 2), np.nan, np.float32)
    for i, kind in enumerate(kinds):
        if kind != "die":
            x = i * 20 + offset
            corners[i] = [[x, 0], [x + 10, 0], [x + 10, 10], [x, 10]]
    return Detections.from_boxes(boxes, np.linspace(0.5, 0.9, n, dtype=np.float32), kinds, corners)


def test_empty_has_zero_rows_of_every_shape() -> None:
    empty = Detections.empty()
    assert len(empty) == 0
    assert empty.boxes_xyxy.shape == (0, 4)
    assert empty.corners_px.shape == (0, 4, 2)
    assert empty.to_json("a.jpg", 4, 3) == {
        "image": "a.jpg",
        "width": 4,
        "height": 3,
        "objects": [],
    }


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        (
            "scores",
            np.zeros(3, np.float32),
            "detections.scores must have shape (n,) with n=2, got (3,)",
        ),
        ("corners_px", np.zeros((2, 3, 2)), "detections.corners_px must have shape (n, 4, 2)"),
        ("die_values", np.array([0, 7]), "die_values must be 0-6, got 7"),
        ("kinds", np.array(["die", "meeple"], object), "unknown kind 'meeple'"),
        ("die_colours", np.array(["r", "y"], object), "unknown colour 'y'"),
    ],
)
def test_validation_names_field_expected_and_actual(
    field: str, value: object, fragment: str
) -> None:
    good = make(["card", "die"])
    with pytest.raises(ValueError, match=None) as caught:
        good.with_fields(**{field: value})
    assert fragment in str(caught.value)


def test_boxes_must_be_n_by_4() -> None:
    with pytest.raises(ValueError, match=r"boxes_xyxy must have shape \(n, 4\), got \(2, 3\)"):
        Detections.from_boxes(np.zeros((2, 3)), np.zeros(2), ["die", "die"])


def test_boolean_mask_selects_rows_of_every_field() -> None:
    d = make(["card", "die", "tile", "die"])
    dice = d[d.kinds == "die"]
    assert len(dice) == 2
    assert list(dice.kinds) == ["die", "die"]
    np.testing.assert_allclose(dice.boxes_xyxy[:, 0], [20, 60])
    assert np.isnan(dice.corners_px).all()


def test_mask_of_wrong_length_is_refused() -> None:
    with pytest.raises(ValueError, match=r"mask must have shape \(2,\), got \(3,\)"):
        make(["card", "die"])[np.ones(3, bool)]


def test_merge_concatenates_in_order() -> None:
    a, b = make(["card"]), make(["die", "tile"], offset=100)
    merged = Detections.merge([a, b])
    assert list(merged.kinds) == ["card", "die", "tile"]
    np.testing.assert_allclose(merged.boxes_xyxy[1], [100, 0, 110, 10])
    assert len(Detections.merge([])) == 0


def test_to_json_is_the_contract_object() -> None:
    d = make(["die", "card"])
    d = d.with_fields(
        die_values=np.array([5, 0]),
        die_colours=np.array(["r", None], object),
        die_value_scores=np.array([0.5, 0.0], np.float32),
        identities=np.array([None, "kings-breakfast/cheese"], object),
        identity_scores=np.array([0.0, 0.91], np.float32),
    )
    line = json.loads(json.dumps(d.to_json("a.jpg", 1280, 720)))
    assert list(line) == ["image", "width", "height", "objects"]
    die, card = line["objects"]
    assert set(die) == {"kind", "box", "score", "value", "colour"}
    assert die["value"] == 5 and die["colour"] == "r"
    assert die["score"] == pytest.approx(0.5 * 0.5, abs=1e-3)  # detection × value score
    assert set(card) == {"kind", "box", "corners", "score", "identity", "identity_score"}
    assert card["corners"] == [[20.0, 0.0], [30.0, 0.0], [30.0, 10.0], [20.0, 10.0]]
    assert card["identity"] == "kings-breakfast/cheese"


def test_unread_die_has_null_value_and_zero_score() -> None:
    obj = make(["die"]).to_objects()[0]
    assert obj["value"] is None and obj["score"] == 0.0 and obj["colour"] is None
