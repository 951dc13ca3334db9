"""Corrections: tap a piece, choose its identity; later results at that place follow the choice."""

from __future__ import annotations

from typing import Any

import pytest

from companion_app.viewmodels.corrections import CorrectionsViewModel, game_identities, iou


def _result(shift: float = 0.0) -> dict[str, Any]:
    return {
        "image": "a.jpg",
        "objects": [
            {
                "kind": "card",
                "box": [100 + shift, 100, 200 + shift, 250],
                "score": 0.97,
                "identity": "kings-breakfast/cheese",
                "identity_score": 0.6,
                "candidates": [["kings-breakfast/cheese", 0.6], ["kings-breakfast/cake", 0.3]],
            },
            {"kind": "card", "box": [0, 0, 640, 480], "score": 0.5, "identity": None},
            {"kind": "die", "box": [300, 300, 340, 340], "score": 0.9, "value": 5, "colour": "r"},
        ],
    }


def test_tap_finds_the_smallest_piece_under_the_finger() -> None:
    vm = CorrectionsViewModel("kings-breakfast")
    assert vm.object_at(_result(), 150, 200) == 0  # inside both cards: the smaller one
    assert vm.object_at(_result(), 600, 50) == 1
    assert vm.object_at(_result(), 700, 700) is None
    assert vm.object_at(None, 1, 1) is None  # no perception yet


def test_candidates_start_with_perception_then_the_game_pieces() -> None:
    vm = CorrectionsViewModel("kings-breakfast")
    offered = vm.candidates(_result(), 0)
    assert offered[:2] == ["kings-breakfast/cheese", "kings-breakfast/cake"]
    assert len(offered) == 8 and len(set(offered)) == 8
    assert vm.candidates(_result(), 2)[0] == "5r"


def test_a_correction_follows_the_piece_in_later_results() -> None:
    vm = CorrectionsViewModel("kings-breakfast")
    vm.correct(_result(), 0, "kings-breakfast/cake")
    vm.correct(_result(), 2, "6g")
    later = vm.apply(_result(shift=5))  # the piece moved a little
    card, _, die = later["objects"]
    assert card["identity"] == "kings-breakfast/cake" and card["corrected"] is True
    assert (die["value"], die["colour"], die["identity_score"]) == (6, "g", 1.0)
    assert _result()["objects"][0]["identity"] == "kings-breakfast/cheese"  # input untouched
    far = vm.apply(_result(shift=300))
    assert far["objects"][0]["identity"] == "kings-breakfast/cheese"
    vm.correct(_result(), 0, "kings-breakfast/ham")  # a second word on the same piece wins
    assert len(vm.corrections) == 2
    assert vm.apply(_result())["objects"][0]["identity"] == "kings-breakfast/ham"


def test_a_correction_must_name_a_piece_of_the_game() -> None:
    vm = CorrectionsViewModel("kings-breakfast")
    with pytest.raises(ValueError, match="unknown card identity 'cafe-international/italy/w'"):
        vm.correct(_result(), 0, "cafe-international/italy/w")


def test_game_identities_and_iou() -> None:
    assert len(game_identities("cafe-international", "tile")) == 26  # CI-2: 24 kinds + 2 jokers
    assert len(game_identities("dice-king", "die")) == 18  # DK-1: values 1–6 × r, g, b
    assert len(game_identities("kings-breakfast", "card")) == 8  # KB-1: 7 foods + Emerald
    assert iou([0, 0, 10, 10], [0, 0, 10, 10]) == 1.0
    assert iou([0, 0, 10, 10], [20, 20, 30, 30]) == 0.0
