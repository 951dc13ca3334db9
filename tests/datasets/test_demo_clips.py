"""The demo's bundled clips: they exist, decode, stay small, and their manifests replay on the
engines (every segment's state is the one the recorded steps produce)."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from datasets.demo_clips import (
    CLIP_FOLDER,
    GAMES,
    clip_path,
    load_manifest,
    manifest,
    segment_at,
    simulate,
)
from engines import game_rules

MB = 1_000_000


@pytest.mark.parametrize("game", GAMES)
def test_clip_exists_decodes_and_is_small(game: str) -> None:
    path = clip_path(game)
    assert path is not None, f"no bundled clip for {game}"
    data = load_manifest(game)
    assert path.stat().st_size + (CLIP_FOLDER / f"{game}.json").stat().st_size < 2 * MB
    capture = cv2.VideoCapture(str(path))
    frames = 0
    while True:
        ok, frame = capture.read()
        if not ok:
            break
        assert frame.shape == (data["size"][1], data["size"][0], 3)
        frames += 1
    capture.release()
    assert frames == data["frames"] > 0


def test_the_three_clips_are_under_5_mb() -> None:
    total = sum(p.stat().st_size for p in CLIP_FOLDER.iterdir() if p.is_file())
    assert total < 5 * MB


@pytest.mark.parametrize("game", GAMES)
def test_manifest_replays_on_the_engine(game: str) -> None:
    """Each segment's state is what the recorded steps produce from a new game."""
    data = load_manifest(game)
    rules = game_rules(game)
    state = rules.new_game(data["players"])
    for step in data["prelude"]:
        state = rules.apply(state, rules.action_from_json(step))
    previous_end = 0
    for k, segment in enumerate(data["segments"]):
        assert segment["start"] == previous_end < segment["end"]
        previous_end = segment["end"]
        if k == 0:
            assert segment["actions"] == []
        else:
            assert segment["actions"], "every later segment shows a change"
        for step in segment["actions"]:
            state = rules.apply(state, rules.action_from_json(step))
        assert rules.state_to_json(state) == segment["state"]
        assert rules.scores(state) == segment["scores"]
        assert segment["objects"], "the rendered pieces are recorded"
    assert previous_end == data["frames"]


@pytest.mark.parametrize("game", GAMES)
def test_manifest_is_the_seeded_simulation(game: str) -> None:
    data = load_manifest(game)
    again = manifest(simulate(game))
    for key in ("game", "players", "seed", "frames", "prelude"):
        assert again[key] == data[key]
    assert [s["state"] for s in again["segments"]] == [s["state"] for s in data["segments"]]


def test_segment_at_follows_frames_and_loops() -> None:
    data = load_manifest("dice-king")
    first, second = data["segments"][0], data["segments"][1]
    assert segment_at(data, 0) == 0
    assert segment_at(data, first["end"] - 1) == 0
    assert segment_at(data, second["start"]) == 1
    assert segment_at(data, data["frames"] - 1) == len(data["segments"]) - 1
    assert segment_at(data, data["frames"]) == 0  # the clip loops


def test_unknown_game_and_bad_manifest_are_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown game"):
        simulate("chess")
    (tmp_path / "dice-king.json").write_text('{"format": 0}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a format-1"):
        load_manifest("dice-king", tmp_path)
    assert clip_path("dice-king", tmp_path) is None
