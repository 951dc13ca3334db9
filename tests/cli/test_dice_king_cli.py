"""`table-companion advise dice-king` and the Dice King terminal demo."""

from __future__ import annotations

import argparse
import io
import json
from pathlib import Path
from typing import Any

import pytest

from companion_app.cli import main
from companion_app.cli.dice_king import demo

STATE: dict[str, Any] = {
    "deck": "companion",
    "row": ["snob-1", "orc-3", "grim-elf-2", "dwarf-1", "dragon-1"],
    "dice": ["5r", "5g", "2b", "3r", "6g", "1b"],
    "rolls_left": 2,
}


def _write(tmp_path: Path, value: Any) -> str:
    path = tmp_path / "state.json"
    path.write_text(json.dumps(value), encoding="utf-8")
    return str(path)


def test_advise_json_follows_the_contract(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Contract: {"satisfied": [...], "keeps": [{"keep", "target", "probabilities"}, ...]}."""
    assert main(["advise", "dice-king", _write(tmp_path, STATE), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["satisfied"] == ["dwarf-1"]
    assert answer["keeps"][0]["target"] == "snob-1"
    for keep in answer["keeps"]:
        assert set(keep["probabilities"]) == set(STATE["row"])
        assert all(0.0 <= p <= 1.0 for p in keep["probabilities"].values())


def test_advise_reads_standard_input_and_prints_text(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(STATE)))
    assert main(["advise", "dice-king", "-"]) == 0
    out = capsys.readouterr().out
    assert "meets now: dwarf-1" in out
    assert "keep 1b 3r 5g 5r -> snob-1" in out


def test_advise_with_an_inline_deck_of_the_users_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Acceptance: the advisor follows the contract with an inline deck of a user's own."""
    deck = [
        {
            "id": "king-1",
            "type": "grim_elf",
            "colour": "city",
            "points": 5,
            "params": {"values": [6, 6]},
        },
        {
            "id": "king-2",
            "type": "fairy",
            "colour": "mine",
            "points": 1,
            "params": {"colours": {"g": 3}},
        },
    ]
    state = {
        "deck": deck,
        "row": ["king-1", "king-2"],
        "dice": ["6r", "1g", "2g", "3b", "4b", "5r"],
        "rolls_left": 1,
    }
    assert main(["advise", "dice-king", _write(tmp_path, state), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    best = max(k["probabilities"]["king-1"] for k in answer["keeps"])
    assert best == pytest.approx(1 - (5 / 6) ** 5)  # keep the six, one six among five dice


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"dice": ["7r", "5g", "2b", "3r", "6g", "1b"]}, "bad die '7r' in dice[0]"),
        ({"dice": ["5x", "5g", "2b", "3r", "6g", "1b"]}, "bad die '5x' in dice[0]"),
        ({"dice": ["5r", "5g"]}, "dice must list six dice, got 2"),
        ({"row": ["snob-1", "nobody-9"]}, "unknown card 'nobody-9' in row[1]"),
        (
            {
                "deck": [{"id": "a", "type": "troll", "colour": "city", "points": 1, "params": {}}],
                "row": ["a"],
            },
            "unknown card type 'troll'",
        ),
        ({"deck": "/no/such/deck.json"}, "cannot read deck"),
    ],
)
def test_bad_input_exits_2_with_the_reason(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict, fragment: str
) -> None:
    """Bad input: one line on stderr naming the problem, exit 2, no traceback."""
    assert main(["advise", "dice-king", _write(tmp_path, {**STATE, **change})]) == 2
    err = capsys.readouterr().err
    assert fragment in err and err.count("\n") == 1 and "Traceback" not in err


def test_malformed_json_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "broken.json"
    path.write_text("{", encoding="utf-8")
    assert main(["advise", "dice-king", str(path)]) == 2
    assert "malformed json" in capsys.readouterr().err


def test_demo_plays_a_seeded_game_to_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    """The demo prints each turn's rolls, keeps, the card taken or penalty, and final scores."""
    assert demo(argparse.Namespace(game="dice-king", seed=3, players=2, json=False)) == 0
    first = capsys.readouterr().out
    assert "turn 1:" in first and "roll 1:" in first and "final scores:" in first
    assert "takes " in first or "penalty" in first
    assert demo(argparse.Namespace(game="dice-king", seed=3, players=2, json=False)) == 0
    assert capsys.readouterr().out == first  # seeded: the same game again


def test_advise_text_says_when_a_village_comes_with_a_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DK-10 in the advice: snob-1 (city) under the city founds the city's village."""
    state = {**STATE, "dice": ["2r", "4r", "6b", "2g", "4g", "4b"], "rolls_left": 0}
    assert main(["advise", "dice-king", _write(tmp_path, state)]) == 0
    out = capsys.readouterr().out
    assert "snob-1 (3 pts + village)" in out and "dwarf-1 (1 pts)" in out


def test_demo_refuses_a_player_count_outside_2_to_5(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--text", "--game", "dice-king", "--players", "7"]) == 2
    assert "2-5 players" in capsys.readouterr().err
