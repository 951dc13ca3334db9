"""Fast playouts: many copies of one position played to the end at once, in numpy arrays.

A private, unchecked re-statement of the round (KB-6..KB-18) for batches: row r of every array is
one playout. All rows share the seating, the cook and the player to act (every player acts once
per round whatever they do, KB-9), so the batch moves in lockstep; rows whose game has ended
(KB-18) are frozen by masks. The deck of each row is a shuffled array of card indices (a uniform
order is the same chance as drawing one card at a time). Players follow `policy.choose`.
`tests/engines/kings_breakfast/test_playout.py` checks this against the checked engine.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engines.kings_breakfast.catalogue import EMERALD_INDEX, N_FOODS
from engines.kings_breakfast.policy import DRAW, EMERALD, LAY, choose, use_drawn_emerald
from engines.kings_breakfast.rules import cards_per_round

_ONE_HOT = np.arange(N_FOODS + 1)


@dataclass
class Batch:
    """Mutable arrays of B playouts of an n-player game (private to playouts and hints).

    `hands` (B, n, 7), `king` and `offer` (B, 7), `emeralds` (B,) on the table,
    `deck` (B, D) card indices in draw order, `top` (B,) index of the next card,
    `over` (B,) whether the game has ended. `cook`, `current`, `acted` are shared by all rows.
    """

    hands: np.ndarray
    king: np.ndarray
    offer: np.ndarray
    emeralds: np.ndarray
    deck: np.ndarray
    top: np.ndarray
    over: np.ndarray
    cook: int
    current: int
    acted: int

    @property
    def n_players(self) -> int:
        return self.hands.shape[1]

    def deck_left(self) -> np.ndarray:
        return self.deck.shape[1] - self.top

    def others(self, player: int) -> np.ndarray:
        return np.delete(self.hands, player, axis=1)


def apply_codes(
    batch: Batch, codes: np.ndarray, low: np.ndarray, high: np.ndarray, holding: bool = False
) -> None:
    """The current player's action per row (policy codes); rows that are over are skipped.

    With `holding`, the player holds a just-drawn Emerald (KB-12): `EMERALD` uses it and `LAY`
    lays it on the table.
    """
    player = batch.current
    rows = np.arange(codes.shape[0])
    live = ~batch.over
    # KB-10: take the whole pile
    take = live & (codes < N_FOODS)
    food = np.where(take, codes, 0)
    pile = np.where(take, batch.offer[rows, food], 0)
    batch.hands[rows, player, food] += pile
    batch.offer[rows, food] -= pile
    # KB-13 (KB-12 when holding): an Emerald and two of the king's foods leave the game
    emerald = live & (codes == EMERALD)
    batch.king[rows, low] -= emerald
    batch.king[rows, high] -= emerald
    if not holding:
        batch.emeralds -= emerald
    batch.emeralds += live & (codes == LAY)
    # KB-11: draw the top card; an Emerald must be used at once or laid down (KB-12)
    draw = live & (codes == DRAW)
    if draw.any():
        top = np.minimum(batch.top, batch.deck.shape[1] - 1)
        card = np.where(draw, batch.deck[rows, top], -1)
        batch.top += draw
        got_food = card >= 0
        got_food &= card < N_FOODS
        batch.hands[rows, player, np.where(got_food, card, 0)] += got_food
        got_emerald = card == EMERALD_INDEX
        if got_emerald.any():
            use, first, second = use_drawn_emerald(
                batch.hands[:, player],
                batch.others(player),
                batch.king,
                batch.offer,
                batch.deck_left(),
            )
            use &= got_emerald
            batch.king[rows, first] -= use
            batch.king[rows, second] -= use
            batch.emeralds += got_emerald & ~use


def policy_turn(batch: Batch) -> None:
    """The current player acts by the heuristic in every live row."""
    player = batch.current
    codes, low, high = choose(
        batch.hands[:, player],
        batch.others(player),
        batch.king,
        batch.offer,
        batch.emeralds,
        batch.deck_left(),
    )
    apply_codes(batch, codes, low, high)


def next_player(batch: Batch) -> bool:
    """KB-9/KB-15/KB-18/KB-6: end the turn; returns False once every row is over."""
    batch.acted += 1
    if batch.acted < batch.n_players:
        batch.current = (batch.current + 1) % batch.n_players
        return True
    # KB-15: serve the king; the deck passes to the left
    live = ~batch.over
    batch.king += batch.offer * live[:, None]
    batch.offer[live] = 0
    batch.cook = batch.current = (batch.cook + 1) % batch.n_players
    batch.acted = 0
    # KB-18: too few cards to set the table ends the game
    per_round = cards_per_round(batch.n_players)
    batch.over |= batch.deck_left() < per_round
    live = ~batch.over
    if not live.any():
        return False
    # KB-6/KB-7: deal 2 × players cards; Emeralds go beside the piles
    index = np.minimum(batch.top[:, None] + np.arange(per_round), batch.deck.shape[1] - 1)
    cards = np.take_along_axis(batch.deck, index, axis=1)
    counts = (cards[:, :, None] == _ONE_HOT).sum(axis=1) * live[:, None]
    batch.offer += counts[:, :N_FOODS]
    batch.emeralds += counts[:, EMERALD_INDEX]
    batch.top += per_round * live
    return True


def play_to_end(batch: Batch) -> None:
    """Finish the current turn's round and every later round by the heuristic (KB-18)."""
    while next_player(batch):
        policy_turn(batch)


def final_points(batch: Batch) -> tuple[np.ndarray, np.ndarray]:
    """KB-20..KB-22 per row and player: (total points, discarded cards), each (B, n)."""
    king = batch.king[:, None, :]
    greedy = batch.hands > king
    points = np.where(greedy, 0, batch.hands * king).sum(axis=2)
    discarded = np.where(greedy, batch.hands, 0).sum(axis=2)
    return points, discarded


__all__ = ["Batch", "apply_codes", "final_points", "next_player", "play_to_end", "policy_turn"]
