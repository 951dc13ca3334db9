"""Dice King reader: the dice, the row under its village stacks, the penalty pile, kingdom tops.

`read_table` places identified cards and read dice by zone (`vision.readers.zones`, Dice King
defaults): ``row:k`` and ``village:k`` for the five slots (DK-6, DK-10), ``penalty`` (DK-7),
``dice`` (the rolling area, DK-8) and ``kingdom:p`` per player. `read_spread` lists the cards of one
photo of a player's kingdom pile spread out, for scoring (DK-25). Unread dice, another game's pieces
and two cards in one slot are problems, never guesses. A card on the table that could not be
identified shows `UNKNOWN_CARD` in its slot (the rules' `explain` tries every card it could be and
asks when several fit), listed in ``seen["unidentified"]`` and told in ``seen["notes"]``;
`read_spread` refuses every unidentified card (a score is never computed from an unknown card).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from engines.dice_king.explain import UNKNOWN_CARD, Observation
from vision.detections import Detections
from vision.readers import (
    Reading,
    card_centres,
    foreign_problem,
    small_pieces,
    spread_pieces,
    unidentified_problem,
)
from vision.readers.zones import Zones, default_zones

GAME = "dice-king"
PREFIX = GAME + "/"
SLOTS = 5


def read_table(
    detections: Detections,
    frame_size: tuple[int, int],
    n_players: int,
    zones: Zones | None = None,
    *,
    min_die_score: float = 0.0,
) -> Reading:
    """Cards and dice by zone → an `Observation`, or the problems that prevent one.

    A die in the rolling area read less sure than `min_die_score` (its value-and-colour score)
    is a problem, as an unread one is: any six values are a legal throw, so the rules cannot
    catch a misread die.

    An unidentified card in a slot is `UNKNOWN_CARD` there (not a problem);
    ``seen["unidentified"]`` lists the zones and ``seen["notes"]`` says so.
    """
    zones = zones or default_zones(GAME, n_players=n_players)
    centres = card_centres(detections)
    where = zones.zone_of(centres, frame_size)
    in_dice_zone = np.array([zone == "dice" for zone in where], bool)
    dice_centres = np.asarray(centres, np.float64).reshape(-1, 2)[
        in_dice_zone & (detections.kinds == "die")
    ]
    places: dict[str, list[str]] = {}
    dice: list[str] = []
    problems: list[str] = []
    unknown: list[str] = []
    for i, zone in enumerate(where):
        if zone is None:
            continue
        kind = detections.kinds[i]
        if kind == "die":
            if zone != "dice":
                continue  # a die left aside is not part of the roll
            value, colour = int(detections.die_values[i]), detections.die_colours[i]
            if value == 0 or colour is None or detections.die_value_scores[i] < min_die_score:
                problems.append("a die in the rolling area could not be read")
            else:
                dice.append(f"{value}{colour}")
            continue
        if kind != "card":
            continue  # Dice King has no tiles: a 'tile' is the detector's second guess at a card
        identity = detections.identities[i]
        if identity is None and zone == "dice":
            if _holds_dice(detections.boxes_xyxy[i], dice_centres):
                continue  # a box around dice the detector also called a card: they are dice
            problems.append(f"a card in the {zone} zone could not be identified")
            continue  # no card slot there to hold an unknown card
        if identity is None:
            unknown.append(zone)  # some card lies there: the rules decide which
            places.setdefault(zone, []).append(UNKNOWN_CARD)
            continue
        if not str(identity).startswith(PREFIX):
            problems.append(foreign_problem(str(identity), GAME))
            continue
        places.setdefault(zone, []).append(str(identity)[len(PREFIX) :])
    for zone, cards in sorted(places.items()):
        if len(cards) > 1 and zone != "dice":
            problems.append(
                f"{len(cards)} face-up cards in the {zone} zone: {', '.join(sorted(cards))}"
            )
    if len(dice) > 6:
        problems.append(f"{len(dice)} dice in the rolling area (there are 6)")

    def one(zone: str) -> str | None:
        cards = places.get(zone, [])
        return cards[0] if cards else None

    seen: dict[str, Any] = {
        "zones": {zone: sorted(cards) for zone, cards in sorted(places.items())},
        "dice": sorted(dice),
    }
    if unknown:
        # information for the user, not a reason to refuse the table
        seen["unidentified"] = sorted(unknown)
        seen["notes"] = [
            f"a card in the {zone} zone could not be identified" for zone in sorted(unknown)
        ]
    if problems:
        return Reading(None, tuple(dict.fromkeys(problems)), seen)
    observation = Observation(
        row=tuple(one(f"row:{k}") for k in range(SLOTS)),
        village_tops=tuple(one(f"village:{k}") for k in range(SLOTS)),
        penalty_top=one("penalty"),
        dice=tuple(sorted(dice)),
        kingdom_tops=tuple(one(f"kingdom:{p}") for p in range(n_players)),
    )
    return Reading(observation, (), seen)


def _holds_dice(box: np.ndarray, dice_centres: np.ndarray) -> bool:
    """Whether a box holds the centre of a die found on its own."""
    inside = (dice_centres >= box[:2]) & (dice_centres <= box[2:])
    return bool(inside.all(axis=1).any())


def _spread_penalties(ids: list[str], what: str) -> tuple[list[str], list[str]]:
    """Penalty cards of one value have one face (DK-3): the identifier names the class after its
    first card, so three "3" penalties all come back as one id. They are the value's cards in
    turn (the score is the same, DK-25): a name seen twice becomes another card of its value
    not named in the photo; more than the deck has is a problem."""
    from engines.dice_king.catalogue import penalties

    by_points: dict[int, list[str]] = {}
    for card in penalties():
        by_points.setdefault(card.points, []).append(card.id)
    points_of = {card_id: points for points, cards in by_points.items() for card_id in cards}
    out = [i for i in ids if i not in points_of]
    problems = []
    for points, cards in sorted(by_points.items()):
        named = [i for i in ids if points_of.get(i) == points]
        if len(named) > len(cards):
            problems.append(
                f"{len(named)} penalty cards of {points} in the {what}: the deck has {len(cards)}"
            )
        # the names seen stay; each repeat becomes one of the value's cards not named yet
        distinct = list(dict.fromkeys(named))
        spare = [c for c in cards if c not in distinct]
        out.extend(distinct + spare[: len(named) - len(distinct)])
    return out, problems


def read_spread(detections: Detections, *, what: str = "photo") -> Reading:
    """The card ids of one photo of a spread kingdom pile (observation: list of card ids).

    Unidentified "tiles" on a card are set aside (`spread_pieces`), counted in ``seen["ignored"]``.
    """
    cards, ignored = spread_pieces(detections, "card")
    problems: list[str] = []
    ids: list[str] = []
    if len(cards) == 0:
        problems.append(f"no cards found in the {what}")
    if small_pieces(cards, "card").any():
        problems.append(
            f"a card in the {what} looks much smaller than the others (a pattern of the table?)"
        )
    for index, identity in enumerate(cards.identities):
        if identity is None:
            problems.append(unidentified_problem(what, "card", cards.boxes_xyxy, index))
        elif not str(identity).startswith(PREFIX):
            problems.append(foreign_problem(str(identity), GAME))
        else:
            ids.append(str(identity)[len(PREFIX) :])
    ids, alias_problems = _spread_penalties(ids, what)
    problems.extend(alias_problems)
    for card_id, n in sorted(Counter(ids).items()):
        if n > 1:
            problems.append(f"card {card_id} seen {n} times in the {what}")
    seen = {"cards": sorted(ids), "ignored": ignored}
    return Reading(None if problems else sorted(ids), tuple(dict.fromkeys(problems)), seen)


__all__ = ["read_spread", "read_table"]
