"""The rules of King's Breakfast as functions on `State` values (KB-3, KB-5..KB-18).

`legal_actions` lists what the player to act may do; `apply` checks an action against the same
rules and returns the next state, or raises `IllegalActionError` with the clause it breaks.
Chance is explicit: while the table is set (KB-6) and after a draw (KB-11) the state is a chance
node whose `chance_outcomes` are the card ids left in the deck, weighted by their counts.
`_apply_unchecked` is the same transition without the checks, for playouts that only apply
actions taken from `legal_actions` or `chance_outcomes`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace
from itertools import combinations_with_replacement

from engines.errors import IllegalActionError, MalformedError
from engines.kings_breakfast.catalogue import (
    CARD_INDEX,
    CARDS,
    CATALOGUE,
    EMERALD,
    EMERALD_INDEX,
    FOODS,
    N_FOODS,
    NO_CARDS,
    NO_FOOD,
)
from engines.kings_breakfast.rulings import RULINGS
from engines.kings_breakfast.state import (
    Action,
    DealCard,
    DrawCard,
    DrawnCard,
    LayEmerald,
    Pass,
    Phase,
    State,
    TakePile,
    UseEmerald,
)


def cards_per_round(n_players: int) -> int:
    """KB-6, KB-8: the cook always deals 2 × players cards (Emeralds count among them)."""
    return CATALOGUE.dealt_per_player * n_players


def new_game(players: Sequence[str], *, cook: int = 0) -> State:
    """A new game (KB-5): all 110 cards shuffled into the deck, `cook` about to set the table.

    `players` are the names in clockwise order.

    Raises:
        MalformedError: not 3–5 players (KB-3), a name empty, repeated or not a string, or
            `cook` not the index of a player.
    """
    names = tuple(players) if not isinstance(players, str) else (players,)
    if not CATALOGUE.min_players <= len(names) <= CATALOGUE.max_players:
        raise MalformedError(
            f"players: KB-3 allows {CATALOGUE.min_players} to {CATALOGUE.max_players} players, "
            f"got {len(names)}"
        )
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise MalformedError(
                f"players: a player's name must be a non-empty string, got {name!r}"
            )
    if len(set(names)) != len(names):
        raise MalformedError(f"players: names must differ, got {list(names)!r}")
    if isinstance(cook, bool) or not isinstance(cook, int) or not 0 <= cook < len(names):
        raise MalformedError(f"cook must be a player index 0..{len(names) - 1}, got {cook!r}")
    n = len(names)
    return State(
        players=names,
        cook=cook,
        round=1,
        phase=Phase.DEAL,
        current=cook,
        acted=0,
        dealt=0,
        deck=CATALOGUE.card_copies,
        offer=NO_FOOD,
        emeralds_on_table=0,
        king=NO_FOOD,
        taken=(NO_FOOD,) * n,
        drawn=(NO_FOOD,) * n,
        removed=NO_CARDS,
        unused=NO_CARDS,
    )


def is_over(state: State) -> bool:
    """KB-18: the game has ended."""
    return state.phase == Phase.OVER


def is_chance_node(state: State) -> bool:
    """The next step is a card off the deck: dealing (KB-6) or a draw (KB-11)."""
    return state.phase in Phase.CHANCE


def chance_outcomes(state: State) -> list[tuple[Action, float]]:
    """Each card id left in the deck with probability count / cards left (empty if no chance)."""
    if not is_chance_node(state):
        return []
    total = state.deck_count
    make = DealCard if state.phase == Phase.DEAL else DrawnCard
    return [(make(card), n / total) for card, n in zip(CARDS, state.deck, strict=True) if n]


def sample_outcome(state: State, rng: random.Random) -> Action:
    """One chance outcome drawn with its exact probability (the next card off the deck)."""
    outcomes = chance_outcomes(state)
    if not outcomes:
        raise ValueError(f"not a chance node: phase {state.phase!r}")
    return rng.choices([a for a, _ in outcomes], weights=[p for _, p in outcomes], k=1)[0]


def emerald_pairs(king: Sequence[int]) -> list[tuple[str, str]]:
    """KB-13: every choice of two food cards (same or different food) from the king's area."""
    pairs = []
    for first, second in combinations_with_replacement(range(N_FOODS), 2):
        if (first == second and king[first] >= 2) or (
            first != second and king[first] and king[second]
        ):
            pairs.append((FOODS[first], FOODS[second]))
    return pairs


def legal_actions(state: State) -> list[Action]:
    """What the player to act may do; empty at chance nodes and when the game is over."""
    if state.phase == Phase.EMERALD:  # KB-12: use the drawn Emerald at once, or lay it down
        return [*(UseEmerald(pair) for pair in emerald_pairs(state.king)), LayEmerald()]
    if state.phase != Phase.ACT:
        return []
    actions: list[Action] = [
        TakePile(food) for food, n in zip(FOODS, state.offer, strict=True) if n
    ]
    food_in_offer = bool(actions)
    if state.deck_count:  # KB-11
        actions.append(DrawCard())
    if state.emeralds_on_table and (food_in_offer or RULINGS.emerald_allowed_without_food_in_offer):
        actions.extend(UseEmerald(pair) for pair in emerald_pairs(state.king))  # KB-13
    if not actions and RULINGS.pass_when_nothing_is_possible:  # KB-14
        actions.append(Pass())
    return actions


def is_legal(state: State, action: object) -> bool:
    """Whether `apply(state, action)` would accept `action` (chance outcomes included)."""
    try:
        _check(state, action)
    except IllegalActionError:
        return False
    return True


def apply(state: State, action: Action) -> State:
    """Check `action` and return the state after it.

    Raises:
        IllegalActionError: the rules forbid the action here; carries the clause it breaks.
        MalformedError: `action` is not a King's Breakfast action.
    """
    _check(state, action)
    return _apply_unchecked(state, action)


# --- checks ------------------------------------------------------------------------------------


def _check(state: State, action: object) -> None:
    if not isinstance(
        action, DealCard | DrawnCard | TakePile | DrawCard | UseEmerald | LayEmerald | Pass
    ):
        raise MalformedError(f"not a king's breakfast action: {action!r}")
    if state.phase == Phase.OVER:
        raise IllegalActionError("KB-18", f"the game is over; {action!r} is not possible")
    if state.phase == Phase.DEAL:
        if not isinstance(action, DealCard):
            raise IllegalActionError(
                "KB-6", f"the cook is setting the table; expected a dealt card, got {action!r}"
            )
        _check_in_deck(state, action.card, "KB-6")
        return
    if state.phase == Phase.DRAW:
        if not isinstance(action, DrawnCard):
            raise IllegalActionError(
                "KB-11", f"the drawn card must be revealed first, got {action!r}"
            )
        _check_in_deck(state, action.card, "KB-11")
        return
    if isinstance(action, DealCard | DrawnCard):
        raise IllegalActionError(
            "KB-9", f"it is {state.current_player}'s turn to act, not a card off the deck"
        )
    if state.phase == Phase.EMERALD:
        if isinstance(action, UseEmerald):
            _check_king_holds(state, action.foods, "KB-12")
        elif not isinstance(action, LayEmerald):
            raise IllegalActionError(
                "KB-12",
                f"{state.current_player} drew an emerald: use it or lay it down, not {action!r}",
            )
        return
    # Phase.ACT
    if isinstance(action, TakePile):
        if not state.offer[CARD_INDEX[action.food]]:
            raise IllegalActionError("KB-10", f"there is no {action.food} in the offer")
    elif isinstance(action, DrawCard):
        if not state.deck_count:
            raise IllegalActionError("KB-11", "the deck is empty")
    elif isinstance(action, UseEmerald):
        if not state.emeralds_on_table:
            raise IllegalActionError("KB-13", "no emerald lies on the table")
        if not any(state.offer) and not RULINGS.emerald_allowed_without_food_in_offer:
            raise IllegalActionError("KB-11", "no food in the offer: the player must draw")
        _check_king_holds(state, action.foods, "KB-13")
    elif isinstance(action, LayEmerald):
        raise IllegalActionError("KB-12", "only an emerald just drawn can be laid on the table")
    elif isinstance(action, Pass) and legal_actions(state) != [Pass()]:
        raise IllegalActionError("KB-14", "a player may pass only when no other action is possible")


def _check_in_deck(state: State, card: str, clause: str) -> None:
    if not state.deck[CARD_INDEX[card]]:
        raise IllegalActionError(clause, f"no {card} is left in the deck")


def _check_king_holds(state: State, foods: tuple[str, str], clause: str) -> None:
    if sum(state.king) < 2:
        raise IllegalActionError(clause, "the king's area holds fewer than two food cards")
    first, second = (CARD_INDEX[food] for food in foods)
    needed = 2 if first == second else 1
    if state.king[first] < needed or state.king[second] < needed:
        raise IllegalActionError(clause, f"the king's area does not hold {foods[0]} and {foods[1]}")


# --- transitions ---------------------------------------------------------------------------------


def _plus(counts: tuple[int, ...], index: int, amount: int = 1) -> tuple[int, ...]:
    return counts[:index] + (counts[index] + amount,) + counts[index + 1 :]


def _apply_unchecked(state: State, action: Action) -> State:
    """The transition of `apply`, trusting that `action` is legal (for fast playouts)."""
    if isinstance(action, DealCard):  # KB-6, KB-7, KB-8
        index = CARD_INDEX[action.card]
        deck = _plus(state.deck, index, -1)
        if index == EMERALD_INDEX:
            state = replace(state, deck=deck, emeralds_on_table=state.emeralds_on_table + 1)
        else:
            state = replace(state, deck=deck, offer=_plus(state.offer, index))
        dealt = state.dealt + 1
        if dealt == cards_per_round(state.n_players):  # KB-9: the cook acts first
            return replace(state, dealt=dealt, phase=Phase.ACT, current=state.cook, acted=0)
        return replace(state, dealt=dealt)
    if isinstance(action, TakePile):  # KB-10: the whole pile, publicly
        index = CARD_INDEX[action.food]
        count = state.offer[index]
        taken = _replace_at(
            state.taken, state.current, _plus(state.taken[state.current], index, count)
        )
        return _end_turn(replace(state, offer=_plus(state.offer, index, -count), taken=taken))
    if isinstance(action, DrawCard):  # KB-11
        return replace(state, phase=Phase.DRAW)
    if isinstance(action, DrawnCard):
        index = CARD_INDEX[action.card]
        state = replace(state, deck=_plus(state.deck, index, -1))
        if index == EMERALD_INDEX:  # KB-12: no replacement card
            return replace(state, phase=Phase.EMERALD)
        drawn = _replace_at(state.drawn, state.current, _plus(state.drawn[state.current], index))
        return _end_turn(replace(state, drawn=drawn, phase=Phase.ACT))
    if isinstance(action, UseEmerald):  # KB-13 (KB-12 when just drawn): all three leave the game
        king, removed = state.king, state.removed
        for food in action.foods:
            index = CARD_INDEX[food]
            king, removed = _plus(king, index, -1), _plus(removed, index)
        removed = _plus(removed, EMERALD_INDEX)
        emeralds = state.emeralds_on_table - (0 if state.phase == Phase.EMERALD else 1)
        return _end_turn(
            replace(state, king=king, removed=removed, emeralds_on_table=emeralds, phase=Phase.ACT)
        )
    if isinstance(action, LayEmerald):  # KB-12, KB-17
        return _end_turn(
            replace(state, emeralds_on_table=state.emeralds_on_table + 1, phase=Phase.ACT)
        )
    if isinstance(action, Pass):  # KB-14
        return _end_turn(state)
    raise AssertionError(f"unhandled action {action!r}")


def _replace_at(
    rows: tuple[tuple[int, ...], ...], index: int, row: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    return rows[:index] + (row,) + rows[index + 1 :]


def _end_turn(state: State) -> State:
    """KB-9: the next player clockwise; after the last one, serve the king and start a round."""
    acted = state.acted + 1
    if acted < state.n_players:
        return replace(state, acted=acted, current=(state.current + 1) % state.n_players)
    # KB-15: the food left in the offer goes to the king
    king = tuple(k + o for k, o in zip(state.king, state.offer, strict=True))
    cook = (state.cook + 1) % state.n_players  # the deck passes to the left
    state = replace(state, king=king, offer=NO_FOOD, cook=cook, current=cook, acted=0, dealt=0)
    # KB-18: the game ends at once when the deck cannot set the table; the rest is unused
    if state.deck_count < cards_per_round(state.n_players):
        unused = tuple(u + d for u, d in zip(state.unused, state.deck, strict=True))
        return replace(state, deck=NO_CARDS, unused=unused, phase=Phase.OVER)
    return replace(state, phase=Phase.DEAL, round=state.round + 1)


__all__ = [
    "EMERALD",
    "apply",
    "cards_per_round",
    "chance_outcomes",
    "emerald_pairs",
    "is_chance_node",
    "is_legal",
    "is_over",
    "legal_actions",
    "new_game",
    "sample_outcome",
]
