"""`table-companion advise cafe-international`, `layout show|trace` and the Café demo."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

from companion_app.cli import main
from tests.engines.cafe_international.factory import mini_layout_json

POSITION = {
    "seated": {"a1": "italy/w", "a2": "italy/m"},
    "bar": ["france/w"],
    "hand": ["italy/w", "joker/m", "germany/w"],
    "first_turn_of_game": False,
}


def _run(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: str = "",
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(autouse=True)
def _own_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABLE_COMPANION_HOME", str(tmp_path / "home"))


def test_ci18_advise_on_an_inline_own_layout_prints_readable_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI-18, CI-20 through the CLI: the best line names tables, chairs, points and hand."""
    state = json.dumps(POSITION | {"layout": mini_layout_json()})
    code, out, err = _run(["advise", "cafe-international", "-"], capsys, monkeypatch, state)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[3].endswith(": 14 points, hand −1")
    assert "at T1 (a3)" in lines[3] and "T1/T2 (s12)" in lines[3]
    assert any("Bar: Italy ♀ on stool 2: +2 points" in line for line in lines)


def test_advise_json_follows_the_contract(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The design's answer shape, with the layout given as a path beside the state file."""
    (tmp_path / "kitchen.json").write_text(json.dumps(mini_layout_json()), encoding="utf-8")
    state_file = tmp_path / "state.json"
    state_file.write_text(json.dumps(POSITION | {"layout": "kitchen.json"}), encoding="utf-8")
    monkeypatch.chdir("/")
    code, out, _ = _run(
        ["advise", "cafe-international", str(state_file), "--json"], capsys, monkeypatch
    )
    assert code == 0
    answer = json.loads(out)
    assert set(answer) == {"actions"}
    best = answer["actions"][0]
    assert best["points"] == 14 and best["hand_limit_change"] == -1
    types = {entry["type"] for entry in answer["actions"]}
    assert types == {"seat", "bar"}
    for entry in answer["actions"]:
        if entry["type"] == "seat":
            assert 1 <= len(entry["placements"]) <= 2
        else:
            assert entry["stool"] == 2 and entry["tile"] in {"italy/w", "germany/w"}


def test_advise_on_the_reference_board_through_the_console_script() -> None:
    script = Path(sys.executable).with_name("table-companion")
    state = {
        "layout": "reference",
        "seated": {"C08": "china/w", "C07": "china/m"},
        "hand": ["china/m", "russia/m"],
    }
    completed = subprocess.run(
        [str(script), "advise", "cafe-international", "-", "--json"],
        input=json.dumps(state),
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["actions"][0]["type"] == "seat"


@pytest.mark.parametrize(
    ("change", "reasons"),
    [
        (
            {"seated": {"a1": "italy/m", "a2": "italy/m", "a3": "italy/m", "s12": "italy/w"}},
            ["CI-10: table T1 has three men"],
        ),
        ({"seated": {"b1": "germany/w", "b2": "france/m"}}, ["CI-8: germany/w at chair b1"]),
        ({"seated": {"x9": "italy/w"}}, ["CI-3: unknown chair 'x9'"]),
        ({"hand": ["italy/wife"]}, ["CI-2: unknown tile 'italy/wife' in hand"]),
        (
            {"seated": {"b1": "germany/w", "d1": "italy/m", "d2": "italy/m", "d3": "italy/m"}},
            ["CI-10: table T4 has three men", "CI-8: germany/w at chair b1"],
        ),
    ],
)
def test_bad_positions_exit_2_with_every_reason_on_one_line(
    change: dict,
    reasons: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CI-2, CI-3, CI-8, CI-10: refused with exit 2, all reasons in one line, no traceback."""
    state = json.dumps(POSITION | {"layout": mini_layout_json()} | change)
    code, out, err = _run(["advise", "cafe-international", "-"], capsys, monkeypatch, state)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    for reason in reasons:
        assert reason in err


@pytest.mark.parametrize(
    ("layout", "reason"),
    [
        (
            {
                "tables": [{"id": "T", "nationality": "italy"}],
                "chairs": [{"id": "c", "tables": ["T"]}],
                "bar": {"values": [1] * 20},
            },
            "table 'T' has 1 chairs, expected 4",
        ),
        ("missing.json", "unknown layout 'missing.json'"),
        ({"tables": [{"id": "T", "nationality": "mars"}]}, "unknown nationality 'mars'"),
    ],
)
def test_malformed_layouts_exit_2(
    layout: object,
    reason: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CI-3: a malformed layout is refused with the reason."""
    state = json.dumps(POSITION | {"layout": layout})
    code, _, err = _run(["advise", "cafe-international", "-"], capsys, monkeypatch, state)
    assert code == 2 and reason in err and err.count("\n") == 1


def test_malformed_json_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = _run(["advise", "cafe-international", "-"], capsys, monkeypatch, "{nope")
    assert code == 2 and "malformed json" in err


def test_ci3_layout_show_draws_the_reference_board(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """CI-3, CI-4, CI-5: the diagram is written; the alternative bar reading can be chosen."""
    out_png = tmp_path / "board.png"
    code, out, _ = _run(
        ["layout", "show", "reference", "--out", str(out_png), "--bar", "alternative", "--json"],
        capsys,
        monkeypatch,
    )
    assert code == 0
    summary = json.loads(out)
    assert (summary["tables"], summary["chairs"], summary["shared_chairs"]) == (24, 68, 28)
    assert summary["bar_values"][-1] == -30
    image = cv2.imread(str(out_png))
    assert image is not None and image.shape[1] == 1400 and image.shape[0] > 1000
    assert len({tuple(p) for p in image.reshape(-1, 3)[::97]}) > 50  # a picture, not a blank


def test_layout_show_a_saved_own_layout_by_name(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A user's own printing saved under the data folder's layouts/ is found by name."""
    folder = tmp_path / "home" / "layouts"
    folder.mkdir(parents=True)
    (folder / "kitchen.json").write_text(json.dumps(mini_layout_json()), encoding="utf-8")
    out_png = tmp_path / "kitchen.png"
    code, out, _ = _run(["layout", "show", "kitchen", "--out", str(out_png)], capsys, monkeypatch)
    assert code == 0 and out_png.is_file() and "4 tables, 14 chairs (2 shared)" in out


def test_layout_show_bad_input_exits_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    code, _, err = _run(
        ["layout", "show", "reference", "--out", str(tmp_path / "x.png"), "--bar", "odd"],
        capsys,
        monkeypatch,
    )
    assert code == 2 and "unknown bar reading 'odd'" in err
    code, _, err = _run(["layout", "show", "reference", "--out", "x.jpg"], capsys, monkeypatch)
    assert code == 2 and "--out must name a .png file" in err


def test_layout_trace_of_a_missing_photo_is_refused_in_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _, err = _run(["layout", "trace", "photo.jpg", "--out", "l.json"], capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "photo.jpg" in err


def test_ci21_demo_plays_a_seeded_game_to_its_end(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """CI-21, CI-22 in the demo: turns, the bar tally, scores and the final result."""
    code, out, _ = _run(
        ["demo", "--text", "--game", "cafe-international", "--seed", "3"], capsys, monkeypatch
    )
    assert code == 0
    assert "turn  1" in out and "bar " in out and "Game over:" in out and "Winner" in out
    code, again, _ = _run(
        ["demo", "--text", "--game", "cafe-international", "--seed", "3"], capsys, monkeypatch
    )
    assert again == out
