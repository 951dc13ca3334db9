"""The game state and the actions of Café International, as immutable values.

A `State` holds the layout, the face-up hands and their limits (CI-6, CI-20), the seated guests
by chair (CI-8…CI-12), the bar (CI-14), the bag as counts per tile kind, the running scores, whose
turn it is (CI-7), and which players still have to refill their hands (CI-17): while anyone does,
the state is a chance node whose outcomes are the tiles in the bag.

Actions: `Seat` (1 or 2 `Placement`s, CI-13/CI-15), `ToBar` (CI-14), `Swap` (joker exchange,
CI-19), `Pass` (CI-16 ruling) and the chance outcome `Draw` (CI-6, CI-17).
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.cafe_international.catalogue import TILE_KINDS, is_joker
from engines.cafe_international.layout import Layout

MIN_PLAYERS, MAX_PLAYERS = 2, 4
HAND_SIZE = 5  # CI-6, CI-17
END_BAG_SIZE = 4  # CI-21


@dataclass(frozen=True)
class Placement:
    """One guest from hand seated on a chair, counting as `nationality` (a joker's declaration)."""

    tile: str
    chair: str
    nationality: str

    @property
    def seated(self) -> str:
        """The seated id (``italy/w``, or ``joker/w@italy`` for a joker)."""
        return f"{self.tile}@{self.nationality}" if is_joker(self.tile) else self.tile


@dataclass(frozen=True)
class Seat:
    """CI-13: seat 1 or 2 guests, in this order (the order matters for scoring, CI-18)."""

    placements: tuple[Placement, ...]


@dataclass(frozen=True)
class ToBar:
    """CI-14: put a guest (not a joker) on the lowest free bar stool."""

    tile: str


@dataclass(frozen=True)
class Swap:
    """CI-19: take the joker on `chair` into hand and seat `tile` from hand in its place."""

    chair: str
    tile: str


@dataclass(frozen=True)
class Pass:
    """CI-16 ruling: the player has no legal action at all; the companion records a pass."""


@dataclass(frozen=True)
class Draw:
    """Chance outcome (CI-6, CI-17): the refilling player draws `tile` from the bag."""

    tile: str


Action = Seat | ToBar | Swap | Pass | Draw


@dataclass(frozen=True)
class State:
    """A position of the game; build one with `new_game` or `state_from_json`.

    Attributes:
        layout: the board (tables, chairs, bar values).
        players: names in turn order (CI-7: clockwise).
        hands: each player's face-up tiles, sorted.
        hand_limits: each player's hand limit (5, reduced by CI-20).
        points: running scores (before the CI-22 penalties).
        seated: the seated id on each chair, in layout order, or None.
        bar: tiles on the bar stools, in fill order.
        bag: tiles in the bag, as counts in `TILE_KINDS` order.
        current: index of the player whose turn it is (after the pending refills).
        refill: players who still refill their hands, in order (a chance node while non-empty).
        turn: actions taken so far (0: the first turn of the game, CI-15).
        lone_chair: the chair of a guest seated alone by CI-15's exception, or None.
        passes: passes in a row (CI-16 ruling: a full round of passes ends the game).
    """

    layout: Layout
    players: tuple[str, ...]
    hands: tuple[tuple[str, ...], ...]
    hand_limits: tuple[int, ...]
    points: tuple[int, ...]
    seated: tuple[str | None, ...]
    bar: tuple[str, ...]
    bag: tuple[int, ...]
    current: int
    refill: tuple[int, ...] = ()
    turn: int = 0
    lone_chair: int | None = None
    passes: int = 0

    def __repr__(self) -> str:
        from engines.cafe_international.json_io import state_to_json

        return f"state_from_json({state_to_json(self)!r})"

    @property
    def bag_size(self) -> int:
        """How many tiles are in the bag."""
        return sum(self.bag)

    def bag_counts(self) -> dict[str, int]:
        """The bag as tile kind → count (kinds with none left omitted)."""
        return {tile: count for tile, count in zip(TILE_KINDS, self.bag, strict=True) if count}

    def seated_by_chair(self) -> dict[str, str]:
        """The seated guests as chair id → seated id."""
        return {
            chair.id: guest
            for chair, guest in zip(self.layout.chairs, self.seated, strict=True)
            if guest is not None
        }


__all__ = [
    "END_BAG_SIZE",
    "HAND_SIZE",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "Action",
    "Draw",
    "Pass",
    "Placement",
    "Seat",
    "State",
    "Swap",
    "ToBar",
]
