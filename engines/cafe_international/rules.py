"""The turn rules of Café International (CI-6…CI-22): legal actions, applying them, the end.

`scored_actions` lists every legal action of the player to move with the points it scores and the
change of hand limit it causes (the advisor sorts them); `legal_actions` is the same list without
the numbers. `apply` checks an action and raises `IllegalActionError` naming the clause it breaks;
`apply_unchecked` is for playouts that take actions from `legal_actions`.

Rulings (see the rules page): the board is checked against CI-10/CI-11 after the whole turn, each
placement scored on the board as it is at that moment (CI-18); a joker exchange is a turn of its
own (CI-19); CI-15's "cannot score" means no CI-13 seating scores; a player with no legal action
passes (CI-16) and a full round of passes ends the game, since nothing can change any more.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from engines.cafe_international.catalogue import (
    GENDER_OF,
    TILE_COUNTS,
    TILE_INDEX,
    TILE_KINDS,
    hand_tile,
    is_joker,
    seated_nationality,
)
from engines.cafe_international.layout import STOOLS, Layout, reference_layout
from engines.cafe_international.position import (
    MAX_PER_GENDER,
    fits_chair,
    gender_counts,
    table_ok,
)
from engines.cafe_international.scoring import hand_penalty, placement_points
from engines.cafe_international.state import (
    END_BAG_SIZE,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    Action,
    Draw,
    Pass,
    Placement,
    Seat,
    State,
    Swap,
    ToBar,
)
from engines.errors import IllegalActionError, MalformedError


@dataclass(frozen=True)
class ScoredAction:
    """A legal action with what it brings: `points` now and `hand_limit_change` (CI-20)."""

    action: Action
    points: int
    hand_limit_change: int = 0


# --- setting up ---------------------------------------------------------------------------------


def new_game(
    players: Sequence[str], *, layout: Layout | None = None, first_player: int = 0
) -> State:
    """CI-6, CI-7: a new game; the state is a chance node until every player has drawn 5 tiles.

    Raises:
        MalformedError: fewer than 2 or more than 4 players, duplicate or empty names, or a
            `first_player` out of range.
    """
    names = tuple(players)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise MalformedError(f"players must be 2 to 4 names, got {len(names)}")
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise MalformedError(f"player name must be a non-empty string, got {name!r}")
    if len(set(names)) != len(names):
        raise MalformedError(f"player names must differ, got {list(names)!r}")
    if not isinstance(first_player, int) or not 0 <= first_player < len(names):
        raise MalformedError(f"first_player must be 0 to {len(names) - 1}, got {first_player!r}")
    board = layout if layout is not None else reference_layout()
    count = len(names)
    return State(
        layout=board,
        players=names,
        hands=((),) * count,
        hand_limits=(HAND_SIZE,) * count,
        points=(0,) * count,
        seated=(None,) * len(board.chairs),
        bar=(),
        bag=tuple(TILE_COUNTS[tile] for tile in TILE_KINDS),
        current=first_player,
        refill=tuple((first_player + offset) % count for offset in range(count)),
    )


# --- the end (CI-21, CI-22) ---------------------------------------------------------------------


def end_reason(state: State) -> str | None:
    """CI-21 (and the CI-16 ruling): why the game is over, or None while it goes on."""
    if len(state.bar) >= STOOLS:
        return "all 20 bar stools are taken"
    if all(guest is not None for guest in state.seated):
        return "all chairs are taken"
    if state.bag_size <= END_BAG_SIZE:
        return f"only {state.bag_size} tiles remain in the bag"
    if not state.refill and any(not hand for hand in state.hands):
        name = next(p for p, hand in zip(state.players, state.hands, strict=True) if not hand)
        return f"{name} has no tiles left"
    if state.passes >= len(state.players):
        return "nobody can act (a full round of passes)"
    return None


def is_over(state: State) -> bool:
    """CI-21: whether the game has ended."""
    return end_reason(state) is not None


def is_chance_node(state: State) -> bool:
    """Whether a tile is to be drawn from the bag now (CI-6, CI-17)."""
    return bool(state.refill) and not is_over(state)


def chance_outcomes(state: State) -> list[tuple[Draw, float]]:
    """The tiles the refilling player may draw, with exact probabilities (count / bag size)."""
    if not is_chance_node(state):
        return []
    total = state.bag_size
    return [
        (Draw(tile), count / total)
        for tile, count in zip(TILE_KINDS, state.bag, strict=True)
        if count
    ]


def scores(state: State) -> dict[str, int]:
    """Each player's score: running points, minus CI-22's hand penalties once the game is over."""
    over = is_over(state)
    return {
        name: points - (hand_penalty(hand) if over else 0)
        for name, points, hand in zip(state.players, state.points, state.hands, strict=True)
    }


def inventory(state: State) -> Counter[str]:
    """Every tile by kind over bag, hands, chairs and bar (always 100 in all, CI-2)."""
    counts: Counter[str] = Counter(state.bag_counts())
    for hand in state.hands:
        counts.update(hand)
    counts.update(hand_tile(guest) for guest in state.seated if guest is not None)
    counts.update(state.bar)
    return counts


# --- generating legal actions -------------------------------------------------------------------


@dataclass(frozen=True)
class _Option:
    """One guest from hand on one free chair, scored on the board as it is now."""

    tile: str
    chair: int
    nationality: str
    seated: str
    board: list[str | None]  # the board with this guest seated
    points: int
    completed: int
    valid: bool  # the touched tables satisfy CI-10/CI-11 with only this guest added


def _has_room(layout: Layout, board: Sequence[str | None], chair: int, gender: str) -> bool:
    """CI-10: every table of `chair` has fewer than 2 guests of `gender`."""
    for table in layout.chair_tables[chair]:
        same = 0
        for other in layout.table_chairs[table]:
            guest = board[other]
            if guest is not None and GENDER_OF[guest] == gender:
                same += 1
        if same >= MAX_PER_GENDER:
            return False
    return True


def _nationalities(layout: Layout, tile: str, chair: int) -> tuple[str, ...]:
    """CI-8, CI-9: what `tile` may count as on `chair` (a joker: any of its tables' flags)."""
    options = layout.chair_nationalities[chair]
    if is_joker(tile):
        return options
    own = tile.split("/", 1)[0]
    return (own,) if own in options else ()


def _options_on(
    layout: Layout,
    board: Sequence[str | None],
    tiles: Sequence[str],
    chairs: Sequence[int],
    lone_chair: int | None,
) -> list[_Option]:
    options: list[_Option] = []
    for chair in chairs:
        if board[chair] is not None:
            continue
        for tile in tiles:
            if not _has_room(layout, board, chair, GENDER_OF[tile]):
                continue
            for nationality in _nationalities(layout, tile, chair):
                seated = f"{tile}@{nationality}" if is_joker(tile) else tile
                after = list(board)
                after[chair] = seated
                points, completed = placement_points(layout, after, chair)
                valid = all(
                    table_ok(layout, after, table, lone_chair)
                    for table in layout.chair_tables[chair]
                )
                options.append(
                    _Option(tile, chair, nationality, seated, after, points, completed, valid)
                )
    return options


def _placement(layout: Layout, option: _Option) -> Placement:
    return Placement(option.tile, layout.chairs[option.chair].id, option.nationality)


def _seat_candidates(state: State) -> list[ScoredAction]:
    """CI-13: every legal seating of 1 or 2 guests (two orders of one pair: the better one)."""
    layout = state.layout
    hand = state.hands[state.current]
    counts = Counter(hand)
    kinds = sorted(counts)
    singles = _options_on(layout, state.seated, kinds, range(len(layout.chairs)), state.lone_chair)
    found: dict[frozenset, ScoredAction] = {}

    def offer(first: _Option, second: _Option | None, points: int, completed: int) -> None:
        placements: tuple[Placement, ...] = (_placement(layout, first),)
        if second is not None:
            placements += (_placement(layout, second),)
        key = frozenset(placements)
        best = found.get(key)
        if best is None or points > best.points:
            found[key] = ScoredAction(Seat(placements), points, -completed)

    scoring = [o for o in singles if o.points > 0 and o.valid]
    for option in scoring:
        offer(option, None, option.points, option.completed)
    # two guests at tables that share nothing: each must score on its own (CI-13)
    table_sets = [frozenset(layout.chair_tables[o.chair]) for o in scoring]
    for i, first in enumerate(scoring):
        for j in range(i + 1, len(scoring)):
            second = scoring[j]
            if second.chair == first.chair or not table_sets[i].isdisjoint(table_sets[j]):
                continue
            if first.tile == second.tile and counts[first.tile] < 2:
                continue
            offer(
                first,
                second,
                first.points + second.points,
                first.completed + second.completed,
            )
    # two guests sharing a table, scored one after the other (CI-18); the first may score
    # nothing at an empty table when the second joins it (CI-13)
    for first in singles:
        tables = layout.chair_tables[first.chair]
        near = {c for t in tables for c in layout.table_chairs[t] if c != first.chair}
        rest = counts.copy()
        rest[first.tile] -= 1
        tiles = [tile for tile in kinds if rest[tile] > 0]
        for second in _options_on(layout, first.board, tiles, sorted(near), state.lone_chair):
            if second.points <= 0:
                continue
            touched = set(tables) | set(layout.chair_tables[second.chair])
            if not all(table_ok(layout, second.board, t, state.lone_chair) for t in touched):
                continue
            offer(
                first,
                second,
                first.points + second.points,
                first.completed + second.completed,
            )
    candidates = list(found.values())
    if not candidates and state.turn == 0:
        # CI-15: the first player, unable to score, may seat a single guest alone
        candidates = [
            ScoredAction(Seat((_placement(layout, o),)), 0, 0) for o in singles if o.points == 0
        ]
    return candidates


def _bar_candidates(state: State) -> list[ScoredAction]:
    """CI-14: any guest but a joker may go to the lowest free stool, scoring its value."""
    if len(state.bar) >= STOOLS:
        return []
    value = state.layout.bar_values[len(state.bar)]
    kinds = sorted(set(state.hands[state.current]))
    return [ScoredAction(ToBar(tile), value) for tile in kinds if not is_joker(tile)]


def _swap_candidates(state: State) -> list[ScoredAction]:
    """CI-19: a seated joker may be exchanged for a hand guest of its declared kind."""
    hand = set(state.hands[state.current])
    found: list[ScoredAction] = []
    for chair, guest in enumerate(state.seated):
        if guest is not None and is_joker(guest):
            wanted = f"{seated_nationality(guest)}/{GENDER_OF[guest]}"
            if wanted in hand:
                found.append(ScoredAction(Swap(state.layout.chairs[chair].id, wanted), 0))
    return found


def candidate_actions(state: State) -> list[ScoredAction]:
    """The actions the player to move could take on this board and hand, ignoring whether the
    game is over or a refill is pending (the advisor's view of a position); a lone `Pass` when
    nothing else is legal (CI-16)."""
    found = _seat_candidates(state) + _bar_candidates(state) + _swap_candidates(state)
    return found or [ScoredAction(Pass(), 0)]


def scored_actions(state: State) -> list[ScoredAction]:
    """Every legal action of the player to move, with points and hand limit change (unsorted).

    Empty at chance nodes and once the game is over; a lone `Pass` when nothing else is legal.
    """
    if state.refill or is_over(state):
        return []
    return candidate_actions(state)


def legal_actions(state: State) -> list[Action]:
    """Every legal action of the player to move (empty at chance nodes and when over)."""
    if is_chance_node(state):
        return []
    return [scored.action for scored in scored_actions(state)]


# --- applying -----------------------------------------------------------------------------------


def _sorted_hand(tiles: Sequence[str]) -> tuple[str, ...]:
    return tuple(sorted(tiles, key=TILE_INDEX.__getitem__))


def _remove(hand: Sequence[str], tiles: Sequence[str], clause: str) -> tuple[str, ...]:
    rest = list(hand)
    for tile in tiles:
        if tile not in rest:
            raise IllegalActionError(clause, f"tile {tile!r} is not in the player's hand")
        rest.remove(tile)
    return tuple(rest)


def _settle(state: State) -> State:
    """Drop from the refill queue the players whose hands are full (or the bag is empty)."""
    refill = state.refill
    while refill and (
        len(state.hands[refill[0]]) >= state.hand_limits[refill[0]] or not state.bag_size
    ):
        refill = refill[1:]
    return state if refill == state.refill else replace(state, refill=refill)


def _finish_turn(
    state: State,
    *,
    hand: tuple[str, ...],
    seated: tuple[str | None, ...] | None = None,
    bar: tuple[str, ...] | None = None,
    points: int = 0,
    completed: int = 0,
    lone_chair: int | None = None,
    passed: bool = False,
) -> State:
    """After the action: score, hand limit (CI-20), refill (CI-17), next player (CI-7)."""
    player = state.current
    hands = list(state.hands)
    hands[player] = _sorted_hand(hand)
    limits = list(state.hand_limits)
    limits[player] = max(0, limits[player] - completed)
    totals = list(state.points)
    totals[player] += points
    after = replace(
        state,
        hands=tuple(hands),
        hand_limits=tuple(limits),
        points=tuple(totals),
        seated=state.seated if seated is None else seated,
        bar=state.bar if bar is None else bar,
        current=(player + 1) % len(state.players),
        refill=(player,),
        turn=state.turn + 1,
        lone_chair=state.lone_chair if lone_chair is None else lone_chair,
        passes=state.passes + 1 if passed else 0,
    )
    return _settle(after)


def _draw(state: State, tile: str) -> State:
    player = state.refill[0]
    bag = list(state.bag)
    bag[TILE_INDEX[tile]] -= 1
    hands = list(state.hands)
    hands[player] = _sorted_hand(hands[player] + (tile,))
    return _settle(replace(state, bag=tuple(bag), hands=tuple(hands)))


def _seat(state: State, seat: Seat, *, checked: bool) -> State:
    layout = state.layout
    placements = seat.placements
    if checked:
        _check_placements(state, placements)
    board = list(state.seated)
    total = completed = 0
    each: list[int] = []
    for placement in placements:
        chair = layout.chair_index[placement.chair]
        board[chair] = placement.seated
        points, full = placement_points(layout, board, chair)
        each.append(points)
        total += points
        completed += full
    lone_chair = None
    if checked:
        lone_chair = _check_seat_outcome(state, placements, board, each)
    elif total == 0:
        lone_chair = layout.chair_index[placements[0].chair]  # CI-15's single guest
    hand = _remove(state.hands[state.current], [p.tile for p in placements], "CI-13")
    return _finish_turn(
        state,
        hand=hand,
        seated=tuple(board),
        points=total,
        completed=completed,
        lone_chair=lone_chair,
    )


def _check_placements(state: State, placements: Sequence[Placement]) -> None:
    """CI-13, CI-8, CI-9: 1 or 2 guests from hand, on free chairs where they fit."""
    layout = state.layout
    if not 1 <= len(placements) <= 2:
        raise IllegalActionError("CI-13", f"seat 1 or 2 guests, not {len(placements)}")
    _remove(state.hands[state.current], [p.tile for p in placements], "CI-13")
    chairs = [p.chair for p in placements]
    if len(set(chairs)) != len(chairs):
        raise IllegalActionError("CI-9", f"one guest per chair: chair {chairs[0]} twice")
    for placement in placements:
        chair = layout.chair_index.get(placement.chair)
        if chair is None:
            raise IllegalActionError("CI-3", f"unknown chair {placement.chair!r}")
        if state.seated[chair] is not None:
            raise IllegalActionError(
                "CI-9", f"chair {placement.chair} is taken by {state.seated[chair]}"
            )
        tables = ", ".join(
            f"{layout.tables[t].id} ({layout.tables[t].nationality})"
            for t in layout.chair_tables[chair]
        )
        if is_joker(placement.tile):
            if not fits_chair(layout, chair, placement.nationality):
                raise IllegalActionError(
                    "CI-9",
                    f"a joker at chair {placement.chair} must be declared as one of its "
                    f"tables' nationalities ({tables}), not {placement.nationality!r}",
                )
        else:
            own = placement.tile.split("/", 1)[0]
            if placement.nationality != own:
                raise IllegalActionError(
                    "CI-8", f"{placement.tile} counts as {own}, not {placement.nationality!r}"
                )
            if not fits_chair(layout, chair, own):
                raise IllegalActionError(
                    "CI-8", f"{placement.tile} may not sit at chair {placement.chair} of {tables}"
                )


def _check_seat_outcome(
    state: State, placements: Sequence[Placement], board: list[str | None], each: list[int]
) -> int | None:
    """CI-10, CI-11, CI-13, CI-15 on the board after the turn; returns CI-15's lone chair."""
    layout = state.layout
    chairs = [layout.chair_index[p.chair] for p in placements]
    table_sets = [set(layout.chair_tables[c]) for c in chairs]
    touched = set().union(*table_sets)
    for table in sorted(touched):
        women, men = gender_counts(layout, board, table)
        if women > MAX_PER_GENDER or men > MAX_PER_GENDER:
            raise IllegalActionError(
                "CI-10",
                f"table {layout.tables[table].id} would have {women} women and {men} men "
                "(at most 2 of each)",
            )
        if women + men >= 2 and (women == 0 or men == 0):
            raise IllegalActionError(
                "CI-10",
                f"table {layout.tables[table].id} would have {women} women and {men} men "
                "(a group needs a woman and a man)",
            )
    if len(placements) == 1 and each[0] == 0:
        if state.turn == 0 and not _seat_candidates(replace(state, turn=1)):
            return chairs[0]  # CI-15
        raise IllegalActionError(
            "CI-13", f"{placements[0].tile} at chair {placements[0].chair} scores nothing"
        )
    if len(placements) == 2:
        shared = not table_sets[0].isdisjoint(table_sets[1])
        if not shared and (each[0] <= 0 or each[1] <= 0):
            raise IllegalActionError("CI-13", "two guests at different tables must each score")
        if shared and each[1] <= 0:
            raise IllegalActionError("CI-13", "the second guest must score")
    for table in sorted(touched):
        if not table_ok(layout, board, table, state.lone_chair):
            raise IllegalActionError(
                "CI-11", f"a guest would sit alone at table {layout.tables[table].id}"
            )
    return None


def _to_bar(state: State, action: ToBar, *, checked: bool) -> State:
    if checked:
        if is_joker(action.tile):
            raise IllegalActionError("CI-14", "a joker may not go to the bar")
        if len(state.bar) >= STOOLS:
            raise IllegalActionError("CI-14", "all bar stools are taken")
    hand = _remove(state.hands[state.current], [action.tile], "CI-14")
    value = state.layout.bar_values[len(state.bar)]
    return _finish_turn(state, hand=hand, bar=state.bar + (action.tile,), points=value)


def _swap(state: State, action: Swap, *, checked: bool) -> State:
    layout = state.layout
    chair = layout.chair_index.get(action.chair)
    if checked:
        if chair is None:
            raise IllegalActionError("CI-3", f"unknown chair {action.chair!r}")
        guest = state.seated[chair]
        if guest is None or not is_joker(guest):
            raise IllegalActionError("CI-19", f"no joker sits at chair {action.chair}")
        wanted = f"{seated_nationality(guest)}/{GENDER_OF[guest]}"
        if action.tile != wanted:
            raise IllegalActionError(
                "CI-19", f"the joker at chair {action.chair} can only be exchanged for {wanted}"
            )
    assert chair is not None
    guest = state.seated[chair]
    assert guest is not None
    hand = _remove(state.hands[state.current], [action.tile], "CI-19") + (hand_tile(guest),)
    board = list(state.seated)
    board[chair] = action.tile
    return _finish_turn(state, hand=hand, seated=tuple(board))


def _apply(state: State, action: Action, *, checked: bool) -> State:
    if checked and is_over(state):
        raise IllegalActionError("CI-21", f"the game is over: {end_reason(state)}")
    if isinstance(action, Draw):
        if checked:
            if not state.refill:
                raise IllegalActionError("CI-17", "nobody is drawing from the bag now")
            if action.tile not in TILE_INDEX or not state.bag[TILE_INDEX[action.tile]]:
                raise IllegalActionError("CI-17", f"no {action.tile!r} tile left in the bag")
        return _draw(state, action.tile)
    if checked and state.refill:
        name = state.players[state.refill[0]]
        raise IllegalActionError("CI-17", f"{name} must refill their hand first (draw a tile)")
    if isinstance(action, Seat):
        return _seat(state, action, checked=checked)
    if isinstance(action, ToBar):
        return _to_bar(state, action, checked=checked)
    if isinstance(action, Swap):
        return _swap(state, action, checked=checked)
    if isinstance(action, Pass):
        if checked and not isinstance(scored_actions(state)[0].action, Pass):
            raise IllegalActionError("CI-16", "passing is not allowed while an action is legal")
        return _finish_turn(state, hand=state.hands[state.current], passed=True)
    raise MalformedError(f"unknown action {action!r}")


def apply(state: State, action: Action) -> State:
    """Check `action` and return the next state.

    Raises:
        IllegalActionError: the action breaks a rule; `clause` names it.
    """
    return _apply(state, action, checked=True)


def apply_unchecked(state: State, action: Action) -> State:
    """Apply an action taken from `legal_actions` or `chance_outcomes` without checking it."""
    return _apply(state, action, checked=False)


def is_legal(state: State, action: Action) -> bool:
    """Whether `apply(state, action)` would succeed."""
    try:
        apply(state, action)
    except (IllegalActionError, MalformedError):
        return False
    return True


__all__ = [
    "ScoredAction",
    "apply",
    "apply_unchecked",
    "candidate_actions",
    "chance_outcomes",
    "end_reason",
    "inventory",
    "is_chance_node",
    "is_legal",
    "is_over",
    "legal_actions",
    "new_game",
    "scored_actions",
    "scores",
]
