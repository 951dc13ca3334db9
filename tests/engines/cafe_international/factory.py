"""Small factories for Café International tests: a mini layout and states built from a picture.

The mini layout (4 tables, 14 chairs):

    T1 italy:   a1 a2 a3 + s12      T2 france: s12 b1 b2 s23
    T3 germany: s23 c1 c2 c3        T4 italy:  d1 d2 d3 d4
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engines.cafe_international import Layout, State, layout_from_json
from engines.cafe_international.catalogue import TILE_COUNTS, TILE_INDEX, TILE_KINDS, hand_tile
from engines.cafe_international.layout import DEFAULT_READING

BAR_VALUES = [1, 2, 3, 4, 5, -2, -4, -6, -8, -10, -4, -6, -8, -10, -12, -6, -8, -10, -12, -14]


def mini_layout_json() -> dict[str, Any]:
    """The mini layout as a layout-file object (no positions)."""
    chairs = [
        ("a1", ["T1"]),
        ("a2", ["T1"]),
        ("a3", ["T1"]),
        ("s12", ["T1", "T2"]),
        ("b1", ["T2"]),
        ("b2", ["T2"]),
        ("s23", ["T2", "T3"]),
        ("c1", ["T3"]),
        ("c2", ["T3"]),
        ("c3", ["T3"]),
        ("d1", ["T4"]),
        ("d2", ["T4"]),
        ("d3", ["T4"]),
        ("d4", ["T4"]),
    ]
    return {
        "name": "mini",
        "tables": [
            {"id": "T1", "nationality": "italy"},
            {"id": "T2", "nationality": "france"},
            {"id": "T3", "nationality": "germany"},
            {"id": "T4", "nationality": "italy"},
        ],
        "chairs": [{"id": chair, "tables": tables} for chair, tables in chairs],
        "bar": {"values": list(BAR_VALUES)},
    }


def mini_layout(bar: str = DEFAULT_READING) -> Layout:
    """The mini layout as a `Layout`."""
    return layout_from_json(mini_layout_json(), bar=bar)


def make_state(
    *,
    layout: Layout | None = None,
    seated: Mapping[str, str] | None = None,
    hands: Sequence[Sequence[str]] = (("italy/w",), ()),
    bar: Sequence[str] = (),
    players: Sequence[str] | None = None,
    current: int = 0,
    turn: int = 1,
    hand_limits: Sequence[int] | None = None,
    points: Sequence[int] | None = None,
    refill: Sequence[int] = (),
    bag: Mapping[str, int] | None = None,
    lone_chair: str | None = None,
    passes: int = 0,
) -> State:
    """A state from a picture of the table; the bag holds every other tile unless given.

    With an explicit `bag`, the remaining tiles are nowhere (use only where counts do not matter).
    An empty hand of a player other than `current` gets one ``uk/w`` tile, since a player without
    tiles would have ended the game (CI-21).
    """
    layout = layout or mini_layout()
    hands = [
        tuple(hand) if hand or index == current else ("uk/w",) for index, hand in enumerate(hands)
    ]
    seated = dict(seated or {})
    names = tuple(players or [f"P{i + 1}" for i in range(len(hands))])
    board: list[str | None] = [None] * len(layout.chairs)
    for chair, guest in seated.items():
        board[layout.chair_index[chair]] = guest
    used = [hand_tile(g) for g in seated.values()] + list(bar) + [t for h in hands for t in h]
    if bag is None:
        counts = tuple(TILE_COUNTS[t] - used.count(t) for t in TILE_KINDS)
        assert min(counts) >= 0, "more tiles than the game has"
    else:
        counts = tuple(bag.get(t, 0) for t in TILE_KINDS)
    return State(
        layout=layout,
        players=names,
        hands=tuple(tuple(sorted(h, key=TILE_INDEX.__getitem__)) for h in hands),
        hand_limits=tuple(hand_limits or [5] * len(names)),
        points=tuple(points or [0] * len(names)),
        seated=tuple(board),
        bar=tuple(bar),
        bag=counts,
        current=current,
        refill=tuple(refill),
        turn=turn,
        lone_chair=None if lone_chair is None else layout.chair_index[lone_chair],
        passes=passes,
    )
