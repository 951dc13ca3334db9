"""`table-companion dataset generate | preview | print`: files written, bad input exits 2."""

from __future__ import annotations

import json

import cv2
import pytest

from companion_app.cli import main


def _generate(tmp_path, name="ds", *extra):
    out = tmp_path / name
    status = main(
        [
            "dataset",
            "generate",
            "--out",
            str(out),
            "--count",
            "3",
            "--seed",
            "4",
            "--size",
            "160x120",
            "--no-progress",
            "--workers",
            "1",
            *extra,
        ]
    )
    return status, out


def test_generate_then_preview(tmp_path, capsys):
    status, out = _generate(tmp_path, "ds", "--json")
    assert status == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["images"] == 3 and summary["workers"] == 1
    assert len(list((out / "images").glob("*.jpg"))) == 3
    sheet = tmp_path / "sheet.png"
    assert main(["dataset", "preview", str(out), "--out", str(sheet), "--count", "2"]) == 0
    image = cv2.imread(str(sheet))
    assert image is not None and image.shape[0] > 50


def test_generate_eval_split_for_one_game(tmp_path):
    status, out = _generate(tmp_path, "ev", "--split", "eval", "--game", "kings-breakfast")
    assert status == 0
    record = json.loads((out / "truth.jsonl").read_text().splitlines()[0])
    assert record["split"] == "eval" and record["game"] == "kings-breakfast"
    identities = {o["identity"] for o in record["objects"] if o["identity"]}
    assert all(i.startswith("kings-breakfast/") for i in identities)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["dataset", "generate", "--out", "X", "--count", "0"], "count must be at least 1"),
        (["dataset", "generate", "--out", "X", "--count", "2", "--size", "big"], "bad size"),
        (["dataset", "preview", "NOPE", "--out", "s.png"], "no dataset in"),
        (
            ["dataset", "print", "dice-king", "--out", "x.pdf", "--card-size", "ax3"],
            "bad card size",
        ),
        (
            ["dataset", "print", "cafe-international", "--out", "x.pdf", "--tile-size", "-2"],
            "bad tile size",
        ),
        (["dataset"], "missing action"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, argv, message):
    monkeypatch.chdir(tmp_path)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_generate_refuses_an_existing_dataset(tmp_path, capsys):
    assert _generate(tmp_path)[0] == 0
    capsys.readouterr()
    assert _generate(tmp_path)[0] == 2
    assert "already holds a dataset" in capsys.readouterr().err


def test_print_writes_a_pdf(tmp_path, capsys):
    out = tmp_path / "kb.pdf"
    assert main(["dataset", "print", "kings-breakfast", "--out", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["pages"] >= 1
    assert out.read_bytes().startswith(b"%PDF")
