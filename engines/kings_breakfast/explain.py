"""What the camera saw, explained by the rules: observations of the table and the actions behind.

The camera sees the offer (KB-6: food piles, each counted), the Emeralds lying on the table
(KB-7, KB-12), the king's area (KB-15) and an Emerald just drawn and shown (KB-12, the reveal
area). It never sees a food card drawn from the deck (KB-11) nor the players' hands.

`observe(state)` is what a state shows; `check_observation` reports every problem of an observation
at once; `explain(before, after)` lists the shortest sequences of actions (chance outcomes
included) that turn the state `before` into one that shows `after`. A food card drawn unseen is
written as a `DrawnCard` of the food the deck holds most of (a stand-in: which food it was is
hidden until the end, KB-11); explanations that differ only in that stand-in are one explanation,
and when the deck later deals a food the stand-ins used up, a stand-in is exchanged for it.

A card the camera saw in the offer or the king's area but could not identify is counted apart
(`Observation.offer_unknown`, `king_unknown`): a state shows the observation when some food (or,
in the offer, an Emerald dealt there, KB-7) stands for each unknown card, so every food it could
be is an explanation of its own (several: the user is asked), never a silent pick.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from engines.errors import MalformedError, Problem
from engines.kings_breakfast.catalogue import CARDS, CATALOGUE, EMERALD, EMERALD_INDEX, FOODS
from engines.kings_breakfast.rules import _apply_unchecked, legal_actions
from engines.kings_breakfast.state import (
    Action,
    DealCard,
    DrawCard,
    DrawnCard,
    Phase,
    State,
    UseEmerald,
)
from engines.search import shortest_explanations

#: explanations longer than this are not searched (a whole deal of 5 players plus a turn)
MAX_STATES = 20_000  # search budget: past it, nothing explains the change (ask the user)
MAX_ACTIONS = 14


@dataclass(frozen=True)
class Observation:
    """What the table shows, as counts in `FOODS` order.

    Attributes:
        offer: food cards in the offer, per food (KB-6).
        king: food cards in the king's area, per food (KB-15).
        emeralds: Emeralds lying face up on the table (KB-7, KB-12).
        revealed: Emeralds shown in the reveal area (0 or 1: one just drawn, KB-12).
        offer_unknown: cards seen in the offer whose card is unknown: a food of the offer, or an
            Emerald dealt into it (counted in `emeralds` when identified, KB-7).
        king_unknown: cards seen in the king's area whose food is unknown (food only, KB-15).
    """

    offer: tuple[int, ...]
    king: tuple[int, ...]
    emeralds: int = 0
    revealed: int = 0
    offer_unknown: int = 0
    king_unknown: int = 0

    @classmethod
    def from_counts(
        cls,
        offer: dict[str, int] | None = None,
        king: dict[str, int] | None = None,
        emeralds: int = 0,
        revealed: int = 0,
        offer_unknown: int = 0,
        king_unknown: int = 0,
    ) -> Observation:
        """Build from food → count mappings (missing foods count 0).

        Raises:
            MalformedError: an unknown food (named with its field).
        """
        return cls(
            _counts(offer or {}, "offer"),
            _counts(king or {}, "king"),
            emeralds,
            revealed,
            offer_unknown,
            king_unknown,
        )

    def to_json(self) -> dict[str, object]:
        """JSON: food → count (non-zero only) per zone, plus the Emerald counts, plus the
        unidentified cards per zone when there are any (older readers of the JSON never see
        them for a fully identified table)."""
        out: dict[str, object] = {
            "offer": {f: n for f, n in zip(FOODS, self.offer, strict=True) if n},
            "king": {f: n for f, n in zip(FOODS, self.king, strict=True) if n},
            "emeralds": self.emeralds,
            "revealed": self.revealed,
        }
        if self.offer_unknown:
            out["offer_unknown"] = self.offer_unknown
        if self.king_unknown:
            out["king_unknown"] = self.king_unknown
        return out

    @property
    def has_unknown(self) -> bool:
        """Whether any card seen was not identified."""
        return bool(self.offer_unknown or self.king_unknown)


def _counts(mapping: dict[str, int], field: str) -> tuple[int, ...]:
    for food in mapping:
        if food not in FOODS:
            raise MalformedError(f"unknown food {food!r} in {field}")
    return tuple(int(mapping.get(food, 0)) for food in FOODS)


def observe(state: State) -> Observation:
    """What the table shows in `state` (the hands and the deck's order are not shown)."""
    return Observation(
        offer=state.offer,
        king=state.king,
        emeralds=state.emeralds_on_table,
        revealed=1 if state.phase == Phase.EMERALD else 0,
    )


def check_observation(observation: Observation) -> list[Problem]:
    """Every problem of an observation at once (empty when it could be a real table).

    KB-1: no zone, and no two zones together, show more cards of a kind than the box holds,
    nor more cards (identified or not) than the box holds of what the zone can hold (food in the
    king's area, KB-15; food or a dealt Emerald in the offer, KB-7); counts are whole and not
    negative; KB-12: at most one Emerald is shown in the reveal area.
    """
    problems: list[Problem] = []
    for field in ("offer", "king"):
        counts = getattr(observation, field)
        if len(counts) != len(FOODS):
            problems.append(Problem("KB-1", f"{field} must count {len(FOODS)} foods"))
            continue
        for food, n in zip(FOODS, counts, strict=True):
            if not isinstance(n, int) or n < 0:
                problems.append(Problem("KB-1", f"{field}.{food} must be a count, got {n!r}"))
    for field in ("emeralds", "revealed", "offer_unknown", "king_unknown"):
        n = getattr(observation, field)
        if not isinstance(n, int) or n < 0:
            problems.append(Problem("KB-1", f"{field} must be a count, got {n!r}"))
    if problems:
        return problems
    copies = dict(zip(CARDS, CATALOGUE.card_copies, strict=True))
    for index, food in enumerate(FOODS):
        seen = observation.offer[index] + observation.king[index]
        if seen > copies[food]:
            problems.append(
                Problem("KB-1", f"{seen} {food} cards seen, the box holds {copies[food]}")
            )
    emeralds = observation.emeralds + observation.revealed
    if emeralds > copies[EMERALD]:
        problems.append(
            Problem("KB-1", f"{emeralds} emeralds seen, the box holds {copies[EMERALD]}")
        )
    foods_in_box = sum(copies[food] for food in FOODS)
    zones = (
        (
            "offer",
            sum(observation.offer) + observation.offer_unknown,
            foods_in_box + copies[EMERALD],
        ),
        ("king's area", sum(observation.king) + observation.king_unknown, foods_in_box),
    )
    for zone, seen, most in zones:
        if seen > most:
            problems.append(
                Problem("KB-1", f"{seen} cards seen in the {zone}, the box holds {most}")
            )
    if observation.revealed > 1:
        problems.append(
            Problem(
                "KB-12", f"revealed must be 0 or 1 (one emerald drawn), got {observation.revealed}"
            )
        )
    return problems


# --- explaining --------------------------------------------------------------------------------


def public_key(state: State) -> tuple[object, ...]:
    """A state without which food each hidden draw was (KB-11): what explanations are told by,
    and what a tracked state is compared with the truth by."""
    return (
        state.phase,
        state.current,
        state.cook,
        state.round,
        state.acted,
        state.dealt,
        state.offer,
        state.king,
        state.emeralds_on_table,
        state.taken,
        tuple(sum(d) for d in state.drawn),
        state.removed,
        sum(state.unused),  # which foods were left over is as hidden as the deck (KB-18)
        state.unused[EMERALD_INDEX],
        state.deck[EMERALD_INDEX],
        sum(state.deck),
    )


def _swap_stand_in(state: State, food: int) -> State | None:
    """The same public state with one hidden draw of `food` exchanged for another food of the
    deck, so that `food` can still come off the deck (the stand-in was a guess, KB-11)."""
    for player, drawn in enumerate(state.drawn):
        if not drawn[food]:
            continue
        for other in range(EMERALD_INDEX):
            if other != food and state.deck[other]:
                hand = list(drawn)
                hand[food] -= 1
                hand[other] += 1
                deck = list(state.deck)
                deck[food] += 1
                deck[other] -= 1
                rows = state.drawn[:player] + (tuple(hand),) + state.drawn[player + 1 :]
                return replace(state, drawn=rows, deck=tuple(deck))
    return None


def shows(state: State, observation: Observation) -> bool:
    """Whether `state` looks like `observation`, each unidentified card standing for a card it
    could be: in the king's area any food (KB-15), in the offer any food or an Emerald dealt
    there (KB-7). Without unknown cards this is ``observe(state) == observation``."""
    if not observation.has_unknown:
        return observe(state) == observation  # the fast path, and today's exact meaning
    if (1 if state.phase == Phase.EMERALD else 0) != observation.revealed:
        return False
    if any(s < a for s, a in zip(state.king, observation.king, strict=True)):
        return False
    if sum(state.king) != sum(observation.king) + observation.king_unknown:
        return False
    if any(s < a for s, a in zip(state.offer, observation.offer, strict=True)):
        return False
    dealt_emeralds = state.emeralds_on_table - observation.emeralds  # unknowns in the offer
    if dealt_emeralds < 0:
        return False
    extra_food = sum(state.offer) - sum(observation.offer)
    return extra_food + dealt_emeralds == observation.offer_unknown


def _steps(
    state: State, target: Observation, *, short_piles: bool = False
) -> Iterable[tuple[Action, State]]:
    """The actions worth trying from `state` towards `target` (chance outcomes pruned by it),
    each with the state to apply it to. With `short_piles` (`target`'s piles may be read
    short), a deal may also add cards of any food the offer shows, not only up to its count."""
    if state.phase == Phase.DEAL:
        # cards dealt beyond what the offer shows identified: each must be an unknown card
        beyond = max(0, state.emeralds_on_table - target.emeralds) + sum(
            max(0, s - t) for s, t in zip(state.offer, target.offer, strict=True)
        )
        # while an unknown card is unaccounted for, any card may be it (below the offer's
        # count it is wanted anyway); without unknown cards this is the exact pruning
        spare = beyond < target.offer_unknown
        for index, card in enumerate(CARDS):
            if index == EMERALD_INDEX:
                have, want = state.emeralds_on_table, target.emeralds
                wanted = have < want or (spare and not short_piles)
            else:
                have, want = state.offer[index], target.offer[index]
                short = short_piles and (want > 0 or target.offer_unknown > 0)
                wanted = have < want or spare or short
            if not wanted:
                continue
            source: State | None = state
            if not state.deck[index]:
                source = _swap_stand_in(state, index) if index != EMERALD_INDEX else None
            if source is not None:
                yield DealCard(card), source
        return
    if state.phase == Phase.DRAW:
        foods = [(n, -i) for i, n in enumerate(state.deck[:EMERALD_INDEX]) if n]
        if foods:  # one stand-in for the unseen food (the most common one left)
            _, minus = max(foods)
            yield DrawnCard(FOODS[-minus]), state
        if state.deck[EMERALD_INDEX]:
            yield DrawnCard(EMERALD), state
        return
    for action in legal_actions(state):
        yield action, state


def explain_states(
    before: State,
    after: Observation,
    *,
    visited: bool = False,
    max_actions: int = MAX_ACTIONS,
    max_states: int = MAX_STATES,
) -> list[tuple[tuple[Action, ...], State]]:
    """The shortest action sequences from `before` to a state showing `after`, with that state.

    With `visited` (a hand was over the table), the empty sequence does not count: a table that
    looks the same after a visit is explained by an invisible action (a draw, KB-11).
    Sequences that end in the same public state are one explanation (the first found is kept).
    """
    return shortest_explanations(
        before,
        successors=lambda state: (
            (action, _apply_unchecked(source, action)) for action, source in _steps(state, after)
        ),
        shows_observation=lambda state: state.phase != Phase.DRAW and shows(state, after),
        key=public_key,
        is_over=lambda state: state.phase == Phase.OVER,
        visited=visited,
        max_actions=max_actions,
        max_states=max_states,
    )


def explain(
    before: State, after: Observation, *, visited: bool = False
) -> list[tuple[Action, ...]]:
    """The legal action sequences (shortest first found) that turn `before` into `after`.

    An empty list: nothing explains the change (ask the user); several: the change is ambiguous
    (ask which). ``[()]``: nothing happened.
    """
    return [path for path, _ in explain_states(before, after, visited=visited)]


def partial_view(state: State, observation: Observation) -> bool:
    """Whether `observation` could be `state`'s table with some stacked cards not seen: no pile
    of the offer or the king's area seen with more cards than `state` holds, every pile it holds
    seen (a card of it identified, or an unidentified card that could be it), the Emeralds as
    they are. Cards only ever leave a zone a whole pile at a time (KB-10, KB-15) or two from
    the king's area with an Emerald that leaves the table too (KB-13): such a reading shows no
    move, only a pile read short (a card under another missed by the detector)."""
    shown = observe(state)
    if observation == shown:
        return False
    if (observation.emeralds, observation.revealed) != (shown.emeralds, shown.revealed):
        return False
    zones = (
        (observation.offer, shown.offer, observation.offer_unknown),
        (observation.king, shown.king, observation.king_unknown),
    )
    for seen, held, unknown in zones:
        if any(s > h for s, h in zip(seen, held, strict=True)):
            return False
        unseen_piles = sum(1 for s, h in zip(seen, held, strict=True) if h and not s)
        if unseen_piles > unknown or sum(seen) + unknown > sum(held):
            return False
    return True


def loose_explanations(
    before: State,
    after: Observation,
    *,
    visited: bool = False,
    explain: object = None,
) -> list[tuple[tuple[Action, ...], State]]:
    """The shortest action sequences from `before` to a state that `after` shows or shows
    with piles read short (`partial_view`): what nothing explains exactly because the camera
    missed stacked cards. Offered to the user as a question's candidates, never applied. It
    searches on its own, not with `explain` (whose target is an exact observation); the app runs
    the whole of it in its rule-search worker. On rendered games tracked from pixels (3 x 30
    moves, 67 questions nothing explained) the true move was among these 42 times, at 0.17 s
    a search."""
    del explain
    return shortest_explanations(
        before,
        successors=lambda state: (
            (action, _apply_unchecked(source, action))
            for action, source in _steps(state, after, short_piles=True)
        ),
        shows_observation=lambda state: (
            state.phase != Phase.DRAW and (shows(state, after) or partial_view(state, after))
        ),
        key=public_key,
        is_over=lambda state: state.phase == Phase.OVER,
        visited=visited,
        max_actions=MAX_ACTIONS,
        max_states=MAX_STATES,
    )


def confirm_first(path: Sequence[Action]) -> bool:
    """Whether the one explanation `path` is put to the user rather than applied: it takes
    food out of the king's area (KB-13, the Emerald action; KB-16: nothing else does). A pile
    the camera reads a card or two short looks just like that, and the rules always find an
    Emerald to account for it (drawn unseen and used at once, KB-12): on rendered games
    tracked from pixels (3 x 30 moves, 2 s of still table after each) 3 moves were applied
    silently wrong that way. The Emerald action is rare (5 Emeralds a game): a tap each."""
    return any(isinstance(action, UseEmerald) for action in path)


def public_actions(path: Sequence[Action]) -> list[str]:
    """A path as the table saw it: a hidden draw is written ``drawn ?`` (KB-11)."""
    out = []
    for action in path:
        if isinstance(action, DrawnCard) and action.card != EMERALD:
            out.append("drawn ?")
        elif isinstance(action, DrawCard):
            out.append("draw")
        else:
            out.append(repr(action))
    return out


__all__ = [
    "MAX_ACTIONS",
    "Observation",
    "check_observation",
    "confirm_first",
    "explain",
    "explain_states",
    "loose_explanations",
    "observe",
    "partial_view",
    "public_actions",
    "public_key",
    "shows",
]
