"""JSON to and from for states and actions (the design's ids and shapes).

A state's `layout` is ``"reference"`` (with ``bar_reading`` selecting CI-5's reading) or an
inline layout object. The engine reads no files: a caller that accepts layout paths loads them
and passes the parsed `Layout`s in `layouts`, keyed by the string found in the JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.cafe_international.catalogue import (
    NATIONALITY_IDS,
    TILE_COUNTS,
    TILE_KINDS,
    check_tile,
    hand_tile,
    is_joker,
)
from engines.cafe_international.layout import (
    DEFAULT_READING,
    REFERENCE_NAME,
    Layout,
    layout_from_json,
    layout_to_json,
    reference_layout,
)
from engines.cafe_international.position import PositionError, check_position
from engines.cafe_international.state import (
    Action,
    Draw,
    Pass,
    Placement,
    Seat,
    State,
    Swap,
    ToBar,
)
from engines.errors import MalformedError

GAME = "cafe-international"


# --- layouts inside states ----------------------------------------------------------------------


def layout_value_to_json(layout: Layout) -> str | dict[str, Any]:
    """``"reference"`` for the shipped layout, else the inline layout object."""
    if layout.name == REFERENCE_NAME and layout.readings == reference_layout().readings:
        try:
            if layout == reference_layout(layout.bar_reading):
                return REFERENCE_NAME
        except MalformedError:
            pass
    return layout_to_json(layout)


def layout_value_from_json(
    value: Any, bar_reading: Any, layouts: Mapping[str, Layout] | None = None
) -> Layout:
    """Resolve a state's ``layout`` field (a name, a caller-loaded path, or an inline object)."""
    if bar_reading is None:
        bar_reading = DEFAULT_READING
    if not isinstance(bar_reading, str):
        raise MalformedError(f"bar_reading must be a string, got {bar_reading!r}")
    if value == REFERENCE_NAME:
        return reference_layout(bar_reading)
    if isinstance(value, str):
        if layouts and value in layouts:
            return layouts[value].with_reading(bar_reading)
        raise MalformedError(
            f"unknown layout {value!r} in layout (give 'reference', a path, or a layout object)"
        )
    if isinstance(value, Mapping):
        return layout_from_json(value, bar=bar_reading)
    raise MalformedError(f"layout must be 'reference', a path or an object, got {value!r}")


# --- actions ------------------------------------------------------------------------------------


def placement_to_json(placement: Placement) -> dict[str, str]:
    """``{"tile", "chair", "as"}`` of one placement."""
    return {"tile": placement.tile, "chair": placement.chair, "as": placement.nationality}


def action_to_json(action: Action) -> dict[str, Any]:
    """The JSON object of an action (``type`` plus its fields)."""
    if isinstance(action, Seat):
        return {"type": "seat", "placements": [placement_to_json(p) for p in action.placements]}
    if isinstance(action, ToBar):
        return {"type": "bar", "tile": action.tile}
    if isinstance(action, Swap):
        return {"type": "swap", "chair": action.chair, "tile": action.tile}
    if isinstance(action, Pass):
        return {"type": "pass"}
    if isinstance(action, Draw):
        return {"type": "draw", "tile": action.tile}
    raise MalformedError(f"unknown action {action!r}")


def _string(data: Mapping[str, Any], key: str, where: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise MalformedError(f"{where}.{key} must be a non-empty string, got {value!r}")
    return value


def _placement_from_json(data: Any, where: str) -> Placement:
    if not isinstance(data, Mapping):
        raise MalformedError(f"{where} must be an object, got {data!r}")
    tile = check_tile(data.get("tile"), f"{where}.tile")
    chair = _string(data, "chair", where)
    declared = data.get("as")
    if declared is None:
        if is_joker(tile):
            raise MalformedError(f"{where}.as is required for a joker (its nationality)")
        declared = tile.split("/", 1)[0]
    if declared not in NATIONALITY_IDS:
        raise MalformedError(f"unknown nationality {declared!r} in {where}.as")
    return Placement(tile, chair, declared)


def action_from_json(data: Any) -> Action:
    """Parse an action object; extra fields (``points``, ``stool``…) are ignored.

    Raises:
        MalformedError: unknown type, missing or unknown ids; the message names the field.
    """
    if not isinstance(data, Mapping):
        raise MalformedError(f"an action must be a json object, got {data!r}")
    kind = data.get("type")
    if kind == "seat":
        placements = data.get("placements")
        if not isinstance(placements, list) or not placements:
            raise MalformedError(f"placements must be a non-empty list, got {placements!r}")
        return Seat(
            tuple(_placement_from_json(p, f"placements[{i}]") for i, p in enumerate(placements))
        )
    if kind == "bar":
        return ToBar(check_tile(data.get("tile"), "tile"))
    if kind == "swap":
        return Swap(_string(data, "chair", "action"), check_tile(data.get("tile"), "tile"))
    if kind == "pass":
        return Pass()
    if kind == "draw":
        return Draw(check_tile(data.get("tile"), "tile"))
    raise MalformedError(f"unknown action type {kind!r} in type (seat, bar, swap, pass, draw)")


# --- states -------------------------------------------------------------------------------------


def state_to_json(state: State) -> dict[str, Any]:
    """The full game state as JSON (exact: `state_from_json` rebuilds an equal state)."""
    names = state.players
    data: dict[str, Any] = {
        "game": GAME,
        "layout": layout_value_to_json(state.layout),
        "bar_reading": state.layout.bar_reading,
        "players": list(names),
        "current": names[state.current],
        "turn": state.turn,
        "hands": {name: list(hand) for name, hand in zip(names, state.hands, strict=True)},
        "hand_limits": dict(zip(names, state.hand_limits, strict=True)),
        "points": dict(zip(names, state.points, strict=True)),
        "seated": state.seated_by_chair(),
        "bar": list(state.bar),
        "bag": state.bag_counts(),
        "refill": [names[p] for p in state.refill],
        "lone_chair": (
            None if state.lone_chair is None else state.layout.chairs[state.lone_chair].id
        ),
        "passes": state.passes,
    }
    return data


def _field(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise MalformedError(f"{key} is missing or has the wrong type: {value!r}")
    return value


def _per_player(data: Mapping[str, Any], key: str, names: tuple[str, ...]) -> list[Any]:
    value = _field(data, key, dict)
    if set(value) != set(names):
        raise MalformedError(f"{key} must have an entry per player {list(names)}, got {value!r}")
    return [value[name] for name in names]


def _count(value: Any, where: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise MalformedError(f"{where} must be a whole number ≥ 0, got {value!r}")
    return value


def state_from_json(data: Any, *, layouts: Mapping[str, Layout] | None = None) -> State:
    """Rebuild a state from `state_to_json`'s object, checking it.

    Raises:
        MalformedError: a field is missing, of the wrong type or holds unknown ids; tile counts
            do not add up to the game's 100 tiles.
        PositionError: the board breaks the seating rules (every problem listed).
    """
    if not isinstance(data, Mapping):
        raise MalformedError(f"a state must be a json object, got {type(data).__name__}")
    if data.get("game", GAME) != GAME:
        raise MalformedError(f"game must be {GAME!r}, got {data.get('game')!r}")
    layout = layout_value_from_json(data.get("layout"), data.get("bar_reading"), layouts)
    names = tuple(_field(data, "players", list))
    if len(names) < 1 or not all(isinstance(n, str) and n for n in names):
        raise MalformedError(f"players must be a list of names, got {list(names)!r}")
    if len(set(names)) != len(names):
        raise MalformedError(f"player names must differ, got {list(names)!r}")
    index = {name: i for i, name in enumerate(names)}
    current = _field(data, "current", str)
    if current not in index:
        raise MalformedError(f"unknown player {current!r} in current")
    hands = []
    for name, hand in zip(names, _per_player(data, "hands", names), strict=True):
        if not isinstance(hand, list):
            raise MalformedError(f"hands.{name} must be a list of tiles, got {hand!r}")
        tiles = [check_tile(t, f"hands.{name}") for t in hand]
        hands.append(tuple(sorted(tiles, key=TILE_KINDS.index)))
    limits = [_count(v, "hand_limits") for v in _per_player(data, "hand_limits", names)]
    points = _per_player(data, "points", names)
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in points):
        raise MalformedError(f"points must be whole numbers, got {points!r}")
    seated_data = _field(data, "seated", dict)
    bar = _field(data, "bar", list)
    bag_data = _field(data, "bag", dict)
    for tile, count in bag_data.items():
        check_tile(tile, "bag")
        _count(count, f"bag.{tile}")
    bag = tuple(bag_data.get(tile, 0) for tile in TILE_KINDS)
    refill_names = _field(data, "refill", list)
    unknown = [n for n in refill_names if n not in index]
    if unknown:
        raise MalformedError(f"unknown player {unknown[0]!r} in refill")
    lone_id = data.get("lone_chair")
    if lone_id is not None and lone_id not in layout.chair_index:
        raise MalformedError(f"unknown chair {lone_id!r} in lone_chair")
    turn = _count(data.get("turn"), "turn")
    passes = _count(data.get("passes", 0), "passes")
    # the position itself: every problem at once
    problems = check_position(
        layout, seated_data, bar, lone_guests_allowed=0 if lone_id is None else 1
    )
    if problems:
        raise PositionError(problems)
    board: list[str | None] = [None] * len(layout.chairs)
    for chair_id, guest in seated_data.items():
        board[layout.chair_index[chair_id]] = guest
    seen = {tile: 0 for tile in TILE_KINDS}
    for tile in [t for hand in hands for t in hand] + list(bar):
        seen[tile] += 1
    for guest in board:
        if guest is not None:
            seen[hand_tile(guest)] += 1
    for tile, count in zip(TILE_KINDS, bag, strict=True):
        if seen[tile] + count != TILE_COUNTS[tile]:
            raise MalformedError(
                f"tile count of {tile!r} is {seen[tile] + count} over bag, hands, chairs and "
                f"bar, expected {TILE_COUNTS[tile]}"
            )
    return State(
        layout=layout,
        players=names,
        hands=tuple(hands),
        hand_limits=tuple(limits),
        points=tuple(points),
        seated=tuple(board),
        bar=tuple(bar),
        bag=bag,
        current=index[current],
        refill=tuple(index[n] for n in refill_names),
        turn=turn,
        lone_chair=None if lone_id is None else layout.chair_index[lone_id],
        passes=passes,
    )


__all__ = [
    "GAME",
    "action_from_json",
    "action_to_json",
    "layout_value_from_json",
    "layout_value_to_json",
    "placement_to_json",
    "state_from_json",
    "state_to_json",
]
