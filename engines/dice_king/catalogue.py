"""Dice King's pieces as typed data: dice readings, locations, card types, decks (DK-1…DK-4).

Printed numbers are edition data (DK-3, DK-4): they live in JSON files under ``data/`` and in user
deck files, never in rule code. This module parses and validates them:

- a die reading is ``<value><colour>`` (``"5r"``), value 1–6, colour `Colour` (DK-1);
- an inhabitant card is ``{"id", "type", "colour", "points", "params"}`` (design contract), where
  ``type`` is a `CardType`, ``colour`` a `Location` and ``params`` what the type needs;
- a deck is a list of inhabitant cards (`deck_from_json`); the companion deck ships with the
  project (`companion_deck`), as do the 15 village cards (`villages`), the 10 penalty cards
  (`penalties`) and the six dice's face colours (`companion_dice`).

Validation errors are `MalformedError`s naming the field and the value.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from engines.errors import MalformedError


class Colour(StrEnum):
    """A die face's colour (DK-1); values are the contract letters."""

    RED = "r"
    GREEN = "g"
    BLUE = "b"


COLOURS: tuple[Colour, ...] = (Colour.RED, Colour.GREEN, Colour.BLUE)
VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
DICE = 6  # DK-1: six dice


class Location(StrEnum):
    """The five village locations, in row order (DK-2); also the inhabitants' colours."""

    CITY = "city"
    MINE = "mine"
    WORKSHOP = "workshop"
    ORC_VILLAGE = "orc_village"
    ENCHANTED_FOREST = "enchanted_forest"


LOCATIONS: tuple[Location, ...] = tuple(Location)


class CardType(StrEnum):
    """The ten inhabitant types (DK-13 … DK-22)."""

    RICH_SNOB = "rich_snob"
    ARROGANT_ELF = "arrogant_elf"
    GRIM_ELF = "grim_elf"
    CRAZY_DWARF = "crazy_dwarf"
    JOLLY_ORC = "jolly_orc"
    MUSHROOM_GOBLIN = "mushroom_goblin"
    WIZARD_APPRENTICE = "wizard_apprentice"
    FAIRY = "fairy"
    HYPNOTIST = "hypnotist"
    DRAGON = "dragon"


# Which types look at colours (the rest look at values): DK-16, DK-18, DK-19, DK-20.
COLOUR_TYPES: frozenset[CardType] = frozenset(
    {CardType.CRAZY_DWARF, CardType.MUSHROOM_GOBLIN, CardType.WIZARD_APPRENTICE, CardType.FAIRY}
)

# The one parameter each type takes (design contract); rich_snob takes none.
PARAM_NAME: dict[CardType, str | None] = {
    CardType.RICH_SNOB: None,
    CardType.ARROGANT_ELF: "length",
    CardType.GRIM_ELF: "values",
    CardType.CRAZY_DWARF: "colours",
    CardType.JOLLY_ORC: "groups",
    CardType.MUSHROOM_GOBLIN: "count",
    CardType.WIZARD_APPRENTICE: "colours",
    CardType.FAIRY: "colours",
    CardType.HYPNOTIST: "max_sum",
    CardType.DRAGON: "min_sum",
}

_READING = re.compile(r"^([0-9]+)([a-z]?)$")


# ---------------------------------------------------------------------------------------------
# Dice readings (DK-1)


@dataclass(frozen=True, order=True)
class Reading:
    """One die as read from its top face: value 1–6 and colour (DK-1)."""

    value: int
    colour: Colour

    def __str__(self) -> str:
        return f"{self.value}{self.colour.value}"

    def __repr__(self) -> str:
        return f"parse_reading({str(self)!r})"


def parse_reading(text: Any, where: str = "die") -> Reading:
    """Parse ``"5r"`` into a `Reading`.

    Raises:
        MalformedError: not a value 1–6 followed by ``r``, ``g`` or ``b``; names `where`.
    """
    if not isinstance(text, str):
        raise MalformedError(f"bad die {text!r} in {where}: expected a string like '5r'")
    return _parse_reading(text, where)


@cache
def _parse_reading(text: str, where: str) -> Reading:
    match = _READING.match(text.strip().lower())
    if match is None:
        raise MalformedError(f"bad die {text!r} in {where}: expected a value 1-6 and r, g or b")
    value, colour = int(match.group(1)), match.group(2)
    if value not in VALUES:
        raise MalformedError(f"bad die {text!r} in {where}: value must be 1-6")
    if colour not in {c.value for c in COLOURS}:
        raise MalformedError(f"bad die {text!r} in {where}: colour must be r, g or b")
    return Reading(value, Colour(colour))


ALL_READINGS: tuple[str, ...] = tuple(f"{v}{c.value}" for v in VALUES for c in COLOURS)


def parse_dice(data: Any, where: str = "dice", *, count: int | None = DICE) -> tuple[str, ...]:
    """Parse a list of readings into a sorted tuple of canonical strings (a multiset).

    Raises:
        MalformedError: not a list, a bad reading, or not `count` dice (when `count` is given).
    """
    if not isinstance(data, list | tuple):
        raise MalformedError(f"{where} must be a list of dice like '5r', got {data!r}")
    if count is not None and len(data) != count:
        words = {6: "six"}.get(count, str(count))
        raise MalformedError(f"{where} must list {words} dice, got {len(data)}")
    return tuple(sorted(str(parse_reading(item, f"{where}[{i}]")) for i, item in enumerate(data)))


# ---------------------------------------------------------------------------------------------
# Inhabitant cards (DK-4)


@dataclass(frozen=True)
class Requirement:
    """A card's requirement as a hashable value: its type and its canonical parameter.

    The parameter is ``None`` (rich snob), an ``int`` (length, count, max_sum, min_sum), a sorted
    tuple of values (grim elf), groups sorted largest first (jolly orc), or the counts of red,
    green and blue dice (colour types).
    """

    type: CardType
    arg: int | tuple[int, ...] | None = None

    @property
    def uses_colours(self) -> bool:
        """Whether the requirement looks at colours (otherwise at values)."""
        return self.type in COLOUR_TYPES

    def params_to_json(self) -> dict[str, Any]:
        """The ``params`` object of the card format."""
        name = PARAM_NAME[self.type]
        if name is None:
            return {}
        if name == "colours":
            assert isinstance(self.arg, tuple)
            counts = self.arg
            return {"colours": {c.value: n for c, n in zip(COLOURS, counts, strict=True) if n}}
        if isinstance(self.arg, tuple):
            return {name: list(self.arg)}
        return {name: self.arg}

    def describe(self) -> str:
        """A short human description, e.g. ``'values 4 4 4'``."""
        t, a = self.type, self.arg
        if t is CardType.RICH_SNOB:
            return "all six even or all six odd"
        if t is CardType.ARROGANT_ELF:
            return f"a run of {a}"
        if t is CardType.GRIM_ELF:
            assert isinstance(a, tuple)
            return "values " + " ".join(map(str, a))
        if t is CardType.JOLLY_ORC:
            assert isinstance(a, tuple)
            return "groups " + "+".join(map(str, a))
        if t is CardType.MUSHROOM_GOBLIN:
            return f"{a} dice of one colour"
        if t is CardType.HYPNOTIST:
            return f"sum at most {a}"
        if t is CardType.DRAGON:
            return f"sum at least {a}"
        assert isinstance(a, tuple)
        return "colours " + " ".join(f"{n}{c.value}" for c, n in zip(COLOURS, a, strict=True) if n)


@dataclass(frozen=True)
class Card:
    """One inhabitant card (DK-4): id, type, location colour, printed points, requirement."""

    id: str
    colour: Location
    points: int
    requirement: Requirement

    @property
    def type(self) -> CardType:
        """The card's type (DK-13 … DK-22)."""
        return self.requirement.type

    def to_json(self) -> dict[str, Any]:
        """The card in the design's deck-file format."""
        return {
            "id": self.id,
            "type": self.type.value,
            "colour": self.colour.value,
            "points": self.points,
            "params": self.requirement.params_to_json(),
        }

    def __repr__(self) -> str:
        return f"card_from_json({self.to_json()!r})"


def _int(value: Any, where: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MalformedError(f"{where} must be an integer, got {value!r}")
    if not low <= value <= high:
        raise MalformedError(f"{where} must be {low}-{high}, got {value}")
    return value


def _params(card_type: CardType, params: Any, where: str) -> int | tuple[int, ...] | None:
    """Validate and canonicalise a type's params (design contract)."""
    if not isinstance(params, Mapping):
        raise MalformedError(f"{where} must be an object, got {params!r}")
    name = PARAM_NAME[card_type]
    expected = set() if name is None else {name}
    extra = set(params) - expected
    if extra:
        raise MalformedError(
            f"unexpected {sorted(extra)[0]!r} in {where} for type {card_type.value!r}"
            + (f" (expects {name!r})" if name else " (expects no params)")
        )
    if name is None:
        return None
    if name not in params:
        raise MalformedError(f"missing {name!r} in {where} for type {card_type.value!r}")
    value = params[name]
    at = f"{where}.{name}"
    if name == "length":
        return _int(value, at, 2, 6)
    if name == "count":
        return _int(value, at, 1, 6)
    if name in ("max_sum", "min_sum"):
        return _int(value, at, 6, 36)
    if name == "values":
        if not isinstance(value, list) or not 1 <= len(value) <= DICE:
            raise MalformedError(f"{at} must be a list of 1-6 dice values, got {value!r}")
        return tuple(sorted(_int(v, f"{at}[{i}]", 1, 6) for i, v in enumerate(value)))
    if name == "groups":
        if not isinstance(value, list) or not value:
            raise MalformedError(f"{at} must be a non-empty list of group sizes, got {value!r}")
        groups = tuple(
            sorted((_int(g, f"{at}[{i}]", 1, 6) for i, g in enumerate(value)), reverse=True)
        )
        if sum(groups) > DICE:
            raise MalformedError(f"{at} uses {sum(groups)} dice, more than six")
        return groups
    # colours
    if not isinstance(value, Mapping) or not value:
        raise MalformedError(f"{at} must be an object like {{'r': 2, 'b': 1}}, got {value!r}")
    counts = dict.fromkeys(COLOURS, 0)
    for key, n in value.items():
        if key not in {c.value for c in COLOURS}:
            raise MalformedError(f"unknown dice colour {key!r} in {at} (use r, g or b)")
        counts[Colour(key)] = _int(n, f"{at}.{key}", 0, 6)
    total = sum(counts.values())
    if not 1 <= total <= DICE:
        raise MalformedError(f"{at} asks for {total} dice, must be 1-6")
    return tuple(counts[c] for c in COLOURS)


def card_from_json(data: Any, where: str = "card") -> Card:
    """Parse and validate one card of the deck-file format.

    Raises:
        MalformedError: missing or unexpected field, unknown type, wrong colour name, bad points
            or params for the type; the message names the field and the value.
    """
    if not isinstance(data, Mapping):
        raise MalformedError(f"{where} must be an object, got {data!r}")
    for field in ("id", "type", "colour", "points", "params"):
        if field not in data:
            raise MalformedError(f"missing {field!r} in {where}")
    extra = set(data) - {"id", "type", "colour", "points", "params"}
    if extra:
        raise MalformedError(f"unexpected field {sorted(extra)[0]!r} in {where}")
    card_id = data["id"]
    if not isinstance(card_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", card_id):
        raise MalformedError(
            f"bad card id {card_id!r} in {where}.id: use lower-case letters, digits, '-', '_', '.'"
        )
    if card_id.startswith(("village-", "penalty-")):
        raise MalformedError(
            f"card id {card_id!r} in {where}.id is reserved for villages/penalties"
        )
    where = f"{where} {card_id!r}"
    kind = data["type"]
    if kind not in {t.value for t in CardType}:
        raise MalformedError(f"unknown card type {kind!r} in {where}.type")
    colour = data["colour"]
    if colour not in {loc.value for loc in LOCATIONS}:
        names = ", ".join(loc.value for loc in LOCATIONS)
        raise MalformedError(f"unknown colour {colour!r} in {where}.colour (use {names})")
    points = _int(data["points"], f"{where}.points", 0, 99)
    card_type = CardType(kind)
    arg = _params(card_type, data["params"], f"{where}.params")
    return Card(card_id, Location(colour), points, Requirement(card_type, arg))


@dataclass(frozen=True)
class Deck:
    """A validated list of inhabitant cards and where it came from.

    `source` is ``"companion"``, a file path, or ``None`` for an inline list (the ``deck`` field of
    a state is written back the same way).
    """

    cards: tuple[Card, ...]
    source: str | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {card.id: card for card in self.cards})

    def card(self, card_id: str, where: str = "card") -> Card:
        """The card with `card_id`; raises `MalformedError` naming `where` if unknown."""
        try:
            return self._by_id[card_id]  # type: ignore[attr-defined]
        except (KeyError, TypeError):
            raise MalformedError(f"unknown card {card_id!r} in {where}") from None

    def __contains__(self, card_id: object) -> bool:
        return card_id in self._by_id  # type: ignore[attr-defined]

    @property
    def ids(self) -> tuple[str, ...]:
        """Every card id, in file order."""
        return tuple(card.id for card in self.cards)

    def to_json(self) -> str | list[dict[str, Any]]:
        """``"companion"``, the path, or the inline list of cards."""
        if self.source is not None:
            return self.source
        return [card.to_json() for card in self.cards]

    def __repr__(self) -> str:
        return f"deck_from_json({self.to_json()!r})"


def deck_from_json(data: Any, where: str = "deck", *, source: str | None = None) -> Deck:
    """Validate a deck: a non-empty list of cards with unique ids (DK-4).

    Raises:
        MalformedError: not a list, a bad card, or a duplicate id.
    """
    if not isinstance(data, list) or not data:
        raise MalformedError(f"{where} must be a non-empty list of cards")
    cards = tuple(card_from_json(item, f"{where}[{i}]") for i, item in enumerate(data))
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            raise MalformedError(f"duplicate card id {card.id!r} in {where}")
        seen.add(card.id)
    return Deck(cards, source)


def _data_text(name: str) -> str:
    return resources.files("engines.dice_king").joinpath("data", name).read_text(encoding="utf-8")


@cache
def companion_deck() -> Deck:
    """The companion deck shipped with the project (our own edition; see COMPANION_DECK.md)."""
    return deck_from_json(
        json.loads(_data_text("companion_deck.json")), "companion deck", source="companion"
    )


@cache
def _deck_file(path: str) -> Deck:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as error:
        raise MalformedError(f"cannot read deck {path!r}: {error.strerror or error}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise MalformedError(f"malformed json in deck {path!r}: {error.msg}") from None
    return deck_from_json(data, f"deck {path!r}", source=path)


def load_deck(spec: Any, where: str = "deck") -> Deck:
    """Resolve a state's ``deck`` field: ``"companion"``, a path, an inline list, or a `Deck`.

    Raises:
        MalformedError: unreadable file or invalid deck.
    """
    if spec is None or spec == "companion":
        return companion_deck()
    if isinstance(spec, Deck):
        return spec
    if isinstance(spec, str):
        return _deck_file(spec)
    if isinstance(spec, list):
        return deck_from_json(spec, where)
    raise MalformedError(f"{where} must be 'companion', a path or a list of cards, got {spec!r}")


# ---------------------------------------------------------------------------------------------
# Villages (DK-2), penalties (DK-3), dice faces (DK-1)


@dataclass(frozen=True)
class Village:
    """One village card: its location and value (DK-2)."""

    id: str
    location: Location
    points: int


@dataclass(frozen=True)
class PenaltyCard:
    """One penalty card and its value (DK-3)."""

    id: str
    points: int


@cache
def villages() -> tuple[tuple[Village, ...], ...]:
    """The village stacks, one per location in row order, top card first (DK-2)."""
    raw = json.loads(_data_text("villages.json"))
    stacks: dict[Location, list[Village]] = {loc: [] for loc in LOCATIONS}
    for i, item in enumerate(raw):
        location = Location(item["location"])
        points = _int(item["points"], f"villages[{i}].points", 1, 99)
        stacks[location].append(Village(str(item["id"]), location, points))
    # DK-2: the 2 on top, then the 3, the 4 at the bottom
    return tuple(tuple(sorted(stacks[loc], key=lambda v: v.points)) for loc in LOCATIONS)


@cache
def penalties() -> tuple[PenaltyCard, ...]:
    """The penalty cards and their values (DK-3, edition data)."""
    raw = json.loads(_data_text("penalties.json"))
    return tuple(
        PenaltyCard(str(item["id"]), _int(item["points"], f"penalties[{i}].points", 1, 99))
        for i, item in enumerate(raw)
    )


def dice_faces_from_json(data: Any, where: str = "dice") -> tuple[tuple[Colour, ...], ...]:
    """Validate six dice's face colours: per die, faces "1"…"6" → two of each colour (DK-1).

    Returns, per die, the colours of faces 1…6.

    Raises:
        MalformedError: not six dice, a face missing, an unknown colour, or not two of each.
    """
    if not isinstance(data, list) or len(data) != DICE:
        raise MalformedError(f"{where} must list six dice")
    dice = []
    for i, die in enumerate(data):
        if not isinstance(die, Mapping) or set(die) != {str(v) for v in VALUES}:
            raise MalformedError(f"{where}[{i}] must map faces '1'-'6' to r, g or b")
        faces = []
        for v in VALUES:
            colour = die[str(v)]
            if colour not in {c.value for c in COLOURS}:
                raise MalformedError(f"unknown colour {colour!r} in {where}[{i}].{v}")
            faces.append(Colour(colour))
        for c in COLOURS:
            if faces.count(c) != 2:
                raise MalformedError(f"{where}[{i}] has {faces.count(c)} {c.value} faces, not 2")
        dice.append(tuple(faces))
    return tuple(dice)


@cache
def companion_dice() -> tuple[tuple[Colour, ...], ...]:
    """The companion dice's face colours: per die, the colours of faces 1…6 (DK-1)."""
    return dice_faces_from_json(json.loads(_data_text("companion_dice.json")), "companion dice")


__all__ = [
    "ALL_READINGS",
    "COLOURS",
    "COLOUR_TYPES",
    "DICE",
    "LOCATIONS",
    "VALUES",
    "Card",
    "CardType",
    "Colour",
    "Deck",
    "Location",
    "PenaltyCard",
    "Reading",
    "Requirement",
    "Village",
    "card_from_json",
    "companion_deck",
    "companion_dice",
    "deck_from_json",
    "dice_faces_from_json",
    "load_deck",
    "parse_dice",
    "parse_reading",
    "penalties",
    "villages",
]
