"""The Café board and its markers, dice styles and faces, foreign pieces."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

import datasets.art as art
from datasets.art import dice
from datasets.art.cafe_international import MARKER_NAMES, load_layout
from vision.geometry import board_markers_units, is_convex_clockwise, layout_spacing

ROOT = Path(__file__).resolve().parents[3]
PLACEHOLDER = ROOT / "datasets" / "art" / "placeholder_layout.json"


def _layouts() -> list[dict]:
    return [load_layout(PLACEHOLDER), art.default_layout()]


# -- board --------------------------------------------------------------------------------------
@pytest.mark.parametrize("which", [0, 1])
def test_board_markers_are_where_they_are_said_to_be(which: int) -> None:
    """Each marker's returned corners bound its black square: black inside, white outside."""
    b = art.board(_layouts()[which], 1.5)
    grey = cv2.cvtColor(b.image, cv2.COLOR_BGR2GRAY)
    assert set(b.markers) == set(MARKER_NAMES)
    for name, corners in b.markers.items():
        assert corners.shape == (4, 2) and corners.dtype == np.float32
        centre = corners.mean(axis=0)
        for corner in corners:
            inward = corner + np.sign(centre - corner) * 1.0
            outward = corner - np.sign(centre - corner) * 1.0
            assert grey[int(round(inward[1])), int(round(inward[0]))] < 60, name
            assert grey[int(round(outward[1])), int(round(outward[0]))] > 200, name


def test_board_markers_are_found_by_opencv_aruco_with_their_ids() -> None:
    b = art.board(art.default_layout(), 1.2)
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50))
    corners, ids, _ = detector.detectMarkers(b.image)
    assert ids is not None and sorted(ids.ravel().tolist()) == list(range(8))
    for c, i in zip(corners, ids.ravel(), strict=True):
        name = MARKER_NAMES[int(i)]
        assert b.marker_ids[name] == int(i)
        np.testing.assert_allclose(c[0], b.markers[name], atol=1.5)


@pytest.mark.parametrize("which", [0, 1])
def test_board_markers_are_drawn_where_the_shared_spec_says(which: int) -> None:
    """The art draws each marker where `vision.geometry.board_markers_units` (the reader's
    source) puts it: the same spec file, so the board and the reader cannot drift."""
    layout = _layouts()[which]
    b = art.board(layout, 1.3)
    for marker in board_markers_units(layout):
        expected = np.column_stack([marker.corners_units, np.ones(4)]) @ b.unit_to_px.T
        np.testing.assert_allclose(b.markers[marker.name], expected[:, :2], atol=1e-3)
        assert b.marker_ids[marker.name] == marker.marker_id


def test_board_marker_spec_has_distinct_ids_and_disjoint_upright_squares() -> None:
    """The shared spec: one id per marker, squares of equal side that do not touch (quiet zones
    included), corners clockwise from the marker's top left."""
    layout = art.default_layout()
    d = layout_spacing(layout)
    assert d == pytest.approx(60.0)
    markers = board_markers_units(layout)
    assert len({m.marker_id for m in markers}) == len(markers) == 8
    sides = {round(float(m.corners_units[1, 0] - m.corners_units[0, 0]), 6) for m in markers}
    assert sides == {round(1.2 * d, 6)}
    for m in markers:
        assert is_convex_clockwise(m.corners_units)
    boxes = [(m.corners_units.min(axis=0), m.corners_units.max(axis=0)) for m in markers]
    for i, (lo_a, hi_a) in enumerate(boxes):
        for lo_b, hi_b in boxes[i + 1 :]:
            gap = np.maximum(lo_b - hi_a, lo_a - hi_b).max()
            assert gap > 2 * 0.15 * d


def test_board_markers_leave_tables_chairs_and_stools_uncovered() -> None:
    """Every marker with its quiet zone lies outside the drawn tables, chairs and stools."""
    layout = art.default_layout()
    d = layout_spacing(layout)
    squares = [m.corners_units for m in board_markers_units(layout)]
    # (centre, how far its drawing reaches: a table's disc, a chair's half side, a stool's disc)
    reach = [(t["center"], 0.7 * d) for t in layout["tables"]]
    reach += [(c["center"], 0.3 * d) for c in layout["chairs"]]
    reach += [(s, 0.3 * d) for s in layout["bar"]["stools"]]
    for square in squares:
        lo, hi = square.min(axis=0) - 0.15 * d, square.max(axis=0) + 0.15 * d
        for p, r in reach:
            gap = np.abs(np.asarray(p, float) - np.clip(p, lo, hi)).max()
            assert gap > r, (p, square.tolist())


def test_board_unit_to_px_maps_tables_chairs_and_stools_onto_their_drawings() -> None:
    """CI-3, CI-4: every table, chair and stool of the layout is drawn where the matrix says."""
    layout = art.default_layout()
    b = art.board(layout, 1.0)
    m = b.unit_to_px
    assert m.shape == (3, 3) and m.dtype == np.float64
    floor = {(0xB4, 0xD8, 0xE9), (0xA6, 0xCF, 0xE2)}

    def pixel(p: list[float]) -> tuple[int, int, int]:
        x, y, _ = m @ np.array([p[0], p[1], 1.0])
        return tuple(int(v) for v in b.image[int(round(y)), int(round(x))])  # type: ignore[return-value]

    for chair in layout["chairs"]:
        assert pixel(chair["center"]) not in floor, chair["id"]
    for stool in layout["bar"]["stools"]:
        b_, g, r = pixel(stool)
        assert r > 150 and g < 120, stool  # a red stool
    # a table centre shows its flag: not the floor, not the white table top
    for table in layout["tables"]:
        assert pixel(table["center"]) not in floor | {(0xEE, 0xF6, 0xFA)}, table["id"]


def test_board_scales_with_px_per_unit_and_rejects_bad_input() -> None:
    layout = load_layout(PLACEHOLDER)
    small, big = art.board(layout, 1.0), art.board(layout, 2.0)
    assert abs(big.image.shape[1] - 2 * small.image.shape[1]) <= 2
    np.testing.assert_allclose(big.unit_to_px[:2, :2], 2 * small.unit_to_px[:2, :2])
    with pytest.raises(ValueError, match="px_per_unit"):
        art.board(layout, 0.0)
    with pytest.raises(ValueError, match="layout without positions"):
        art.board({"tables": [{"id": "T1", "nationality": "italy"}], "chairs": []}, 1.0)
    bad = {
        "tables": [{"id": "T1", "nationality": "atlantis", "center": [50, 50]}],
        "chairs": [{"id": "C1", "tables": ["T1"], "center": [50, 20]}],
    }
    with pytest.raises(ValueError, match="unknown nationality 'atlantis'"):
        art.board(bad, 1.0)


def test_board_is_deterministic() -> None:
    layout = load_layout(PLACEHOLDER)
    assert art.board(layout, 1.0).image.tobytes() == art.board(layout, 1.0).image.tobytes()


# -- dice ---------------------------------------------------------------------------------------
def test_pip_layout_has_value_pips_inside_the_unit_square() -> None:
    for v in range(1, 7):
        pts = art.pip_layout(v)
        assert len(pts) == v and len(set(pts)) == v
        assert all(0 < x < 1 and 0 < y < 1 for x, y in pts)
    with pytest.raises(ValueError, match="unknown die value 7"):
        art.pip_layout(7)


def _count_pips(face: np.ndarray, pip: tuple[int, int, int]) -> int:
    distance = np.abs(face.astype(int) - np.array(pip)).sum(axis=2)
    mask = (distance < 90).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    return int((stats[1:, cv2.CC_STAT_AREA] > 8).sum())


def test_die_face_shows_value_pips() -> None:
    style = dice.DieStyle(body_bgr=(245, 245, 245), pip_bgr=(20, 20, 20), corner_radius=0.1)
    for v in range(1, 7):
        face = art.die_face(v, style, 64)
        assert face.shape == (64, 64, 3) and face.dtype == np.uint8
        assert _count_pips(face, (20, 20, 20)) == v


def _pip_centres(face: np.ndarray, pip: tuple[int, int, int]) -> np.ndarray:
    distance = np.abs(face.astype(int) - np.array(pip)).sum(axis=2)
    mask = (distance < 90).astype(np.uint8)
    n, _, stats, centroids = cv2.connectedComponentsWithStats(mask)
    keep = stats[1:, cv2.CC_STAT_AREA] > 8
    return centroids[1:][keep] / face.shape[0]


def test_pip_spread_moves_the_outer_pips_towards_the_centre() -> None:
    """Real dice often set their pips closer to the centre than the classic quarter layout."""
    assert art.pip_layout(4, 0.2) == [(0.3, 0.3), (0.7, 0.3), (0.3, 0.7), (0.7, 0.7)]
    assert art.pip_layout(1, 0.2) == art.pip_layout(1) == [(0.5, 0.5)]
    for bad in (0.05, 0.45):
        with pytest.raises(ValueError, match="pip spread"):
            art.pip_layout(2, bad)
    classic = dice.DieStyle(body_bgr=(245, 245, 245), pip_bgr=(20, 20, 20), corner_radius=0.0)
    close = dice.DieStyle(
        body_bgr=(245, 245, 245), pip_bgr=(20, 20, 20), corner_radius=0.0, pip_spread=0.19
    )
    for v in range(2, 7):
        wide = np.abs(_pip_centres(art.die_face(v, classic, 96), (20, 20, 20)) - 0.5).max()
        near = np.abs(_pip_centres(art.die_face(v, close, 96), (20, 20, 20)) - 0.5).max()
        assert wide == pytest.approx(0.25, abs=0.02) and near == pytest.approx(0.19, abs=0.02)
        assert _count_pips(art.die_face(v, close, 96), (20, 20, 20)) == v


def test_train_dice_vary_their_pip_spread_and_eval_dice_keep_the_classic_one() -> None:
    rng = np.random.default_rng(3)
    train = [art.random_die_style(rng, "train") for _ in range(300)]
    spreads = np.array([s.pip_spread for s in train])
    assert spreads.min() >= 0.19 and spreads.max() <= 0.29 and spreads.std() > 0.02
    # pips never touch: the spread keeps a gap of at least a fifth of a pip between neighbours
    assert all(s.pip_spread >= 1.2 * s.pip_size for s in train)
    rng = np.random.default_rng(3)
    assert all(art.random_die_style(rng, "eval").pip_spread == 0.25 for _ in range(100))
    assert all(art.dice_king_style(i).pip_spread == 0.25 for i in range(6))


def test_dice_king_dice_follow_the_data_file() -> None:
    """DK-1: each die has two red, two green and two blue faces; colours as in the data."""
    path = ROOT / "engines" / "dice_king" / "data" / "companion_dice.json"
    data = json.loads(path.read_text()) if path.is_file() else None
    for i in range(6):
        style = art.dice_king_style(i)
        colours = [style.colour_of(v) for v in range(1, 7)]
        assert sorted(c or "" for c in colours) == ["b", "b", "g", "g", "r", "r"]
        if data is not None:
            assert colours == [data[i][str(v)] for v in range(1, 7)]
        assert style.wood
        face = art.die_face(5, style, 64)
        pip = style.pip_colour(5)
        assert _count_pips(face, pip) == 5
    with pytest.raises(ValueError):
        art.dice_king_style(6)


def test_random_die_styles_are_seeded_and_varied() -> None:
    a = [art.random_die_style(np.random.default_rng(7)) for _ in range(2)]
    assert a[0] == a[1]
    rng = np.random.default_rng(0)
    styles = [art.random_die_style(rng) for _ in range(200)]
    assert {s.pip_shape for s in styles} == {"round", "square", "engraved"}
    assert any(s.translucent for s in styles) and any(s.marbled for s in styles)
    assert any(s.corner_radius == 0 for s in styles) and any(s.corner_radius > 0.1 for s in styles)
    assert len({s.family for s in styles}) >= 12
    assert all(s.colour_of(1) is None for s in styles)


def test_eval_dice_use_colour_families_never_made_for_train() -> None:
    rng = np.random.default_rng(1)
    train = [art.random_die_style(rng, "train") for _ in range(300)]
    evals = [art.random_die_style(rng, "eval") for _ in range(300)]

    def families(styles: list[dice.DieStyle]) -> set[str]:
        names: set[str] = set()
        for s in styles:
            names |= set(s.family.removeprefix("marbled_").split("_")) - {"translucent"}
        return names

    assert not families(train) & families(evals)

    def pip_colours(styles: list[dice.DieStyle]) -> set[tuple[int, int, int]]:
        out: set[tuple[int, int, int]] = set()
        for s in styles:
            if s.pip_shape != "engraved":
                out |= {s.pip_colour(v) for v in range(1, 7)}
        return out

    assert not pip_colours(train) & pip_colours(evals)
    with pytest.raises(ValueError, match="unknown split 'test'"):
        art.random_die_style(rng, "test")


@pytest.mark.parametrize("seed", range(6))
def test_every_random_die_face_renders(seed: int) -> None:
    style = art.random_die_style(np.random.default_rng(seed), "eval" if seed % 2 else "train")
    faces = [art.die_face(v, style, 40) for v in range(1, 7)]
    assert all(f.shape == (40, 40, 3) for f in faces)
    assert len({f.tobytes() for f in faces}) == 6
    assert art.die_face(3, style, 40).tobytes() == faces[2].tobytes()


# -- foreign pieces -----------------------------------------------------------------------------
@pytest.mark.parametrize(("kind", "aspect"), [("card", 1.4), ("tile", 1.0), ("tile", 0.5)])
def test_foreign_faces_have_the_asked_size_and_vary_with_the_rng(kind: str, aspect: float) -> None:
    rng = np.random.default_rng(3)
    faces = [art.foreign_face(kind, rng, 90, aspect) for _ in range(12)]
    assert all(f.shape == (round(90 * aspect), 90, 3) and f.dtype == np.uint8 for f in faces)
    means = np.array([f.reshape(-1, 3).mean(axis=0) for f in faces])
    assert means.std(axis=0).mean() > 10  # colours vary
    assert len({f.tobytes() for f in faces}) == 12


def test_foreign_faces_are_seeded() -> None:
    a = art.foreign_face("card", np.random.default_rng(5), 64, 1.5)
    b = art.foreign_face("card", np.random.default_rng(5), 64, 1.5)
    assert a.tobytes() == b.tobytes()
    with pytest.raises(ValueError, match="unknown foreign kind 'coin'"):
        art.foreign_face("coin", np.random.default_rng(0), 64, 1.0)


def test_foreign_faces_do_not_look_like_our_cards() -> None:
    """Foreign art is not ours: no foreign card is a near copy of a companion face."""
    ours = [art.face(i, 48) for i in art.identities("kings-breakfast")]
    rng = np.random.default_rng(11)
    for _ in range(20):
        f = art.foreign_face("card", rng, 48, 89 / 57)
        for o in ours:
            assert np.abs(f.astype(int) - o.astype(int)).mean() > 10
