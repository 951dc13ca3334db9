"""`table-companion layout trace PHOTO --out LAYOUT.json [--corners …] [--json]`."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from companion_app.cli import main
from engines.cafe_international import layout_from_json
from tests.vision.test_layout_trace import own_board, photograph, reference_art


def _run(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_COMPANION_HOME", str(tmp_path / "home"))


@pytest.fixture(scope="module")
def reference_photo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray]:
    """A photo of the companion board (JPEG) and the board's corners in it."""
    photo, quad = photograph(reference_art(), 11, tilt=30.0, yaw=4.0)
    path = tmp_path_factory.mktemp("photos") / "board.jpg"
    cv2.imwrite(str(path), photo)
    return path, quad


def test_trace_writes_a_layout_the_loader_accepts_and_says_what_to_do_next(
    reference_photo: tuple[Path, np.ndarray],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, _ = reference_photo
    out = tmp_path / "mine.json"
    code, text, err = _run(["layout", "trace", str(path), "--out", str(out)], capsys, monkeypatch)
    assert code == 0 and err == ""
    assert f"wrote {out}: 24 tables, 68 chairs (28 shared), 20 bar stools" in text
    assert "nationalities (guessed from the flags): T01 " in text
    assert "the layout loads as it is" in text
    assert f"next: table-companion layout show {out} --out check.png" in text
    written = out.read_text(encoding="utf-8")
    # one table or chair per line, for editing by hand
    assert sum(line.startswith('    {"id": "C') for line in written.splitlines()) == 68
    layout = layout_from_json(json.loads(written))
    assert layout.name == "board" and len(layout.tables) == 24 and layout.stools is not None
    # the next step works on what was written
    png = tmp_path / "check.png"
    code, text, _ = _run(["layout", "show", str(out), "--out", str(png)], capsys, monkeypatch)
    assert code == 0 and png.is_file() and "24 tables, 68 chairs (28 shared)" in text


def test_trace_json_with_given_corners(
    reference_photo: tuple[Path, np.ndarray],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, quad = reference_photo
    corners = ",".join(f"{v:.1f}" for v in quad.reshape(-1))
    out = tmp_path / "given.json"
    argv = ["layout", "trace", str(path), "--out", str(out), "--corners", corners, "--json"]
    argv += ["--name", "kitchen"]
    code, text, _ = _run(argv, capsys, monkeypatch)
    assert code == 0
    answer = json.loads(text)
    assert answer["out"] == str(out) and answer["corners_given"] is True
    assert (answer["tables"], answer["chairs"], answer["shared_chairs"], answer["stools"]) == (
        24,
        68,
        28,
        20,
    )
    assert answer["valid"] is True and answer["problems"] == []
    assert len(answer["nationalities"]) == 24
    assert answer["next"].startswith("table-companion layout show ")
    assert json.loads(out.read_text(encoding="utf-8"))["name"] == "kitchen"


def test_trace_reports_the_loaders_problems_but_still_writes_the_layout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hand-drawn board with one chair missing: written, with the problem named for editing."""
    image = own_board()
    image[160 - 40 : 160 + 41, 300 - 40 : 300 + 41] = (150, 120, 95)  # chair C1 (150, 80) × 2
    photo, _ = photograph(image, 12, tilt=20.0, size=(1200, 900))
    path = tmp_path / "own.png"
    cv2.imwrite(str(path), photo)
    out = tmp_path / "own.json"
    code, text, _ = _run(["layout", "trace", str(path), "--out", str(out)], capsys, monkeypatch)
    assert code == 0 and out.is_file()
    assert "3 tables, 10 chairs (1 shared), 0 bar stools" in text
    assert "problems (the layout will not load until fixed): table 'T01' has 3 chairs" in text
    assert "found 0 bar stools, not 20" in text


@pytest.mark.parametrize(
    ("extra", "reason"),
    [
        (["--corners", "1,2,3"], "--corners must be 8 numbers"),
        (["--corners", "a,b,c,d,e,f,g,h"], "--corners must be 8 numbers"),
        (["--corners", "0,0,100,100,100,0,0,100"], "convex quadrilateral"),
    ],
)
def test_bad_corners_exit_2(
    extra: list[str],
    reason: str,
    reference_photo: tuple[Path, np.ndarray],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path, _ = reference_photo
    argv = ["layout", "trace", str(path), "--out", str(tmp_path / "x.json"), *extra]
    code, _, err = _run(argv, capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and reason in err
    assert not (tmp_path / "x.json").exists()


def test_photo_without_a_board_exits_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "wall.png"
    cv2.imwrite(str(path), np.full((480, 640, 3), 200, np.uint8))
    out = tmp_path / "x.json"
    code, _, err = _run(["layout", "trace", str(path), "--out", str(out)], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "no board found" in err
    assert "--corners" in err and "Traceback" not in err
    assert not out.exists()


@pytest.mark.parametrize(
    ("photo", "out", "reason"),
    [
        ("missing.jpg", "x.json", "photo 'missing.jpg' not found"),
        ("notes.txt", "x.json", "is not an image opencv can read"),
        ("wall.png", "x.png", "--out must name a .json file"),
    ],
)
def test_bad_paths_exit_2(
    photo: str,
    out: str,
    reason: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("not a photo", encoding="utf-8")
    cv2.imwrite(str(tmp_path / "wall.png"), np.full((48, 64, 3), 200, np.uint8))
    code, _, err = _run(["layout", "trace", photo, "--out", out], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and reason in err
