"""Identification by matching: any rotation, margin test, backs, foreign pieces, enrolled first."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from datasets import art
from datasets.render.scene import render_sample
from tests.vision.restyle import restyle
from vision.detections import Detections
from vision.gallery import Gallery, Reference, default_gallery
from vision.identify import (
    Identifier,
    IdentifyConfig,
    candidates_json,
    cell_grid,
    describe,
    thumb_size,
)


def place(
    faces: list[np.ndarray], seed: int = 0, size: tuple[int, int] = (900, 600)
) -> tuple[np.ndarray, np.ndarray]:
    """A frame with `faces` laid out in a row under mild perspective; their printed corners."""
    rng = np.random.default_rng(seed)
    w, h = size
    frame = np.empty((h, w, 3), np.uint8)
    frame[:] = (60, 90, 70)
    corners = []
    slot = w / len(faces)
    for k, face in enumerate(faces):
        fh, fw = face.shape[:2]
        scale = min(0.7 * slot / fw, 0.6 * h / fh)
        cx, cy = slot * (k + 0.5), h / 2
        angle = np.radians(rng.uniform(-20, 20))
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        rect = np.array([[-fw, -fh], [fw, -fh], [fw, fh], [-fw, fh]]) * scale / 2
        quad = rect @ rot.T + (cx, cy) + rng.normal(0, 0.02 * fw * scale, (4, 2))
        src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
        matrix = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
        cv2.warpPerspective(face, matrix, (w, h), frame, borderMode=cv2.BORDER_TRANSPARENT)
        corners.append(quad)
    return frame, np.array(corners, np.float32)


def detections_for(corners: np.ndarray, kinds: list[str]) -> Detections:
    return Detections.from_boxes(
        np.zeros((len(kinds), 4), np.float32), np.ones(len(kinds), np.float32), kinds, corners
    )


@pytest.fixture(scope="module")
def identifier() -> Identifier:
    return Identifier(default_gallery())


def test_each_game_piece_is_identified_whichever_corner_comes_first(
    identifier: Identifier,
) -> None:
    pieces = ["kings-breakfast/cheese", "cafe-international/italy/w", "dice-king/elf-3"]
    frame, corners = place([art.face(p, 200) for p in pieces])
    for start in range(4):
        shown = np.roll(corners, -start, axis=1)
        kinds = ["card", "tile", "card"]
        result = identifier.identify(frame, detections_for(shown, kinds))
        assert list(result.identities) == pieces
        assert np.all(result.identity_scores > 0.5)
        # corners come back listed from the printed top-left
        assert np.allclose(result.corners_px, corners, atol=1e-3)


def test_counter_clockwise_corners_are_read_too(identifier: Identifier) -> None:
    frame, corners = place([art.face("cafe-international/joker/m", 200)])
    reversed_corners = corners[:, [0, 3, 2, 1]]
    result = identifier.identify(frame, detections_for(reversed_corners, ["tile"]))
    assert result.identities[0] == "cafe-international/joker/m"


def test_all_dice_king_inhabitants_are_told_apart(identifier: Identifier) -> None:
    inhabitants = [i for i in art.identities("dice-king") if "village" not in i][:40]
    assert len(inhabitants) == 40
    for start in range(0, 40, 5):
        group = inhabitants[start : start + 5]
        frame, corners = place([art.face(p, 180) for p in group], seed=start, size=(1200, 500))
        matches = identifier.match(frame, detections_for(corners, ["card"] * 5), ["dice-king"])
        assert [m.identity if m else None for m in matches] == group


def test_identical_faces_form_one_class_with_aliases(identifier: Identifier) -> None:
    frame, corners = place([art.face("dice-king/penalty-2", 200)])
    (match,) = identifier.match(frame, detections_for(corners, ["card"]))
    assert match is not None
    assert match.identity == "dice-king/penalty-1"
    assert set(match.aliases) == {"dice-king/penalty-1", "dice-king/penalty-2"}


def test_restricting_to_another_game_never_guesses(identifier: Identifier) -> None:
    frame, corners = place([art.face("kings-breakfast/wine", 200)])
    (match,) = identifier.match(frame, detections_for(corners, ["card"]), ["dice-king"])
    assert match is not None and match.identity is None
    assert match.candidates and all(c.startswith("dice-king/") for c, _ in match.candidates)


def test_a_tile_at_a_game_without_tiles_is_left_unidentified(identifier: Identifier) -> None:
    """A "tile" detected at King's Breakfast (a detector's mistake): nothing to match it with,
    so it stays unnamed — no crash, and the card beside it is still read."""
    frame, corners = place(
        [art.face("cafe-international/italy/w", 120), art.face("kings-breakfast/wine", 200)]
    )
    matches = identifier.match(
        frame, detections_for(corners, ["tile", "card"]), ["kings-breakfast"]
    )
    assert matches[0] is not None and matches[0].identity is None
    assert matches[1] is not None and matches[1].identity == "kings-breakfast/wine"


def test_a_back_matches_its_back_and_stays_unidentified(identifier: Identifier) -> None:
    frame, corners = place([art.back("kings-breakfast", 200)])
    (match,) = identifier.match(frame, detections_for(corners, ["card"]))
    assert match is not None
    assert match.identity is None and match.label == "back:kings-breakfast"


def test_foreign_cards_are_not_identified(identifier: Identifier) -> None:
    rng = np.random.default_rng(5)
    faces = [art.foreign_face("card", rng, 200, 1.45) for _ in range(6)]
    frame, corners = place([f[:, :, :3] for f in faces], size=(1500, 500))
    result = identifier.identify(frame, detections_for(corners, ["card"] * 6))
    assert list(result.identities) == [None] * 6
    assert np.all(result.identity_scores == 0)


def test_below_the_margin_identity_is_none_and_candidates_are_kept() -> None:
    face = art.face("kings-breakfast/ham", 120)
    twin = face.copy()
    twin[-10:] = (twin[-10:] * 0.97).astype(np.uint8)  # nearly the same face, another name
    gallery = Gallery(
        (
            Reference("kings-breakfast/ham", "kings-breakfast", "card", face),
            Reference("kings-breakfast/cake", "kings-breakfast", "card", twin),
        )
    )
    identifier = Identifier(gallery, IdentifyConfig(duplicate_similarity=1.01))
    frame, corners = place([face])
    (match,) = identifier.match(frame, detections_for(corners, ["card"]))
    assert match is not None and match.identity is None
    assert {c for c, _ in match.candidates} == {"kings-breakfast/ham", "kings-breakfast/cake"}


def test_dice_and_unreadable_quads_pass_through(identifier: Identifier) -> None:
    frame, corners = place([art.face("kings-breakfast/fruit", 200)])
    all_corners = np.concatenate([corners, np.full((2, 4, 2), np.nan, np.float32)])
    detections = detections_for(all_corners, ["card", "die", "card"])
    result = identifier.identify(frame, detections)
    assert result.identities[0] == "kings-breakfast/fruit"
    assert result.identities[1] is None and result.identities[2] is None
    assert np.isnan(result.corners_px[1:]).all()


def test_enrolled_references_are_matched_first() -> None:
    cheese = restyle(art.face("kings-breakfast/cheese", 160), "kings-breakfast/cheese")
    enrolled = Gallery(
        (Reference("kings-breakfast/cheese", "kings-breakfast", "card", cheese, "enrolled"),)
    )
    identifier = Identifier(enrolled.merged(default_gallery(["kings-breakfast"])))
    frame, corners = place([cheese], seed=3)
    (match,) = identifier.match(frame, detections_for(np.roll(corners, 2, axis=1), ["card"]))
    assert match is not None
    assert match.identity == "kings-breakfast/cheese" and match.source == "enrolled"
    assert match.rotation == 2


def test_enrolled_copies_of_one_card_form_one_class() -> None:
    """DK-3: Dice King's penalty cards of equal value are copies of one card. Enrolled from a
    photo each (the user's own printing), they differ only by the photos; as separate classes
    they tied and every such card stayed unnamed. They form one class, as the companion art's
    identical faces do, and a card of another value stays apart."""
    rng = np.random.default_rng(5)
    refs = []
    for identity in [f"dice-king/penalty-{n}" for n in (3, 4, 5, 6, 7, 8)]:
        face = restyle(art.face(identity, 160), identity).astype(np.float64)
        # each enrolment photo under its own light and noise
        lit = face * rng.uniform(0.85, 1.15) + rng.normal(0, 6, face.shape)
        photo = np.clip(lit, 0, 255).astype(np.uint8)
        refs.append(Reference(identity, "dice-king", "card", photo, "enrolled"))
    identifier = Identifier(Gallery(tuple(refs)).merged(default_gallery(["dice-king"])))
    three = restyle(art.face("dice-king/penalty-7", 160), "dice-king/penalty-7")
    two = restyle(art.face("dice-king/penalty-4", 160), "dice-king/penalty-4")
    frame, corners = place([three, two], seed=4)
    first, second = identifier.match(frame, detections_for(corners, ["card"] * 2), ["dice-king"])
    assert first is not None and second is not None
    assert first.source == "enrolled" and second.source == "enrolled"
    threes = {"dice-king/penalty-6", "dice-king/penalty-7", "dice-king/penalty-8"}
    twos = {"dice-king/penalty-3", "dice-king/penalty-4", "dice-king/penalty-5"}
    assert first.identity in threes and set(first.aliases) == threes
    assert second.identity in twos and set(second.aliases) == twos


def test_an_undecided_card_is_settled_where_its_close_classes_differ(
    identifier: Identifier,
) -> None:
    """DK-4: Dice King's inhabitants of one kind differ only in their number. A card whose two
    best classes nearly tie is compared with them only where their faces differ
    (`IdentifyConfig.detail_look`) and named; when its close classes fill the candidate list
    (another as close may be missing from it) it stays undecided. By default only enrolled
    faces are settled so (the companion art's small print has its trained readers)."""
    from vision.identify import Match

    frame, corners = place([art.face("dice-king/orc-2", 200)], seed=2)
    tie = Match(
        None,
        0.9,
        0.005,
        0,
        "dice-king/orc-3",
        "companion",
        candidates=(("dice-king/orc-3", 0.9), ("dice-king/orc-2", 0.895), ("dice-king/elf-2", 0.7)),
    )
    assert identifier._detail(frame, corners[0], tie) == tie  # a companion face: left alone
    identifier = Identifier(default_gallery(), IdentifyConfig(detail_sources=("companion",)))
    settled = identifier._detail(frame, corners[0], tie)
    assert settled is not None and settled.identity == "dice-king/orc-2"
    assert settled.label == "dice-king/orc-2" and settled.aliases == ("dice-king/orc-2",)
    crowded = replace(tie, candidates=(*tie.candidates[:2], ("dice-king/orc-4", 0.89)))
    assert identifier._detail(frame, corners[0], crowded) == crowded
    turned = np.roll(corners[0], 2, axis=0)  # matched upside down: still read either way up
    settled = identifier._detail(frame, turned, tie)
    assert settled is not None and settled.identity == "dice-king/orc-2"


def test_descriptor_ignores_exposure_and_white_balance() -> None:
    config = IdentifyConfig()
    w, h = thumb_size("card", config)

    def thumb(identity: str) -> np.ndarray:
        return cv2.resize(art.face(identity, 120), (w, h), interpolation=cv2.INTER_AREA)

    face = thumb("dice-king/orc-2")
    changed = np.clip(face.astype(np.float32) * (0.8, 0.86, 0.92) + 10, 0, 255).astype(np.uint8)
    a, b, other = describe(np.stack([face, changed, thumb("dice-king/orc-3")]), config, "card")
    cells = int(np.prod(cell_grid("card", config)))
    assert float(a @ b) / cells > 0.9
    assert float(a @ other) / cells < float(a @ b) / cells - 0.05


def test_rendered_eval_scene_pieces_are_identified_with_few_wrong_guesses(
    identifier: Identifier,
) -> None:
    sample = render_sample(7, 9, game="cafe-international", split="eval", size=(1280, 960))
    decoded = cv2.imdecode(np.frombuffer(sample.jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert decoded is not None
    frame = np.asarray(decoded)
    chosen = [
        o
        for o in sample.truth["objects"]
        if o["kind"] in ("card", "tile") and o["target"] and o["face_up"] and o["identity"]
    ]
    corners = np.array([o["corners"] for o in chosen], np.float32)
    sides = np.linalg.norm(np.roll(corners, -1, axis=1) - corners, axis=2).min(axis=1)
    big = [o for o, s in zip(chosen, sides, strict=True) if s >= 30]
    assert len(big) >= 5
    detections = detections_for(corners, [o["kind"] for o in chosen])
    result = identifier.identify(frame, detections, ["cafe-international"])
    wrong = [
        (o["identity"], got)
        for o, got in zip(chosen, result.identities, strict=True)
        if got is not None and got != o["identity"]
    ]
    # one tile of this scene lies in deep shadow and passes for the other gender: the benchmark
    # (benchmarks/identify_accuracy.py) measures the wrong rate on many scenes
    assert len(wrong) <= max(1, 0.02 * len(chosen))
    correct_big = sum(
        got == o["identity"]
        for o, got, s in zip(chosen, result.identities, sides, strict=True)
        if s >= 30
    )
    assert correct_big >= 0.8 * len(big)


def test_identified_corners_can_be_refined_by_alignment() -> None:
    face = art.face("dice-king/orc-2", 300)  # King's Breakfast cards read the same upside down
    frame, corners = place([face], seed=8, size=(700, 600))
    width = float(np.linalg.norm(corners[0, 1] - corners[0, 0]))
    noisy = corners + np.random.default_rng(2).normal(0, 0.02 * width, corners.shape)
    noisy = noisy.astype(np.float32)
    aligned = Identifier(default_gallery(["dice-king"]), IdentifyConfig(align_corners=True))
    result = aligned.identify(frame, detections_for(np.roll(noisy, 1, axis=1), ["card"]))
    assert result.identities[0] == "dice-king/orc-2"
    before = np.linalg.norm(noisy[0] - corners[0], axis=1).max()
    after = np.linalg.norm(result.corners_px[0] - corners[0], axis=1).max()
    assert after < 0.5 * before and after < 0.01 * width


def test_verification_does_not_guess_between_twins() -> None:
    face = art.face("kings-breakfast/ham", 240)
    twin = face.copy()
    twin[-12:] = (twin[-12:] * 0.97).astype(np.uint8)
    gallery = Gallery(
        (
            Reference("kings-breakfast/ham", "kings-breakfast", "card", face),
            Reference("kings-breakfast/cake", "kings-breakfast", "card", twin),
        )
    )
    config = IdentifyConfig(duplicate_similarity=1.01, verify=True)
    frame, corners = place([face], seed=4)
    (match,) = Identifier(gallery, config).match(frame, detections_for(corners, ["card"]))
    assert match is not None and match.identity is None


def test_detailed_identification_keeps_the_candidates_for_the_ui(identifier: Identifier) -> None:
    frame, corners = place([art.face("cafe-international/cuba/m", 200)])
    detections, matches = identifier.identify_detailed(frame, detections_for(corners, ["tile"]))
    assert detections.identities[0] == "cafe-international/cuba/m"
    listed = candidates_json(matches[0])
    assert listed[0][0] == "cafe-international/cuba/m" and len(listed) == 3
    assert all(isinstance(score, float) for _, score in listed)
    assert candidates_json(None) == []


def garbage_quads(sample_truth: dict, step: float = 90.0) -> tuple[np.ndarray, list[str], int]:
    """Quads a confused detector might report in a rendered scene: piece-sized boxes on bare
    table (no object's box touches them) and boxes astride two neighbouring pieces of a kind.

    Returns the quads, their kinds and how many of them lie on bare table (listed first).
    """
    objects = sample_truth["objects"]
    width, height = sample_truth["width"], sample_truth["height"]
    boxes = np.array([o["box"] for o in objects if len(o.get("box") or ()) == 4], float)
    pieces = [
        o
        for o in objects
        if o["kind"] in ("card", "tile") and o["target"] and o["visible_fraction"] > 0.9
    ]
    table: list[np.ndarray] = []
    kinds: list[str] = []
    for piece in pieces[:6]:
        quad = np.array(piece["corners"], float)
        for dx in np.arange(-600, 601, step):
            for dy in np.arange(-450, 451, step):
                moved = quad + (dx, dy)
                (x0, y0), (x1, y1) = moved.min(axis=0), moved.max(axis=0)
                inside = x0 >= 0 and y0 >= 0 and x1 < width and y1 < height
                clear = not np.any(
                    (boxes[:, 0] < x1 + 4)
                    & (boxes[:, 2] > x0 - 4)
                    & (boxes[:, 1] < y1 + 4)
                    & (boxes[:, 3] > y0 - 4)
                )
                if inside and clear and len(table) < 40:
                    table.append(moved)
                    kinds.append(piece["kind"])
    astride: list[np.ndarray] = []
    for a in pieces:
        qa = np.array(a["corners"], float)
        span = np.linalg.norm(qa[1] - qa[0]) + np.linalg.norm(qa[2] - qa[1])
        for b in pieces:
            qb = np.array(b["corners"], float)
            gap = np.linalg.norm(qb.mean(axis=0) - qa.mean(axis=0))
            if b is not a and b["kind"] == a["kind"] and gap < 0.75 * span:
                astride.append(qa + (qb.mean(axis=0) - qa.mean(axis=0)) / 2)
                kinds.append(a["kind"])
                break
    return np.array(table + astride, np.float32), kinds, len(table)


def test_detector_garbage_on_bare_table_or_astride_two_pieces_is_rarely_identified(
    identifier: Identifier,
) -> None:
    # scenes where such boxes matched a piece clearly before the placement check (a goblin on
    # the tablecloth's pattern, a Chinese tile from halves of two flags: 7 of about 140 boxes);
    # at most one in fifty may still be named
    identified, total = [], 0
    for game, index in [("dice-king", 11), ("cafe-international", 3), ("kings-breakfast", 0)]:
        sample = render_sample(99, index, game=game, split="eval", size=(1280, 960))
        decoded = cv2.imdecode(np.frombuffer(sample.jpeg, np.uint8), cv2.IMREAD_COLOR)
        assert decoded is not None
        quads, kinds, _ = garbage_quads(sample.truth)
        matches = identifier.match(np.asarray(decoded), detections_for(quads, kinds), [game])
        total += len(quads)
        identified += [(game, k, m.identity) for k, m in enumerate(matches) if m and m.identity]
    assert total >= 60
    assert len(identified) <= 0.02 * total, identified


def test_printed_corners_start_at_the_printed_top_left_clockwise() -> None:
    """A `Match.rotation` re-lists a piece's corners from its printed top-left; corners given
    counter-clockwise are read clockwise first; a quad that is no convex quad stays as given."""
    from vision.identify import printed_corners

    square = np.array([[0, 0], [10, 0], [10, 10], [0, 10]], np.float32)
    assert np.array_equal(printed_corners(square, 0), square)
    assert np.array_equal(printed_corners(square, 1), np.roll(square, 1, axis=0))
    assert np.array_equal(printed_corners(square[[0, 3, 2, 1]], 0), square)
    crossed = square[[0, 2, 1, 3]]
    assert np.array_equal(printed_corners(crossed, 2), crossed)
