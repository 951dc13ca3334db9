"""Scoring (DK-20, DK-25) and the winner (DK-26).

A kingdom pile holds inhabitants, villages, penalty cards and dragons received. Its score is the
inhabitants' printed points, plus village values, minus penalty values, minus the points of every
dragon in it (a player only ever holds dragons given to them, DK-22), plus the fairy bonus: n
fairies score n(n+1)/2, replacing their printed points (DK-20 ruling).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from engines.dice_king.catalogue import CardType, Deck, penalties, villages
from engines.dice_king.state import State


@dataclass(frozen=True)
class KingdomScore:
    """The parts of one kingdom's score (DK-25)."""

    inhabitants: int
    villages: int
    penalties: int
    dragons: int
    fairies: int
    penalty_cards: int

    @property
    def total(self) -> int:
        """DK-25: inhabitants + villages − penalties − dragons + fairy bonus."""
        return self.inhabitants + self.villages - self.penalties - self.dragons + self.fairy_bonus

    @property
    def fairy_bonus(self) -> int:
        """DK-20: 1 + 2 + … + n for n fairies."""
        return self.fairies * (self.fairies + 1) // 2


@cache
def _village_points() -> dict[str, int]:
    return {v.id: v.points for stack in villages() for v in stack}


@cache
def _penalty_points() -> dict[str, int]:
    return {p.id: p.points for p in penalties()}


def score_kingdom(deck: Deck, pile: Sequence[str]) -> KingdomScore:
    """Score one kingdom pile of card ids (DK-20, DK-25)."""
    inhabitants = village_sum = penalty_sum = dragons = fairies = penalty_cards = 0
    village_points, penalty_points = _village_points(), _penalty_points()
    for card_id in pile:
        if card_id in village_points:
            village_sum += village_points[card_id]
        elif card_id in penalty_points:
            penalty_sum += penalty_points[card_id]
            penalty_cards += 1
        else:
            card = deck.card(card_id, "kingdom")
            if card.type is CardType.DRAGON:
                dragons += card.points
            elif card.type is CardType.FAIRY:
                fairies += 1
            else:
                inhabitants += card.points
    return KingdomScore(inhabitants, village_sum, penalty_sum, dragons, fairies, penalty_cards)


def scores(state: State) -> dict[str, int]:
    """Every player's current score (DK-25)."""
    return {
        name: score_kingdom(state.deck, pile).total
        for name, pile in zip(state.players, state.kingdoms, strict=True)
    }


def ranking(state: State) -> list[str]:
    """Players best first: higher score, then fewer penalty cards (DK-26), then seat order."""
    parts = [score_kingdom(state.deck, pile) for pile in state.kingdoms]
    order = sorted(
        range(len(state.players)), key=lambda i: (-parts[i].total, parts[i].penalty_cards, i)
    )
    return [state.players[i] for i in order]


def winners(state: State) -> list[str]:
    """DK-26: the best score; ties go to fewer penalty cards; a remaining tie is shared."""
    parts = {
        name: score_kingdom(state.deck, pile)
        for name, pile in zip(state.players, state.kingdoms, strict=True)
    }
    best = max((p.total, -p.penalty_cards) for p in parts.values())
    return [name for name, p in parts.items() if (p.total, -p.penalty_cards) == best]


__all__ = ["KingdomScore", "ranking", "score_kingdom", "scores", "winners"]
