"""Build `reference_layout.json`, the project's reference board (CI-3, CI-4, CI-5).

Run ``python engines/cafe_international/data/make_reference_layout.py`` to regenerate it; the
output is deterministic and committed.

How it is built: 24 tables stand on a 6 × 5 grid whose middle 2 × 3 cells hold the bar. Every pair
of grid neighbours could share the chair between them (32 pairs); the four middle pairs of the top
row, bottom row and of the left and right blocks are left apart, so 28 chairs are shared. Each
table's other sides get a chair of its own (40 single chairs; 40 + 2 × 28 = 96 = 24 × 4). The
twelve nationalities are dealt to the tables with a seeded shuffle, repeated until no two tables
of one nationality are neighbours. The 20 bar stools go round the bar counter clockwise from its
top-left corner. Positions are in board units (one grid cell = 120).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

NATIONALITIES = (
    "africa",
    "china",
    "cuba",
    "france",
    "germany",
    "india",
    "italy",
    "russia",
    "spain",
    "turkey",
    "uk",
    "usa",
)
COLUMNS, ROWS = 6, 5
CELL = 120
MARGIN = 100
CHAIR_OFFSET = CELL // 2
BAR_VALUES = [1, 2, 3, 4, 5, -2, -4, -6, -8, -10, -4, -6, -8, -10, -12, -6, -8, -10, -12, -14]
ALTERNATIVE_VALUES = BAR_VALUES[:10] + [-12, -14, -16, -18, -20, -22, -24, -26, -28, -30]
SEED = 1989  # Spiel des Jahres


def _grid() -> list[tuple[int, int]]:
    cells = []
    for row in range(ROWS):
        for column in range(COLUMNS):
            if 1 <= row <= 3 and column in (2, 3):
                continue  # the bar
            cells.append((row, column))
    return cells


def _pairs(cells: list[tuple[int, int]]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    present = set(cells)
    left_apart = {
        ((0, 2), (0, 3)),
        ((4, 2), (4, 3)),
        ((2, 0), (2, 1)),
        ((2, 4), (2, 5)),
    }
    pairs = []
    for row, column in cells:
        for other in ((row, column + 1), (row + 1, column)):
            if other in present and ((row, column), other) not in left_apart:
                pairs.append(((row, column), other))
    return pairs


def _center(cell: tuple[int, int]) -> tuple[int, int]:
    row, column = cell
    return (MARGIN + column * CELL, MARGIN + row * CELL)


def _deal(cells: list[tuple[int, int]], pairs: list) -> dict[tuple[int, int], str]:
    rng = random.Random(SEED)
    adjacent = set(pairs) | {(b, a) for a, b in pairs}
    while True:
        deck = list(NATIONALITIES) * 2
        rng.shuffle(deck)
        dealt = dict(zip(cells, deck, strict=True))
        if all(dealt[a] != dealt[b] for a, b in adjacent):
            return dealt


def _stools() -> list[list[int]]:
    """Four stools above and below the counter, six down each side, clockwise from top-left."""
    left, right = MARGIN + 2 * CELL + 10, MARGIN + 3 * CELL - 10
    top, bottom = MARGIN + CELL + 10, MARGIN + 3 * CELL - 10
    top_row = [[round(left + (right - left) * i / 3), top - 25] for i in range(4)]
    right_side = [[right + 30, round(top + (bottom - top) * (i + 0.5) / 6)] for i in range(6)]
    bottom_row = [[x, bottom + 25] for x, _ in reversed(top_row)]
    left_side = [[left - 30, y] for _, y in reversed(right_side)]
    return top_row + right_side + bottom_row + left_side


def build() -> dict:
    """The reference layout as a layout-file object."""
    cells = _grid()
    pairs = _pairs(cells)
    dealt = _deal(cells, pairs)
    table_id = {cell: f"T{n:02d}" for n, cell in enumerate(cells, start=1)}
    tables = [
        {"id": table_id[c], "nationality": dealt[c], "center": list(_center(c))} for c in cells
    ]
    chairs: list[tuple[tuple[int, int], list[str]]] = []
    used_sides: dict[tuple[int, int], set[tuple[int, int]]] = {c: set() for c in cells}
    for a, b in pairs:
        (ax, ay), (bx, by) = _center(a), _center(b)
        chairs.append((((ay + by) // 2, (ax + bx) // 2), [table_id[a], table_id[b]]))
        used_sides[a].add((b[0] - a[0], b[1] - a[1]))
        used_sides[b].add((a[0] - b[0], a[1] - b[1]))
    for cell in cells:
        x, y = _center(cell)
        for dy, dx in ((-1, 0), (0, 1), (1, 0), (0, -1)):
            if (dy, dx) not in used_sides[cell]:
                # facing a neighbour it does not share with: pull in, so the two chairs stay apart
                facing = (cell[0] + dy, cell[1] + dx) in table_id
                offset = CHAIR_OFFSET - 18 if facing else CHAIR_OFFSET
                chairs.append(((y + dy * offset, x + dx * offset), [table_id[cell]]))
    chairs.sort(key=lambda chair: chair[0])
    chair_entries = [
        {"id": f"C{n:02d}", "tables": sorted(tables_), "center": [x, y]}
        for n, ((y, x), tables_) in enumerate(chairs, start=1)
    ]
    return {
        "name": "reference",
        "description": (
            "Reference board built by make_reference_layout.py: 24 tables on a 6x5 grid around "
            "the bar, 68 chairs (28 shared), 20 stools. Board units: one grid cell = 120."
        ),
        "tables": tables,
        "chairs": chair_entries,
        "bar": {
            "values": BAR_VALUES,
            "readings": {"alternative": ALTERNATIVE_VALUES},
            "stools": _stools(),
        },
    }


def _dumps(layout: dict) -> str:
    """JSON with one table, chair or bar list per line: readable and diff-friendly."""
    lines = ["{"]
    lines.append(f' "name": {json.dumps(layout["name"])},')
    lines.append(f' "description": {json.dumps(layout["description"])},')
    for key in ("tables", "chairs"):
        entries = [f"  {json.dumps(entry)}" for entry in layout[key]]
        lines.append(f' "{key}": [\n' + ",\n".join(entries) + "\n ],")
    bar = layout["bar"]
    lines.append(' "bar": {')
    lines.append(f'  "values": {json.dumps(bar["values"])},')
    lines.append(f'  "readings": {json.dumps(bar["readings"])},')
    lines.append(f'  "stools": {json.dumps(bar["stools"])}')
    lines.append(" }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main() -> None:
    layout = build()
    shared = sum(len(c["tables"]) == 2 for c in layout["chairs"])
    assert len(layout["tables"]) == 24 and len(layout["chairs"]) == 68 and shared == 28
    path = Path(__file__).with_name("reference_layout.json")
    path.write_text(_dumps(layout), encoding="utf-8")
    print(f"wrote {path}: {len(layout['tables'])} tables, {len(layout['chairs'])} chairs")


if __name__ == "__main__":
    main()
