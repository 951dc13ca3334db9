"""Every **Ruling** of the King's Breakfast rules in one place, so that each can be changed.

The original texts leave these gaps; `RULINGS` records the decisions taken in
``shared/rules/kings-breakfast.md``. Rule code reads these flags instead of hard-coding a choice.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Rulings:
    """The decisions the rule texts leave open, one field per ruling."""

    emerald_allowed_without_food_in_offer: bool = True
    """KB-11: with no food in the offer a player "must draw"; read as "may not pass", so the
    Emerald action (KB-13) stays allowed when its conditions hold."""

    pass_when_nothing_is_possible: bool = True
    """KB-14: a player with no legal action (no food in the offer, empty deck, no usable
    Emerald) passes; passing is never allowed otherwise."""

    emerald_in_hand_scores: int = 0
    """KB-19: an Emerald seen in a hand (impossible under KB-12) scores this many points."""

    shared_win_when_still_tied: bool = True
    """KB-23: players tied on points and on discarded cards share the win (else nobody wins)."""


RULINGS = Rulings()

__all__ = ["RULINGS", "Rulings"]
