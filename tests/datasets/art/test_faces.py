"""Companion art faces: each identity renders at its size, deterministically, unlike siblings."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import datasets.art as art
from datasets.art import dice_king as dk
from datasets.art import kings_breakfast as kb

ROOT = Path(__file__).resolve().parents[3]
FOODS = ("ham", "cheese", "bread", "cake", "wine", "fruit", "chicken")
NATIONALITIES = ("africa", "china", "cuba", "france", "germany", "india", "italy", "russia",
                 "spain", "turkey", "uk", "usa")  # fmt: skip


def test_kings_breakfast_identities_follow_the_contract() -> None:
    """KB-1, KB-2: seven foods and the Emerald."""
    assert art.identities("kings-breakfast") == [f"kings-breakfast/{f}" for f in FOODS] + [
        "kings-breakfast/emerald"
    ]


def test_cafe_identities_follow_the_contract() -> None:
    """CI-2: 12 nationalities × women and men, plus jokers of both genders."""
    ids = art.identities("cafe-international")
    assert len(ids) == 26
    assert {f"cafe-international/{n}/{g}" for n in NATIONALITIES for g in "wm"} < set(ids)
    assert {"cafe-international/joker/w", "cafe-international/joker/m"} < set(ids)


def test_dice_king_identities_come_from_the_deck_data() -> None:
    """DK-2..DK-4: every inhabitant, village and penalty card of the companion deck."""
    ids = art.identities("dice-king")
    data = ROOT / "engines" / "dice_king" / "data"
    if (data / "companion_deck.json").is_file():
        expected = [c["id"] for c in json.loads((data / "companion_deck.json").read_text())]
        assert [f"dice-king/{i}" for i in expected] == ids[: len(expected)]
    kinds = [dk.card_kind(dk.card_by_id(i.partition("/")[2])) for i in ids]  # type: ignore[arg-type]
    assert kinds.count("village") == 15
    assert kinds.count("penalty") >= 1 and kinds.count("inhabitant") >= 10
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("game", art.GAMES)
@pytest.mark.parametrize("width", [33, 96])
def test_every_face_and_back_has_the_size_of_its_piece(game: str, width: int) -> None:
    for identity in art.identities(game):
        w_mm, h_mm = art.piece_size_mm(identity)
        img = art.face(identity, width)
        assert img.dtype == np.uint8 and img.shape == (round(width * h_mm / w_mm), width, 3)
    back = art.back(game, width)
    assert back.shape == (round(width * h_mm / w_mm), width, 3)


def test_faces_are_the_same_bytes_when_drawn_again() -> None:
    for identity in ("kings-breakfast/cheese", "cafe-international/italy/w", "dice-king/orc-1"):
        if identity not in set(art.identities(identity.partition("/")[0])):
            continue
        first = art.face(identity, 120)
        art._cached_face.cache_clear()
        assert first.tobytes() == art.face(identity, 120).tobytes()
    assert kb.draw_back(100).tobytes() == kb.draw_back(100).tobytes()


def test_face_returns_a_copy_the_caller_may_change() -> None:
    img = art.face("kings-breakfast/ham", 64)
    img[:] = 0
    assert art.face("kings-breakfast/ham", 64).any()


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: art.face("kings-breakfast/bacon", 64), "unknown piece 'kings-breakfast/bacon'"),
        (lambda: art.face("chess/king", 64), "unknown piece 'chess/king'"),
        (lambda: art.face("cafe-international/italy/x", 64), "unknown piece"),
        (lambda: art.piece_size_mm("dice-king/nobody"), "unknown piece 'dice-king/nobody'"),
        (lambda: art.back("chess", 64), "unknown game 'chess'"),
        (lambda: art.identities("chess"), "unknown game 'chess'"),
        (lambda: art.face("kings-breakfast/ham", 2), "bad width_px 2"),
    ],
)
def test_bad_input_is_a_one_line_value_error(call, message: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=message):
        call()


def test_piece_sizes_are_the_documented_ones() -> None:
    assert art.piece_size_mm("kings-breakfast/wine") == (57.0, 89.0)
    assert art.piece_size_mm("cafe-international/uk/m") == (24.0, 24.0)
    assert art.piece_size_mm(art.identities("dice-king")[0]) == (63.0, 88.0)
    assert 0 < art.piece_corner_radius_mm("kings-breakfast/wine") < 10


# -- siblings differ -----------------------------------------------------------------------------
def _hue_histogram(img: np.ndarray) -> np.ndarray:
    hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
    mask = (hsv[..., 1] > 60).astype(np.uint8)  # coloured pixels only
    hist = cv2.calcHist([hsv], [0, 1], mask, [18, 4], [0, 180, 0, 256]).ravel()
    return hist / max(float(hist.sum()), 1.0)


def _edges(img: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    return cv2.dilate(cv2.Canny(grey, 60, 140), np.ones((3, 3), np.uint8)) > 0


def _shape_overlap(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of the edges in the middle of two cards (medallion, pictogram)."""
    h = a.shape[0]
    middle = slice(int(h * 0.2), int(h * 0.8))
    ea, eb = _edges(a[middle]), _edges(b[middle])
    return float((ea & eb).sum()) / float((ea | eb).sum())


def test_kb_foods_differ_in_colour_and_in_shape() -> None:
    """KB-2: the foods are told apart by colour and picture."""
    kinds = [*FOODS, "emerald"]
    faces = {k: art.face(f"kings-breakfast/{k}", 160) for k in kinds}
    for a, b in itertools.combinations(kinds, 2):
        colour_distance = np.abs(_hue_histogram(faces[a]) - _hue_histogram(faces[b])).sum() / 2
        assert colour_distance > 0.35, (a, b, colour_distance)
        overlap = _shape_overlap(faces[a], faces[b])
        assert overlap < 0.55, (a, b, overlap)


def _perceptual_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Mean absolute difference of blurred Lab images (0–255 scale)."""
    la = cv2.cvtColor(cv2.GaussianBlur(a, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    lb = cv2.cvtColor(cv2.GaussianBlur(b, (5, 5), 0), cv2.COLOR_BGR2LAB).astype(np.float32)
    return float(np.abs(la - lb).mean())


def test_every_two_cafe_tiles_differ_visibly() -> None:
    """CI-2: nationality and gender are both readable: any two tile faces differ."""
    ids = art.identities("cafe-international")
    faces = [art.face(i, 64) for i in ids]
    for (ia, a), (ib, b) in itertools.combinations(zip(ids, faces, strict=True), 2):
        assert _perceptual_distance(a, b) > 4.0, (ia, ib)


def test_women_and_men_tiles_differ_in_the_band() -> None:
    """CI-10 needs gender at a glance: the band under the flag is light for women, dark for men."""
    for n in NATIONALITIES:
        w = cv2.cvtColor(art.face(f"cafe-international/{n}/w", 96), cv2.COLOR_BGR2GRAY)
        m = cv2.cvtColor(art.face(f"cafe-international/{n}/m", 96), cv2.COLOR_BGR2GRAY)
        band = slice(70, 90)
        assert w[band].mean() > m[band].mean() + 80, n


def test_every_two_dice_king_cards_differ_visibly() -> None:
    ids = art.identities("dice-king")
    faces = [art.face(i, 64) for i in ids]
    for (ia, a), (ib, b) in itertools.combinations(zip(ids, faces, strict=True), 2):
        if ia.split("/")[1].startswith("penalty") and ib.split("/")[1].startswith("penalty"):
            # penalties with equal value are interchangeable copies of one card face
            va = dk._points(dk.card_by_id(ia.split("/")[1]))  # type: ignore[arg-type]
            vb = dk._points(dk.card_by_id(ib.split("/")[1]))  # type: ignore[arg-type]
            if va == vb:
                continue
        assert _perceptual_distance(a, b) > 1.0, (ia, ib)


def test_inhabitant_band_has_its_location_colour() -> None:
    """DK-4: each inhabitant shows the colour of its location."""
    from datasets.art.palette import LOCATION_COLOURS

    for card in dk.deck():
        if dk.card_kind(card) != "inhabitant":
            continue
        img = art.face(f"dice-king/{card['id']}", 126)
        # a patch of the top band right of the points badge, under no text
        patch = img[10:13, 100:110].reshape(-1, 3).astype(int).mean(axis=0)
        expected = np.array(LOCATION_COLOURS[card["colour"]])
        assert np.abs(patch - expected).max() < 30, (card["id"], patch, expected)


def test_contact_sheet_shows_a_game_with_dice_and_foreign_pieces() -> None:
    from datasets.art.__main__ import contact_sheet

    sheet = contact_sheet(("kings-breakfast",), 40)
    assert sheet.dtype == np.uint8 and sheet.ndim == 3
    assert sheet.shape[0] > 40 * 89 / 57 + 20 and sheet.shape[1] >= 9 * 40
