"""Breadth-first search for the shortest action sequences that explain an observation.

Shared by every game's `explain`: a game says which moves are worth trying from a state (chance
outcomes already pruned by what was observed), when a state shows the observation, and which
states the camera cannot tell apart; this module finds the shortest paths within a budget.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import TypeVar

S = TypeVar("S")
A = TypeVar("A")

Path = tuple[tuple[A, ...], S]
Level = list[tuple[S, tuple[A, ...]]]


def _levels(
    before: S,
    successors: Callable[[S], Iterable[tuple[A, S]]],
    key: Callable[[S], Hashable],
    is_over: Callable[[S], bool],
    max_actions: int,
    max_states: int,
) -> Iterator[Level[S, A] | None]:
    """The breadth-first levels from `before`, depth 0 to `max_actions`: the states first reached
    at that depth (a key reached once is not expanded again) with their paths; a final None when
    the budget of `max_states` ran out."""
    frontier: Level[S, A] = [(before, ())]
    seen = {key(before)}
    explored = 0
    for depth in range(max_actions + 1):
        yield frontier
        if depth == max_actions:
            return
        following: Level[S, A] = []
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
        if explored > max_states:
            yield None
            return
        if not frontier:
            return


def _showing(
    level: Level[S, A],
    shows_observation: Callable[[S], bool],
    key: Callable[[S], Hashable],
    visited: bool,
) -> dict[Hashable, Path[A, S]]:
    """The level's paths that end showing the observation, one per key (the first found)."""
    found: dict[Hashable, Path[A, S]] = {}
    for state, path in level:
        if (path or not visited) and shows_observation(state):
            found.setdefault(key(state), (path, state))
    return found


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
    for level in _levels(before, successors, key, is_over, max_actions, max_states):
        if level is None:
            break
        found = _showing(level, shows_observation, key, visited)
        if found:
            return list(found.values())
    return []


def distinct_explanations(
    before: S,
    *,
    successors: Callable[[S], Iterable[tuple[A, S]]],
    shows_observation: Callable[[S], bool],
    key: Callable[[S], Hashable],
    look: Callable[[S], Hashable],
    is_over: Callable[[S], bool],
    visited: bool,
    max_actions: int,
    max_states: int,
) -> list[Path[A, S]]:
    """Like `shortest_explanations`, for an observation that hides something (an unknown piece):
    the search goes on to `max_actions`, and a longer sequence is an explanation too when its
    end state's `look` (the table as it would look with everything identified) differs from
    every shorter explanation's. Past the budget nothing explains: a change the unknown piece
    might hide could lie beyond it.
    """
    found: list[Path[A, S]] = []
    looks: set[Hashable] = set()
    for level in _levels(before, successors, key, is_over, max_actions, max_states):
        if level is None:
            return []
        shown = _showing(level, shows_observation, key, visited).values()
        fresh = [(path, state) for path, state in shown if look(state) not in looks]
        found.extend(fresh)
        looks.update(look(state) for _, state in fresh)
    return found


def unknowns_kept_in(seen: object, before: object, after: object, unknown: str) -> bool:
    """Whether every place `seen` (an observation: a dataclass of tuples, strings and None,
    nested) shows `unknown` holds the same in `before` and `after` (observations of two
    states, shaped alike): the move between them did not touch what the camera could not
    identify. Places `seen` does not show (None where the others hold something) are skipped;
    where the shapes differ, any unknown in `seen` counts as touched."""
    if seen == unknown:
        return before == after
    if seen is None or isinstance(seen, str):
        return True
    if hasattr(seen, "__dataclass_fields__"):
        names = list(seen.__dataclass_fields__)  # type: ignore[attr-defined]
        return all(
            unknowns_kept_in(
                getattr(seen, n), getattr(before, n, None), getattr(after, n, None), unknown
            )
            for n in names
        )
    if isinstance(seen, tuple):
        if not (isinstance(before, tuple) and isinstance(after, tuple)):
            return unknown not in _leaves(seen)
        if not len(seen) == len(before) == len(after):
            return unknown not in _leaves(seen)
        return all(
            unknowns_kept_in(s, b, a, unknown) for s, b, a in zip(seen, before, after, strict=True)
        )
    return True


def _leaves(value: object) -> list[object]:
    if isinstance(value, tuple):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


__all__ = [
    "distinct_explanations",
    "shortest_explanations",
    "unknowns_kept_in",
]
