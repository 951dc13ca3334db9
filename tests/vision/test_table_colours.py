"""Boxes that show only the table (`vision.table_colours`, `PerceptionConfig.table_like_share`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.vision.test_detections import make
from vision.gallery import Gallery
from vision.table_colours import table_colour_shares


def speckled_table(seed: int = 0, size: tuple[int, int] = (480, 640)) -> np.ndarray:
    """A cloth of two greens with dark speckles and noise (a busy table, not a flat colour)."""
    rng = np.random.default_rng(seed)
    h, w = size
    light = rng.random((h, w, 1)) < 0.5
    frame = np.where(light, np.array([60, 110, 50]), np.array([70, 125, 60])).astype(np.uint8)
    dots = rng.random((h, w)) < 0.02
    frame[dots] = (20, 30, 25)
    return np.clip(frame + rng.normal(0, 3, frame.shape), 0, 255).astype(np.uint8)


def with_card(frame: np.ndarray, box: list[int], seed: int) -> np.ndarray:
    """A printed card: a cream face with a coloured picture and dark print."""
    rng = np.random.default_rng(seed)
    x1, y1, x2, y2 = box
    frame[y1:y2, x1:x2] = (200, 225, 235)
    cx, cy, r = (x1 + x2) // 2, (y1 + y2) // 2, (x2 - x1) // 4
    frame[cy - r : cy + r, cx - r : cx + r] = (40, 60, 200)
    rows = rng.integers(y1 + 4, y2 - 4, 6)
    frame[rows, x1 + 6 : x2 - 6] = (30, 30, 30)
    return frame


CARDS = [[100, 150, 170, 250], [180, 150, 250, 250], [260, 150, 330, 250]]
EMPTY = [340, 150, 410, 250]  # the grid's next place, left empty


def test_a_box_on_the_empty_table_has_the_tables_colours_and_cards_do_not() -> None:
    frame = speckled_table()
    for k, box in enumerate(CARDS):
        frame = with_card(frame, box, k)
    boxes = np.array([*CARDS, EMPTY], np.float32)
    shares = table_colour_shares(frame, boxes, [0, 1, 2, 3])
    assert shares[3] >= 0.95
    assert (shares[:3] <= 0.5).all()


def test_a_box_mostly_under_others_or_a_frame_without_table_cannot_be_judged() -> None:
    frame = speckled_table()
    boxes = np.array([[100, 100, 300, 300], [110, 110, 290, 290]], np.float32)
    assert np.isnan(table_colour_shares(frame, boxes, [1])).all()  # all of it under the first
    whole = np.array([[0, 0, 640, 480], [50, 50, 100, 100]], np.float32)
    assert np.isnan(table_colour_shares(frame, whole, [1])).all()  # no table left to sample
    assert table_colour_shares(frame, whole, []).shape == (0,)


def test_bad_frames_are_refused_with_the_reason() -> None:
    with pytest.raises(ValueError, match="uint8"):
        table_colour_shares(np.zeros((10, 10), np.uint8), np.zeros((1, 4)), [0])
    with pytest.raises(ValueError, match="uint8"):
        table_colour_shares(np.zeros((10, 10, 3), np.uint16), np.zeros((1, 4)), [0])


MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.mark.skipif(
    not (MODELS / "piece_reader.onnx").is_file(), reason="no committed piece reader model"
)
@pytest.mark.parametrize("weak_score", [0.2, 0.6])
def test_the_pipeline_drops_only_weak_unnamed_boxes_showing_the_table(weak_score: float) -> None:
    """`table_like_share`: a weak unnamed box on the empty table is dropped; the same box found
    surely (at or above `table_like_below_score`) stays, unnamed, and so do the cards."""
    from vision.identify import Identifier
    from vision.pipeline import Perception, PerceptionConfig

    frame = speckled_table(1)
    for k, box in enumerate(CARDS):
        frame = with_card(frame, box, k)
    detections = make(["card"] * 4).with_fields(
        boxes_xyxy=np.array([*CARDS, EMPTY], np.float32),
        scores=np.array([0.9, 0.9, 0.9, weak_score], np.float32),
    )
    # an empty gallery: nothing is named, so only the table test decides
    config = PerceptionConfig(piece_reader="off", table_like_share=0.85)
    perception = Perception(config, identifier=Identifier(_empty_gallery()), games=None)
    kept = perception.identify(frame, detections)
    expected = 3 if weak_score < config.table_like_below_score else 4
    assert len(kept) == expected
    assert kept.boxes_xyxy[:3].tolist() == np.array(CARDS, np.float32).tolist()
    plain = Perception(
        PerceptionConfig(piece_reader="off"), identifier=Identifier(_empty_gallery())
    )
    assert len(plain.identify(frame, detections)) == 4


def _empty_gallery() -> Gallery:
    return Gallery(references=())


def _colour_only(**settings: Any) -> Any:
    """A pipeline without the piece reader or gallery faces, for the table-colour rules."""
    from vision.identify import Identifier
    from vision.pipeline import Perception, PerceptionConfig

    config = PerceptionConfig(piece_reader="off", **settings)
    return Perception(config, identifier=Identifier(_empty_gallery()), games=None)


@pytest.mark.skipif(
    not (MODELS / "piece_reader.onnx").is_file(), reason="no committed piece reader model"
)
def test_weak_names_on_the_table_are_withdrawn_and_table_coloured_faces_stop_the_drop() -> None:
    """A weak box named a piece but showing the table's colours (a polka cloth's squares named
    cheese) keeps no name: the photo is asked again, never scored with it. When a surely named
    piece shows the table's colours as much (a yellow card on a yellow cloth), no box is dropped
    for its colours: the test cannot tell pieces from the table there."""
    from vision.identify import Identifier
    from vision.pipeline import Perception, PerceptionConfig

    config = PerceptionConfig(piece_reader="off", table_like_share=0.85)
    perception = Perception(config, identifier=Identifier(_empty_gallery()), games=None)
    detections = make(["card"] * 4).with_fields(
        scores=np.array([0.9, 0.45, 0.3, 0.9], np.float32),
        identities=np.array(["kings-breakfast/ham", "kings-breakfast/cheese", None, None], object),
        identity_scores=np.array([0.99, 0.99, 0.0, 0.0], np.float32),
    )
    matches: list = [None] * 4
    shares = np.array([0.2, 0.95, 0.97, np.nan])
    kept, _ = perception._table_like(detections, matches, shares)
    # the weak "cheese" loses its name, the weak unnamed box goes, the unjudged one stays
    assert list(kept.identities) == ["kings-breakfast/ham", None, None]
    assert kept.scores.tolist() == pytest.approx([0.9, 0.45, 0.9])
    yellow = np.array([0.9, 0.95, 0.97, np.nan])  # the sure ham card shows the table too
    kept, _ = perception._table_like(detections, matches, yellow)
    assert len(kept) == 4 and list(kept.identities)[1] is None


@pytest.mark.skipif(
    not (MODELS / "piece_reader.onnx").is_file(), reason="no committed piece reader model"
)
def test_names_may_be_withdrawn_at_a_lower_share_than_boxes_are_dropped() -> None:
    """`table_like_name_share`: a weak named box showing the table's colours over 0.6 of its
    pixels (a confetti cloth above a pile named a village) loses its name; an unnamed one as
    table-coloured is not dropped (that needs `table_like_share`)."""
    from vision.identify import Identifier
    from vision.pipeline import Perception, PerceptionConfig

    config = PerceptionConfig(piece_reader="off", table_like_share=0.85, table_like_name_share=0.6)
    perception = Perception(config, identifier=Identifier(_empty_gallery()), games=None)
    detections = make(["card"] * 3).with_fields(
        scores=np.array([0.46, 0.46, 0.3], np.float32),
        identities=np.array(["dice-king/village-mine-2", "dice-king/orc-1", None], object),
        identity_scores=np.array([0.95, 0.95, 0.0], np.float32),
    )
    kept, _ = perception._table_like(detections, [None] * 3, np.array([0.81, 0.5, 0.81]))
    assert list(kept.identities) == [None, "dice-king/orc-1", None]


@pytest.mark.skipif(
    not (MODELS / "piece_reader.onnx").is_file(), reason="no committed piece reader model"
)
def test_a_named_box_of_bare_cloth_loses_its_name_above_the_weak_names_score() -> None:
    """`table_like_bare_names`: a box found at 0.58 showing only the cloth (share 1.00, a
    yellow polka cloth named cheese) loses its name; a true card found as weakly, whose border
    and picture keep its share at 0.92, and a box of bare cloth found surely (0.65) keep theirs."""

    detections = make(["card"] * 3).with_fields(
        scores=np.array([0.58, 0.58, 0.65], np.float32),
        identities=np.array(["kings-breakfast/cheese"] * 3, object),
        identity_scores=np.array([0.99, 0.99, 0.99], np.float32),
    )
    shares = np.array([1.0, 0.92, 1.0])
    for bare, expected in ((None, ["cheese"] * 3), ((0.6, 0.95), [None, "cheese", "cheese"])):
        perception = _colour_only(
            table_like_share=0.75, table_like_name_share=0.6, table_like_bare_names=bare
        )
        kept, _ = perception._table_like(detections, [None] * 3, shares)
        names = [None if i is None else i.partition("/")[2] for i in kept.identities]
        assert names == expected


@pytest.mark.skipif(
    not (MODELS / "piece_reader.onnx").is_file(), reason="no committed piece reader model"
)
def test_with_a_margin_a_named_piece_guards_only_boxes_about_as_table_coloured_as_itself() -> None:
    """`table_like_margin`: a purple cake card on a purple cloth (share 0.78) no longer keeps a
    box of bare cloth (share 1.00) beside the spread: the card's border and picture keep its
    share lower. A weak box about as table-coloured as the card (a cake card found weakly)
    is still kept."""
    from vision.identify import Identifier
    from vision.pipeline import Perception, PerceptionConfig

    detections = make(["card"] * 3).with_fields(
        scores=np.array([0.8, 0.15, 0.2], np.float32),
        identities=np.array(["kings-breakfast/cake", None, None], object),
        identity_scores=np.array([0.99, 0.0, 0.0], np.float32),
    )
    shares = np.array([0.78, 1.0, 0.8])
    for margin, expected in ((None, 3), (0.1, 2)):
        config = PerceptionConfig(
            piece_reader="off", table_like_share=0.75, table_like_margin=margin
        )
        perception = Perception(config, identifier=Identifier(_empty_gallery()), games=None)
        kept, _ = perception._table_like(detections, [None] * 3, shares)
        assert len(kept) == expected
        assert kept.scores.tolist()[-1] == pytest.approx(0.2)  # the cake-like box stays


@pytest.mark.skipif(
    not (MODELS / "piece_reader.onnx").is_file(), reason="no committed piece reader model"
)
def test_surely_named_tiles_dressed_in_the_cloths_colours_keep_their_names() -> None:
    """`table_like_sure_names`: a weak Café tile named at 0.9999 whose guest wears the cloth's
    colours (share 0.7) keeps its name; one named less surely, one showing the cloth almost
    everywhere (share 0.9) and a card at 0.9999 (a polka cloth named cheese) lose theirs."""
    from vision.identify import Identifier
    from vision.pipeline import Perception, PerceptionConfig

    detections = make(["tile", "tile", "tile", "card"]).with_fields(
        scores=np.array([0.45, 0.45, 0.45, 0.45], np.float32),
        identities=np.array(
            [
                "cafe-international/italy/w",
                "cafe-international/uk/m",
                "cafe-international/spain/m",
                "kings-breakfast/cheese",
            ],
            object,
        ),
        identity_scores=np.array([0.9999, 0.96, 0.9999, 0.9999], np.float32),
    )
    shares = np.array([0.7, 0.7, 0.9, 0.7])
    sure = PerceptionConfig(
        piece_reader="off",
        table_like_share=0.75,
        table_like_name_share=0.6,
        table_like_sure_names={"tile": (0.999, 0.85)},
    )
    perception = Perception(sure, identifier=Identifier(_empty_gallery()), games=None)
    kept, _ = perception._table_like(detections, [None] * 4, shares)
    assert list(kept.identities) == ["cafe-international/italy/w", None, None, None]
    plain = Perception(
        PerceptionConfig(piece_reader="off", table_like_share=0.75, table_like_name_share=0.6),
        identifier=Identifier(_empty_gallery()),
        games=None,
    )
    kept, _ = plain._table_like(detections, [None] * 4, shares)
    assert list(kept.identities) == [None] * 4


def test_a_box_the_piece_reader_is_sure_shows_a_piece_is_not_dropped_as_the_table() -> None:
    """`table_like_keep_faces`: under a warm lamp a blurred Dice King card's colours matched a
    confetti cloth's; the reader was sure it showed a card (0.000 no piece) but of no one face.
    Dropped as the table, the pile was scored a card short (DK-25: every card of the kingdom
    counts); kept unnamed, the photo is asked again. A box the reader takes for cloth, or did
    not read, or the detector found weakly, is still dropped by its colours."""

    detections = make(["card"] * 5).with_fields(
        scores=np.array([0.9, 0.5, 0.5, 0.5, 0.3], np.float32),
        identities=np.array(["dice-king/penalty-3", None, None, None, None], object),
        identity_scores=np.array([0.99, 0.0, 0.0, 0.0, 0.0], np.float32),
    )
    shares = np.array([0.2, 0.9, 0.9, 0.9, 0.9])
    no_piece = np.array([0.0, 0.0, 0.98, np.nan, 0.0])

    def kept(keep_faces: dict[str, tuple[float, float]]) -> int:
        perception = _colour_only(
            table_like_share=0.75, table_like_below_score=0.6, table_like_keep_faces=keep_faces
        )
        return len(perception._table_like(detections, [None] * 5, shares, no_piece)[0])

    assert kept({}) == 1  # the colours decide: every weak unnamed box goes
    # the box found at 0.5 that the reader is sure shows a card stays; one found at 0.3 (the
    # empty place in a spread's grid, which the reader gives a face as surely) goes
    assert kept({"card": (0.45, 0.05)}) == 2
    assert kept({"tile": (0.45, 0.05)}) == 1  # another kind's setting


def test_a_weak_card_box_of_bare_cloth_is_dropped_even_beside_cards_of_the_cloths_colours() -> None:
    """`table_like_unguarded_below`: on a yellow polka cloth with white dots the cheese cards'
    share of the table's colours is 0.97, so they guarded a box of bare cloth below the spread
    (found at 0.26, share 0.99) and the king's photo was asked again (KB-21 scores need every
    food counted). With the rule such a weak card box goes; a box found surer (0.45, as a weak
    true card is) is still kept by the named cheese card, and so is a weak tile box (tiles
    are found weakly in far hands)."""

    detections = make(["card", "card", "card", "tile"]).with_fields(
        scores=np.array([0.8, 0.26, 0.45, 0.26], np.float32),
        identities=np.array(["kings-breakfast/cheese", None, None, None], object),
        identity_scores=np.array([0.99, 0.0, 0.0, 0.0], np.float32),
    )
    shares = np.array([0.97, 0.99, 0.95, 0.99])

    def kept(unguarded: dict[str, float]) -> list[float]:
        perception = _colour_only(
            table_like_share=0.75,
            table_like_below_score=0.6,
            table_like_margin=0.1,
            table_like_unguarded_below=unguarded,
        )
        return perception._table_like(detections, [None] * 4, shares)[0].scores.tolist()

    assert kept({}) == pytest.approx([0.8, 0.26, 0.45, 0.26])  # the cheese card guards all
    assert kept({"card": 0.35}) == pytest.approx([0.8, 0.45, 0.26])


def test_a_weak_tile_box_the_reader_names_apart_from_named_tiles_is_not_dropped_as_the_table() -> (
    None
):
    """`table_like_keep_read_alone`: a USA tile (white and red stripes) on a pink-dotted cloth,
    found at 0.26 (under the tiles' naming floor) and read USA at 0.999 by the piece reader,
    was dropped for its colours and the hand was scored a tile short (CI-22: every tile left in
    a hand counts). Kept, it stays unnamed and the photo is asked again. A box half on a named
    tile (which reads that tile's face as surely), and one the reader is less sure of, are
    still dropped."""

    detections = make(["tile"] * 4).with_fields(
        boxes_xyxy=np.array(
            [
                [100, 100, 160, 160],
                [300, 100, 360, 160],
                [130, 100, 190, 160],
                [500, 100, 560, 160],
            ],
            np.float32,
        ),
        scores=np.array([0.9, 0.26, 0.26, 0.26], np.float32),
        identities=np.array(["cafe-international/cuba/m", None, None, None], object),
        identity_scores=np.array([0.99, 0.0, 0.0, 0.0], np.float32),
    )
    shares = np.array([0.5, 0.95, 0.95, 0.95])
    face_odds = np.array([0.99, 0.999, 0.999, 0.9])

    def kept(keep: dict[str, tuple[float, float]]) -> list[list[float]]:
        perception = _colour_only(
            table_like_share=0.75,
            table_like_below_score=0.6,
            table_like_margin=0.1,
            table_like_keep_read_alone=keep,
        )
        out = perception._table_like(detections, [None] * 4, shares, None, face_odds)[0]
        return out.boxes_xyxy[:, 0].tolist()

    assert kept({}) == [100]  # the colours decide
    assert kept({"tile": (0.99, 0.3)}) == [100, 300]
    assert kept({"card": (0.99, 0.3)}) == [100]  # another kind's setting


def test_a_weak_tile_box_the_reader_doubts_is_dropped_beside_tiles_unless_larger() -> None:
    """`weak_not_pieces`: on a busy cloth the detector boxed the cloth where a hand's next tile
    would lie (found at 0.42, no piece 0.71) and the photo was asked again (CI-22 needs every
    tile of a hand). Such a box goes; so does none of: a box found surer, one the reader finds
    a tile in, one far larger than the named tiles (a USA tile boxed with a polka dot, no piece
    0.81), another kind's box, or a named one."""

    detections = make(["tile"] * 7 + ["card"]).with_fields(
        boxes_xyxy=np.array(
            [
                [100, 100, 150, 150],
                [160, 100, 210, 150],
                [220, 100, 268, 148],  # cloth at the grid's next place
                [280, 100, 330, 150],  # found surer
                [100, 160, 150, 210],  # a tile the reader reads
                [160, 160, 230, 230],  # a tile boxed with cloth around it: 1.96 x the area
                [240, 160, 290, 210],  # named
                [300, 160, 350, 210],  # a card's box
            ],
            np.float32,
        ),
        scores=np.array([0.9, 0.8, 0.42, 0.75, 0.42, 0.45, 0.4, 0.4], np.float32),
        identities=np.array(
            ["cafe-international/cuba/m", "cafe-international/uk/w", None, None, None, None]
            + ["cafe-international/usa/w", None],
            object,
        ),
    )
    no_piece = np.array([0.0, 0.0, 0.71, 0.71, 0.01, 0.81, 0.5, 0.9])

    def dropped(settings: dict[str, tuple[float, float, float, float]]) -> list[int]:
        perception = _colour_only(weak_not_pieces=settings)
        frame = np.zeros((400, 400, 3), np.uint8)  # unread: no piece reader here
        return np.flatnonzero(perception._weak_not_pieces(frame, detections, no_piece)).tolist()

    assert dropped({}) == []
    assert dropped({"tile": (0.7, 0.3, 1.3, 0.1)}) == [2]
    assert dropped({"tile": (0.7, 0.8, 1.3, 0.1)}) == []  # the reader not that sure
    assert dropped({"tile": (0.7, 0.3, 2.0, 0.1)}) == [2, 5]
    # too few named pieces to judge the size: kept
    lone = detections[[0, 2]]
    perception = _colour_only(weak_not_pieces={"tile": (0.7, 0.3, 1.3, 0.1)})
    assert not perception._weak_not_pieces(
        np.zeros((9, 9, 3), np.uint8), lone, no_piece[[0, 2]]
    ).any()


def test_a_weak_tile_named_surely_apart_from_other_boxes_keeps_its_name() -> None:
    """`weak_names_alone`: at 1280 x 720 the detector finds whole Café tiles at only 0.22-0.29,
    under the tiles' naming floor, and the photo was asked again though the reader named them
    at 0.999 or more (CI-22 needs every tile of a hand). Such a tile keeps its name; one named
    less surely, one of another size than its fellows (a bit of cloth), one lying on another
    box, one found weaker still, and another kind's piece do not."""

    detections = make(["tile"] * 8 + ["card"]).with_fields(
        boxes_xyxy=np.array(
            [
                [100, 100, 150, 150],
                [160, 100, 210, 150],
                [220, 100, 270, 150],  # weak, sure, apart: keeps its name
                [280, 100, 330, 150],  # named less surely
                [340, 100, 355, 115],  # a tenth of a tile's area
                [190, 160, 240, 210],  # a third under the next box
                [220, 170, 270, 220],  # ... and that box
                [400, 100, 450, 150],  # found at 0.1
                [460, 100, 510, 150],  # a card's box
            ],
            np.float32,
        ),
        scores=np.array([0.9, 0.8, 0.25, 0.25, 0.25, 0.25, 0.25, 0.1, 0.25], np.float32),
        identities=np.array(
            ["cafe-international/cuba/m", "cafe-international/uk/w"]
            + ["cafe-international/usa/w"] * 7,
            object,
        ),
        identity_scores=np.array(
            [0.99, 0.99, 0.9995, 0.99, 0.9995, 0.9995, 0.9995, 0.9995, 0.9995], np.float32
        ),
    )

    def kept(settings: dict[str, tuple[float, float, float, float]]) -> list[int]:
        perception = _colour_only(weak_names_alone=settings)
        return np.flatnonzero(perception._weak_names_alone(detections)).tolist()

    assert kept({}) == []
    assert kept({"tile": (0.2, 0.999, 1.3, 0.15)}) == [2]
    assert kept({"tile": (0.2, 0.999, 1.3, 0.5)}) == [2, 5, 6]
    assert kept({"tile": (0.05, 0.999, 1.3, 0.15)}) == [2, 7]
