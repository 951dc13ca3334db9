"""Board layouts as data (CI-3, CI-4, CI-5): tables, chairs, which chair touches which table, bar.

A layout is a value loaded from the layout file of the design contract and validated on the way
in, naming every problem found (a table without exactly 4 chairs, a chair of 0 or 3 tables, an
unknown nationality, a bar without 20 values, a duplicate id, an unknown table). Positions are in
board units and optional. Any number of tables (at least one) is valid.

The bar's stool values are edition data (CI-5): ``bar.values`` holds the default reading and
``bar.readings`` may hold others by name (the reference layout has ``"alternative"``); a layout is
loaded with one reading selected.

Public names: `Table`, `Chair`, `Layout`, `layout_from_json`, `layout_to_json`,
`reference_layout`, `REFERENCE_NAME`, `STOOLS`, `CHAIRS_PER_TABLE`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from engines.cafe_international.catalogue import NATIONALITY_IDS
from engines.errors import MalformedError

REFERENCE_NAME = "reference"
DEFAULT_READING = "default"
STOOLS = 20  # CI-4
CHAIRS_PER_TABLE = 4  # CI-3

Point = tuple[float, float]


@dataclass(frozen=True)
class Table:
    """A table with its printed flag (CI-3) and, optionally, its centre in board units."""

    id: str
    nationality: str
    center: Point | None = None


@dataclass(frozen=True)
class Chair:
    """A chair and the 1 or 2 tables it belongs to (CI-3), with an optional centre."""

    id: str
    tables: tuple[str, ...]
    center: Point | None = None

    @property
    def is_shared(self) -> bool:
        """Whether the chair stands between two tables."""
        return len(self.tables) == 2


@dataclass(frozen=True, eq=False)
class Layout:
    """A validated board layout with one bar reading selected; build it with `layout_from_json`.

    Besides the data it holds index tables the rules use (chair and table positions by id, each
    chair's tables, each table's chairs); they are derived, so equality and hashing ignore them.
    """

    name: str
    tables: tuple[Table, ...]
    chairs: tuple[Chair, ...]
    bar_readings: tuple[tuple[str, tuple[int, ...]], ...]
    bar_reading: str = DEFAULT_READING
    stools: tuple[Point, ...] | None = None
    # derived indexes (not part of the value)
    chair_index: dict[str, int] = field(init=False, repr=False)
    table_index: dict[str, int] = field(init=False, repr=False)
    chair_tables: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    table_chairs: tuple[tuple[int, ...], ...] = field(init=False, repr=False)
    table_nationality: tuple[str, ...] = field(init=False, repr=False)
    chair_nationalities: tuple[tuple[str, ...], ...] = field(init=False, repr=False)
    bar_values: tuple[int, ...] = field(init=False, repr=False)
    _key: tuple[Any, ...] = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "chair_index", {chair.id: index for index, chair in enumerate(self.chairs)})
        set_(self, "table_index", {table.id: index for index, table in enumerate(self.tables)})
        chair_tables = tuple(
            tuple(self.table_index[table_id] for table_id in chair.tables) for chair in self.chairs
        )
        set_(self, "chair_tables", chair_tables)
        table_chairs: list[list[int]] = [[] for _ in self.tables]
        for chair_position, tables in enumerate(chair_tables):
            for table_position in tables:
                table_chairs[table_position].append(chair_position)
        set_(self, "table_chairs", tuple(tuple(chairs) for chairs in table_chairs))
        set_(self, "table_nationality", tuple(table.nationality for table in self.tables))
        set_(
            self,
            "chair_nationalities",
            tuple(
                tuple(sorted({self.table_nationality[t] for t in tables}))
                for tables in chair_tables
            ),
        )
        set_(self, "bar_values", dict(self.bar_readings)[self.bar_reading])
        key = (
            self.name,
            self.tables,
            self.chairs,
            self.bar_readings,
            self.bar_reading,
            self.stools,
        )
        set_(self, "_key", key)
        set_(self, "_hash", hash(key))

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Layout):
            return NotImplemented
        return self._hash == other._hash and self._key == other._key

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"layout_from_json({layout_to_json(self)!r}, bar={self.bar_reading!r})"

    @property
    def readings(self) -> tuple[str, ...]:
        """The names of the bar readings this layout offers (``default`` first)."""
        return tuple(name for name, _ in self.bar_readings)

    def with_reading(self, reading: str) -> Layout:
        """The same layout with another bar reading selected (CI-5).

        Raises:
            MalformedError: the layout has no such reading.
        """
        if reading not in self.readings:
            known = ", ".join(self.readings)
            raise MalformedError(f"unknown bar reading {reading!r} (this layout has: {known})")
        return Layout(self.name, self.tables, self.chairs, self.bar_readings, reading, self.stools)

    def tables_of_chair(self, chair_id: str) -> tuple[str, ...]:
        """The ids of the tables chair `chair_id` belongs to."""
        return self.chairs[self.chair_index[chair_id]].tables


# --- loading and validation -----------------------------------------------------------------


def _point(value: Any, where: str, problems: list[str]) -> Point | None:
    if value is None:
        return None
    if (
        isinstance(value, list | tuple)
        and len(value) == 2
        and all(
            isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            for v in value
        )
    ):
        return (float(value[0]), float(value[1]))
    problems.append(f"{where} must be [x, y] in board units, got {value!r}")
    return None


def _bar_values(value: Any, where: str, problems: list[str]) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, int) and not isinstance(v, bool) for v in value
    ):
        problems.append(f"{where} must be a list of {STOOLS} integers, got {value!r}")
        return ()
    if len(value) != STOOLS:
        problems.append(f"{where} has {len(value)} values, expected {STOOLS}")
    return tuple(value)


def _entries(
    data: Any, field: str, noun: str, problems: list[str]
) -> Iterator[tuple[str, Mapping[str, Any], str]]:
    """The objects of list `field` that have a fresh non-empty id, as (where, entry, id);
    every other entry is reported in `problems` and skipped."""
    if not isinstance(data, list) or not data:
        problems.append(f"{field} must be a non-empty list, got {data!r}")
        return
    seen: set[str] = set()
    for position, entry in enumerate(data):
        where = f"{field}[{position}]"
        if not isinstance(entry, Mapping):
            problems.append(f"{where} must be an object, got {entry!r}")
            continue
        entry_id = entry.get("id")
        if not isinstance(entry_id, str) or not entry_id:
            problems.append(f"{where}.id must be a non-empty string, got {entry_id!r}")
            continue
        if entry_id in seen:
            problems.append(f"duplicate {noun} id {entry_id!r} in {where}")
            continue
        seen.add(entry_id)
        yield where, entry, entry_id


def _parse_tables(data: Any, problems: list[str]) -> list[Table]:
    tables: list[Table] = []
    for where, entry, table_id in _entries(data, "tables", "table", problems):
        nationality = entry.get("nationality")
        if nationality not in NATIONALITY_IDS:
            problems.append(f"unknown nationality {nationality!r} in {where}.nationality")
            continue
        center = _point(entry.get("center"), f"{where}.center", problems)
        tables.append(Table(table_id, str(nationality), center))
    return tables


def _parse_chairs(data: Any, table_ids: set[str], problems: list[str]) -> list[Chair]:
    chairs: list[Chair] = []
    for where, entry, chair_id in _entries(data, "chairs", "chair", problems):
        tables = entry.get("tables")
        if not isinstance(tables, list) or not all(isinstance(t, str) for t in tables):
            problems.append(f"{where}.tables must be a list of table ids, got {tables!r}")
            continue
        if len(tables) not in (1, 2):
            problems.append(f"chair {chair_id!r} has {len(tables)} tables, expected 1 or 2")
            continue
        if len(set(tables)) != len(tables):
            problems.append(f"chair {chair_id!r} lists table {tables[0]!r} twice")
            continue
        unknown = [t for t in tables if t not in table_ids]
        if unknown:
            problems.append(f"chair {chair_id!r} refers to unknown table {unknown[0]!r}")
            continue
        center = _point(entry.get("center"), f"{where}.center", problems)
        chairs.append(Chair(chair_id, tuple(tables), center))
    return chairs


def _parse_bar(
    data: Any, problems: list[str]
) -> tuple[tuple[tuple[str, tuple[int, ...]], ...], tuple[Point, ...] | None]:
    if not isinstance(data, Mapping):
        problems.append(f"bar must be an object with 'values', got {data!r}")
        return (), None
    readings = [(DEFAULT_READING, _bar_values(data.get("values"), "bar.values", problems))]
    extra = data.get("readings", {})
    if not isinstance(extra, Mapping):
        problems.append(f"bar.readings must map names to value lists, got {extra!r}")
        extra = {}
    for name, values in extra.items():
        if name == DEFAULT_READING:
            problems.append("bar.readings must not redefine 'default' (that is bar.values)")
            continue
        readings.append((str(name), _bar_values(values, f"bar.readings.{name}", problems)))
    stools_data = data.get("stools")
    stools: tuple[Point, ...] | None = None
    if stools_data is not None:
        if not isinstance(stools_data, list) or len(stools_data) != STOOLS:
            count = len(stools_data) if isinstance(stools_data, list) else stools_data
            problems.append(f"bar.stools must list {STOOLS} positions, got {count!r}")
        else:
            points = [_point(p, f"bar.stools[{i}]", problems) for i, p in enumerate(stools_data)]
            stools = tuple(p for p in points if p is not None)
            if len(stools) != STOOLS:
                stools = None
    return tuple(readings), stools


def layout_from_json(data: Any, *, bar: str = DEFAULT_READING) -> Layout:
    """Validate a layout object (the design's layout file format) and build a `Layout`.

    Args:
        data: the parsed JSON object.
        bar: the bar reading to select (``default`` or a name from ``bar.readings``).

    Raises:
        MalformedError: naming every problem found, separated by ``;``.
    """
    if not isinstance(data, Mapping):
        raise MalformedError(f"a layout must be a json object, got {type(data).__name__}")
    problems: list[str] = []
    name = data.get("name", "unnamed")
    if not isinstance(name, str) or not name:
        problems.append(f"layout name must be a non-empty string, got {name!r}")
        name = "unnamed"
    tables = _parse_tables(data.get("tables"), problems)
    chairs = _parse_chairs(data.get("chairs"), {t.id for t in tables}, problems)
    chair_count = {table.id: 0 for table in tables}
    for chair in chairs:
        for table_id in chair.tables:
            chair_count[table_id] += 1
    if not any(p.startswith("chair") for p in problems):
        for table_id, count in chair_count.items():
            if count != CHAIRS_PER_TABLE:
                problems.append(
                    f"table {table_id!r} has {count} chairs, expected {CHAIRS_PER_TABLE}"
                )
    clash = sorted({t.id for t in tables} & {c.id for c in chairs})
    if clash:
        problems.append(f"id {clash[0]!r} names both a table and a chair")
    readings, stools = _parse_bar(data.get("bar"), problems)
    if problems:
        shown = problems[:6] + ([f"and {len(problems) - 6} more"] if len(problems) > 6 else [])
        raise MalformedError("bad layout: " + "; ".join(shown))
    if bar not in dict(readings):
        known = ", ".join(name for name, _ in readings)
        raise MalformedError(f"unknown bar reading {bar!r} (this layout has: {known})")
    return Layout(name, tuple(tables), tuple(chairs), readings, bar, stools)


def _point_json(point: Point) -> list[float | int]:
    return [int(v) if float(v).is_integer() else v for v in point]


def layout_to_json(layout: Layout) -> dict[str, Any]:
    """The layout file object of `layout` (all readings; the selection is not part of it)."""
    tables: list[dict[str, Any]] = []
    for table in layout.tables:
        entry: dict[str, Any] = {"id": table.id, "nationality": table.nationality}
        if table.center is not None:
            entry["center"] = _point_json(table.center)
        tables.append(entry)
    chairs: list[dict[str, Any]] = []
    for chair in layout.chairs:
        entry = {"id": chair.id, "tables": list(chair.tables)}
        if chair.center is not None:
            entry["center"] = _point_json(chair.center)
        chairs.append(entry)
    readings = dict(layout.bar_readings)
    bar: dict[str, Any] = {"values": list(readings.pop(DEFAULT_READING))}
    if readings:
        bar["readings"] = {name: list(values) for name, values in readings.items()}
    if layout.stools is not None:
        bar["stools"] = [_point_json(p) for p in layout.stools]
    return {"name": layout.name, "tables": tables, "chairs": chairs, "bar": bar}


@cache
def _reference(bar: str) -> Layout:
    text = (
        resources.files("engines.cafe_international")
        .joinpath("data/reference_layout.json")
        .read_text(encoding="utf-8")
    )
    return layout_from_json(json.loads(text), bar=bar)


def reference_layout(bar: str = DEFAULT_READING) -> Layout:
    """The layout shipped with the project (CI-3 counts), with bar reading `bar` (CI-5).

    Raises:
        MalformedError: `bar` is neither ``default`` nor ``alternative``.
    """
    if bar not in (DEFAULT_READING, "alternative"):
        raise MalformedError(f"unknown bar reading {bar!r} (known: default, alternative)")
    return _reference(bar)


__all__ = [
    "CHAIRS_PER_TABLE",
    "DEFAULT_READING",
    "REFERENCE_NAME",
    "STOOLS",
    "Chair",
    "Layout",
    "Table",
    "layout_from_json",
    "layout_to_json",
    "reference_layout",
]
