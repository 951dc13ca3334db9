"""The pieces of Café International: nationalities, genders and the 100 guest tiles (CI-2).

A tile is named by its contract id: ``<nationality>/<w|m>`` (``italy/w``) or ``joker/<w|m>``.
A joker seated at a table carries its declared nationality: ``joker/w@italy`` (CI-9).
Tile ids are plain strings everywhere in the engine; this module parses and builds them.
"""

from __future__ import annotations

from enum import StrEnum

from engines.errors import MalformedError


class Nationality(StrEnum):
    """The twelve nationalities of CI-2, valued by their contract ids."""

    AFRICA = "africa"
    CHINA = "china"
    CUBA = "cuba"
    FRANCE = "france"
    GERMANY = "germany"
    INDIA = "india"
    ITALY = "italy"
    RUSSIA = "russia"
    SPAIN = "spain"
    TURKEY = "turkey"
    UK = "uk"
    USA = "usa"


class Gender(StrEnum):
    """A guest's gender: ``w`` (woman) or ``m`` (man)."""

    WOMAN = "w"
    MAN = "m"


JOKER = "joker"
WOMEN_PER_NATIONALITY = 4  # CI-2
MEN_PER_NATIONALITY = 4  # CI-2
JOKERS_PER_GENDER = 2  # CI-2

DISPLAY_NAMES: dict[str, str] = {
    **{nationality.value: nationality.value.capitalize() for nationality in Nationality},
    "uk": "UK",
    "usa": "USA",
    JOKER: "Joker",
}
GENDER_SYMBOLS: dict[str, str] = {"w": "♀", "m": "♂"}


def _tile_counts() -> dict[str, int]:
    counts: dict[str, int] = {}
    for nationality in Nationality:
        counts[f"{nationality}/w"] = WOMEN_PER_NATIONALITY
        counts[f"{nationality}/m"] = MEN_PER_NATIONALITY
    counts[f"{JOKER}/w"] = JOKERS_PER_GENDER
    counts[f"{JOKER}/m"] = JOKERS_PER_GENDER
    return counts


TILE_COUNTS: dict[str, int] = _tile_counts()
"""How many tiles of each kind the game has (CI-2); the values sum to 100."""

TILE_KINDS: tuple[str, ...] = tuple(TILE_COUNTS)
"""Every tile kind in a fixed order (nationalities, women before men, then the jokers)."""

TILE_INDEX: dict[str, int] = {tile: index for index, tile in enumerate(TILE_KINDS)}
TOTAL_TILES = sum(TILE_COUNTS.values())
NATIONALITY_IDS: frozenset[str] = frozenset(nationality.value for nationality in Nationality)

SEATED_IDS: tuple[str, ...] = tuple(t for t in TILE_KINDS if not t.startswith("joker/")) + tuple(
    f"joker/{gender}@{nationality}" for gender in "wm" for nationality in Nationality
)
"""Every id a seated guest can have (jokers with each declaration)."""

NATIONALITY_OF: dict[str, str] = {
    seated: (seated.split("@")[1] if "@" in seated else seated.split("/")[0])
    for seated in SEATED_IDS
}
"""A seated guest's nationality, jokers counting as declared (CI-18): a fast lookup table."""

GENDER_OF: dict[str, str] = {tile: tile.split("@")[0][-1] for tile in SEATED_IDS + TILE_KINDS}
"""The gender letter of every hand or seated tile id: a fast lookup table."""


def is_joker(tile: str) -> bool:
    """Whether a hand or seated tile id is a joker."""
    return tile.startswith("joker/")


def tile_gender(tile: str) -> str:
    """The gender letter (``w`` or ``m``) of a hand or seated tile id."""
    return tile.split("@", 1)[0][-1]


def seated_nationality(seated: str) -> str:
    """The nationality a seated tile counts as (a joker's declaration, CI-18)."""
    if "@" in seated:
        return seated.split("@", 1)[1]
    return seated.split("/", 1)[0]


def hand_tile(seated: str) -> str:
    """The hand tile id of a seated tile (``joker/w@italy`` → ``joker/w``)."""
    return seated.split("@", 1)[0]


def seat_id(tile: str, nationality: str) -> str:
    """The seated id of hand tile `tile` counting as `nationality` (jokers carry it after ``@``)."""
    return f"{tile}@{nationality}" if is_joker(tile) else tile


def check_tile(value: object, where: str) -> str:
    """Return `value` if it is a hand tile id; raise `MalformedError` naming `where` otherwise."""
    if not isinstance(value, str) or value not in TILE_INDEX:
        raise MalformedError(f"unknown tile {value!r} in {where}")
    return value


def check_seated_tile(value: object, where: str) -> str:
    """Return `value` if it is a seated tile id (a joker with ``@nationality``), else raise."""
    if not isinstance(value, str):
        raise MalformedError(f"unknown tile {value!r} in {where}")
    tile, _, declared = value.partition("@")
    if tile not in TILE_INDEX:
        raise MalformedError(f"unknown tile {value!r} in {where}")
    if is_joker(tile):
        if declared not in NATIONALITY_IDS:
            raise MalformedError(
                f"seated joker {value!r} in {where} needs a declared nationality "
                f"(e.g. '{tile}@italy')"
            )
    elif declared:
        raise MalformedError(f"only a joker declares a nationality: {value!r} in {where}")
    return value


def describe_tile(tile: str) -> str:
    """A readable name: ``Italy ♀``, ``Joker ♂``, ``Joker ♂ as Italy``."""
    base, _, declared = tile.partition("@")
    nationality, gender = base.split("/")
    text = f"{DISPLAY_NAMES[nationality]} {GENDER_SYMBOLS[gender]}"
    if declared:
        text += f" as {DISPLAY_NAMES[declared]}"
    return text


__all__ = [
    "DISPLAY_NAMES",
    "GENDER_OF",
    "GENDER_SYMBOLS",
    "JOKER",
    "NATIONALITY_IDS",
    "NATIONALITY_OF",
    "SEATED_IDS",
    "TILE_COUNTS",
    "TILE_INDEX",
    "TILE_KINDS",
    "TOTAL_TILES",
    "Gender",
    "Nationality",
    "check_seated_tile",
    "check_tile",
    "describe_tile",
    "hand_tile",
    "is_joker",
    "seat_id",
    "seated_nationality",
    "tile_gender",
]
