"""Multi-frame voting: one identity per physical piece, a combined confidence, never a guess."""

from __future__ import annotations

import numpy as np

from vision.detections import Detections
from vision.voting import VoteTracker, VotingConfig, box_iou


def frame_of(pieces: list[tuple[tuple[float, float], str, str | None, float]]) -> Detections:
    """Detections of (centre, kind, identity, score) pieces, 40 px boxes."""
    boxes = np.array([[x - 20, y - 20, x + 20, y + 20] for (x, y), _, _, _ in pieces], np.float32)
    kinds = [k for _, k, _, _ in pieces]
    detections = Detections.from_boxes(boxes, np.ones(len(pieces), np.float32), kinds)
    identities = np.empty(len(pieces), object)
    identities[:] = [identity for _, _, identity, _ in pieces]
    scores = np.array([s for _, _, _, s in pieces], np.float32)
    return detections.with_fields(identities=identities, identity_scores=scores)


def test_box_iou() -> None:
    iou = box_iou(
        np.array([[0, 0, 10, 10]]), np.array([[0, 0, 10, 10], [5, 0, 15, 10], [20, 20, 30, 30]])
    )
    assert np.allclose(iou, [[1.0, 1 / 3, 0.0]])


def test_agreeing_frames_give_one_identity_with_growing_confidence() -> None:
    tracker = VoteTracker()
    confidences = []
    for k in range(5):
        out = tracker.update(frame_of([((100 + k, 100), "card", "kings-breakfast/ham", 0.9)]))
        confidences.append(float(out.identity_scores[0]))
        if out.identities[0] is not None:
            assert out.identities[0] == "kings-breakfast/ham"
    assert confidences == sorted(confidences)
    assert confidences[-1] > 0.9
    assert len(tracker) == 1


def test_one_dissenting_frame_does_not_flip_the_identity() -> None:
    tracker = VoteTracker()
    for _ in range(4):
        tracker.update(frame_of([((50, 50), "tile", "cafe-international/italy/w", 0.9)]))
    out = tracker.update(frame_of([((51, 50), "tile", "cafe-international/italy/m", 0.9)]))
    assert out.identities[0] == "cafe-international/italy/w"
    assert 0 < out.identity_scores[0] < 1


def test_disagreement_gives_no_identity() -> None:
    tracker = VoteTracker()
    out = None
    for k in range(6):
        identity = "dice-king/snob-1" if k % 2 else "dice-king/snob-2"
        out = tracker.update(frame_of([((80, 80), "card", identity, 0.8)]))
    assert out is not None and out.identities[0] is None and out.identity_scores[0] == 0


def test_unidentified_frames_count_against_a_single_guess() -> None:
    tracker = VoteTracker()
    tracker.update(frame_of([((80, 80), "card", "kings-breakfast/wine", 0.6)]))
    out = tracker.update(frame_of([((80, 80), "card", None, 0.0)]))
    for _ in range(3):
        out = tracker.update(frame_of([((80, 80), "card", None, 0.0)]))
    assert out.identities[0] is None


def test_pieces_apart_or_of_another_kind_are_tracked_separately() -> None:
    tracker = VoteTracker()
    for _ in range(3):
        out = tracker.update(
            frame_of(
                [
                    ((100, 100), "card", "kings-breakfast/ham", 0.9),
                    ((300, 100), "card", "kings-breakfast/wine", 0.9),
                    ((100, 100), "tile", "cafe-international/uk/m", 0.9),
                ]
            )
        )
    assert list(out.identities) == [
        "kings-breakfast/ham",
        "kings-breakfast/wine",
        "cafe-international/uk/m",
    ]
    assert len(tracker) == 3


def test_unseen_pieces_are_forgotten_and_dice_pass_through() -> None:
    tracker = VoteTracker(VotingConfig(max_missed=2))
    tracker.update(frame_of([((100, 100), "card", "kings-breakfast/ham", 0.9)]))
    for _ in range(3):
        tracker.update(frame_of([((400, 400), "die", None, 0.0)]))
    assert len(tracker) == 0
    out = tracker.update(frame_of([((400, 400), "die", None, 0.0)]))
    assert out.identities[0] is None and out.kinds[0] == "die"
    tracker.reset()
    assert len(tracker) == 0


def test_a_piece_replaced_where_it_lay_takes_its_new_identity_after_two_frames() -> None:
    """A tile drawn into a hand's emptied place, a pile dealt anew: a long-seen piece identified
    as another one two frames in a row is that other piece (`replaced_after`); without it the
    old tally held for many frames, the piece passing through "unknown" on the way."""
    old, new = "cafe-international/italy/w", "cafe-international/china/m"
    for replaced_after, frames_to_flip in ((2, 2), (None, None)):
        tracker = VoteTracker(VotingConfig(replaced_after=replaced_after))
        for _ in range(20):
            tracker.update(frame_of([((50, 50), "tile", old, 0.9)]))
        seen = [
            tracker.update(frame_of([((50, 50), "tile", new, 0.9)])).identities[0] for _ in range(4)
        ]
        if frames_to_flip is None:
            assert new not in seen  # 4 frames are not enough for the old tally to be outvoted
        else:
            assert seen[: frames_to_flip - 1] == [old] * (frames_to_flip - 1)
            assert seen[frames_to_flip - 1 :] == [new] * (5 - frames_to_flip)
