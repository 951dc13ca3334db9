"""Exact counts: the number of move sequences from fixed positions to a small depth (perft).

Chance outcomes count once per distinct card id (not weighted). Expected numbers are kept in
``exact_counts.txt`` (``position depth count``); depths 1 and 2 of ``emerald_mid`` are derived
by hand in `test_kb10_kb11_kb13_hand_counted_branches`. Regenerate the file with
``python -m tests.engines.kings_breakfast.test_exact_counts``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import engines.kings_breakfast as kb
from engines.kings_breakfast.state import Phase
from tests.engines.kings_breakfast.factories import position

DATA = Path(__file__).with_name("exact_counts.txt")
MAX_DEPTH = 4

POSITIONS: dict[str, Callable[[], kb.State]] = {
    "new_game_3p": lambda: kb.new_game(["Anna", "Ben", "Cleo"]),
    "emerald_mid": lambda: position(
        3, offer={"cheese": 2, "wine": 1}, king={"ham": 2, "cake": 1}, emeralds_on_table=1
    ),
    "holding_emerald": lambda: position(
        4,
        phase=Phase.EMERALD,
        offer={"bread": 1},
        king={"fruit": 2, "wine": 1},
        acted=3,
        current=3,
        deck={"ham": 9, "emerald": 1},
    ),
}


def branches(state: kb.State) -> list[kb.Action]:
    """Every next step: the chance outcomes at a chance node, else the legal actions."""
    if kb.is_chance_node(state):
        return [action for action, _ in kb.chance_outcomes(state)]
    return kb.legal_actions(state)


def perft(state: kb.State, depth: int) -> int:
    """Number of step sequences of length `depth` (shorter where the game ends)."""
    if depth == 0 or kb.is_over(state):
        return 1
    return sum(perft(kb.apply(state, action), depth - 1) for action in branches(state))


def breakdown(state: kb.State, depth: int) -> str:
    """Per first step, the count below it (printed on a mismatch)."""
    return "\n".join(
        f"  {action!r}: {perft(kb.apply(state, action), depth - 1)}" for action in branches(state)
    )


def _expected() -> dict[tuple[str, int], int]:
    table = {}
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, depth, count = line.split()
            table[(name, int(depth))] = int(count)
    return table


def test_kb6_to_kb14_exact_counts_match_the_data_file() -> None:
    """KB-6..KB-14: the branching of the rules, position by position, depth by depth."""
    expected = _expected()
    assert set(expected) == {(n, d) for n in POSITIONS for d in range(1, MAX_DEPTH + 1)}
    for (name, depth), count in sorted(expected.items()):
        state = POSITIONS[name]()
        got = perft(state, depth)
        assert got == count, f"{name} depth {depth}: {got} != {count}\n{breakdown(state, depth)}"


def test_kb10_kb11_kb13_hand_counted_branches() -> None:
    """KB-10, KB-11, KB-13: counted by hand for ``emerald_mid`` (offer cheese 2, wine 1; king
    ham 2, cake 1; one Emerald on the table).

    Depth 1: take cheese, take wine, draw, Emerald (ham, ham), Emerald (ham, cake) = 5.
    Depth 2: after a take, Ben has the other pile, draw and the 2 Emerald pairs = 4 (twice);
    after the draw, 8 card ids may come up; after either Emerald, none is left on the table and
    Ben has 2 piles and draw = 3 (twice). 4 + 4 + 8 + 3 + 3 = 22.
    """
    state = POSITIONS["emerald_mid"]()
    assert perft(state, 1) == 5
    assert perft(state, 2) == 22


def regenerate() -> None:
    """Rewrite the data file from the current engine (review the diff like code)."""
    lines = ["# position depth count (see test_exact_counts.py)"]
    for name, make in POSITIONS.items():
        for depth in range(1, MAX_DEPTH + 1):
            lines.append(f"{name} {depth} {perft(make(), depth)}")
    DATA.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    regenerate()
