"""`python -m models.evaluate`: the synthetic set's measures, on a few rendered scenes."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from models.evaluate import corner_error

SQUARE = np.array([[10, 10], [110, 10], [110, 110], [10, 110]], np.float64)


def test_corner_error_is_relative_to_the_piece_and_ignores_which_corner_is_first() -> None:
    assert corner_error(SQUARE, SQUARE) == 0.0
    assert corner_error(np.roll(SQUARE, 1, axis=0), SQUARE) == 0.0
    # a face-down piece's truth lists its back's corners, the other way round in the image
    assert corner_error(SQUARE[::-1], SQUARE) == 0.0
    assert corner_error(SQUARE + [1.0, 0.0], SQUARE) == pytest.approx(0.01)
    assert corner_error(SQUARE * 2, SQUARE * 2 + [0.0, 4.0]) == pytest.approx(0.02)
    assert corner_error(np.full((4, 2), np.nan), SQUARE) == float("inf")


def test_synthetic_evaluation_reports_every_kind_and_corner_errors(tmp_path: Path) -> None:
    from models.data import build_scene_cache
    from models.evaluate import main

    scenes = build_scene_cache(tmp_path / "scenes", 4, seed=100, split="eval", progress=False)
    out = tmp_path / "eval"
    argv = ["--sets", "synthetic", "--synthetic", str(scenes), "--out", str(out)]
    assert main(argv) == 0
    summary = json.loads((out / "summary.json").read_text())["synthetic"]
    assert summary["images"] == 4 and summary["errors"] == 0
    for kind in ("card", "tile", "die"):
        recall = summary[kind]["recall"]
        assert recall is None or 0.0 <= recall <= 1.0
    errors = summary["corner_error"]
    assert errors, "the tables of the eval split have cards or tiles"
    for measures in errors.values():
        assert measures["pieces"] > 0
        assert 0.0 <= measures["within_0.02"] <= measures["within_0.05"] <= 1.0


def test_face_readers_are_given_as_prefix_and_probability(tmp_path: Path) -> None:
    """``--face-reader PREFIX=P`` is recorded in the summary; a malformed one is refused by
    argparse (exit 2) with the value named."""
    from models.data import build_scene_cache
    from models.evaluate import main

    scenes = build_scene_cache(tmp_path / "scenes", 1, seed=100, split="eval", progress=False)
    out = tmp_path / "eval"
    argv = ["--sets", "synthetic", "--synthetic", str(scenes), "--out", str(out)]
    assert main([*argv, "--face-reader", "dice-king/penalty-=0.98"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["face_readers"] == {"dice-king/penalty-": 0.98}
    for bad in ("dice-king/", "=0.9", "dice-king/=high"):
        with pytest.raises(SystemExit) as stop:
            main([*argv, "--face-reader", bad])
        assert stop.value.code == 2
