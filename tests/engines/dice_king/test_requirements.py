"""DK-13 … DK-23: every requirement checked exhaustively against plain reference functions.

The references below are deliberately plain and written apart from the engine: they follow the
rule text literally, trying every subset of the six dice (DK-23: a requirement is met when some
subset of the dice satisfies it, other dice free; all six dice for DK-13, DK-21, DK-22). They are
evaluated once per multiset of dice (462 value multisets, 28 colour multisets) and spread to all
6⁶ value tuples and 3⁶ colour tuples by sorting; the engine's functions are called on every tuple.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable
from functools import cache
from typing import Any

import numpy as np
import pytest

from engines.dice_king.catalogue import CardType, Requirement, companion_deck
from engines.dice_king.requirements import (
    arrogant_elf,
    crazy_dwarf,
    dragon,
    fairy,
    grim_elf,
    hypnotist,
    is_met,
    jolly_orc,
    met_by_counts,
    mushroom_goblin,
    rich_snob,
    wizard_apprentice,
)

COLOUR_LETTERS = "rgb"

# ---------------------------------------------------------------------------------------------
# Plain references: a roll is a tuple of six values (1–6) or six colour letters.


def subsets(dice: tuple, size: int) -> list[tuple]:
    """Every choice of `size` dice out of the roll (by position)."""
    return list(itertools.combinations(dice, size))


def ref_rich_snob(dice: tuple[int, ...], _: object) -> bool:
    return all(v % 2 == 0 for v in dice) or all(v % 2 == 1 for v in dice)


def ref_arrogant_elf(dice: tuple[int, ...], length: int) -> bool:
    for chosen in subsets(dice, length):
        ordered = sorted(chosen)
        if all(ordered[i + 1] == ordered[i] + 1 for i in range(length - 1)):
            return True
    return False


def ref_grim_elf(dice: tuple[int, ...], values: tuple[int, ...]) -> bool:
    return any(sorted(chosen) == sorted(values) for chosen in subsets(dice, len(values)))


def ref_jolly_orc(dice: tuple[int, ...], groups: tuple[int, ...]) -> bool:
    # some dice whose equal-value groups have exactly the card's sizes; different symbols are
    # different values because Counter keys are distinct values
    for chosen in subsets(dice, sum(groups)):
        if sorted(Counter(chosen).values()) == sorted(groups):
            return True
    return False


def ref_colours_shown(dice: tuple[str, ...], counts: tuple[int, ...]) -> bool:
    wanted = Counter({c: n for c, n in zip(COLOUR_LETTERS, counts, strict=True) if n})
    return any(Counter(chosen) == wanted for chosen in subsets(dice, sum(counts)))


def ref_mushroom_goblin(dice: tuple[str, ...], count: int) -> bool:
    return any(len(set(chosen)) == 1 for chosen in subsets(dice, count))


def ref_hypnotist(dice: tuple[int, ...], max_sum: int) -> bool:
    return sum(dice) <= max_sum


def ref_dragon(dice: tuple[int, ...], min_sum: int) -> bool:
    return sum(dice) >= min_sum


REFERENCES: dict[CardType, Callable[..., bool]] = {
    CardType.RICH_SNOB: ref_rich_snob,
    CardType.ARROGANT_ELF: ref_arrogant_elf,
    CardType.GRIM_ELF: ref_grim_elf,
    CardType.CRAZY_DWARF: ref_colours_shown,
    CardType.JOLLY_ORC: ref_jolly_orc,
    CardType.MUSHROOM_GOBLIN: ref_mushroom_goblin,
    CardType.WIZARD_APPRENTICE: ref_colours_shown,
    CardType.FAIRY: ref_colours_shown,
    CardType.HYPNOTIST: ref_hypnotist,
    CardType.DRAGON: ref_dragon,
}

# ---------------------------------------------------------------------------------------------
# Every roll


@cache
def all_value_rolls() -> tuple[np.ndarray, np.ndarray, list[tuple[int, ...]]]:
    """All 6⁶ rolls: the tuples, their value counts, and each tuple's sorted multiset."""
    rolls = np.array(list(itertools.product(range(1, 7), repeat=6)))
    counts = np.stack([(rolls == v).sum(axis=1) for v in range(1, 7)], axis=1)
    keys = [tuple(row) for row in np.sort(rolls, axis=1).tolist()]
    return rolls, counts, keys


@cache
def all_colour_rolls() -> tuple[np.ndarray, np.ndarray, list[tuple[str, ...]]]:
    """All 3⁶ colour rolls, their colour counts, and each tuple's sorted multiset."""
    rolls = np.array(list(itertools.product(COLOUR_LETTERS, repeat=6)))
    counts = np.stack([(rolls == c).sum(axis=1) for c in COLOUR_LETTERS], axis=1)
    keys = [tuple(sorted(row)) for row in rolls.tolist()]
    return rolls, counts, keys


def reference_over_all(requirement: Requirement) -> np.ndarray:
    reference = REFERENCES[requirement.type]
    arg = requirement.arg
    keys: list[tuple[Any, ...]]
    if requirement.uses_colours:
        _, _, keys = all_colour_rolls()
    else:
        _, _, keys = all_value_rolls()
    answers = {key: reference(key, arg) for key in set(keys)}
    return np.array([answers[key] for key in keys])


def engine_over_all(requirement: Requirement) -> np.ndarray:
    _, counts, _ = all_colour_rolls() if requirement.uses_colours else all_value_rolls()
    return met_by_counts(requirement, counts)


def _cases() -> list[Requirement]:
    T = CardType
    extra = [
        Requirement(T.RICH_SNOB),
        *(Requirement(T.ARROGANT_ELF, n) for n in range(2, 7)),
        Requirement(T.GRIM_ELF, (1,)),
        Requirement(T.GRIM_ELF, (1, 1, 1, 1, 1, 1)),
        Requirement(T.GRIM_ELF, (1, 2, 3, 4, 5, 6)),
        Requirement(T.GRIM_ELF, (2, 2, 5)),
        *(Requirement(T.JOLLY_ORC, g) for g in [(2,), (6,), (2, 2), (3, 3), (2, 2, 2), (4, 1)]),
        Requirement(T.JOLLY_ORC, (1, 1, 1, 1, 1, 1)),
        Requirement(T.JOLLY_ORC, (3, 2, 1)),
        *(Requirement(T.MUSHROOM_GOBLIN, n) for n in range(1, 7)),
        Requirement(T.CRAZY_DWARF, (6, 0, 0)),
        Requirement(T.CRAZY_DWARF, (0, 1, 0)),
        Requirement(T.WIZARD_APPRENTICE, (1, 1, 1)),
        Requirement(T.FAIRY, (0, 3, 3)),
        *(Requirement(T.HYPNOTIST, s) for s in (6, 7, 12, 35, 36)),
        *(Requirement(T.DRAGON, s) for s in (6, 28, 35, 36)),
    ]
    companion = [card.requirement for card in companion_deck().cards]
    return list(dict.fromkeys(extra + companion))


CASES = _cases()


@pytest.mark.parametrize("requirement", CASES, ids=lambda r: f"{r.type.value}-{r.arg}")
def test_dk13_to_dk23_requirement_matches_plain_reference_on_every_roll(
    requirement: Requirement,
) -> None:
    """DK-13 … DK-23 (DK-23 subset ruling): the engine agrees with the reference on every roll."""
    expected = reference_over_all(requirement)
    actual = engine_over_all(requirement)
    assert actual.shape == expected.shape
    mismatches = np.flatnonzero(actual != expected)
    if mismatches.size:
        rolls = all_colour_rolls()[0] if requirement.uses_colours else all_value_rolls()[0]
        first = rolls[mismatches[0]].tolist()
        pytest.fail(
            f"{mismatches.size} mismatches for {requirement}; first roll {first}: "
            f"engine {bool(actual[mismatches[0]])}, reference {bool(expected[mismatches[0]])}"
        )


def test_every_type_is_exercised() -> None:
    assert {r.type for r in CASES} == set(CardType)


def _value_counts(*values: int) -> np.ndarray:
    return np.bincount(np.array(values) - 1, minlength=6)


def _colour_counts(text: str) -> np.ndarray:
    return np.array([text.count(c) for c in COLOUR_LETTERS])


@pytest.mark.parametrize(
    ("counts", "expected"),
    [((2, 4, 6, 6, 2, 4), True), ((1, 3, 5, 5, 1, 3), True), ((1, 3, 5, 5, 1, 2), False)],
)
def test_dk13_rich_snob_all_even_or_all_odd(counts: tuple[int, ...], expected: bool) -> None:
    """DK-13: all six dice even, or all six odd."""
    assert bool(rich_snob(_value_counts(*counts))) is expected


def test_dk14_arrogant_elf_run_of_the_cards_length() -> None:
    """DK-14: 1-2-3-4 among the dice meets a run of 4; 1-2-3-5 does not."""
    assert arrogant_elf(_value_counts(1, 2, 3, 4, 4, 6), 4)
    assert not arrogant_elf(_value_counts(1, 2, 3, 5, 5, 6), 4)


def test_dk15_grim_elf_specific_values() -> None:
    """DK-15: the values 4 4 4 must be among the dice."""
    assert grim_elf(_value_counts(4, 4, 1, 4, 6, 2), (4, 4, 4))
    assert not grim_elf(_value_counts(4, 4, 1, 5, 6, 2), (4, 4, 4))


def test_dk16_crazy_dwarf_number_of_dice_in_colours() -> None:
    """DK-16: two red and one blue."""
    assert crazy_dwarf(_colour_counts("rrbggg"), (2, 0, 1))
    assert not crazy_dwarf(_colour_counts("rgbggg"), (2, 0, 1))


def test_dk17_jolly_orc_groups_need_different_values() -> None:
    """DK-17: AA BB needs two pairs of different values; four equal dice are not two pairs."""
    assert jolly_orc(_value_counts(3, 3, 5, 5, 1, 2), (2, 2))
    assert not jolly_orc(_value_counts(3, 3, 3, 3, 1, 2), (2, 2))
    assert jolly_orc(_value_counts(3, 3, 3, 3, 1, 1), (2, 2))


def test_dk18_mushroom_goblin_colour_chosen_after_the_roll() -> None:
    """DK-18: four dice of any one colour."""
    assert mushroom_goblin(_colour_counts("ggggrb"), 4)
    assert mushroom_goblin(_colour_counts("bbbbrg"), 4)
    assert not mushroom_goblin(_colour_counts("gggrrb"), 4)


def test_dk19_dk20_apprentice_and_fairy_colours_shown() -> None:
    """DK-19, DK-20: the colours shown on the card."""
    assert wizard_apprentice(_colour_counts("gggrbb"), (0, 3, 0))
    assert not wizard_apprentice(_colour_counts("ggrrbb"), (0, 3, 0))
    assert fairy(_colour_counts("bbrggg"), (0, 0, 2))
    assert not fairy(_colour_counts("brrggg"), (0, 0, 2))


def test_dk21_dk22_sums_use_all_six_dice() -> None:
    """DK-21, DK-22 (DK-23): the sum is over all six dice, never a subset."""
    assert hypnotist(_value_counts(1, 1, 2, 2, 3, 3), 12)
    assert not hypnotist(_value_counts(1, 1, 2, 2, 3, 4), 12)
    assert dragon(_value_counts(6, 6, 6, 5, 5, 1), 28) == (29 >= 28)
    assert not dragon(_value_counts(6, 6, 6, 5, 3, 1), 28)


def test_dk23_other_dice_are_free_for_subset_requirements() -> None:
    """DK-23: extra dice never spoil a subset requirement (3 3 5 5 out of 3 3 3 5 5 5)."""
    assert jolly_orc(_value_counts(3, 3, 3, 5, 5, 5), (2, 2))
    assert grim_elf(_value_counts(6, 6, 6, 6, 6, 6), (6, 6))


def test_is_met_reads_strings_in_any_order() -> None:
    """DK-1, DK-16: readings such as '5r' in any order."""
    requirement = Requirement(CardType.CRAZY_DWARF, (2, 0, 1))
    assert is_met(requirement, ("5r", "1b", "2r", "3g", "3g", "6g"))
    assert is_met(requirement, ("6g", "3g", "3g", "2r", "1b", "5r"))
    assert not is_met(requirement, ("5r", "1g", "2r", "3g", "3g", "6g"))
