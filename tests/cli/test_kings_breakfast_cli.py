"""`table-companion score/advise/demo` for King's Breakfast (KB-19..KB-23 through the CLI)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

import engines.kings_breakfast as kb
from companion_app.cli import main
from tests.engines.kings_breakfast.factories import position

DESIGN_COUNTS = {
    "king": {"cheese": 4, "bread": 2},
    "players": {"Anna": {"cheese": 3}, "Ben": {"cheese": 5, "bread": 1}},
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


def test_kb21_acceptance_command_prints_the_contract_json() -> None:
    """KB-21: the issue's acceptance command, through the installed console script."""
    script = Path(sys.executable).with_name("table-companion")
    completed = subprocess.run(
        [str(script), "score", "kings-breakfast", "--counts", "-", "--json"],
        input='{"king": {"cheese": 4}, "players": {"Anna": {"cheese": 3}}}',
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout) == {
        "players": {"Anna": {"total": 12, "discarded": 0, "by_food": {"cheese": 12}}},
        "ranking": ["Anna"],
        "winners": ["Anna"],
    }


def test_kb20_kb23_design_example_from_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """KB-20..KB-23: the design's example, JSON from a file, one line of JSON out."""
    counts = tmp_path / "counts.json"
    counts.write_text(json.dumps(DESIGN_COUNTS), encoding="utf-8")
    code, out, err = _run(
        ["score", "kings-breakfast", "--counts", str(counts), "--json"], capsys, monkeypatch
    )
    assert (code, err) == (0, "")
    assert out.count("\n") == 1
    assert json.loads(out) == kb.scores_from_counts(DESIGN_COUNTS)
    assert json.loads(out)["players"]["Ben"] == {
        "total": 2,
        "discarded": 5,
        "by_food": {"cheese": 0, "bread": 2},
    }


def test_kb23_readable_table_without_json(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """KB-23: the table lists players in ranking order and names the winner."""
    code, out, _ = _run(
        ["score", "kings-breakfast", "--counts", "-"],
        capsys,
        monkeypatch,
        json.dumps(DESIGN_COUNTS),
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[1].split()[:4] == ["1", "Anna", "12", "0"]
    assert lines[2].split()[:4] == ["2", "Ben", "2", "5"]
    assert lines[-1] == "winner: Anna"


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ('{"king": {', "malformed json in counts"),
        ("", "is empty"),
        ('{"king": {}, "players": {"Anna": {"bacon": 1}}}', "unknown food 'bacon' in players.Anna"),
        ('{"king": {}, "players": {"Anna": {"ham": -2}}}', "players.Anna.ham"),
        ('{"king": {"ham": 2.5}, "players": {"Anna": {}}}', "king.ham"),
        ('{"king": {}, "players": {"Anna": {"ham": true}}}', "players.Anna.ham"),
        ('{"king": {}, "players": {}}', "no players"),
        ('{"king": {"emerald": 1}, "players": {"Anna": {}}}', "king.emerald"),
        ("[1, 2]", "counts must be a json object"),
    ],
)
def test_bad_counts_exit_2_with_one_line(
    stdin: str, message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bad input: exit 2, one line on stderr naming the problem, nothing on stdout."""
    code, out, err = _run(
        ["score", "kings-breakfast", "--counts", "-", "--json"], capsys, monkeypatch, stdin
    )
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_score_needs_counts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --counts (or with photos, not available yet) the command says so and exits 2."""
    code, _, err = _run(["score", "kings-breakfast"], capsys, monkeypatch)
    assert code == 2 and "--counts" in err
    code, _, err = _run(["score", "kings-breakfast", "--king", "k.jpg"], capsys, monkeypatch)
    assert code == 2 and "photos" in err


def test_advise_lists_hints_from_a_public_view(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """KB-10..KB-13: every legal action of the player to act, as hints, from the table's view."""
    state = position(3, offer={"cheese": 2, "wine": 1}, king={"cheese": 2}, drawn={0: {"ham": 1}})
    view = {**kb.public_view(state), "hand": {"ham": 1}}
    code, out, _ = _run(
        ["advise", "kings-breakfast", "-", "--json"], capsys, monkeypatch, json.dumps(view)
    )
    assert code == 0
    result = json.loads(out)
    assert len(result["actions"]) == len(kb.legal_actions(state))
    code, out, _ = _run(["advise", "kings-breakfast", "-"], capsys, monkeypatch, json.dumps(view))
    assert code == 0 and "takes the cheese pile" in out


def test_kb9_kb15_kb18_demo_plays_a_whole_game_round_by_round(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """KB-9 (each player acts once a round), KB-15 (king's totals), KB-18 (the end): the demo."""
    code, out, _ = _run(
        ["demo", "--text", "--seed", "3", "--players", "4", "--json"], capsys, monkeypatch
    )
    assert code == 0
    log = json.loads(out)
    assert log["players"] == ["Anna", "Ben", "Cleo", "Dan"]
    for record in log["rounds"]:
        assert sorted(turn["player"] for turn in record["turns"]) == sorted(log["players"])
        assert "king" in record and "offer" in record
    assert sum(log["unused"].values()) < 8  # KB-18
    counts = {"king": log["king"], "players": log["hands"]}
    assert kb.scores_from_counts(counts) == log["scores"]

    code, text, _ = _run(["demo", "--text", "--seed", "3", "--players", "4"], capsys, monkeypatch)
    assert code == 0
    assert text.count("Round ") == len(log["rounds"])
    assert "king: " in text and "winner" in text
    _, again, _ = _run(["demo", "--text", "--seed", "3", "--players", "4"], capsys, monkeypatch)
    _, other, _ = _run(["demo", "--text", "--seed", "4", "--players", "4"], capsys, monkeypatch)
    assert again == text and other != text


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["demo", "--text", "--screenshot", "out.png"], "--screenshot needs the app window"),
        (["demo", "--text", "--players", "2"], "KB-3"),
    ],
)
def test_demo_refusals_exit_2_in_one_line(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Screenshots need the app window, not the terminal; KB-3 player counts."""
    code, _, err = _run(argv, capsys, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and message in err
