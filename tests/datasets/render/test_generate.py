"""The generation driver: files, order, determinism regardless of the number of workers."""

from __future__ import annotations

import json

import pytest

from datasets.generate import GenerateConfig, generate, parse_size
from datasets.render.labels import CLASSES


def _run(tmp_path, name, workers, **overrides):
    config = GenerateConfig(out_dir=tmp_path / name, count=4, seed=9, size=(160, 120), **overrides)
    return generate(config, workers=workers, progress=False)


def test_output_layout_and_truth_order(tmp_path):
    summary = _run(tmp_path, "a", 1)
    out = summary.out_dir
    assert (out / "classes.txt").read_text().split() == list(CLASSES)
    lines = (out / "truth.jsonl").read_text().splitlines()
    assert [json.loads(line)["index"] for line in lines] == [0, 1, 2, 3]
    for line in lines:
        record = json.loads(line)
        stem = record["image"].removeprefix("images/").removesuffix(".jpg")
        assert (out / record["image"]).is_file()
        labels = (out / "labels" / f"{stem}.txt").read_text().splitlines()
        assert len(labels) == sum(o["target"] for o in record["objects"])


def test_same_files_with_one_or_two_workers(tmp_path):
    one = _run(tmp_path, "one", 1, game="dice-king").out_dir
    two = _run(tmp_path, "two", 2, game="dice-king").out_dir
    assert (one / "truth.jsonl").read_bytes() == (two / "truth.jsonl").read_bytes()
    for image in sorted((one / "images").iterdir()):
        assert image.read_bytes() == (two / "images" / image.name).read_bytes()


def test_refuses_to_overwrite_a_dataset(tmp_path):
    _run(tmp_path, "a", 1)
    with pytest.raises(ValueError, match="already holds a dataset"):
        _run(tmp_path, "a", 1)


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"count": 0}, "count must be at least 1"),
        ({"size": (10, 480)}, "size 10x480 out of range"),
        ({"game": "chess"}, "unknown game 'chess'"),
        ({"split": "test"}, "unknown split 'test'"),
    ],
)
def test_bad_config_is_rejected(tmp_path, overrides, message):
    params = {"out_dir": tmp_path / "x", "count": 2, **overrides}
    with pytest.raises(ValueError, match=message):
        GenerateConfig(**params).check()


@pytest.mark.parametrize(("text", "size"), [("640x480", (640, 480)), ("320X240", (320, 240))])
def test_parse_size(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["640", "axb", "640x480x3", "-1x5"])
def test_parse_size_rejects_bad_text(text):
    with pytest.raises(ValueError, match="bad size"):
        parse_size(text)
