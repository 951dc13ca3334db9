"""King's Breakfast reader: cards per food in each zone of the table, and spread photos.

`read_table` counts the identified cards in the zones (`vision.readers.zones`): the offer, the
king's area, the Emeralds on the table (an Emerald dealt into the offer counts there too, KB-7)
and the reveal area (an Emerald just drawn, KB-12). `read_spread` counts the cards of one photo of
spread cards (the king's area, or a player's hand at the end). Other games' pieces and cards where
they cannot be are problems, never guesses. A card in the offer or the king's area that could not
be identified takes the food of its pile where the pile's other cards name one
(`pile_identities`: a fanned pile shows only a strip of each covered card), and is otherwise
counted as unknown in that zone (`Observation.offer_unknown`, `king_unknown`: the
rules' `explain` tries every card it could be and asks when several fit), listed in
``seen["unidentified"]`` and told in ``seen["notes"]``; one in the Emeralds or reveal area is
still a problem, and `read_spread` refuses every unidentified card (a score is never computed from
an unknown card).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from engines.kings_breakfast.catalogue import FOODS
from engines.kings_breakfast.explain import Observation
from vision.detections import Detections
from vision.readers import (
    Reading,
    card_centres,
    connected_groups,
    foreign_problem,
    small_pieces,
    spread_pieces,
    unidentified_problem,
)
from vision.readers.zones import Zones, default_zones

GAME = "kings-breakfast"
PREFIX = GAME + "/"


def read_table(
    detections: Detections, frame_size: tuple[int, int], zones: Zones | None = None
) -> Reading:
    """Counts per food per zone → an `Observation`, or the problems that prevent one.

    An unidentified card in the offer or the king's area is an unknown card of that zone (not a
    problem); ``seen["unidentified"]`` counts them per zone and ``seen["notes"]`` says so.
    """
    zones = zones or default_zones(GAME)
    cards = detections[detections.kinds == "card"]
    where = zones.zone_of(card_centres(cards), frame_size)
    identities, by_pile = pile_identities(cards, where)
    counts: dict[str, Counter[str]] = {
        z: Counter() for z in ("offer", "king", "emeralds", "reveal")
    }
    unknown: Counter[str] = Counter()
    problems: list[str] = []
    for zone, identity in zip(where, identities, strict=True):
        if zone is None:
            continue  # the deck, hands, things around the table
        if identity is None and zone in ("offer", "king"):
            unknown[zone] += 1  # some card that zone can hold: the rules decide which
            continue
        if identity is None:
            problems.append(f"a card in the {zone} zone could not be identified")
            continue
        if not str(identity).startswith(PREFIX):
            problems.append(foreign_problem(str(identity), GAME))
            continue
        card = str(identity)[len(PREFIX) :]
        if card == "emerald":
            counts["reveal" if zone == "reveal" else "emeralds"]["emerald"] += 1
        elif zone in ("emeralds", "reveal"):
            problems.append(f"a {card} card lies in the {zone} zone")
        else:
            counts[zone][card] += 1
    seen: dict[str, Any] = {zone: dict(sorted(c.items())) for zone, c in counts.items()}
    if by_pile:
        seen["named_by_pile"] = by_pile
    if unknown:
        # information for the user, not a reason to refuse the table
        seen["unidentified"] = dict(sorted(unknown.items()))
        seen["notes"] = [
            f"{_cards(n)} in the {zone} zone could not be identified"
            for zone, n in sorted(unknown.items())
        ]
    if problems:
        return Reading(None, tuple(problems), seen)
    observation = Observation(
        offer=tuple(counts["offer"][f] for f in FOODS),
        king=tuple(counts["king"][f] for f in FOODS),
        emeralds=counts["emeralds"]["emerald"],
        revealed=counts["reveal"]["emerald"],
        offer_unknown=unknown["offer"],
        king_unknown=unknown["king"],
    )
    return Reading(observation, (), seen)


def pile_identities(
    cards: Detections, zones: Sequence[str | None], min_overlap: float = 0.5
) -> tuple[list[Any], int]:
    """The cards' identities, with unidentified cards of a pile named after it.

    The offer and the king's area hold one pile per food (KB-6, KB-15), fanned into a column
    going away from the camera: a covered card shows only a strip of its face and is often not
    identified. Cards of one zone whose boxes overlap horizontally by `min_overlap` of the
    narrower one are one column; an unidentified card takes the food of its column when every
    identified card of the column names that one food (never an Emerald, which lies on its
    own, KB-7). Returns the identities and how many cards were named this way.
    """
    identities = list(cards.identities)
    boxes = cards.boxes_xyxy
    n = len(identities)
    if n == 0:
        return identities, 0
    left, right = boxes[:, 0], boxes[:, 2]
    overlap = np.minimum(right[:, None], right[None]) - np.maximum(left[:, None], left[None])
    narrower = np.minimum((right - left)[:, None], (right - left)[None])
    zone_ids = np.array([str(z) for z in zones], object)
    linked = (overlap >= min_overlap * np.maximum(narrower, 1e-6)) & (
        zone_ids[:, None] == zone_ids[None]
    )
    label = connected_groups(linked)  # the columns
    named = 0
    for column in np.unique(label):
        members = np.flatnonzero(label == column)
        if zones[int(members[0])] not in ("offer", "king"):
            continue
        foods = {identities[i] for i in members if identities[i] is not None}
        if len(foods) != 1:
            continue
        (food,) = foods
        if not str(food).startswith(PREFIX) or str(food).endswith("/emerald"):
            continue
        for i in members:
            if identities[i] is None:
                identities[i] = food
                named += 1
    return identities, named


def _cards(n: int) -> str:
    return "a card" if n == 1 else f"{n} cards"


def read_spread(
    detections: Detections, *, what: str = "photo", allow_emerald: bool = False
) -> Reading:
    """Card counts of one photo of spread cards (observation: card → count).

    Problems: no card at all, an unidentified card, another game's piece, an Emerald unless
    `allow_emerald` (a hand may show one, scored by the rulings, KB-19; the king's area never).
    Unidentified "tiles" on a card are set aside (`spread_pieces`), counted in ``seen["ignored"]``.
    """
    cards, ignored = spread_pieces(detections, "card")
    problems: list[str] = []
    counts: Counter[str] = Counter()
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
        elif str(identity).endswith("/emerald") and not allow_emerald:
            problems.append(f"an emerald card in the {what}: the king's area holds food only")
        else:
            counts[str(identity)[len(PREFIX) :]] += 1
    seen = {
        "cards": dict(sorted(counts.items())),
        "unidentified": sum(1 for i in cards.identities if i is None),
        "ignored": ignored,
    }
    return Reading(None if problems else dict(counts), tuple(dict.fromkeys(problems)), seen)


__all__ = ["pile_identities", "read_spread", "read_table"]
