"""Seeded random full games (2–5 players): after every action every one of the 65 cards is in
exactly one place, scores recomputed by a plain function agree, undo and JSON round-trip exactly,
and the public view names no unseen card. Half the games follow the advisor, half play at random.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from functools import cache
from importlib import resources
from typing import Any, cast

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engines.dice_king as dk
from engines.api import GameRules, History, random_step, sample_chance
from engines.dice_king.advisor import advised_action

RULES = cast(GameRules, dk)


@cache
def raw_data() -> tuple[dict[str, dict[str, Any]], dict[str, int], dict[str, int]]:
    """The shipped data files read directly: cards by id, village and penalty values."""
    folder = resources.files("engines.dice_king").joinpath("data")
    cards = {c["id"]: c for c in json.loads(folder.joinpath("companion_deck.json").read_text())}
    village = {
        v["id"]: v["points"] for v in json.loads(folder.joinpath("villages.json").read_text())
    }
    penalty = {
        p["id"]: p["points"] for p in json.loads(folder.joinpath("penalties.json").read_text())
    }
    return cards, village, penalty


def plain_score(pile: list[str]) -> int:
    """DK-20, DK-25 written out plainly from the data files."""
    cards, village, penalty = raw_data()
    total, fairies = 0, 0
    for card_id in pile:
        if card_id in village:
            total += village[card_id]
        elif card_id in penalty:
            total -= penalty[card_id]
        elif cards[card_id]["type"] == "dragon":
            total -= cards[card_id]["points"]
        elif cards[card_id]["type"] == "fairy":
            fairies += 1
        else:
            total += cards[card_id]["points"]
    return total + sum(range(1, fairies + 1))


def plain_locations(data: dict[str, Any]) -> Counter[str]:
    """Every card id in a state's JSON, counted plainly."""
    ids: list[str] = []
    ids += data["draw_pile"] + [c for c in data["row"] if c] + data["discard"] + data["gifts"]
    ids += data["penalty_pile"] + ([data["penalty_top"]] if data["penalty_top"] else [])
    for stack in data["villages"].values():
        ids += stack
    for pile in data["kingdoms"].values():
        ids += pile
    return Counter(ids)


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values()), set(value))
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


GAMES = [(players, seed) for players in (2, 3, 4, 5) for seed in (11, 12)]


@pytest.mark.parametrize(("players", "seed"), GAMES)
def test_dk24_dk25_random_full_game_keeps_every_card_and_score(players: int, seed: int) -> None:
    """DK-2 … DK-4 (65 cards), DK-24 (the game ends), DK-25 (scores), undo and JSON."""
    rng = random.Random(seed)
    names = [f"P{i + 1}" for i in range(players)]
    state = dk.new_game(names, first_player=seed % players)
    history: History[Any, Any] = History.start(state)
    cards, village, penalty = raw_data()
    every = set(cards) | set(village) | set(penalty)
    advised = seed % 2 == 0
    for _ in range(5000):
        if dk.is_over(state):
            break
        if dk.is_chance_node(state):
            action = sample_chance(RULES, state, rng)
        elif advised:
            action = advised_action(state)
        else:
            action = random_step(RULES, state, rng)
        assert dk.is_legal(state, action)
        history = history.push(RULES, action)
        after = history.current
        assert history.undo().current == state
        data = json.loads(json.dumps(dk.state_to_json(after)))
        assert dk.state_from_json(data) == after
        counts = plain_locations(data)
        assert set(counts) == every and set(counts.values()) == {1}
        assert sum(dk.inventory(after).values()) == dk.TOTAL_PIECES
        assert dk.scores(after) == {n: plain_score(data["kingdoms"][n]) for n in names}
        view = json.loads(json.dumps(dk.public_view(after)))
        assert not strings_in(view) & (set(after.draw_pile) | set(after.penalty_pile))
        state = after
    assert dk.is_over(state)
    assert (
        not state.draw_pile
        or (state.penalty_top is None and not state.penalty_pile)
        or any(not stack for stack in state.villages)
    )
    assert dk.legal_actions(state) == [] and dk.chance_outcomes(state) == []
    assert set(dk.public_view(state)["winners"]) <= set(names)


@given(st.sampled_from(range(1, 7)), st.sampled_from("rgbRGB"))
def test_dk1_reading_parse_print_parse(value: int, colour: str) -> None:
    """DK-1: a reading printed and parsed again is the same reading."""
    action = dk.action_from_json({"type": "roll_die", "reading": f"{value}{colour}"})
    assert isinstance(action, dk.RollDie)
    assert dk.action_from_json(json.loads(json.dumps(dk.action_to_json(action)))) == action
    assert action.reading == f"{value}{colour.lower()}"


@given(st.lists(st.sampled_from([f"{v}{c}" for v in range(1, 7) for c in "rgb"]), max_size=5))
def test_dk8_reroll_action_round_trip(keep: list[str]) -> None:
    """DK-8: a keep round-trips through JSON as a sorted multiset."""
    action = dk.action_from_json({"type": "reroll", "keep": keep})
    assert action == dk.Reroll(tuple(sorted(keep)))
    assert dk.action_from_json(dk.action_to_json(action)) == action
