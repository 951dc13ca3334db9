"""A Dice King penalty card's value read from the seal printed on it (companion art), and the
scoring photos' use of it: a misread name withdrawn, an unnamed penalty card named (DK-3)."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from datasets import art
from engines.dice_king.catalogue import penalties
from tests.vision.test_detections import make
from vision.gallery import game_identities
from vision.penalty_seal import PENALTY_PREFIX, read_seal

MODELS = Path(__file__).resolve().parents[2] / "models"
needs_model = pytest.mark.skipif(
    not (MODELS / "piece_reader.onnx").is_file(), reason="no committed piece reader model"
)
PENALTIES = [i for i in game_identities("dice-king") if i.startswith(PENALTY_PREFIX)]
VALUES = {f"dice-king/{card.id}": card.points for card in penalties()}
# a card about 80 px wide, turned a little and seen a little from the side
CORNERS = np.array([[60.0, 40.0], [138.0, 52.0], [126.0, 160.0], [44.0, 148.0]], np.float32)


def table_with(face: np.ndarray, corners: np.ndarray, size: int = 200) -> np.ndarray:
    """A plain green table with `face` laid onto the quad `corners` (TL, TR, BR, BL)."""
    h, w = face.shape[:2]
    source = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    matrix = cv2.getPerspectiveTransform(source, corners.astype(np.float32))
    table = np.full((size, size, 3), (60, 110, 70), np.uint8)
    laid = cv2.warpPerspective(face, matrix, (size, size), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.full((h, w), 255, np.uint8), matrix, (size, size)) > 127
    table[inside] = laid[inside]
    return table


def test_dk3_every_penalty_value_is_read_from_its_seal_whichever_corner_comes_first() -> None:
    """DK-3 (a penalty card's value): each companion penalty face, laid on a table, is read as
    the cards printing its value, surely, whichever corner the detector lists first."""
    assert len(PENALTIES) == 10
    for identity in PENALTIES:
        frame = table_with(art.face(identity, 320), CORNERS)
        for turn in range(4):
            reading = read_seal(frame, np.roll(CORNERS, -turn, axis=0))
            assert reading is not None, (identity, turn)
            assert identity in reading.identities, (identity, turn, reading)
            assert {VALUES[i] for i in reading.identities} == {VALUES[identity]}
            assert reading.score >= 0.85 and reading.margin >= 0.1, (identity, turn, reading)


def test_a_half_covered_card_is_read_from_the_part_that_shows() -> None:
    """A card half under another: the detector's corners span only what shows (the seal's
    half), which squashes the rectified card; the seal's own outline sets the scale."""
    for identity in ("dice-king/penalty-2", "dice-king/penalty-5", "dice-king/penalty-10"):
        cut = CORNERS[:2] + 0.6 * (CORNERS[[3, 2]] - CORNERS[:2])  # 60 % of the card shows
        frame = table_with(art.face(identity, 320), CORNERS)
        under = np.array([cut[0], cut[1], CORNERS[2] + 12, CORNERS[3] + 12], np.int32)
        cv2.fillConvexPoly(frame, under, (150, 60, 30))  # a blue card lying over the rest
        visible = np.array([CORNERS[0], CORNERS[1], cut[1], cut[0]], np.float32)
        reading = read_seal(frame, visible)
        assert reading is not None and identity in reading.identities, (identity, reading)
        assert reading.score >= 0.85 and reading.margin >= 0.1, (identity, reading)


def test_no_whole_seal_no_reading() -> None:
    """A card with no pale seal (a bare red card), or corners that are not numbers: None —
    the readers' word stands."""
    h, w = art.face("dice-king/penalty-1", 320).shape[:2]
    red = np.full((h, w, 3), (40, 40, 170), np.uint8)
    assert read_seal(table_with(red, CORNERS), CORNERS) is None
    assert read_seal(table_with(red, CORNERS), np.full((4, 2), np.nan, np.float32)) is None


@needs_model
def test_scoring_photos_withdraw_a_misread_value_and_name_an_unnamed_penalty_card() -> None:
    """`penalty_seals`: a card named a penalty card of another value than its seal's loses its
    name; an unnamed card the piece reader finds likely to be a penalty card is named the
    value its seal shows; an unnamed card the reader finds unlikely to be one is left alone."""
    from vision.identify import Identifier
    from vision.pipeline import Perception, PerceptionConfig

    faces = [art.face(i, 320) for i in ("dice-king/penalty-1", "dice-king/penalty-7")]
    frame = np.concatenate([table_with(face, CORNERS) for face in faces], axis=1)
    corners = np.stack([CORNERS, CORNERS + (200.0, 0.0)])
    boxes = np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)
    config = PerceptionConfig(penalty_seals=(0.85, 0.1, 0.5))
    perception = Perception(config, identifier=Identifier(), games=["dice-king"])
    assert perception.piece_reader is not None
    columns = [
        k
        for k, group in enumerate(perception.piece_reader.classes)
        if group and group[0].startswith(PENALTY_PREFIX)
    ]
    odds = np.zeros((2, len(perception.piece_reader.classes)))
    odds[1, columns[0]] = 0.7  # the second card: likely a penalty card, value unsure
    detections = make(["card", "card"]).with_fields(
        boxes_xyxy=boxes.astype(np.float32),
        corners_px=corners.astype(np.float32),
        identities=np.array(["dice-king/penalty-9", None], object),  # the first misread
        identity_scores=np.array([0.99, 0.0], np.float32),
    )
    named, matches = perception._read_seals(frame, detections, [None, None], odds)
    assert named.identities[0] is None and matches[0] is None
    assert named.identities[1] is not None and VALUES[named.identities[1]] == 3  # "-3" (penalty-7)
    assert matches[1] is not None and "dice-king/penalty-7" in matches[1].aliases
    odds[1, columns[0]] = 0.3  # unlikely a penalty card: its seal is not looked for
    unnamed = detections.with_fields(identities=np.array([None, None], object))
    named, _ = perception._read_seals(frame, unnamed, [None, None], odds)
    assert list(named.identities) == [None, None]
