"""King's Breakfast reader: counts per food per zone, spread photos, problems not guesses."""

from __future__ import annotations

from engines.kings_breakfast.explain import Observation
from tests.vision.readers.factories import detections, piece, zone_point
from vision.readers.kings_breakfast import read_spread, read_table
from vision.readers.zones import default_zones

SIZE = (800, 600)
ZONES = default_zones("kings-breakfast")


def _card(zone: str, food: str, shift: float = 0.0) -> dict:
    return piece("card", zone_point(ZONES, zone, SIZE, shift), f"kings-breakfast/{food}")


def test_kb6_kb15_cards_are_counted_in_their_zones() -> None:
    """KB-6, KB-15: the offer and the king's area are counted per food; KB-7: an Emerald in the
    offer lies on the table."""
    cards = [
        _card("offer", "ham", -0.2),
        _card("offer", "ham", 0.1),
        _card("offer", "emerald"),
        _card("king", "cheese"),
        _card("emeralds", "emerald"),
        _card("reveal", "emerald"),
    ]
    reading = read_table(detections(cards), SIZE)
    assert reading.ok
    assert reading.observation == Observation.from_counts(
        offer={"ham": 2}, king={"cheese": 1}, emeralds=2, revealed=1
    )
    assert reading.seen["offer"] == {"ham": 2}


def test_cards_outside_every_zone_are_ignored() -> None:
    """The deck and the players' hands lie outside the zones."""
    outside = piece("card", (2.0, 598.0), None)
    reading = read_table(detections([_card("offer", "wine"), outside]), SIZE)
    assert reading.ok and reading.observation.offer[4] == 1


def test_unidentified_foreign_and_misplaced_cards_are_problems() -> None:
    """A reader never guesses: every problem is reported and no observation is given (KB-12:
    only an Emerald lies in the Emeralds zone, so an unidentified card there is a problem)."""
    cards = [
        piece("card", zone_point(ZONES, "emeralds", SIZE), None),
        piece("card", zone_point(ZONES, "king", SIZE), "dice-king/snob-1"),
        _card("emeralds", "cake"),
    ]
    reading = read_table(detections(cards), SIZE)
    assert reading.observation is None and not reading.ok
    assert reading.problems == (
        "a card in the emeralds zone could not be identified",
        "a dice-king piece (dice-king/snob-1) is not a kings-breakfast piece",
        "a cake card lies in the emeralds zone",
    )


def test_kb6_kb15_unidentified_offer_and_king_cards_are_unknown() -> None:
    """KB-6, KB-15: a card in the offer or the king's area that could not be identified is
    counted as an unknown card of its zone (the rules decide which it can be, KB-7: in the
    offer an Emerald too); the reading is used, and the user is told in the notes."""
    unknown = [
        piece("card", zone_point(ZONES, "offer", SIZE, 0.2), None),
        piece("card", zone_point(ZONES, "king", SIZE, -0.2), None),
        piece("card", zone_point(ZONES, "king", SIZE, 0.2), None),
    ]
    cards = [_card("offer", "ham", -0.2), _card("king", "cheese"), *unknown]
    reading = read_table(detections(cards), SIZE)
    assert reading.ok and not reading.problems
    assert reading.observation == Observation.from_counts(
        offer={"ham": 1}, king={"cheese": 1}, offer_unknown=1, king_unknown=2
    )
    assert reading.seen["unidentified"] == {"king": 2, "offer": 1}
    assert reading.seen["notes"] == [
        "2 cards in the king zone could not be identified",
        "a card in the offer zone could not be identified",
    ]
    assert reading.seen["offer"] == {"ham": 1} and reading.seen["king"] == {"cheese": 1}


def test_kb6_a_fully_identified_table_has_no_unknown_and_no_notes() -> None:
    """KB-6: without unidentified cards the reading is as before (no unknown counts, no notes)."""
    reading = read_table(detections([_card("offer", "ham"), _card("king", "wine")]), SIZE)
    assert reading.ok
    assert reading.observation.offer_unknown == 0 and reading.observation.king_unknown == 0
    assert "unidentified" not in reading.seen and "notes" not in reading.seen


def test_kb12_an_unidentified_card_in_the_reveal_area_is_still_a_problem() -> None:
    """KB-12: only a drawn Emerald is shown in the reveal area: an unidentified card there is a
    problem, even beside unknown cards of the offer (which stay in the notes)."""
    cards = [
        piece("card", zone_point(ZONES, "reveal", SIZE), None),
        piece("card", zone_point(ZONES, "offer", SIZE), None),
    ]
    reading = read_table(detections(cards), SIZE)
    assert not reading.ok and reading.observation is None
    assert reading.problems == ("a card in the reveal zone could not be identified",)
    assert reading.seen["unidentified"] == {"offer": 1}


def test_kb19_a_spread_photo_with_an_unidentified_card_is_refused() -> None:
    """KB-19, KB-21: a score is never computed from an unknown card: the spread is refused."""
    cards = [
        piece("card", (100, 100), "kings-breakfast/ham"),
        piece("card", (160, 100), None),
    ]
    reading = read_spread(detections(cards), what="king photo")
    assert reading.observation is None
    assert reading.problems == (
        "a card in the king photo could not be identified (right of the spread)",
    )
    assert reading.seen["unidentified"] == 1


def test_kb19_a_spread_hand_is_counted_and_an_empty_photo_refused() -> None:
    """KB-19: a spread hand's foods are counted; a photo without cards is a problem."""
    cards = [
        piece("card", (100 + 30 * i, 100), f"kings-breakfast/{f}")
        for i, f in enumerate(["ham", "ham", "bread", "emerald"])
    ]
    reading = read_spread(detections(cards), allow_emerald=True)
    assert reading.observation == {"ham": 2, "bread": 1, "emerald": 1}
    assert read_spread(detections(cards)).problems[0].startswith("an emerald card in the photo")
    assert read_spread(detections([]), what="king photo").problems == (
        "no cards found in the king photo",
    )


def test_kb19_an_unidentified_tile_on_a_card_is_set_aside_elsewhere_refused() -> None:
    """KB-19: King's Breakfast has no tiles. A "tile" the detector saw on a card's picture
    does not refuse the photo; one elsewhere might be a card it took for a tile, so the photo is
    refused (never a score short of a card); a piece of another game is reported."""
    cards = [
        piece("card", (100, 100), "kings-breakfast/ham", half=40.0),
        piece("tile", (105, 95), None, half=12.0),
    ]
    reading = read_spread(detections(cards), what="king photo")
    assert reading.observation == {"ham": 1}
    assert reading.seen["ignored"] == 1
    apart = [*cards, piece("tile", (300, 300), None)]
    assert read_spread(detections(apart)).problems == (
        "a card in the photo could not be identified (bottom right of the spread)",
    )
    foreign = [*cards, piece("tile", (400, 300), "cafe-international/italy/m")]
    assert "is not a kings-breakfast piece" in read_spread(detections(foreign)).problems[0]


def test_kb19_a_card_much_smaller_than_the_others_refuses_the_photo() -> None:
    """KB-19: spread cards are all about one size in a photo from above; a named "card" under
    half their size (a dot of the tablecloth) refuses the photo instead of being counted."""
    cards = [
        piece("card", (100 + 90 * i, 100), f"kings-breakfast/{f}", half=40.0)
        for i, f in enumerate(["ham", "bread", "wine"])
    ]
    assert read_spread(detections(cards)).observation == {"ham": 1, "bread": 1, "wine": 1}
    dot = piece("card", (500, 100), "kings-breakfast/cheese", half=12.0)
    reading = read_spread(detections([*cards, dot]))
    assert reading.observation is None
    assert reading.problems[0].startswith("a card in the photo looks much smaller")
    # one named card alone has nothing to compare with
    assert read_spread(detections([dot])).observation == {"cheese": 1}


def test_kb19_an_unidentified_speck_among_named_cards_is_set_aside() -> None:
    """KB-19: an unidentified box under half the size of the named cards (a dot of the
    tablecloth) is no card of a spread (each at least half visible): set aside, the photo
    counted. With one named card alone to compare with, it still refuses the photo."""
    cards = [
        piece("card", (100 + 90 * i, 100), f"kings-breakfast/{f}", half=40.0)
        for i, f in enumerate(["ham", "bread", "wine"])
    ]
    speck = piece("card", (500, 100), None, half=12.0)
    reading = read_spread(detections([*cards, speck]))
    assert reading.observation == {"ham": 1, "bread": 1, "wine": 1}
    assert reading.seen["ignored"] == 1
    assert read_spread(detections([*cards[:2], speck])).observation == {"ham": 1, "bread": 1}
    assert read_spread(detections([cards[0], speck])).observation is None
    # an unidentified box of a card's size may be a card: the photo is asked again
    unsure = piece("card", (500, 100), None, half=35.0)
    assert read_spread(detections([*cards, unsure])).observation is None


def test_kb19_a_weak_box_on_part_of_a_named_card_is_set_aside() -> None:
    """KB-19: a box the detector found weakly (under 0.4) that lies mostly (0.7 or more)
    within a named card's box is a part of that card (spread cards are each at least half
    visible): set aside, the photo counted. Found surely, or lying less within (a third of it
    may lie on a card no box found), it may be a card of its own: the photo is asked again."""
    import numpy as np

    cards = [
        piece("card", (100 + 90 * i, 100), f"kings-breakfast/{f}", half=40.0)
        for i, f in enumerate(["ham", "bread", "wine"])
    ]
    part = piece("card", (115, 110), None, half=30.0)  # 0.92 of its box within the ham's

    def photo(extra: dict, score: float) -> object:
        found = detections([*cards, extra])
        return found.with_fields(scores=np.array([0.9, 0.9, 0.9, score], np.float32))

    reading = read_spread(photo(part, 0.25))
    assert reading.observation == {"ham": 1, "bread": 1, "wine": 1}
    assert reading.seen["ignored"] == 1
    assert read_spread(photo(part, 0.5)).observation is None  # found surely
    beside = piece("card", (145, 100), None, half=35.0)  # 0.43 within the ham, 0.43 the bread
    assert read_spread(photo(beside, 0.25)).observation is None
    astride = piece("card", (120, 115), None, half=35.0)  # 0.62 within the ham, the rest beyond
    assert read_spread(photo(astride, 0.25)).observation is None


def _in_column(zone: str, food: str | None, shift: float, row: int) -> dict:
    x, y = zone_point(ZONES, zone, SIZE, shift)
    return piece("card", (x + 2.0 * (row % 2), y - 12.0 * row), _id(food))


def _id(food: str | None) -> str | None:
    return None if food is None else f"kings-breakfast/{food}"


def test_kb6_kb15_a_pile_names_its_covered_cards() -> None:
    """KB-6, KB-15: one pile per food, fanned into a column: a covered card that could not be
    identified takes the food its column's identified cards name; a column naming two foods,
    or an Emerald (KB-7: it lies on its own), names nothing, and those cards stay unknown."""
    cards = [
        _in_column("offer", None, -0.3, 0),
        _in_column("offer", None, -0.3, 1),
        _in_column("offer", "ham", -0.3, 2),  # the pile's top card, identified
        _in_column("offer", "emerald", 0.0, 1),
        _in_column("offer", None, 0.0, 0),
        _in_column("king", "cheese", -0.2, 0),
        _in_column("king", None, -0.2, 1),
        _in_column("king", "wine", -0.2, 2),  # cheese and wine in one column: not a pile
        _in_column("king", None, 0.2, 0),
        _in_column("king", "bread", 0.2, 1),
    ]
    reading = read_table(detections(cards), SIZE)
    assert reading.ok
    assert reading.observation == Observation.from_counts(
        offer={"ham": 3},
        king={"cheese": 1, "wine": 1, "bread": 2},
        emeralds=1,
        offer_unknown=1,
        king_unknown=1,
    )
    assert reading.seen["named_by_pile"] == 3
