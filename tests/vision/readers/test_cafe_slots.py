"""Café slots read directly: rendered boards with known tiles, empty, moved tiles, other objects;
and `read_table` built from slot readings (the detections add hands and name unidentified
slots)."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import engines.cafe_international as ci
from datasets.art import cafe_international as ci_art
from datasets.render.arrangements import piece
from datasets.render.distractors import sample_distractor
from datasets.render.layouts import BOARD_MM_PER_UNIT, board_piece, board_unit_to_local_mm
from datasets.render.pieces import Distractor
from datasets.render.scene import render_pieces
from datasets.state_render import environment, hand_over, table_camera
from engines.cafe_international.explain import UNKNOWN_TILE, explain
from engines.cafe_international.state import Placement, Seat
from tests.engines.cafe_international.factory import make_state
from tests.vision.readers.factories import detections
from tests.vision.readers.factories import piece as detected
from vision.gallery import default_gallery
from vision.geometry import project_points
from vision.identify import Identifier
from vision.readers.cafe_international import (
    Registration,
    layout_extent,
    read_frame,
    read_table,
    register_companion_board,
    register_points,
)
from vision.readers.cafe_slots import (
    SlotConfig,
    SlotRead,
    SlotReader,
    board_slots,
    chair_side_units,
    tile_quads_units,
    tile_side_units,
)

LAYOUT_JSON = json.loads(
    (
        Path(__file__).resolve().parents[3]
        / "engines/cafe_international/data/reference_layout.json"
    ).read_text(encoding="utf-8")
)
LAYOUT = ci.reference_layout()
SIZE = (1280, 960)
SEED = 4242  # a table surface, light and camera of the eval split


@cache
def _reader() -> SlotReader:
    return SlotReader(LAYOUT_JSON, Identifier(default_gallery(["cafe-international"])))


def _chair_mm(chair_id: str) -> tuple[float, float]:
    centre = next(c["center"] for c in LAYOUT_JSON["chairs"] if c["id"] == chair_id)
    x, y = board_unit_to_local_mm(np.array([centre], float))[0]
    return float(x), float(y)


def _render(
    seated: dict[str, str],
    *,
    bar: tuple[str, ...] = (),
    moved_mm: dict[str, tuple[float, float, float]] | None = None,
    distractors: tuple[Distractor, ...] = (),
) -> tuple[np.ndarray, Registration]:
    """The board with `seated` tiles (chair id → tile) and `bar` tiles rendered as the tablet
    sees it, and its registration from the markers. `moved_mm` shifts (dx, dy mm) and turns
    (degrees) some chairs' tiles."""
    moved_mm = moved_mm or {}
    pieces = [board_piece(LAYOUT_JSON)]
    for chair_id, tile in seated.items():
        x, y = _chair_mm(chair_id)
        dx, dy, yaw = moved_mm.get(chair_id, (0.0, 0.0, 0.0))
        pieces.append(piece(f"cafe-international/{tile}", (x + dx, y + dy), yaw, z=1.5))
    stools = board_unit_to_local_mm(np.array(LAYOUT_JSON["bar"]["stools"], float))
    for (x, y), tile in zip(stools, bar, strict=False):
        pieces.append(piece(f"cafe-international/{tile}", (float(x), float(y)), 0.0, z=1.5))
    rng = np.random.default_rng(SEED)
    camera = table_camera("cafe-international", SIZE, rng)
    image = render_pieces(pieces, list(distractors), environment(camera, rng, "eval")).image
    return image, register_companion_board(image, LAYOUT_JSON)


def _by_slot(reads: tuple[SlotRead, ...]) -> dict[str, SlotRead]:
    return {r.slot.id: r for r in reads}


def test_a_tiles_side_follows_the_art_chair_places() -> None:
    """The tile side the reader uses agrees with the art's chair place and the renderer's tile
    (24 mm at 0.75 mm per board unit: 32 units on 36-unit chairs)."""
    art_side = ci_art._geometry(LAYOUT_JSON).chair_side
    assert chair_side_units(LAYOUT_JSON) == pytest.approx(art_side, abs=1e-9)
    assert tile_side_units(LAYOUT_JSON) == pytest.approx(24.0 / BOARD_MM_PER_UNIT, abs=0.5)
    quad = tile_quads_units(np.array([[100.0, 40.0]]), 32.0)[0]
    np.testing.assert_allclose(quad, [[84, 24], [116, 24], [116, 56], [84, 56]])
    slots = board_slots(LAYOUT_JSON)
    assert len(slots) == 88 and slots[0].id == "C01" and slots[-1].id == "stool 20"


def test_a_rendered_board_with_known_tiles_is_read_slot_by_slot() -> None:
    """Seated tiles and bar tiles are read from the frame alone (no detector): each occupied
    slot holds its tile, every other slot is empty."""
    seated = {"C07": "italy/w", "C20": "germany/m", "C33": "joker/w", "C50": "france/m"}
    bar = ("usa/w", "china/m")
    image, registration = _render(seated, bar=bar)
    reads = _by_slot(_reader().read(image, registration))
    expected = {**seated, "stool 1": bar[0], "stool 2": bar[1]}
    assert {k: r.tile for k, r in reads.items() if r.occupied} == expected
    assert all(not r.occupied for k, r in reads.items() if k not in expected)


def test_an_empty_board_reads_empty() -> None:
    """No tile: every chair and stool is empty (nothing to identify, nothing reported)."""
    image, registration = _render({})
    reads = _reader().read(image, registration)
    assert [r.slot.id for r in reads if r.occupied] == []


@pytest.mark.parametrize(
    ("moved_mm", "how"),
    [
        ({"C20": (2.4, 0.0, 0.0), "C50": (0.0, 0.0, 10.0)}, "a tenth of a side off; turned 10°"),
        ({"C20": (3.6, 0.0, 0.0), "C50": (0.0, 0.0, 15.0)}, "15 % of a side off; turned 15°"),
        ({"C20": (0.0, -3.6, 0.0), "C50": (-3.6, 0.0, 15.0)}, "15 % towards the camera; both"),
    ],
)
def test_a_tile_placed_off_its_chair_is_still_read(
    moved_mm: dict[str, tuple[float, float, float]], how: str
) -> None:
    """Tiles placed imprecisely (shifted by up to 15 % of a tile's side, 24 mm, or turned up
    to 15°) are still read, and nothing else is taken for occupied. (Beside the bar, where a
    wider look could reach a stool's tile, such a tile is reported instead.)"""
    seated = {"C20": "spain/w", "C50": "india/m"}
    image, registration = _render(seated, moved_mm=moved_mm)
    reads = _by_slot(_reader().read(image, registration))
    assert {k: r.tile for k, r in reads.items() if r.occupied} == seated, how


def test_a_coin_on_a_chair_is_no_tile() -> None:
    """A coin on an empty chair is never taken for a tile: it looks like none, so the chair
    holds no tile (empty, or reported as something unidentified)."""
    rng = np.random.default_rng(7)
    coin = sample_distractor(rng, "coin", _chair_mm("C21"))
    image, registration = _render({"C20": "russia/w"}, distractors=(coin,))
    reads = _by_slot(_reader().read(image, registration))
    assert reads["C21"].tile is None
    assert reads["C21"].occupancy >= _reader().config.empty_below  # the coin was seen
    assert reads["C20"].tile == "russia/w"


def test_a_hand_over_the_board_gives_no_wrong_tile() -> None:
    """A hand reaching over the board: the slots under it are reported (occupied, not
    identified), and no slot gets a wrong tile."""
    seated = {"C20": "russia/w", "C21": "uk/m", "C27": "cuba/w", "C28": "turkey/m"}
    hand = hand_over(np.random.default_rng(3), _chair_mm("C21"))
    image, registration = _render(seated, distractors=(hand,))
    reads = _reader().read(image, registration)
    for r in reads:
        assert r.tile is None or r.tile == seated.get(r.slot.id), r
    assert any(r.occupied and r.tile is None for r in reads)  # the hand is seen


def test_read_frame_reads_the_board_from_the_slots_without_detections() -> None:
    """The live path: registration, then every slot read from the frame; the detector found
    nothing on the board and the observation is still complete."""
    image, _ = _render({"C07": "italy/w"}, bar=("usa/w",))
    reading, registration = read_frame(
        image, detections([]), LAYOUT, LAYOUT_JSON, slot_reader=_reader()
    )
    assert registration is not None and reading.ok, reading.problems
    assert reading.observation.seated_by_chair(LAYOUT) == {"C07": "italy/w"}
    assert reading.observation.bar == ("usa/w",)


# --- read_table from slot readings ----------------------------------------------------------------


def _registration() -> Registration:
    """Board units → image: a known shift (100, 50)."""
    u0, v0, u1, v1 = layout_extent(LAYOUT_JSON)
    units = np.array([[u0, v0], [u1, v0], [u1, v1], [u0, v1]])
    return register_points(units, units + (100.0, 50.0), (u0, v0, u1, v1))


def _slot_reads(shown: dict[str, str | None]) -> tuple[SlotRead, ...]:
    """Slot readings: `shown` slot id → tile (None: occupied, unidentified); others empty."""
    return tuple(
        SlotRead(s, s.id in shown, shown.get(s.id), 0.3 if s.id in shown else 0.0, s.centre_units)
        for s in board_slots(LAYOUT_JSON)
    )


def _at_chair(chair_id: str, identity: str | None) -> dict:
    centre = next(c["center"] for c in LAYOUT_JSON["chairs"] if c["id"] == chair_id)
    px = project_points(_registration().homography, np.array([centre], float))[0]
    return detected("tile", px, identity, half=8.0)


def test_read_table_takes_the_board_from_the_slots() -> None:
    """With slot readings the board is what the slots show; a detected tile names an occupied
    slot the slot reader could not identify; a detection on an empty slot is not seated."""
    slots = _slot_reads({"C07": "italy/w", "C08": None, "stool 1": "usa/m"})
    found = detections(
        [
            _at_chair("C08", "cafe-international/spain/m"),  # names the unidentified slot
            _at_chair("C09", "cafe-international/cuba/w"),  # the slot shows it empty
        ]
    )
    reading = read_table(found, SIZE, _registration(), LAYOUT, LAYOUT_JSON, slots=slots)
    assert reading.ok, reading.problems
    assert reading.observation.seated_by_chair(LAYOUT) == {"C07": "italy/w", "C08": "spain/m"}
    assert reading.observation.bar == ("usa/m",)


def test_an_occupied_slot_nobody_identifies_is_unknown_and_noted() -> None:
    """An occupied chair or stool that neither the slot reader nor a detection names is
    `UNKNOWN_TILE` (taken, never an empty seat, never a guess): the reading is still ok, and
    ``seen`` tells the user which slots were not identified."""
    slots = _slot_reads({"C07": None, "C01": "china/w", "stool 1": None})
    reading = read_table(detections([]), SIZE, _registration(), LAYOUT, LAYOUT_JSON, slots=slots)
    assert reading.ok, reading.problems
    assert reading.observation.seated_by_chair(LAYOUT) == {"C01": "china/w", "C07": UNKNOWN_TILE}
    assert reading.observation.bar == (UNKNOWN_TILE,)
    assert reading.seen["unidentified_chairs"] == ["C07"]
    assert reading.seen["unidentified_stools"] == [1]
    assert reading.seen["notes"] == [
        "a tile on chair C07 could not be identified",
        "a tile on bar stool 1 could not be identified",
    ]
    named = read_table(
        detections([]),
        SIZE,
        _registration(),
        LAYOUT,
        LAYOUT_JSON,
        slots=_slot_reads({"C07": "china/m"}),
    )
    assert "notes" not in named.seen and "unidentified_chairs" not in named.seen


def test_ci13_an_unidentified_new_guest_is_explained_by_the_rules() -> None:
    """CI-13, CI-8: the table had china/w (C01) and china/m (C08) at T01; the player holding
    [china/m, italy/w] seated a guest on C07 that nobody identified: only china/m may sit at
    the Chinese table, so that is the one explanation (the tracker applies it)."""
    state = make_state(
        layout=LAYOUT,
        seated={"C01": "china/w", "C08": "china/m"},
        hands=(("china/m", "italy/w"), ("uk/w",)),
    )
    slots = _slot_reads({"C01": "china/w", "C08": "china/m", "C07": None})
    reading = read_table(detections([]), SIZE, _registration(), LAYOUT, LAYOUT_JSON, slots=slots)
    assert reading.ok, reading.problems
    assert explain(state, reading.observation) == [(Seat((Placement("china/m", "C07", "china"),)),)]


def test_unchanged_slots_keep_their_reading_and_a_new_tile_is_read() -> None:
    """Between moves almost every slot is unchanged: those keep the last frame's reading (no
    identifying again); a tile put down since is read."""
    reader = SlotReader(LAYOUT_JSON, Identifier(default_gallery(["cafe-international"])))
    calls: list[int] = []
    match = reader.identifier.match

    def counting(frame, detections, games=None):  # type: ignore[no-untyped-def]
        calls.append(len(detections))
        return match(frame, detections, games)

    reader.identifier.match = counting  # type: ignore[method-assign]
    before, registration = _render({"C07": "italy/w"})
    first = _by_slot(reader.read(before, registration))
    assert first["C07"].tile == "italy/w" and sum(calls) > 0
    calls.clear()
    again = _by_slot(reader.read(before.copy(), registration))
    assert again == first and sum(calls) == 0  # the same frame: nothing identified again
    after, registration_after = _render({"C07": "italy/w", "C20": "germany/m"})
    calls.clear()
    now = _by_slot(reader.read(after, registration_after))
    assert now["C20"].tile == "germany/m" and now["C07"].tile == "italy/w"
    assert sum(calls) > 0


def test_a_faint_slot_that_looked_so_before_is_empty_on_the_live_table() -> None:
    """CI-12 (guests never leave): across frames read with one registration, a slot faintly
    unlike the board, not identified, and no more unlike it than in the earlier frames is
    empty: the light or the print, not a tile; something put there since still shows. A single
    read has no earlier frames. (The reader here takes every faint slot for occupied, as an
    empty chair at 0.062 was on a rendered tablet view.)"""
    config = SlotConfig(empty_below=0.0, tile_like_score=0.0)
    identifier = Identifier(default_gallery(["cafe-international"]))
    empty, registration = _render({})
    reader = SlotReader(LAYOUT_JSON, identifier, config=config)
    first = reader.read(empty, registration)
    faint = {r.slot.id for r in first if r.occupied and r.tile is None}
    assert faint  # the settings make phantoms of the empty board's slots
    again = reader.read(empty.copy(), registration)
    assert [r.slot.id for r in again if r.occupied] == []
    coin = sample_distractor(np.random.default_rng(7), "coin", _chair_mm("C21"))
    with_coin, _ = _render({"C20": "russia/w"}, distractors=(coin,))
    later = _by_slot(reader.read(with_coin, registration))
    assert later["C20"].tile == "russia/w"
    assert later["C21"].occupied and later["C21"].tile is None  # the coin came since
    assert not any(r.occupied for k, r in later.items() if k not in ("C20", "C21"))
    off = SlotReader(LAYOUT_JSON, identifier, config=replace(config, floor_margin=None))
    off.read(empty, registration)
    assert {r.slot.id for r in off.read(empty.copy(), registration) if r.occupied} == faint
