"""Colours and printed sizes of the companion art: one place for every colour choice.

Sizes (millimetres, width × height) were chosen to be common, sleeve-friendly formats:

- King's Breakfast cards: 57 × 89 (bridge size; the original deck is a small-card game).
- Dice King cards: 63 × 88 (poker size), so the two decks are told apart on the table by size too.
- Café International guest tiles: 24 × 24 (square cardboard tiles, about the size of the originals).

The print command can override the card and tile sizes; the art is drawn in proportions of the size,
so any override only rescales it.
"""

from __future__ import annotations

from datasets.art.pictograms import BGR, hex_bgr

KB_CARD_MM: tuple[float, float] = (57.0, 89.0)
DK_CARD_MM: tuple[float, float] = (63.0, 88.0)
CI_TILE_MM: tuple[float, float] = (24.0, 24.0)
CARD_CORNER_RADIUS_FRACTION = 0.06  # of the card width: what the renderer may round off
TILE_CORNER_RADIUS_FRACTION = 0.08

FOODS: tuple[str, ...] = ("ham", "cheese", "bread", "cake", "wine", "fruit", "chicken")

# King's Breakfast: each food its own hue, spread around the colour wheel.
FOOD_COLOURS: dict[str, BGR] = {
    "ham": hex_bgr("#E0607E"),  # pink
    "cheese": hex_bgr("#F4C430"),  # saffron yellow
    "bread": hex_bgr("#A0672D"),  # crust brown
    "cake": hex_bgr("#8E44AD"),  # violet
    "wine": hex_bgr("#7B1230"),  # burgundy
    "fruit": hex_bgr("#7CB518"),  # lime green
    "chicken": hex_bgr("#E8751A"),  # roast orange
    "emerald": hex_bgr("#0B7A75"),  # deep teal
}

NATIONALITIES: tuple[str, ...] = (
    "africa", "china", "cuba", "france", "germany", "india", "italy", "russia", "spain", "turkey",
    "uk", "usa",
)  # fmt: skip

NATIONALITY_CODES: dict[str, str] = {
    "africa": "AFR", "china": "CHN", "cuba": "CUB", "france": "FRA", "germany": "GER",
    "india": "IND", "italy": "ITA", "russia": "RUS", "spain": "ESP", "turkey": "TUR", "uk": "UK",
    "usa": "USA", "joker": "JOKER",
}  # fmt: skip

# Flag colours used by the flag drawings.
FLAG: dict[str, BGR] = {
    "red": hex_bgr("#D52B1E"),
    "white": hex_bgr("#FFFFFF"),
    "blue": hex_bgr("#0039A6"),
    "navy": hex_bgr("#012169"),
    "green": hex_bgr("#009246"),
    "yellow": hex_bgr("#FFCE00"),
    "gold": hex_bgr("#FFCC00"),
    "black": hex_bgr("#111111"),
    "saffron": hex_bgr("#FF9933"),
    "india_green": hex_bgr("#138808"),
    "french_blue": hex_bgr("#0055A4"),
    "french_red": hex_bgr("#EF4135"),
    "turkey_red": hex_bgr("#E30A17"),
    "usa_red": hex_bgr("#B22234"),
    "usa_blue": hex_bgr("#3C3B6E"),
    "cuba_blue": hex_bgr("#002A8F"),
    "africa_green": hex_bgr("#078930"),
    "africa_yellow": hex_bgr("#FCDD09"),
    "africa_red": hex_bgr("#DA121A"),
}

# Dice King village locations, in row order, and their colours.
LOCATIONS: tuple[str, ...] = ("city", "mine", "workshop", "orc_village", "enchanted_forest")
LOCATION_COLOURS: dict[str, BGR] = {
    "city": hex_bgr("#2F6DD0"),  # royal blue
    "mine": hex_bgr("#7A5A44"),  # earth brown
    "workshop": hex_bgr("#EE8A1C"),  # orange
    "orc_village": hex_bgr("#4E9A2E"),  # green
    "enchanted_forest": hex_bgr("#9B45C9"),  # purple
}
LOCATION_NAMES: dict[str, str] = {
    "city": "CITY",
    "mine": "MINE",
    "workshop": "WORKSHOP",
    "orc_village": "ORC VILLAGE",
    "enchanted_forest": "ENCHANTED FOREST",
}

# Dice King die colours r/g/b as printed on the dice and in the requirement icons.
DIE_COLOURS: dict[str, BGR] = {
    "r": hex_bgr("#D32F2F"),
    "g": hex_bgr("#2E9E44"),
    "b": hex_bgr("#1F5FD6"),
}

PARCHMENT: BGR = hex_bgr("#F6EEDB")
INK: BGR = hex_bgr("#2B2118")
GOLD: BGR = hex_bgr("#D4A73A")
