"""`table-companion score GAME --king IMG --player NAME=IMG …`: final scores from photos.

Photos are given as their `detect --json` output (built here from projected truth, as a perfect
detector would report them), so these tests check the readers and scoring, not the detector.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import cv2
import numpy as np
import pytest

import engines.cafe_international as ci
import engines.dice_king as dk
import engines.kings_breakfast as kb
from companion_app.cli import main
from datasets.state_render import (
    detections_from_truth,
    place_spread,
    project_pieces,
    spread_camera,
)
from engines.api import random_step


def _photo(tmp_path: Path, name: str, identities: list[str], seed: int = 0) -> str:
    """A detect --json file of the pieces `identities` spread out (truth-derived)."""
    rng = np.random.default_rng(seed)
    pieces = place_spread(identities, rng)
    camera = spread_camera(pieces, (800, 600), rng)
    det = detections_from_truth(project_pieces(pieces, camera))
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(det.to_json(f"{name}.jpg", 800, 600)), encoding="utf-8")
    return str(path)


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def _kb_ids(counts: dict[str, int]) -> list[str]:
    return [f"kings-breakfast/{food}" for food, n in counts.items() for _ in range(n)]


def test_kb21_scores_from_photos_match_scores_from_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """KB-19..KB-23: the photos' counts give the same JSON as --counts, plus what was seen."""
    king = {"cheese": 4, "bread": 2}
    hands = {"Anna": {"cheese": 3}, "Ben": {"cheese": 5, "bread": 1}}
    counts = {"king": king, "players": hands}
    argv = [
        "score",
        "kings-breakfast",
        "--king",
        _photo(tmp_path, "king", _kb_ids(king)),
        "--json",
    ]
    for i, (name, hand) in enumerate(hands.items()):
        argv += ["--player", f"{name}={_photo(tmp_path, name, _kb_ids(hand), i + 1)}"]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    result = json.loads(out)
    expected = kb.scores_from_counts(counts)
    assert {k: result[k] for k in expected} == expected
    assert result["seen"]["king"]["cards"] == {"bread": 2, "cheese": 4}
    assert result["seen"]["players"]["Ben"]["cards"] == {"bread": 1, "cheese": 5}


def test_kb21_scores_from_photos_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --json: the ranking table and what was seen in the king's area."""
    code, out, _ = _run(
        [
            "score",
            "kings-breakfast",
            "--king",
            _photo(tmp_path, "king", _kb_ids({"ham": 2})),
            "--player",
            f"Anna={_photo(tmp_path, 'a', _kb_ids({'ham': 1}))}",
        ],
        capsys,
    )
    assert code == 0 and "Anna" in out and "seen: king ham 2" in out


@pytest.mark.parametrize(
    ("king", "message"),
    [
        ([], "no cards found in the king photo"),
        (["cafe-international/italy/w"], "is not a kings-breakfast piece"),
    ],
)
def test_bad_photos_exit_2_with_a_clear_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], king: list[str], message: str
) -> None:
    """A photo with no pieces or of the wrong game: exit 2, one line, never a made-up score."""
    hand = _photo(tmp_path, "a", _kb_ids({"ham": 1}))
    code, out, err = _run(
        [
            "score",
            "kings-breakfast",
            "--king",
            _photo(tmp_path, "k", king),
            "--player",
            f"Anna={hand}",
        ],
        capsys,
    )
    assert code == 2 and out == ""
    assert message in err and len(err.strip().splitlines()) == 1


def test_an_image_without_pieces_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An image of an empty table: refused (no detector yet, or no pieces found)."""
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((120, 160, 3), 90, np.uint8))
    code, out, err = _run(
        ["score", "kings-breakfast", "--king", str(blank), "--player", f"Anna={blank}"], capsys
    )
    assert code == 2 and out == "" and "blank.png" in err


def test_kb_photos_need_the_kings_area_and_the_player_option_form(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Usage errors name what is missing."""
    hand = _photo(tmp_path, "a", _kb_ids({"ham": 1}))
    code, _, err = _run(["score", "kings-breakfast", "--player", f"Anna={hand}"], capsys)
    assert code == 2 and "--king IMG" in err
    code, _, err = _run(["score", "kings-breakfast", "--king", hand, "--player", "Anna"], capsys)
    assert code == 2 and "NAME=IMG" in err


def test_ci22_remaining_tiles_are_subtracted_from_the_running_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CI-22: 5 per tile and 10 per joker left in hand, from the running scores."""
    scores = tmp_path / "scores.json"
    scores.write_text(json.dumps({"Anna": 40, "Ben": 38}), encoding="utf-8")
    photo = _photo(tmp_path, "anna", ["cafe-international/joker/w", "cafe-international/italy/m"])
    code, out, err = _run(
        [
            "score",
            "cafe-international",
            "--scores",
            str(scores),
            "--player",
            f"Anna={photo}",
            "--json",
        ],
        capsys,
    )
    assert code == 0, err
    result = json.loads(out)
    assert result["players"]["Anna"] == {
        "total": 25,
        "running": 40,
        "penalty": 15,
        "tiles": ["italy/m", "joker/w"],
    }
    assert result["players"]["Ben"]["total"] == 38
    assert result["ranking"] == ["Ben", "Anna"] and result["winners"] == ["Ben"]


def test_ci22_photos_of_a_finished_game_give_the_engines_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """CI-22: a seeded finished game scored from photos equals the engine's final scores."""
    rng = random.Random(8)
    state = ci.new_game(["Anna", "Ben", "Cleo"])
    while not ci.is_over(state):
        state = ci.apply(state, random_step(ci, state, rng))
    scores = tmp_path / "scores.json"
    scores.write_text(
        json.dumps(dict(zip(state.players, state.points, strict=True))), encoding="utf-8"
    )
    argv = ["score", "cafe-international", "--scores", str(scores), "--json"]
    for i, (name, hand) in enumerate(zip(state.players, state.hands, strict=True)):
        if hand:
            argv += [
                "--player",
                f"{name}={_photo(tmp_path, name, [f'cafe-international/{t}' for t in hand], i)}",
            ]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    result = json.loads(out)
    assert {n: p["total"] for n, p in result["players"].items()} == ci.scores(state)


def test_ci_scores_are_required(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Café International needs the running scores."""
    photo = _photo(tmp_path, "anna", ["cafe-international/italy/m"])
    code, _, err = _run(["score", "cafe-international", "--player", f"Anna={photo}"], capsys)
    assert code == 2 and "--scores" in err


def test_dk25_kingdom_photos_give_the_engines_scores(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DK-25, DK-26: each spread kingdom pile scored, ranked, the winners named."""
    rng = random.Random(12)
    state = dk.new_game(["Anna", "Ben"])
    while not dk.is_over(state):
        state = dk.apply(state, random_step(dk, state, rng))
    argv = ["score", "dice-king", "--json"]
    for i, (name, pile) in enumerate(zip(state.players, state.kingdoms, strict=True)):
        argv += [
            "--player",
            f"{name}={_photo(tmp_path, name, [f'dice-king/{c}' for c in pile], i)}",
        ]
    code, out, err = _run(argv, capsys)
    assert code == 0, err
    result = json.loads(out)
    assert {n: p["total"] for n, p in result["players"].items()} == dk.scores(state)
    assert sorted(result["seen"]["Anna"]["cards"]) == sorted(state.kingdoms[0])


def test_dk_a_photo_of_the_wrong_game_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Wrong game: a clear message, exit 2."""
    photo = _photo(tmp_path, "a", _kb_ids({"ham": 2}))
    code, out, err = _run(["score", "dice-king", "--player", f"Anna={photo}"], capsys)
    assert code == 2 and out == "" and "is not a dice-king piece" in err


def test_dk_an_unidentified_card_asks_for_the_photo_again(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """DK-25: a kingdom photo with a card the app cannot name is refused (exit 2, never a
    score) in one line that says what to do: take it again with every face in view."""
    from companion_app.cli._common import PENALTY_ADVICE, RETAKE_ADVICE

    photo = Path(_photo(tmp_path, "a", ["dice-king/elf-1", "dice-king/penalty-1"]))
    data = json.loads(photo.read_text(encoding="utf-8"))
    data["objects"][1]["identity"] = None
    photo.write_text(json.dumps(data), encoding="utf-8")
    code, out, err = _run(["score", "dice-king", "--player", f"Anna={photo}"], capsys)
    assert code == 2 and out == ""
    assert "could not be identified" in err and RETAKE_ADVICE in err and PENALTY_ADVICE in err
    assert len(err.strip().splitlines()) == 1
    # another game's piece is no matter of retaking
    wrong = _photo(tmp_path, "b", _kb_ids({"ham": 2}))
    code, out, err = _run(["score", "dice-king", "--player", f"Anna={wrong}"], capsys)
    assert code == 2 and RETAKE_ADVICE not in err


def test_kb_two_unidentified_cards_name_the_first_and_count_the_other(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """KB-19: one line, saying where in the spread the first unnamed card lies and how many more
    problems the photo has."""
    photo = Path(_photo(tmp_path, "a", _kb_ids({"ham": 2, "cheese": 2})))
    data = json.loads(photo.read_text(encoding="utf-8"))
    for obj in data["objects"][:2]:
        obj["identity"] = None
    photo.write_text(json.dumps(data), encoding="utf-8")
    argv = ["score", "kings-breakfast", "--king", str(photo), "--player", f"Anna={photo}"]
    code, out, err = _run(argv, capsys)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert "could not be identified (" in err and "of the spread)" in err
    assert "(and 1 more problem in that photo)" in err
    assert "penalty" not in err  # King's Breakfast has no penalty cards
