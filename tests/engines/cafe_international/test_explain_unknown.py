"""`UNKNOWN_TILE`: a chair or stool the camera saw taken but could not identify.

It matches any guest there but never an empty seat; a new one stands for every tile of the
player's hand, so the rules (`is_legal`) decide: one legal turn is the explanation, several are
asked about (never a silent guess), none leaves the change unexplained.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engines.cafe_international.explain import (
    UNKNOWN_TILE,
    Observation,
    _matches,
    check_observation,
    explain,
    observe,
)
from engines.cafe_international.state import Placement, Seat, State, Swap, ToBar
from tests.engines.cafe_international.factory import make_state, mini_layout

LAYOUT = mini_layout()
# T1 (italy: a1 a2 a3 s12) holds a valid pair (CI-10), so a third guest there scores (CI-13)
PAIR = {"a1": "italy/w", "a2": "italy/m"}


def _state(hand: Sequence[str], seated: Mapping[str, str] = PAIR, bar: Sequence[str] = ()) -> State:
    return make_state(seated=seated, hands=(tuple(hand), ("uk/w",)), bar=bar)


def _seen(
    state: State,
    chairs: Mapping[str, str | None],
    bar: Sequence[str] | None = None,
    *,
    hands: bool = False,
) -> Observation:
    """What `state` shows with `chairs` changed (the hands left unseen unless `hands`)."""
    shown = observe(state, hands=hands)
    seated = list(shown.seated)
    for chair, tile in chairs.items():
        seated[LAYOUT.chair_index[chair]] = tile
    return Observation(tuple(seated), shown.bar if bar is None else tuple(bar), shown.hands)


def _seat(tile: str, chair: str, nationality: str = "italy") -> tuple[Seat]:
    return (Seat((Placement(tile, chair, nationality),)),)


def test_ci13_an_unknown_guest_is_the_one_hand_tile_that_may_sit_there() -> None:
    """CI-13, CI-8: of [italy/m, china/w] only italy/m may join the Italian table at a3."""
    state = _state(["italy/m", "china/w"])
    assert explain(state, _seen(state, {"a3": UNKNOWN_TILE})) == [_seat("italy/m", "a3")]


def test_ci13_two_hand_tiles_that_may_both_sit_there_are_asked_about() -> None:
    """CI-13, CI-10: italy/m and italy/w may both join a1 italy/w + a2 italy/m: two
    explanations (ask), and the face-up hands (CI-6), when seen, tell which one it was."""
    state = _state(["italy/m", "italy/w"])
    found = explain(state, _seen(state, {"a3": UNKNOWN_TILE}))
    assert sorted(found, key=repr) == sorted(
        [_seat("italy/m", "a3"), _seat("italy/w", "a3")], key=repr
    )
    # CI-17: the player refills from a bag of uk/m tiles; the hand left shows italy/m
    counted = make_state(seated=PAIR, hands=(("italy/m", "italy/w"), ("uk/w",)), bag={"uk/m": 9})
    left_m = Observation(
        _seen(counted, {"a3": UNKNOWN_TILE}).seated,
        (),
        (("italy/m",) + ("uk/m",) * 4, ("uk/w",)),
    )
    assert [path[0] for path in explain(counted, left_m)] == [_seat("italy/w", "a3")[0]]


def test_ci9_an_unknown_guest_may_be_a_joker_declared_for_the_chair() -> None:
    """CI-9: a joker in hand is tried as every nationality the chair allows; CI-8 rules out
    the china/w."""
    state = _state(["china/w", "joker/w"])
    assert explain(state, _seen(state, {"a3": UNKNOWN_TILE})) == [_seat("joker/w", "a3")]


def test_ci13_two_unknown_guests_are_every_legal_pair_of_hand_tiles() -> None:
    """CI-13: two new unknown guests at a3 and s12 are italy/m and italy/w in either seat:
    two explanations (each in its better-scoring order), asked about."""
    state = _state(["italy/m", "italy/w", "china/w"])
    found = explain(state, _seen(state, {"a3": UNKNOWN_TILE, "s12": UNKNOWN_TILE}))
    seats = {
        frozenset((p.tile, p.chair) for p in path[0].placements)
        for path in found
        if isinstance(path[0], Seat)
    }
    assert len(found) == 2
    assert seats == {
        frozenset({("italy/m", "a3"), ("italy/w", "s12")}),
        frozenset({("italy/w", "a3"), ("italy/m", "s12")}),
    }


def test_ci8_an_unknown_guest_where_no_hand_tile_may_sit_is_unexplained() -> None:
    """CI-8, CI-11: neither italy/m nor china/w may sit at the German table (c1), alone at
    that: the chair is empty in every reachable state, so nothing explains it."""
    state = _state(["italy/m", "china/w"])
    assert explain(state, _seen(state, {"c1": UNKNOWN_TILE})) == []
    assert explain(state, _seen(state, {"c1": UNKNOWN_TILE}), visited=True) == []


def test_ci9_unknown_never_matches_an_empty_chair_and_matches_any_guest() -> None:
    """CI-9 (one guest per chair): an unknown tile shows a taken chair, whatever its guest,
    never an empty one."""
    state = _state(["italy/m", "china/w"])
    assert not _matches(state, _seen(state, {"a3": UNKNOWN_TILE}))
    assert not _matches(state, _seen(state, {"c1": UNKNOWN_TILE}))
    assert _matches(state, _seen(state, {"a1": UNKNOWN_TILE}))
    assert _matches(state, _seen(state, {"a1": UNKNOWN_TILE, "a2": UNKNOWN_TILE}))
    assert not _matches(state, _seen(state, {"a1": UNKNOWN_TILE, "a2": None}))
    # an unchanged table with a guest seen unknown: nothing happened
    assert explain(state, _seen(state, {"a2": UNKNOWN_TILE})) == [()]


def test_ci14_an_unknown_guest_on_the_next_bar_stool_is_any_hand_tile_but_a_joker() -> None:
    """CI-14: a guest on the next stool nobody identified is any non-joker hand tile; an
    unknown stool already taken matches its guest, never a free stool."""
    state = _state(["italy/m", "joker/w"], bar=["usa/m"])
    assert explain(state, _seen(state, {}, ["usa/m", UNKNOWN_TILE])) == [(ToBar("italy/m"),)]
    assert _matches(state, _seen(state, {}, [UNKNOWN_TILE]))
    assert not _matches(state, _seen(state, {}, [UNKNOWN_TILE, UNKNOWN_TILE]))
    two = _state(["italy/m", "china/w"])
    found = explain(two, _seen(two, {}, [UNKNOWN_TILE]))
    assert sorted(found, key=repr) == [(ToBar("china/w"),), (ToBar("italy/m"),)]


def test_ci19_a_joker_exchanged_for_an_unknown_guest_is_found_after_a_visit() -> None:
    """CI-19: a seated joker replaced by a guest nobody identified still shows a taken chair:
    unchanged without a visit, the exchange (italy/w for the joker declared italy/w) after."""
    state = _state(["italy/w", "china/w"], seated={"a1": "joker/w@italy", "a2": "italy/m"})
    seen = _seen(state, {"a1": UNKNOWN_TILE})
    assert explain(state, seen) == [()]
    assert explain(state, seen, visited=True) == [(Swap("a1", "italy/w"),)]


def test_ci2_check_observation_accepts_unknown_tiles_and_counts_none() -> None:
    """CI-2: unknown tiles count towards no kind; unknown in a hand is still a problem."""
    seated: list[str | None] = [UNKNOWN_TILE] * len(LAYOUT.chairs)
    seen = Observation(tuple(seated), (UNKNOWN_TILE,))
    assert seen.has_unknown
    assert check_observation(seen, LAYOUT) == []
    bad = Observation(tuple(seated), (), ((UNKNOWN_TILE,), ()))
    assert [p.clause for p in check_observation(bad, LAYOUT)] == ["CI-2"]
    assert not observe(_state(["italy/m"])).has_unknown


def test_ci12_a_turn_elsewhere_leaves_an_unread_guest_as_it_was() -> None:
    """CI-12 (guests never leave), CI-13: a guest seated earlier and now unread at a1
    (`UNKNOWN_TILE`) is untouched by a turn seating another guest at a3 (`unknowns_kept`);
    the new guest unread at a3 is what that turn changed."""
    from engines.cafe_international import apply
    from engines.cafe_international.explain import unknowns_kept

    state = _state(["italy/m", "china/w"])
    after = apply(state, _seat("italy/m", "a3")[0])
    seen = _seen(after, {"a1": UNKNOWN_TILE})
    assert seen.has_unknown
    assert unknowns_kept(state, after, seen)
    assert not unknowns_kept(state, after, _seen(after, {"a3": UNKNOWN_TILE}))
