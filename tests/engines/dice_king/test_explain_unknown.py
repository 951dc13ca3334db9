"""Dice King observations with a card seen but not identified (`UNKNOWN_CARD`)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

import engines.dice_king as dk
from engines.api import random_step
from engines.dice_king.catalogue import companion_deck
from engines.dice_king.explain import (
    UNKNOWN_CARD,
    Observation,
    check_observation,
    explain_states,
    matches,
    observe,
    state_key,
)
from engines.dice_king.state import Phase, State, Take
from tests.engines.dice_king._helpers import edit, move


def _take_position() -> tuple[State, Take, random.Random]:
    """A settled turn (dice rolled) where the player can take an inhabitant (DK-9)."""
    for seed in range(60):
        rng = random.Random(seed)
        state = dk.new_game(["Anna", "Ben", "Cleo"])
        while dk.is_chance_node(state) and not dk.is_over(state):
            state = dk.apply(state, random_step(dk, state, rng))
        takes = [a for a in dk.legal_actions(state) if isinstance(a, Take)]
        if takes:
            return state, takes[0], rng
    pytest.fail("no take in the seeded games")


def _refilled(state: State, take: Take, rng: random.Random) -> State:
    """After the take, the row refilled (DK-12), the next player's dice not rolled yet."""
    after = dk.apply(state, take)
    while dk.is_chance_node(after) and after.phase is not Phase.ROLL:
        after = dk.apply(after, random_step(dk, after, rng))
    return after


def _with_new_card_unknown(before: State, after: State) -> tuple[Observation, int]:
    """What the table shows after the refill, the revealed inhabitant not identified; with the
    last dice still lying in the rolling area (DK-8)."""
    seen = observe(after)
    slot = next(i for i, c in enumerate(after.row) if c is not None and c not in before.row)
    row = tuple(UNKNOWN_CARD if i == slot else c for i, c in enumerate(seen.row))
    return replace(seen, row=row, dice=before.dice), slot


def test_dk12_an_unknown_row_card_after_a_take_is_one_explanation_when_one_card_fits() -> None:
    """DK-9, DK-12: after a take the row shifts and is refilled; an inhabitant that only moved
    along the row and is now seen unidentified can be one card only: one explanation, the take
    (applied by the tracker, not asked)."""
    state, take, rng = _take_position()
    after = _refilled(state, take, rng)
    seen = observe(after)
    old = next(i for i, c in enumerate(after.row) if c is not None and c in state.row)
    row = tuple(UNKNOWN_CARD if i == old else c for i, c in enumerate(seen.row))
    found = explain_states(state, replace(seen, row=row, dice=state.dice))
    assert [state_key(s) for _, s in found] == [state_key(after)]
    assert found[0][0][0] == take


def test_dk12_an_unknown_refill_card_asks_when_several_cards_fit() -> None:
    """DK-12: with many faces in the draw pile the unknown new card could be any of them:
    several explanations (the user is asked), the true one among them, none with an empty
    slot."""
    state, take, rng = _take_position()
    after = _refilled(state, take, rng)
    seen, slot = _with_new_card_unknown(state, after)
    found = explain_states(state, seen)
    assert len(found) > 1
    assert state_key(after) in [state_key(s) for _, s in found]
    assert all(s.row[slot] is not None for _, s in found)
    assert len({state_key(s) for _, s in found}) == len(found)


def test_dk4_an_unknown_card_never_matches_an_empty_slot() -> None:
    """DK-4, DK-6: an unidentified card is a card: it matches a slot holding a card, never an
    empty row slot, an empty kingdom or an empty village location."""
    state, take, _ = _take_position()
    taken = dk.apply(state, take)  # the taken inhabitant's slot is empty until the refill
    empty = taken.row.index(None)
    shown = observe(taken)
    row = tuple(UNKNOWN_CARD if i == empty else c for i, c in enumerate(shown.row))
    assert not matches(taken, replace(shown, row=row))
    nobody = next(p for p, pile in enumerate(state.kingdoms) if not pile)
    tops = tuple(
        UNKNOWN_CARD if p == nobody else t for p, t in enumerate(observe(state).kingdom_tops)
    )
    assert not matches(state, replace(observe(state), kingdom_tops=tops))
    # where the state holds a card, the unknown stands for it
    full = next(i for i, c in enumerate(state.row) if c is not None)
    row = tuple(UNKNOWN_CARD if i == full else c for i, c in enumerate(observe(state).row))
    assert matches(state, replace(observe(state), row=row))
    found = explain_states(state, replace(observe(state), row=row))
    assert [(path, state_key(s)) for path, s in found] == [((), state_key(state))]


def test_dk4_without_unknown_cards_an_observation_is_exact() -> None:
    """DK-4: an observation of a state has no unknown card and only that state shows it."""
    state, _, _ = _take_position()
    seen = observe(state)
    assert not seen.has_unknown
    assert replace(seen, penalty_top=UNKNOWN_CARD).has_unknown
    other = replace(seen, row=(seen.row[1], seen.row[0], *seen.row[2:]))
    assert matches(state, seen) and (seen.row[0] == seen.row[1] or not matches(state, other))


def test_dk4_check_observation_accepts_unknown_cards_and_bounds_the_slots() -> None:
    """DK-2, DK-4, DK-6, DK-9: unknown cards in any slot are no problem (two unknowns are not
    one card seen twice); the slot counts are still checked."""
    deck = companion_deck()
    seen = Observation(
        row=(UNKNOWN_CARD, "snob-1", UNKNOWN_CARD, None, None),
        village_tops=(UNKNOWN_CARD, None, None, None, None),
        penalty_top=UNKNOWN_CARD,
        dice=("1r",),
        kingdom_tops=(UNKNOWN_CARD, None),
    )
    assert check_observation(seen, deck, 2) == []
    too_many = replace(seen, row=(*seen.row, UNKNOWN_CARD))
    assert [p.clause for p in check_observation(too_many, deck, 2)] == ["DK-6"]
    assert [p.clause for p in check_observation(seen, deck, 3)] == ["DK-9"]


def test_dk11_a_shorter_story_does_not_hide_a_penalty_behind_unknown_cards() -> None:
    """DK-8, DK-11, DK-12: the roller takes the penalty, the row shifts and is refilled and the
    next player rolls; with the row, the penalty and the roller's kingdom top unidentified, a
    reroll of the roller showing the same dice would be shorter, but the penalty story is
    offered too (asked, never silently the reroll)."""
    for seed in range(200):
        rng = random.Random(seed)
        state = dk.new_game(["Anna", "Ben", "Cleo"])
        while dk.is_chance_node(state) and not dk.is_over(state):
            state = dk.apply(state, random_step(dk, state, rng))
        if state.rolls_left and dk.TakePenalty() in dk.legal_actions(state):
            break
    else:
        pytest.fail("no penalty with rolls left in the seeded games")

    def few_left(data: dict) -> None:  # a short draw pile keeps the search within its budget
        data["discard"].extend(data["draw_pile"][3:])
        data["draw_pile"] = data["draw_pile"][:3]
        # the roller already owns a card: an unknown top then fits the reroll story as well
        move(data, data["penalty_pile"][0], state.player)

    state = edit(state, few_left)
    roller = state.current
    after = dk.apply(state, dk.TakePenalty())
    while dk.is_chance_node(after) and after.phase is not Phase.ROLL:
        after = dk.apply(after, random_step(dk, after, rng))
    for reading in (*state.dice[:5], "1r" if state.dice[5] != "1r" else "2g"):
        after = dk.apply(after, dk.RollDie(reading))  # one die away from the roller's dice
    seen = observe(after)
    tops = tuple(UNKNOWN_CARD if p == roller else t for p, t in enumerate(seen.kingdom_tops))
    hidden = replace(seen, row=(UNKNOWN_CARD,) * 5, penalty_top=UNKNOWN_CARD, kingdom_tops=tops)
    found = explain_states(state, hidden, visited=True)
    keys = [state_key(s) for _, s in found]
    assert len(found) > 1 and state_key(after) in keys
    assert any(isinstance(path[0], dk.Reroll) for path, _ in found)


def test_dk7_dk8_a_reroll_leaves_the_unread_penalty_card_as_it_was() -> None:
    """DK-7, DK-8: the face-up penalty card unread from the tablet (`UNKNOWN_CARD`) while the
    player rolls again: the reroll leaves it where and what it was (`unknowns_kept`). A take
    and the row's refill (DK-9, DK-12) with the new inhabitant unread does not."""
    from engines.dice_king.explain import unknowns_kept
    from tests.engines.dice_king._helpers import dealt, rolled

    row = ("snob-1", "elf-1", "grim-elf-1", "dwarf-1", "goblin-1")
    state = rolled(dealt(row, penalty="penalty-9"), ("1r", "1r", "3b", "4r", "5g", "6b"))
    after = rolled(dk.apply(state, dk.Reroll(("1r", "1r"))), ("2g", "2g", "6r", "6r"))
    seen = replace(observe(after), penalty_top=UNKNOWN_CARD)
    assert seen.has_unknown
    assert unknowns_kept(state, after, seen)
    assert unknowns_kept(state, after, replace(seen, row=(UNKNOWN_CARD,) * 5))  # the row stays
    before, take, rng = _take_position()
    refilled = _refilled(before, take, rng)
    new_card_unread, _ = _with_new_card_unknown(before, refilled)
    assert not unknowns_kept(before, refilled, replace(new_card_unread, dice=refilled.dice))
