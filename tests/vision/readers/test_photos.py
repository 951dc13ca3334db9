"""Photos for scoring: detect --json files to Detections, NAME=IMG options."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.readers.photos import (
    PhotoError,
    detections_from_json,
    parse_player_photos,
    photo_detections,
)

DETECT = {
    "image": "a.jpg",
    "width": 640,
    "height": 480,
    "objects": [
        {"kind": "die", "box": [1, 2, 11, 12], "score": 0.98, "value": 5, "colour": "r"},
        {
            "kind": "card",
            "box": [10, 10, 50, 80],
            "corners": [[10, 10], [50, 10], [50, 80], [10, 80]],
            "score": 0.95,
            "identity": "kings-breakfast/cheese",
            "identity_score": 0.91,
        },
    ],
}


def test_detect_json_reads_back_into_detections(tmp_path: Path) -> None:
    """The design's detect object round-trips: kinds, values, colours, identities."""
    det, size = detections_from_json(DETECT)
    assert size == (640, 480) and len(det) == 2
    assert list(det.kinds) == ["die", "card"]
    assert int(det.die_values[0]) == 5 and det.die_colours[0] == "r"
    assert det.identities[1] == "kings-breakfast/cheese"
    path = tmp_path / "a.json"
    path.write_text(json.dumps(DETECT), encoding="utf-8")
    assert len(photo_detections(str(path))[0]) == 2


def test_bad_photos_are_refused_with_the_photo_named(tmp_path: Path) -> None:
    """Missing files, non-detections JSON, unreadable images: one-line messages."""
    with pytest.raises(PhotoError, match="does not exist"):
        photo_detections(str(tmp_path / "none.jpg"))
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    with pytest.raises(PhotoError, match="objects"):
        photo_detections(str(bad))
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image")
    with pytest.raises(PhotoError, match="not a readable image"):
        photo_detections(str(junk))


def test_player_photo_options_are_parsed_in_order() -> None:
    """NAME=IMG, each name once."""
    assert parse_player_photos(["Anna=a.jpg", "Ben = b.json"]) == {"Anna": "a.jpg", "Ben": "b.json"}
    with pytest.raises(PhotoError, match="NAME=IMG"):
        parse_player_photos(["Anna"])
    with pytest.raises(PhotoError, match="given twice"):
        parse_player_photos(["Anna=a", "Anna=b"])


def test_scoring_photos_are_matched_within_the_game_and_more_strictly() -> None:
    """A scoring photo's pieces are matched only against the scored game's pieces, with the
    stricter photo threshold (a wrong name would change the score), a piece found twice kept
    once; one pipeline per game."""
    from vision.readers.photos import (
        PHOTO_CARD_DETECTION_SCORE,
        PHOTO_DETECTION_SCORE,
        PHOTO_DUPLICATE_OVERLAP,
        PHOTO_MIN_SCORE,
        perception_for,
    )

    perception = perception_for("dice-king")
    assert perception.games == ("dice-king",)
    assert perception.config.duplicate_overlap == PHOTO_DUPLICATE_OVERLAP
    assert perception.config.piece_kind == "card"
    assert perception_for("cafe-international").config.piece_kind == "tile"
    # lower than the live table's 0.35 (a piece never found is left out of the score), and
    # lowest for tiles (the detector finds some true tiles weakly)
    thresholds = perception.config.detector.score_thresholds
    assert set(thresholds.values()) == {PHOTO_CARD_DETECTION_SCORE} and thresholds["card"] < 0.35
    cafe = perception_for("cafe-international").config.detector.score_thresholds
    assert set(cafe.values()) == {PHOTO_DETECTION_SCORE}
    assert PHOTO_DETECTION_SCORE < PHOTO_CARD_DETECTION_SCORE
    assert perception.identifier.config.min_score == PHOTO_MIN_SCORE > 0.6
    assert perception_for("dice-king") is perception
    assert perception_for("kings-breakfast") is not perception
    # a 16:9 photo reaches the detector as tall as a 4:3 one (Café's tiles too, since their
    # weak boxes are no longer dropped for the cloth's colours when the reader reads them)
    assert perception.detector.scales(1280, 720)[0] == pytest.approx(480 / 720)
    assert perception.detector.scales(800, 600)[0] == pytest.approx(0.8)
    cafe_scale = perception_for("cafe-international").detector.scales(1280, 720)[0]
    assert cafe_scale == pytest.approx(480 / 720)


def test_scoring_photos_use_the_photo_piece_reader_and_the_live_pipeline_the_default() -> None:
    """Scoring photos read pieces with the reader trained on spreads and the cloth beside them
    (`PHOTO_PIECE_MODEL`); other pipelines keep the default reader. Both know the same faces."""
    from vision.piece_reader import DEFAULT_MODEL
    from vision.pipeline import Perception
    from vision.readers.photos import PHOTO_PIECE_MODEL, perception_for

    photo_reader = perception_for("kings-breakfast").piece_reader
    live_reader = Perception(games=["kings-breakfast"]).piece_reader
    assert photo_reader is not None and live_reader is not None
    assert photo_reader.model_path == PHOTO_PIECE_MODEL != DEFAULT_MODEL
    assert live_reader.model_path == DEFAULT_MODEL
    assert photo_reader.classes == live_reader.classes


def test_an_unidentified_piece_is_named_by_its_place_in_the_spread() -> None:
    """A refused scoring photo says where the piece to put right lies, by thirds of the spread."""
    from vision.readers import spread_place, unidentified_problem

    grid = np.array(
        [[x, y, x + 50, y + 70] for y in (0, 80, 160) for x in (0, 60, 120)], np.float64
    )
    assert [spread_place(grid, i) for i in range(9)] == [
        "top left", "top", "top right",
        "left", "middle", "right",
        "bottom left", "bottom", "bottom right",
    ]  # fmt: skip
    row = np.array([[x, 0, x + 50, 70] for x in (0, 60, 120, 180)], np.float64)
    assert [spread_place(row, i) for i in (0, 1, 3)] == ["left", "middle", "right"]
    assert spread_place(row[:1], 0) == ""  # one piece: no place to name
    assert unidentified_problem("photo of Anna", "tile", grid, 2) == (
        "a tile in the photo of Anna could not be identified (top right of the spread)"
    )
    assert unidentified_problem("photo", "card", row[:1], 0) == (
        "a card in the photo could not be identified"
    )
