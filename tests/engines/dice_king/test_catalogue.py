"""DK-1 … DK-4: dice readings, villages, penalties, the companion deck and deck validation."""

from __future__ import annotations

import copy
import math
from collections import Counter
from typing import Any

import pytest

from engines.dice_king.advisor import start_probability
from engines.dice_king.catalogue import (
    ALL_READINGS,
    LOCATIONS,
    CardType,
    Colour,
    companion_deck,
    companion_dice,
    deck_from_json,
    dice_faces_from_json,
    load_deck,
    parse_dice,
    parse_reading,
    penalties,
    villages,
)
from engines.errors import MalformedError


def test_dk1_a_reading_is_value_and_colour() -> None:
    """DK-1: a die reads as (value, colour): '5r' is a red five."""
    reading = parse_reading("5r")
    assert (reading.value, reading.colour) == (5, Colour.RED)
    assert str(reading) == "5r"
    assert len(ALL_READINGS) == 18


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("7r", "value must be 1-6"),
        ("5x", "colour must be r, g or b"),
        ("0g", "1-6"),
        ("", "expected a value"),
    ],
)
def test_dk1_bad_readings_name_the_die(text: str, fragment: str) -> None:
    """DK-1: a value outside 1–6 or an unknown colour is refused, naming the die."""
    with pytest.raises(MalformedError, match=fragment) as info:
        parse_dice([text, "1r", "2r", "3r", "4r", "5r"])
    assert "dice[0]" in str(info.value)


def test_dk1_six_dice_are_required() -> None:
    """DK-1: six dice."""
    with pytest.raises(MalformedError, match="six dice|6 dice"):
        parse_dice(["1r", "2r"])


def test_dk1_companion_dice_two_faces_of_each_colour_not_tied_to_values() -> None:
    """DK-1: six dice, two red, two green, two blue faces each; a value's colour varies by die.

    The companion dice are balanced: each value shows each colour on exactly two dice, so a die
    picked at random reads each of the 18 readings with probability 1/18.
    """
    dice = companion_dice()
    assert len(dice) == 6
    for faces in dice:
        assert Counter(faces) == {Colour.RED: 2, Colour.GREEN: 2, Colour.BLUE: 2}
    for value in range(6):
        assert Counter(faces[value] for faces in dice) == {c: 2 for c in Colour}


def test_dk1_dice_faces_validation() -> None:
    """DK-1: a die with three red faces is refused."""
    bad = [{"1": "r", "2": "r", "3": "r", "4": "g", "5": "b", "6": "b"}] * 6
    with pytest.raises(MalformedError, match="3 r faces"):
        dice_faces_from_json(bad)


def test_dk2_villages_five_locations_with_2_on_top_then_3_then_4() -> None:
    """DK-2: 15 villages, 5 locations × 2, 3, 4, in row order, the 2 on top."""
    stacks = villages()
    assert [stack[0].location for stack in stacks] == list(LOCATIONS)
    assert [loc.value for loc in LOCATIONS] == [
        "city",
        "mine",
        "workshop",
        "orc_village",
        "enchanted_forest",
    ]
    for stack in stacks:
        assert [v.points for v in stack] == [2, 3, 4]
    assert sum(len(stack) for stack in stacks) == 15


def test_dk3_ten_penalty_cards_with_values() -> None:
    """DK-3: 10 penalty cards, each with a positive value (edition data)."""
    cards = penalties()
    assert len(cards) == 10
    assert len({p.id for p in cards}) == 10
    assert all(p.points > 0 for p in cards)


def test_dk4_companion_deck_40_inhabitants_8_per_colour_all_ten_types() -> None:
    """DK-4: 40 inhabitants, each with a colour, points and a requirement; 8 per location."""
    deck = companion_deck()
    assert len(deck.cards) == 40
    assert Counter(card.colour for card in deck.cards) == dict.fromkeys(LOCATIONS, 8)
    assert Counter(card.type for card in deck.cards) == dict.fromkeys(CardType, 4)


def test_dk4_companion_points_follow_the_documented_formula() -> None:
    """DK-4 (edition data, COMPANION_DECK.md): points = clamp(round(1 + 3 ln(1/p)), 1, 9) where p
    is the exact chance of meeting the card within 3 rolls; fairies print 1 (DK-20)."""
    for card in companion_deck().cards:
        if card.type is CardType.FAIRY:
            assert card.points == 1
            continue
        p = start_probability(card.requirement, 3)
        assert card.points == min(9, max(1, round(1 + 3 * math.log(1 / p)))), card.id


def test_dk4_harder_cards_are_worth_more_within_a_type() -> None:
    """DK-4: within a type, a lower chance never earns fewer points."""
    cards = [c for c in companion_deck().cards if c.type is not CardType.FAIRY]
    for a in cards:
        for b in cards:
            if a.type is b.type and start_probability(a.requirement) < start_probability(
                b.requirement
            ):
                assert a.points >= b.points, (a.id, b.id)


def _deck() -> list[dict[str, Any]]:
    return copy.deepcopy([card.to_json() for card in companion_deck().cards])


def test_dk4_deck_json_round_trip() -> None:
    """DK-4: the deck format round-trips."""
    data = _deck()
    assert [c.to_json() for c in deck_from_json(data).cards] == data


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda d: d[0].update(type="wizard"), "unknown card type 'wizard'"),
        (lambda d: d[0].update(colour="purple"), "unknown colour 'purple'"),
        (lambda d: d[1].update(id=d[0]["id"]), "duplicate card id"),
        (lambda d: d[4].update(params={"length": 9}), "length must be 2-6"),
        (lambda d: d[4].update(params={}), "missing 'length'"),
        (lambda d: d[0].update(params={"count": 3}), "unexpected 'count'"),
        (lambda d: d[8].update(params={"values": [7]}), "values\\[0\\] must be 1-6"),
        (lambda d: d[12].update(params={"colours": {"x": 1}}), "unknown dice colour 'x'"),
        (lambda d: d[12].update(params={"colours": {"r": 5, "g": 3}}), "asks for 8 dice"),
        (lambda d: d[16].update(params={"groups": [4, 3]}), "more than six"),
        (lambda d: d[0].update(points=-1), "points must be 0-99"),
        (lambda d: d[0].pop("points"), "missing 'points'"),
        (lambda d: d[0].update(id="penalty-1"), "reserved"),
        (lambda d: d[0].update(extra=1), "unexpected field 'extra'"),
    ],
)
def test_dk4_malformed_decks_name_the_problem(change: Any, fragment: str) -> None:
    """DK-4: unknown type, bad params, wrong colour name, duplicate id … are named."""
    data = _deck()
    change(data)
    with pytest.raises(MalformedError, match=fragment):
        deck_from_json(data)


def test_dk4_user_deck_from_a_file_and_inline(tmp_path: Any) -> None:
    """DK-4: users load their own deck file instead of the companion deck."""
    import json

    path = tmp_path / "my_deck.json"
    path.write_text(json.dumps(_deck()), encoding="utf-8")
    from_file = load_deck(str(path))
    assert from_file.source == str(path)
    assert from_file.cards == companion_deck().cards
    inline = load_deck(_deck()[:3])
    assert inline.source is None and len(inline.cards) == 3
    with pytest.raises(MalformedError, match="cannot read deck"):
        load_deck(str(tmp_path / "missing.json"))
    with pytest.raises(MalformedError, match="must be 'companion'"):
        load_deck(42)
