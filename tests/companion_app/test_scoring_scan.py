"""The Scoring screen's photo scan: a camera picture of a player's spread pieces fills that row.

The photos are rendered spreads (`datasets.state_render.render_spread`, eval split) read by the
real scoring-photo pipeline and models, as `table-companion score` reads them; each seed below is
one such photo. A refused photo, or one that cannot be read, must change nothing.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from companion_app.i18n import Translator
from companion_app.viewmodels.scoring import (
    SCAN_NAMED_BGR,
    SCAN_UNNAMED_BGR,
    ScanResult,
    ScoringViewModel,
    annotate_scan,
    scoring_for,
)
from datasets.state_render import render_spread
from engines.dice_king.catalogue import companion_deck
from engines.dice_king.scoring import score_kingdom
from engines.kings_breakfast import FOODS


def _form(game: str, players: list[str]) -> ScoringViewModel:
    return scoring_for(game, players, Translator("en"))


def test_kb19_king_and_hand_photos_fill_their_rows() -> None:
    """KB-19..KB-23: the king's area and a hand, each from its photo, give the counted scores."""
    form = _form("kings-breakfast", ["Anna", "Ben"])
    form.set_count("Ben", "ham", 2)  # another row is left alone
    king = ["cheese"] * 3 + ["bread"] * 2
    hand = ["cheese"] * 2 + ["wine"]
    for row, foods, seed in (("king", king, 31), ("Anna", hand, 32)):
        frame, _ = render_spread([f"kings-breakfast/{f}" for f in foods], seed)
        result = form.scan(row, frame)
        assert result.ok, result.problems
        assert result.filled == {food: Counter(foods)[food] for food in FOODS}
    assert form.count("king", "cheese") == 3 and form.count("Anna", "wine") == 1
    assert form.count("Ben", "ham") == 2
    # KB-21: Anna's 2 cheese against the king's 3 score 2 × 3; KB-22: her wine (the king has
    # none) scores 0
    assert form.result()["players"]["Anna"]["by_food"] == {"cheese": 6, "wine": 0}


def test_ci22_tiles_left_in_hand_from_a_photo_keep_the_running_points() -> None:
    """CI-22: the photo counts the guests and jokers left in hand; the points stay the game's."""
    form = _form("cafe-international", ["Anna", "Ben"])
    form.set_count("Anna", "points", 57)
    tiles = ["italy/w", "usa/m", "joker/w"]
    frame, _ = render_spread([f"cafe-international/{t}" for t in tiles], 41)
    result = form.scan("Anna", frame)
    assert result.ok, result.problems
    assert result.filled == {"tiles": 2, "jokers": 1}
    assert form.result()["players"]["Anna"]["total"] == 57 - 2 * 5 - 10


def test_dk25_kingdom_photo_fills_the_parts_of_its_score() -> None:
    """DK-25: a photographed kingdom pile is scored part by part with the companion deck."""
    form = _form("dice-king", ["Anna"])
    deck = companion_deck()
    pile = [card.id for card in deck.cards[:5]]
    frame, _ = render_spread([f"dice-king/{c}" for c in pile], 51)
    result = form.scan("Anna", frame)
    assert result.ok, result.problems
    assert sorted(result.seen["cards"]) == sorted(pile)
    # every piece it took into account is there to be shown, named
    assert sorted(str(name) for _, name in result.pieces) == sorted(f"dice-king/{c}" for c in pile)
    assert form.result()["players"]["Anna"]["total"] == score_kingdom(deck, pile).total


@pytest.mark.parametrize(
    "frame",
    [
        np.full((480, 640, 3), 128, np.uint8),  # an empty table: no pieces
        np.zeros((1, 1, 3), np.uint8),  # a frame too small to read
    ],
    ids=["no-pieces", "1x1"],
)
def test_a_refused_photo_changes_nothing_and_says_why(frame: np.ndarray) -> None:
    form = _form("kings-breakfast", ["Anna"])
    form.set_count("Anna", "cheese", 4)
    result = form.scan("Anna", frame)
    assert not result.ok and result.filled == {}
    assert result.problems and all(isinstance(p, str) and p for p in result.problems)
    assert form.count("Anna", "cheese") == 4


def test_a_photo_of_another_game_is_refused() -> None:
    form = _form("dice-king", ["Anna"])
    frame, _ = render_spread(["kings-breakfast/cheese", "kings-breakfast/ham"], 61)
    result = form.scan("Anna", frame)
    assert not result.ok
    assert form.count("Anna", "inhabitants") == 0


def test_only_rows_of_pieces_can_be_scanned() -> None:
    form = _form("dice-king", ["Anna"])
    with pytest.raises(ValueError, match="row 'king'"):
        form.scan("king", np.zeros((480, 640, 3), np.uint8))
    generic = ScoringViewModel(["Anna"], Translator("en"))
    assert generic.scannable_rows() == []


def test_the_scanned_picture_boxes_named_pieces_green_and_unidentified_ones_red() -> None:
    frame = np.full((300, 400, 3), 128, np.uint8)
    result = ScanResult(
        "Anna",
        {},
        ("a card in the photo of Anna's cards could not be identified",),
        pieces=(((10, 10, 60, 80), "kings-breakfast/cheese"), ((200, 40, 260, 120), None)),
    )
    picture = annotate_scan(frame, result)
    assert tuple(picture[40, 10]) == SCAN_NAMED_BGR  # the named card's left edge
    assert tuple(picture[80, 200]) == SCAN_UNNAMED_BGR  # the unidentified card's left edge
    assert tuple(picture[150, 300]) == (128, 128, 128)  # the table elsewhere untouched
    assert int(frame.std()) == 0  # the camera's frame itself is not drawn on
