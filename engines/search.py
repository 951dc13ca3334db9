"""Breadth-first search for the shortest action sequences that explain an observation.

Shared by every game's `explain`: a game says which moves are worth trying from a state (chance
outcomes already pruned by what was observed), when a state shows the observation, and which
states the camera cannot tell apart; this module finds the shortest paths within a budget.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable
from typing import TypeVar

S = TypeVar("S")
A = TypeVar("A")

Path = tuple[tuple[A, ...], S]


def shortest_explanations(
    before: S,
    *,
    successors: Callable[[S], Iterable[tuple[A, S]]],
    shows_observation: Callable[[S], bool],
    key: Callable[[S], Hashable],
    is_over: Callable[[S], bool],
    visited: bool,
    max_actions: int,
    max_states: int,
) -> list[Path[A, S]]:
    """The shortest action sequences from `before` to states that show the observation.

    Args:
        successors: the (action, next state) pairs worth trying from a state.
        shows_observation: whether a state looks like what the camera saw.
        key: what the camera can tell apart; paths ending in states of one key are one
            explanation (the first found is kept), and a key reached once is not expanded again.
        visited: a hand was over the table, so the empty sequence does not count (an invisible
            action such as a hidden draw or a reroll showing the same dice explains it).
        max_actions: the longest sequence tried.
        max_states: the search budget; past it nothing explains the change (ask the user).

    Returns:
        ``(path, state)`` pairs, all of the shortest length found; empty when nothing within
        reach explains the observation.
    """
    frontier: list[tuple[S, tuple[A, ...]]] = [(before, ())]
    seen = {key(before)}
    explored = 0
    for depth in range(max_actions + 1):
        found: dict[Hashable, Path[A, S]] = {}
        for state, path in frontier:
            if (path or not visited) and shows_observation(state):
                found.setdefault(key(state), (path, state))
        if found:
            return list(found.values())
        if depth == max_actions:
            break
        following: list[tuple[S, tuple[A, ...]]] = []
        for state, path in frontier:
            if is_over(state):
                continue
            for action, next_state in successors(state):
                next_key = key(next_state)
                if next_key in seen:
                    continue
                seen.add(next_key)
                following.append((next_state, path + (action,)))
        frontier = following
        explored += len(following)
        if not frontier or explored > max_states:
            break
    return []


__all__ = ["shortest_explanations"]
