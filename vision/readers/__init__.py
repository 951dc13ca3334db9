"""Game readers: one frame's `Detections` → an observation of one game, or the problems seen.

Owns the table zones (`zones`), the three game readers (`kings_breakfast`, `cafe_international`,
`dice_king`), reading the Café board's chairs and stools from the pixels once it is registered
(`cafe_slots`) and reading photos for scoring (`photos`). A reader never guesses: a piece it cannot
place or identify is a problem in the result, and an observation with problems is not used.

Public names: `Reading`, `card_centres`, `foreign_problem`, `spread_pieces`, `small_pieces`,
`SPREAD_SMALLEST`, and the modules above.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vision.detections import Detections
from vision.geometry import boxes_near, largest_share_covered


@dataclass(frozen=True)
class Reading:
    """What a reader made of one frame.

    Attributes:
        observation: the game's observation (an engine value), or None when it could not be built.
        problems: one-line, lower-case problems; when any, do not trust `observation`.
        seen: what was seen, as JSON (per zone, per chair…), for the user and for reports.
    """

    observation: Any
    problems: tuple[str, ...] = ()
    seen: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether the observation can be used (built, and no problem)."""
        return self.observation is not None and not self.problems


def card_centres(detections: Detections) -> np.ndarray:
    """(n, 2) centre of each detection: the mean of its corners, else of its box."""
    corners = detections.corners_px
    centres = corners.mean(axis=1) if len(detections) else np.zeros((0, 2), np.float32)
    boxes = detections.boxes_xyxy
    box_centres = np.column_stack(
        [(boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2]
    )
    missing = ~np.all(np.isfinite(centres), axis=1) if len(detections) else np.zeros(0, bool)
    centres = np.where(missing[:, None], box_centres, centres) if len(detections) else centres
    return centres


def connected_groups(linked: np.ndarray) -> np.ndarray:
    """Groups of a symmetric (n, n) relation taken in chains: each row's label is the least
    index of its group (label propagation)."""
    n = len(linked)
    group = np.arange(n)
    while True:
        joined = np.minimum(np.where(linked, group[None, :], n).min(axis=1), group)
        if np.array_equal(joined, group):
            return group
        group = joined


def spread_pieces(
    detections: Detections, kind: str, *, inside: float = 0.8
) -> tuple[Detections, int]:
    """The pieces a scoring photo of `kind` (``card`` or ``tile``) shows, and how many
    detections were set aside: dice, unidentified detections of `kind` far smaller than the
    named ones (`SET_ASIDE_AMONG`) or weak ones lying mostly within a named piece
    (`PART_INSIDE`), and unidentified detections of the other kind lying
    (`inside` of their box or more) within a piece of `kind` — a "tile" on a card's picture is
    the detector's mistake, not a piece. Anywhere else such a detection stays (and refuses the
    photo as unidentified): it may be a real piece of `kind` the detector took for the other
    kind, and setting it aside would silently drop it from the score. One of the other kind
    that was identified stays too, so that another game's piece is still reported."""
    is_kind = detections.kinds == kind
    other = np.array([k not in (kind, "die") for k in detections.kinds], bool)
    named = np.array([i is not None for i in detections.identities], bool)
    boxes = detections.boxes_xyxy.astype(np.float64)
    hosts = boxes[is_kind]
    within = np.zeros(len(detections), bool)
    for i in np.flatnonzero(other & ~named):
        within[i] = largest_share_covered(boxes[i], hosts) >= inside
    # weak unnamed boxes on part of a piece another box found whole and named (a spread piece
    # is at least half visible, so its own box lies at most about half within a neighbour's)
    parts = is_kind & ~named & (detections.scores < PART_BELOW_SCORE)
    named_hosts = boxes[is_kind & named]
    for i in np.flatnonzero(parts):
        parts[i] = largest_share_covered(boxes[i], named_hosts) >= PART_INSIDE
    small = _unnamed_small(detections, kind)
    keep = ~within & ~small & ~parts & (detections.kinds != "die")
    return detections[keep], int((within | small | parts).sum())


def _size_to_named(pieces: Detections, kind: str, among: int) -> np.ndarray | None:
    """(n,) each detection's box's longer side / the median of the named `kind` pieces', or
    None when fewer than `among` of them are named (nothing to compare with)."""
    named = np.array([i is not None for i in pieces.identities], bool) & (pieces.kinds == kind)
    if named.sum() < among:
        return None
    boxes = pieces.boxes_xyxy.astype(np.float64)
    sides = (boxes[:, 2:] - boxes[:, :2]).max(axis=1)
    return sides / float(np.median(sides[named]))


def _unnamed_small(detections: Detections, kind: str) -> np.ndarray:
    """(n,) bool: unnamed detections of `kind` smaller than `SPREAD_SMALLEST` × the median of
    the named ones (at least `SET_ASIDE_AMONG` named): no piece of a photo of spread pieces is
    that small (each is at least half visible), so such a box is a pattern of the table or a
    part of a piece found whole by another box."""
    size = _size_to_named(detections, kind, SET_ASIDE_AMONG)
    if size is None:
        return np.zeros(len(detections), bool)
    unnamed = np.array([i is None for i in detections.identities], bool)
    small = unnamed & (detections.kinds == kind) & (size < SPREAD_SMALLEST[kind])
    small &= ~_beside_named_pieces(detections, kind, small)
    return small & ~_parts_of_an_unnamed_piece(detections, kind, small)


def _beside_named_pieces(detections: Detections, kind: str, small: np.ndarray) -> np.ndarray:
    """(n,) bool: the `small` boxes lying beside a named piece (within `SPREAD_BESIDE` × the
    named pieces' median side) but not on one (less than `PART_INSIDE` within it): the visible
    part of a piece the detector boxed only partly, at the edge of the spread. On a validation
    Café hand (seed 8,000,396) a USA tile next to a named Turkey was boxed only as its flag's
    canton (0.54 of a tile), set aside, and the hand was scored without it. Specks of the
    table lie anywhere, seldom touching the spread."""
    named = np.array([i is not None for i in detections.identities], bool) & (
        detections.kinds == kind
    )
    if not small.any() or not named.any():
        return np.zeros(len(detections), bool)
    near = boxes_near(detections.boxes_xyxy, small, np.flatnonzero(named), SPREAD_BESIDE)
    hosts = detections.boxes_xyxy[named].astype(np.float64)
    for i in np.flatnonzero(near):
        near[i] = largest_share_covered(detections.boxes_xyxy[i], hosts) < PART_INSIDE
    return near


def _parts_of_an_unnamed_piece(detections: Detections, kind: str, small: np.ndarray) -> np.ndarray:
    """(n,) bool: the `small` boxes that, with the small boxes they overlap (in chains), span a
    piece: about a named piece's size (`SPREAD_SMALLEST`) outside every named piece. A piece the
    detector found only in parts is not set aside: on a validation Café hand (seed 8,000,362) a
    USA tile was boxed only as four overlapping parts, each too small, and the hand was scored
    without it. Parts lying mostly within a named piece belong to that piece. Every photo of
    validation tables (seeds 8,000,100+ and 8,000,200+, 100 tables a game, photo reader v7):
    unchanged but for one Café photo right → refused (269 / 30 / 0 → 268 / 31 / 0)."""
    parts = np.zeros(len(detections), bool)
    boxes = detections.boxes_xyxy.astype(np.float64)
    named = np.array([i is not None for i in detections.identities], bool) & (
        detections.kinds == kind
    )
    if not small.any() or not named.any():
        return parts
    piece_side = float(np.median((boxes[named, 2:] - boxes[named, :2]).max(axis=1)))
    hosts = boxes[named]
    loose = np.array(
        [i for i in np.flatnonzero(small) if largest_share_covered(boxes[i], hosts) < 0.5], int
    )
    if len(loose) < 2:
        return parts
    b = boxes[loose]
    overlap = (
        np.minimum(b[:, None, 2:], b[None, :, 2:]) > np.maximum(b[:, None, :2], b[None, :, :2])
    ).all(-1)
    # groups of parts that overlap one another, in chains
    group = connected_groups(overlap)
    for label in np.unique(group):
        rows = loose[group == label]
        union = np.concatenate([boxes[rows, :2].min(axis=0), boxes[rows, 2:].max(axis=0)])
        if len(rows) > 1 and (union[2:] - union[:2]).max() >= SPREAD_SMALLEST[kind] * piece_side:
            parts[rows] = True
    return parts


# A scoring photo is taken from above the spread pieces, all at about the same distance from
# the camera, so their boxes are about the same size: a named piece smaller than this × the
# photo's median named piece is taken for a pattern of the table, not a piece. Named pieces of
# validation photos (seeds 8,000,100+, detector v13), smallest box side / the photo's median:
# Café tiles, 418 right ones ≥ 0.84, 7 of 8 wrong ones 0.42-0.72; King's Breakfast cards, 1,843
# right ones ≥ 0.71, wrong ones 0.14 and 0.26 (and three larger: boxes astride two cards);
# Dice King cards, 507 right ones ≥ 0.63.
SPREAD_SMALLEST = {"tile": 0.75, "card": 0.5}
# An unnamed detection that small, among at least `SET_ASIDE_AMONG` named pieces, is set aside by
# `spread_pieces` rather than refusing the photo. Every photo of validation tables (seeds
# 8,000,100+), right / refused / wrong, without → with: King's Breakfast (30 tables) 91 / 59 / 0
# → 92 / 58 / 0; Café (40) 85 / 32 / 0 → 87 / 30 / 0; Dice King (60) 114 / 96 / 0 → 123 / 87 /
# 0, and 216 / 134 / 0 on 100 more tables. Two named pieces are enough to compare with (a Café
# hand of two tiles beside specks of the cloth); 3 -> 2, tables right / refused / wrong (every
# photo; with `SPREAD_BESIDE`): Café seeds 8,000,200+ (200 tables) 184 / 16 / 0 -> 190 / 10 / 0;
# seeds 8,000,040+ (100 tables a game) and Dice King and King's Breakfast 8,000,100+ unchanged.
SET_ASIDE_AMONG = 2
# ... but not one lying beside a named piece, within this × the named pieces' median side
# (`_beside_named_pieces`). Small unnamed boxes of validation photos (seeds 8,000,100+, 100
# tables a game, and 8,000,200+, 200 Café and 100 Dice King tables; 74 boxes): the one part of a
# piece no other box found lay 0.02 from a named tile; one speck lay 0.06 from a named card
# (its photo is now asked again), every other one 0.23 or more from every named piece.
SPREAD_BESIDE = 0.1
# A weak unnamed box lying this much within a named piece's box is a part of that piece, set
# aside by `spread_pieces`. Unnamed boxes left on every photo of 60
# validation tables a game (seeds 8,000,100+, 44 boxes): boxes on part of a piece named by
# another box lay 0.37-1.0 within it (8 of them, 0.45 or more: 5, all found under 0.3); true
# pieces left unnamed lay at most 0.33 within a named one, and none of them was found under 0.4.
# 0.7 since 2026-12-07 (0.45 before): a box lying 0.56 within a named Café tile and the rest on
# the tile below it, which no other box had found, was set aside as the first tile's part and
# the hand scored a tile short (an eval-benchmark photo at 1280 x 720, seed 9,000,033); a part
# lying a third outside its piece may lie on the next one. On every photo of 60 validation
# tables a game at 800 x 600 (seeds 8,000,100+) and at 1280 x 720 (8,000,200+), no weak
# unnamed box lay 0.45 or more within a named piece (3 lay 0.32-0.44, on named pieces only).
PART_INSIDE = 0.7
PART_BELOW_SCORE = 0.4


def small_pieces(pieces: Detections, kind: str) -> np.ndarray:
    """(n,) bool: the named `pieces` of `kind` whose box's longer side is less than
    `SPREAD_SMALLEST` × the median of the named ones' (`pieces` of one spread photo; with
    fewer than two named, none)."""
    size = _size_to_named(pieces, kind, 2)
    if size is None:
        return np.zeros(len(pieces), bool)
    named = np.array([i is not None for i in pieces.identities], bool)
    return named & (pieces.kinds == kind) & (size < SPREAD_SMALLEST[kind])


def foreign_problem(identity: str, game: str) -> str:
    """The problem line for a piece of another game."""
    return f"a {identity.partition('/')[0]} piece ({identity}) is not a {game} piece"


def spread_place(boxes: np.ndarray, index: int) -> str:
    """Where piece `index` of a spread (`boxes`, (n, 4) xyxy) lies, in words a player finds it
    by: "top left", "bottom", "middle", … of the spread, by thirds of its pieces' centres; a
    direction the spread hardly extends in (one row) has no top or bottom. "" for one piece."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if len(boxes) < 2 or not 0 <= index < len(boxes):
        return ""
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    low, high = centres.min(axis=0), centres.max(axis=0)
    typical = np.median(boxes[:, 2:] - boxes[:, :2], axis=0)
    words = []
    for axis, names in ((1, ("top", "", "bottom")), (0, ("left", "", "right"))):
        extent = high[axis] - low[axis]
        if extent > 0.5 * typical[axis]:
            third = min(2, int(3 * (centres[index, axis] - low[axis]) / extent))
            words.append(names[third])
    return " ".join(word for word in words if word) or "middle"


def unidentified_problem(what: str, piece: str, boxes: np.ndarray, index: int) -> str:
    """The problem of a spread's piece `index` that could not be identified, saying where it
    lies (`spread_place`) so that a player can find it: "a card in the photo could not be
    identified (top left of the spread)"."""
    place = spread_place(boxes, index)
    where = f" ({place} of the spread)" if place else ""
    return f"a {piece} in the {what} could not be identified{where}"


__all__ = [
    "SPREAD_SMALLEST",
    "Reading",
    "card_centres",
    "connected_groups",
    "foreign_problem",
    "small_pieces",
    "spread_pieces",
    "spread_place",
    "unidentified_problem",
]
