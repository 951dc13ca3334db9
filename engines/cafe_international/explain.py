"""What the camera saw, explained: observations of the Café board and the turns behind them.

The camera sees the guests on the chairs (a joker shows as ``joker/w``: its declared nationality is
not printed, CI-9), the guests on the bar stools in stool order (CI-14) and, because hands are
face up (CI-6), each player's tiles when the players lay them out in front of them.

`observe(state)` is what a state shows; `check_observation` reports every problem at once;
`explain(before, after)` lists the shortest action sequences (a turn and the refill draws,
CI-13…CI-19, CI-17) that turn `before` into a state that shows `after`. When both orders of two
seated guests are legal, the better-scoring order is the explanation (the engine's convention for
a pair, see `engines.cafe_international.rules`); a joker that may count as two nationalities, or
two different turns that show the same, are several explanations: the user is asked.

A chair or bar stool the camera sees taken but cannot identify shows `UNKNOWN_TILE`: it matches
any guest there (never an empty chair or stool), and a new one stands for every tile the player
could have put there (each distinct tile of their hand, `is_legal` deciding), so the one legal
turn is applied and several are asked about, never guessed.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from engines.cafe_international.catalogue import (
    TILE_COUNTS,
    hand_tile,
    is_joker,
)
from engines.cafe_international.layout import Layout
from engines.cafe_international.rules import apply_unchecked, is_legal, is_over
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
from engines.errors import Problem
from engines.search import shortest_explanations, unknowns_kept_in

MAX_STATES = 20_000  # search budget: past it, nothing explains the change (ask the user)
MAX_ACTIONS = 12  # a turn and up to 5 refill draws (CI-17), or several short turns in a row
# guests new on the table in one change that the search chains turns for (three turns of two):
# a table read after many unseen turns would take it seconds (26 new guests: 9.5 s)
MAX_CHAINED_GUESTS = 6
UNKNOWN_TILE = "?"  # a chair or stool seen taken by a tile that could not be identified
MAX_LET_GO = 2  # `loosened`: at most this many read tiles let go (a turn seats at most 2)


@dataclass(frozen=True)
class Observation:
    """What the table shows.

    Attributes:
        seated: per chair in layout order, the tile on it as printed (``italy/w``, ``joker/m``),
            `UNKNOWN_TILE` for a tile seen but not identified, or None for an empty chair.
        bar: the tiles on the bar stools, in stool order (CI-14), `UNKNOWN_TILE` for one not
            identified.
        hands: each player's face-up tiles (CI-6), sorted, or None when not seen; one
            player's entry is None when that hand was not seen (the others were).
    """

    seated: tuple[str | None, ...]
    bar: tuple[str, ...] = ()
    hands: tuple[tuple[str, ...] | None, ...] | None = None

    @classmethod
    def from_chairs(
        cls,
        layout: Layout,
        seated: dict[str, str],
        bar: Sequence[str] = (),
        hands: Sequence[Sequence[str] | None] | None = None,
    ) -> Observation:
        """Build from chair id → printed tile (a joker's ``@nationality`` is dropped)."""
        row = tuple(
            hand_tile(seated[chair.id]) if chair.id in seated else None for chair in layout.chairs
        )
        return cls(
            seated=row,
            bar=tuple(bar),
            hands=None if hands is None else _sorted_hands(hands),
        )

    @property
    def has_unknown(self) -> bool:
        """Whether a chair or stool shows a tile that was not identified (`UNKNOWN_TILE`)."""
        return UNKNOWN_TILE in self.seated or UNKNOWN_TILE in self.bar

    def seated_by_chair(self, layout: Layout) -> dict[str, str]:
        """The seated tiles as chair id → printed tile."""
        return {
            chair.id: tile
            for chair, tile in zip(layout.chairs, self.seated, strict=True)
            if tile is not None
        }

    def to_json(self, layout: Layout) -> dict[str, object]:
        """JSON: seated by chair id, the bar, the hands (or null; a hand not seen: null)."""
        return {
            "seated": self.seated_by_chair(layout),
            "bar": list(self.bar),
            "hands": None
            if self.hands is None
            else [None if h is None else list(h) for h in self.hands],
        }


def _sorted_hands(hands: Sequence[Sequence[str] | None]) -> tuple[tuple[str, ...] | None, ...]:
    return tuple(None if h is None else tuple(sorted(h)) for h in hands)


def observe(state: State, *, hands: bool = True) -> Observation:
    """What the table shows in `state` (jokers without their declaration)."""
    return Observation(
        seated=tuple(None if guest is None else hand_tile(guest) for guest in state.seated),
        bar=state.bar,
        hands=tuple(tuple(sorted(h)) for h in state.hands) if hands else None,
    )


def check_observation(observation: Observation, layout: Layout) -> list[Problem]:
    """Every problem of an observation at once (empty when it could be a real table).

    CI-3: one entry per chair of `layout`; CI-2: only known tiles, never more of a kind than the
    box holds; CI-14: no joker on the bar, at most as many guests as stools. `UNKNOWN_TILE` on a
    chair or stool is accepted and counts towards no kind (hands hold identified tiles only).
    """
    problems: list[Problem] = []
    if len(observation.seated) != len(layout.chairs):
        problems.append(
            Problem(
                "CI-3",
                f"seated must list {len(layout.chairs)} chairs, got {len(observation.seated)}",
            )
        )
    seen: Counter[str] = Counter()
    for chair, tile in zip(layout.chairs, observation.seated, strict=False):
        if tile is None or tile == UNKNOWN_TILE:
            continue
        if tile not in TILE_COUNTS:
            problems.append(Problem("CI-2", f"unknown tile {tile!r} at chair {chair.id}"))
        else:
            seen[tile] += 1
    for stool, tile in enumerate(observation.bar, start=1):
        if tile == UNKNOWN_TILE:
            continue
        if tile not in TILE_COUNTS:
            problems.append(Problem("CI-2", f"unknown tile {tile!r} on bar stool {stool}"))
            continue
        seen[tile] += 1
        if is_joker(tile):
            problems.append(Problem("CI-14", f"a joker sits on bar stool {stool}"))
    if len(observation.bar) > len(layout.bar_values):
        problems.append(
            Problem(
                "CI-14",
                f"{len(observation.bar)} guests at the bar, it has {len(layout.bar_values)} stools",
            )
        )
    for index, hand in enumerate(observation.hands or ()):
        for tile in hand or ():
            if tile not in TILE_COUNTS:
                problems.append(Problem("CI-2", f"unknown tile {tile!r} in hands[{index}]"))
            else:
                seen[tile] += 1
    for tile, n in sorted(seen.items()):
        if n > TILE_COUNTS[tile]:
            problems.append(
                Problem("CI-2", f"{n} {tile} tiles seen, the box holds {TILE_COUNTS[tile]}")
            )
    return problems


# --- explaining --------------------------------------------------------------------------------


def _shows(shown: str | None, seen: str | None) -> bool:
    """Whether a chair or stool holding `shown` looks like `seen` (unknown: any tile, not none)."""
    return shown is not None if seen == UNKNOWN_TILE else shown == seen


def _hand_options(state: State, tile: str) -> tuple[str, ...]:
    """The hand tiles a new guest seen as `tile` may be: itself, or when unknown every distinct
    tile of the current player's hand (`is_legal` then keeps those that may go there)."""
    return tuple(dict.fromkeys(state.hands[state.current])) if tile == UNKNOWN_TILE else (tile,)


def _seatings(state: State, after: Observation, chairs: list[int]) -> Iterable[Action]:
    """CI-13: the current player seating the guests seen on one or two new `chairs` (every
    order, every nationality a joker may declare there)."""
    layout = state.layout
    options: list[list[Placement]] = []
    for chair in chairs:
        seen = after.seated[chair]
        assert seen is not None
        options.append(
            [
                Placement(tile, layout.chairs[chair].id, n)
                for tile in _hand_options(state, seen)
                for n in dict.fromkeys(
                    layout.chair_nationalities[chair] if is_joker(tile) else (tile.split("/")[0],)
                )
            ]
        )
    if len(options) == 1:
        for placement in options[0]:
            yield Seat((placement,))
    else:
        for first in options[0]:
            for second in options[1]:
                yield Seat((first, second))
                yield Seat((second, first))


def _turns(state: State, after: Observation) -> Iterable[Action]:
    """The player's actions consistent with the board in `after` (checked with `is_legal`)."""
    layout = state.layout
    before = observe(state, hands=False)
    new_chairs = [
        i
        for i, (old, new) in enumerate(zip(before.seated, after.seated, strict=True))
        if old is None and new is not None
    ]
    changed = [
        i
        for i, (old, new) in enumerate(zip(before.seated, after.seated, strict=True))
        if old is not None and not _shows(old, new)
    ]
    # CI-19: a joker exchanged for a guest nobody identified still shows a taken chair
    hidden_swaps = [
        i
        for i, (old, new) in enumerate(zip(before.seated, after.seated, strict=True))
        if old is not None and is_joker(old) and new == UNKNOWN_TILE
    ]
    grew = len(after.bar) - len(state.bar)
    bar_kept = all(map(_shows, state.bar, after.bar[: len(state.bar)]))
    if len(new_chairs) == 1 and not changed and grew == 0:
        yield from _seatings(state, after, new_chairs)
        return
    if not new_chairs and not changed and grew == 1 and bar_kept:
        for tile in _hand_options(state, after.bar[-1]):
            yield ToBar(tile)
        return
    if not new_chairs and not changed and grew == 0:
        for chair in hidden_swaps:
            for tile in _hand_options(state, UNKNOWN_TILE):
                yield Swap(layout.chairs[chair].id, tile)
        yield Pass()
        return
    # One turn that changed several things (two guests seated), or several turns in one change
    # (the camera missed the tables between them, CI-13, CI-14 and CI-19 mixed): this turn is
    # one of them, the search chains the rest; the hands seen after the draws decide who did what.
    if any(not is_joker(str(state.seated[i])) or after.seated[i] is None for i in changed):
        return  # CI-12: guests never move or leave, except a joker exchanged (CI-19)
    if len(new_chairs) + len(changed) + max(grew, 0) > MAX_CHAINED_GUESTS:
        return  # more turns than a search can chain in time: the user is asked
    for chair in changed:
        yield Swap(layout.chairs[chair].id, str(after.seated[chair]))
    if grew > 0 and bar_kept:
        for tile in _hand_options(state, after.bar[len(state.bar)]):
            yield ToBar(tile)
    for size in (1, 2):
        for chairs in itertools.combinations(new_chairs, size):
            yield from _seatings(state, after, list(chairs))


def _draws(state: State, after: Observation) -> Iterable[Action]:
    """Refill draws (CI-17) that bring the drawer's hand towards the observed one."""
    player = state.refill[0]
    if after.hands is None or after.hands[player] is None:
        return  # the drawer's hand was not seen: which tiles they drew is unknown
    missing = Counter(after.hands[player]) - Counter(state.hands[player])
    # several turns in one change: a tile drawn now may have been played by a later turn
    played = Counter(
        tile
        for old, tile in zip(state.seated, after.seated, strict=True)
        if tile not in (None, UNKNOWN_TILE) and (old is None or hand_tile(old) != tile)
    ) + Counter(tile for tile in after.bar[len(state.bar) :] if tile != UNKNOWN_TILE)
    for tile in sorted(missing | played):
        yield Draw(tile)


def _matches(state: State, after: Observation) -> bool:
    if state.refill and _hand_seen(after, state.refill[0]) and not is_over(state):
        return False  # still drawing: the hands are not yet what they will be
    shown = _shown(state, after)
    if not after.has_unknown:
        return shown == after
    return (
        shown.hands == after.hands
        and len(shown.seated) == len(after.seated)
        and len(shown.bar) == len(after.bar)
        and all(map(_shows, shown.seated, after.seated))
        and all(map(_shows, shown.bar, after.bar))
    )


def _hand_seen(observation: Observation, player: int) -> bool:
    hands = observation.hands
    return hands is not None and player < len(hands) and hands[player] is not None


def _shown(state: State, after: Observation) -> Observation:
    """What `state` shows of what `after` saw: only the hands that were seen."""
    shown = observe(state, hands=after.hands is not None)
    if shown.hands is None or after.hands is None or len(after.hands) != len(shown.hands):
        return shown
    hands = tuple(None if a is None else h for h, a in zip(shown.hands, after.hands, strict=True))
    return Observation(shown.seated, shown.bar, hands)


def explain_states(
    before: State,
    after: Observation,
    *,
    visited: bool = False,
    max_actions: int = MAX_ACTIONS,
    max_states: int = MAX_STATES,
) -> list[tuple[tuple[Action, ...], State]]:
    """The shortest action sequences from `before` to a state showing `after`, with that state.

    With `visited`, the empty sequence does not count (a pass leaves the table unchanged, CI-16).
    Of two seatings that differ only in their order, the better-scoring one is kept.
    """
    found = shortest_explanations(
        before,
        successors=lambda state: _successors(state, after),
        shows_observation=lambda state: _matches(state, after),
        key=lambda state: state,
        is_over=is_over,
        visited=visited,
        max_actions=max_actions,
        max_states=max_states,
    )
    return _best_orders(found)


def _successors(state: State, after: Observation) -> Iterable[tuple[Action, State]]:
    """The legal moves worth trying towards `after`: refill draws while refilling, else turns."""
    steps = _draws(state, after) if state.refill else _turns(state, after)
    for action in steps:
        if is_legal(state, action):
            yield action, apply_unchecked(state, action)


def _best_orders(
    found: list[tuple[tuple[Action, ...], State]],
) -> list[tuple[tuple[Action, ...], State]]:
    """Keep, among seatings of the same guests on the same chairs, the best-scoring order."""
    best: dict[object, tuple[tuple[Action, ...], State]] = {}
    for path, state in found:
        first = path[0] if path else None
        if isinstance(first, Seat):
            key: object = (frozenset(first.placements), path[1:])
        else:
            key = (first, path[1:], state)
        kept = best.get(key)
        if kept is None or sum(state.points) > sum(kept[1].points):
            best[key] = (path, state)
    return list(best.values())


def loosened(before: State, after: Observation) -> list[Observation]:
    """`after` with what the camera most often misreads let go, for further searches when
    nothing explains it, looser and looser: every guest on a chair or stool other than what
    `before` shows there becomes `UNKNOWN_TILE` (two flags alike at 12 px: China and Turkey);
    then the hands are not seen either (a hand read a tile short; its draws are then left
    for the user). Their explanations are only ever offered to the user, never applied."""
    shown = observe(before, hands=False)
    seated = tuple(
        UNKNOWN_TILE if new is not None and new != old else new
        for old, new in zip(shown.seated, after.seated, strict=False)
    )
    bar = tuple(
        tile if i < len(shown.bar) and tile == shown.bar[i] else UNKNOWN_TILE
        for i, tile in enumerate(after.bar)
    )
    let_go = sum(map(operator.ne, seated, after.seated)) + sum(map(operator.ne, bar, after.bar))
    if let_go > MAX_LET_GO:
        return []  # more than a misread or two: the search would try every hand tile everywhere
    tiers = [Observation(seated, bar, after.hands), Observation(seated, bar, None)]
    return [o for k, o in enumerate(tiers) if o != after and o not in tiers[:k]]


def explain(
    before: State, after: Observation, *, visited: bool = False
) -> list[tuple[Action, ...]]:
    """The legal action sequences that turn `before` into `after` (see `explain_states`).

    An empty list: nothing explains the change (ask the user); several: ambiguous (ask which).
    """
    return [path for path, _ in explain_states(before, after, visited=visited)]


Explanations = list[tuple[tuple[Action, ...], State]]


def loose_explanations(
    before: State,
    after: Observation,
    *,
    visited: bool = False,
    explain: Callable[..., Explanations] = explain_states,
) -> Explanations:
    """What explains the first of `loosened(before, after)` that anything explains (searched
    with `explain`: the app's runs in a worker process), or nothing. Offered to the user as a
    question's candidates, never applied."""
    for looser in loosened(before, after):
        found = explain(before, looser, visited=visited)
        if found:
            return list(found)
    return []


def unknowns_kept(before: State, after: State, observation: Observation) -> bool:
    """Whether the move from `before` to `after` left every chair and stool `observation`
    shows as `UNKNOWN_TILE` holding the same tile: the unidentified guests played no part in it."""
    hands = observation.hands is not None
    return unknowns_kept_in(
        observation, observe(before, hands=hands), observe(after, hands=hands), UNKNOWN_TILE
    )


__all__ = [
    "MAX_ACTIONS",
    "UNKNOWN_TILE",
    "Observation",
    "check_observation",
    "explain",
    "explain_states",
    "loose_explanations",
    "loosened",
    "observe",
    "unknowns_kept",
]
