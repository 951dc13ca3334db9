"""Dice King reader: dice, row, village tops, penalty, kingdoms; spread kingdom piles."""

from __future__ import annotations

from engines.dice_king import UNKNOWN_CARD
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


def test_dk8_a_die_read_unsure_is_a_problem_when_a_least_score_is_asked() -> None:
    """DK-8: any six values are a legal throw, so the rules cannot catch a misread die; the
    live table asks for a least value score and an unsure die is not guessed."""
    dice = detections([_die(5, "r", -0.3), _die(2, "g", 0.0), _die(6, "b", 0.3)])
    scores = dice.die_value_scores.copy()
    scores[1] = 0.6
    dice = dice.with_fields(die_value_scores=scores)
    assert read_table(dice, SIZE, 2, ZONES).observation.dice == ("2g", "5r", "6b")
    reading = read_table(dice, SIZE, 2, ZONES, min_die_score=0.8)
    assert reading.observation is None
    assert reading.problems == ("a die in the rolling area could not be read",)
    assert read_table(dice, SIZE, 2, ZONES, min_die_score=0.6).ok


def test_dk25_a_spread_kingdom_lists_its_cards_and_refuses_repeats() -> None:
    """DK-25: the cards of a spread kingdom pile; DK-4: a card seen twice is a problem."""
    ids = ["dice-king/snob-1", "dice-king/penalty-2", "dice-king/village-mine-3"]
    pile = [piece("card", (100 + 80 * i, 200), c) for i, c in enumerate(ids)]
    assert read_spread(detections(pile)).observation == ["penalty-2", "snob-1", "village-mine-3"]
    twice = pile + [piece("card", (500, 400), "dice-king/snob-1")]
    assert read_spread(detections(twice)).problems == ("card snob-1 seen 2 times in the photo",)
    foreign = [piece("card", (100, 100), "kings-breakfast/ham")]
    assert "is not a dice-king piece" in read_spread(detections(foreign)).problems[0]


def test_dk4_an_unidentified_card_on_the_table_is_an_unknown_card_not_a_refusal() -> None:
    """DK-4, DK-6, DK-7: a card seen but not identified in a slot is `UNKNOWN_CARD` there (the
    rules try what it could be); the reading stays ok and says so in seen."""
    cards = [
        _card("row:0", "snob-1"),
        piece("card", zone_point(ZONES, "row:3", SIZE), None),
        piece("card", zone_point(ZONES, "penalty", SIZE), None),
        _card("kingdom:1", "orc-1"),
    ]
    reading = read_table(detections(cards + [_die(5, "r", 0.0)]), SIZE, 2, ZONES)
    assert reading.ok and reading.problems == ()
    obs = reading.observation
    assert obs.row == ("snob-1", None, None, UNKNOWN_CARD, None)
    assert obs.penalty_top == UNKNOWN_CARD and obs.kingdom_tops == (None, "orc-1")
    assert reading.seen["unidentified"] == ["penalty", "row:3"]
    assert reading.seen["notes"] == [
        "a card in the penalty zone could not be identified",
        "a card in the row:3 zone could not be identified",
    ]


def test_dk4_a_tile_guess_is_no_card_and_a_card_among_the_dice_is_refused() -> None:
    """DK-4, DK-8: Dice King has no tiles, so the detector's 'tile' guess on a card's box is not
    a second card in its slot; an unidentified card in the rolling area has no slot to stand in
    and is still a problem."""
    at = zone_point(ZONES, "penalty", SIZE)
    cards = [_card("penalty", "penalty-3"), piece("tile", at, None)]
    reading = read_table(detections(cards), SIZE, 2, ZONES)
    assert reading.ok and reading.observation.penalty_top == "penalty-3"
    stray = piece("card", zone_point(ZONES, "dice", SIZE), None)
    reading = read_table(detections([stray]), SIZE, 2, ZONES)
    assert reading.problems == ("a card in the dice zone could not be identified",)


def test_dk8_an_unidentified_card_box_around_dice_is_the_dice_not_a_card() -> None:
    """DK-8: from the tablet's view the detector also boxes a cluster of dice as a card (found
    on rendered tracked games: settled frames read 172 of 930 before, 514 after, 3 games);
    the dice are read on their own, so a card box holding a die's centre is not refused; one
    beside the dice still is."""
    dice = [_die(5, "r", -0.02), _die(2, "g", 0.0), _die(6, "b", 0.02)]
    around = piece("card", zone_point(ZONES, "dice", SIZE), None, half=14.0)
    reading = read_table(detections([*dice, around]), SIZE, 2, ZONES)
    assert reading.ok and reading.observation.dice == ("2g", "5r", "6b")
    beside = piece("card", zone_point(ZONES, "dice", SIZE, 0.4), None, half=8.0)
    reading = read_table(detections([*dice, beside]), SIZE, 2, ZONES)
    assert reading.problems == ("a card in the dice zone could not be identified",)


def test_dk25_a_spread_kingdom_still_refuses_an_unidentified_card() -> None:
    """DK-25: a score is never computed from an unknown card: the spread photo is refused."""
    pile = [
        piece("card", (100, 200), "dice-king/snob-1"),
        piece("card", (300, 200), None),
    ]
    reading = read_spread(detections(pile))
    assert reading.observation is None
    assert reading.problems == (
        "a card in the photo could not be identified (right of the spread)",
    )


def test_dk25_an_unidentified_tile_on_a_card_is_set_aside() -> None:
    """DK-25: Dice King has no tiles; an unidentified "tile" on a card's picture is counted as
    ignored, one beside the cards refuses the photo (it may be a card taken for a tile)."""
    pile = [
        piece("card", (100, 200), "dice-king/snob-1", half=40.0),
        piece("tile", (100, 210), None, half=15.0),
    ]
    reading = read_spread(detections(pile))
    assert reading.observation == ["snob-1"] and reading.seen["ignored"] == 1
    apart = [*pile, piece("tile", (400, 200), None)]
    assert read_spread(detections(apart)).problems == (
        "a card in the photo could not be identified (right of the spread)",
    )


def test_dk3_dk25_penalty_cards_of_one_value_are_told_apart_by_count_not_face() -> None:
    """DK-3: penalty cards of equal value share one face, which the identifier names after the
    first of them; DK-25: in a kingdom photo they are the value's cards in turn (same score),
    and more of them than the deck holds is a problem."""
    three = [piece("card", (100 + 80 * i, 200), "dice-king/penalty-6") for i in range(3)]
    reading = read_spread(detections(three))
    assert reading.observation == ["penalty-6", "penalty-7", "penalty-8"]
    four = [*three, piece("card", (500, 200), "dice-king/penalty-6")]
    assert read_spread(detections(four)).problems == (
        "4 penalty cards of 3 in the photo: the deck has 3",
    )


def test_dk25_a_card_much_smaller_than_the_others_refuses_the_kingdom_photo() -> None:
    """DK-25: a kingdom pile spread for the photo shows cards of one size; a named "card" a
    third of their size is not one of them: the photo is refused, not scored."""
    cards = [
        piece("card", (100 + 90 * i, 100), f"dice-king/{c}", half=40.0)
        for i, c in enumerate(["elf-1", "orc-2"])
    ]
    assert read_spread(detections(cards)).observation == ["elf-1", "orc-2"]
    tiny = piece("card", (400, 100), "dice-king/penalty-9", half=13.0)
    assert (
        read_spread(detections([*cards, tiny]))
        .problems[0]
        .startswith("a card in the photo looks much smaller")
    )
