"""Dice King reader: dice, row, village tops, penalty, kingdoms; spread kingdom piles."""

from __future__ import annotations

from tests.vision.readers.factories import detections, piece, zone_point
from vision.readers.dice_king import read_spread, read_table
from vision.readers.zones import default_zones

SIZE = (800, 600)
ZONES = default_zones("dice-king", n_players=2)


def _card(zone: str, card: str) -> dict:
    return piece("card", zone_point(ZONES, zone, SIZE), f"dice-king/{card}")


def _die(value: int, colour: str | None, shift: float) -> dict:
    return piece(
        "die", zone_point(ZONES, "dice", SIZE, shift), value=value, colour=colour, half=4.0
    )


def test_dk6_dk8_the_table_is_read_slot_by_slot() -> None:
    """DK-6, DK-8, DK-10: row slots, village tops, the penalty top, the dice and kingdoms."""
    cards = [
        _card("row:0", "snob-1"),
        _card("row:4", "elf-2"),
        _card("village:0", "village-city-2"),
        _card("penalty", "penalty-3"),
        _card("kingdom:1", "orc-1"),
    ]
    dice = [_die(5, "r", -0.3), _die(2, "g", 0.0), _die(6, "b", 0.3)]
    reading = read_table(detections(cards + dice), SIZE, 2, ZONES)
    assert reading.ok
    obs = reading.observation
    assert obs.row == ("snob-1", None, None, None, "elf-2")
    assert obs.village_tops[0] == "village-city-2" and obs.penalty_top == "penalty-3"
    assert obs.dice == ("2g", "5r", "6b")
    assert obs.kingdom_tops == (None, "orc-1")


def test_dk1_an_unread_die_and_two_cards_in_a_slot_are_problems() -> None:
    """DK-1: a die without value or colour is not guessed; a slot holds one card."""
    cards = [_card("row:2", "snob-1"), _card("row:2", "snob-2")]
    reading = read_table(detections(cards + [_die(3, None, 0.0)]), SIZE, 2, ZONES)
    assert reading.observation is None
    assert "a die in the rolling area could not be read" in reading.problems
    assert "2 face-up cards in the row:2 zone: snob-1, snob-2" in reading.problems


def test_dk25_a_spread_kingdom_lists_its_cards_and_refuses_repeats() -> None:
    """DK-25: the cards of a spread kingdom pile; DK-4: a card seen twice is a problem."""
    ids = ["dice-king/snob-1", "dice-king/penalty-2", "dice-king/village-mine-3"]
    pile = [piece("card", (100 + 80 * i, 200), c) for i, c in enumerate(ids)]
    assert read_spread(detections(pile)).observation == ["penalty-2", "snob-1", "village-mine-3"]
    twice = pile + [piece("card", (500, 400), "dice-king/snob-1")]
    assert read_spread(detections(twice)).problems == ("card snob-1 seen 2 times in the photo",)
    foreign = [piece("card", (100, 100), "kings-breakfast/ham")]
    assert "is not a dice-king piece" in read_spread(detections(foreign)).problems[0]
