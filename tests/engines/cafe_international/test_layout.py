"""Board layouts as data: the reference layout (CI-3, CI-4, CI-5) and the loader's validation."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any

import pytest

import engines.cafe_international as ci_package
from engines.cafe_international import layout_from_json, layout_to_json, reference_layout
from engines.cafe_international.catalogue import NATIONALITY_IDS
from engines.errors import MalformedError
from tests.engines.cafe_international.factory import mini_layout_json

DATA = Path(ci_package.__file__).parent / "data"


def test_ci3_reference_layout_has_the_printed_counts() -> None:
    """CI-3: 24 tables, two per nationality; 68 chairs, 28 of them shared by two tables."""
    layout = reference_layout()
    assert len(layout.tables) == 24
    nationalities = [table.nationality for table in layout.tables]
    assert sorted(set(nationalities)) == sorted(NATIONALITY_IDS)
    assert all(nationalities.count(n) == 2 for n in NATIONALITY_IDS)
    assert len(layout.chairs) == 68
    assert sum(chair.is_shared for chair in layout.chairs) == 28
    assert all(len(chairs) == 4 for chairs in layout.table_chairs)


def test_ci3_reference_geometry_is_plausible() -> None:
    """CI-3: positions for drawing and camera mapping: every chair near each of its tables,
    shared chairs between their two, no two chairs on one spot."""
    layout = reference_layout()
    centres = {t.id: t.center for t in layout.tables if t.center is not None}
    spots = set()
    for chair in layout.chairs:
        assert chair.center is not None
        spots.add(chair.center)
        for table_id in chair.tables:
            assert math.dist(chair.center, centres[table_id]) <= 61
        if chair.is_shared:
            (ax, ay), (bx, by) = (centres[t] for t in chair.tables)
            assert chair.center == ((ax + bx) / 2, (ay + by) / 2)
    assert len(spots) == 68
    same_flag_neighbours = [
        c.id
        for c in layout.chairs
        if c.is_shared and len(set(layout.chair_nationalities[layout.chair_index[c.id]])) == 1
    ]
    assert same_flag_neighbours == []


def test_ci4_reference_bar_has_20_stools_with_positions() -> None:
    """CI-4: the bar in the middle of the board has 20 stools."""
    layout = reference_layout()
    assert layout.stools is not None and len(layout.stools) == 20
    xs = [t.center[0] for t in layout.tables if t.center]
    ys = [t.center[1] for t in layout.tables if t.center]
    middle = (sum(xs) / len(xs), sum(ys) / len(ys))
    assert all(math.dist(stool, middle) < 200 for stool in layout.stools)


def test_ci5_bar_values_default_and_alternative_reading() -> None:
    """CI-5: stools 1–10 are confirmed; 11–20 have a default and an alternative reading."""
    first = (1, 2, 3, 4, 5, -2, -4, -6, -8, -10)
    default = reference_layout()
    alternative = reference_layout("alternative")
    assert default.bar_values == first + (-4, -6, -8, -10, -12, -6, -8, -10, -12, -14)
    assert alternative.bar_values == first + tuple(range(-12, -31, -2))
    assert default != alternative
    with pytest.raises(MalformedError, match="unknown bar reading 'printed'"):
        reference_layout("printed")


def test_ci5_bar_values_live_in_the_data_file_not_in_code() -> None:
    """CI-5 (edition data): the shipped file holds both readings."""
    data = json.loads((DATA / "reference_layout.json").read_text(encoding="utf-8"))
    assert data["bar"]["values"][10:] == [-4, -6, -8, -10, -12, -6, -8, -10, -12, -14]
    assert data["bar"]["readings"]["alternative"][-1] == -30


def test_reference_file_is_what_the_generator_builds() -> None:
    """The committed JSON is reproducible from its script (deterministic)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen", DATA / "make_reference_layout.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    built = module.build()
    on_disk = json.loads((DATA / "reference_layout.json").read_text(encoding="utf-8"))
    assert built == on_disk


def test_layout_json_round_trip_keeps_the_value() -> None:
    layout = reference_layout("alternative")
    again = layout_from_json(json.loads(json.dumps(layout_to_json(layout))), bar="alternative")
    assert again == layout and hash(again) == hash(layout)
    assert eval(repr(layout), {"layout_from_json": layout_from_json}) == layout


def test_any_number_of_tables_and_no_positions_are_valid() -> None:
    """A user's own printing: one table of four chairs, no positions at all."""
    data = {
        "name": "tiny",
        "tables": [{"id": "T", "nationality": "cuba"}],
        "chairs": [{"id": f"c{i}", "tables": ["T"]} for i in range(4)],
        "bar": {"values": list(range(20))},
    }
    layout = layout_from_json(data)
    assert len(layout.tables) == 1 and layout.stools is None
    assert layout.chairs[0].center is None


def _broken(change: Any) -> dict[str, Any]:
    data = copy.deepcopy(mini_layout_json())
    change(data)
    return data


BAD_LAYOUTS = [
    (lambda d: d["chairs"].pop(0), "table 'T1' has 3 chairs, expected 4"),
    (
        lambda d: d["chairs"][0].update(tables=["T1", "T2", "T3"]),
        "chair 'a1' has 3 tables, expected 1 or 2",
    ),
    (lambda d: d["chairs"][0].update(tables=[]), "chair 'a1' has 0 tables, expected 1 or 2"),
    (
        lambda d: d["tables"][1].update(nationality="narnia"),
        "unknown nationality 'narnia' in tables[1].nationality",
    ),
    (lambda d: d["bar"]["values"].pop(), "bar.values has 19 values, expected 20"),
    (lambda d: d["tables"][1].update(id="T1"), "duplicate table id 'T1' in tables[1]"),
    (lambda d: d["chairs"][1].update(id="a1"), "duplicate chair id 'a1' in chairs[1]"),
    (
        lambda d: d["chairs"][0].update(tables=["T9"]),
        "chair 'a1' refers to unknown table 'T9'",
    ),
    (lambda d: d["tables"][0].update(center=[1]), "tables[0].center must be [x, y]"),
    (lambda d: d.update(bar=[1, 2]), "bar must be an object"),
]


@pytest.mark.parametrize(("change", "message"), BAD_LAYOUTS)
def test_ci3_loader_names_the_problem(change: Any, message: str) -> None:
    """CI-3: a malformed layout is refused with a one-line reason naming the problem."""
    with pytest.raises(MalformedError) as error:
        layout_from_json(_broken(change))
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_loader_lists_several_problems_at_once() -> None:
    def change(data: dict[str, Any]) -> None:
        data["tables"][1]["nationality"] = "narnia"
        data["bar"]["values"] = [1]

    with pytest.raises(MalformedError) as error:
        layout_from_json(_broken(change))
    assert "narnia" in str(error.value) and "bar.values has 1 values" in str(error.value)


def test_loader_refuses_non_objects() -> None:
    with pytest.raises(MalformedError, match="a layout must be a json object"):
        layout_from_json([1, 2])
