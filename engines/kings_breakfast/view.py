"""What the table shows: the public view of a state, and positions rebuilt from it.

The camera sees the offer, the Emeralds on the table, the king's area, each player's public
takes (KB-10) and removed cards (KB-13), and it can count the deck; it never sees a card drawn
from the deck (KB-11). `public_view` writes exactly that; `TableView.from_json` reads it back
(optionally with the hand the player to act entered privately), and `sample_state` deals the
unseen cards at random into a full `State` that agrees with everything shown.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engines.errors import MalformedError
from engines.kings_breakfast.catalogue import (
    CARDS,
    CATALOGUE,
    EMERALD_INDEX,
    FOODS,
    N_FOODS,
    NO_CARDS,
    NO_FOOD,
    counts_from_mapping,
    counts_to_dict,
    parse_count,
)
from engines.kings_breakfast.rules import cards_per_round, new_game
from engines.kings_breakfast.state import Phase, State

GAME = "kings-breakfast"


def rounds_left(deck_count: int, still_to_deal: int, n_players: int) -> int:
    """Rounds after the current one that the deck can still set if nobody draws (KB-18)."""
    return max(deck_count - still_to_deal, 0) // cards_per_round(n_players)


def public_view(state: State) -> dict[str, Any]:
    """The position as the table shows it (JSON-able): no hidden draw is revealed."""
    still_to_deal = (
        cards_per_round(state.n_players) - state.dealt if state.phase == Phase.DEAL else 0
    )
    return {
        "game": GAME,
        "players": list(state.players),
        "round": state.round,
        "cook": state.players[state.cook],
        "current": state.current_player,
        "phase": state.phase,
        "acted": state.acted,
        "dealt": state.dealt,
        "offer": counts_to_dict(state.offer),
        "emeralds_on_table": state.emeralds_on_table,
        "king": counts_to_dict(state.king),
        "hands": {
            name: {"taken": counts_to_dict(taken), "hidden_draws": sum(drawn)}
            for name, taken, drawn in zip(state.players, state.taken, state.drawn, strict=True)
        },
        "removed": counts_to_dict(state.removed),
        "deck_count": state.deck_count,
        "unused": counts_to_dict(state.unused),
        "rounds_left": 0
        if state.phase == Phase.OVER
        else rounds_left(state.deck_count, still_to_deal, state.n_players),
    }


@dataclass(frozen=True)
class TableView:
    """A public view read back, plus the hand of the player to act if they entered it.

    `own_drawn` is the current player's hidden draws when known (else None). `unseen` counts
    the cards nobody at the table can see: the deck and the unknown hidden draws.
    """

    players: tuple[str, ...]
    round: int
    cook: int
    current: int
    phase: str
    acted: int
    dealt: int
    offer: tuple[int, ...]
    emeralds_on_table: int
    king: tuple[int, ...]
    taken: tuple[tuple[int, ...], ...]
    hidden_draws: tuple[int, ...]
    removed: tuple[int, ...]
    unused: tuple[int, ...]
    deck_count: int
    own_drawn: tuple[int, ...] | None
    unseen: tuple[int, ...]

    @classmethod
    def from_json(cls, view: object, hand: Mapping[str, int] | None = None) -> TableView:
        """Read a `public_view` dictionary; `hand` is the current player's whole hand.

        Raises:
            MalformedError: a field is missing or wrong (named), the cards seen exceed the box,
                or `hand` disagrees with the player's takes and hidden draws.
        """
        if not isinstance(view, Mapping):
            raise MalformedError(f"view must be a json object, got {type(view).__name__}")
        players = _get(view, "players")
        if not isinstance(players, list):
            raise MalformedError(f"view.players must be a list of names, got {players!r}")
        new_game(players)  # KB-3 and the names
        phase = _get(view, "phase")
        if phase not in Phase.ALL:
            raise MalformedError(f"view.phase must be one of {', '.join(Phase.ALL)}, got {phase!r}")
        hands = _get(view, "hands")
        if not isinstance(hands, Mapping) or list(hands) != players:
            raise MalformedError("view.hands must have one entry per player, in player order")
        taken, hidden = [], []
        for name in players:
            entry = hands[name]
            if not isinstance(entry, Mapping):
                raise MalformedError(f"view.hands.{name} must be a json object")
            taken.append(
                counts_from_mapping(
                    entry.get("taken", {}), f"view.hands.{name}.taken", allow_emerald=False
                )
            )
            hidden.append(
                parse_count(entry.get("hidden_draws", 0), f"view.hands.{name}.hidden_draws")
            )
        current = _player(view, "current", players)
        own_drawn = None
        if hand is not None:
            whole = counts_from_mapping(hand, "hand", allow_emerald=False)
            own_drawn = tuple(w - t for w, t in zip(whole, taken[current], strict=True))
            if min(own_drawn) < 0 or sum(own_drawn) != hidden[current]:
                raise MalformedError(
                    f"hand {counts_to_dict(whole)} must be {players[current]}'s takes "
                    f"{counts_to_dict(taken[current])} plus {hidden[current]} drawn cards"
                )
        table = cls(
            players=tuple(players),
            round=parse_count(_get(view, "round"), "view.round"),
            cook=_player(view, "cook", players),
            current=current,
            phase=phase,
            acted=parse_count(view.get("acted", 0), "view.acted"),
            dealt=parse_count(view.get("dealt", 0), "view.dealt"),
            offer=counts_from_mapping(view.get("offer", {}), "view.offer", allow_emerald=False),
            emeralds_on_table=parse_count(
                view.get("emeralds_on_table", 0), "view.emeralds_on_table"
            ),
            king=counts_from_mapping(view.get("king", {}), "view.king", allow_emerald=False),
            taken=tuple(taken),
            hidden_draws=tuple(hidden),
            removed=counts_from_mapping(
                view.get("removed", {}), "view.removed", allow_emerald=True
            ),
            unused=counts_from_mapping(view.get("unused", {}), "view.unused", allow_emerald=True),
            deck_count=parse_count(_get(view, "deck_count"), "view.deck_count"),
            own_drawn=own_drawn,
            unseen=NO_CARDS,
        )
        return table._with_unseen()

    def _with_unseen(self) -> TableView:
        seen = list(self.removed)
        for index in range(len(CARDS)):
            seen[index] += self.unused[index]
        for counts in (self.offer, self.king, *self.taken, self.own_drawn or NO_FOOD):
            for index in range(N_FOODS):
                seen[index] += counts[index]
        seen[EMERALD_INDEX] += self.emeralds_on_table + (1 if self.phase == Phase.EMERALD else 0)
        unseen = tuple(copies - n for copies, n in zip(CATALOGUE.card_copies, seen, strict=True))
        for card, n in zip(CARDS, unseen, strict=True):
            if n < 0:
                raise MalformedError(f"view: more {card} seen than the box holds (KB-1)")
        unknown_draws = sum(self.hidden_draws) - (
            self.hidden_draws[self.current] if self.own_drawn else 0
        )
        if sum(unseen) != self.deck_count + unknown_draws:
            raise MalformedError(
                f"view: {sum(unseen)} cards unseen, but deck_count {self.deck_count} plus "
                f"{unknown_draws} hidden draws is {self.deck_count + unknown_draws}"
            )
        if sum(unseen[:N_FOODS]) < unknown_draws:
            raise MalformedError("view: fewer unseen food cards than hidden draws")
        return TableView(**{**self.__dict__, "unseen": unseen})


def sample_state(table: TableView, rng: random.Random) -> State:
    """A full state that agrees with `table`: the unknown hidden draws dealt at random.

    Hidden draws are food (KB-12 never leaves an Emerald in hand), so they are drawn from the
    unseen food cards; what is left is the deck (a multiset: its order is a chance step).
    """
    pool = [index for index in range(N_FOODS) for _ in range(table.unseen[index])]
    rng.shuffle(pool)
    drawn = []
    for player, count in enumerate(table.hidden_draws):
        if player == table.current and table.own_drawn is not None:
            drawn.append(table.own_drawn)
            continue
        counts = [0] * N_FOODS
        for index in pool[:count]:
            counts[index] += 1
        del pool[:count]
        drawn.append(tuple(counts))
    deck = [0] * len(CARDS)
    for index in pool:
        deck[index] += 1
    deck[EMERALD_INDEX] = table.unseen[EMERALD_INDEX]
    return State(
        players=table.players,
        cook=table.cook,
        round=table.round,
        phase=table.phase,
        current=table.current,
        acted=table.acted,
        dealt=table.dealt,
        deck=tuple(deck),
        offer=table.offer,
        emeralds_on_table=table.emeralds_on_table,
        king=table.king,
        taken=table.taken,
        drawn=tuple(drawn),
        removed=table.removed,
        unused=table.unused,
    )


def _get(view: Mapping[str, Any], name: str) -> Any:
    if name not in view:
        raise MalformedError(f"missing field view.{name}")
    return view[name]


def _player(view: Mapping[str, Any], name: str, players: list[str]) -> int:
    value = _get(view, name)
    if value not in players:
        raise MalformedError(f"view.{name} must name a player, got {value!r}")
    return players.index(value)


__all__ = ["FOODS", "TableView", "public_view", "rounds_left", "sample_state"]
