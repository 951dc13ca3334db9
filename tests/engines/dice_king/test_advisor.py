"""The exact keep advisor (design contract: state → advice), checked against a plain solver.

The plain solver below enumerates ordered rolls (6^m tuples for m dice) and keeps by position,
memoised on sorted tuples; it shares nothing with the engine's multiset tables but the
requirement reference of `test_requirements`.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction
from functools import cache
from typing import Any

import pytest

from engines.dice_king.advisor import (
    advise,
    keep_probability,
    request_from_json,
    start_probability,
)
from engines.dice_king.catalogue import CardType, Requirement, companion_deck
from engines.errors import MalformedError
from tests.engines.dice_king.test_requirements import REFERENCES

COLOURS = "rgb"


def plain_solver(requirement: Requirement):  # type: ignore[no-untyped-def]
    """Q(keep, r): chance to meet `requirement` keeping `keep` (sorted faces) with r rolls left."""
    faces = tuple(COLOURS) if requirement.uses_colours else tuple(range(1, 7))
    reference = REFERENCES[requirement.type]

    @cache
    def met(dice: tuple) -> bool:
        return reference(dice, requirement.arg)

    @cache
    def best(dice: tuple, rolls_left: int) -> Fraction:
        if met(dice):
            return Fraction(1)
        if rolls_left == 0:
            return Fraction(0)
        options = [
            chance(tuple(sorted(dice[i] for i in chosen)), rolls_left)
            for size in range(6)
            for chosen in itertools.combinations(range(6), size)
        ]
        return max(options)

    @cache
    def chance(keep: tuple, rolls_left: int) -> Fraction:
        outcomes = list(itertools.product(faces, repeat=6 - len(keep)))
        total = sum(best(tuple(sorted(keep + roll)), rolls_left - 1) for roll in outcomes)
        return Fraction(total, len(outcomes))

    return chance


def _readings(requirement: Requirement, keep: tuple) -> tuple[str, ...]:
    if requirement.uses_colours:
        return tuple(f"1{c}" for c in keep)
    return tuple(f"{v}r" for v in keep)


@pytest.mark.parametrize(
    ("requirement", "max_rolls"),
    [
        (Requirement(CardType.JOLLY_ORC, (2, 2, 2)), 2),
        (Requirement(CardType.ARROGANT_ELF, 5), 2),
        (Requirement(CardType.HYPNOTIST, 12), 1),
        (Requirement(CardType.CRAZY_DWARF, (2, 0, 1)), 3),
        (Requirement(CardType.MUSHROOM_GOBLIN, 5), 3),
        (Requirement(CardType.FAIRY, (1, 1, 3)), 3),
    ],
    ids=lambda x: str(x),
)
def test_keep_probabilities_are_exact(requirement: Requirement, max_rolls: int) -> None:
    """Design contract: exact probabilities by the last roll, playing optimally for the card."""
    solver = plain_solver(requirement)
    faces = tuple(COLOURS) if requirement.uses_colours else tuple(range(1, 7))
    keeps = [
        k for size in (0, 2, 4, 5) for k in itertools.combinations_with_replacement(faces, size)
    ]
    for rolls_left in range(1, max_rolls + 1):
        for keep in keeps[:: 3 if requirement.uses_colours else 17]:
            expected = solver(keep, rolls_left)
            actual = keep_probability(requirement, _readings(requirement, keep), rolls_left)
            assert actual == pytest.approx(float(expected), abs=1e-12), (keep, rolls_left)


def test_one_roll_rich_snob_is_two_in_sixty_four() -> None:
    """DK-13 with one roll: 2 of 64 parity patterns."""
    assert start_probability(Requirement(CardType.RICH_SNOB), 1) == pytest.approx(2 / 64)


STATE: dict[str, Any] = {
    "deck": "companion",
    "row": ["snob-1", "orc-3", "grim-elf-2", "dwarf-1", "dragon-1"],
    "dice": ["5r", "5g", "2b", "3r", "6g", "1b"],
    "rolls_left": 2,
}


def _all_keeps(dice: list[str]) -> list[tuple[str, ...]]:
    counts = sorted(Counter(dice).items())
    return [
        tuple(r for (r, _), n in zip(counts, choice, strict=True) for _ in range(n))
        for choice in itertools.product(*(range(n + 1) for _, n in counts))
    ]


def test_advice_follows_the_contract_and_lists_every_cards_best_keep() -> None:
    """Contract: satisfied cards; keeps best first; every card's own best keep is listed."""
    request = request_from_json(STATE)
    answer = advise(request).to_json()
    assert answer["satisfied"] == ["dwarf-1"]
    keeps = answer["keeps"]
    assert keeps and all(set(k) >= {"keep", "target", "probabilities"} for k in keeps)
    deck = companion_deck()
    for card_id in STATE["row"]:
        requirement = deck.card(card_id).requirement
        best = max(keep_probability(requirement, k, 2) for k in _all_keeps(STATE["dice"]))
        listed = max(k["probabilities"][card_id] for k in keeps)
        assert listed == pytest.approx(best, abs=1e-12), card_id
    for keep in keeps:
        assert set(keep["probabilities"]) == set(STATE["row"])
        assert Counter(keep["keep"]) <= Counter(STATE["dice"])
        for card_id, p in keep["probabilities"].items():
            requirement = deck.card(card_id).requirement
            assert p == pytest.approx(keep_probability(requirement, keep["keep"], 2), abs=1e-12)
    points = [k["expected_points"] for k in keeps]
    assert points == sorted(points, reverse=True)
    assert len({tuple(k["keep"]) for k in keeps}) == len(keeps)


def test_expected_points_rule_snob_under_the_city_with_its_village() -> None:
    """Ordering rule: max over cards of p × (points + village); snob-1 (3 + city 2) first here."""
    answer = advise(request_from_json(STATE))
    first = answer.keeps[0]
    assert first.target == "snob-1"
    assert first.expected_points == pytest.approx(first.probabilities["snob-1"] * 5)


def test_satisfied_card_best_keep_is_to_stop() -> None:
    """A card met now has a keep with probability 1 (keeping all six dice = stopping)."""
    answer = advise(request_from_json({**STATE, "dice": ["2r", "4r", "6b", "2g", "4g", "4b"]}))
    assert "snob-1" in answer.satisfied
    assert max(k.probabilities["snob-1"] for k in answer.keeps) == 1.0


def test_no_roll_left_gives_the_dice_as_final() -> None:
    answer = advise(request_from_json({**STATE, "rolls_left": 0}))
    assert len(answer.keeps) == 1
    assert answer.keeps[0].probabilities == {
        "snob-1": 0.0,
        "orc-3": 0.0,
        "grim-elf-2": 0.0,
        "dwarf-1": 1.0,
        "dragon-1": 0.0,
    }


def test_advisor_with_an_inline_deck_of_the_users_own() -> None:
    """Acceptance: the contract works with an inline deck."""
    deck = [
        {"id": "my-snob", "type": "rich_snob", "colour": "city", "points": 7, "params": {}},
        {
            "id": "my-orc",
            "type": "jolly_orc",
            "colour": "mine",
            "points": 2,
            "params": {"groups": [3]},
        },
        {
            "id": "my-dragon",
            "type": "dragon",
            "colour": "mine",
            "points": 5,
            "params": {"min_sum": 25},
        },
    ]
    state = {
        "deck": deck,
        "row": ["my-snob", "my-orc", "my-dragon"],
        "dice": ["1r", "1g", "1b", "4r", "6g", "3b"],
        "rolls_left": 1,
    }
    answer = advise(request_from_json(state)).to_json()
    assert answer["satisfied"] == ["my-orc"]
    # snob with one roll: keep the four odd dice, both re-rolled dice must be odd
    snob = max(k["probabilities"]["my-snob"] for k in answer["keeps"])
    assert snob == pytest.approx(0.25)
    # keeping 1 1 1 3 holds the orc (2 points for sure) and gives the snob (7) 1 in 4: the orc
    # is the better single target (2.0 > 1.75 expected points)
    first = answer["keeps"][0]
    assert first["keep"] == ["1b", "1g", "1r", "3b"]
    assert first["target"] == "my-orc" and first["expected_points"] == pytest.approx(2.0)


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"dice": ["7r", "1r", "1r", "1r", "1r", "1r"]}, "bad die '7r' in dice\\[0\\]"),
        ({"dice": ["5x", "1r", "1r", "1r", "1r", "1r"]}, "bad die '5x'"),
        ({"dice": ["5r"]}, "six dice"),
        ({"row": ["snob-1", "ghost"]}, "unknown card 'ghost' in row\\[1\\]"),
        ({"rolls_left": 5}, "rolls_left"),
        ({"deck": [{"id": "x"}]}, "missing 'type'"),
        ({"villages": {"moon": 2}}, "unknown location 'moon'"),
    ],
)
def test_bad_advice_input_names_the_problem(change: dict, fragment: str) -> None:
    with pytest.raises(MalformedError, match=fragment):
        request_from_json({**STATE, **change})
