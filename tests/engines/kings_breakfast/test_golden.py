"""Golden playthrough: a seeded heuristic game written out step by step and diffed (KB-5..KB-23).

The game's text is in ``golden_game_4p_seed7.txt``. When a rule or the heuristic changes on
purpose, regenerate it with ``python -m tests.engines.kings_breakfast.test_golden`` and review
the diff like code.
"""

from __future__ import annotations

import difflib
import json
import random
from pathlib import Path

import engines.kings_breakfast as kb
from engines.kings_breakfast.policy import choose_action
from engines.kings_breakfast.rules import sample_outcome

GOLDEN = Path(__file__).with_name("golden_game_4p_seed7.txt")


def playthrough(seed: int = 7, players: tuple[str, ...] = ("Anna", "Ben", "Cleo", "Dan")) -> str:
    """The game as text: one line per step, the king after each round, the final scores."""
    rng = random.Random(seed)
    state = kb.new_game(players, cook=1)
    lines = [f"# King's Breakfast, {len(players)} players, seed {seed}"]
    while not kb.is_over(state):
        chance = kb.is_chance_node(state)
        action = sample_outcome(state, rng) if chance else choose_action(state)
        step = json.dumps(kb.action_to_json(action), separators=(",", ":"))
        lines.append(f"r{state.round} {state.phase:<7} {state.current_player:<4} {step}")
        before = state.round
        state = kb.apply(state, action)
        if state.round != before or kb.is_over(state):
            lines.append(f"king {json.dumps(kb.public_view(state)['king'])}")
    lines.append(f"unused {json.dumps(kb.public_view(state)['unused'])}")
    lines.append(f"scores {json.dumps(kb.scores(state))}")
    return "\n".join(lines) + "\n"


def test_kb5_to_kb23_seeded_game_matches_the_golden_text() -> None:
    """KB-5..KB-23: the same seed gives the same game, step for step."""
    expected = GOLDEN.read_text(encoding="utf-8")
    got = playthrough()
    diff = "".join(
        difflib.unified_diff(
            expected.splitlines(keepends=True), got.splitlines(keepends=True), "golden", "now", n=2
        )
    )
    assert not diff, f"playthrough changed (regenerate if intended):\n{diff[:4000]}"


if __name__ == "__main__":
    GOLDEN.write_text(playthrough(), encoding="utf-8")
