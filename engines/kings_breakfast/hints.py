"""Hints for the player to act, from what the table shows (plus their hand, if they enter it).

For every legal action, `hints` reports the player's resulting count of each food against the
king's, the points that would make if the game ended now (KB-20..KB-22), and, estimated by
Monte-Carlo playouts of the rest of the game, the risk that the king ends with fewer of each
food than the player holds after the action (those cards would be discarded, KB-20), the
expected final points and the chance of winning (KB-23). Playouts start from the public view:
the unknown cards (the deck and others' hidden draws) are dealt at random from the unseen ones,
and everyone then plays `policy`'s heuristic. Every action is played out on the same sampled
deals (common random numbers), so the actions are compared fairly. Seeded: the same view, hand
and seed give the same hints.

``held`` shows the cards the player can point to: their public takes, plus their drawn cards
when they entered their hand (a draw's card is unknown, so a draw shows the hand before it).
Without an entered hand, the player's own hidden draws are sampled like everyone else's, and
the risks count them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np

from engines.errors import MalformedError
from engines.kings_breakfast.catalogue import CARD_INDEX, EMERALD_INDEX, FOODS, N_FOODS
from engines.kings_breakfast.json_io import action_to_json
from engines.kings_breakfast.playout import Batch, apply_codes, final_points, play_to_end
from engines.kings_breakfast.policy import DRAW, EMERALD, LAY, PASS
from engines.kings_breakfast.rules import legal_actions
from engines.kings_breakfast.scoring import food_points
from engines.kings_breakfast.state import (
    Action,
    DrawCard,
    LayEmerald,
    Phase,
    State,
    TakePile,
    UseEmerald,
)
from engines.kings_breakfast.view import TableView, public_view, sample_state

DEFAULT_PLAYOUTS = 3000
"""Playouts in all, shared evenly among the legal actions (at least `MIN_PER_ACTION` each)."""

MIN_PER_ACTION = 50


def hints(
    view: Mapping[str, Any],
    hand: Mapping[str, int] | None = None,
    *,
    playouts: int = DEFAULT_PLAYOUTS,
    seed: int = 0,
) -> dict[str, Any]:
    """Hints for every legal action of the player to act, best (highest expected points) first.

    Args:
        view: a `public_view` dictionary (what the table shows).
        hand: the current player's whole hand (food → count), if they entered it.
        playouts: playouts in all, shared evenly among the legal actions (at least
            `MIN_PER_ACTION` each).
        seed: seeds the sampled deals.

    Raises:
        MalformedError: a bad view or hand, or no decision to hint (dealing, drawing, over).
    """
    table = TableView.from_json(view, hand)
    if table.phase not in (Phase.ACT, Phase.EMERALD):
        raise MalformedError(f"view.phase {table.phase!r}: no player decision to hint")
    if isinstance(playouts, bool) or not isinstance(playouts, int) or playouts < 1:
        raise MalformedError(f"playouts must be a positive integer, got {playouts!r}")
    actions = legal_actions(sample_state(table, random.Random(seed)))
    playouts = max(MIN_PER_ACTION, -(-playouts // len(actions)))  # per action
    me = table.current
    known = np.array(table.taken[me]) + np.array(table.own_drawn or (0,) * N_FOODS)

    batch = _sample_batch(table, playouts, len(actions), np.random.default_rng(seed))
    codes, low, high = _action_codes(actions, playouts)
    apply_codes(batch, codes, low, high, holding=table.phase == Phase.EMERALD)
    held_after = batch.hands[:, me].copy()
    play_to_end(batch)
    points, discarded = final_points(batch)
    key = points * 1000 - discarded  # KB-23: more points, then fewer discarded
    wins = key[:, me] == key.max(axis=1)
    losing = batch.king < held_after  # the king ends with fewer than held after the action

    rows: list[dict[str, Any]] = []
    for number, action in enumerate(actions):
        part = slice(number * playouts, (number + 1) * playouts)
        held, king = _after(action, known, np.array(table.king), table.offer)
        by_food = {}
        for food in range(N_FOODS):
            if held[food] or king[food]:
                by_food[FOODS[food]] = {
                    "held": int(held[food]),
                    "king": int(king[food]),
                    "points": food_points(int(held[food]), int(king[food])),
                    "risk": round(float(losing[part, food].mean()), 4),
                }
        rows.append(
            {
                "action": action_to_json(action),
                "points_now": sum(item["points"] for item in by_food.values()),
                "expected_points": round(float(points[part, me].mean()), 2),
                "win_chance": round(float(wins[part].mean()), 4),
                "by_food": by_food,
            }
        )
    rows.sort(key=lambda row: -row["expected_points"])
    return {"player": table.players[me], "playouts_per_action": playouts, "actions": rows}


def hints_for_state(
    state: State, *, enter_hand: bool = True, playouts: int = DEFAULT_PLAYOUTS, seed: int = 0
) -> dict[str, Any]:
    """`hints` for a full state: its public view, plus the current player's hand if entered."""
    hand = dict(zip(FOODS, state.hand(state.current), strict=True)) if enter_hand else None
    return hints(public_view(state), hand, playouts=playouts, seed=seed)


def _after(
    action: Action, known: np.ndarray, king: np.ndarray, offer: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """The player's visible hand and the king's area right after `action` (a draw is unseen)."""
    held, king = known.copy(), king.copy()
    if isinstance(action, TakePile):
        index = CARD_INDEX[action.food]
        held[index] += offer[index]
    if isinstance(action, UseEmerald):
        for food in action.foods:
            king[CARD_INDEX[food]] -= 1
    return held, king


def _action_codes(actions: list[Action], playouts: int) -> tuple[np.ndarray, ...]:
    codes = np.empty(len(actions) * playouts, dtype=np.int64)
    low = np.zeros_like(codes)
    high = np.zeros_like(codes)
    for number, action in enumerate(actions):
        part = slice(number * playouts, (number + 1) * playouts)
        if isinstance(action, TakePile):
            codes[part] = CARD_INDEX[action.food]
        elif isinstance(action, DrawCard):
            codes[part] = DRAW
        elif isinstance(action, UseEmerald):
            codes[part] = EMERALD
            low[part], high[part] = (CARD_INDEX[food] for food in action.foods)
        elif isinstance(action, LayEmerald):
            codes[part] = LAY
        else:
            codes[part] = PASS
    return codes, low, high


def _sample_batch(
    table: TableView, playouts: int, n_actions: int, rng: np.random.Generator
) -> Batch:
    """`playouts` random deals agreeing with `table`, each repeated once per action."""
    me = table.current
    unknown = [
        0 if (player == me and table.own_drawn is not None) else count
        for player, count in enumerate(table.hidden_draws)
    ]
    foods = np.repeat(np.arange(N_FOODS), table.unseen[:N_FOODS])
    shuffled = rng.permuted(np.tile(foods, (playouts, 1)), axis=1)
    hands = np.tile(np.array(table.taken, dtype=np.int64), (playouts, 1, 1))
    if table.own_drawn is not None:
        hands[:, me] += np.array(table.own_drawn)
    start = 0
    for player, count in enumerate(unknown):
        part = shuffled[:, start : start + count]
        hands[:, player] += (part[:, :, None] == np.arange(N_FOODS)).sum(axis=1)
        start += count
    emeralds = np.full((playouts, table.unseen[EMERALD_INDEX]), EMERALD_INDEX)
    deck = rng.permuted(np.concatenate([shuffled[:, start:], emeralds], axis=1), axis=1)
    assert deck.shape[1] == table.deck_count, "unseen cards must fill the deck"

    def repeat(array: np.ndarray) -> np.ndarray:
        return np.tile(array, (n_actions,) + (1,) * (array.ndim - 1))

    size = playouts * n_actions
    return Batch(
        hands=repeat(hands),
        king=np.tile(np.array(table.king, dtype=np.int64), (size, 1)),
        offer=np.tile(np.array(table.offer, dtype=np.int64), (size, 1)),
        emeralds=np.full(size, table.emeralds_on_table, dtype=np.int64),
        deck=repeat(deck),
        top=np.zeros(size, dtype=np.int64),
        over=np.zeros(size, dtype=bool),
        cook=table.cook,
        current=me,
        acted=table.acted,
    )


__all__ = ["DEFAULT_PLAYOUTS", "hints", "hints_for_state"]
