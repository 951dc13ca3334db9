"""Golden playthrough: a seeded 3-player game (everyone plays the advisor's best action), written
out as text and diffed against `golden/playthrough_seed3.txt`.

Regenerate after an intended change with
``REGENERATE_GOLDEN=1 python -m pytest tests/engines/cafe_international/test_golden.py`` and review
the diff like code.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import engines.cafe_international as ci
from engines.api import sample_chance
from engines.cafe_international.advisor import advise

GOLDEN = Path(__file__).parent / "golden" / "playthrough_seed3.txt"


def playthrough(seed: int = 3) -> list[str]:
    """One line per action: who, what (JSON), points scored, the bar and the bag after it."""
    rng = random.Random(seed)
    state = ci.new_game(["Anna", "Ben", "Carla"])
    lines = []
    while not ci.is_over(state):
        if ci.is_chance_node(state):
            state = ci.apply(state, sample_chance(ci, state, rng))
            continue
        name = state.players[state.current]
        best = advise(state)[0]
        hand = " ".join(state.hands[state.current])
        state = ci.apply(state, best.action)
        lines.append(
            f"{state.turn:>3} {name:<5} [{hand}] {json.dumps(ci.action_to_json(best.action))} "
            f"+{best.points} limit{best.hand_limit_change:+d} bar={len(state.bar)} "
            f"bag={state.bag_size}"
        )
    lines.append(f"end: {ci.end_reason(state)}")
    lines.append(f"scores: {json.dumps(ci.scores(state))}")
    return lines


def test_ci13_to_ci22_golden_playthrough_is_unchanged() -> None:
    """CI-13…CI-22 over a whole game: the same seed plays the same game, line for line."""
    lines = playthrough()
    if os.environ.get("REGENERATE_GOLDEN"):
        GOLDEN.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = GOLDEN.read_text(encoding="utf-8").splitlines()
    for number, (got, want) in enumerate(zip(lines, expected, strict=False), start=1):
        assert got == want, f"line {number} differs"
    assert len(lines) == len(expected)
