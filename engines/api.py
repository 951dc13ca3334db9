"""The engine API every game implements, and the game-independent undo history.

A game package exposes these module-level functions (see `GameRules`); a state is an immutable,
hashable value, and "changing" it returns a new one. Chance (shuffles, draws, dice) is explicit:
when `is_chance_node(state)` is true, `chance_outcomes(state)` lists the possible outcomes as
actions with exact probabilities, and applying one of them is how the game moves on. Random
playouts sample those outcomes with a seeded `random.Random`; the live app applies what the
camera saw.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

S = TypeVar("S", bound=Hashable)
A = TypeVar("A", bound=Hashable)


class GameRules(Protocol):
    """What a game package provides (as module-level functions)."""

    NAME: str  # the contract name, e.g. "kings-breakfast"
    TOTAL_PIECES: int  # every piece of the game, for conservation checks

    new_game: Callable[..., Any]  # new_game(players, *, game-specific options) -> state

    def legal_actions(self, state: Any) -> list[Any]: ...
    def is_legal(self, state: Any, action: Any) -> bool: ...
    def apply(self, state: Any, action: Any) -> Any: ...
    def is_chance_node(self, state: Any) -> bool: ...
    def chance_outcomes(self, state: Any) -> list[tuple[Any, float]]: ...
    def is_over(self, state: Any) -> bool: ...
    def scores(self, state: Any) -> dict[str, int]: ...
    def public_view(self, state: Any) -> dict[str, Any]: ...
    def inventory(self, state: Any) -> Counter[str]: ...
    def state_to_json(self, state: Any) -> dict[str, Any]: ...
    def state_from_json(self, data: Any) -> Any: ...
    def action_to_json(self, action: Any) -> dict[str, Any]: ...
    def action_from_json(self, data: Any) -> Any: ...


def sample_chance(rules: GameRules, state: Any, rng: random.Random) -> Any:
    """Draw one chance outcome of `state` with its exact probability, using `rng`."""
    outcomes = rules.chance_outcomes(state)
    actions = [action for action, _ in outcomes]
    weights = [probability for _, probability in outcomes]
    return rng.choices(actions, weights=weights, k=1)[0]


def random_step(rules: GameRules, state: Any, rng: random.Random) -> Any:
    """One step of a random playout: a sampled chance outcome or a uniformly chosen legal action.

    Returns the action (not the new state); raises `RuntimeError` when a non-final state offers
    no action at all, which would be an engine bug.
    """
    if rules.is_chance_node(state):
        return sample_chance(rules, state, rng)
    actions = rules.legal_actions(state)
    if not actions:
        raise RuntimeError(f"no legal action in a state that is not over: {state!r}")
    return rng.choice(actions)


def random_playout(rules: GameRules, state: Any, steps: int, rng: random.Random) -> Any:
    """`state` after up to `steps` random steps (fewer when the game ends), then every pending
    chance step resolved, so the result is a position where a player is to act (or the end):
    the mid-game positions benchmarks and tests render."""
    for _ in range(steps):
        if rules.is_over(state):
            break
        state = rules.apply(state, random_step(rules, state, rng))
    while rules.is_chance_node(state) and not rules.is_over(state):
        state = rules.apply(state, random_step(rules, state, rng))
    return state


@dataclass(frozen=True)
class History(Generic[S, A]):
    """A game's path as values: every state reached and the action between each two.

    Undo returns the previous state and keeps the undone steps for redo; pushing a new action
    clears redo, as in any editor.
    """

    states: tuple[S, ...]
    actions: tuple[A, ...] = ()
    redo_stack: tuple[A, ...] = field(default=())

    @classmethod
    def start(cls, state: S) -> History[S, A]:
        return cls(states=(state,))

    @property
    def current(self) -> S:
        return self.states[-1]

    def push(self, rules: GameRules, action: A) -> History[S, A]:
        """Apply `action` (checked by the rules) and return the longer history."""
        next_state = rules.apply(self.current, action)
        return History(self.states + (next_state,), self.actions + (action,), ())

    def can_undo(self) -> bool:
        return len(self.states) > 1

    def can_redo(self) -> bool:
        return bool(self.redo_stack)

    def undo(self) -> History[S, A]:
        if not self.can_undo():
            raise ValueError("nothing to undo")
        return History(self.states[:-1], self.actions[:-1], self.redo_stack + (self.actions[-1],))

    def redo(self, rules: GameRules) -> History[S, A]:
        if not self.can_redo():
            raise ValueError("nothing to redo")
        action = self.redo_stack[-1]
        next_state = rules.apply(self.current, action)
        return History(self.states + (next_state,), self.actions + (action,), self.redo_stack[:-1])


__all__ = ["GameRules", "History", "random_playout", "random_step", "sample_chance"]
