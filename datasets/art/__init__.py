"""Companion art: deterministic, procedurally drawn faces of every piece, to print and render.

Owns the look of our pieces (cards, tiles, the Café board, dice) and of foreign pieces (cards and
tiles that are not ours). Every image is a BGR uint8 array, the same bytes for the same arguments.

Piece identities follow the design contract: ``kings-breakfast/<food>``,
``kings-breakfast/emerald``, ``cafe-international/<nationality>/<w|m>``,
``cafe-international/joker/<w|m>``, ``dice-king/<card id>`` (the companion deck's inhabitants,
villages and penalties).

Public names:
    identities, piece_size_mm, piece_corner_radius_mm, face, back, foreign_face, board, BoardArt,
    default_layout, DieStyle, random_die_style, dice_king_style, die_face, pip_layout,
    GAMES; the module `print_pdf` (``make_pdf``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from datasets.art import cafe_international as _ci
from datasets.art import dice_king as _dk
from datasets.art import kings_breakfast as _kb
from datasets.art.cafe_international import BoardArt, default_layout
from datasets.art.dice import DieStyle, dice_king_style, die_face, random_die_style
from datasets.art.foreign import foreign_face
from datasets.art.palette import (
    CARD_CORNER_RADIUS_FRACTION,
    CI_TILE_MM,
    DK_CARD_MM,
    FOODS,
    KB_CARD_MM,
    NATIONALITIES,
    TILE_CORNER_RADIUS_FRACTION,
)
from datasets.art.pictograms import pip_layout, render_supersampled

GAMES: tuple[str, ...] = ("kings-breakfast", "cafe-international", "dice-king")
_MIN_INTERNAL_PX = 360  # faces smaller than this are drawn larger and downsampled
_MAX_WIDTH_PX = 8000


def identities(game: str) -> list[str]:
    """Every piece identity of `game`, in a fixed order.

    Raises:
        ValueError: unknown game.
    """
    if game == "kings-breakfast":
        return [f"kings-breakfast/{k}" for k in (*FOODS, "emerald")]
    if game == "cafe-international":
        return [f"cafe-international/{n}/{g}" for n in (*NATIONALITIES, "joker") for g in "wm"]
    if game == "dice-king":
        return [f"dice-king/{c['id']}" for c in _dk.deck()]
    raise ValueError(f"unknown game {game!r}")


def _split(identity: str) -> tuple[str, str]:
    game, _, rest = identity.partition("/")
    if game not in GAMES or not rest:
        raise ValueError(f"unknown piece {identity!r}")
    return game, rest


def piece_size_mm(identity: str) -> tuple[float, float]:
    """The printed (width, height) in millimetres of the piece `identity`.

    King's Breakfast cards are 57 × 89 (bridge size), Dice King cards 63 × 88 (poker size), Café
    International tiles 24 × 24; see `datasets.art.palette`.

    Raises:
        ValueError: unknown piece.
    """
    if identity not in _known(identity.partition("/")[0]):
        raise ValueError(f"unknown piece {identity!r}")
    game = identity.partition("/")[0]
    return {
        "kings-breakfast": KB_CARD_MM,
        "cafe-international": CI_TILE_MM,
        "dice-king": DK_CARD_MM,
    }[game]


def piece_corner_radius_mm(identity: str) -> float:
    """The rounding of the piece's physical corners in millimetres (for the renderer's masks)."""
    w, _h = piece_size_mm(identity)
    frac = (
        TILE_CORNER_RADIUS_FRACTION if identity.startswith("cafe") else CARD_CORNER_RADIUS_FRACTION
    )
    return w * frac


@lru_cache(maxsize=8)
def _known(game: str) -> frozenset[str]:
    try:
        return frozenset(identities(game))
    except ValueError:
        return frozenset()


def _check_width(width_px: int) -> None:
    if not isinstance(width_px, int | np.integer) or not 8 <= int(width_px) <= _MAX_WIDTH_PX:
        raise ValueError(f"bad width_px {width_px!r} (8..{_MAX_WIDTH_PX})")


def _draw_face(identity: str, width_px: int) -> np.ndarray:
    game, rest = _split(identity)
    if game == "kings-breakfast":
        return _kb.draw_face(rest, width_px)
    if game == "cafe-international":
        nationality, _, gender = rest.partition("/")
        return _ci.draw_tile(nationality, gender, width_px)
    return _dk.draw_card(rest, width_px)


@lru_cache(maxsize=512)
def _cached_face(identity: str, width_px: int) -> np.ndarray:
    w_mm, h_mm = piece_size_mm(identity)
    img = render_supersampled(lambda w: _draw_face(identity, w), width_px, _MIN_INTERNAL_PX)
    img = _exact_height(img, width_px, h_mm / w_mm)
    img.setflags(write=False)
    return img


def _exact_height(img: np.ndarray, width_px: int, aspect: float) -> np.ndarray:
    import cv2

    h = max(1, int(round(width_px * aspect)))
    if img.shape[0] != h or img.shape[1] != width_px:
        img = cv2.resize(img, (width_px, h), interpolation=cv2.INTER_AREA)
    return np.ascontiguousarray(img)


def face(identity: str, width_px: int) -> np.ndarray:
    """The face of piece `identity`, `width_px` wide (height from its aspect ratio), BGR uint8.

    Raises:
        ValueError: unknown piece (``unknown piece 'x'``) or a width outside 8–8000.
    """
    if identity not in _known(identity.partition("/")[0]):
        raise ValueError(f"unknown piece {identity!r}")
    _check_width(width_px)
    return _cached_face(identity, int(width_px)).copy()


@lru_cache(maxsize=64)
def _cached_back(game: str, width_px: int) -> np.ndarray:
    if game == "kings-breakfast":
        draw, (w_mm, h_mm) = _kb.draw_back, KB_CARD_MM
    elif game == "cafe-international":
        draw, (w_mm, h_mm) = _ci.draw_tile_back, CI_TILE_MM
    else:
        draw, (w_mm, h_mm) = _dk.draw_back, DK_CARD_MM
    img = _exact_height(
        render_supersampled(draw, width_px, _MIN_INTERNAL_PX), width_px, h_mm / w_mm
    )
    img.setflags(write=False)
    return img


def back(game: str, width_px: int) -> np.ndarray:
    """The back of `game`'s cards (or tiles), `width_px` wide, BGR uint8.

    Raises:
        ValueError: unknown game or bad width.
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}")
    _check_width(width_px)
    return _cached_back(game, int(width_px)).copy()


def board(layout: dict[str, Any], px_per_unit: float) -> BoardArt:
    """The Café International board drawn from `layout` (design contract) at `px_per_unit`.

    Returns a `BoardArt`: the image, the 3×3 board-unit → pixel matrix and the corners of the
    ArUco registration markers placed per `vision/readers/board_markers.json` (see
    `datasets.art.cafe_international`).

    Raises:
        ValueError: the layout lacks positions, or the scale is not positive.
    """
    if not px_per_unit > 0:
        raise ValueError(f"bad px_per_unit {px_per_unit!r}")
    return _ci.draw_board(layout, float(px_per_unit))


__all__ = [
    "GAMES",
    "BoardArt",
    "DieStyle",
    "back",
    "board",
    "default_layout",
    "dice_king_style",
    "die_face",
    "face",
    "foreign_face",
    "identities",
    "piece_corner_radius_mm",
    "piece_size_mm",
    "pip_layout",
    "random_die_style",
]
