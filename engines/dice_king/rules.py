"""Dice King's rules: setup, turns, chance, end (DK-5 … DK-24).

`legal_actions` lists, `apply` checks and returns the next state, refusing an illegal action with
`IllegalActionError` naming the clause. Chance is explicit: at a chance node `chance_outcomes`
lists one die's reading (18 outcomes at 1/18: value and colour uniform and independent, DK-1) or
the next card turned up from a multiset of unseen cards (identical-looking cards are one outcome,
represented by the first of them in deck order).

Rulings where the sources are silent (besides those in the rules page):
- Hypnotist (DK-21): the inhabitant to its right is taken whether or not the dice meet it; its own
  effects apply (a dragon is given away, an apprentice grants the extra turn) but a second
  hypnotist takes nothing more. Each taken card founds a village under DK-10.
- Dragon (DK-22): a dragon taken under its own village founds that village for the roller; the
  dragon alone goes to the chosen player, on top of their pile.
- Arrogant elf (DK-14): checked when a turn begins: 4 rolls if an arrogant elf tops the pile.
- Reroll (DK-8): at least one die must be rolled again; stopping is taking a card or a penalty.
- Row (DK-6, DK-12): slot 0 is the left end (under the inhabitant deck, under the city), slot 4
  the right end; cards are dealt and refilled from the right-most empty slot leftwards.
- A game uses exactly 40 inhabitants (DK-4) and 2–5 players.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from engines.dice_king.catalogue import (
    ALL_READINGS,
    DICE,
    LOCATIONS,
    Card,
    CardType,
    Deck,
    load_deck,
    penalties,
    villages,
)
from engines.dice_king.requirements import is_met
from engines.dice_king.state import (
    ROW_SLOTS,
    Action,
    Give,
    Phase,
    Reroll,
    Reveal,
    RollDie,
    State,
    Take,
    TakePenalty,
)
from engines.errors import IllegalActionError, MalformedError

MIN_PLAYERS, MAX_PLAYERS = 2, 5
INHABITANTS = 40  # DK-4
ROLLS, ELF_ROLLS = 3, 4  # DK-8, DK-14
_READING_SET = frozenset(ALL_READINGS)


# ---------------------------------------------------------------------------------------------
# Setup (DK-5 … DK-7)


def new_game(players: Sequence[str], *, deck: Any = None, first_player: int = 0) -> State:
    """A new game before the deal (DK-5): the row and the first penalty are chance reveals.

    `deck` is None or ``"companion"``, a path, an inline list of cards, or a `Deck`.

    Raises:
        MalformedError: not 2–5 distinct non-empty names, a bad `first_player`, a bad deck or one
            without exactly 40 inhabitants.
    """
    names = tuple(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise MalformedError(f"players must be 2-5 names, got {len(names)}")
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise MalformedError(f"bad player name {name!r} in players[{i}]")
    if len(set(names)) != len(names):
        raise MalformedError("player names must be distinct")
    if isinstance(first_player, bool) or not isinstance(first_player, int):
        raise MalformedError(f"first_player must be an integer, got {first_player!r}")
    if not 0 <= first_player < len(names):
        raise MalformedError(f"first_player must be 0-{len(names) - 1}, got {first_player}")
    loaded = load_deck(deck)
    if len(loaded.cards) != INHABITANTS:
        raise MalformedError(f"deck must hold {INHABITANTS} inhabitants, got {len(loaded.cards)}")
    return State(
        deck=loaded,
        players=names,
        first_player=first_player,
        current=first_player,
        phase=Phase.SETUP,
        draw_pile=tuple(sorted(loaded.ids)),
        row=(None,) * ROW_SLOTS,
        villages=tuple(tuple(v.id for v in stack) for stack in villages()),
        penalty_top=None,
        penalty_pile=tuple(sorted(p.id for p in penalties())),
        discard=(),
        kingdoms=((),) * len(names),
    )


# ---------------------------------------------------------------------------------------------
# Queries


def is_over(state: State) -> bool:
    """DK-24: whether the game has ended."""
    return state.phase is Phase.OVER


def _reveal_kind(state: State) -> str | None:
    """Which card a chance reveal turns up now: ``"penalty"``, ``"inhabitant"`` or None."""
    if state.phase is Phase.SETUP:
        if None in state.row and state.draw_pile:
            return "inhabitant"
        return "penalty" if state.penalty_top is None and state.penalty_pile else None
    if state.phase is Phase.REFILL:
        if state.penalty_top is None and state.penalty_pile:
            return "penalty"
        return "inhabitant" if state.to_refill and state.draw_pile else None
    return None


def is_chance_node(state: State) -> bool:
    """Whether the next step is chance: a die to roll or a card to turn up."""
    if state.phase is Phase.ROLL:
        return state.to_roll > 0
    return _reveal_kind(state) is not None


def _penalty_points() -> dict[str, int]:
    return {p.id: p.points for p in penalties()}


def _grouped(ids: Iterable[str], face: Any) -> dict[Any, list[str]]:
    groups: dict[Any, list[str]] = {}
    for card_id in ids:
        groups.setdefault(face(card_id), []).append(card_id)
    return groups


def _inhabitant_face(deck: Deck) -> Any:
    order = {card_id: i for i, card_id in enumerate(deck.ids)}

    def face(card_id: str) -> Any:
        card = deck.card(card_id)
        return (card.colour, card.points, card.requirement)

    return face, order


def _reveal_outcomes(state: State) -> list[tuple[str, float]]:
    kind = _reveal_kind(state)
    if kind == "penalty":
        points = _penalty_points()
        order = {p.id: i for i, p in enumerate(penalties())}
        groups = _grouped(state.penalty_pile, points.__getitem__)
        n = len(state.penalty_pile)
    else:
        face, order = _inhabitant_face(state.deck)
        groups = _grouped(state.draw_pile, face)
        n = len(state.draw_pile)
    return [(min(ids, key=order.__getitem__), len(ids) / n) for ids in groups.values()]


def chance_outcomes(state: State) -> list[tuple[Action, float]]:
    """The chance outcomes with exact probabilities (empty when the player decides)."""
    if state.phase is Phase.ROLL:
        if state.to_roll == 0:
            return []
        p = 1 / len(ALL_READINGS)
        return [(RollDie(reading), p) for reading in ALL_READINGS]
    if _reveal_kind(state) is None:
        return []
    return [(Reveal(card_id), p) for card_id, p in _reveal_outcomes(state)]


def satisfied(state: State) -> list[str]:
    """The face-up inhabitants the six dice on the table meet (DK-9, DK-13 … DK-23)."""
    if len(state.dice) != DICE:
        return []
    return [
        card_id
        for card_id in state.row
        if card_id is not None and is_met(state.deck.card(card_id).requirement, state.dice)
    ]


def _sub_multisets(dice: Sequence[str]) -> list[tuple[str, ...]]:
    counts = sorted(Counter(dice).items())
    keeps: list[tuple[str, ...]] = [()]
    for reading, n in counts:
        keeps = [keep + (reading,) * k for keep in keeps for k in range(n + 1)]
    return keeps


def legal_actions(state: State) -> list[Action]:
    """Every legal decision of the player to act (none at chance nodes or after the end)."""
    if state.phase is Phase.ROLL and state.to_roll == 0:
        actions: list[Action] = []
        if state.rolls_done < state.rolls_allowed:
            actions += [Reroll(keep) for keep in _sub_multisets(state.dice) if len(keep) < DICE]
        met = satisfied(state)
        actions += [Take(card_id) for card_id in met]
        if not met:
            actions.append(TakePenalty())
        return actions
    if state.phase is Phase.GIVE:
        others = [name for i, name in enumerate(state.players) if i != state.current]
        return [Give(card_id, name) for card_id in dict.fromkeys(state.gifts) for name in others]
    return []


def is_legal(state: State, action: Any) -> bool:
    """Whether `apply` would accept `action`."""
    try:
        _check(state, action)
    except IllegalActionError:
        return False
    return True


# ---------------------------------------------------------------------------------------------
# Checking


def _check(state: State, action: Any) -> None:
    """Raise `IllegalActionError` (naming the clause) unless `action` is legal in `state`."""
    if state.phase is Phase.OVER:
        raise IllegalActionError("DK-24", "the game is over")
    if is_chance_node(state):
        if state.phase is Phase.ROLL:
            if not isinstance(action, RollDie):
                raise IllegalActionError("DK-8", "a die is still rolling; expected a reading")
            if action.reading not in _READING_SET:
                raise IllegalActionError("DK-1", f"no die shows {action.reading!r}")
            return
        kind = _reveal_kind(state)
        clause = (
            "DK-7" if kind == "penalty" else ("DK-6" if state.phase is Phase.SETUP else "DK-12")
        )
        if not isinstance(action, Reveal):
            raise IllegalActionError(clause, f"a {kind} card is to be turned up next")
        allowed = {card_id for card_id, _ in _reveal_outcomes(state)}
        if action.card not in allowed:
            raise IllegalActionError(
                clause, f"card {action.card!r} cannot be the next {kind} turned up"
            )
        return
    if state.phase is Phase.GIVE:
        if not isinstance(action, Give):
            raise IllegalActionError("DK-22", "the roller must first give the dragon away")
        if action.card not in state.gifts:
            raise IllegalActionError("DK-22", f"{action.card!r} is not a dragon to give away")
        if action.player not in state.players:
            raise IllegalActionError("DK-22", f"unknown player {action.player!r}")
        if action.player == state.player:
            raise IllegalActionError("DK-22", "a dragon must be given to another player")
        return
    # the roller decides
    if isinstance(action, Reroll):
        if state.rolls_done >= state.rolls_allowed:
            clause = "DK-14" if state.rolls_allowed == ELF_ROLLS else "DK-8"
            raise IllegalActionError(clause, f"no roll left ({state.rolls_allowed} allowed)")
        if len(action.keep) >= DICE:
            raise IllegalActionError("DK-8", "a reroll must roll at least one die")
        if Counter(action.keep) - Counter(state.dice):
            raise IllegalActionError("DK-8", f"keep {list(action.keep)} is not among the dice")
        return
    if isinstance(action, Take):
        if not isinstance(action.card, str) or action.card not in state.row:
            raise IllegalActionError("DK-9", f"{action.card!r} is not a face-up inhabitant")
        if not is_met(state.deck.card(action.card).requirement, state.dice):
            raise IllegalActionError(
                "DK-9", f"the dice {' '.join(state.dice)} do not meet {action.card!r}"
            )
        return
    if isinstance(action, TakePenalty):
        met = satisfied(state)
        if met:
            raise IllegalActionError("DK-11", f"the dice meet {met[0]!r}: take an inhabitant")
        return
    raise IllegalActionError("DK-8", f"{action!r} is not a decision for the roller now")


# ---------------------------------------------------------------------------------------------
# Applying


def apply(state: State, action: Any) -> State:
    """Check `action` and return the state after it.

    Raises:
        IllegalActionError: the action breaks the clause it names.
    """
    _check(state, action)
    return _apply(state, action)


def _apply(state: State, action: Action) -> State:
    if isinstance(action, RollDie):
        return replace(
            state, dice=tuple(sorted(state.dice + (action.reading,))), to_roll=state.to_roll - 1
        )
    if isinstance(action, Reveal):
        return _settle(_reveal(state, action.card))
    if isinstance(action, Reroll):
        return replace(
            state,
            dice=tuple(sorted(action.keep)),
            to_roll=DICE - len(action.keep),
            rolls_done=state.rolls_done + 1,
        )
    if isinstance(action, Take):
        return _settle(_take(state, action.card))
    if isinstance(action, TakePenalty):
        return _settle(_penalty(state))
    assert isinstance(action, Give)
    receiver = state.players.index(action.player)
    gifts = list(state.gifts)
    gifts.remove(action.card)
    kingdoms = list(state.kingdoms)
    kingdoms[receiver] = kingdoms[receiver] + (action.card,)
    return _settle(replace(state, gifts=tuple(gifts), kingdoms=tuple(kingdoms)))


def _reveal(state: State, card_id: str) -> State:
    if _reveal_kind(state) == "penalty":
        pile = list(state.penalty_pile)
        pile.remove(card_id)
        return replace(state, penalty_top=card_id, penalty_pile=tuple(pile))
    pile = list(state.draw_pile)
    pile.remove(card_id)
    slot = max(i for i, c in enumerate(state.row) if c is None)  # right-most gap
    row = state.row[:slot] + (card_id,) + state.row[slot + 1 :]
    to_refill = state.to_refill - 1 if state.phase is Phase.REFILL else 0
    return replace(state, draw_pile=tuple(pile), row=row, to_refill=to_refill)


def _take(state: State, card_id: str) -> State:
    """DK-9, DK-10, DK-19, DK-21, DK-22: take the card (and, for a hypnotist, its neighbour)."""
    slot = state.row.index(card_id)
    slots = [slot]
    is_hypnotist = state.deck.card(card_id).type is CardType.HYPNOTIST
    if is_hypnotist and slot + 1 < ROW_SLOTS and state.row[slot + 1] is not None:
        slots.append(slot + 1)  # DK-21
    row = list(state.row)
    stacks = list(state.villages)
    pile = list(state.kingdoms[state.current])
    gifts = list(state.gifts)
    extra = state.extra_turn
    for taken_slot in slots:
        taken = row[taken_slot]
        assert taken is not None
        card: Card = state.deck.card(taken)
        row[taken_slot] = None
        if LOCATIONS[taken_slot] == card.colour and stacks[taken_slot]:  # DK-10
            pile.append(stacks[taken_slot][0])
            stacks[taken_slot] = stacks[taken_slot][1:]
        if card.type is CardType.DRAGON:
            gifts.append(taken)  # DK-22
        else:
            pile.append(taken)
        if card.type is CardType.WIZARD_APPRENTICE:
            extra = True  # DK-19
    kingdoms = list(state.kingdoms)
    kingdoms[state.current] = tuple(pile)
    return replace(
        state,
        phase=Phase.GIVE if gifts else Phase.REFILL,
        row=_shift_right(row),
        villages=tuple(stacks),
        kingdoms=tuple(kingdoms),
        gifts=tuple(gifts),
        extra_turn=extra,
        to_refill=len(slots),
    )


def _penalty(state: State) -> State:
    """DK-11: the top penalty to the roller, the right-most inhabitant to the discard pile."""
    assert state.penalty_top is not None
    kingdoms = list(state.kingdoms)
    kingdoms[state.current] = kingdoms[state.current] + (state.penalty_top,)
    row = list(state.row)
    rightmost = max(i for i, c in enumerate(row) if c is not None)
    discarded = row[rightmost]
    assert discarded is not None
    row[rightmost] = None
    return replace(
        state,
        phase=Phase.REFILL,
        penalty_top=None,
        kingdoms=tuple(kingdoms),
        discard=state.discard + (discarded,),
        row=_shift_right(row),
        to_refill=1,
    )


def _shift_right(row: Sequence[str | None]) -> tuple[str | None, ...]:
    """DK-12: the cards move right so that the gaps are at the left end."""
    cards = [c for c in row if c is not None]
    return (None,) * (len(row) - len(cards)) + tuple(cards)


def _settle(state: State) -> State:
    """Advance the steps that need no decision and no chance: end of setup, of gifts, of turn."""
    while True:
        if state.phase is Phase.SETUP and _reveal_kind(state) is None:
            state = _start_turn(state, state.first_player)
        elif state.phase is Phase.GIVE and not state.gifts:
            state = replace(state, phase=Phase.REFILL)
        elif state.phase is Phase.REFILL and _reveal_kind(state) is None:
            state = _end_turn(state)
        else:
            return state


def _end_turn(state: State) -> State:
    """DK-24: end the game if a deck or a village stack ran out; otherwise the next turn."""
    ended = (
        not state.draw_pile
        or (state.penalty_top is None and not state.penalty_pile)
        or any(not stack for stack in state.villages)
    )
    if ended:
        return replace(state, phase=Phase.OVER, dice=(), to_roll=0, to_refill=0, extra_turn=False)
    following = state.current if state.extra_turn else (state.current + 1) % len(state.players)
    return _start_turn(state, following)


def _start_turn(state: State, player: int) -> State:
    """DK-8, DK-14: a fresh turn; the first roll of all six dice starts at once."""
    pile = state.kingdoms[player]
    elf_on_top = bool(pile) and _is_type(state.deck, pile[-1], CardType.ARROGANT_ELF)
    return replace(
        state,
        phase=Phase.ROLL,
        current=player,
        dice=(),
        to_roll=DICE,
        rolls_done=1,
        rolls_allowed=ELF_ROLLS if elf_on_top else ROLLS,
        to_refill=0,
        extra_turn=False,
    )


def _is_type(deck: Deck, card_id: str, card_type: CardType) -> bool:
    return card_id in deck and deck.card(card_id).type is card_type


def inventory(state: State) -> Counter[str]:
    """Every card id in every location (DK-2 … DK-4: 65 with 40 inhabitants)."""
    counts: Counter[str] = Counter(state.draw_pile)
    counts.update(c for c in state.row if c is not None)
    for stack in state.villages:
        counts.update(stack)
    if state.penalty_top is not None:
        counts[state.penalty_top] += 1
    counts.update(state.penalty_pile)
    counts.update(state.discard)
    for pile in state.kingdoms:
        counts.update(pile)
    counts.update(state.gifts)
    return counts


__all__ = [
    "apply",
    "chance_outcomes",
    "inventory",
    "is_chance_node",
    "is_legal",
    "is_over",
    "legal_actions",
    "new_game",
    "satisfied",
]
