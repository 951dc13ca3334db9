"""Dice King's game state and actions as immutable values.

A `State` is a frozen dataclass of tuples: comparable, hashable, and its `repr` rebuilds it (it
prints ``state_from_json({...})``). Hidden orders are not stored: the inhabitant deck and the
penalty cards below the top are multisets of unseen cards, and the next card is a chance outcome
(DK-6, DK-7, DK-12). Dice are readings such as ``"5r"`` (DK-1), kept as a sorted multiset.

Actions: chance outcomes `RollDie` (one die's reading) and `Reveal` (the next inhabitant or
penalty card turned up), and the player's `Reroll` (keep some dice, roll the rest; DK-8), `Take`
(an inhabitant whose requirement the dice meet; DK-9), `TakePenalty` (DK-11) and `Give` (a dragon
to another player; DK-22).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engines.dice_king.catalogue import Deck


class Phase(StrEnum):
    """Where a turn stands."""

    SETUP = "setup"  # dealing the row and turning up the first penalty (DK-6, DK-7)
    ROLL = "roll"  # rolling dice one at a time, then a decision (DK-8 … DK-11)
    GIVE = "give"  # the roller gives dragons away (DK-22)
    REFILL = "refill"  # the next penalty and the row's new cards are turned up (DK-12)
    OVER = "over"  # DK-24


ROW_SLOTS = 5  # DK-6: one slot under each village stack


@dataclass(frozen=True)
class State:
    """A whole game position (see the module docstring)."""

    deck: Deck
    players: tuple[str, ...]
    first_player: int
    current: int
    phase: Phase
    draw_pile: tuple[str, ...]  # unseen inhabitants, sorted (their order is hidden)
    row: tuple[str | None, ...]  # five slots, left to right (slot i under location i)
    villages: tuple[tuple[str, ...], ...]  # per location in row order, top card first
    penalty_top: str | None  # the face-up top penalty card (DK-3, DK-7)
    penalty_pile: tuple[str, ...]  # unseen penalty cards beneath it, sorted
    discard: tuple[str, ...]  # discarded inhabitants, oldest first (DK-11)
    kingdoms: tuple[tuple[str, ...], ...]  # per player, bottom first (the last is on top)
    dice: tuple[str, ...] = ()  # readings on the table, sorted
    to_roll: int = 0  # dice still to be rolled in the current roll
    rolls_done: int = 0  # rolls begun this turn
    rolls_allowed: int = 3  # DK-8 (3), DK-14 (4 with an arrogant elf on top)
    to_refill: int = 0  # row slots still to be refilled this turn
    gifts: tuple[str, ...] = ()  # dragons the roller still has to give away
    extra_turn: bool = False  # DK-19: an apprentice was taken this turn

    @property
    def player(self) -> str:
        """The name of the player whose turn it is."""
        return self.players[self.current]

    @property
    def rolls_left(self) -> int:
        """Rolls still allowed after the dice on the table."""
        return max(0, self.rolls_allowed - self.rolls_done)

    def __repr__(self) -> str:
        from engines.dice_king.json_io import state_to_json

        return f"state_from_json({state_to_json(self)!r})"


@dataclass(frozen=True)
class RollDie:
    """Chance: one die comes to rest showing `reading` (e.g. ``"5r"``)."""

    reading: str


@dataclass(frozen=True)
class Reveal:
    """Chance: `card` is turned up (the next inhabitant into the row, or the next penalty)."""

    card: str


@dataclass(frozen=True)
class Reroll:
    """DK-8: set aside `keep` (a sorted sub-multiset of the dice) and roll the others."""

    keep: tuple[str, ...]


@dataclass(frozen=True)
class Take:
    """DK-9: take the face-up inhabitant `card`, whose requirement the final dice meet."""

    card: str


@dataclass(frozen=True)
class TakePenalty:
    """DK-11: no face-up requirement is met: take the top penalty, discard the rightmost card."""


@dataclass(frozen=True)
class Give:
    """DK-22: give the dragon `card` to `player`, who puts it on their kingdom pile."""

    card: str
    player: str


Action = RollDie | Reveal | Reroll | Take | TakePenalty | Give

__all__ = [
    "ROW_SLOTS",
    "Action",
    "Give",
    "Phase",
    "Reroll",
    "Reveal",
    "RollDie",
    "State",
    "Take",
    "TakePenalty",
]
