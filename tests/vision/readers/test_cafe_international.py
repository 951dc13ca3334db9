"""Café International reader: registration (markers, user corners), chairs, stools, hands."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest

import engines.cafe_international as ci
from tests.vision.readers.factories import detections, piece
from vision.geometry import homography_from_corners, layout_spacing, project_points
from vision.readers.cafe_international import (
    CafeReaderConfig,
    Registration,
    RegistrationError,
    companion_marker_units,
    find_markers,
    layout_extent,
    load_board_corners,
    printed_board_corners_units,
    read_frame,
    read_spread,
    read_table,
    register_companion_board,
    register_frame,
    register_points,
    register_printed_board,
    save_board_corners,
    structure_score,
)

LAYOUT_JSON = json.loads(
    (
        Path(__file__).resolve().parents[3]
        / "engines/cafe_international/data/reference_layout.json"
    ).read_text(encoding="utf-8")
)
LAYOUT = ci.reference_layout()
# a frame that shows every side's hand place (`CafeReaderConfig.hand_place`)
SIZE = (1300, 1150)
SHIFT = (200.0, 200.0)


def _registration():  # type: ignore[no-untyped-def]
    """Board units → image: a known similarity (scale 1, shifted by `SHIFT`)."""
    u0, v0, u1, v1 = layout_extent(LAYOUT_JSON)
    units = np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]])
    return register_points(units, units + SHIFT, (u0, v0, u1, v1))


def _at_units(u: float, v: float, identity: str | None) -> dict:
    return piece("tile", (u + SHIFT[0], v + SHIFT[1]), identity, half=8.0)


def _chair(chair_id: str) -> tuple[float, float]:
    return next(tuple(c["center"]) for c in LAYOUT_JSON["chairs"] if c["id"] == chair_id)


def test_ci3_tiles_sit_on_their_chairs_and_stools() -> None:
    """CI-3, CI-14: a tile near a chair sits on it; near a stool, at the bar (in stool order)."""
    stools = LAYOUT_JSON["bar"]["stools"]
    tiles = [
        _at_units(*_chair("C01"), "cafe-international/china/w"),
        _at_units(stools[0][0] + 3, stools[0][1], "cafe-international/italy/m"),
        _at_units(stools[1][0], stools[1][1] - 2, "cafe-international/uk/w"),
    ]
    reading = read_table(detections(tiles), SIZE, _registration(), LAYOUT, LAYOUT_JSON)
    assert reading.ok
    assert reading.observation.seated_by_chair(LAYOUT) == {"C01": "china/w"}
    assert reading.observation.bar == ("italy/m", "uk/w")
    assert reading.observation.hands is None


def test_ci6_tiles_beside_the_board_are_the_players_face_up_hands() -> None:
    """CI-6: hands lie face up beside the board, one side per player."""
    u0, v0, u1, v1 = layout_extent(LAYOUT_JSON)
    tiles = [
        _at_units((u0 + u1) / 2, v1 + 40, "cafe-international/cuba/w"),
        _at_units((u0 + u1) / 2, v0 - 40, "cafe-international/joker/m"),
    ]
    reading = read_table(detections(tiles), SIZE, _registration(), LAYOUT, LAYOUT_JSON, n_players=2)
    assert reading.ok and reading.observation.hands == (("cuba/w",), ("joker/m",))


def test_ci6_a_hand_whose_place_the_frame_cuts_is_not_read() -> None:
    """CI-6: a frame whose bottom edge cuts the near player's hand place (the tablet stands at
    that edge) leaves that hand unknown (None, with the reason): tiles beyond the edge would
    be missing from it. The other hands are read; with the whole place in view it is read."""
    u0, v0, u1, v1 = layout_extent(LAYOUT_JSON)
    mid_u, mid_v = (u0 + u1) / 2, (v0 + v1) / 2
    tiles = [
        _at_units(mid_u, v1 + 100, "cafe-international/cuba/w"),
        _at_units(u0 - 100, mid_v, "cafe-international/uk/m"),
        _at_units(mid_u, v0 - 100, "cafe-international/joker/m"),
        _at_units(u1 + 100, mid_v, "cafe-international/india/w"),
    ]
    cut = (SIZE[0], int(v1 + SHIFT[1] + 120))  # the near hand's tile in view, its place not
    reading = read_table(detections(tiles), cut, _registration(), LAYOUT, LAYOUT_JSON, n_players=4)
    assert reading.ok
    assert reading.observation.hands == (None, ("uk/m",), ("joker/m",), ("india/w",))
    assert reading.seen["hands_unread_sides"] == ["near"]
    assert "outside the camera's view" in reading.seen["hands_unread"][0]
    # told on the table screen (its first note): moving the tablet fixes it
    assert reading.seen["notes"] == ["the near player's hand lies partly outside the camera's view"]
    whole = read_table(detections(tiles), SIZE, _registration(), LAYOUT, LAYOUT_JSON, n_players=4)
    assert whole.observation.hands == (("cuba/w",), ("uk/m",), ("joker/m",), ("india/w",))
    unchecked = read_table(
        detections(tiles),
        cut,
        _registration(),
        LAYOUT,
        LAYOUT_JSON,
        n_players=4,
        config=CafeReaderConfig(hand_place=None),
    )
    assert unchecked.observation.hands[0] == ("cuba/w",)


def test_ci6_a_hand_place_beyond_the_horizon_is_out_of_view() -> None:
    """A steep view whose horizon runs between the board and the far hand place: the far
    place's corners map behind the camera (their division lands them inside the frame, upside
    down), and that hand is out of view; the near one is in it."""
    from vision.readers.cafe_international import Registration, hands_out_of_view

    extent = layout_extent(LAYOUT_JSON)
    v0 = extent[1]
    # weight w = 0.3 + (v - v0) / 100: positive over the board, negative from 30 units beyond
    # its far side, so the whole far hand place (60-140 units beyond) is behind the camera;
    # there x and y are negative too, and their quotients land inside the frame
    homography = np.array([[1.0, 2.0, -400.0], [0.0, 1.0, 0.0], [0.0, 0.01, 0.3 - 0.01 * v0]])
    registration = Registration(homography, extent)
    size = (100_000, 100_000)
    assert hands_out_of_view(("near", "far"), size, registration, (60.0, 140.0, 110.0)) == ["far"]
    assert hands_out_of_view(("near",), size, registration, None) == []


def test_ci6_an_unreadable_hand_leaves_that_hand_unread_not_the_board() -> None:
    """CI-6: a tile beside the board that cannot be identified makes that player's hand unknown
    (None, with the reason and the side in `seen`), while the other hands and the board's
    guests are still read; nothing is guessed."""
    u0, v0, u1, v1 = layout_extent(LAYOUT_JSON)
    tiles = [
        _at_units(*_chair("C01"), "cafe-international/china/w"),
        _at_units((u0 + u1) / 2, v1 + 40, "cafe-international/cuba/w"),
        _at_units((u0 + u1) / 2, v0 - 40, None),
    ]
    reading = read_table(detections(tiles), SIZE, _registration(), LAYOUT, LAYOUT_JSON, n_players=2)
    assert reading.ok
    assert reading.observation.seated_by_chair(LAYOUT) == {"C01": "china/w"}
    assert reading.observation.hands == (("cuba/w",), None)
    assert reading.seen["hands_unread"] == ["a tile beside the board could not be identified"]
    assert reading.seen["hands_unread_sides"] == ["far"]
    # a tile on a side where nobody sits: no hand can be trusted
    stray = [*tiles[:2], _at_units(u0 - 40, (v0 + v1) / 2, "cafe-international/usa/m")]
    reading = read_table(detections(stray), SIZE, _registration(), LAYOUT, LAYOUT_JSON, n_players=2)
    assert reading.ok and reading.observation.hands is None
    # the same unidentified tile on the board blocks the reading
    on_board = [*tiles[:2], _at_units(*_chair("C02"), None)]
    blocked = read_table(detections(on_board), SIZE, _registration(), LAYOUT, LAYOUT_JSON)
    assert blocked.observation is None
    assert "a tile on the board could not be identified" in blocked.problems


def test_ci9_two_tiles_on_a_chair_and_a_tile_between_chairs_are_problems() -> None:
    """CI-9: one guest per chair; a tile that is on no chair is not placed by guess."""
    x, y = _chair("C01")
    tiles = [
        _at_units(x, y, "cafe-international/china/w"),
        _at_units(x + 2, y, "cafe-international/china/m"),
        _at_units(x + 30, y + 30, "cafe-international/uk/m"),
    ]
    reading = read_table(detections(tiles), SIZE, _registration(), LAYOUT, LAYOUT_JSON)
    assert reading.observation is None
    assert "two tiles on chair C01" in reading.problems
    assert any(p.startswith("a tile (uk/m) lies between chairs") for p in reading.problems)


def test_an_unidentified_tile_on_a_marker_is_the_marker_not_a_piece() -> None:
    """A detector may take a registration marker for a tile: unidentified there, it is ignored;
    the same detection elsewhere on the board is a problem."""
    base = _registration()
    corners = companion_marker_units(LAYOUT_JSON)[0]
    (m0, n0), (m1, n1) = corners.min(axis=0), corners.max(axis=0)
    registration = Registration(base.homography, base.extent_units, ((m0, n0, m1, n1),))
    x, y = corners.mean(axis=0)
    on_marker = [_at_units(x, y, None), _at_units(*_chair("C01"), "cafe-international/uk/w")]
    reading = read_table(detections(on_marker), SIZE, registration, LAYOUT, LAYOUT_JSON)
    assert reading.ok and reading.observation.seated_by_chair(LAYOUT) == {"C01": "uk/w"}
    elsewhere = [_at_units(*_chair("C02"), None)]
    reading = read_table(detections(elsewhere), SIZE, registration, LAYOUT, LAYOUT_JSON)
    assert reading.problems == ("a tile on the board could not be identified",)
    np.testing.assert_array_equal(
        registration.is_on_marker(np.array([[x, y], [x + 200.0, y + 200.0]])), [True, False]
    )


def test_ci14_a_gap_at_the_bar_is_a_problem() -> None:
    """CI-14: bar stools are filled in order."""
    stools = LAYOUT_JSON["bar"]["stools"]
    tiles = [_at_units(stools[1][0], stools[1][1], "cafe-international/uk/w")]
    reading = read_table(detections(tiles), SIZE, _registration(), LAYOUT, LAYOUT_JSON)
    assert reading.problems == ("the bar has a gap: stools are filled in order (CI-14)",)


def test_printed_board_corners_are_remembered_per_layout(tmp_path: Path) -> None:
    """A printed board: four tapped corners register it and are remembered per layout."""
    corners = [[100, 80], [900, 90], [920, 700], [80, 690]]
    save_board_corners("my-board", corners, SIZE, tmp_path)
    loaded = load_board_corners("my-board", SIZE, tmp_path)
    assert loaded is not None
    np.testing.assert_allclose(loaded, corners, atol=1e-6)
    assert load_board_corners("other", SIZE, tmp_path) is None
    registration = register_printed_board(loaded, LAYOUT_JSON)
    u0, v0, _, _ = registration.extent_units
    np.testing.assert_allclose(
        registration.image_to_units(np.array([[100.0, 80.0]]))[0], (u0, v0), atol=1e-6
    )
    with pytest.raises(RegistrationError, match="needs 4 matching points"):
        register_points([[0, 0]], [[1, 1]], (0, 0, 1, 1))


@cache
def _rendered_board() -> tuple[np.ndarray, dict]:
    from datasets.state_render import render_state

    state = ci.new_game(["Anna", "Ben"])
    return render_state("cafe-international", state, 1, size=(1280, 960))


def test_ci3_the_companion_board_is_registered_from_its_markers() -> None:
    """CI-3: the rendered companion board's ArUco markers give the board's homography; the
    chairs land where the renderer drew them (within a few pixels)."""
    image, truth = _rendered_board()
    assert len(find_markers(image)) >= 2
    registration = register_companion_board(image, LAYOUT_JSON)
    from datasets.render.camera import look_at_table
    from datasets.render.layouts import board_unit_to_local_mm

    camera = look_at_table(
        1280,
        960,
        **{
            k: truth["camera"][k]
            for k in ("target_mm", "distance_mm", "tilt_deg", "azimuth_deg", "roll_deg", "hfov_deg")
        },
    )
    units = np.array([c["center"] for c in LAYOUT_JSON["chairs"][:5]], float)
    mm = board_unit_to_local_mm(units)
    expected = camera.project(np.column_stack([mm, np.full(len(mm), 1.5)]))
    got = registration.homography @ np.column_stack([units, np.ones(len(units))]).T
    got = (got[:2] / got[2]).T
    np.testing.assert_allclose(got, expected, atol=4.0)


def _cover_markers(image: np.ndarray, truth: dict, ids: set[int]) -> np.ndarray:
    """`image` with the markers `ids` painted over (a hand or a cup), located through the
    camera of `truth`."""
    from datasets.render.layouts import board_unit_to_local_mm

    camera = _camera(truth)
    out = image.copy()
    for marker_id, corners in companion_marker_units(LAYOUT_JSON).items():
        if marker_id in ids:
            centre, half = corners.mean(axis=0), 1.3 * (corners - corners.mean(axis=0))
            mm = board_unit_to_local_mm(centre + half)
            quad = camera.project(np.column_stack([mm, np.full(4, 1.5)]))
            cv2.fillConvexPoly(out, np.round(quad).astype(np.int32), (90, 120, 150))
    return out


def _camera(truth: dict):  # type: ignore[no-untyped-def]
    from datasets.render.camera import look_at_table

    keys = ("target_mm", "distance_mm", "tilt_deg", "azimuth_deg", "roll_deg", "hfov_deg")
    return look_at_table(1280, 960, **{k: truth["camera"][k] for k in keys})


def _chair_error_px(registration, truth: dict) -> float:  # type: ignore[no-untyped-def]
    from datasets.render.layouts import board_unit_to_local_mm

    units = np.array([c["center"] for c in LAYOUT_JSON["chairs"]], float)
    mm = board_unit_to_local_mm(units)
    expected = _camera(truth).project(np.column_stack([mm, np.full(len(mm), 1.5)]))
    got = project_points(registration.homography, units)
    return float(np.abs(got - expected).max())


def test_ci3_the_board_is_registered_with_a_hand_over_two_markers() -> None:
    """CI-3: with two of the eight markers covered (a hand, a cup) the others still register
    the board, every chair within a few pixels."""
    image, truth = _rendered_board()
    covered = _cover_markers(image, truth, {0, 4})
    assert not {0, 4} & set(find_markers(covered))
    assert _chair_error_px(register_companion_board(covered, LAYOUT_JSON), truth) < 5.0


def test_markers_along_one_edge_only_are_refused() -> None:
    """Only the near edge's markers visible: the far side is not fixed, so no registration."""
    image, truth = _rendered_board()
    covered = _cover_markers(image, truth, {0, 1, 4, 5, 7})
    with pytest.raises(RegistrationError, match="along one edge|markers found"):
        register_companion_board(covered, LAYOUT_JSON)


def test_a_marker_that_disagrees_is_not_used() -> None:
    """A marker pasted where it does not belong (a stray print, a false decode) disagrees with
    the others and is left out: the registration stays right."""
    image, truth = _rendered_board()
    found = find_markers(image)
    moved = image.copy()
    # copy the top-left marker's patch 60 px to the right, over the board
    x0, y0 = np.floor(found[0].min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(found[0].max(axis=0)).astype(int) + 4
    covered = _cover_markers(moved, truth, {0})
    covered[y0 + 40 : y1 + 40, x0 + 60 : x1 + 60] = image[y0:y1, x0:x1]
    registration = register_companion_board(covered, LAYOUT_JSON)
    assert _chair_error_px(registration, truth) < 5.0


def test_a_registration_off_the_printed_structure_is_refused() -> None:
    """The board's tables, chairs and bar must be seen where the markers put them: the right
    registration scores well above the threshold, one moved by half a chair spacing below."""
    image, _ = _rendered_board()
    registration = register_companion_board(image, LAYOUT_JSON)
    threshold = CafeReaderConfig().min_structure_score
    assert structure_score(image, registration, LAYOUT_JSON) > threshold + 0.15
    d = layout_spacing(LAYOUT_JSON)
    for shift in ((0.5 * d, 0.0), (0.0, 0.5 * d)):
        moved = np.array([[1.0, 0.0, shift[0]], [0.0, 1.0, shift[1]], [0.0, 0.0, 1.0]])
        off = Registration(registration.homography @ moved, registration.extent_units)
        assert structure_score(image, off, LAYOUT_JSON) < threshold
    strict = CafeReaderConfig(min_structure_score=0.99)
    with pytest.raises(RegistrationError, match="does not look like layout 'reference'"):
        register_companion_board(image, LAYOUT_JSON, strict)


def test_ci3_a_printed_board_is_registered_from_the_remembered_corners(tmp_path: Path) -> None:
    """CI-3, a printed board: the four corners given once (remembered per layout) register it;
    every chair maps to where the board's homography puts it, in any frame size."""
    u0, v0, u1, v1 = layout_extent(LAYOUT_JSON)
    extent = np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]])
    # a board seen from the table's edge: far side narrower
    seen = np.array([[300.0, 150.0], [980.0, 160.0], [1180.0, 820.0], [90.0, 800.0]])
    truth = homography_from_corners(extent, seen)
    save_board_corners("reference", seen, (1280, 960), tmp_path)
    frame = np.zeros((480, 640, 3), np.uint8)  # the same view at half the resolution
    registration = register_frame(frame, LAYOUT_JSON, printed=True, home=tmp_path)
    chairs = np.array([c["center"] for c in LAYOUT_JSON["chairs"]], float)
    np.testing.assert_allclose(
        project_points(registration.homography, chairs),
        project_points(truth, chairs) / 2.0,
        atol=1e-6,
    )
    tile = _chair("C07")
    at = project_points(truth, np.array([tile]))[0] / 2.0
    seated = detections([piece("tile", at, "cafe-international/italy/w", half=6.0)])
    reading, _ = read_frame(frame, seated, LAYOUT, LAYOUT_JSON, printed=True, home=tmp_path)
    assert reading.ok and reading.observation.seated_by_chair(LAYOUT) == {"C07": "italy/w"}


def test_a_traced_layouts_printed_board_is_registered_by_its_own_corners(
    tmp_path: Path,
) -> None:
    """A layout traced from a photo keeps its board's size (``traced_from.board_units``): the
    corners the user gives are the board's corners (0, 0) … (w, h), not the layout's extent."""
    traced = {**LAYOUT_JSON, "name": "mine", "traced_from": {"board_units": [1000.0, 800.0]}}
    np.testing.assert_allclose(
        printed_board_corners_units(traced), [[0, 0], [1000, 0], [1000, 800], [0, 800]]
    )
    seen = np.array([[200.0, 100.0], [1100.0, 120.0], [1250.0, 900.0], [60.0, 880.0]])
    save_board_corners("mine", seen, (1280, 960), tmp_path)
    frame = np.zeros((960, 1280, 3), np.uint8)
    registration = register_frame(frame, traced, printed=True, home=tmp_path)
    np.testing.assert_allclose(
        project_points(registration.homography, np.array([[0.0, 0.0], [1000.0, 800.0]])),
        [seen[0], seen[2]],
        atol=1e-6,
    )
    assert registration.extent_units == (0.0, 0.0, 1000.0, 800.0)
    with pytest.raises(RegistrationError, match="convex quadrilateral, clockwise"):
        register_printed_board(seen[::-1], traced)


def test_a_photo_without_the_board_cannot_be_registered(tmp_path: Path) -> None:
    """No markers (or no corners given for a printed board): a clear refusal as a problem of
    the reading, never a made-up registration."""
    blank = np.full((480, 640, 3), 128, np.uint8)
    with pytest.raises(RegistrationError, match="0 of 8 markers found"):
        register_companion_board(blank, LAYOUT_JSON)
    reading, registration = read_frame(blank, detections([]), LAYOUT, LAYOUT_JSON)
    assert registration is None and reading.observation is None
    assert reading.problems[0].startswith("board not registered")
    with pytest.raises(RegistrationError, match="no corners given yet for layout 'reference'"):
        register_frame(blank, LAYOUT_JSON, printed=True, home=tmp_path)


def test_ci22_a_spread_of_remaining_tiles_is_listed() -> None:
    """CI-22: the remaining tiles of a player, for the penalty."""
    tiles = [
        piece("tile", (50 * i + 40, 60), f"cafe-international/{t}")
        for i, t in enumerate(["joker/w", "italy/m"])
    ]
    assert read_spread(detections(tiles)).observation == ["italy/m", "joker/w"]
    assert read_spread(detections([])).problems == ("no tiles found in the photo",)


def test_ci22_an_unidentified_card_on_a_tile_is_set_aside_elsewhere_refused() -> None:
    """CI-22: Café International has no cards. An unidentified "card" within a tile is set
    aside; one beside the tiles may be a tile taken for a card: the photo is refused, never
    scored a tile short."""
    tiles = [
        piece("tile", (60, 60), "cafe-international/joker/w", half=30.0),
        piece("card", (60, 62), None, half=12.0),
    ]
    reading = read_spread(detections(tiles))
    assert reading.observation == ["joker/w"] and reading.seen["ignored"] == 1
    beside = [*tiles, piece("card", (300, 60), None)]
    assert read_spread(detections(beside)).problems == (
        "a tile in the photo could not be identified (right of the spread)",
    )


def test_ci22_a_tile_much_smaller_than_the_others_refuses_the_photo() -> None:
    """CI-22: a hand's tiles lie side by side under the camera, all about one size; a "tile"
    half their size is a pattern of the table the reader named, never counted."""
    tiles = [
        piece("tile", (60 * i + 40, 60), f"cafe-international/{t}", half=25.0)
        for i, t in enumerate(["joker/w", "italy/m", "italy/w"])
    ]
    assert read_spread(detections(tiles)).observation == ["italy/m", "italy/w", "joker/w"]
    speck = piece("tile", (300, 60), "cafe-international/germany/m", half=10.0)
    reading = read_spread(detections([*tiles, speck]))
    assert reading.observation is None
    assert reading.problems == (
        "a tile in the photo looks much smaller than the others (a pattern of the table?)",
    )
    # a little smaller (a tile seen a bit farther off, tilted) is still a tile
    near = piece("tile", (300, 60), "cafe-international/germany/m", half=21.0)
    assert read_spread(detections([*tiles, near])).observation is not None


def test_ci22_a_tile_box_far_from_square_refuses_the_photo() -> None:
    """CI-22: tiles are square; a named "tile" box half again as long as it is wide is two
    pieces seen as one, or another game's card (a Dice King photo read as Café had a dark red
    card on a yellow cloth named Spain): asked again, never scored."""
    tiles = detections(
        [
            piece("tile", (60 * i + 40, 60), f"cafe-international/{t}", half=25.0)
            for i, t in enumerate(["joker/w", "italy/m", "spain/w"])
        ]
    )
    boxes = tiles.boxes_xyxy.copy()
    boxes[2, 3] += 0.3 * (boxes[2, 3] - boxes[2, 1])  # 1.3: a tile seen obliquely
    assert read_spread(tiles.with_fields(boxes_xyxy=boxes)).observation is not None
    boxes[2, 3] += 0.2 * (boxes[2, 3] - boxes[2, 1])  # 1.56
    reading = read_spread(tiles.with_fields(boxes_xyxy=boxes))
    assert reading.observation is None
    assert reading.problems == (
        "a tile in the photo is not square (two tiles seen as one, or another game's card?)",
    )


def test_ci22_a_part_of_a_tile_beside_the_spread_refuses_the_photo() -> None:
    """CI-22: an unidentified box far smaller than the named tiles is set aside as the table's
    pattern, but not one touching a named tile from outside: the part of a tile the detector
    boxed only partly (a validation hand's USA tile found only as its flag's canton). Scoring
    the hand without it would be wrong; the photo is asked again."""
    tiles = [
        piece("tile", (60 * i + 40, 60), f"cafe-international/{t}", half=25.0)
        for i, t in enumerate(["joker/w", "italy/m", "turkey/w"])
    ]
    canton = piece("tile", (185 + 2 + 12, 60 - 10), None, half=12.0)  # 2 px right of the Turkey
    reading = read_spread(detections([*tiles, canton]))
    assert reading.observation is None
    assert reading.problems
    # the same box away from the spread (a dot of the cloth), or on the Turkey: set aside
    for centre in ((300, 60), (170, 50)):
        away = piece("tile", centre, None, half=12.0)
        assert read_spread(detections([*tiles, away])).observation is not None


def test_ci22_a_tile_found_only_in_overlapping_parts_refuses_the_photo() -> None:
    """CI-22: unidentified boxes far smaller than the named tiles are set aside as the table's
    pattern, but not parts that overlap one another and together span a tile outside every
    named one: a tile the detector found only in parts. Scoring without it would be wrong."""
    tiles = [
        piece("tile", (60 * i + 40, 60), f"cafe-international/{t}", half=25.0)
        for i, t in enumerate(["joker/w", "italy/m", "italy/w"])
    ]
    parts = [piece("tile", (290 + dx, 60 + dy), None, half=12.0) for dx, dy in ((0, 0), (16, 14))]
    reading = read_spread(detections([*tiles, *parts]))
    assert reading.observation is None
    assert reading.problems
    # the same parts apart (two dots of the cloth), or lying on a named tile: set aside
    apart = [piece("tile", (290 + dx, 60), None, half=12.0) for dx in (0, 60)]
    assert read_spread(detections([*tiles, *apart])).observation is not None
    on_tile = [piece("tile", (160 + dx, 60), None, half=10.0) for dx in (0, 8)]
    assert read_spread(detections([*tiles, *on_tile])).observation is not None
