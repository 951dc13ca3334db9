"""Seeded random full games (2–4 players), checked after every step against independent code.

After each action: all 100 tiles accounted for (CI-2); the board satisfies CI-8…CI-11 (checked
here from the rules' words, not with the engine's helpers); JSON and undo are exact; running
scores agree with a replay scored by a separate simple function (CI-14, CI-18, CI-22); the game
is over exactly when one of CI-21's conditions holds; guests never move (CI-12).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

import engines.cafe_international as ci
from engines.api import History, sample_chance
from engines.cafe_international import Seat, Swap, ToBar
from engines.cafe_international.advisor import advise
from engines.cafe_international.rules import apply_unchecked
from tests.engines.cafe_international.factory import mini_layout

TILE_TOTALS = Counter(
    {f"{n}/{g}": 4 for n in ci.Nationality for g in "wm"} | {"joker/w": 2, "joker/m": 2}
)


def _nationality(guest: str) -> str:
    return guest.split("@")[1] if "@" in guest else guest.split("/")[0]


def _table_guests(layout: ci.Layout, board: dict[str, str], table_id: str) -> list[str]:
    return [board[c.id] for c in layout.chairs if table_id in c.tables and c.id in board]


def board_problems(state: ci.State) -> list[str]:
    """CI-8…CI-11 read straight from the rules page."""
    layout = state.layout
    board = state.seated_by_chair()
    flags = {t.id: t.nationality for t in layout.tables}
    problems = []
    valid = {}
    for table in layout.tables:
        guests = _table_guests(layout, board, table.id)
        women = sum(g.split("@")[0].endswith("/w") for g in guests)
        men = len(guests) - women
        valid[table.id] = 1 <= women <= 2 and 1 <= men <= 2
        if women > 2 or men > 2 or (len(guests) >= 2 and not valid[table.id]):
            problems.append(f"CI-10 at {table.id}: {guests}")
    lone_chair = None if state.lone_chair is None else layout.chairs[state.lone_chair].id
    for chair in layout.chairs:
        guest = board.get(chair.id)
        if guest is None:
            continue
        if _nationality(guest) not in {flags[t] for t in chair.tables}:
            problems.append(f"CI-8/CI-9 at {chair.id}: {guest}")
        if guest.startswith("joker") and "@" not in guest:
            problems.append(f"CI-9 undeclared joker at {chair.id}")
        alone = [t for t in chair.tables if len(_table_guests(layout, board, t)) == 1]
        if alone and chair.id != lone_chair and not any(valid[t] for t in chair.tables):
            problems.append(f"CI-11 alone at {chair.id}")
    return problems


def ci21_holds(state: ci.State) -> bool:
    """CI-21 (plus the CI-16 ruling of a full round of passes), from the rules' words."""
    return (
        len(state.bar) == 20
        or all(g is not None for g in state.seated)
        or state.bag_size == 4
        or (not state.refill and any(len(hand) == 0 for hand in state.hands))
        or state.passes >= len(state.players)
    )


def replay_points(state: ci.State, action: Any) -> int:
    """The points `action` scores, by CI-14 and CI-18 written out plainly."""
    if isinstance(action, ToBar):
        return state.layout.bar_values[len(state.bar)]
    if not isinstance(action, Seat):
        return 0
    board = state.seated_by_chair()
    total = 0
    for placement in action.placements:
        board[placement.chair] = placement.seated
        for table_id in state.layout.tables_of_chair(placement.chair):
            guests = _table_guests(state.layout, board, table_id)
            if len(guests) >= 2:
                same = len({_nationality(g) for g in guests}) == 1
                total += len(guests) * (2 if same else 1)
    return total


def _choose(state: ci.State, rng: random.Random, policy: str) -> Any:
    actions = ci.legal_actions(state)
    assert actions, "a state that is not over offers an action"
    if policy == "seat-first":
        seats = [a for a in actions if isinstance(a, Seat | Swap)]
        if seats and rng.random() < 0.9:
            return rng.choice(seats)
    return rng.choice(actions)


def play_checked(players: int, seed: int, policy: str, layout: ci.Layout | None = None) -> ci.State:
    rng = random.Random(seed)
    names = [f"P{i + 1}" for i in range(players)]
    state = ci.new_game(names, layout=layout, first_player=seed % players)
    history: History[Any, Any] = History.start(state)
    expected = dict.fromkeys(names, 0)
    for _ in range(5_000):
        assert ci.is_over(state) == ci21_holds(state)
        if ci.is_over(state):
            break
        if ci.is_chance_node(state):
            action = sample_chance(ci, state, rng)
        else:
            action = _choose(state, rng, policy)
            expected[state.players[state.current]] += replay_points(state, action)
            for other in rng.sample(
                ci.legal_actions(state), k=min(3, len(ci.legal_actions(state)))
            ):
                assert ci.is_legal(state, other), other
        after = ci.apply(state, action)
        assert apply_unchecked(state, action) == after
        history = history.push(ci, action)
        assert history.undo().current == state
        assert ci.inventory(after) == TILE_TOTALS
        assert board_problems(after) == [], board_problems(after)
        if not isinstance(action, Swap):  # CI-12
            before_board = state.seated_by_chair()
            after_board = after.seated_by_chair()
            assert all(after_board[c] == g for c, g in before_board.items())
        text = json.dumps(ci.state_to_json(after))
        assert ci.state_from_json(json.loads(text)) == after
        assert ci.action_from_json(json.loads(json.dumps(ci.action_to_json(action)))) == action
        assert dict(zip(after.players, after.points, strict=True)) == expected
        assert all(len(hand) <= 5 for hand in after.hands)
        state = after
    else:
        pytest.fail("the game did not end")
    penalties = {
        name: sum(10 if t.startswith("joker") else 5 for t in hand)
        for name, hand in zip(state.players, state.hands, strict=True)
    }
    assert ci.scores(state) == {name: expected[name] - penalties[name] for name in names}
    assert ci.legal_actions(state) == [] and ci.chance_outcomes(state) == []
    return state


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("policy", ["uniform", "seat-first"])
@pytest.mark.parametrize("seed", [11, 12])
def test_random_full_games_keep_every_invariant(players: int, policy: str, seed: int) -> None:
    """CI-2, CI-8…CI-12, CI-14, CI-18, CI-21, CI-22 over whole seeded games."""
    play_checked(players, seed, policy)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_full_games_on_a_small_own_layout(seed: int) -> None:
    """A user's own 4-table printing plays to the end too (CI-3: any number of tables)."""
    state = play_checked(2 + seed % 3, seed, "seat-first", layout=mini_layout())
    assert ci.end_reason(state) is not None


def test_every_end_condition_is_reached_in_seeded_games() -> None:
    """CI-21: in seeded games of mostly-best play, each of the four conditions ends a game, and
    the game goes on while none holds."""
    reasons = {}
    for seed in range(8):
        rng = random.Random(seed)
        state = ci.new_game(["a", "b", "c"][: 2 + seed % 2])
        while not ci.is_over(state):
            assert not ci21_holds(state)
            if ci.is_chance_node(state):
                state = apply_unchecked(state, sample_chance(ci, state, rng))
                continue
            advice = advise(state)
            pick = advice[0] if rng.random() < 0.7 else rng.choice(advice)
            state = apply_unchecked(state, pick.action)
        assert ci21_holds(state)
        reason = ci.end_reason(state)
        assert reason is not None
        reasons[" ".join(reason.split()[-3:])] = seed
    assert set(reasons) == {
        "stools are taken",
        "chairs are taken",
        "in the bag",
        "no tiles left",
    }, reasons
