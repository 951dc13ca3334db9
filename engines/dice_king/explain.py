"""What the camera saw, explained: observations of a Dice King table and the actions behind them.

The camera sees the six dice in the rolling area (DK-1, DK-8), the row of five inhabitants
(DK-6) with the top card of each village stack above it (DK-2, DK-10), the top of the penalty
pile (DK-7) and the top card of each player's kingdom pile (DK-9, DK-11, DK-22). The order of the
decks is hidden; cards with identical faces (penalties of the same value) are told by their face.

`observe(state)` is what a state shows; `check_observation` reports every problem at once;
`explain(before, after)` lists the shortest action sequences (rolls, keeps, takes, gifts and
the reveals that refill the row) that turn `before` into a state that shows `after`. Between two
turns the dice still lie where they were rolled: a state whose dice are not rolled yet accepts any
dice in the observation.

A card the camera sees but cannot identify shows `UNKNOWN_CARD` in its slot (a row slot, a village
top, the penalty top, a kingdom top): every slot holds at most one face-up card, so a per-slot
marker keeps the rest of the slot order. A state shows it when it has some card there (never an
empty slot); the search keeps every reveal or gift the unknown could stand for, so several
fitting cards are several explanations (the user is asked), never a silent pick.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

from engines.dice_king.catalogue import ALL_READINGS, DICE, Deck, parse_reading, penalties, villages
from engines.dice_king.rules import _apply, chance_outcomes, is_legal, is_over, legal_actions
from engines.dice_king.scoring import KingdomScore, score_kingdom
from engines.dice_king.state import (
    ROW_SLOTS,
    Action,
    Give,
    Phase,
    Reroll,
    Reveal,
    RollDie,
    State,
)
from engines.errors import MalformedError, Problem
from engines.search import distinct_explanations, shortest_explanations, unknowns_kept_in

MAX_STATES = 20_000  # search budget: past it, nothing explains the change (ask the user)
MAX_ACTIONS = 14  # a take, a gift, three reveals and the next player's six dice, with room
UNKNOWN_CARD = "?"  # a slot seen holding a card that could not be identified


@dataclass(frozen=True)
class Observation:
    """What the table shows.

    Attributes:
        row: the five row slots left to right: inhabitant id or None (DK-6).
        village_tops: per location in row order, the top village card id or None (DK-10).
        penalty_top: the face-up penalty card id, or None (DK-7).
        dice: the readings in the rolling area, sorted (``5r``); empty when none are seen.
        kingdom_tops: per player, the top card of their kingdom pile, or None.

    Any card slot may show `UNKNOWN_CARD`: a card lies there but was not identified.
    """

    row: tuple[str | None, ...]
    village_tops: tuple[str | None, ...]
    penalty_top: str | None
    dice: tuple[str, ...]
    kingdom_tops: tuple[str | None, ...]

    @property
    def has_unknown(self) -> bool:
        """Whether any slot shows a card that was not identified (`UNKNOWN_CARD`)."""
        return (
            UNKNOWN_CARD in self.row
            or UNKNOWN_CARD in self.village_tops
            or self.penalty_top == UNKNOWN_CARD
            or UNKNOWN_CARD in self.kingdom_tops
        )


def observe(state: State) -> Observation:
    """What the table shows in `state`."""
    return Observation(
        row=state.row,
        village_tops=tuple(stack[0] if stack else None for stack in state.villages),
        penalty_top=state.penalty_top,
        dice=state.dice,
        kingdom_tops=tuple(pile[-1] if pile else None for pile in state.kingdoms),
    )


@cache
def _penalty_points() -> dict[str, int]:
    return {p.id: p.points for p in penalties()}


@cache
def _village_ids() -> frozenset[str]:
    return frozenset(v.id for stack in villages() for v in stack)


def _face(deck: Deck, card_id: str | None) -> Any:
    """What a card looks like: penalties of equal value and twin inhabitants look alike."""
    if card_id is None:
        return None
    points = _penalty_points()
    if card_id in points:
        return ("penalty", points[card_id])
    if card_id in deck:
        card = deck.card(card_id)
        return ("inhabitant", card.colour, card.points, card.requirement)
    return card_id


def _faces(deck: Deck, ids: Iterable[str | None]) -> tuple[Any, ...]:
    return tuple(_face(deck, card_id) for card_id in ids)


def _slots_show(deck: Deck, shown: Sequence[str | None], seen: Sequence[str | None]) -> bool:
    """Slot by slot: an unknown card stands for any card there (never an empty slot), a known
    one must look the same."""
    if len(shown) != len(seen):
        return False
    return all(
        card is not None if want == UNKNOWN_CARD else _face(deck, card) == _face(deck, want)
        for card, want in zip(shown, seen, strict=True)
    )


def _cards_show(state: State, after: Observation) -> bool:
    """Whether the cards of `state` show those of `after` (its dice aside)."""
    deck = state.deck
    shown = observe(state)
    if not after.has_unknown:  # the fast path: today's exact comparison
        return (
            _faces(deck, shown.row) == _faces(deck, after.row)
            and shown.village_tops == after.village_tops
            and _face(deck, shown.penalty_top) == _face(deck, after.penalty_top)
            and _faces(deck, shown.kingdom_tops) == _faces(deck, after.kingdom_tops)
        )
    return (
        _slots_show(deck, shown.row, after.row)
        and _slots_show(deck, shown.village_tops, after.village_tops)
        and _slots_show(deck, (shown.penalty_top,), (after.penalty_top,))
        and _slots_show(deck, shown.kingdom_tops, after.kingdom_tops)
    )


def matches(state: State, after: Observation, resting: tuple[str, ...] | None = None) -> bool:
    """Whether `state` shows `after`.

    At the start of a turn, before the first roll, the dice of the last turn still lie on the
    table: `resting` (when known) or none at all; with `resting` None, any dice. A slot showing
    `UNKNOWN_CARD` matches any card the state has there, never an empty slot.
    """
    shown = observe(state)
    if not _cards_show(state, after):
        return False
    if state.phase is Phase.ROLL and state.to_roll == DICE and state.rolls_done == 1:
        dice = tuple(sorted(after.dice))
        return resting is None or dice == resting or not dice
    return state.to_roll == 0 and shown.dice == tuple(sorted(after.dice))


def check_observation(observation: Observation, deck: Deck, n_players: int) -> list[Problem]:
    """Every problem of an observation at once (empty when it could be a real table).

    DK-6: five row slots; DK-2: a village top per location, of that location; DK-1: at most six
    dice, each a reading such as ``5r``; DK-4: every card known and seen at most once.
    `UNKNOWN_CARD` fills a slot (the slot counts stay bounded) but names no card to check.
    """
    problems: list[Problem] = []
    if len(observation.row) != ROW_SLOTS:
        problems.append(
            Problem("DK-6", f"the row must have {ROW_SLOTS} slots, got {len(observation.row)}")
        )
    seen: Counter[str] = Counter()
    for slot, card_id in enumerate(observation.row):
        if card_id is None or card_id == UNKNOWN_CARD:
            continue
        seen[card_id] += 1
        if card_id not in deck:
            problems.append(Problem("DK-4", f"unknown inhabitant {card_id!r} in row[{slot}]"))
    stacks = villages()
    if len(observation.village_tops) != len(stacks):
        problems.append(
            Problem(
                "DK-2",
                f"village_tops must list {len(stacks)} locations, "
                f"got {len(observation.village_tops)}",
            )
        )
    for location, (stack, top) in enumerate(zip(stacks, observation.village_tops, strict=False)):
        if top is None or top == UNKNOWN_CARD:
            continue
        seen[top] += 1
        if top not in {v.id for v in stack}:
            problems.append(Problem("DK-2", f"{top!r} is not a village of location {location}"))
    if observation.penalty_top is not None and observation.penalty_top != UNKNOWN_CARD:
        seen[observation.penalty_top] += 1
        if observation.penalty_top not in _penalty_points():
            problems.append(Problem("DK-3", f"unknown penalty card {observation.penalty_top!r}"))
    if len(observation.dice) > DICE:
        problems.append(Problem("DK-1", f"at most {DICE} dice, got {len(observation.dice)}"))
    for index, reading in enumerate(observation.dice):
        try:
            parse_reading(reading, f"dice[{index}]")
        except MalformedError as error:
            problems.append(Problem("DK-1", str(error)))
    if len(observation.kingdom_tops) != n_players:
        problems.append(
            Problem(
                "DK-9",
                f"kingdom_tops must list {n_players} players, got {len(observation.kingdom_tops)}",
            )
        )
    for player, top in enumerate(observation.kingdom_tops):
        if top is None or top == UNKNOWN_CARD:
            continue
        seen[top] += 1
        if top not in deck and top not in _penalty_points() and top not in _village_ids():
            problems.append(Problem("DK-4", f"unknown card {top!r} on kingdom_tops[{player}]"))
    for card_id, n in sorted(seen.items()):
        if n > 1:
            problems.append(Problem("DK-4", f"card {card_id!r} seen {n} times"))
    return problems


def check_kingdom(pile: Sequence[str], deck: Deck) -> list[Problem]:
    """Every problem of a spread kingdom pile: unknown or repeated cards (DK-4)."""
    problems = []
    for card_id, n in sorted(Counter(pile).items()):
        if (
            card_id not in deck
            and card_id not in _penalty_points()
            and card_id not in _village_ids()
        ):
            problems.append(Problem("DK-4", f"unknown card {card_id!r} in the kingdom"))
        elif n > 1:
            problems.append(Problem("DK-4", f"card {card_id!r} seen {n} times"))
    return problems


def score_pile(pile: Sequence[str], deck: Deck) -> KingdomScore:
    """DK-25: the score of a spread kingdom pile (order does not matter for the total)."""
    return score_kingdom(deck, pile)


# --- explaining --------------------------------------------------------------------------------


def _steps(state: State, after: Observation, *, one_order: bool = False) -> Iterable[Action]:
    """Actions worth trying from `state` towards `after` (chance outcomes pruned by it).

    With `one_order`, the missing dice are rolled in one order only (smallest reading first):
    the order is invisible (`state_key` sorts the dice) and a half-rolled state shows nothing.
    """
    deck = state.deck
    if state.phase is Phase.ROLL and state.to_roll:
        missing = Counter(after.dice) - Counter(state.dice)
        for reading in sorted(missing)[:1] if one_order else sorted(missing):
            yield RollDie(reading)
        return
    outcomes = chance_outcomes(state)
    if outcomes:  # reveals: only a card whose face the table shows where it would go
        wanted_row = Counter(
            _faces(deck, (c for c in after.row if c is not None and c != UNKNOWN_CARD))
        )
        wanted_penalty = _face(deck, after.penalty_top)
        # an unknown card may be any card revealed there (DK-7, DK-12): keep them all
        any_inhabitant = UNKNOWN_CARD in after.row
        any_penalty = after.penalty_top == UNKNOWN_CARD
        for action, _ in outcomes:
            assert isinstance(action, Reveal)
            face = _face(deck, action.card)
            is_penalty = action.card in _penalty_points()
            if (
                face == wanted_penalty
                or wanted_row[face]
                or (any_penalty if is_penalty else any_inhabitant)
            ):
                yield action
        return
    target = Counter(after.dice)
    for action in legal_actions(state):
        if isinstance(action, Reroll) and Counter(action.keep) - target:
            continue  # a kept die must still be seen
        if isinstance(action, Give):
            receiver = state.players.index(action.player)
            seen = after.kingdom_tops[receiver]
            if seen != UNKNOWN_CARD and _face(deck, seen) != _face(deck, action.card):
                continue  # an unknown top may be any gift (DK-22)
        yield action


def state_key(state: State) -> tuple[Any, ...]:
    """A state up to the faces of look-alike cards and the hidden orders."""
    deck = state.deck
    return (
        state.phase,
        state.current,
        _faces(deck, state.row),
        state.villages,
        _face(deck, state.penalty_top),
        tuple(_faces(deck, pile) for pile in state.kingdoms),
        tuple(sorted(state.dice)),  # the camera cannot tell the order they were rolled in
        state.to_roll,
        state.rolls_done,
        state.rolls_allowed,
        state.to_refill,
        state.gifts,
        state.extra_turn,
        len(state.draw_pile),
        len(state.penalty_pile),
    )


def explain_states(
    before: State,
    after: Observation,
    *,
    visited: bool = False,
    max_actions: int = MAX_ACTIONS,
    max_states: int = MAX_STATES,
) -> list[tuple[tuple[Action, ...], State]]:
    """The shortest action sequences from `before` to a state showing `after`, with that state.

    With `visited`, the empty sequence does not count (a reroll can show the same dice again).
    Sequences that end in states that look the same are one explanation. With an unknown card
    in `after`, a longer sequence is an explanation too when its table would look different
    from every shorter one's once the card is identified (`engines.search.distinct_explanations`).
    """
    resting = tuple(sorted(before.dice)) if before.dice else None
    if not after.has_unknown:
        return shortest_explanations(
            before,
            successors=lambda state: (
                (action, _apply(state, action)) for action in _steps(state, after)
            ),
            shows_observation=lambda state: matches(state, after, resting),
            key=state_key,
            is_over=is_over,
            visited=visited,
            max_actions=max_actions,
            max_states=max_states,
        )
    # The shortest sequences alone could silently pick a short story (a reroll) over a longer
    # one an unknown card hides (a penalty taken, the row shifted and refilled, DK-11, DK-12).
    # A card turning unidentified changes the observation with no move at all, so a change (or
    # a visit) does not rule out that nothing happened; a reroll showing the same dice looks the
    # same as nothing, so the shortest (nothing) stands for it.
    return distinct_explanations(
        before,
        successors=lambda state: (
            (action, _apply(state, action)) for action in _steps(state, after, one_order=True)
        ),
        shows_observation=lambda state: matches(state, after, resting),
        key=state_key,
        look=_look,
        is_over=is_over,
        visited=visited and not matches(before, after, resting),
        max_actions=max_actions,
        max_states=max_states,
    )


def _look(state: State) -> tuple[Any, ...]:
    """The cards the camera would see in `state` were every card identified (the dice are
    never unknown: two states showing the observation show its dice)."""
    deck = state.deck
    shown = observe(state)
    return (
        _faces(deck, shown.row),
        shown.village_tops,
        _face(deck, shown.penalty_top),
        _faces(deck, shown.kingdom_tops),
    )


def explain(
    before: State, after: Observation, *, visited: bool = False
) -> list[tuple[Action, ...]]:
    """The legal action sequences that turn `before` into `after` (see `explain_states`).

    An empty list: nothing explains the change (ask the user); several: ambiguous (ask which).
    """
    return [path for path, _ in explain_states(before, after, visited=visited)]


def unknowns_kept(before: State, after: State, observation: Observation) -> bool:
    """Whether the move from `before` to `after` left every slot `observation` shows as
    `UNKNOWN_CARD` holding the same card: the unidentified cards played no part in it (the
    penalty card on top, unread from the tablet, while the dice are rolled again)."""
    return unknowns_kept_in(observation, observe(before), observe(after), UNKNOWN_CARD)


def unseen_throws(
    found: Sequence[tuple[tuple[Action, ...], State]],
) -> list[tuple[tuple[Action, ...], State]]:
    """Each candidate of a question that ends on a throw, thrown once more unseen (DK-8: all six
    dice rolled again, showing the same readings), where the rules allow another throw and no
    candidate already leads there: a throw and a reroll caught between two glances look like
    one throw, and the only trace is one reroll fewer left. Offered beside the candidates, never
    applied (the tracker's questions): the user, who knows how often they threw, taps it."""
    keys = {state_key(state) for _, state in found}
    out: list[tuple[tuple[Action, ...], State]] = []
    for path, state in found:
        if not path or not isinstance(path[-1], RollDie) or state.to_roll or not state.dice:
            continue
        again = Reroll(())
        if not is_legal(state, again):
            continue
        actions: list[Action] = [again]
        thrown = _apply(state, again)
        for reading in sorted(state.dice):
            roll = RollDie(reading)
            if not is_legal(thrown, roll):
                break
            actions.append(roll)
            thrown = _apply(thrown, roll)
        else:
            key = state_key(thrown)
            if key not in keys:
                keys.add(key)
                out.append((tuple(path) + tuple(actions), thrown))
    return out


# throws tried, per question, for dice under which each of the roller's choices is legal
UNSEEN_REROLL_TRIES = 600


def loose_explanations(
    before: State,
    after: Observation,
    *,
    visited: bool = False,
    explain: Callable[..., list[tuple[tuple[Action, ...], State]]] = explain_states,
) -> list[tuple[tuple[Action, ...], State]]:
    """What explains `after` once the roller in `before` rerolled all six dice unseen (DK-8)
    and then chose: when nothing explains it from `before` itself, the camera may have missed
    the last reroll, whose dice then decided what could be taken (a penalty, DK-11, only when
    no requirement is met). Their dice leave no trace once the choice is made, so one throw per
    choice stands for them all: for every choice some seeded throw allows (a take of each
    face-up inhabitant, the penalty), the explanations from there, the reroll and its throw in
    front (searched with `explain`: the app's runs in a worker process). Offered to the user as
    a question's candidates, never applied."""
    if before.phase is not Phase.ROLL or before.to_roll or len(before.dice) != DICE:
        return []
    again = Reroll(())
    if not is_legal(before, again):
        return []
    rng = _seeded_throws(before)
    rerolled = _apply(before, again)
    tried: set[frozenset[Any]] = set()
    found: dict[Any, tuple[tuple[Action, ...], State]] = {}
    for _ in range(UNSEEN_REROLL_TRIES):
        dice = sorted(rng.choice(ALL_READINGS) for _ in range(DICE))
        thrown = rerolled
        for reading in dice:
            thrown = _apply(thrown, RollDie(reading))
        choices = frozenset(a for a in legal_actions(thrown) if not isinstance(a, Reroll))
        if choices in tried:
            continue
        tried.add(choices)
        prefix: tuple[Action, ...] = (again, *(RollDie(r) for r in dice))
        for path, state in explain(thrown, after, visited=visited):
            found.setdefault(state_key(state), (prefix + tuple(path), state))
    return list(found.values())


def _seeded_throws(state: State) -> random.Random:
    """A generator seeded by the state (the same question offers the same candidates)."""
    return random.Random(repr(state_key(state)))


__all__ = [
    "MAX_ACTIONS",
    "UNKNOWN_CARD",
    "UNSEEN_REROLL_TRIES",
    "Observation",
    "check_kingdom",
    "check_observation",
    "explain",
    "explain_states",
    "loose_explanations",
    "matches",
    "observe",
    "score_pile",
    "state_key",
    "unknowns_kept",
    "unseen_throws",
]
