"""The seating rules that are always true of the board (CI-8…CI-11), and a position check.

`table_ok` and `group_ok` are the fast predicates the rules use after a placement;
`check_position` looks at an observed position (what the camera or a user reports) and returns
every problem at once, as a set of `Problem`s naming the clause each one breaks.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence

from engines.cafe_international.catalogue import (
    GENDER_OF,
    NATIONALITY_OF,
    TILE_COUNTS,
    is_joker,
)
from engines.cafe_international.layout import STOOLS, Layout
from engines.errors import Problem, RulesError

MAX_PER_GENDER = 2  # CI-10
_WORDS = {0: "no", 1: "one", 2: "two", 3: "three", 4: "four"}


class PositionError(RulesError):
    """A position breaks the rules; `problems` holds every problem, the message lists them all."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems = tuple(sort_problems(problems))
        super().__init__("illegal position: " + "; ".join(str(p) for p in self.problems))


def sort_problems(problems: Iterable[Problem]) -> list[Problem]:
    """Problems ordered by clause number, then message."""

    def key(problem: Problem) -> tuple[int, str]:
        number = problem.clause.rsplit("-", 1)[-1]
        return (int(number) if number.isdigit() else 99, problem.message)

    return sorted(set(problems), key=key)


def gender_counts(layout: Layout, seated: Sequence[str | None], table: int) -> tuple[int, int]:
    """(women, men) at `table` (jokers with their own gender, CI-10)."""
    women = men = 0
    for chair in layout.table_chairs[table]:
        guest = seated[chair]
        if guest is not None:
            if GENDER_OF[guest] == "w":
                women += 1
            else:
                men += 1
    return women, men


def group_ok(layout: Layout, seated: Sequence[str | None], table: int) -> bool:
    """CI-10: the table holds a valid group (1–2 women and 1–2 men)."""
    women, men = gender_counts(layout, seated, table)
    return 1 <= women <= MAX_PER_GENDER and 1 <= men <= MAX_PER_GENDER


def _lone_guest_excused(
    layout: Layout, seated: Sequence[str | None], table: int, chair: int, lone_chair: int | None
) -> bool:
    """CI-11 and its ruling: a lone guest is fine on a shared chair whose other table has a
    valid group, and CI-15's guest (`lone_chair`) may sit alone."""
    if chair == lone_chair:
        return True
    tables = layout.chair_tables[chair]
    return any(other != table and group_ok(layout, seated, other) for other in tables)


def table_ok(
    layout: Layout, seated: Sequence[str | None], table: int, lone_chair: int | None = None
) -> bool:
    """CI-10 and CI-11 at one table: a valid group, empty, or an excused lone guest."""
    women = men = 0
    last = -1
    for chair in layout.table_chairs[table]:
        guest = seated[chair]
        if guest is not None:
            last = chair
            if GENDER_OF[guest] == "w":
                women += 1
            else:
                men += 1
    if women > MAX_PER_GENDER or men > MAX_PER_GENDER:
        return False
    count = women + men
    if count == 0:
        return True
    if count >= 2:
        return women >= 1 and men >= 1
    return _lone_guest_excused(layout, seated, table, last, lone_chair)


def fits_chair(layout: Layout, chair: int, nationality: str) -> bool:
    """CI-8 and CI-9: a guest counting as `nationality` may sit on `chair`."""
    return nationality in layout.chair_nationalities[chair]


def _describe_tables(layout: Layout, chair: int) -> str:
    tables = [layout.tables[t] for t in layout.chair_tables[chair]]
    return " and ".join(f"{table.id} ({table.nationality})" for table in tables)


def _seat_problems(layout: Layout, seated_ids: Mapping[str, str]) -> tuple[list, list[Problem]]:
    """Parse the seated guests; return the board by chair index and the problems found."""
    problems: list[Problem] = []
    board: list[str | None] = [None] * len(layout.chairs)
    for chair_id, value in seated_ids.items():
        chair = layout.chair_index.get(chair_id)
        if chair is None:
            problems.append(Problem("CI-3", f"unknown chair {chair_id!r} in seated"))
            continue
        if not isinstance(value, str) or value not in NATIONALITY_OF:
            base = value.split("@")[0] if isinstance(value, str) else None
            if base in ("joker/w", "joker/m"):
                problems.append(
                    Problem(
                        "CI-9",
                        f"joker at chair {chair_id} needs a declared nationality, "
                        f"e.g. '{base}@{layout.chair_nationalities[chair][0]}'",
                    )
                )
            else:
                problems.append(Problem("CI-2", f"unknown tile {value!r} at chair {chair_id}"))
            continue
        nationality = NATIONALITY_OF[value]
        if not fits_chair(layout, chair, nationality):
            clause = "CI-9" if is_joker(value) else "CI-8"
            problems.append(
                Problem(
                    clause,
                    f"{value} at chair {chair_id} does not fit its tables "
                    f"{_describe_tables(layout, chair)}",
                )
            )
        board[chair] = value
    return board, problems


def lone_chairs(layout: Layout, board: Sequence[str | None]) -> list[int]:
    """CI-11: chairs whose guest sits alone and is not excused by a shared chair's other table."""
    lone: set[int] = set()
    for table in range(len(layout.tables)):
        guests = [c for c in layout.table_chairs[table] if board[c] is not None]
        if len(guests) == 1 and not _lone_guest_excused(layout, board, table, guests[0], None):
            lone.add(guests[0])
    return sorted(lone)


def _table_problems(
    layout: Layout, board: Sequence[str | None], lone_guests_allowed: int
) -> list[Problem]:
    problems: list[Problem] = []
    for table_position, table in enumerate(layout.tables):
        women, men = gender_counts(layout, board, table_position)
        if women > MAX_PER_GENDER:
            problems.append(Problem("CI-10", f"table {table.id} has {_WORDS[women]} women"))
        if men > MAX_PER_GENDER:
            problems.append(Problem("CI-10", f"table {table.id} has {_WORDS[men]} men"))
        balanced = women <= MAX_PER_GENDER and men <= MAX_PER_GENDER
        if balanced and women + men >= 2 and (women == 0 or men == 0):
            problems.append(
                Problem(
                    "CI-10",
                    f"table {table.id} has {_WORDS[women]} women and {_WORDS[men]} men",
                )
            )
    lone = lone_chairs(layout, board)
    if len(lone) > lone_guests_allowed:
        for chair in lone:
            problems.append(
                Problem(
                    "CI-11",
                    f"{board[chair]} at chair {layout.chairs[chair].id} sits alone "
                    f"({_describe_tables(layout, chair)})",
                )
            )
    return problems


def check_position(
    layout: Layout,
    seated: Mapping[str, str],
    bar: Sequence[str] = (),
    hands: Iterable[str] = (),
    *,
    lone_guests_allowed: int = 1,
) -> frozenset[Problem]:
    """Every problem of an observed position, at once (an empty set: the position is legal).

    Checks chair ids (CI-3), tile ids and counts over board, bar and hands (CI-2), nationalities
    at chairs (CI-8, CI-9), groups at tables (CI-10), lone guests (CI-11) and the bar (CI-4,
    CI-14). A position has no history, so up to `lone_guests_allowed` lone guests are taken to
    be CI-15's exception (the first player's single guest).
    """
    board, problems = _seat_problems(layout, seated)
    problems += _table_problems(layout, board, lone_guests_allowed)
    bar = list(bar)
    if len(bar) > STOOLS:
        problems.append(Problem("CI-4", f"the bar has {STOOLS} stools, but {len(bar)} guests"))
    for position, tile in enumerate(bar, start=1):
        if not isinstance(tile, str) or tile not in TILE_COUNTS:
            problems.append(Problem("CI-2", f"unknown tile {tile!r} on bar stool {position}"))
        elif is_joker(tile):
            problems.append(Problem("CI-14", f"a joker may not sit at the bar (stool {position})"))
    hand_tiles = list(hands)
    for tile in hand_tiles:
        if not isinstance(tile, str) or tile not in TILE_COUNTS:
            problems.append(Problem("CI-2", f"unknown tile {tile!r} in hand"))
    seen: Counter[str] = Counter()
    for tile in [g.split("@")[0] for g in board if g is not None] + bar + hand_tiles:
        if isinstance(tile, str) and tile in TILE_COUNTS:
            seen[tile] += 1
    for tile, count in sorted(seen.items()):
        if count > TILE_COUNTS[tile]:
            problems.append(
                Problem("CI-2", f"{count} {tile} tiles seen, but the game has {TILE_COUNTS[tile]}")
            )
    return frozenset(problems)


__all__ = [
    "MAX_PER_GENDER",
    "PositionError",
    "check_position",
    "fits_chair",
    "gender_counts",
    "group_ok",
    "lone_chairs",
    "sort_problems",
    "table_ok",
]
