"""The position check: every problem of an observed position at once (CI-2…CI-14)."""

from __future__ import annotations

from engines.cafe_international import PositionError, check_position, reference_layout
from engines.errors import Problem
from tests.engines.cafe_international.factory import mini_layout


def test_a_legal_position_has_no_problem() -> None:
    layout = mini_layout()
    seated = {"a1": "italy/w", "a2": "italy/m", "s12": "joker/w@france", "b1": "france/m"}
    assert check_position(layout, seated, ["uk/w"], ["italy/w"]) == frozenset()


def test_every_problem_is_reported_at_once() -> None:
    """CI-3, CI-8, CI-9, CI-10, CI-2, CI-14: one call names them all."""
    layout = mini_layout()
    seated = {
        "d1": "italy/m",
        "d2": "italy/m",
        "d3": "joker/m@italy",  # three men at T4 (CI-10)
        "d4": "italy/w",
        "b1": "germany/w",  # a German on a France-only chair (CI-8)
        "b2": "france/m",
        "a1": "joker/w@spain",  # a joker declared outside its table's flag (CI-9)
        "zz": "italy/w",  # an unknown chair (CI-3)
        "c1": "germany/x",  # an unknown tile (CI-2)
    }
    problems = check_position(layout, seated, bar=["joker/m"], hands=["italy/m"] * 3)
    clauses = sorted(p.clause for p in problems)
    assert clauses == ["CI-10", "CI-14", "CI-2", "CI-2", "CI-3", "CI-8", "CI-9"]
    messages = {str(p) for p in problems}
    assert "CI-10: table T4 has three men" in messages
    assert "CI-3: unknown chair 'zz' in seated" in messages
    assert "CI-2: 5 italy/m tiles seen, but the game has 4" in messages
    assert any(m.startswith("CI-8: germany/w at chair b1") for m in messages)
    assert any("joker/w@spain" in m for m in messages)


def test_ci10_two_women_and_no_man_is_a_problem() -> None:
    """CI-10: a table of only women (or only men) is not a valid group."""
    problems = check_position(mini_layout(), {"d1": "italy/w", "d2": "italy/w"})
    assert problems == {Problem("CI-10", "table T4 has two women and no men")}


def test_ci11_one_lone_guest_is_taken_as_ci15_but_two_are_not() -> None:
    """CI-11 and CI-15: without history, a single lone guest may be the first player's."""
    layout = mini_layout()
    assert check_position(layout, {"d1": "italy/w"}) == frozenset()
    problems = check_position(layout, {"d1": "italy/w", "c1": "germany/m"})
    assert {p.clause for p in problems} == {"CI-11"} and len(problems) == 2
    assert check_position(layout, {"d1": "italy/w"}, lone_guests_allowed=0)


def test_ci9_a_seated_joker_needs_its_declaration() -> None:
    """CI-9: a joker on a chair is declared as one of its tables' nationalities."""
    [problem] = check_position(mini_layout(), {"a1": "joker/w", "a2": "italy/m"})
    assert problem.clause == "CI-9" and "joker/w@italy" in problem.message


def test_ci4_the_bar_holds_twenty() -> None:
    """CI-4: at most 20 bar guests."""
    [problem] = check_position(
        reference_layout(),
        {},
        bar=["uk/w"] * 2
        + ["uk/m"] * 4 * 0
        + [f"{n}/m" for n in ("cuba", "spain", "india", "china", "turkey", "usa") for _ in range(3)]
        + ["italy/w"],
    )
    assert problem.clause == "CI-4"


def test_position_error_lists_every_reason_in_one_line() -> None:
    error = PositionError(
        [Problem("CI-10", "table T4 has three men"), Problem("CI-8", "germany/w at b1")]
    )
    assert str(error) == "illegal position: CI-8: germany/w at b1; CI-10: table T4 has three men"
    assert isinstance(error, ValueError)
