"""Scoring King's Breakfast (KB-19..KB-23): from a finished state or from counted cards.

`food_points` is the whole scoring rule for one food; `scores_from_counts` validates the
contract's counts JSON (``{"king": {...}, "players": {...}}``) and returns the contract's
scores JSON (players → total/discarded/by_food, ranking, winners).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engines.errors import MalformedError
from engines.kings_breakfast.catalogue import (
    CARDS,
    CATALOGUE,
    EMERALD,
    EMERALD_INDEX,
    FOODS,
    counts_from_mapping,
)
from engines.kings_breakfast.rulings import RULINGS
from engines.kings_breakfast.state import State


def food_points(held: int, king: int) -> int:
    """Points for holding `held` cards of a food the king holds `king` of.

    KB-20: more than the king → discarded, 0. KB-21: otherwise held × king.
    KB-22: the king holds none → 0 (any held card is "too many").

    >>> food_points(3, 4), food_points(5, 4), food_points(4, 4), food_points(2, 0)
    (12, 0, 16, 0)
    """
    return held * king if held <= king else 0


@dataclass(frozen=True)
class PlayerScore:
    """One player's result: total points, cards discarded under KB-20, points of each food held."""

    total: int
    discarded: int
    by_food: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        """The contract's per-player object."""
        return {"total": self.total, "discarded": self.discarded, "by_food": dict(self.by_food)}


def score_hand(hand: Mapping[str, int], king: Mapping[str, int]) -> PlayerScore:
    """Score one hand (card id → count) against the king's area (food → count), KB-19..KB-22.

    `by_food` lists the foods held (count > 0) in the order of `hand`; an Emerald in hand
    scores the ruling's points (KB-19) and is neither a food nor discarded.
    """
    total, discarded, by_food = 0, 0, []
    for card, held in hand.items():
        if not held:
            continue
        if card == EMERALD:
            total += held * RULINGS.emerald_in_hand_scores  # KB-19
            continue
        points = food_points(held, king.get(card, 0))
        if held > king.get(card, 0):
            discarded += held  # KB-20
        total += points
        by_food.append((card, points))
    return PlayerScore(total, discarded, tuple(by_food))


def rank(results: Mapping[str, PlayerScore]) -> tuple[list[str], list[str]]:
    """KB-23: the ranking (most points, then fewest discarded) and the winners.

    Players still tied share the win (ruling); ties keep the order of `results`.
    """
    order = list(results)
    ranking = sorted(order, key=lambda name: (-results[name].total, results[name].discarded))
    if not ranking:
        return [], []
    best = results[ranking[0]]
    winners = [
        name
        for name in ranking
        if (results[name].total, results[name].discarded) == (best.total, best.discarded)
    ]
    if len(winners) > 1 and not RULINGS.shared_win_when_still_tied:
        winners = []
    return ranking, winners


def scores_report(results: Mapping[str, PlayerScore]) -> dict[str, Any]:
    """The contract's scores JSON for already computed results."""
    ranking, winners = rank(results)
    return {
        "players": {name: result.to_json() for name, result in results.items()},
        "ranking": ranking,
        "winners": winners,
    }


def state_results(state: State) -> dict[str, PlayerScore]:
    """Every player's result for a state (final when the game is over)."""
    king = dict(zip(FOODS, state.king, strict=True))
    return {
        name: score_hand(dict(zip(FOODS, state.hand(index), strict=True)), king)
        for index, name in enumerate(state.players)
    }


def scores(state: State) -> dict[str, int]:
    """Each player's total if the game ended now (the final scores once it is over)."""
    return {name: result.total for name, result in state_results(state).items()}


def scores_from_counts(counts: object) -> dict[str, Any]:
    """Validate counts JSON and return the contract's scores JSON.

    Raises:
        MalformedError: the shape is wrong, a food is unknown (``unknown food 'bacon' in
            players.Anna``), a count is not a non-negative integer, there are no players, the
            king holds an Emerald, or more cards are counted than the box holds (KB-1).
    """
    king, hands = parse_counts(counts)
    king_by_food = dict(zip(FOODS, king, strict=True))
    results = {name: score_hand(hand, king_by_food) for name, hand in hands.items()}
    return scores_report(results)


def parse_counts(counts: object) -> tuple[tuple[int, ...], dict[str, dict[str, int]]]:
    """The king's food counts and each player's hand (card id → count, input order)."""
    if not isinstance(counts, Mapping):
        raise MalformedError(
            f"counts must be a json object with 'king' and 'players', got {type(counts).__name__}"
        )
    for field in counts:
        if field not in ("king", "players"):
            raise MalformedError(f"unknown field {field!r} in counts (expected 'king', 'players')")
    for field in ("king", "players"):
        if field not in counts:
            raise MalformedError(f"missing field {field!r} in counts")
    king_cards = counts_from_mapping(counts["king"], "king", allow_emerald=True)
    if king_cards[EMERALD_INDEX]:
        raise MalformedError(
            "king.emerald: the king's area holds food only (KB-15), "
            f"got {king_cards[EMERALD_INDEX]}"
        )
    players = counts["players"]
    if not isinstance(players, Mapping):
        raise MalformedError(f"players must be an object of name → counts, got {players!r}")
    if not players:
        raise MalformedError("no players in counts")
    hands: dict[str, dict[str, int]] = {}
    totals = list(king_cards)
    for name, hand in players.items():
        if not name.strip():
            raise MalformedError(f"players: a player's name must not be empty, got {name!r}")
        cards = counts_from_mapping(hand, f"players.{name}", allow_emerald=True)
        hands[name] = {card: cards[CARDS.index(card)] for card in hand}
        totals = [t + c for t, c in zip(totals, cards, strict=True)]
    _check_box(totals)
    return king_cards[:EMERALD_INDEX], hands


def _check_box(totals: Sequence[int]) -> None:
    for card, total, copies in zip(CARDS, totals, CATALOGUE.card_copies, strict=True):
        if total > copies:
            raise MalformedError(
                f"too many {card}: {total} counted in king and players, "
                f"the game has {copies} (KB-1)"
            )


__all__ = [
    "PlayerScore",
    "food_points",
    "parse_counts",
    "rank",
    "score_hand",
    "scores",
    "scores_from_counts",
    "scores_report",
    "state_results",
]
