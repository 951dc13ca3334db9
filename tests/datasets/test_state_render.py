"""`render_state`: a given game state drawn on the table, with truth that matches the state."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

import engines.cafe_international as ci
import engines.dice_king as dk
import engines.kings_breakfast as kb
from datasets.state_render import (
    HIDDEN,
    detections_from_truth,
    place_spread,
    place_state,
    project_pieces,
    render_spread,
    render_state,
    table_camera,
)
from engines.api import random_playout
from engines.kings_breakfast.catalogue import FOODS


def _played(module, players: list[str], steps: int, seed: int):  # type: ignore[no-untyped-def]
    return random_playout(module, module.new_game(players), steps, random.Random(seed))


def _visible(pieces) -> Counter:  # type: ignore[no-untyped-def]
    return Counter(
        p.identity
        for p in pieces
        if p.kind != "board" and p.face_up and not p.group.endswith(HIDDEN)
    )


def test_kb_layout_shows_exactly_the_offer_king_and_emeralds() -> None:
    """Every food of the offer and the king's area, and every Emerald on the table, is laid out
    face up; the deck lies face down."""
    state = _played(kb, ["Anna", "Ben", "Cleo"], 80, 3)
    pieces = place_state("kings-breakfast", state, np.random.default_rng(0))
    expected: Counter[str] = Counter()
    for food, a, b in zip(FOODS, state.offer, state.king, strict=True):
        if a + b:
            expected[f"kings-breakfast/{food}"] = a + b
    if state.emeralds_on_table:
        expected["kings-breakfast/emerald"] = state.emeralds_on_table
    assert _visible(pieces) == expected


def test_cafe_layout_seats_every_guest_and_lays_out_every_hand() -> None:
    """Seated guests, bar guests and face-up hands are all on the table."""
    state = _played(ci, ["Anna", "Ben"], 30, 4)
    pieces = place_state("cafe-international", state, np.random.default_rng(0))
    tiles = [g.split("@")[0] for g in state.seated if g] + list(state.bar)
    tiles += [t for hand in state.hands for t in hand]
    assert _visible(pieces) == Counter(f"cafe-international/{t}" for t in tiles)
    assert sum(p.kind == "board" for p in pieces) == 1


def test_dk_layout_shows_row_tops_and_dice() -> None:
    """The row, the village and penalty tops, kingdom tops; one die per reading."""
    state = _played(dk, ["Anna", "Ben"], 60, 5)
    pieces = place_state("dice-king", state, np.random.default_rng(0))
    dice = sorted(f"{p.value}" for p in pieces if p.kind == "die")
    assert dice == sorted(r[:-1] for r in state.dice)
    shown = _visible(pieces)
    for card in state.row:
        if card:
            assert shown[f"dice-king/{card}"] == 1
    assert all(shown[f"dice-king/{stack[0]}"] == 1 for stack in state.villages if stack)


def test_projected_truth_gives_detections_of_what_is_visible() -> None:
    """Projected truth → Detections: face-up identities, dice with values and colours."""
    state = _played(dk, ["Anna", "Ben"], 60, 5)
    rng = np.random.default_rng(1)
    records = project_pieces(place_state("dice-king", state, rng), table_camera("dice-king"))
    det = detections_from_truth(records)
    assert len(det) == sum(r["target"] for r in records)
    dice = det[det.kinds == "die"]
    assert sorted(
        f"{v}{c}" for v, c in zip(dice.die_values, dice.die_colours, strict=True)
    ) == sorted(state.dice)
    under_hand = project_pieces(
        place_state("dice-king", state, rng), table_camera("dice-king"), hands=[(0.0, 0.0)]
    )
    assert sum(r["target"] for r in under_hand) < sum(r["target"] for r in records)


def test_spread_pieces_are_each_at_least_partly_uncovered() -> None:
    """A spread photo lays every piece out, later ones on top."""
    ids = ["kings-breakfast/ham"] * 7 + ["kings-breakfast/cake"] * 5
    pieces = place_spread(ids, np.random.default_rng(2))
    assert Counter(p.identity for p in pieces) == Counter(ids)
    centres = np.array([p.centre_mm for p in pieces])
    gaps = np.hypot(*(centres[:, None] - centres[None]).transpose(2, 0, 1))
    assert gaps[~np.eye(len(ids), dtype=bool)].min() > 30.0


def test_render_state_returns_an_image_and_truth_of_the_state() -> None:
    """The renderer draws the state; its truth records carry the state's identities."""
    state = _played(kb, ["Anna", "Ben", "Cleo"], 20, 6)
    image, truth = render_state("kings-breakfast", state, 7, size=(320, 240))
    assert image.shape == (240, 320, 3) and image.dtype == np.uint8
    assert truth["state"] == kb.state_to_json(state)
    seen = Counter(o["identity"] for o in truth["objects"] if o["face_up"])
    assert seen == _visible(place_state("kings-breakfast", state, np.random.default_rng(0)))


def test_a_retaken_spread_photo_shows_the_same_pieces_from_a_new_camera() -> None:
    """A retake (the app asks for another photo) is the same spread under a new camera pose;
    retake 0 is the first photo, and a negative retake is refused."""
    ids = ["kings-breakfast/ham"] * 3 + ["kings-breakfast/cake"] * 2
    first, first_truth = render_spread(ids, 11, size=(320, 240))
    again, again_truth = render_spread(ids, 11, size=(320, 240), retake=0)
    assert np.array_equal(first, again)
    retaken, retaken_truth = render_spread(ids, 11, size=(320, 240), retake=1)
    assert retaken_truth["identities"] == first_truth["identities"]
    assert retaken_truth["camera"] != first_truth["camera"]
    assert not np.array_equal(retaken, first)
    same_retake, _ = render_spread(ids, 11, size=(320, 240), retake=1)
    assert np.array_equal(retaken, same_retake)
    with pytest.raises(ValueError, match="retake"):
        render_spread(ids, 11, size=(320, 240), retake=-1)
