"""The simulated players' heuristic, written once for a whole batch of positions (numpy).

Used by hint playouts (thousands of positions at a time) and by the terminal demo (a batch of
one, through `choose_action`). The heuristic, deliberately simple:

- It values a food as if the game ended with the king holding his *projected* count: what he
  holds, plus this round's offer (leftovers go to him, KB-15), plus `KING_SHARE` of the deck
  spread evenly over the foods (roughly the share of later offers nobody takes). A food held
  ``h`` against a projected king ``k`` is worth ``h × k`` when ``h <= k``, else 0 (KB-20/21).
- Take a pile (KB-10): the gain of holding the pile, with the king no longer projected to get it.
- Draw (KB-11): the average gain of one more card of a random food.
- Emerald (KB-13): the best choice of two of the king's foods by *our* change in value minus
  the mean change of the other players (to make a rival too greedy, or keep ourselves safe).
- It picks the largest gain (ties: takes in food order, then draw, then Emerald); with nothing
  possible it passes (KB-14). A just-drawn Emerald (KB-12) is used if that gains, else laid down.

Opponents' hands are taken as fully known inside a playout (a simplification: a real player
only sees the others' public takes). Action codes: ``0..6`` take that food, `DRAW`, `EMERALD`,
`PASS`; `LAY` for laying a drawn Emerald.
"""

from __future__ import annotations

import numpy as np

from engines.kings_breakfast.catalogue import FOODS, N_FOODS
from engines.kings_breakfast.rules import legal_actions
from engines.kings_breakfast.state import (
    Action,
    DrawCard,
    LayEmerald,
    Pass,
    Phase,
    State,
    TakePile,
    UseEmerald,
)

KING_SHARE = 0.5
"""Fraction of the remaining deck assumed to reach the king's area, spread over the foods."""

DRAW, EMERALD, PASS, LAY = N_FOODS, N_FOODS + 1, N_FOODS + 2, N_FOODS + 3
_NONE = -1e9


def _value(held: np.ndarray, king: np.ndarray) -> np.ndarray:
    """KB-20/21 with a (possibly fractional) king count: held × king if not too greedy."""
    return np.where(held <= king, held * king, 0.0)


def _projected_king(king: np.ndarray, offer: np.ndarray, deck_left: np.ndarray) -> np.ndarray:
    future = deck_left.astype(np.float64)[:, None] * (KING_SHARE / N_FOODS)
    return king + offer + future


def emerald_choice(
    hand: np.ndarray, others: np.ndarray, king: np.ndarray, projected: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The best pair of the king's foods to remove, per row: (benefit, first food, second food).

    `hand` (B, 7), `others` (B, m, 7), `king` (B, 7) actual counts, `projected` (B, 7).
    Rows where the king holds fewer than two foods get benefit `_NONE`.
    """
    rows = np.arange(hand.shape[0])
    base_self = _value(hand, projected)
    base_others = _value(others, projected[:, None, :]).mean(axis=1)
    benefit = []
    for removed in (1, 2):
        lower = projected - removed
        change = _value(hand, lower) - base_self
        change -= _value(others, lower[:, None, :]).mean(axis=1) - base_others
        benefit.append(np.where(king >= removed, change, _NONE))
    one, two = benefit
    best_same = two.argmax(axis=1)
    order = np.argsort(-one, axis=1, kind="stable")
    first, second = order[:, 0], order[:, 1]
    split = one[rows, first] + one[rows, second]
    split_ok = (one[rows, second] > _NONE / 2) & (split > two[rows, best_same])
    gain = np.where(split_ok, split, two[rows, best_same])
    low = np.where(split_ok, np.minimum(first, second), best_same)
    high = np.where(split_ok, np.maximum(first, second), best_same)
    return np.where(gain > _NONE / 2, gain, _NONE), low, high


def choose(
    hand: np.ndarray,
    others: np.ndarray,
    king: np.ndarray,
    offer: np.ndarray,
    emeralds: np.ndarray,
    deck_left: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The heuristic's action per row: (code, first food, second food) for an Emerald.

    Shapes: `hand`, `king`, `offer` (B, 7); `others` (B, m, 7); `emeralds`, `deck_left` (B,).
    """
    projected = _projected_king(king, offer, deck_left)
    now = _value(hand, projected)
    take = _value(hand + offer, projected - offer) - now
    gains = np.full((hand.shape[0], N_FOODS + 2), _NONE)
    gains[:, :N_FOODS] = np.where(offer > 0, take, _NONE)
    draw = (_value(hand + 1, projected) - now).mean(axis=1)
    gains[:, DRAW] = np.where(deck_left > 0, draw, _NONE)
    benefit, low, high = emerald_choice(hand, others, king, projected)
    usable = (emeralds > 0) & (king.sum(axis=1) >= 2)
    gains[:, EMERALD] = np.where(usable, benefit, _NONE)
    code = gains.argmax(axis=1)
    code = np.where(gains.max(axis=1) > _NONE / 2, code, PASS)
    return code, low, high


def use_drawn_emerald(
    hand: np.ndarray,
    others: np.ndarray,
    king: np.ndarray,
    offer: np.ndarray,
    deck_left: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """KB-12 per row: (use it?, first food, second food); used only when that gains."""
    projected = _projected_king(king, offer, deck_left)
    benefit, low, high = emerald_choice(hand, others, king, projected)
    use = (benefit > 0) & (king.sum(axis=1) >= 2)
    return use, low, high


def choose_action(state: State) -> Action:
    """The heuristic's action for the player to act in a full state (a batch of one).

    Raises:
        ValueError: the state is not waiting for a player's decision.
    """
    if state.phase not in (Phase.ACT, Phase.EMERALD):
        raise ValueError(f"no player decision in phase {state.phase!r}")
    hands = np.array([state.hand(i) for i in range(state.n_players)], dtype=np.int64)
    me = state.current
    hand = hands[me][None, :]
    others = np.delete(hands, me, axis=0)[None, :, :]
    king = np.array([state.king], dtype=np.int64)
    offer = np.array([state.offer], dtype=np.int64)
    deck_left = np.array([state.deck_count])
    if state.phase == Phase.EMERALD:
        use, low, high = use_drawn_emerald(hand, others, king, offer, deck_left)
        action: Action = (
            UseEmerald((FOODS[int(low[0])], FOODS[int(high[0])])) if use[0] else LayEmerald()
        )
    else:
        emeralds = np.array([state.emeralds_on_table])
        code, low, high = choose(hand, others, king, offer, emeralds, deck_left)
        action = _action_of(int(code[0]), int(low[0]), int(high[0]))
    assert action in legal_actions(state), f"policy chose an illegal {action!r} in {state!r}"
    return action


def _action_of(code: int, low: int, high: int) -> Action:
    if code < N_FOODS:
        return TakePile(FOODS[code])
    if code == DRAW:
        return DrawCard()
    if code == EMERALD:
        return UseEmerald((FOODS[low], FOODS[high]))
    return Pass()


__all__ = [
    "DRAW",
    "EMERALD",
    "KING_SHARE",
    "LAY",
    "PASS",
    "choose",
    "choose_action",
    "emerald_choice",
    "use_drawn_emerald",
]
