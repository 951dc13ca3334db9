"""The tracker: stable observations only, hands ignored, changes explained or asked about."""

from __future__ import annotations

import random
from dataclasses import replace

import numpy as np
import pytest

import engines.kings_breakfast as kb
from engines.api import random_step
from engines.cafe_international.explain import observe as ci_observe
from engines.kings_breakfast.explain import Observation, observe, public_key
from engines.kings_breakfast.state import DrawCard, TakePile
from vision.readers import Reading
from vision.tracker import TableBackground, Tracker, TrackerConfig, hand_in_frame, small_ycrcb


def _dealt() -> kb.State:
    rng = random.Random(1)
    state = kb.new_game(["Anna", "Ben", "Cleo"])
    while kb.is_chance_node(state):
        state = kb.apply(state, random_step(kb, state, rng))
    return state


def _feed(tracker: Tracker, start: float, seconds: float, reading: Reading, n: int) -> list:
    events = []
    t = start
    while t < start + seconds - 1e-9:
        events += tracker.update(t, reading, n)
        t += 0.1
    return events


def test_an_observation_counts_only_after_half_a_second() -> None:
    """Stable for ≥ 0.5 s and ≥ 3 frames: a shorter glimpse changes nothing."""
    state = _dealt()
    tracker = Tracker("kings-breakfast", state)
    _feed(tracker, 0.0, 1.0, Reading(observe(state)), 10)
    food = next(f for f, n in zip(kb.FOODS, state.offer, strict=True) if n)
    after = kb.apply(state, TakePile(food))
    assert _feed(tracker, 1.0, 0.3, Reading(observe(after)), 9) == []
    assert tracker.state == state
    events = _feed(tracker, 1.3, 0.7, Reading(observe(after)), 9)
    assert [e.kind for e in events] == ["applied"]
    assert events[0].actions == (TakePile(food),)
    assert tracker.state == after


def test_frames_with_problems_or_a_hand_never_count() -> None:
    """A reading with problems, or a frame with a skin-coloured arm, is not an observation."""
    state = _dealt()
    tracker = Tracker("kings-breakfast", state)
    bad = Reading(None, ("a card in the offer zone could not be identified",))
    assert _feed(tracker, 0.0, 2.0, bad, 10) == []
    frame = np.full((120, 160, 3), (40, 120, 40), np.uint8)
    frame[60:, 60:100] = (120, 160, 215)  # a skin-coloured arm coming in from the bottom edge
    assert hand_in_frame(frame)
    assert not hand_in_frame(np.full((120, 160, 3), (40, 120, 40), np.uint8))
    empty = Observation(state.offer[:3] + (0,) * 4, state.king, 0, 0)
    events = []
    for k in range(20):
        events += tracker.update(2.0 + 0.1 * k, Reading(empty), 3, frame=frame)
    assert events == [] and tracker.state == state


ORANGE_TABLE = (71, 148, 213)  # BGR of a rendered wooden table: skin-coloured in YCrCb


def _table_with_arm(table: tuple[int, int, int], arm: bool) -> np.ndarray:
    frame = np.full((120, 160, 3), table, np.uint8)
    frame[20:40, 30:60] = (200, 60, 60)  # a blue card lying on the table
    if arm:
        frame[70:, 70:95] = (143, 179, 249)  # a paler arm from the bottom edge
        frame[110:, 65:100] = (160, 60, 40)  # its sleeve, not skin, at the border
    return frame


def test_a_skin_coloured_table_is_not_a_hand_once_the_background_is_learnt() -> None:
    """A wooden table is skin-coloured edge to edge: by colour alone every frame is a hand; the
    background (after its warm-up) tells the table from an arm that comes in over it."""
    config = TrackerConfig()
    empty, with_arm = _table_with_arm(ORANGE_TABLE, False), _table_with_arm(ORANGE_TABLE, True)
    assert hand_in_frame(empty)  # colour alone: the table is a "hand"
    background = small_ycrcb(empty)
    assert not hand_in_frame(empty, config, background)
    assert hand_in_frame(with_arm, config, background)
    # a change that does not touch the border (a card put down) is not an arm
    moved = empty.copy()
    moved[50:80, 60:90] = (143, 179, 249)
    assert not hand_in_frame(moved, config, background)

    watcher = TableBackground(config)
    t, seen = 0.0, []
    while t < config.hand_background_seconds + 1.0:
        seen.append(watcher.update(t, empty))
        t += 0.1
    assert seen[0] and not seen[-1]  # warming up, the table counted as a hand; not after
    assert watcher.update(t, with_arm)  # an arm coming in
    assert watcher.update(t + 0.1, with_arm)  # and still there a frame later (slow learning)
    assert not watcher.update(t + 0.2, empty) or not watcher.update(t + 0.3, empty)


def test_a_tracker_on_a_skin_coloured_table_observes_after_its_warm_up() -> None:
    """With frames of an orange table, the tracker still confirms a stable table (and an arm
    over it still blocks the reading)."""
    state = _dealt()
    tracker = Tracker("kings-breakfast", state)
    config = tracker.config
    empty, with_arm = _table_with_arm(ORANGE_TABLE, False), _table_with_arm(ORANGE_TABLE, True)
    same = Reading(observe(state))
    t = 0.0
    while t < config.hand_background_seconds + 1.0:
        tracker.update(t, same, 9, frame=empty)
        t += 0.1
    assert not tracker.last_hand
    taken = Reading(
        observe(
            kb.apply(
                state, TakePile(next(f for f, n in zip(kb.FOODS, state.offer, strict=True) if n))
            )
        )
    )
    events = []
    for _ in range(10):  # the pile is gone but an arm is over the table: nothing counts
        events += tracker.update(t, taken, 7, frame=with_arm)
        t += 0.1
    assert events == [] and tracker.last_hand and tracker.state == state
    for _ in range(10):
        events += tracker.update(t, taken, 7, frame=empty)
        t += 0.1
    assert [e.kind for e in events] == ["applied"]


def test_kb11_a_hand_visit_that_changes_nothing_is_a_draw() -> None:
    """KB-11: activity (a hand, detections changing) then the same table: a hidden draw."""
    state = _dealt()
    tracker = Tracker("kings-breakfast", state)
    same = Reading(observe(state))
    _feed(tracker, 0.0, 1.0, same, 10)
    partly_hidden = Reading(Observation((0,) * 7, state.king, 0, 0))
    _feed(tracker, 1.0, 0.2, partly_hidden, 4)
    events = _feed(tracker, 1.2, 0.8, same, 10)
    assert [e.kind for e in events] == ["applied"]
    assert events[0].actions[0] == DrawCard()
    assert tracker.state.current == 1


def test_an_unexplained_table_is_a_question_and_a_later_explained_one_withdraws_it() -> None:
    """Never silently wrong: nothing explains cards appearing in the king's area, so the user is
    asked; when the table comes back to a legal picture, the question is withdrawn."""
    state = _dealt()
    tracker = Tracker("kings-breakfast", state, TrackerConfig(stable_seconds=0.5))
    _feed(tracker, 0.0, 1.0, Reading(observe(state)), 10)
    odd = Observation(state.offer, (3,) + state.king[1:], state.emeralds_on_table, 0)
    events = _feed(tracker, 1.0, 1.0, Reading(odd), 13)
    assert [e.kind for e in events] == ["question"] and events[0].candidates == ()
    assert tracker.question is not None and tracker.state == state
    food = next(f for f, n in zip(kb.FOODS, state.offer, strict=True) if n)
    after = kb.apply(state, TakePile(food))
    events = _feed(tracker, 2.0, 1.0, Reading(observe(after)), 9)
    assert [e.kind for e in events] == ["withdrawn", "applied"]
    assert tracker.question is None and public_key(tracker.state) == public_key(after)


def test_the_user_answers_a_question_by_picking_or_by_setting_the_state() -> None:
    """Questions are closed by the user: a candidate, or the true state entered by hand."""
    state = _dealt()
    tracker = Tracker("kings-breakfast", state)
    _feed(tracker, 0.0, 1.0, Reading(observe(state)), 10)
    odd = Observation(state.offer, (3,) + state.king[1:], state.emeralds_on_table, 0)
    _feed(tracker, 1.0, 1.0, Reading(odd), 13)
    tracker.correct(state)
    assert tracker.question is None and tracker.history == (state,)


def _feed_counts(tracker: Tracker, start: float, reading: Reading, counts: list[int]) -> list:
    events = []
    for k, n in enumerate(counts):
        events += tracker.update(start + 0.1 * k, reading, n)
    return events


def test_a_flickering_detection_count_is_not_a_hand_but_a_real_jump_is() -> None:
    """A detector that finds 57, 55, 58 of sixty small pieces from frame to frame still gives a
    stable table (the observation is the same); a count that jumps by many (an arm covering
    pieces, with no frame to test) is activity, and never stable by itself."""
    state = _dealt()
    food = next(f for f, n in zip(kb.FOODS, state.offer, strict=True) if n)
    after = kb.apply(state, TakePile(food))
    tracker = Tracker("kings-breakfast", state)
    _feed(tracker, 0.0, 1.0, Reading(observe(state)), 57)
    flicker = [57, 55, 58, 56, 57, 55, 58, 57, 56, 57]
    events = _feed_counts(tracker, 1.0, Reading(observe(after)), flicker)
    assert [e.kind for e in events] == ["applied"]
    assert tracker.state == after

    tracker = Tracker("kings-breakfast", state)
    _feed(tracker, 0.0, 1.0, Reading(observe(state)), 57)
    jumping = [57, 40, 57, 38, 57, 41, 57, 39, 57, 40]
    assert _feed_counts(tracker, 1.0, Reading(observe(after)), jumping) == []
    assert tracker.state == state


def test_kb6_a_deal_seen_half_done_is_applied_and_told_as_pending() -> None:
    """KB-6: the cook deals 2 × players cards; a stable table showing only some of them is a
    deal under way: applied, and a ``pending`` event tells the user the move is not all seen
    (a finished deal with cards out of view would otherwise look like a finished move)."""
    state = kb.new_game(["Anna", "Ben", "Cleo"])
    assert kb.is_chance_node(state)
    tracker = Tracker("kings-breakfast", state)
    _feed(tracker, 0.0, 1.0, Reading(observe(state)), 1)
    partly = Observation.from_counts(offer={"ham": 1, "cheese": 1})
    events = _feed(tracker, 1.0, 1.0, Reading(partly), 3)
    assert [e.kind for e in events] == ["applied", "pending"]
    assert kb.is_chance_node(tracker.state)
    dealt = _dealt()
    tracker = Tracker("kings-breakfast", state)
    _feed(tracker, 0.0, 1.0, Reading(observe(state)), 1)
    events = _feed(tracker, 1.0, 1.0, Reading(observe(dealt)), 7)
    assert [e.kind for e in events] == ["applied"]  # the whole deal: nothing pending


def test_kb6_a_deal_under_way_picked_from_a_question_is_told_as_pending() -> None:
    """KB-6: a deal seen in part, with a card that could not be identified, is asked about;
    the state the user picks still waits for the rest of the deal, so a ``pending`` event
    tells them, as after an applied half-seen move."""
    state = kb.new_game(["Anna", "Ben", "Cleo"])
    tracker = Tracker("kings-breakfast", state)
    _feed(tracker, 0.0, 1.0, Reading(observe(state)), 1)
    seen = Observation.from_counts(offer={"ham": 1, "cheese": 1})
    partly = Observation(seen.offer, seen.king, seen.emeralds, seen.revealed, offer_unknown=1)
    events = _feed(tracker, 1.0, 1.0, Reading(partly), 7)
    assert [e.kind for e in events] == ["question"]
    told = tracker.answer(0)
    assert [e.kind for e in told] == ["pending"]
    assert kb.is_chance_node(tracker.state) and tracker.question is None
    with pytest.raises(ValueError, match="no candidate"):
        tracker.answer(0)  # the question is closed


def test_kb10_the_one_explanation_of_a_table_with_an_unknown_card_is_confirmed() -> None:
    """KB-10: a pile taken while another pile shows a card that could not be identified: the
    rules find one explanation, but a misread table can always be explained by something
    legal, so the user confirms it (a question with one candidate) unless the tracker is
    told to apply such explanations (`confirm_unknown` False)."""
    state = _dealt()
    foods = [f for f, n in zip(kb.FOODS, state.offer, strict=True) if n]
    other = next(f for f, n in zip(kb.FOODS, state.offer, strict=True) if n >= 2)
    taken = next(f for f in foods if f != other)  # the unknown card can only be `other`'s
    after = kb.apply(state, TakePile(taken))
    seen = observe(after)
    index = kb.FOODS.index(other)
    offer = list(seen.offer)
    offer[index] -= 1
    unsure = Observation(tuple(offer), seen.king, seen.emeralds, seen.revealed, offer_unknown=1)
    assert unsure.has_unknown
    for confirm, kinds in ((True, ["question"]), (False, ["applied"])):
        tracker = Tracker("kings-breakfast", state, TrackerConfig(confirm_unknown=confirm))
        _feed(tracker, 0.0, 1.0, Reading(observe(state)), 9)
        events = _feed(tracker, 1.0, 1.0, Reading(unsure), 7)
        assert [e.kind for e in events] == kinds
        if confirm:
            assert events[0].candidates == ((TakePile(taken),),)
            assert tracker.state == state
            assert tracker.answer(0) == []  # the move is whole: nothing to tell
        assert public_key(tracker.state) == public_key(after)


GREEN_TABLE = np.full((120, 160, 3), (40, 120, 40), np.uint8)


def _green_with_arm() -> np.ndarray:
    frame = GREEN_TABLE.copy()
    frame[60:, 60:100] = (120, 160, 215)  # a skin-coloured arm coming in from the bottom edge
    return frame


def _feed_frames(
    tracker: Tracker, start: float, seconds: float, reading: Reading, frame: np.ndarray
) -> tuple[list, float]:
    events, t = [], start
    while t < start + seconds - 1e-9:
        events += tracker.update(t, reading, 9, frame=frame)
        t += 0.1
    return events, t


@pytest.mark.parametrize(("unread_seconds", "told"), [(1.0, True), (0.3, False)])
def test_a_move_seen_after_the_table_lay_still_but_unread_is_told_unseen(
    unread_seconds: float, told: bool
) -> None:
    """The table lay still (no hand) for 0.5 s or more and no reading stood still in that
    spell: a move may have ended there unseen, so the move explained afterwards is applied and
    followed by an ``unseen`` event (the story the rules pick may not be what happened). A
    spell shorter than a stable reading needs says nothing."""
    state = _dealt()
    tracker = Tracker("kings-breakfast", state)
    arm, seen = _green_with_arm(), Reading(observe(state))
    unread = Reading(None, ("a card in the offer zone could not be identified",))
    food = next(f for f, n in zip(kb.FOODS, state.offer, strict=True) if n)
    after = Reading(observe(kb.apply(state, TakePile(food))))
    events, t = _feed_frames(tracker, 0.0, 5.0, seen, GREEN_TABLE)
    assert events == [] and not tracker.last_hand
    for reading, seconds, frame in (
        (unread, 0.3, arm),
        (unread, unread_seconds, GREEN_TABLE),
        (unread, 0.3, arm),
        (after, 1.0, GREEN_TABLE),
    ):
        new, t = _feed_frames(tracker, t, seconds, reading, frame)
        events += new
    assert [e.kind for e in events] == (["applied", "unseen"] if told else ["applied"])
    assert events[0].actions == (TakePile(food),)


@pytest.mark.parametrize(("unsettled_seconds", "told"), [(1.0, True), (0.2, False)])
def test_a_move_read_after_readings_that_never_stood_still_is_told_unseen(
    unsettled_seconds: float, told: bool
) -> None:
    """No hand seen at all (the hand test can miss one), but the readings before the new
    stable one never stood still for `stable_seconds` since the confirmed table: a move may
    have ended in that stretch, so the applied story is followed by ``unseen``. A short
    unsettled stretch (votes settling) says nothing."""
    state = _dealt()
    tracker = Tracker("kings-breakfast", state)
    unread = Reading(None, ("a card in the offer zone could not be identified",))
    food = next(f for f, n in zip(kb.FOODS, state.offer, strict=True) if n)
    after = Reading(observe(kb.apply(state, TakePile(food))))
    events, t = _feed_frames(tracker, 0.0, 5.0, Reading(observe(state)), GREEN_TABLE)
    for reading, seconds in ((unread, unsettled_seconds), (after, 1.0)):
        new, t = _feed_frames(tracker, t, seconds, reading, GREEN_TABLE)
        events += new
    assert [e.kind for e in events] == (["applied", "unseen"] if told else ["applied"])


def test_ci13_a_misread_new_guest_is_offered_never_applied() -> None:
    """CI-13: nothing explains a Café table whose new guest was read as another tile; the turn
    that a misread would hide (`loosened`) is offered as a question, even when it is the only
    one, and never applied."""
    from tests.engines.cafe_international.test_explain import (
        _first,
        _misread_new_guest,
        _single_seat,
    )

    before, _, after = _first(_single_seat)
    _, misread = _misread_new_guest(before, after)
    tracker = Tracker("cafe-international", before, TrackerConfig(stable_seconds=0.5))
    _feed(tracker, 0.0, 1.0, Reading(ci_observe(before)), 10)
    events = _feed(tracker, 1.0, 1.0, Reading(misread), 11)
    assert [e.kind for e in events] == ["question"]
    assert after in tracker.candidate_states and tracker.state == before
    tracker.answer(tracker.candidate_states.index(after))
    assert tracker.state == after


def test_dk7_a_move_that_leaves_an_unread_card_as_it_was_is_applied_not_confirmed() -> None:
    """DK-7, DK-8: the penalty card on top unread from the tablet at every frame: once the
    state knows it, a reroll (which leaves it as it was) is applied; a take whose refilled row
    shows the new inhabitant unread is still confirmed by the user (`confirm_unknown`)."""
    from dataclasses import replace

    import engines.dice_king as dk
    from engines.dice_king.explain import UNKNOWN_CARD
    from engines.dice_king.explain import observe as dk_observe
    from tests.engines.dice_king._helpers import dealt, rolled
    from tests.engines.dice_king.test_explain_unknown import (
        _refilled,
        _take_position,
        _with_new_card_unknown,
    )

    row = ("snob-1", "elf-1", "grim-elf-1", "dwarf-1", "goblin-1")
    state = rolled(dealt(row, penalty="penalty-9"), ("1r", "1r", "3b", "4r", "5g", "6b"))
    after = rolled(dk.apply(state, dk.Reroll(("1r", "1r"))), ("2g", "2g", "6r", "6r"))
    tracker = Tracker("dice-king", state)
    _feed(tracker, 0.0, 1.0, Reading(replace(dk_observe(state), penalty_top=UNKNOWN_CARD)), 12)
    events = _feed(
        tracker, 1.0, 1.0, Reading(replace(dk_observe(after), penalty_top=UNKNOWN_CARD)), 12
    )
    assert [e.kind for e in events] == ["applied"]
    assert tracker.state == after

    before, take, rng = _take_position()
    refilled = _refilled(before, take, rng)
    seen, _ = _with_new_card_unknown(before, refilled)
    tracker = Tracker("dice-king", before)
    _feed(tracker, 0.0, 1.0, Reading(dk_observe(before)), 12)
    events = _feed(tracker, 1.0, 1.0, Reading(seen), 11)
    assert [e.kind for e in events] == ["question"]
    assert tracker.state == before


def test_dk8_a_question_also_offers_the_throw_with_a_reroll_unseen() -> None:
    """DK-8, DK-11: a penalty taken, the new top penalty card unread, the next player's dice
    thrown: the rules cannot tell which penalty card came up (a question), nor whether the
    dice were thrown once or thrown and rerolled between two glances; each candidate is also
    offered thrown once more (`unseen_throws`), so the true story is one tap away."""
    import engines.dice_king as dk
    from engines.dice_king.explain import UNKNOWN_CARD, state_key
    from engines.dice_king.explain import observe as dk_observe

    for seed in range(200):
        rng = random.Random(seed)
        state = dk.new_game(["Anna", "Ben", "Cleo"])
        while dk.is_chance_node(state) and not dk.is_over(state):
            state = dk.apply(state, random_step(dk, state, rng))
        if dk.TakePenalty() in dk.legal_actions(state):
            break
    else:
        pytest.fail("no penalty to take in the seeded games")
    after = dk.apply(state, dk.TakePenalty())
    while dk.is_chance_node(after) and not dk.is_over(after):
        after = dk.apply(after, random_step(dk, after, rng))
    seen = replace(dk_observe(after), penalty_top=UNKNOWN_CARD)
    tracker = Tracker("dice-king", state)
    _feed(tracker, 0.0, 1.0, Reading(dk_observe(state)), 12)
    events = _feed(tracker, 1.0, 1.0, Reading(seen), 12)
    assert [e.kind for e in events] == ["question"]
    states = tracker.candidate_states
    once = [s for s in states if s.rolls_done == after.rolls_done]
    twice = [s for s in states if s.rolls_done == after.rolls_done + 1]
    assert len(once) >= 2 and len(twice) == len(once)  # every penalty card, thrown once or twice
    assert state_key(after) in {state_key(s) for s in once}


def test_dk11_what_a_missed_reroll_explains_is_offered_never_applied() -> None:
    """DK-8, DK-11: nothing explains the table from the dice seen; what explains it with a
    reroll the camera missed (`loose_explanations`) is the question's candidates, and the
    tracker keeps the confirmed state until the user picks one."""
    from engines.dice_king.explain import observe as dk_observe
    from engines.dice_king.explain import state_key
    from tests.engines.dice_king.test_explain import missed_reroll_before_penalty

    before, truth = missed_reroll_before_penalty()
    tracker = Tracker("dice-king", before)
    _feed(tracker, 0.0, 1.0, Reading(dk_observe(before)), 12)
    events = _feed(tracker, 1.0, 1.0, Reading(dk_observe(truth)), 12)
    assert [e.kind for e in events] == ["question"]
    assert tracker.state == before
    keys = [state_key(s) for s in tracker.candidate_states]
    assert state_key(truth) in keys
    tracker.answer(keys.index(state_key(truth)))
    assert state_key(tracker.state) == state_key(truth)


def _emerald_usable() -> kb.State:
    """A seeded game's first table where the player to act may use an Emerald (KB-13)."""
    from engines.kings_breakfast.state import UseEmerald

    rng = random.Random(4)
    state = kb.new_game(["Anna", "Ben", "Cleo"])
    while not any(isinstance(a, UseEmerald) for a in kb.legal_actions(state)):
        state = kb.apply(state, random_step(kb, state, rng))
    return state


def test_kb13_the_emerald_action_is_confirmed_not_applied() -> None:
    """KB-13/KB-16: the Emerald action is the only move that takes food out of the king's
    area, and a pile the camera reads a card or two short looks just like it: its one
    explanation is put to the user (a question with that one candidate), never applied
    silently; a pile taken from the offer (KB-10) is applied as before."""
    from engines.kings_breakfast.state import UseEmerald

    state = _emerald_usable()
    use = next(a for a in kb.legal_actions(state) if isinstance(a, UseEmerald))
    take = next(a for a in kb.legal_actions(state) if isinstance(a, TakePile))
    for move, kinds in ((use, ["question"]), (take, ["applied"])):
        after = kb.apply(state, move)
        tracker = Tracker("kings-breakfast", state)
        _feed(tracker, 0.0, 1.0, Reading(observe(state)), 9)
        events = _feed(tracker, 1.0, 1.0, Reading(observe(after)), 7)
        assert [e.kind for e in events] == kinds, move
        if kinds == ["question"]:
            assert events[0].candidates == ((move,),)
            assert tracker.state == state
            tracker.answer(0)
        assert public_key(tracker.state) == public_key(after)


def test_kb10_a_settled_table_with_a_pile_read_short_asks_nothing() -> None:
    """KB-10: stacked cards the detector misses make a pile read short; the confirmed table
    read that way shows no move (`partial_view`), so the tracker neither asks nor applies
    anything; a pile then taken is explained and applied as usual."""
    state = _dealt()
    shown = observe(state)
    big = next(i for i, n in enumerate(shown.offer) if n >= 2)
    offer = list(shown.offer)
    offer[big] -= 1
    short = replace(shown, offer=tuple(offer))
    tracker = Tracker("kings-breakfast", state)
    _feed(tracker, 0.0, 1.0, Reading(shown), 9)
    assert _feed(tracker, 1.0, 1.0, Reading(short), 8) == []
    assert tracker.state == state and tracker.question is None
    take = TakePile(kb.FOODS[big])
    after = kb.apply(state, take)
    events = _feed(tracker, 2.0, 1.0, Reading(observe(after)), 9)
    assert [e.kind for e in events] == ["applied"]
    assert public_key(tracker.state) == public_key(after)


def test_kb10_a_pile_taken_while_another_reads_short_is_offered_not_applied() -> None:
    """KB-10: a pile taken while the camera reads another pile a card short: nothing explains
    the reading exactly; the move that leads to a table it shows with piles read short
    (`loose_explanations`) is offered as the question's candidate, never applied."""
    state = _dealt()
    shown = observe(state)
    big = next(i for i, n in enumerate(shown.offer) if n >= 2)
    taken = next(i for i, n in enumerate(shown.offer) if n and i != big)
    after = kb.apply(state, TakePile(kb.FOODS[taken]))
    offer = list(observe(after).offer)
    offer[big] -= 1
    short = replace(observe(after), offer=tuple(offer))
    tracker = Tracker("kings-breakfast", state)
    _feed(tracker, 0.0, 1.0, Reading(shown), 9)
    events = _feed(tracker, 1.0, 1.0, Reading(short), 8)
    assert [e.kind for e in events] == ["question"]
    assert (TakePile(kb.FOODS[taken]),) in events[0].candidates
    assert tracker.state == state
