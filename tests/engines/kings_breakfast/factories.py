"""Small factories for King's Breakfast test positions (counts given as ``{"cheese": 2}``)."""

from __future__ import annotations

from collections.abc import Mapping

from engines.kings_breakfast.catalogue import CARD_INDEX, CARDS, CATALOGUE, FOODS
from engines.kings_breakfast.rules import cards_per_round
from engines.kings_breakfast.state import Phase, State

Counts = Mapping[str, int]
NAMES = ("Anna", "Ben", "Cleo", "Dan", "Eve")


def foods(counts: Counts | None = None) -> tuple[int, ...]:
    """Food counts as the engine's tuple."""
    counts = counts or {}
    return tuple(counts.get(food, 0) for food in FOODS)


def cards(counts: Counts | None = None) -> tuple[int, ...]:
    """Card counts (foods and Emerald) as the engine's tuple."""
    counts = counts or {}
    return tuple(counts.get(card, 0) for card in CARDS)


def position(
    n_players: int = 3,
    *,
    phase: str = Phase.ACT,
    offer: Counts | None = None,
    king: Counts | None = None,
    emeralds_on_table: int = 0,
    taken: Mapping[int, Counts] | None = None,
    drawn: Mapping[int, Counts] | None = None,
    deck: Counts | None = None,
    cook: int = 0,
    current: int | None = None,
    acted: int = 0,
    dealt: int | None = None,
) -> State:
    """A position; unless `deck` is given, every card not placed elsewhere is in the deck.

    When `deck` is given, the rest of the box is counted as removed, so that the inventory
    stays the whole box (KB-1).
    """
    taken = taken or {}
    drawn = drawn or {}
    placed = [0] * len(CARDS)
    for counts in (offer, king, *taken.values(), *drawn.values()):
        for food, n in (counts or {}).items():
            placed[CARD_INDEX[food]] += n
    placed[CARD_INDEX["emerald"]] += emeralds_on_table + (1 if phase == Phase.EMERALD else 0)
    rest = tuple(c - p for c, p in zip(CATALOGUE.card_copies, placed, strict=True))
    if deck is None:
        deck_counts, removed = rest, (0,) * len(CARDS)
    else:
        deck_counts = cards(deck)
        removed = tuple(r - d for r, d in zip(rest, deck_counts, strict=True))
    assert min(rest) >= 0 and min(removed) >= 0, "more cards than the box holds"
    return State(
        players=NAMES[:n_players],
        cook=cook,
        round=1,
        phase=phase,
        current=cook if current is None else current,
        acted=acted,
        dealt=cards_per_round(n_players) if dealt is None else dealt,
        deck=deck_counts,
        offer=foods(offer),
        emeralds_on_table=emeralds_on_table,
        king=foods(king),
        taken=tuple(foods(taken.get(i)) for i in range(n_players)),
        drawn=tuple(foods(drawn.get(i)) for i in range(n_players)),
        removed=removed,
        unused=(0,) * len(CARDS),
    )
