"""The deck of King's Breakfast as typed data: foods, Emeralds, copies, player counts.

The printed numbers live in ``catalogue.json`` beside this module (KB-1, KB-3, KB-6); this module
loads them once into `CATALOGUE` and names the card ids of the design contract (KB-2: the project
uses ``ham cheese bread cake wine fruit chicken`` and ``emerald``).

Inside the engine, counts are tuples indexed by card: `FOODS` first (indices 0–6, in catalogue
order), then the Emerald (index `EMERALD_INDEX`, 7). `counts_to_dict` and `counts_from_mapping`
convert between those tuples and ``{"cheese": 3}`` dictionaries.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from engines.errors import MalformedError


class Food(StrEnum):
    """The seven foods (KB-2); values are the contract ids."""

    HAM = "ham"
    CHEESE = "cheese"
    BREAD = "bread"
    CAKE = "cake"
    WINE = "wine"
    FRUIT = "fruit"
    CHICKEN = "chicken"


EMERALD = "emerald"


@dataclass(frozen=True)
class Catalogue:
    """What is printed on the box: copies of each card and the player counts."""

    food_copies: tuple[int, ...]  # per food, in `FOODS` order (KB-1)
    emerald_copies: int  # KB-1
    min_players: int  # KB-3
    max_players: int  # KB-3
    dealt_per_player: int  # KB-6

    @property
    def card_copies(self) -> tuple[int, ...]:
        """Copies of every card id, foods then the Emerald."""
        return self.food_copies + (self.emerald_copies,)

    @property
    def total_cards(self) -> int:
        """Every card in the box (KB-1)."""
        return sum(self.card_copies)


def _load_catalogue() -> tuple[tuple[str, ...], Catalogue]:
    raw = json.loads((Path(__file__).with_name("catalogue.json")).read_text(encoding="utf-8"))
    foods = tuple(raw["foods"])
    if foods != tuple(food.value for food in Food):
        raise RuntimeError(f"catalogue.json foods {foods} differ from the Food enum")
    catalogue = Catalogue(
        food_copies=tuple(int(raw["foods"][food]) for food in foods),
        emerald_copies=int(raw["emerald"]),
        min_players=int(raw["players"]["min"]),
        max_players=int(raw["players"]["max"]),
        dealt_per_player=int(raw["dealt_per_player"]),
    )
    return foods, catalogue


FOODS, CATALOGUE = _load_catalogue()
CARDS: tuple[str, ...] = FOODS + (EMERALD,)
N_FOODS = len(FOODS)
EMERALD_INDEX = N_FOODS
CARD_INDEX: dict[str, int] = {card: index for index, card in enumerate(CARDS)}
NO_FOOD: tuple[int, ...] = (0,) * N_FOODS
NO_CARDS: tuple[int, ...] = (0,) * len(CARDS)


def card_identity(card: str) -> str:
    """The design's card identity, e.g. ``kings-breakfast/cheese``."""
    return f"kings-breakfast/{card}"


def counts_to_dict(counts: Iterable[int], *, keep_zero: bool = False) -> dict[str, int]:
    """``(0, 3, 0, …)`` → ``{"cheese": 3}`` in catalogue order (zeros dropped unless asked)."""
    return {card: n for card, n in zip(CARDS, counts, strict=False) if n or keep_zero}


def counts_from_mapping(
    mapping: object, field: str, *, allow_emerald: bool, width: int | None = None
) -> tuple[int, ...]:
    """Parse ``{"cheese": 3}`` into a count tuple; `field` names the place for error messages.

    Returns a tuple of `N_FOODS` counts, or of ``len(CARDS)`` when `allow_emerald` (or `width`).

    Raises:
        MalformedError: not an object, an unknown card id, or a count that is not a
            non-negative integer (booleans are not counts).
    """
    if not isinstance(mapping, Mapping):
        raise MalformedError(f"{field} must be an object of counts, got {_short(mapping)}")
    size = width if width is not None else (len(CARDS) if allow_emerald else N_FOODS)
    counts = [0] * size
    for card, count in mapping.items():
        index = CARD_INDEX.get(card) if isinstance(card, str) else None
        if index is None or index >= size:
            if card == EMERALD:
                raise MalformedError(f"{field} cannot hold {EMERALD!r}: it holds food only")
            raise MalformedError(f"unknown food {card!r} in {field}")
        counts[index] = parse_count(count, f"{field}.{card}")
    return tuple(counts)


def parse_count(value: object, field: str) -> int:
    """A non-negative integer count, or `MalformedError` naming `field` and the value."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedError(f"{field} must be a non-negative integer, got {_short(value)}")
    if value < 0:
        raise MalformedError(f"{field} must be a non-negative integer, got {value}")
    return value


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = [
    "CARDS",
    "CARD_INDEX",
    "CATALOGUE",
    "EMERALD",
    "EMERALD_INDEX",
    "FOODS",
    "Catalogue",
    "Food",
    "N_FOODS",
    "NO_CARDS",
    "NO_FOOD",
    "card_identity",
    "counts_from_mapping",
    "counts_to_dict",
    "parse_count",
]
