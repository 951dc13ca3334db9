"""The ten inhabitant requirements (DK-13 … DK-23), one function per type.

Each function takes dice *counts*, vectorised over any leading shape, and returns booleans:
value types get counts of the values 1…6 (shape ``(..., 6)``), colour types counts of red, green
and blue (shape ``(..., 3)``). Working on counts makes every requirement order-free, which is
DK-23's subset ruling: a requirement is met when some subset of the six dice satisfies it and the
other dice are free — except rich snob, hypnotist and dragon, which speak of all six dice.

`is_met(requirement, dice)` answers for one roll of readings such as ``("5r", "2b", …)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache

import numpy as np

from engines.dice_king.catalogue import (
    COLOURS,
    DICE,
    CardType,
    Requirement,
    parse_reading,
)

_VALUE_WEIGHTS = np.arange(1, 7)


def rich_snob(values: np.ndarray, arg: None = None) -> np.ndarray:
    """DK-13: all six dice even, or all six odd."""
    total = values.sum(axis=-1)
    odd = values[..., 0::2].sum(axis=-1)
    even = values[..., 1::2].sum(axis=-1)
    return (total == DICE) & ((odd == DICE) | (even == DICE))


def arrogant_elf(values: np.ndarray, length: int) -> np.ndarray:
    """DK-14: a run of `length` consecutive values (one die of each)."""
    present = values >= 1
    found = np.zeros(values.shape[:-1], dtype=bool)
    for start in range(0, 6 - length + 1):
        found |= present[..., start : start + length].all(axis=-1)
    return found


def grim_elf(values: np.ndarray, wanted: tuple[int, ...]) -> np.ndarray:
    """DK-15: the multiset of values shown on the card (other dice free)."""
    need = np.bincount(np.asarray(wanted) - 1, minlength=6)
    return np.asarray((values >= need).all(axis=-1))


def crazy_dwarf(colours: np.ndarray, wanted: tuple[int, ...]) -> np.ndarray:
    """DK-16: at least the shown number of dice of each shown colour (counts r, g, b)."""
    return np.asarray((colours >= np.asarray(wanted)).all(axis=-1))


def jolly_orc(values: np.ndarray, groups: tuple[int, ...]) -> np.ndarray:
    """DK-17: groups of equal values, different groups different values (e.g. AA BB).

    Matching the largest groups to the most frequent values is optimal, so it suffices to compare
    the counts sorted in decreasing order with the groups sorted in decreasing order.
    """
    ordered = -np.sort(-values, axis=-1)[..., : len(groups)]
    return np.asarray((ordered >= np.asarray(groups)).all(axis=-1))


def mushroom_goblin(colours: np.ndarray, count: int) -> np.ndarray:
    """DK-18: `count` dice of one colour, the colour chosen after the roll."""
    return np.asarray(colours.max(axis=-1) >= count)


def wizard_apprentice(colours: np.ndarray, wanted: tuple[int, ...]) -> np.ndarray:
    """DK-19: dice of the colours shown (counts r, g, b)."""
    return np.asarray((colours >= np.asarray(wanted)).all(axis=-1))


def fairy(colours: np.ndarray, wanted: tuple[int, ...]) -> np.ndarray:
    """DK-20: dice of the colours shown (counts r, g, b)."""
    return np.asarray((colours >= np.asarray(wanted)).all(axis=-1))


def hypnotist(values: np.ndarray, max_sum: int) -> np.ndarray:
    """DK-21: the sum of all six dice is at most `max_sum`."""
    return (values.sum(axis=-1) == DICE) & ((values * _VALUE_WEIGHTS).sum(axis=-1) <= max_sum)


def dragon(values: np.ndarray, min_sum: int) -> np.ndarray:
    """DK-22: the sum of all six dice is at least `min_sum`."""
    return (values.sum(axis=-1) == DICE) & ((values * _VALUE_WEIGHTS).sum(axis=-1) >= min_sum)


REQUIREMENTS: dict[CardType, Callable[..., np.ndarray]] = {
    CardType.RICH_SNOB: rich_snob,
    CardType.ARROGANT_ELF: arrogant_elf,
    CardType.GRIM_ELF: grim_elf,
    CardType.CRAZY_DWARF: crazy_dwarf,
    CardType.JOLLY_ORC: jolly_orc,
    CardType.MUSHROOM_GOBLIN: mushroom_goblin,
    CardType.WIZARD_APPRENTICE: wizard_apprentice,
    CardType.FAIRY: fairy,
    CardType.HYPNOTIST: hypnotist,
    CardType.DRAGON: dragon,
}


def met_by_counts(requirement: Requirement, counts: np.ndarray) -> np.ndarray:
    """Apply `requirement` to counts (values for value types, colours for colour types)."""
    return REQUIREMENTS[requirement.type](counts, requirement.arg)


def value_counts(dice: Sequence[str]) -> tuple[int, ...]:
    """Counts of the values 1…6 among readings."""
    counts = [0] * 6
    for die in dice:
        counts[parse_reading(die).value - 1] += 1
    return tuple(counts)


def colour_counts(dice: Sequence[str]) -> tuple[int, ...]:
    """Counts of red, green, blue among readings."""
    counts = [0] * 3
    for die in dice:
        counts[COLOURS.index(parse_reading(die).colour)] += 1
    return tuple(counts)


def project(requirement: Requirement, dice: Sequence[str]) -> tuple[int, ...]:
    """The counts a requirement looks at: colours for colour types, values otherwise."""
    return colour_counts(dice) if requirement.uses_colours else value_counts(dice)


@lru_cache(maxsize=1 << 16)
def _met(requirement: Requirement, counts: tuple[int, ...]) -> bool:
    return bool(met_by_counts(requirement, np.asarray(counts)))


def is_met(requirement: Requirement, dice: Sequence[str]) -> bool:
    """Whether six readings meet `requirement` (DK-13 … DK-23)."""
    return _met(requirement, project(requirement, dice))


__all__ = [
    "REQUIREMENTS",
    "arrogant_elf",
    "colour_counts",
    "crazy_dwarf",
    "dragon",
    "fairy",
    "grim_elf",
    "hypnotist",
    "is_met",
    "jolly_orc",
    "met_by_counts",
    "mushroom_goblin",
    "project",
    "rich_snob",
    "value_counts",
    "wizard_apprentice",
]
