"""``table-companion detect``: the contract JSON per image, bad input per image, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion_app.cli import main
from tests.vision.test_pips import drawn_die
from vision.detector import DEFAULT_MODEL as DETECTOR
from vision.dice_reader import DEFAULT_MODEL as READER

pytestmark = pytest.mark.skipif(
    not (DETECTOR.exists() and READER.exists()), reason="no committed models"
)


def lines(capsys: pytest.CaptureFixture[str]) -> list[dict]:
    return [json.loads(line) for line in capsys.readouterr().out.splitlines()]


@pytest.fixture()
def images(tmp_path: Path) -> dict[str, Path]:
    frame, _ = drawn_die(4)
    paths = {
        "colour": tmp_path / "die.png",
        "grey": tmp_path / "grey.png",
        "deep": tmp_path / "deep.png",
        "tiny": tmp_path / "tiny.png",
        "empty": tmp_path / "empty.jpg",
        "text": tmp_path / "text.jpg",
    }
    cv2.imwrite(str(paths["colour"]), frame)
    cv2.imwrite(str(paths["grey"]), cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY))
    cv2.imwrite(str(paths["deep"]), frame.astype(np.uint16) * 257)
    cv2.imwrite(str(paths["tiny"]), np.zeros((1, 1, 3), np.uint8))
    paths["empty"].write_bytes(b"")
    paths["text"].write_text("not an image")
    return paths


def test_json_line_per_image_in_contract_shape(images, capsys) -> None:
    assert main(["detect", str(images["colour"]), "--json"]) == 0
    (line,) = lines(capsys)
    assert list(line) == ["image", "width", "height", "objects"]
    assert (line["image"], line["width"], line["height"]) == (str(images["colour"]), 200, 200)
    for obj in line["objects"]:
        assert obj["kind"] in {"card", "tile", "die"}
        assert len(obj["box"]) == 4 and 0.0 <= obj["score"] <= 1.0
        if obj["kind"] == "die":
            assert set(obj) == {"kind", "box", "score", "value", "colour"}
        else:
            assert set(obj) == {"kind", "box", "corners", "score", "identity", "identity_score"}


def test_grey_and_16_bit_images_are_converted(images, capsys) -> None:
    assert main(["detect", str(images["grey"]), str(images["deep"]), "--json"]) == 0
    grey, deep = lines(capsys)
    assert "error" not in grey and "error" not in deep
    assert grey["width"] == deep["width"] == 200


@pytest.mark.parametrize(
    ("name", "fragment"),
    [("tiny", "frame too small: 1x1"), ("empty", "is empty"), ("text", "not a readable image")],
)
def test_bad_image_gets_an_error_line_and_others_still_run(images, capsys, name, fragment) -> None:
    assert main(["detect", str(images[name]), str(images["colour"]), "--json"]) == 0
    bad, good = lines(capsys)
    assert fragment in bad["error"] and bad["objects"] == []
    assert "error" not in good


def test_missing_file_gets_an_error_line(images, capsys, tmp_path) -> None:
    assert main(["detect", str(tmp_path / "nope.jpg"), str(images["colour"]), "--json"]) == 0
    missing, _ = lines(capsys)
    assert "cannot read image" in missing["error"] and missing["width"] is None


def test_exit_2_when_no_image_could_be_processed(images, capsys) -> None:
    assert main(["detect", str(images["empty"]), str(images["tiny"]), "--json"]) == 2
    captured = capsys.readouterr()
    assert len(captured.out.splitlines()) == 2
    assert "no image could be processed" in captured.err


def test_text_summary_without_json(images, capsys) -> None:
    assert main(["detect", str(images["colour"]), str(images["empty"])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{images['colour']} 200x200: ")
    assert out[1] == f"{images['empty']}: error: image {str(images['empty'])!r} is empty"
