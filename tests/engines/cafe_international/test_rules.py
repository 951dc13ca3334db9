"""The turn rules, clause by clause (CI-1, CI-2, CI-6…CI-22), on the mini layout of `factory`."""

from __future__ import annotations

import math
from collections import Counter

import pytest

import engines.cafe_international as ci
from engines.cafe_international import Draw, Pass, Placement, Seat, Swap, ToBar
from engines.cafe_international.catalogue import TILE_COUNTS, Nationality
from engines.cafe_international.rules import scored_actions
from engines.errors import IllegalActionError
from tests.engines.cafe_international.factory import make_state, mini_layout_json


def seat(*placements: tuple[str, str, str | None]) -> Seat:
    """`Seat` from (tile, chair, as) triples; `as` None means the tile's own nationality."""
    return Seat(
        tuple(Placement(t, c, n if n is not None else t.split("/")[0]) for t, c, n in placements)
    )


def refused(state: ci.State, action: object) -> str:
    """The clause `apply` names when it refuses `action`."""
    with pytest.raises(IllegalActionError) as error:
        ci.apply(state, action)  # type: ignore[arg-type]
    assert "\n" not in str(error.value)
    return error.value.clause


def points_of(state: ci.State, action: object) -> int:
    after = ci.apply(state, action)  # type: ignore[arg-type]
    return after.points[state.current] - state.points[state.current]


def one_table_layout(nationality: str = "italy") -> ci.Layout:
    return ci.layout_from_json(
        {
            "name": "one",
            "tables": [{"id": "T", "nationality": nationality}],
            "chairs": [{"id": f"t{i}", "tables": ["T"]} for i in range(1, 5)],
            "bar": {"values": list(range(1, 21))},
        }
    )


# --- components and setup -----------------------------------------------------------------------


def test_ci1_one_bag_holds_every_tile_and_scores_start_at_zero() -> None:
    """CI-1: one board, one bag (all tiles in it before the draw), scores as whole chips."""
    state = ci.new_game(["Anna", "Ben"])
    assert state.bag_size == 100
    assert ci.scores(state) == {"Anna": 0, "Ben": 0}
    assert state.layout == ci.reference_layout()


def test_ci2_one_hundred_tiles_twelve_nationalities_four_jokers() -> None:
    """CI-2: 12 nationalities × (4 women + 4 men) + 2 women and 2 men jokers = 100."""
    assert sum(TILE_COUNTS.values()) == ci.TOTAL_PIECES == 100
    assert len(Nationality) == 12
    assert {str(n) for n in Nationality} >= {"uk", "usa", "russia", "africa"}
    for nationality in Nationality:
        assert TILE_COUNTS[f"{nationality}/w"] == TILE_COUNTS[f"{nationality}/m"] == 4
    assert TILE_COUNTS["joker/w"] == TILE_COUNTS["joker/m"] == 2
    assert sum(ci.inventory(ci.new_game(["a", "b", "c"])).values()) == 100


def test_ci6_each_player_draws_five_face_up_tiles() -> None:
    """CI-6: setup is a chance node; each player draws 5 tiles, with exact probabilities."""
    state = ci.new_game(["a", "b", "c"])
    assert ci.is_chance_node(state) and ci.legal_actions(state) == []
    outcomes = dict(ci.chance_outcomes(state))
    assert outcomes[Draw("italy/w")] == pytest.approx(4 / 100, abs=1e-12)
    assert outcomes[Draw("joker/m")] == pytest.approx(2 / 100, abs=1e-12)
    assert math.isclose(sum(outcomes.values()), 1.0, abs_tol=1e-12)
    tiles = ["italy/w", "italy/m", "joker/w", "france/m", "cuba/w"] * 2
    tiles += ["uk/w", "uk/m", "joker/m", "spain/m", "india/w"]
    for tile in tiles:
        state = ci.apply(state, Draw(tile))
    assert not ci.is_chance_node(state)
    assert all(len(hand) == 5 for hand in state.hands)
    assert state.bag_size == 85
    assert ci.public_view(state)["players"][1]["hand"] == sorted(
        tiles[:5], key=list(TILE_COUNTS).index
    )


def test_ci7_first_player_chosen_freely_then_clockwise() -> None:
    """CI-7: the first player is chosen; play goes on in seating order and wraps around."""
    state = ci.new_game(["a", "b", "c"], first_player=2)
    assert state.refill == (2, 0, 1)
    assert state.current == 2
    state = make_state(hands=[("italy/w",), ("italy/w",), ("italy/w",)], current=2)
    after = ci.apply(state, ToBar("italy/w"))
    assert after.current == 0
    with pytest.raises(ValueError, match="first_player"):
        ci.new_game(["a", "b"], first_player=2)
    with pytest.raises(ValueError, match="2 to 4"):
        ci.new_game(["a"])


# --- seating rules ------------------------------------------------------------------------------


def test_ci8_a_guest_sits_only_at_a_table_of_its_nationality() -> None:
    """CI-8: a single chair takes its table's nationality; a shared chair either of its two."""
    state = make_state(seated={"b1": "france/m"}, hands=[("italy/w",), ()])
    assert refused(state, seat(("italy/w", "b2", None))) == "CI-8"
    assert ci.is_legal(state, seat(("italy/w", "s12", None)))  # italy–france shared chair
    assert refused(state, seat(("italy/w", "s12", "france"))) == "CI-8"


def test_ci9_one_guest_per_chair_and_joker_declarations() -> None:
    """CI-9: one guest per chair; a joker sits anywhere, declared as one of its tables' flags."""
    state = make_state(
        seated={"b1": "france/m", "a1": "italy/m"}, hands=[("joker/w", "france/w"), ()]
    )
    assert refused(state, seat(("france/w", "b1", None))) == "CI-9"
    assert refused(state, seat(("joker/w", "a2", "germany"))) == "CI-9"
    declared = {
        p.nationality
        for action in ci.legal_actions(state)
        if isinstance(action, Seat)
        for p in action.placements
        if p.tile == "joker/w" and p.chair == "s12"
    }
    assert declared == {"italy", "france"}
    assert ci.is_legal(state, seat(("joker/w", "a2", "italy")))


def test_ci10_at_most_two_of_a_gender_and_never_one_gender_alone() -> None:
    """CI-10: groups are 1W+1M … 2W+2M; a third man or two women with no man are refused."""
    state = make_state(
        seated={"a1": "italy/w", "a2": "italy/m", "a3": "italy/m"},
        hands=[("italy/m", "italy/w"), ()],
    )
    assert refused(state, seat(("italy/m", "s12", None))) == "CI-10"
    assert ci.is_legal(state, seat(("italy/w", "s12", None)))
    two_women = make_state(seated={"d1": "italy/w"}, hands=[("italy/w",), ()])
    assert refused(two_women, seat(("italy/w", "d2", None))) == "CI-10"
    jokers_count_with_their_gender = make_state(
        seated={"d1": "italy/w", "d2": "joker/m@italy", "d3": "italy/m"},
        hands=[("joker/m",), ()],
    )
    assert refused(jokers_count_with_their_gender, seat(("joker/m", "d4", "italy"))) == "CI-10"


def test_ci11_no_guest_alone_except_on_a_shared_chair_beside_a_group() -> None:
    """CI-11 and its ruling: a lone guest scores nothing and is refused; a shared-chair guest
    alone at one table is fine while its other table holds a valid group."""
    state = make_state(seated={"b1": "france/m"}, hands=[("italy/w",), ()])
    assert refused(state, seat(("italy/w", "a1", None))) == "CI-13"
    after = ci.apply(state, seat(("italy/w", "s12", None)))  # alone at T1, a pair at T2
    assert after.seated_by_chair()["s12"] == "italy/w"
    problems = ci.check_position(
        ci.layout_from_json(mini_layout_json()),
        {"a1": "italy/w", "d1": "italy/m"},
        lone_guests_allowed=1,
    )
    assert {p.clause for p in problems} == {"CI-11"} and len(problems) == 2


def test_ci12_guests_never_move_except_in_a_joker_exchange() -> None:
    """CI-12: no legal action changes a seated guest, except CI-19's exchange of that joker."""
    state = make_state(
        seated={"d1": "joker/w@italy", "d2": "italy/m", "b1": "france/w", "s12": "italy/m"},
        hands=[("italy/w", "france/m", "france/w", "joker/m", "germany/w"), ()],
    )
    before = state.seated_by_chair()
    actions = ci.legal_actions(state)
    assert any(isinstance(a, Swap) for a in actions)
    for action in actions:
        after = ci.apply(state, action).seated_by_chair()
        changed = {c for c in before if after[c] != before[c]}
        assert changed == ({"d1"} if isinstance(action, Swap) else set())


# --- a turn -------------------------------------------------------------------------------------


def test_ci13_each_placement_must_score() -> None:
    """CI-13: a single guest that scores nothing is refused; two at different tables must each
    score; the first at an empty table scoring nothing needs the second to join it."""
    hand = ("italy/w", "italy/m", "france/m")
    state = make_state(seated={"b1": "france/w"}, hands=[hand, ()])
    assert refused(state, seat(("italy/w", "d1", None))) == "CI-13"
    joined = seat(("italy/w", "d1", None), ("italy/m", "d2", None))
    assert points_of(state, joined) == 0 + 4
    elsewhere = seat(("italy/w", "d1", None), ("france/m", "b2", None))
    assert refused(state, elsewhere) == "CI-13"
    both_score = make_state(seated={"b1": "france/w", "d1": "italy/w"}, hands=[hand, ()])
    assert points_of(both_score, seat(("italy/m", "d2", None), ("france/m", "b2", None))) == 8


def test_ci13_one_or_two_guests_from_hand() -> None:
    """CI-13: 1 or 2 guests, and only tiles the player holds."""
    state = make_state(seated={"d1": "italy/w"}, hands=[("italy/m", "italy/m", "italy/w"), ()])
    three = seat(("italy/m", "d2", None), ("italy/m", "d3", None), ("italy/w", "d4", None))
    assert refused(state, three) == "CI-13"
    assert refused(state, seat(("france/m", "b1", None))) == "CI-13"
    assert refused(state, Seat(())) == "CI-13"
    assert refused(state, seat(("italy/m", "zz", None))) == "CI-3"


def test_ci14_bar_takes_any_guest_but_a_joker_on_the_lowest_free_stool() -> None:
    """CI-14: the lowest free stool, its value scored (even negative); no jokers; guests stay."""
    state = make_state(hands=[("usa/m", "joker/w"), ()], bar=["cuba/w"] * 4 + ["uk/m"])
    after = ci.apply(state, ToBar("usa/m"))
    assert after.bar == state.bar + ("usa/m",)
    assert after.points[0] == -2  # stool 6
    assert refused(state, ToBar("joker/w")) == "CI-14"
    assert ci.public_view(after)["bar"] == {
        "guests": list(after.bar),
        "taken": 6,
        "points_given": 1 + 2 + 3 + 4 + 5 - 2,
        "next_stool": 7,
        "next_value": -4,
    }


def test_ci15_first_player_who_cannot_score_may_seat_one_guest_alone() -> None:
    """CI-15: on the first turn of the game only, and only when no seating scores."""
    women = ("italy/w", "italy/w", "france/w", "germany/w", "joker/w")
    state = make_state(hands=[women, ()], turn=0)
    alone = seat(("italy/w", "d1", None))
    after = ci.apply(state, alone)
    assert after.points[0] == 0 and after.lone_chair == state.layout.chair_index["d1"]
    assert alone in ci.legal_actions(state)
    assert refused(make_state(hands=[women, ()], turn=1), alone) == "CI-13"
    can_score = make_state(hands=[("italy/w", "italy/m"), ()], turn=0)
    assert refused(can_score, alone) == "CI-13"


def test_ci16_a_player_with_no_legal_action_passes() -> None:
    """CI-16 ruling: passing is refused while anything is legal; with nothing legal the
    companion records a pass; a full round of passes ends the game."""
    layout = one_table_layout()
    stuck = make_state(
        layout=layout,
        seated={"t1": "italy/w", "t2": "italy/w", "t3": "italy/m"},
        hands=[("joker/w",), ("joker/w",)],
        hand_limits=[1, 1],
    )
    assert ci.legal_actions(stuck) == [Pass()]
    after = ci.apply(stuck, Pass())
    assert after.current == 1 and not ci.is_over(after)
    assert ci.is_over(ci.apply(after, Pass()))
    able = make_state(hands=[("italy/w",), ()])
    assert refused(able, Pass()) == "CI-16"


def test_ci17_the_player_refills_to_their_hand_limit() -> None:
    """CI-17: after the action the player draws up to their limit; meanwhile nobody acts."""
    state = make_state(seated={"d1": "italy/w"}, hands=[("italy/m", "cuba/w", "uk/m"), ()])
    after = ci.apply(state, seat(("italy/m", "d2", None)))
    assert ci.is_chance_node(after) and after.refill == (0,)
    assert refused(after, ToBar("cuba/w")) == "CI-17"
    for tile in ("spain/w", "spain/m", "usa/w"):
        after = ci.apply(after, Draw(tile))
    assert not ci.is_chance_node(after)
    assert len(after.hands[0]) == 5 and after.current == 1
    assert refused(after, Draw("usa/m")) == "CI-17"


# --- scoring ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seated", "tile", "chair", "points"),
    [
        ({"d1": "italy/w"}, "joker/m", "d2", 4),  # a pair of one nationality (joker declared)
        ({"b1": "france/w"}, "italy/m", "s12", 2),  # a mixed pair; alone at T1 scores 0
        ({"d1": "italy/w", "d2": "italy/m"}, "italy/w", "d3", 6),
        ({"b1": "france/w", "s12": "italy/m"}, "france/m", "b2", 3),
        ({"b1": "france/w", "s12": "italy/m", "b2": "france/m"}, "france/w", "s23", 4),
        ({"d1": "italy/w", "d2": "italy/m", "d3": "italy/w"}, "joker/m", "d4", 8),
    ],
)
def test_ci18_points_are_guests_at_the_table_doubled_for_one_nationality(
    seated: dict[str, str], tile: str, chair: str, points: int
) -> None:
    """CI-18: 2/3/4 guests score 2/3/4, doubled when all count as one nationality."""
    state = make_state(seated=seated, hands=[(tile,), ()])
    declared = "italy" if tile.startswith("joker") else None
    assert points_of(state, seat((tile, chair, declared))) == points


def test_ci18_a_shared_chair_scores_both_tables() -> None:
    """CI-18: a guest on a shared chair scores each table it sits at."""
    state = make_state(
        seated={"a1": "italy/w", "a2": "italy/m", "b1": "france/w"}, hands=[("italy/m",), ()]
    )
    assert points_of(state, seat(("italy/m", "s12", None))) == 6 + 2


def test_ci18_two_guests_at_one_table_are_scored_one_after_the_other() -> None:
    """CI-18: the order of two placements matters; the advisor lists the better order."""
    state = make_state(seated={"b1": "france/w"}, hands=[("france/m", "italy/m"), ()])
    france_first = seat(("france/m", "b2", None), ("italy/m", "s12", None))
    italy_first = seat(("italy/m", "s12", None), ("france/m", "b2", None))
    assert points_of(state, france_first) == 4 + 3
    assert points_of(state, italy_first) == 2 + 3
    listed = [
        s
        for s in scored_actions(state)
        if set(getattr(s.action, "placements", ())) == set(france_first.placements)
    ]
    assert [(s.action, s.points) for s in listed] == [(france_first, 7)]
    example = make_state(seated={"a1": "italy/w", "a2": "italy/m"}, hands=[("italy/w", "joker/m")])
    two = seat(("italy/w", "a3", None), ("joker/m", "s12", "italy"))
    assert points_of(example, two) == 6 + 8


def test_ci19_joker_exchange() -> None:
    """CI-19: a seated joker goes back to hand for a guest of its declared kind; no points."""
    state = make_state(
        seated={"d1": "joker/w@italy", "d2": "italy/m"}, hands=[("italy/w", "france/w"), ()]
    )
    after = ci.apply(state, Swap("d1", "italy/w"))
    assert after.seated_by_chair()["d1"] == "italy/w"
    assert after.hands[0] == ("france/w", "joker/w")
    assert after.points == state.points
    assert refused(state, Swap("d1", "france/w")) == "CI-19"
    assert refused(state, Swap("d2", "italy/m")) == "CI-19"
    assert Swap("d1", "italy/w") in ci.legal_actions(state)


def test_ci20_completing_a_table_of_one_nationality_shrinks_the_hand() -> None:
    """CI-20: four guests of one nationality completed: hand limit −1 for the rest of the game."""
    state = make_state(
        seated={"d1": "italy/w", "d2": "italy/m", "d3": "italy/w"}, hands=[("italy/m", "uk/w")]
    )
    after = ci.apply(state, seat(("italy/m", "d4", None)))
    assert after.hand_limits[0] == 4
    for tile in ("uk/m", "uk/m", "usa/w"):
        after = ci.apply(after, Draw(tile))
    assert len(after.hands[0]) == 4 and not ci.is_chance_node(after)
    mixed = make_state(
        seated={"b1": "france/w", "b2": "france/m", "s12": "italy/w"}, hands=[("france/m",)]
    )
    assert ci.apply(mixed, seat(("france/m", "s23", None))).hand_limits[0] == 5


def test_ci20_ruling_completing_two_tables_at_once_shrinks_by_two() -> None:
    """CI-20 ruling: one placement completing two tables reduces the limit by 2."""
    layout = ci.layout_from_json(
        {
            "name": "twins",
            "tables": [{"id": "L", "nationality": "italy"}, {"id": "R", "nationality": "italy"}],
            "chairs": [{"id": "l1", "tables": ["L"]}, {"id": "l2", "tables": ["L"]}]
            + [{"id": "l3", "tables": ["L"]}, {"id": "s", "tables": ["L", "R"]}]
            + [{"id": f"r{i}", "tables": ["R"]} for i in range(1, 4)],
            "bar": {"values": list(range(20))},
        }
    )
    state = make_state(
        layout=layout,
        seated={"l1": "italy/w", "l2": "italy/m", "l3": "italy/w"}
        | {"r1": "italy/w", "r2": "italy/m", "r3": "joker/w@italy"},
        hands=[("italy/m",), ()],
    )
    [advice] = [s for s in scored_actions(state) if isinstance(s.action, Seat)]
    assert (advice.points, advice.hand_limit_change) == (16, -2)
    assert ci.apply(state, advice.action).hand_limits[0] == 3


# --- the end ------------------------------------------------------------------------------------


def test_ci21_ends_when_the_bar_is_full() -> None:
    """CI-21: all 20 bar stools taken."""
    state = make_state(
        hands=[("usa/m",), ()],
        bar=["cuba/w"] * 4 + ["uk/m"] * 4 + ["spain/w"] * 4 + ["spain/m"] * 4 + ["india/w"] * 3,
    )
    assert not ci.is_over(state)
    after = ci.apply(state, ToBar("usa/m"))
    assert ci.is_over(after) and ci.end_reason(after) == "all 20 bar stools are taken"
    assert ci.legal_actions(after) == [] and ci.chance_outcomes(after) == []
    assert refused(after, ToBar("usa/m")) == "CI-21"


def test_ci21_ends_when_all_chairs_are_taken() -> None:
    """CI-21: all chairs taken (no refill afterwards)."""
    state = make_state(
        layout=one_table_layout(),
        seated={"t1": "italy/w", "t2": "italy/w", "t3": "italy/m"},
        hands=[("italy/m",), ()],
    )
    after = ci.apply(state, seat(("italy/m", "t4", None)))
    assert ci.end_reason(after) == "all chairs are taken" and not ci.is_chance_node(after)


def test_ci21_ends_as_soon_as_only_four_tiles_remain_in_the_bag() -> None:
    """CI-21: the game stops in the middle of a refill when the bag reaches 4 tiles."""
    state = make_state(
        hands=[("italy/w", "uk/m"), ("cuba/m",) * 5],
        refill=[0],
        bag={"usa/w": 3, "usa/m": 3},
    )
    after = ci.apply(state, Draw("usa/w"))
    assert not ci.is_over(after)
    after = ci.apply(after, Draw("usa/w"))
    assert ci.is_over(after) and ci.end_reason(after) == "only 4 tiles remain in the bag"
    assert len(after.hands[0]) == 4 and not ci.is_chance_node(after)


def test_ci21_ends_when_a_player_has_no_tiles_after_refilling() -> None:
    """CI-21: a hand limit reduced to 0 and an empty hand after the refill end the game."""
    state = make_state(
        seated={"d1": "italy/w", "d2": "italy/m", "d3": "italy/w"},
        hands=[("italy/m",), ("uk/m",)],
        hand_limits=[1, 5],
    )
    after = ci.apply(state, seat(("italy/m", "d4", None)))
    assert after.hand_limits[0] == 0
    assert ci.end_reason(after) == "P1 has no tiles left"


def test_ci22_tiles_left_in_hand_cost_five_jokers_ten_ties_shared() -> None:
    """CI-22: −5 per tile, −10 per joker once over; highest total wins; ties are shared."""
    state = make_state(
        hands=[("usa/m",), ("joker/w",), ("cuba/w", "cuba/m", "uk/w")],
        points=[20, 25, 30],
        bar=["cuba/w"] * 3 + ["uk/m"] * 4 + ["spain/w"] * 4 + ["spain/m"] * 4 + ["india/w"] * 4,
    )
    assert ci.scores(state) == {"P1": 20, "P2": 25, "P3": 30}  # not over yet
    after = ci.apply(state, ToBar("usa/m"))
    totals = ci.scores(after)
    assert totals == {"P1": 20 - 14, "P2": 25 - 10, "P3": 30 - 15}
    view = ci.public_view(after)
    assert view["winners"] == ["P2", "P3"] and view["penalties"] == {"P1": 0, "P2": 10, "P3": 15}


def test_inventory_counts_every_tile_in_every_place() -> None:
    state = make_state(
        seated={"d1": "joker/w@italy", "d2": "italy/m"}, hands=[("italy/w",), ()], bar=["uk/m"]
    )
    counts = ci.inventory(state)
    assert sum(counts.values()) == 100 and counts == Counter(TILE_COUNTS)
