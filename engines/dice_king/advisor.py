"""The exact keep advisor: which dice to set aside, and the chance of meeting each face-up card.

Probabilities (exact, by dynamic programming over dice multisets). A die's value is uniform on 1–6
and its colour uniform on r/g/b, independently (design contract). A requirement looks either at
values or at colours, so for one card the dice are a multiset of values (462 multisets of six) or of
colours (28). With `W_r(D)` the chance of meeting the card from the six dice `D` with `r` rolls
still allowed, playing optimally for that card:

    W_0(D) = met(D)
    Q_r(K) = Σ_R P(R) · W_{r-1}(K + R)           (keep K, roll the other 6 − |K| dice)
    W_r(D) = max(met(D), max over K ⊆ D of Q_r(K))

`Q_r(K)` is the number reported for a keep `K` with `r` rolls left. Tables are computed once per
requirement (type and parameters) and cached, so a query only looks numbers up.

Keeps. A keep is a sub-multiset of the six readings (the dice set aside before the next roll);
keeping all six means stopping. Every distinct keep is scored; the answer lists each face-up card's
own best keep (the keep with the highest chance for that card; ties go to the better keep by the
order below) and the best keep overall, without duplicates.

Order ("expected points", best first). A card's value to the roller is its printed points, plus
the top village of its stack when it lies under the village of its own colour (DK-10; the top
village is 2 unless the request's ``villages`` says otherwise), a fairy is worth ``fairies + 1``
(DK-20: the next fairy's bonus; ``fairies`` is how many the roller owns, 0 by default), and a dragon
is worth 0 (DK-22: the roller gives it away, it never counts for them). Keeps are sorted by

1. the expected points of the best single target, ``max over cards of p × value`` (a player who
   plays for that card gets exactly this on average; the keep's ``target`` is that card),
2. then the sum ``Σ p × value`` over all face-up cards (the options kept open),
3. then the best chance of meeting any single card (avoiding a penalty, DK-11),
4. then more dice kept (less to roll).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from engines.dice_king.catalogue import (
    DICE,
    LOCATIONS,
    Card,
    CardType,
    Deck,
    Location,
    Requirement,
    load_deck,
    parse_dice,
    villages,
)
from engines.dice_king.requirements import is_met, met_by_counts, project
from engines.dice_king.scoring import score_kingdom
from engines.dice_king.scoring import scores as scoring_scores
from engines.dice_king.state import Action, Give, Phase, Reroll, State, Take, TakePenalty
from engines.errors import MalformedError

MAX_ROLLS_LEFT = 3  # 4 rolls with an arrogant elf on top (DK-14): 3 after the first


# ---------------------------------------------------------------------------------------------
# Multiset spaces and the DP tables


@dataclass(frozen=True)
class _Space:
    """Every multiset of at most six dice over `kinds` faces, and how rolling moves between them."""

    kinds: int
    counts: np.ndarray  # (M, kinds): every count vector with total ≤ 6
    index: dict[tuple[int, ...], int]
    full: np.ndarray  # indices of the multisets of exactly six dice
    roll: np.ndarray  # (M, len(full)): P(keep K, roll the rest → D)
    subs: np.ndarray  # (len(full), S): indices of the sub-multisets of each D (padded)


@cache
def _space(kinds: int) -> _Space:
    vectors = [
        c for total in range(DICE + 1) for c in _compositions(total, kinds)
    ]  # ordered by size, so the empty keep is index 0
    index = {vector: i for i, vector in enumerate(vectors)}
    counts = np.array(vectors, dtype=np.int64)
    full = np.array([i for i, v in enumerate(vectors) if sum(v) == DICE])
    full_pos = {int(i): j for j, i in enumerate(full)}
    roll = np.zeros((len(vectors), len(full)))
    for i, kept in enumerate(vectors):
        rolled = DICE - sum(kept)
        scale = math.factorial(rolled) / kinds**rolled
        for outcome in _compositions(rolled, kinds):
            p = scale / math.prod(math.factorial(n) for n in outcome)
            target = tuple(a + b for a, b in zip(kept, outcome, strict=True))
            roll[i, full_pos[index[target]]] += p
    sub_lists = []
    for i in full:
        vector = vectors[int(i)]
        sub_lists.append([index[s] for s in itertools.product(*(range(n + 1) for n in vector))])
    width = max(len(s) for s in sub_lists)
    subs = np.array([s + [s[0]] * (width - len(s)) for s in sub_lists])
    return _Space(kinds, counts, index, full, roll, subs)


def _compositions(total: int, kinds: int) -> list[tuple[int, ...]]:
    """Every vector of `kinds` non-negative counts summing to `total`, in lexicographic order."""
    if kinds == 1:
        return [(total,)]
    return [
        (first,) + rest
        for first in range(total, -1, -1)
        for rest in _compositions(total - first, kinds - 1)
    ]


@dataclass
class _Tables:
    """Cached DP tables of one requirement: `keep[r]` is Q_r over every multiset (r ≥ 1)."""

    space: _Space
    met: np.ndarray  # over `space.full`
    best: list[np.ndarray] = field(default_factory=list)  # W_r over `space.full`
    keep: list[np.ndarray] = field(default_factory=list)  # Q_r over all multisets; [0] unused

    def extend_to(self, rolls_left: int) -> None:
        while len(self.best) <= rolls_left:
            r = len(self.best)
            if r == 0:
                self.best.append(self.met.copy())
                self.keep.append(np.zeros(len(self.space.counts)))
                continue
            q = self.space.roll @ self.best[r - 1]
            w = np.maximum(self.met, q[self.space.subs].max(axis=1))
            self.keep.append(q)
            self.best.append(w)


@cache
def _tables(requirement: Requirement) -> _Tables:
    space = _space(3 if requirement.uses_colours else 6)
    met = met_by_counts(requirement, space.counts[space.full]).astype(float)
    tables = _Tables(space, met)
    tables.extend_to(MAX_ROLLS_LEFT)
    return tables


def keep_probability(requirement: Requirement, keep: Sequence[str], rolls_left: int) -> float:
    """Exact chance of meeting `requirement` by the last roll after keeping `keep` and rolling
    the other dice, with `rolls_left` ≥ 1 rolls still allowed (this one included), playing
    optimally for that requirement."""
    if rolls_left < 1:
        raise ValueError("keep_probability needs at least one roll left")
    tables = _tables(requirement)
    tables.extend_to(rolls_left)
    return float(tables.keep[rolls_left][tables.space.index[project(requirement, keep)]])


def start_probability(requirement: Requirement, rolls: int = 3) -> float:
    """Exact chance of meeting `requirement` within `rolls` rolls of all six dice, playing
    optimally for it (the number the companion deck's points are based on)."""
    return keep_probability(requirement, (), rolls)


# ---------------------------------------------------------------------------------------------
# Requests and answers


@dataclass(frozen=True)
class AdviceRequest:
    """A position to advise on (design contract: state → advice).

    `row` holds up to five face-up card ids, left to right (``None`` for an empty slot); with five
    slots, slot i lies under the village stack of location i (DK-6). `villages` gives the value of
    each stack's top card (0 when empty). `fairies` is how many fairies the roller owns.
    """

    deck: Deck
    row: tuple[str | None, ...]
    dice: tuple[str, ...]
    rolls_left: int
    villages: tuple[int, ...] = (2, 2, 2, 2, 2)
    fairies: int = 0

    def cards(self) -> list[Card]:
        """The face-up cards, left to right."""
        return [self.deck.card(card_id) for card_id in self.row if card_id is not None]

    def village(self, card: Card) -> int:
        """The village value founded with `card` (DK-10), 0 when none comes with it."""
        if card.id not in self.row or len(self.row) != len(LOCATIONS):
            return 0
        slot = self.row.index(card.id)
        return self.villages[slot] if LOCATIONS[slot] == card.colour else 0

    def value(self, card: Card) -> int:
        """The card's worth to the roller (see the module docstring)."""
        if card.type is CardType.DRAGON:
            base = 0  # DK-22: given away; the village, if any, stays with the roller
        elif card.type is CardType.FAIRY:
            base = self.fairies + 1  # DK-20: the next fairy's bonus
        else:
            base = card.points
        return base + self.village(card)


@dataclass(frozen=True)
class Keep:
    """One keep with its chance for every face-up card and its expected points."""

    keep: tuple[str, ...]
    target: str
    probabilities: dict[str, float]
    expected_points: float
    sort_key: tuple[float, ...]

    def to_json(self) -> dict[str, Any]:
        """The contract's keep object (plus ``expected_points``)."""
        return {
            "keep": list(self.keep),
            "target": self.target,
            "probabilities": dict(self.probabilities),
            "expected_points": self.expected_points,
        }


@dataclass(frozen=True)
class Advice:
    """The advisor's answer: satisfied cards and the keeps, best first."""

    satisfied: tuple[str, ...]
    keeps: tuple[Keep, ...]
    villages_with: tuple[str, ...] = ()  # satisfied cards that would found a village (DK-10)

    def to_json(self) -> dict[str, Any]:
        """The contract's advice object."""
        return {"satisfied": list(self.satisfied), "keeps": [k.to_json() for k in self.keeps]}


def _sub_multisets(dice: Sequence[str]) -> list[tuple[str, ...]]:
    counts = sorted(Counter(dice).items())
    keeps = []
    for choice in itertools.product(*(range(n + 1) for _, n in counts)):
        keeps.append(tuple(r for (r, _), n in zip(counts, choice, strict=True) for _ in range(n)))
    return keeps


def advise(request: AdviceRequest) -> Advice:
    """Exact keep advice for `request` (see the module docstring for the order used)."""
    cards = request.cards()
    dice = request.dice
    satisfied = tuple(card.id for card in cards if is_met(card.requirement, dice))
    villages_with = tuple(c.id for c in cards if c.id in satisfied and request.village(c))
    values = [request.value(card) for card in cards]
    r = request.rolls_left
    keeps = [tuple(dice)] if r == 0 else _sub_multisets(dice)

    # chance of every card for every keep: a table lookup per (keep, card)
    chances = np.zeros((len(keeps), len(cards)))
    for j, card in enumerate(cards):
        if r == 0:
            chances[0, j] = float(card.id in satisfied)
            continue
        tables = _tables(card.requirement)
        tables.extend_to(r)
        q = tables.keep[r]
        index = tables.space.index
        chances[:, j] = [q[index[project(card.requirement, keep)]] for keep in keeps]
    worth = chances * np.asarray(values, dtype=float)

    def key(i: int) -> tuple[float, ...]:
        row = worth[i]
        return (
            round(float(row.max(initial=0.0)), 12),
            round(float(row.sum()), 12),
            round(float(chances[i].max(initial=0.0)), 12),
            float(len(keeps[i])),
        )

    keys = [key(i) for i in range(len(keeps))]

    def overall(i: int) -> tuple[float, ...]:
        return keys[i]

    chosen = {max(range(len(keeps)), key=overall)}
    for j in range(len(cards)):

        def for_card(i: int, j: int = j) -> tuple[float, tuple[float, ...]]:
            return (float(chances[i, j]), keys[i])

        chosen.add(max(range(len(keeps)), key=for_card))
    ordered = sorted(chosen, key=overall, reverse=True)

    answer = []
    for i in ordered:
        if cards:

            def pays(j: int, i: int = i) -> tuple[float, float]:
                return (float(worth[i, j]), float(chances[i, j]))

            target = cards[max(range(len(cards)), key=pays)].id
        else:
            target = ""
        answer.append(
            Keep(
                keep=keeps[i],
                target=target,
                probabilities={card.id: float(chances[i, j]) for j, card in enumerate(cards)},
                expected_points=float(worth[i].max(initial=0.0)),
                sort_key=keys[i],
            )
        )
    return Advice(satisfied, tuple(answer), villages_with)


def request_from_json(data: Any) -> AdviceRequest:
    """Parse the contract's advice state: ``{"deck", "row", "dice", "rolls_left"}``.

    Optional extensions: ``"villages": {"city": 3, …}`` (the top village value of each stack, 0 or
    null when empty) and ``"fairies": n`` (fairies the roller owns).

    Raises:
        MalformedError: a missing or bad field; the message names it.
    """
    if not isinstance(data, Mapping):
        raise MalformedError("state must be a json object")
    for name in ("row", "dice", "rolls_left"):
        if name not in data:
            raise MalformedError(f"missing {name!r} in state")
    deck = load_deck(data.get("deck", "companion"), "deck")
    row_data = data["row"]
    if not isinstance(row_data, list) or not 1 <= len(row_data) <= len(LOCATIONS):
        raise MalformedError(f"row must list 1-5 card ids, got {row_data!r}")
    row: list[str | None] = []
    for i, card_id in enumerate(row_data):
        if card_id is None:
            row.append(None)
            continue
        deck.card(card_id, f"row[{i}]")
        if card_id in row:
            raise MalformedError(f"card {card_id!r} appears twice in row")
        row.append(card_id)
    dice = parse_dice(data["dice"], "dice")
    rolls_left = data["rolls_left"]
    if isinstance(rolls_left, bool) or not isinstance(rolls_left, int):
        raise MalformedError(f"rolls_left must be an integer, got {rolls_left!r}")
    if not 0 <= rolls_left <= MAX_ROLLS_LEFT:
        raise MalformedError(f"rolls_left must be 0-{MAX_ROLLS_LEFT}, got {rolls_left}")
    villages = [2] * len(LOCATIONS)
    if "villages" in data:
        given = data["villages"]
        if not isinstance(given, Mapping):
            raise MalformedError(f"villages must be an object like {{'city': 3}}, got {given!r}")
        for name, value in given.items():
            if name not in {loc.value for loc in LOCATIONS}:
                raise MalformedError(f"unknown location {name!r} in villages")
            if value is None:
                value = 0
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise MalformedError(f"villages.{name} must be a village value, got {value!r}")
            villages[LOCATIONS.index(Location(name))] = value
    fairies = data.get("fairies", 0)
    if isinstance(fairies, bool) or not isinstance(fairies, int) or fairies < 0:
        raise MalformedError(f"fairies must be a count, got {fairies!r}")
    return AdviceRequest(deck, tuple(row), dice, rolls_left, tuple(villages), fairies)


def advice_to_text(request: AdviceRequest, advice: Advice, *, limit: int = 8) -> list[str]:
    """Readable lines: the dice, what they meet now, then the keeps best first."""
    cards = {card.id: card for card in request.cards()}
    lines = [f"dice: {' '.join(request.dice)}   rolls left: {request.rolls_left}"]
    if advice.satisfied:
        met = []
        for card_id in advice.satisfied:
            village = " + village" if card_id in advice.villages_with else ""
            met.append(f"{card_id} ({cards[card_id].points} pts{village})")
        lines.append("meets now: " + ", ".join(met))
    else:
        lines.append("meets now: nothing (a penalty if these dice are final)")
    if request.rolls_left == 0:
        return lines
    lines.append("keeps, best first (chance of each card by the last roll):")
    for keep in advice.keeps[:limit]:
        kept = " ".join(keep.keep) if keep.keep else "nothing"
        if len(keep.keep) == DICE:
            kept = "all six (stop)"
        odds = ", ".join(f"{card_id} {p:.1%}" for card_id, p in keep.probabilities.items())
        lines.append(
            f"  keep {kept} -> {keep.target} (expected {keep.expected_points:.2f} pts)  [{odds}]"
        )
    if len(advice.keeps) > limit:
        lines.append(f"  … {len(advice.keeps) - limit} more with --json")
    return lines


def request_from_state(state: State) -> AdviceRequest:
    """The advice request for the roller of a game state whose six dice are on the table."""
    tops = tuple(
        next((v.points for v in stack if v.id == ids[0]), 0) if ids else 0
        for stack, ids in zip(villages(), state.villages, strict=True)
    )
    fairies = score_kingdom(state.deck, state.kingdoms[state.current]).fairies
    return AdviceRequest(
        state.deck, state.row, state.dice, min(state.rolls_left, MAX_ROLLS_LEFT), tops, fairies
    )


def advised_action(state: State) -> Action:
    """The advisor's own play for the player to act (used by the demo and the benchmarks).

    Rolling: follow the best keep; stop when it keeps all six dice or no roll is left, then take
    the satisfied card worth most (DK-9) or the penalty (DK-11). A dragon goes to the leading
    other player (DK-22).

    Raises:
        ValueError: the state is a chance node or over.
    """
    if state.phase is Phase.GIVE:
        others = [i for i in range(len(state.players)) if i != state.current]
        totals = scoring_scores(state)
        leader = max(others, key=lambda i: (totals[state.players[i]], -i))
        return Give(state.gifts[0], state.players[leader])
    if state.phase is not Phase.ROLL or state.to_roll:
        raise ValueError("the advisor plays only the roller's decisions")
    request = request_from_state(state)
    if state.rolls_left:
        best = advise(request).keeps[0]
        if len(best.keep) < DICE:
            return Reroll(best.keep)
    met = [c for c in request.cards() if is_met(c.requirement, state.dice)]
    if not met:
        return TakePenalty()
    return Take(max(met, key=lambda c: (request.value(c), c.points)).id)


__all__ = [
    "MAX_ROLLS_LEFT",
    "advised_action",
    "request_from_state",
    "Advice",
    "AdviceRequest",
    "Keep",
    "advice_to_text",
    "advise",
    "keep_probability",
    "request_from_json",
    "start_probability",
]
