"""Scoring: a seated guest's points (CI-18), completed tables (CI-20), hand penalties (CI-22).

Functions take the board as a sequence of seated ids by chair index (None for a free chair), so
the rules can score a placement on a scratch copy without building states.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engines.cafe_international.catalogue import NATIONALITY_OF, is_joker
from engines.cafe_international.layout import Layout

TILE_PENALTY = 5  # CI-22
JOKER_PENALTY = 10  # CI-22


def table_points(layout: Layout, seated: Sequence[str | None], table: int) -> tuple[int, bool]:
    """CI-18: the points table `table` scores now, and whether it is 4 of one nationality.

    Points are the number of guests (2, 3 or 4), doubled when all count as one nationality
    (jokers as declared); a table with one guest (or none) scores 0.
    """
    count = 0
    nationality: str | None = None
    same = True
    for chair in layout.table_chairs[table]:
        guest = seated[chair]
        if guest is None:
            continue
        count += 1
        guest_nationality = NATIONALITY_OF[guest]
        if nationality is None:
            nationality = guest_nationality
        elif guest_nationality != nationality:
            same = False
    if count < 2:
        return 0, False
    return (2 * count if same else count), (count == 4 and same)


def placement_points(layout: Layout, seated: Sequence[str | None], chair: int) -> tuple[int, int]:
    """CI-18 and CI-20: points of the guest just seated on `chair`, and tables it completed.

    `seated` already holds the guest. Every table the chair belongs to is scored (a shared chair
    scores both); a table of 4 guests of one nationality counts as completed (CI-20).
    """
    points = completed = 0
    for table in layout.chair_tables[chair]:
        table_score, full = table_points(layout, seated, table)
        points += table_score
        completed += full
    return points, completed


def hand_penalty(hand: Iterable[str]) -> int:
    """CI-22: what the tiles left in a hand cost (5 each, 10 per joker), as a positive number."""
    return sum(JOKER_PENALTY if is_joker(tile) else TILE_PENALTY for tile in hand)


def winners(totals: Mapping[str, int]) -> list[str]:
    """CI-22: the players with the highest total (ties are shared), in the given order."""
    if not totals:
        return []
    best = max(totals.values())
    return [name for name, total in totals.items() if total == best]


def ranking(totals: Mapping[str, int]) -> list[str]:
    """Players from the highest total to the lowest (stable for ties)."""
    return sorted(totals, key=lambda name: -totals[name])


__all__ = [
    "JOKER_PENALTY",
    "TILE_PENALTY",
    "hand_penalty",
    "placement_points",
    "ranking",
    "table_points",
    "winners",
]
