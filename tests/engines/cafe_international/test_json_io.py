"""JSON to and from: exact round trips, and one-line errors naming the field."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import engines.cafe_international as ci
from engines.cafe_international import Draw, Pass, Placement, Seat, Swap, ToBar
from engines.cafe_international.catalogue import TILE_KINDS, Nationality
from engines.errors import MalformedError
from tests.engines.cafe_international.factory import make_state, mini_layout, mini_layout_json

tiles = st.sampled_from(TILE_KINDS)
chairs = st.sampled_from([f"C{n:02d}" for n in range(1, 69)] + ["s12", "a1"])
nationalities = st.sampled_from([str(n) for n in Nationality])


@st.composite
def placements(draw: st.DrawFn) -> Placement:
    tile = draw(tiles)
    own = tile.split("/")[0]
    return Placement(tile, draw(chairs), draw(nationalities) if own == "joker" else own)


actions = st.one_of(
    st.lists(placements(), min_size=1, max_size=2).map(lambda ps: Seat(tuple(ps))),
    tiles.map(ToBar),
    st.builds(Swap, chairs, tiles),
    st.just(Pass()),
    tiles.map(Draw),
)


@given(actions)
def test_action_json_round_trip(action: object) -> None:
    text = json.dumps(ci.action_to_json(action))  # type: ignore[arg-type]
    assert ci.action_from_json(json.loads(text)) == action
    assert eval(repr(action), vars(ci)) == action


def test_state_json_round_trip_and_repr_rebuild() -> None:
    state = make_state(
        layout=mini_layout("default"),
        seated={"d1": "joker/w@italy", "d2": "italy/m"},
        hands=[("italy/w", "uk/m"), ("cuba/w",)],
        bar=["usa/w"],
        points=[4, -1],
        turn=3,
    )
    again = ci.state_from_json(json.loads(json.dumps(ci.state_to_json(state))))
    assert again == state and hash(again) == hash(state)
    assert eval(repr(state), {"state_from_json": ci.state_from_json}) == state


def test_reference_layout_is_written_by_name_with_its_bar_reading() -> None:
    state = ci.new_game(["a", "b"], layout=ci.reference_layout("alternative"))
    data = ci.state_to_json(state)
    assert data["layout"] == "reference" and data["bar_reading"] == "alternative"
    assert ci.state_from_json(data).layout.bar_values[-1] == -30
    inline = ci.state_to_json(ci.new_game(["a", "b"], layout=mini_layout()))
    assert inline["layout"]["name"] == "mini"


def _state_json() -> dict:
    return ci.state_to_json(make_state(seated={"d1": "italy/w", "d2": "italy/m"}))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(layout="castle"), "unknown layout 'castle' in layout"),
        (lambda d: d["hands"].update(P1=["italy/q"]), "unknown tile 'italy/q' in hands.P1"),
        (lambda d: d.update(current="Zed"), "unknown player 'Zed' in current"),
        (lambda d: d.update(bag={}), "tile count of 'africa/w' is 0"),
        (lambda d: d.pop("hands"), "hands is missing"),
        (lambda d: d.update(turn=-1), "turn must be a whole number"),
        (lambda d: d.update(bar_reading="printed"), "unknown bar reading 'printed'"),
    ],
)
def test_bad_state_json_names_the_field(change: object, message: str) -> None:
    data = _state_json()
    change(data)  # type: ignore[operator]
    with pytest.raises(ValueError) as error:
        ci.state_from_json(data)
    assert message in str(error.value) and "\n" not in str(error.value)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"type": "dance"}, "unknown action type 'dance'"),
        ({"type": "bar", "tile": "italy"}, "unknown tile 'italy' in tile"),
        (
            {"type": "seat", "placements": [{"tile": "joker/w", "chair": "C01"}]},
            "placements[0].as is required for a joker",
        ),
        (
            {"type": "seat", "placements": [{"tile": "joker/w", "chair": "C01", "as": "mars"}]},
            "unknown nationality 'mars' in placements[0].as",
        ),
        ({"type": "seat", "placements": []}, "placements must be a non-empty list"),
        ([], "an action must be a json object"),
    ],
)
def test_bad_action_json_names_the_field(data: object, message: str) -> None:
    with pytest.raises(MalformedError) as error:
        ci.action_from_json(data)
    assert message in str(error.value)


def test_a_state_breaking_the_seating_rules_lists_every_problem() -> None:
    """CI-8, CI-10 and CI-11 problems of a saved state are all named in one line."""
    data = _state_json()
    data["seated"].update(d3="italy/w", d4="italy/w", b1="germany/m")
    data["bag"]["italy/w"] -= 2
    data["bag"]["germany/m"] -= 1
    with pytest.raises(ci.PositionError) as error:
        ci.state_from_json(data)
    assert "CI-10: table T4 has three women" in str(error.value)
    assert "CI-8: germany/m at chair b1" in str(error.value)
    assert [p.clause for p in error.value.problems] == ["CI-8", "CI-10", "CI-11"]


def test_inline_layout_in_state() -> None:
    data = _state_json()
    assert data["layout"] == mini_layout_json()
