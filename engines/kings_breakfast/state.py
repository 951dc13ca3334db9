"""The values of King's Breakfast: the game state and the actions, all frozen and hashable.

Counts are tuples indexed as in `catalogue.CARDS` (foods, then the Emerald). The deck is a
multiset: its order is hidden, so every card that leaves it is an explicit chance step
(`DealCard` while setting the table, `DrawnCard` after a player draws). The default dataclass
``repr`` of a state or an action is a constructor call that rebuilds it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from engines.errors import MalformedError
from engines.kings_breakfast.catalogue import CARDS, EMERALD, EMERALD_INDEX, FOODS, N_FOODS


class Phase:
    """Where a round stands (plain strings, so that ``repr`` of a state rebuilds it)."""

    DEAL = "deal"  # chance: the cook deals the next card of the offer (KB-6)
    ACT = "act"  # the current player chooses an action (KB-9..KB-13)
    DRAW = "draw"  # chance: the card the current player drew (KB-11)
    EMERALD = "emerald"  # the current player drew an Emerald: use it or lay it down (KB-12)
    OVER = "over"  # the game has ended (KB-18)

    ALL = (DEAL, ACT, DRAW, EMERALD, OVER)
    CHANCE = (DEAL, DRAW)


@dataclass(frozen=True)
class State:
    """A whole game position, including what the table does not show (the hidden draws).

    Players are listed in clockwise order; `cook`, `current` index into `players`.
    `acted` counts the players who have acted this round, `dealt` the cards of the offer dealt
    so far. `deck`, `removed`, `unused` count every card id; `offer`, `king`, `taken`, `drawn`
    count foods only (Emeralds of the offer lie on the table, `emeralds_on_table`, KB-7).
    `taken[i]` are player i's public takes (KB-10), `drawn[i]` the foods they drew unseen
    (KB-11). In phase `EMERALD` the current player holds the Emerald they just drew.
    """

    players: tuple[str, ...]
    cook: int
    round: int
    phase: str
    current: int
    acted: int
    dealt: int
    deck: tuple[int, ...]
    offer: tuple[int, ...]
    emeralds_on_table: int
    king: tuple[int, ...]
    taken: tuple[tuple[int, ...], ...]
    drawn: tuple[tuple[int, ...], ...]
    removed: tuple[int, ...]
    unused: tuple[int, ...]

    @property
    def n_players(self) -> int:
        """How many players sit at the table."""
        return len(self.players)

    @property
    def deck_count(self) -> int:
        """Cards left in the deck."""
        return sum(self.deck)

    @property
    def current_player(self) -> str:
        """The name of the player to act (or being dealt to, or the cook)."""
        return self.players[self.current]

    def hand(self, player: int) -> tuple[int, ...]:
        """Every food in a player's hand: public takes plus hidden draws."""
        return tuple(t + d for t, d in zip(self.taken[player], self.drawn[player], strict=True))


def inventory(state: State) -> Counter[str]:
    """Every card id counted over all locations; always the full box of 110 (KB-1)."""
    total = [0] * len(CARDS)
    for counts in (state.deck, state.removed, state.unused):
        for index, n in enumerate(counts):
            total[index] += n
    for counts in (state.offer, state.king, *state.taken, *state.drawn):
        for index, n in enumerate(counts):
            total[index] += n
    total[EMERALD_INDEX] += state.emeralds_on_table
    if state.phase == Phase.EMERALD:
        total[EMERALD_INDEX] += 1  # the Emerald just drawn, in the player's hand (KB-12)
    return Counter({card: n for card, n in zip(CARDS, total, strict=True) if n})


# --- actions -------------------------------------------------------------------------------


def _check_food(food: object, field: str) -> None:
    if food not in FOODS:
        raise MalformedError(f"unknown food {food!r} in {field}")


@dataclass(frozen=True)
class DealCard:
    """Chance (KB-6): the next card off the deck, dealt face up into the offer."""

    card: str

    def __post_init__(self) -> None:
        if self.card not in CARDS:
            raise MalformedError(f"unknown card {self.card!r} in deal.card")


@dataclass(frozen=True)
class DrawnCard:
    """Chance (KB-11): the card the current player drew from the deck (hidden from others)."""

    card: str

    def __post_init__(self) -> None:
        if self.card not in CARDS:
            raise MalformedError(f"unknown card {self.card!r} in drawn.card")


@dataclass(frozen=True)
class TakePile:
    """KB-10: take all cards of one food from the offer."""

    food: str

    def __post_init__(self) -> None:
        _check_food(self.food, "take.food")


@dataclass(frozen=True)
class DrawCard:
    """KB-11: draw the top card of the deck without showing it."""


@dataclass(frozen=True)
class UseEmerald:
    """KB-13 (and KB-12 for a just-drawn Emerald): remove an Emerald and two of the king's foods.

    `foods` is the pair of foods taken from the king's area, in catalogue order.
    """

    foods: tuple[str, str]

    def __post_init__(self) -> None:
        if not isinstance(self.foods, tuple) or len(self.foods) != 2:
            raise MalformedError(f"emerald.foods must name exactly two foods, got {self.foods!r}")
        for food in self.foods:
            _check_food(food, "emerald.foods")
        if FOODS.index(self.foods[0]) > FOODS.index(self.foods[1]):
            object.__setattr__(self, "foods", (self.foods[1], self.foods[0]))


@dataclass(frozen=True)
class LayEmerald:
    """KB-12: lay the Emerald just drawn on the table, for anyone to use later."""


@dataclass(frozen=True)
class Pass:
    """KB-14 (ruling): the player has no legal action and passes."""


Action = DealCard | DrawnCard | TakePile | DrawCard | UseEmerald | LayEmerald | Pass
CHANCE_ACTIONS = (DealCard, DrawnCard)

__all__ = [
    "CHANCE_ACTIONS",
    "EMERALD",
    "N_FOODS",
    "Action",
    "DealCard",
    "DrawCard",
    "DrawnCard",
    "LayEmerald",
    "Pass",
    "Phase",
    "State",
    "TakePile",
    "UseEmerald",
    "inventory",
]
