"""Dice King companion cards: the inhabitants, the villages, the penalties and the card back.

Cards come from the engine's companion deck data (`engines/dice_king/data/`: the inhabitants'
`companion_deck.json`, `villages.json`, `penalties.json`), read defensively; when those files are
missing, from this package's `sample_deck.json` (one list holding all three kinds).

An inhabitant shows its points top left, its location's colour as the top band and frame, its type
as a pictogram and name, and its requirement drawn as dice icons (values as pips, colours as
coloured dice, value groups as matching symbols, sums as Σ≤n / Σ≥n). A village shows its location's
colour, name and value, and as many buildings as its value. A penalty shows its value as −n over a
cracked crown.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from datasets.art.palette import (
    DIE_COLOURS,
    DK_CARD_MM,
    GOLD,
    INK,
    LOCATION_COLOURS,
    LOCATION_NAMES,
    LOCATIONS,
    PARCHMENT,
)
from datasets.art.pictograms import (
    BGR,
    BLACK,
    WHITE,
    Canvas,
    Point,
    comparison,
    crown,
    darker,
    die_icon,
    dragon,
    hex_bgr,
    lighter,
    mix,
    regular_polygon,
    sigma,
    star,
)

INHABITANT_TYPES: tuple[str, ...] = (
    "rich_snob", "arrogant_elf", "grim_elf", "crazy_dwarf", "jolly_orc", "mushroom_goblin",
    "wizard_apprentice", "fairy", "hypnotist", "dragon",
)  # fmt: skip
TYPE_NAMES: dict[str, tuple[str, ...]] = {
    "rich_snob": ("RICH SNOB",),
    "arrogant_elf": ("ARROGANT", "ELF"),
    "grim_elf": ("GRIM ELF",),
    "crazy_dwarf": ("CRAZY", "DWARF"),
    "jolly_orc": ("JOLLY ORC",),
    "mushroom_goblin": ("MUSHROOM", "GOBLIN"),
    "wizard_apprentice": ("WIZARD'S", "APPRENTICE"),
    "fairy": ("HARDWORKING", "FAIRY"),
    "hypnotist": ("HYPNOTIST",),
    "dragon": ("DRAGON",),
}

EFFECTS: dict[str, str] = {
    "arrogant_elf": "ON TOP OF YOUR PILE: ROLL 4 TIMES",
    "wizard_apprentice": "TAKE ANOTHER TURN",
    "fairy": "YOUR FAIRIES SCORE 1+2+3...",
    "hypnotist": "ALSO TAKE THE CARD TO ITS RIGHT",
    "dragon": "GIVE IT TO ANOTHER PLAYER",
}  # rules DK-14, DK-19, DK-20, DK-21, DK-22

_DATA_DIR = Path(__file__).resolve().parents[2] / "engines" / "dice_king" / "data"
_SAMPLE = Path(__file__).with_name("sample_deck.json")


# -- the deck -------------------------------------------------------------------------------------
def _read_cards(path: Path) -> list[dict[str, Any]]:
    """Cards in a JSON file: a list of card objects, or an object whose list values hold them."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    items: list[Any] = []
    if isinstance(data, list):
        items = data
    elif isinstance(data, dict):
        for value in data.values():
            if isinstance(value, list):
                items.extend(value)
    return [c for c in items if isinstance(c, dict) and isinstance(c.get("id"), str)]


def card_kind(card: dict[str, Any]) -> str:
    """``"inhabitant"``, ``"village"`` or ``"penalty"`` for a card object."""
    if card.get("type") in INHABITANT_TYPES:
        return "inhabitant"
    if card.get("location") in LOCATIONS or str(card.get("id", "")).startswith("village"):
        return "village"
    return "penalty"


@lru_cache(maxsize=1)
def deck() -> tuple[dict[str, Any], ...]:
    """Every Dice King card to draw: inhabitants, then villages, then penalties."""
    cards: list[dict[str, Any]] = []
    inhabitants = _read_cards(_DATA_DIR / "companion_deck.json")
    if inhabitants:
        cards += inhabitants
        cards += _read_cards(_DATA_DIR / "villages.json")
        cards += _read_cards(_DATA_DIR / "penalties.json")
    if not any(card_kind(c) == "village" for c in cards) or not any(
        card_kind(c) == "penalty" for c in cards
    ):
        sample = _read_cards(_SAMPLE)
        have = {card_kind(c) for c in cards}
        cards += [c for c in sample if card_kind(c) not in have]
    order = {"inhabitant": 0, "village": 1, "penalty": 2}
    seen: set[str] = set()
    unique = []
    for c in sorted(cards, key=lambda c: order[card_kind(c)]):
        if c["id"] not in seen:
            seen.add(c["id"])
            unique.append(c)
    return tuple(unique)


def card_by_id(card_id: str) -> dict[str, Any] | None:
    """The card object with `card_id`, or None."""
    for c in deck():
        if c["id"] == card_id:
            return c
    return None


def _location(card: dict[str, Any]) -> str:
    loc = card.get("location", card.get("colour"))
    return loc if loc in LOCATION_COLOURS else "city"


def _points(card: dict[str, Any]) -> int:
    for key in ("points", "value"):
        try:
            return int(card[key])
        except (KeyError, TypeError, ValueError):
            continue
    return 0


# -- inhabitant pictograms (each fits a box of side `s` centred on `c`) ---------------------------
SKIN = hex_bgr("#F2C9A0")


def _face_base(cv: Canvas, c: Point, s: float, skin: BGR = SKIN) -> None:
    cv.circle(c, 0.24 * s, skin)
    cv.circle(c, 0.24 * s, darker(skin, 0.45), 0.012 * s)


def _eyes(cv: Canvas, c: Point, s: float, dy: float = -0.03, r: float = 0.03) -> None:
    for side in (-1, 1):
        cv.circle((c[0] + side * 0.09 * s, c[1] + dy * s), r * s, BLACK)


def _snob(cv: Canvas, c: Point, s: float) -> None:
    x, y = c[0], c[1] + 0.1 * s
    _face_base(cv, (x, y), s)
    _eyes(cv, (x, y), s)
    cv.circle((x + 0.09 * s, y - 0.03 * s), 0.07 * s, GOLD, 0.015 * s)
    cv.line((x + 0.16 * s, y - 0.02 * s), (x + 0.22 * s, y + 0.2 * s), GOLD, 0.008 * s)
    cv.ellipse((x - 0.06 * s, y + 0.09 * s), (0.07 * s, 0.03 * s), hex_bgr("#5D4037"))
    cv.ellipse((x + 0.06 * s, y + 0.09 * s), (0.07 * s, 0.03 * s), hex_bgr("#5D4037"))
    hat = hex_bgr("#212121")
    cv.rect(x - 0.34 * s, y - 0.22 * s, x + 0.34 * s, y - 0.16 * s, hat, radius=0.03 * s)
    cv.rect(x - 0.2 * s, y - 0.5 * s, x + 0.2 * s, y - 0.2 * s, hat, radius=0.02 * s)
    cv.rect(x - 0.2 * s, y - 0.28 * s, x + 0.2 * s, y - 0.22 * s, hex_bgr("#B71C1C"))
    # bow tie
    cv.poly([(x, y + 0.3 * s), (x - 0.1 * s, y + 0.25 * s), (x - 0.1 * s, y + 0.35 * s)], hat)
    cv.poly([(x, y + 0.3 * s), (x + 0.1 * s, y + 0.25 * s), (x + 0.1 * s, y + 0.35 * s)], hat)


def _elf_ears(cv: Canvas, c: Point, s: float, skin: BGR) -> None:
    x, y = c
    for side in (-1, 1):
        cv.poly(
            [
                (x + side * 0.2 * s, y - 0.06 * s),
                (x + side * 0.48 * s, y - 0.26 * s),
                (x + side * 0.22 * s, y + 0.08 * s),
            ],
            skin,
        )


def _arrogant_elf(cv: Canvas, c: Point, s: float) -> None:
    x, y = c[0], c[1] + 0.06 * s
    skin = hex_bgr("#F5D5B5")
    _elf_ears(cv, (x, y), s, skin)
    _face_base(cv, (x, y), s, skin)
    hair = hex_bgr("#F4C542")
    cv.ellipse((x, y - 0.12 * s), (0.26 * s, 0.16 * s), hair, start=180, end=360)
    cv.poly(
        [(x - 0.26 * s, y - 0.12 * s), (x - 0.3 * s, y + 0.3 * s), (x - 0.18 * s, y + 0.0 * s)],
        hair,
    )
    cv.poly(
        [(x + 0.26 * s, y - 0.12 * s), (x + 0.3 * s, y + 0.3 * s), (x + 0.18 * s, y + 0.0 * s)],
        hair,
    )
    # closed, haughty eyes and a nose in the air
    for side in (-1, 1):
        cv.ellipse(
            (x + side * 0.09 * s, y - 0.01 * s),
            (0.045 * s, 0.02 * s),
            BLACK,
            start=180,
            end=360,
            thickness=0.012 * s,
        )
    cv.poly(
        [(x, y + 0.0 * s), (x + 0.05 * s, y + 0.07 * s), (x - 0.01 * s, y + 0.07 * s)],
        darker(skin, 0.25),
    )
    cv.line((x - 0.06 * s, y + 0.14 * s), (x + 0.06 * s, y + 0.12 * s), BLACK, 0.012 * s)
    # circlet with a gem
    cv.line((x - 0.22 * s, y - 0.13 * s), (x + 0.22 * s, y - 0.13 * s), GOLD, 0.025 * s)
    cv.poly(regular_polygon((x, y - 0.15 * s), 0.04 * s, 4), hex_bgr("#26A69A"))


def _grim_elf(cv: Canvas, c: Point, s: float) -> None:
    x, y = c[0], c[1] + 0.05 * s
    hood = hex_bgr("#2E4A2E")
    cv.poly([(x, y - 0.45 * s), (x + 0.36 * s, y + 0.38 * s), (x - 0.36 * s, y + 0.38 * s)], hood)
    skin = hex_bgr("#C8D6B9")
    _elf_ears(cv, (x, y + 0.04 * s), s * 0.85, skin)
    cv.ellipse((x, y + 0.06 * s), (0.17 * s, 0.21 * s), skin)
    cv.poly(
        [
            (x - 0.2 * s, y - 0.08 * s),
            (x, y - 0.3 * s),
            (x + 0.2 * s, y - 0.08 * s),
            (x, y - 0.02 * s),
        ],
        hood,
    )
    for side in (-1, 1):
        cv.line(
            (x + side * 0.14 * s, y - 0.01 * s),
            (x + side * 0.03 * s, y + 0.03 * s),
            BLACK,
            0.02 * s,
        )
        cv.circle((x + side * 0.075 * s, y + 0.05 * s), 0.025 * s, hex_bgr("#C62828"))
    cv.ellipse(
        (x, y + 0.2 * s), (0.07 * s, 0.03 * s), BLACK, start=180, end=360, thickness=0.015 * s
    )


def _crazy_dwarf(cv: Canvas, c: Point, s: float) -> None:
    x, y = c[0], c[1] + 0.02 * s
    beard = hex_bgr("#E65100")
    cv.poly(
        [
            (x - 0.25 * s, y + 0.0 * s),
            (x + 0.25 * s, y + 0.0 * s),
            (x + 0.18 * s, y + 0.3 * s),
            (x, y + 0.46 * s),
            (x - 0.18 * s, y + 0.3 * s),
        ],
        beard,
    )
    _face_base(cv, (x, y - 0.02 * s), s * 0.9)
    cv.poly(
        [
            (x - 0.25 * s, y + 0.05 * s),
            (x + 0.25 * s, y + 0.05 * s),
            (x + 0.15 * s, y + 0.3 * s),
            (x, y + 0.4 * s),
            (x - 0.15 * s, y + 0.3 * s),
        ],
        beard,
    )
    cv.ellipse((x, y + 0.1 * s), (0.06 * s, 0.03 * s), hex_bgr("#3E2723"))
    # mismatched eyes
    cv.circle((x - 0.09 * s, y - 0.05 * s), 0.055 * s, WHITE)
    cv.circle((x - 0.09 * s, y - 0.05 * s), 0.025 * s, BLACK)
    cv.circle((x + 0.09 * s, y - 0.05 * s), 0.035 * s, WHITE)
    cv.circle((x + 0.1 * s, y - 0.05 * s), 0.018 * s, BLACK)
    cv.circle((x, y + 0.02 * s), 0.04 * s, hex_bgr("#E8A07A"))
    helmet = hex_bgr("#9E9E9E")
    cv.ellipse((x, y - 0.12 * s), (0.24 * s, 0.2 * s), helmet, start=180, end=360)
    cv.rect(x - 0.26 * s, y - 0.14 * s, x + 0.26 * s, y - 0.09 * s, darker(helmet, 0.2))
    for side in (-1, 1):
        cv.poly(
            [
                (x + side * 0.2 * s, y - 0.2 * s),
                (x + side * 0.42 * s, y - 0.42 * s),
                (x + side * 0.3 * s, y - 0.18 * s),
            ],
            hex_bgr("#FFF3E0"),
        )


def _jolly_orc(cv: Canvas, c: Point, s: float) -> None:
    x, y = c[0], c[1] + 0.04 * s
    skin = hex_bgr("#6B9E3A")
    for side in (-1, 1):
        cv.poly(
            [
                (x + side * 0.22 * s, y - 0.1 * s),
                (x + side * 0.4 * s, y - 0.18 * s),
                (x + side * 0.25 * s, y + 0.05 * s),
            ],
            skin,
        )
    cv.ellipse((x, y), (0.28 * s, 0.3 * s), skin)
    cv.ellipse((x, y), (0.28 * s, 0.3 * s), darker(skin, 0.4), thickness=0.012 * s)
    for side in (-1, 1):
        cv.ellipse(
            (x + side * 0.1 * s, y - 0.08 * s),
            (0.045 * s, 0.025 * s),
            BLACK,
            start=180,
            end=360,
            thickness=0.015 * s,
        )
    cv.ellipse((x, y + 0.08 * s), (0.17 * s, 0.12 * s), hex_bgr("#3E1F1F"), start=0, end=180)
    for side in (-1, 1):
        cv.poly(
            [
                (x + side * 0.12 * s, y + 0.1 * s),
                (x + side * 0.09 * s, y + 0.0 * s),
                (x + side * 0.06 * s, y + 0.1 * s),
            ],
            hex_bgr("#FFF8E1"),
        )
    cv.ellipse((x, y + 0.0 * s), (0.05 * s, 0.03 * s), darker(skin, 0.3))


def _mushroom_goblin(cv: Canvas, c: Point, s: float) -> None:
    x, y = c[0], c[1] + 0.02 * s
    stem = hex_bgr("#F5EBDC")
    cv.rect(x - 0.15 * s, y - 0.08 * s, x + 0.15 * s, y + 0.38 * s, stem, radius=0.07 * s)
    cap = hex_bgr("#D32F2F")
    cv.ellipse((x, y - 0.06 * s), (0.4 * s, 0.32 * s), cap, start=180, end=360)
    cv.rect(x - 0.4 * s, y - 0.09 * s, x + 0.4 * s, y - 0.03 * s, darker(cap, 0.2), radius=0.03 * s)
    for dx, dy, r in (
        (-0.2, -0.2, 0.06),
        (0.05, -0.3, 0.05),
        (0.22, -0.16, 0.055),
        (-0.02, -0.14, 0.035),
    ):
        cv.circle((x + dx * s, y + dy * s), r * s, WHITE)
    cv.circle((x - 0.06 * s, y + 0.08 * s), 0.03 * s, BLACK)
    cv.circle((x + 0.06 * s, y + 0.08 * s), 0.03 * s, BLACK)
    cv.ellipse(
        (x, y + 0.17 * s), (0.06 * s, 0.04 * s), BLACK, start=0, end=180, thickness=0.015 * s
    )


def _wizard_apprentice(cv: Canvas, c: Point, s: float) -> None:
    x, y = c[0], c[1] + 0.12 * s
    _face_base(cv, (x, y), s * 0.9)
    _eyes(cv, (x, y), s * 0.9)
    cv.ellipse(
        (x, y + 0.08 * s), (0.06 * s, 0.03 * s), BLACK, start=0, end=180, thickness=0.012 * s
    )
    hat = hex_bgr("#283593")
    cv.ellipse((x, y - 0.14 * s), (0.36 * s, 0.06 * s), hat)
    cv.poly(
        [(x - 0.22 * s, y - 0.14 * s), (x + 0.06 * s, y - 0.56 * s), (x + 0.22 * s, y - 0.14 * s)],
        hat,
    )
    for dx, dy, r in ((-0.05, -0.25, 0.05), (0.07, -0.38, 0.035), (0.1, -0.2, 0.03)):
        cv.poly(star((x + dx * s, y + dy * s), r * s, r * 0.45 * s), hex_bgr("#FFD54F"))
    cv.line((x + 0.26 * s, y + 0.3 * s), (x + 0.4 * s, y - 0.05 * s), hex_bgr("#6D4C41"), 0.03 * s)
    cv.poly(star((x + 0.41 * s, y - 0.08 * s), 0.07 * s, 0.03 * s), hex_bgr("#FFEB3B"))


def _fairy(cv: Canvas, c: Point, s: float) -> None:
    x, y = c
    wing = hex_bgr("#B3E5FC")
    for side in (-1, 1):
        cv.ellipse((x + side * 0.2 * s, y - 0.14 * s), (0.2 * s, 0.12 * s), wing, angle=side * 30)
        cv.ellipse((x + side * 0.16 * s, y + 0.1 * s), (0.14 * s, 0.08 * s), wing, angle=-side * 30)
        cv.ellipse(
            (x + side * 0.2 * s, y - 0.14 * s),
            (0.2 * s, 0.12 * s),
            darker(wing, 0.3),
            angle=side * 30,
            thickness=0.01 * s,
        )
    cv.poly(
        [(x, y - 0.08 * s), (x + 0.1 * s, y + 0.3 * s), (x - 0.1 * s, y + 0.3 * s)],
        hex_bgr("#EC407A"),
    )
    cv.circle((x, y - 0.16 * s), 0.09 * s, SKIN)
    cv.ellipse((x, y - 0.2 * s), (0.1 * s, 0.06 * s), hex_bgr("#8D6E63"), start=180, end=360)
    cv.line((x + 0.08 * s, y - 0.02 * s), (x + 0.3 * s, y - 0.3 * s), hex_bgr("#5D4037"), 0.012 * s)
    cv.poly(star((x + 0.31 * s, y - 0.32 * s), 0.06 * s, 0.025 * s), hex_bgr("#FFEB3B"))
    # a broom: the fairy works hard
    cv.line(
        (x - 0.35 * s, y + 0.38 * s), (x - 0.12 * s, y + 0.02 * s), hex_bgr("#8D6E63"), 0.02 * s
    )
    cv.poly(
        [(x - 0.35 * s, y + 0.38 * s), (x - 0.42 * s, y + 0.3 * s), (x - 0.3 * s, y + 0.44 * s)],
        hex_bgr("#FBC02D"),
    )


def _hypnotist(cv: Canvas, c: Point, s: float) -> None:
    x, y = c
    cv.circle((x, y - 0.06 * s), 0.3 * s, WHITE)
    pts = []
    for i in range(200):
        t = i / 199 * 4 * math.pi
        r = 0.28 * s * t / (4 * math.pi)
        pts.append((x + r * math.cos(t), y - 0.06 * s + r * math.sin(t)))
    cv.poly(pts, hex_bgr("#4A148C"), 0.035 * s, closed=False)
    cv.circle((x, y - 0.06 * s), 0.3 * s, hex_bgr("#4A148C"), 0.015 * s)
    # the pendulum watch
    cv.line((x + 0.2 * s, y - 0.45 * s), (x + 0.22 * s, y + 0.26 * s), GOLD, 0.012 * s)
    cv.circle((x + 0.22 * s, y + 0.32 * s), 0.08 * s, GOLD)
    cv.circle((x + 0.22 * s, y + 0.32 * s), 0.055 * s, WHITE)
    cv.line((x + 0.22 * s, y + 0.32 * s), (x + 0.22 * s, y + 0.28 * s), BLACK, 0.01 * s)


def _dragon(cv: Canvas, c: Point, s: float) -> None:
    dragon(cv, c, s * 0.95, hex_bgr("#C62828"), hex_bgr("#FFEB3B"))


PICTOGRAMS: dict[str, Callable[[Canvas, Point, float], None]] = {
    "rich_snob": _snob, "arrogant_elf": _arrogant_elf, "grim_elf": _grim_elf,
    "crazy_dwarf": _crazy_dwarf, "jolly_orc": _jolly_orc, "mushroom_goblin": _mushroom_goblin,
    "wizard_apprentice": _wizard_apprentice, "fairy": _fairy, "hypnotist": _hypnotist,
    "dragon": _dragon,
}  # fmt: skip


# -- requirement drawings ------------------------------------------------------------------------
def _dice_row(
    cv: Canvas, cx: float, cy: float, specs: list[dict[str, Any]], max_width: float
) -> None:
    """A centred row of die icons; each spec is `die_icon` keyword arguments plus ``value``."""
    n = max(1, len(specs))
    size = min(8.0, max_width / (n * 1.18))
    gap = size * 0.18
    total = n * size + (n - 1) * gap
    x = cx - total / 2
    for spec in specs:
        die_icon(cv, x, cy - size / 2, size, **spec)
        x += size + gap


def _colour_specs(colours: dict[str, int]) -> list[dict[str, Any]]:
    specs: list[dict[str, Any]] = []
    for code in ("r", "g", "b"):
        for _ in range(int(colours.get(code, 0))):
            col = DIE_COLOURS[code]
            specs.append(
                {
                    "value": None,
                    "body": col,
                    "pip": WHITE,
                    "outline": darker(col, 0.4),
                    "symbol": None,
                }
            )
    return specs


def _requirement(
    cv: Canvas, card: dict[str, Any], x0: float, y0: float, x1: float, y1: float
) -> None:
    """Draw the card's requirement in the box (x0, y0)–(x1, y1)."""
    kind = card.get("type")
    params = card.get("params") or {}
    cx, w = (x0 + x1) / 2, x1 - x0
    row_y = y0 + (y1 - y0) * 0.42
    cap_y = y1 - 3.0
    caption = ""
    if kind == "rich_snob":
        _dice_row(cv, cx - w * 0.25, row_y, [{"value": v} for v in (2, 4, 6)], w * 0.42)
        _dice_row(cv, cx + w * 0.25, row_y, [{"value": v} for v in (1, 3, 5)], w * 0.42)
        cv.text("/", (cx, row_y), 5.0, INK, weight=0.12)
        caption = "ALL 6 EVEN  OR  ALL 6 ODD"
    elif kind == "arrogant_elf":
        n = int(params.get("length", 4))
        _dice_row(cv, cx, row_y, [{"value": v} for v in range(1, n + 1)], w - 4)
        caption = f"A RUN OF {n}"
    elif kind == "grim_elf":
        values = [int(v) for v in params.get("values", [])]
        _dice_row(cv, cx, row_y, [{"value": v} for v in values if 1 <= v <= 6], w - 4)
        caption = "THESE VALUES"
    elif kind in ("crazy_dwarf", "wizard_apprentice", "fairy"):
        colours = params.get("colours", {})
        _dice_row(cv, cx, row_y, _colour_specs(colours), w - 4)
        names = {"r": "RED", "g": "GREEN", "b": "BLUE"}
        caption = "  ".join(
            f"{int(colours[k])} {names[k]}" for k in ("r", "g", "b") if int(colours.get(k, 0)) > 0
        )
    elif kind == "jolly_orc":
        symbols = ("star", "moon", "triangle", "square")
        specs: list[dict[str, Any]] = []
        for i, g in enumerate(params.get("groups", [])):
            specs += [{"value": None, "symbol": symbols[i % 4]} for _ in range(int(g))]
        _dice_row(cv, cx, row_y, specs, w - 4)
        caption = "SAME SYMBOL = SAME VALUE"
    elif kind == "mushroom_goblin":
        n = int(params.get("count", 4))
        shade = hex_bgr("#8E8E8E")
        specs = [
            {
                "value": None,
                "symbol": "ring",
                "body": shade,
                "pip": WHITE,
                "outline": darker(shade, 0.4),
            }
            for _ in range(n)
        ]
        _dice_row(cv, cx, row_y, specs, w - 4)
        caption = f"{n} OF ONE COLOUR"
    elif kind in ("hypnotist", "dragon"):
        at_most = kind == "hypnotist"
        limit = int(params.get("max_sum" if at_most else "min_sum", 0))
        h = 7.0
        sigma(cv, (cx - 10.0, row_y), h, INK, 0.9)
        comparison(cv, (cx - 2.5, row_y), h * 0.8, INK, 0.8, at_most)
        cv.text(str(limit), (cx + 7.5, row_y), h, INK, weight=0.14)
        caption = "SUM OF ALL 6 DICE"
    cv.text(caption, (cx, cap_y), 2.2, darker(INK, 0.0), weight=0.12, max_width=w - 3)


def _badge(cv: Canvas, c: Point, r: float, text: str, ring: BGR) -> None:
    cv.circle(c, r, WHITE)
    cv.circle(c, r, ring, 0.7)
    cv.text(text, c, r * 1.05, INK, weight=0.15, max_width=r * 1.5)


def _card_frame(cv: Canvas, colour: BGR) -> tuple[float, float, float, float]:
    w, h = DK_CARD_MM
    m = 2.5
    cv.rect(m, m, w - m, h - m, colour, radius=3.0)
    cv.rect(m + 1.4, m + 1.4, w - m - 1.4, h - m - 1.4, PARCHMENT, radius=2.0)
    return m + 1.4, m + 1.4, w - m - 1.4, h - m - 1.4


def draw_inhabitant(card: dict[str, Any], width_px: int) -> np.ndarray:
    """The face of an inhabitant card object at `width_px`."""
    w, h = DK_CARD_MM
    colour = LOCATION_COLOURS[_location(card)]
    cv = Canvas(w, h, width_px, WHITE)
    x0, y0, x1, y1 = _card_frame(cv, colour)
    # location band with the name
    band_y1 = y0 + 13.0
    cv.rect(x0, y0, x1, band_y1, colour, radius=2.0)
    cv.rect(x0, y0 + 4, x1, band_y1, colour)
    lines = TYPE_NAMES.get(str(card.get("type")), (str(card.get("type", "")).upper(),))
    text_cx = (x0 + 14.0 + x1) / 2
    if len(lines) == 1:
        cv.text(
            lines[0], (text_cx, (y0 + band_y1) / 2), 3.6, WHITE, weight=0.15, max_width=x1 - x0 - 17
        )
    else:
        for i, line in enumerate(lines):
            cv.text(
                line, (text_cx, y0 + 4.0 + i * 5.0), 3.0, WHITE, weight=0.15, max_width=x1 - x0 - 17
            )
    _badge(cv, (x0 + 6.5, y0 + 6.5), 5.6, str(_points(card)), darker(colour, 0.3))
    # the pictogram on a tinted disc
    pic_c = ((x0 + x1) / 2, band_y1 + 19.5)
    cv.circle(pic_c, 17.5, lighter(colour, 0.7))
    cv.circle(pic_c, 17.5, lighter(colour, 0.2), 0.5)
    PICTOGRAMS.get(str(card.get("type")), _snob)(cv, pic_c, 33.0)
    effect = EFFECTS.get(str(card.get("type")))
    if effect:
        ey = pic_c[1] + 15.5
        cv.rect(x0 + 3.0, ey - 2.4, x1 - 3.0, ey + 2.4, darker(colour, 0.35), radius=1.2)
        cv.text(effect, ((x0 + x1) / 2, ey), 2.0, WHITE, weight=0.14, max_width=x1 - x0 - 8.0)
    # the requirement box
    ry0 = band_y1 + 41.0
    cv.rect(x0 + 2.0, ry0, x1 - 2.0, y1 - 2.0, WHITE, radius=2.0)
    cv.rect(x0 + 2.0, ry0, x1 - 2.0, y1 - 2.0, lighter(colour, 0.1), 0.5, radius=2.0)
    _requirement(cv, card, x0 + 2.0, ry0, x1 - 2.0, y1 - 2.0)
    return cv.image


# -- villages ------------------------------------------------------------------------------------
def _building(cv: Canvas, location: str, c: Point, s: float, colour: BGR) -> None:
    """One building of `location` in a box of side `s` whose bottom centre is `c`."""
    x, y = c
    dark = darker(colour, 0.45)
    if location == "city":  # a tower with battlements and a flag
        cv.rect(x - 0.22 * s, y - 0.7 * s, x + 0.22 * s, y, hex_bgr("#CFD8DC"))
        for i in range(3):
            cv.rect(
                x - 0.22 * s + i * 0.17 * s,
                y - 0.8 * s,
                x - 0.12 * s + i * 0.17 * s,
                y - 0.7 * s,
                hex_bgr("#CFD8DC"),
            )
        cv.rect(x - 0.08 * s, y - 0.28 * s, x + 0.08 * s, y, dark, radius=0.06 * s)
        cv.line((x, y - 0.8 * s), (x, y - 1.0 * s), dark, 0.03 * s)
        cv.poly([(x, y - 1.0 * s), (x + 0.2 * s, y - 0.94 * s), (x, y - 0.88 * s)], colour)
    elif location == "mine":  # a mountain with a timbered entrance
        cv.poly(
            [
                (x - 0.5 * s, y),
                (x - 0.1 * s, y - 0.85 * s),
                (x + 0.1 * s, y - 0.6 * s),
                (x + 0.25 * s, y - 0.75 * s),
                (x + 0.5 * s, y),
            ],
            hex_bgr("#8D8D8D"),
        )
        cv.ellipse((x, y), (0.18 * s, 0.32 * s), hex_bgr("#212121"), start=180, end=360)
        cv.rect(x - 0.22 * s, y - 0.36 * s, x + 0.22 * s, y - 0.3 * s, hex_bgr("#8D6E63"))
        cv.rect(x - 0.22 * s, y - 0.36 * s, x - 0.16 * s, y, hex_bgr("#8D6E63"))
        cv.rect(x + 0.16 * s, y - 0.36 * s, x + 0.22 * s, y, hex_bgr("#8D6E63"))
    elif location == "workshop":  # a timbered workshop with a gear sign and a chimney
        cv.rect(x + 0.16 * s, y - 0.86 * s, x + 0.28 * s, y - 0.5 * s, hex_bgr("#8D6E63"))
        cv.rect(x - 0.36 * s, y - 0.5 * s, x + 0.36 * s, y, hex_bgr("#D7B98E"))
        cv.poly(
            [(x - 0.44 * s, y - 0.48 * s), (x, y - 0.82 * s), (x + 0.44 * s, y - 0.48 * s)],
            hex_bgr("#8D3B2A"),
        )
        gear_c = (x, y - 0.62 * s)
        for k in range(8):
            a = math.pi * k / 4
            cv.line(
                gear_c,
                (gear_c[0] + 0.1 * s * math.cos(a), gear_c[1] + 0.1 * s * math.sin(a)),
                hex_bgr("#546E7A"),
                0.05 * s,
            )
        cv.circle(gear_c, 0.075 * s, hex_bgr("#78909C"))
        cv.circle(gear_c, 0.03 * s, hex_bgr("#37474F"))
        cv.rect(x - 0.11 * s, y - 0.3 * s, x + 0.11 * s, y, dark)
        cv.rect(x - 0.3 * s, y - 0.36 * s, x - 0.17 * s, y - 0.22 * s, hex_bgr("#FFF3C4"))
        cv.rect(x + 0.17 * s, y - 0.36 * s, x + 0.3 * s, y - 0.22 * s, hex_bgr("#FFF3C4"))
    elif location == "orc_village":  # a round hut with a thatched cone roof
        cv.rect(x - 0.3 * s, y - 0.4 * s, x + 0.3 * s, y, hex_bgr("#A1887F"))
        cv.poly(
            [(x - 0.42 * s, y - 0.36 * s), (x, y - 0.9 * s), (x + 0.42 * s, y - 0.36 * s)],
            hex_bgr("#C8A24A"),
        )
        cv.ellipse((x, y), (0.12 * s, 0.24 * s), dark, start=180, end=360)
    else:  # enchanted forest: a fir tree with glowing dots
        green = hex_bgr("#2E7D32")
        cv.rect(x - 0.05 * s, y - 0.2 * s, x + 0.05 * s, y, hex_bgr("#5D4037"))
        for i, (wd, top) in enumerate(((0.42, 0.55), (0.34, 0.75), (0.24, 0.95))):
            base = y - 0.15 * s - i * 0.2 * s
            cv.poly([(x - wd * s, base), (x, y - top * s), (x + wd * s, base)], green)
        for dx, dy in ((-0.12, -0.35), (0.14, -0.5), (-0.05, -0.7)):
            cv.circle((x + dx * s, y + dy * s), 0.035 * s, hex_bgr("#FFEE58"))


def draw_village(card: dict[str, Any], width_px: int) -> np.ndarray:
    """The face of a village card object: location colour, name, value, `value` buildings."""
    w, h = DK_CARD_MM
    location = _location(card)
    colour = LOCATION_COLOURS[location]
    value = _points(card)
    cv = Canvas(w, h, width_px, WHITE)
    m = 2.5
    cv.rect(m, m, w - m, h - m, colour, radius=3.0)
    cv.rect(m + 2.0, m + 16.0, w - m - 2.0, h - m - 9.0, lighter(colour, 0.75), radius=2.0)
    cv.text(
        LOCATION_NAMES[location],
        ((m + 15.0 + w - m) / 2, m + 8.0),
        3.6,
        WHITE,
        weight=0.15,
        max_width=w - 2 * m - 18,
    )
    _badge(cv, (m + 8.0, m + 8.0), 5.8, str(value), darker(colour, 0.35))
    # ground and buildings
    ground_y = h - m - 22.0
    cv.rect(m + 2.0, ground_y, w - m - 2.0, h - m - 9.0, lighter(colour, 0.45))
    n = max(1, min(value, 6))
    s = min(34.0, (w - 2 * m - 8.0) / n * 1.8)
    for i in range(n):
        bx = m + 4.0 + (w - 2 * m - 8.0) * (i + 0.5) / n
        _building(cv, location, (bx, ground_y + (3.0 if i % 2 else 0.0)), s, colour)
    cv.text("VILLAGE", (w / 2, h - m - 4.5), 3.0, WHITE, weight=0.15)
    return cv.image


def _cracked_crown(cv: Canvas, c: Point, w: float, crack: BGR) -> None:
    crown(cv, c, w, hex_bgr("#A89060"), hex_bgr("#444444"))
    x, y = c
    cv.poly(
        [(x - 0.03 * w, y - 0.3 * w), (x + 0.07 * w, y - 0.1 * w), (x - 0.07 * w, y + 0.03 * w),
         (x + 0.05 * w, y + 0.27 * w)],
        crack, 0.035 * w, closed=False,
    )  # fmt: skip


def draw_penalty(card: dict[str, Any], width_px: int) -> np.ndarray:
    """The face of a penalty card object: −n in a seal over n cracked crowns, in a red that
    darkens with the value."""
    w, h = DK_CARD_MM
    value = abs(_points(card))
    red = mix(hex_bgr("#A83232"), hex_bgr("#2E0A0A"), min(1.0, max(0, value - 1) / 4))
    cv = Canvas(w, h, width_px, WHITE)
    m = 2.5
    cv.rect(m, m, w - m, h - m, red, radius=3.0)
    cv.rect(m + 2.0, m + 2.0, w - m - 2.0, h - m - 2.0, hex_bgr("#E0B0B0"), 0.5, radius=2.0)
    cv.text("PENALTY", (w / 2, m + 8.0), 3.8, hex_bgr("#FFE0E0"), weight=0.15)
    seal = (w / 2, h * 0.36)
    cv.circle(seal, 15.0, hex_bgr("#F5E6D0"))
    cv.circle(seal, 15.0, hex_bgr("#1A0505"), 0.8)
    cv.text(f"-{value}", seal, 13.0, red, weight=0.15, max_width=24.0)
    # one cracked crown per point lost, in rows of up to three
    n = max(1, min(value, 9))
    per_row = min(n, 3)
    rows = (n + per_row - 1) // per_row
    size = 15.0 if rows == 1 else 11.0
    for k in range(n):
        r, c = divmod(k, per_row)
        in_row = min(per_row, n - r * per_row)
        cx = w / 2 + (c - (in_row - 1) / 2) * (size + 2.0)
        cy = h * 0.68 + r * (size * 0.8)
        _cracked_crown(cv, (cx, cy), size, red)
    return cv.image


def draw_back(width_px: int) -> np.ndarray:
    """The card back: a crowned die on deep purple, framed in gold, with the game's name."""
    w, h = DK_CARD_MM
    purple = hex_bgr("#4A1468")  # deep purple: unlike the navy King's Breakfast back
    cv = Canvas(w, h, width_px, WHITE)
    m = 2.5
    cv.rect(m, m, w - m, h - m, purple, radius=3.0)
    for j in range(15):
        for i in range(10):
            x, y = 7 + i * 5.5 + (2.75 if j % 2 else 0), 7 + j * 5.5
            if x < w - 6 and y < h - 6:
                cv.circle((x, y), 0.7, lighter(purple, 0.12))
    cv.rect(m + 2.0, m + 2.0, w - m - 2.0, h - m - 2.0, GOLD, 0.6, radius=2.0)
    size = 22.0
    die_icon(
        cv,
        w / 2 - size / 2,
        h / 2 - size / 2 + 3.0,
        size,
        5,
        body=hex_bgr("#F3E0C0"),
        pip=hex_bgr("#B71C1C"),
        outline=GOLD,
    )
    crown(cv, (w / 2, h / 2 - 14.0), 20.0, GOLD, hex_bgr("#C62828"))
    cv.text("DICE KING", (w / 2, h - m - 11.0), 4.6, GOLD, weight=0.15)
    return cv.image


def draw_card(card_id: str, width_px: int) -> np.ndarray:
    """The face of the card `card_id` at `width_px`.

    Raises:
        ValueError: no card has that id.
    """
    card = card_by_id(card_id)
    if card is None:
        raise ValueError(f"unknown piece 'dice-king/{card_id}'")
    kind = card_kind(card)
    if kind == "inhabitant":
        return draw_inhabitant(card, width_px)
    if kind == "village":
        return draw_village(card, width_px)
    return draw_penalty(card, width_px)
