"""`vision.detector`: decoding, NMS and scale choice on small arrays; the committed detector."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.detector import (
    DEFAULT_MODEL,
    LIVE_MODEL,
    Detector,
    DetectorConfig,
    decode_maps,
    nms_per_kind,
)
from vision.errors import ModelError


def maps_with(peaks: list[tuple[int, int, int, float, float, float]], h: int = 10, w: int = 12):
    """Stride-8 maps holding peaks (kind, y, x, score, box w px, box h px), offsets 0.5."""
    heat = np.zeros((3, h, w), np.float32)
    size = np.zeros((2, h, w), np.float32)
    offset = np.full((2, h, w), 0.5, np.float32)
    corners = np.zeros((8, h, w), np.float32)
    for kind, y, x, score, bw, bh in peaks:
        heat[kind, y, x] = score
        size[:, y, x] = np.log([bw / 8, bh / 8])
        corners[:, y, x] = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float32).reshape(8)
    return heat, size, offset, corners


def test_decode_places_boxes_at_peak_centres() -> None:
    maps = maps_with([(2, 3, 4, 0.9, 16, 24), (0, 5, 1, 0.2, 40, 40)])
    boxes, scores, kinds, corners = decode_maps(*maps, np.array([0.3, 0.3, 0.3], np.float32))
    assert kinds.tolist() == [2]  # the weak card peak is under its threshold
    cx, cy = (4 + 0.5) * 8, (3 + 0.5) * 8
    np.testing.assert_allclose(boxes[0], [cx - 8, cy - 12, cx + 8, cy + 12], atol=1e-3)
    np.testing.assert_allclose(scores, [0.9])
    np.testing.assert_allclose(corners[0, 0], [cx - 8, cy - 8], atol=1e-3)


def test_decode_of_empty_maps_is_empty() -> None:
    boxes, scores, kinds, corners = decode_maps(*maps_with([]), np.full(3, 0.3, np.float32))
    assert boxes.shape == (0, 4) and corners.shape == (0, 4, 2) and len(scores) == len(kinds) == 0


def test_nms_keeps_the_best_of_overlapping_boxes_per_kind() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [0, 0, 10, 10], [50, 50, 60, 60]], np.float32)
    scores = np.array([0.5, 0.9, 0.7, 0.4], np.float32)
    kinds = np.array([2, 2, 0, 2])
    keep = nms_per_kind(boxes, scores, kinds, 0.5)
    assert keep.tolist() == [1, 2, 3]  # best first; the card overlapping dice is another kind


@pytest.mark.parametrize(
    ("size", "main", "tiled"),
    [
        ((640, 480), 1.0, None),
        ((1280, 720), 0.5, None),
        ((320, 240), 1.0, None),
        ((4032, 3024), 640 / 4032, 0.5),
    ],
)
def test_scales_tile_only_when_small_dice_would_vanish(
    size: tuple[int, int], main: float, tiled: float | None
) -> None:
    detector = Detector.__new__(Detector)
    detector.config = DetectorConfig()
    got_main, got_tiled = detector.scales(*size)
    assert got_main == pytest.approx(main)
    assert got_tiled == (None if tiled is None else pytest.approx(tiled))


@pytest.mark.parametrize(
    ("size", "main"),
    [
        ((800, 600), 0.8),  # 4:3: as by the longer side
        ((1280, 720), 480 / 720),  # 16:9: the shorter side to 480, the pieces as large as in 4:3
        ((600, 800), 0.8),  # upright
        ((4000, 500), 2 * 640 / 4000),  # a strip: the longer side at most 2 x 640
        ((400, 300), 1.0),  # never enlarged
    ],
)
def test_a_short_side_scales_wide_frames_like_4_by_3_ones(
    size: tuple[int, int], main: float
) -> None:
    detector = Detector.__new__(Detector)
    detector.config = DetectorConfig(short_side=480)
    assert detector.scales(*size)[0] == pytest.approx(main)
    # a region enlarged for a zoom is passed at the size given
    assert detector.scales(*size, long_side=max(size))[0] == pytest.approx(1.0)


def test_missing_model_is_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="detector model not found"):
        Detector(tmp_path / "missing.onnx")


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no committed detector")
@pytest.mark.parametrize("shape", [(480, 640), (720, 1280), (100, 37), (2000, 2600)])
def test_committed_detector_runs_on_any_size(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(0)
    frame = rng.integers(0, 255, (*shape, 3), dtype=np.uint8)
    detections = Detector().detect(frame)
    h, w = shape
    assert (detections.boxes_xyxy[:, [0, 2]] <= w).all()
    assert (detections.boxes_xyxy[:, [1, 3]] <= h).all()
    assert set(detections.kinds) <= {"card", "tile", "die"}


def test_a_small_die_inside_a_big_die_is_dropped() -> None:
    from vision.detector import contained_dice

    boxes = np.array(
        [[0, 0, 40, 40], [10, 10, 16, 16], [38, 38, 60, 60], [12, 12, 18, 18]], np.float32
    )
    kinds = np.array([2, 2, 2, 0])  # the last is a card: never dropped
    assert contained_dice(boxes, kinds, 0.7).tolist() == [False, True, False, False]


class _CentreBoxes(Detector):
    """A detector without a model: every pass finds one card, a quarter of the frame's shorter
    side wide, at the frame's centre (enough to follow the zoom's coordinates)."""

    def __init__(self, config: DetectorConfig, speckles: int = 0) -> None:
        self.config = config
        self.calls: list[tuple[int, int]] = []
        self.speckles = speckles  # tiny sure "cards" near the frame's corners, first pass only

    def _passes(self, frame: np.ndarray, long_side: int | None = None) -> tuple[np.ndarray, ...]:
        h, w = frame.shape[:2]
        self.calls.append((w, h))
        half = min(w, h) / 8
        box = np.array([[w / 2 - half, h / 2 - half, w / 2 + half, h / 2 + half]], np.float32)
        if len(self.calls) == 1 and self.speckles:
            xs = np.linspace(5, w - 10, self.speckles)
            dots = np.stack([xs, np.full_like(xs, 5), xs + 5, np.full_like(xs, 10)], axis=1)
            box = np.concatenate([box, dots.astype(np.float32)])
        corners = box[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 4, 2)
        return box, np.full(len(box), 0.9, np.float32), np.zeros(len(box), np.int64), corners


def test_the_zoom_finds_small_pieces_again_on_an_enlarged_region() -> None:
    detector = _CentreBoxes(DetectorConfig(zoom_piece_px=110.0))
    frame = np.zeros((600, 800, 3), np.uint8)
    detections = detector.detect(frame)
    # a 150 px card, seen 120 px wide by the main pass (800 → 640 px): not small (the zoom
    # runs for pieces under `zoom_below` × the asked width: here 0.35 × 110)
    assert detector.calls == [(800, 600)] and len(detections) == 1
    detector = _CentreBoxes(DetectorConfig(zoom_piece_px=450.0))
    detections = detector.detect(frame)
    (region_w, region_h) = detector.calls[1]
    # the region (the card and half a card around it: 300 px) enlarged 450 / 150 times
    assert region_w == pytest.approx(3 * 301, abs=3) and region_h == pytest.approx(3 * 301, abs=3)
    # the zoomed pass's card, in the frame's coordinates; this fake zoom boxes it a quarter of
    # the region wide, off the first box's size (IoU 0.25: not the same piece's box), so the
    # first pass's card stays too (`test_a_first_pass_piece_surer_than_the_zooms_box_on_it_is_kept`)
    assert len(detections) == 2
    box = detections.boxes_xyxy[
        np.argmin(detections.boxes_xyxy[:, 2] - detections.boxes_xyxy[:, 0])
    ]
    centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
    assert centre == pytest.approx((400.5, 300.5), abs=1.5)
    assert box[2] - box[0] == pytest.approx(301 / 4, abs=2)  # a quarter of the region
    assert np.isfinite(detections.corners_px).all()


class _OtherZoom(_CentreBoxes):
    """The first pass finds the centre card (150 px) at `first`; the zoomed pass boxes it at
    `zoomed`, `side` px wide in the frame (106 px: IoU 0.5 with the first box; 75: 0.25)."""

    def __init__(self, first: float, zoomed: float, side: float) -> None:
        super().__init__(DetectorConfig(zoom_piece_px=450.0))
        self.first, self.zoomed, self.side = first, zoomed, side

    def _passes(self, frame: np.ndarray, long_side: int | None = None) -> tuple[np.ndarray, ...]:
        box, scores, kinds, corners = super()._passes(frame, long_side)
        if len(self.calls) == 1:
            return box, np.full(1, self.first, np.float32), kinds, corners
        h, w = frame.shape[:2]
        half = self.side * 3 / 2  # the region is enlarged 3 times
        other = np.array([[w / 2 - half, h / 2 - half, w / 2 + half, h / 2 + half]], np.float32)
        corners = other[:, [0, 1, 2, 1, 2, 3, 0, 3]].reshape(-1, 4, 2)
        return other, np.full(1, self.zoomed, np.float32), kinds, corners


@pytest.mark.parametrize(
    ("first", "zoomed", "side", "kept"),
    [
        (0.6, 0.3, 106, [0.3, 0.6]),
        (0.6, 0.7, 106, [0.7]),
        (0.6, 0.3, 75, [0.3, 0.6]),
    ],
)
def test_a_first_pass_piece_surer_than_the_zooms_box_on_it_is_kept(
    first: float, zoomed: float, side: float, kept: list[float]
) -> None:
    """A scoring photo's tile the first pass found at 0.6 and the zoom only loosely at 0.3 is
    kept too (the pipeline then keeps one of the two boxes), else it went uncounted; so is one
    the zoom found nothing on (its box lies elsewhere: IoU under 0.3), a piece the zoom missed.
    A zoomed box surer than the first replaces it (the zoom sees small pieces better)."""
    detector = _OtherZoom(first, zoomed, side)
    detections = detector.detect(np.zeros((600, 800, 3), np.uint8))
    assert len(detector.calls) == 2  # the zoom ran
    assert sorted(detections.scores.tolist()) == pytest.approx(kept)


def test_the_zoom_region_ignores_speckles_of_the_table() -> None:
    detector = _CentreBoxes(DetectorConfig(zoom_piece_px=450.0), speckles=40)
    detector.detect(np.zeros((600, 800, 3), np.uint8))
    # forty 5 px "cards" along the top edge neither widen the region nor set the piece size
    assert detector.calls[1] == pytest.approx((903, 903), abs=4)


def test_no_zoom_by_default_and_none_without_pieces() -> None:
    detector = _CentreBoxes(DetectorConfig())
    detector.detect(np.zeros((600, 800, 3), np.uint8))
    assert detector.calls == [(800, 600)]
    detector = _CentreBoxes(DetectorConfig(zoom_piece_px=450.0, zoom_min_score=0.95))
    detector.detect(np.zeros((600, 800, 3), np.uint8))
    assert detector.calls == [(800, 600)]  # the only card is not sure enough to place a region


@pytest.mark.skipif(not DEFAULT_MODEL.exists(), reason="no committed detector")
def test_the_zoom_finds_the_cards_of_a_small_spread_in_a_large_photo() -> None:
    """Scoring photos (KB-19: each player lays out their hand; the king's area likewise) taken
    from too far: 18 cards about 27 px wide in a 1200 x 900 photo, under 15 px once the frame is
    shrunk to the detector's 640 px. The zoom looks again at the spread, enlarged."""
    import cv2

    from datasets.render import _art
    from datasets.state_render import render_spread
    from models.evaluate import _iou_matrix

    pool = _art.identities("kings-breakfast")
    sure = {"card": 0.35, "tile": 0.35, "die": 0.35}
    detectors = {
        zoom: Detector(config=DetectorConfig(zoom_piece_px=zoom, score_thresholds=sure))
        for zoom in (None, 80.0)
    }
    found = dict.fromkeys(detectors, 0)
    targets = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        image, truth = render_spread([pool[int(i)] for i in rng.integers(0, len(pool), 18)], seed)
        small = cv2.resize(image, None, fx=0.45, fy=0.45, interpolation=cv2.INTER_AREA)
        photo = cv2.resize(image[:20, :20], (1200, 900))  # the table's corner, stretched
        y0, x0 = (900 - small.shape[0]) // 2, (1200 - small.shape[1]) // 2
        photo[y0 : y0 + small.shape[0], x0 : x0 + small.shape[1]] = small
        boxes = [o["box"] for o in truth["objects"] if o.get("target")]
        true_boxes = np.array(boxes, float) * 0.45 + [x0, y0, x0, y0]
        targets += len(true_boxes)
        for zoom, detector in detectors.items():
            got = detector.detect(photo)
            iou = _iou_matrix(got.boxes_xyxy[got.kinds == "card"].astype(float), true_boxes)
            found[zoom] += int((iou.max(axis=0) >= 0.5).sum()) if iou.size else 0
    assert found[80.0] >= 0.9 * targets  # measured with detector v13: 54 of 54
    assert found[None] < found[80.0]  # plain passes: 26 of 54


def test_region_zoom_settings_are_checked() -> None:
    with pytest.raises(ValueError, match="zoom region"):
        Detector(config=DetectorConfig(zoom_regions=((0.5, 0.2, 0.4, 0.6),)))
    with pytest.raises(ValueError, match="zoom region"):
        Detector(config=DetectorConfig(zoom_regions=((0.0, 0.0, 1.2, 0.5),)))
    with pytest.raises(ValueError, match="zoom_region_factor"):
        Detector(config=DetectorConfig(zoom_regions=((0.1, 0.1, 0.5, 0.5),), zoom_region_factor=0))
    with pytest.raises(ValueError, match="unknown kind"):
        Detector(config=DetectorConfig(zoom_region_kinds=("meeple",)))


def test_the_region_zoom_replaces_the_first_passes_pieces_of_its_kinds_inside_it() -> None:
    """The enlarged region is searched again; its dice replace the first passes' dice centred
    in it (here: the centre card's box, found again as a die by the fake), cards stay."""

    class _Dice(_CentreBoxes):
        def _passes(self, frame: np.ndarray, long_side: int | None = None) -> tuple:
            box, scores, kinds, corners = super()._passes(frame, long_side)
            return box, scores, np.full(len(box), 2 if len(self.calls) == 2 else 0), corners

    detector = _Dice(
        DetectorConfig(zoom_regions=((0.25, 0.25, 0.75, 0.75),), zoom_region_kinds=("die",))
    )
    detections = detector.detect(np.zeros((600, 800, 3), np.uint8))
    assert detector.calls == [(800, 600), (800, 600)]  # 400 x 300 enlarged twice
    assert sorted(detections.kinds.tolist()) == ["card", "die"]
    die = detections.boxes_xyxy[list(detections.kinds).index("die")]
    # the zoomed pass's box (a quarter of the region's shorter side) in the frame's coordinates
    assert die.tolist() == pytest.approx([362.5, 262.5, 437.5, 337.5], abs=1.0)


@pytest.mark.skipif(not LIVE_MODEL.exists(), reason="no committed live detector")
def test_dk8_the_rolling_area_zoom_finds_the_dice_of_the_tablets_far_view() -> None:
    """DK-8: six dice in the rolling area, seen by the tablet at the table's edge (800 x 600):
    about 13 px wide, below what the model finds at its input. Enlarging the rolling area
    finds them."""
    import random

    import engines.dice_king as dk
    from datasets.render.scene import render_pieces
    from datasets.state_render import environment, place_state, table_camera
    from engines.api import random_step
    from vision.readers.zones import default_zones

    rng = random.Random(8)
    state = dk.new_game(["Anna", "Ben", "Cleo"])
    while not state.dice or dk.is_chance_node(state):
        state = dk.apply(state, random_step(dk, state, rng))
    view = np.random.default_rng([8, 3])
    env = environment(table_camera("dice-king", (800, 600), view), view, "eval")
    rendered = render_pieces(place_state("dice-king", state, np.random.default_rng(5)), [], env)
    centres = [
        ((o["box"][0] + o["box"][2]) / 2, (o["box"][1] + o["box"][3]) / 2)
        for o in rendered.objects
        if o["kind"] == "die" and o.get("box") is not None
    ]
    assert len(centres) == 6

    def found(config: DetectorConfig) -> int:
        d = Detector(LIVE_MODEL, config).detect(rendered.image)  # the live Dice King table's
        dice = d.boxes_xyxy[d.kinds == "die"]
        return sum(
            bool(
                (
                    (dice[:, 0] <= x) & (x <= dice[:, 2]) & (dice[:, 1] <= y) & (y <= dice[:, 3])
                ).any()
            )
            for x, y in centres
        )

    region = default_zones("dice-king").bounds("dice", 0.25)
    zoomed = found(DetectorConfig(zoom_regions=(region,), zoom_region_kinds=("die",)))
    assert zoomed >= 5 and zoomed > found(DetectorConfig())


def test_zoom_regions_drawn_for_4_3_frames_are_placed_on_a_16_9_frame() -> None:
    """A 16:9 frame from the same camera shows the 4:3 picture's width and less of its height:
    the region's heights are moved into it (the same table area), and a region wholly above
    or below the 16:9 frame is skipped."""
    config = DetectorConfig(
        zoom_regions=((0.25, 0.25, 0.75, 0.75), (0.0, 0.0, 1.0, 0.05)), zoom_regions_aspect=4 / 3
    )
    detector = _CentreBoxes(config)
    detector.detect(np.zeros((450, 800, 3), np.uint8))
    # 400 x 300 px of a 800 x 450 frame (300 = 450 x 2/3), enlarged twice; the second skipped
    assert detector.calls == [(800, 450), (800, 600)]
    detector = _CentreBoxes(config)
    detector.detect(np.zeros((600, 800, 3), np.uint8))  # a 4:3 frame: as drawn
    assert detector.calls == [(800, 600), (800, 600), (1600, 60)]
    with pytest.raises(ValueError, match="zoom_regions_aspect"):
        Detector(config=DetectorConfig(zoom_regions_aspect=0.0))


def test_a_zoom_region_is_enlarged_at_most_to_the_zooms_longest_side() -> None:
    """The whole of a 1280 x 720 frame asked twice as large is enlarged to 1600 px only (time);
    an 800 x 600 frame twice."""
    config = DetectorConfig(zoom_regions=((0.0, 0.0, 1.0, 1.0),), zoom_region_factor=2.0)
    detector = _CentreBoxes(config)
    detector.detect(np.zeros((720, 1280, 3), np.uint8))
    assert detector.calls == [(1280, 720), (1600, 900)]
    detector = _CentreBoxes(config)
    detector.detect(np.zeros((600, 800, 3), np.uint8))
    assert detector.calls == [(800, 600), (1600, 1200)]


@pytest.mark.skipif(not LIVE_MODEL.exists(), reason="no committed live detector")
def test_kb15_the_live_detector_finds_the_cards_of_the_kings_columns() -> None:
    """KB-10, KB-15: the king's area and the offer lie in columns of overlapping cards, small
    from the tablet at the table's edge (their centres 15-25 px apart). The live table's
    detector, trained on such tables, finds most of them; the default one, trained on mixed
    tables and scoring photos, about half as many."""
    import random

    import engines.kings_breakfast as kb
    from companion_app.viewmodels.recognition import live_perception_config
    from datasets.state_render import render_state
    from engines.api import random_step
    from vision.voting import box_iou

    rng = random.Random(8_000_001)
    state = kb.new_game(["Anna", "Ben", "Cleo", "Dan"])
    while sum(state.king) < 10 or sum(state.offer) < 6:
        state = kb.apply(state, random_step(kb, state, rng))
    image, truth = render_state("kings-breakfast", state, 8_000_001)
    cards = np.array([o["box"] for o in truth["objects"] if o["kind"] == "card" and o["target"]])
    config = live_perception_config("kings-breakfast").detector

    def found(model: Path) -> int:
        detections = Detector(model, config).detect(image)
        boxes = detections.boxes_xyxy[detections.kinds == "card"]
        if not len(boxes):
            return 0
        return int((box_iou(cards, boxes).max(axis=1) >= 0.5).sum())

    live, default = found(LIVE_MODEL), found(DEFAULT_MODEL)
    assert len(cards) == 17  # 16 face up, the deck's top card face down
    assert live >= 13 and live >= default + 5
