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
    """A reader never guesses: every problem is reported and no observation is given."""
    cards = [
        piece("card", zone_point(ZONES, "offer", SIZE), None),
        piece("card", zone_point(ZONES, "king", SIZE), "dice-king/snob-1"),
        _card("emeralds", "cake"),
    ]
    reading = read_table(detections(cards), SIZE)
    assert reading.observation is None and not reading.ok
    assert reading.problems == (
        "a card in the offer zone could not be identified",
        "a dice-king piece (dice-king/snob-1) is not a kings-breakfast piece",
        "a cake card lies in the emeralds zone",
    )


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
