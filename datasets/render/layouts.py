"""How pieces lie in real play, per game, as plain `PlacedPiece` lists (table millimetres).

Built from the blocks in `arrangements` (`piece`, `pile`, `row`, `fan`, `cascade`,
`dice_cluster`); `sample_table` composes random scenes: one game or a mix of all three with
generic dice, foreign cards and tiles, and everyday distractors.
"""

from __future__ import annotations

import functools
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from datasets.render import _art
from datasets.render.arrangements import (
    Group,
    cascade,
    dice_cluster,
    fan,
    piece,
    pile,
    row,
)
from datasets.render.distractors import sample_distractor, tray_floor_height
from datasets.render.pieces import Distractor, PlacedPiece, TableScene

BOARD_MM_PER_UNIT = 0.75
BOARD_PX_PER_UNIT = 1.0

FOREIGN_CARD_SIZES_MM = ((63, 88), (57, 89), (70, 120), (44, 68), (59, 92), (80, 80))
FOREIGN_TILE_SIZES_MM = ((20, 20), (25, 25), (30, 30), (22, 30), (19, 26))


# --- King's Breakfast
def _kb_identities() -> list[str]:
    return [i for i in _art.identities("kings-breakfast") if not i.endswith("/emerald")]


def kings_breakfast_groups(rng: np.random.Generator) -> list[Group]:
    """The offer row, the king's area (columns by food), a face-down deck, players' spread cards."""
    foods = _kb_identities()
    groups: list[Group] = []

    def card(identity: str, face_up: bool = True) -> PlacedPiece:
        return piece(identity, (0, 0), 0, face_up=face_up)

    n_offer = int(rng.integers(2, 7))
    offer = [card(foods[int(rng.integers(len(foods)))]) for _ in range(n_offer)]
    groups.append(
        Group("offer", tuple(row(rng, offer, gap=float(rng.uniform(2, 15)))), n_offer * 35.0)
    )
    king: list[PlacedPiece] = []
    columns = int(rng.integers(1, 5))
    for c in range(columns):
        food = foods[int(rng.integers(len(foods)))]
        king += cascade(
            rng,
            [card(food) for _ in range(int(rng.integers(1, 5)))],
            step=float(rng.uniform(14, 28)),
            centre=(c * 66.0, 0),
        )
    if rng.random() < 0.5:
        king.append(piece("kings-breakfast/emerald", (-75.0, -20.0), float(rng.normal(0, 5))))
    groups.append(Group("king", tuple(king), 60.0 + columns * 35.0))
    deck = [
        card(foods[int(rng.integers(len(foods)))], face_up=False)
        for _ in range(int(rng.integers(3, 30)))
    ]
    groups.append(Group("deck", tuple(pile(rng, deck)), 60.0))
    for _player in range(int(rng.integers(0, 3))):
        hand = [card(foods[int(rng.integers(len(foods)))]) for _ in range(int(rng.integers(2, 7)))]
        spread = (
            fan(rng, hand, spread_deg=float(rng.uniform(25, 70)))
            if rng.random() < 0.5
            else cascade(rng, hand, step=float(rng.uniform(12, 22)))
        )
        groups.append(Group("player", tuple(spread), 90.0))
    return groups


# --- Café International
@functools.lru_cache(maxsize=1)
def reference_layout() -> dict[str, Any]:
    """The Café board layout to draw (the art's default: the reference layout when it exists)."""
    source = getattr(_art._source, "default_layout", None)
    if callable(source):
        return source()
    path = (
        Path(__file__).resolve().parents[2]
        / "engines/cafe_international/data/reference_layout.json"
    )
    return json.loads(path.read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=2)
def board_art(name: str = "reference") -> Any:
    """The drawn board (cached per process)."""
    return _art.board(reference_layout(), BOARD_PX_PER_UNIT)


def board_size_mm() -> tuple[float, float]:
    """Physical size of the drawn board (mm)."""
    h, w = board_art().image.shape[:2]
    s = BOARD_MM_PER_UNIT / BOARD_PX_PER_UNIT
    return (w * s, h * s)


def board_unit_to_local_mm(points_units: np.ndarray) -> np.ndarray:
    """Board units → board-local mm (centre at 0, +y towards the printed top)."""
    art = board_art()
    h, w = art.image.shape[:2]
    pts = np.asarray(points_units, np.float64).reshape(-1, 2)
    px = np.hstack([pts, np.ones((len(pts), 1))]) @ np.asarray(art.unit_to_px).T
    s = BOARD_MM_PER_UNIT / BOARD_PX_PER_UNIT
    return np.column_stack([(px[:, 0] - w / 2) * s, (h / 2 - px[:, 1]) * s])


def _tile_ids() -> list[str]:
    return list(_art.identities("cafe-international"))


def board_piece(layout: dict[str, Any]) -> PlacedPiece:
    """The Café board lying flat, centred at the table's origin."""
    bw, bh = board_size_mm()
    return PlacedPiece(
        "board",
        None,
        (0.0, 0.0),
        0.0,
        (bw, bh),
        0.0,
        1.5,
        True,
        "cafe-international",
        layout=layout,
        group="board",
    )


def cafe_groups(rng: np.random.Generator) -> list[Group]:
    """The board with seated guests and the bar, tiles in players' hands, a face-down supply."""
    layout = reference_layout()
    tiles = _tile_ids()
    bw, bh = board_size_mm()
    board = board_piece(layout)
    seated: list[PlacedPiece] = [board]
    chairs = np.array([c["center"] for c in layout["chairs"]], np.float64)
    chair_mm = board_unit_to_local_mm(chairs)
    fill = rng.uniform(0.15, 0.8)
    for x, y in chair_mm:
        if rng.random() < fill:
            ident = tiles[int(rng.integers(len(tiles)))]
            seated.append(
                piece(
                    ident,
                    (float(x + rng.normal(0, 1.2)), float(y + rng.normal(0, 1.2))),
                    float(rng.normal(0, 6) + 90 * rng.integers(0, 4) * (rng.random() < 0.1)),
                    z=board.thickness_mm,
                    group="seated",
                )
            )
    stools = np.array(layout.get("bar", {}).get("stools", []), np.float64)
    if len(stools):
        stool_mm = board_unit_to_local_mm(stools)
        for x, y in stool_mm[: int(rng.integers(0, len(stools) + 1))]:
            seated.append(
                piece(
                    tiles[int(rng.integers(len(tiles)))],
                    (float(x), float(y)),
                    float(rng.normal(0, 8)),
                    z=board.thickness_mm,
                    group="bar",
                )
            )
    groups = [Group("board", tuple(seated), 0.5 * math.hypot(bw, bh))]
    for _player in range(int(rng.integers(1, 3))):
        hand = [
            piece(tiles[int(rng.integers(len(tiles)))], (0, 0), 0)
            for _ in range(int(rng.integers(2, 6)))
        ]
        groups.append(Group("hand", tuple(row(rng, hand, gap=float(rng.uniform(1, 8)))), 70.0))
    supply = [
        piece(tiles[int(rng.integers(len(tiles)))], (0, 0), 0, face_up=False)
        for _ in range(int(rng.integers(2, 12)))
    ]
    scattered = []
    for p in supply:
        if rng.random() < 0.5:
            scattered.append(
                p.moved(
                    float(rng.normal(0, 35)), float(rng.normal(0, 35)), float(rng.uniform(0, 360))
                )
            )
    stack = pile(rng, [p for p in supply if p not in scattered] or supply[:1], messiness=1.5)
    groups.append(Group("supply", tuple(scattered + stack), 80.0))
    return groups


# --- Dice King
def _dk_cards() -> tuple[list[str], list[str], list[str]]:
    ids = list(_art.identities("dice-king"))
    villages = [i for i in ids if "village" in i]
    penalties = [i for i in ids if "penalty" in i]
    inhabitants = [i for i in ids if i not in villages and i not in penalties]
    return inhabitants, villages, penalties


def dice_king_groups(rng: np.random.Generator) -> list[Group]:
    """Five inhabitants in a row under their village stacks, kingdoms, the deck, the six dice."""
    inhabitants, villages, penalties = _dk_cards()
    groups: list[Group] = []
    row_cards = [
        piece(inhabitants[int(rng.integers(len(inhabitants)))], (0, 0), 0) for _ in range(5)
    ]
    laid = row(rng, row_cards, gap=float(rng.uniform(4, 12)))
    stacks: list[PlacedPiece] = []
    if villages:
        for card in laid:
            n = int(rng.integers(1, 4))
            template = [
                piece(villages[int(rng.integers(len(villages)))], (0, 0), 0) for _ in range(n)
            ]
            stack = pile(rng, template, messiness=2.0)
            stacks += [p.moved(card.centre_mm[0], card.centre_mm[1] + 100.0) for p in stack]
    groups.append(Group("row", tuple(laid + stacks), 200.0))
    for _player in range(int(rng.integers(0, 3))):
        won = [
            piece(inhabitants[int(rng.integers(len(inhabitants)))], (0, 0), 0)
            for _ in range(int(rng.integers(1, 5)))
        ]
        if penalties and rng.random() < 0.4:
            won.append(piece(penalties[int(rng.integers(len(penalties)))], (0, 0), 0))
        groups.append(
            Group("kingdom", tuple(cascade(rng, won, step=float(rng.uniform(15, 25)))), 90.0)
        )
    deck = [
        piece(inhabitants[int(rng.integers(len(inhabitants)))], (0, 0), 0, face_up=False)
        for _ in range(int(rng.integers(4, 25)))
    ]
    groups.append(Group("deck", tuple(pile(rng, deck)), 60.0))
    styles = [_art.dice_king_style(i) for i in range(6)]
    keep = int(rng.integers(0, 4))
    dice = dice_cluster(
        rng,
        styles[keep:],
        spread=float(rng.uniform(0.6, 1.6)),
        size_mm=16.0,
        group="dice-king-dice",
    )
    kept = dice_cluster(rng, styles[:keep], spread=0.3, size_mm=16.0, group="dice-king-kept")
    groups.append(Group("dice", tuple(dice), 70.0))
    if kept:
        groups.append(Group("kept", tuple(kept), 35.0))
    return groups


# --- generic and foreign
def generic_dice_groups(rng: np.random.Generator, split: str) -> list[Group]:
    """Generic dice: a loose cluster, sometimes inside a dice tray."""
    n = int(rng.integers(1, 9))
    uniform_set = rng.random() < 0.5  # a set of identical dice, or a mixed handful
    bank = _art.style_bank(split)
    base = bank[int(rng.integers(len(bank)))]
    styles = [base if uniform_set else bank[int(rng.integers(len(bank)))] for _ in range(n)]
    edge: float | tuple[float, float] = float(rng.uniform(12, 20)) if uniform_set else (12.0, 20.0)
    if rng.random() < 0.3:
        tray = sample_distractor(rng, "tray", (0.0, 0.0), yaw=float(rng.uniform(0, 360)))
        w, h = tray.params["size"]
        inner = min(w, h) / 2 - tray.params["wall"] - 15
        dice = dice_cluster(
            rng,
            styles,
            spread=min(1.0, inner / 60),
            size_mm=edge,
            z=tray_floor_height(tray),
            group="tray-dice",
        )
        return [Group("tray", tuple(dice), 0.5 * math.hypot(w, h), (tray,))]
    return [
        Group(
            "dice",
            tuple(dice_cluster(rng, styles, spread=float(rng.uniform(0.5, 1.8)), size_mm=edge)),
            80.0,
        )
    ]


def foreign_groups(rng: np.random.Generator) -> list[Group]:
    """Cards and tiles of other games: piles, fans, rows, loose tiles."""
    groups: list[Group] = []
    for _ in range(int(rng.integers(1, 3))):
        if rng.random() < 0.65:
            size = FOREIGN_CARD_SIZES_MM[int(rng.integers(len(FOREIGN_CARD_SIZES_MM)))]
            kind = "card"
        else:
            size = FOREIGN_TILE_SIZES_MM[int(rng.integers(len(FOREIGN_TILE_SIZES_MM)))]
            kind = "tile"
        deck_seed = int(rng.integers(1 << 20))
        n = int(rng.integers(1, 7))
        template = [
            piece(
                None,
                (0, 0),
                0,
                kind=kind,
                size=(float(size[0]), float(size[1])),
                art_seed=deck_seed * 64 + int(rng.integers(0, 64)),
                face_up=bool(rng.random() < 0.85),
            )
            for _ in range(n)
        ]
        how = rng.random()
        if how < 0.3:
            laid = row(rng, template, gap=float(rng.uniform(1, 12)))
        elif how < 0.55 and kind == "card":
            laid = fan(rng, template, spread_deg=float(rng.uniform(20, 70)))
        elif how < 0.75:
            laid = cascade(rng, template, step=float(rng.uniform(10, 30)))
        else:
            laid = [
                p.moved(
                    float(rng.normal(0, 40)), float(rng.normal(0, 40)), float(rng.uniform(0, 360))
                )
                for p in template
            ]
        groups.append(Group(f"foreign-{kind}", tuple(laid), max(size) * (1 + 0.4 * n)))
    return groups


def distractor_groups(rng: np.random.Generator) -> list[Group]:
    """Everyday things lying about: coins, pens, a score pad, a cup, a cable, a book or laptop,
    die-sized cubes without pips (sugar, erasers: what a detector must not take for dice)."""
    groups = []
    for kind, probability in (
        ("coin", 0.35),
        ("pen", 0.35),
        ("pad", 0.3),
        ("cup", 0.25),
        ("cable", 0.25),
        ("book", 0.15),
        ("cube", 0.15),
    ):
        if rng.random() < probability:
            count = int(rng.integers(1, 5)) if kind in ("coin", "cube") else 1
            items = tuple(
                sample_distractor(rng, kind, (float(rng.normal(0, 25)), float(rng.normal(0, 25))))
                for _ in range(count)
            )
            radius = {
                "coin": 40.0,
                "pen": 75.0,
                "pad": 80.0,
                "cup": 50.0,
                "cable": 10.0,
                "book": 170.0,
                "cube": 40.0,
            }[kind]
            groups.append(Group(kind, (), radius, items))
    return groups


# --- composing a table
GAME_GROUPS = {
    "kings-breakfast": kings_breakfast_groups,
    "cafe-international": cafe_groups,
    "dice-king": dice_king_groups,
}


def place_groups(rng: np.random.Generator, groups: list[Group]) -> tuple[list[Group], list]:
    """Scatter groups on the table without much overlap; return them moved plus their discs."""
    placed: list[tuple[float, float, float]] = []
    moved: list[Group] = []
    for g in sorted(groups, key=lambda g: -g.radius):
        for attempt in range(40):
            reach = 40.0 + 35.0 * attempt
            x, y = (0.0, 0.0) if not placed else tuple(rng.normal(0, reach, 2))
            if all(math.hypot(x - a, y - b) > (g.radius + r) * 0.85 for a, b, r in placed):
                break
        yaw = float(rng.uniform(0, 360)) if g.name != "board" else float(rng.normal(0, 20))
        pieces = tuple(p.moved(float(x), float(y), yaw) for p in g.pieces)
        distractors = tuple(_move_distractor(d, float(x), float(y), yaw) for d in g.distractors)
        placed.append((float(x), float(y), g.radius))
        moved.append(Group(g.name, pieces, g.radius, distractors))
    return moved, placed


def _move_distractor(d: Distractor, dx: float, dy: float, yaw: float) -> Distractor:
    a = math.radians(yaw)
    c, s = math.cos(a), math.sin(a)

    def turn(p: list[float]) -> list[float]:
        return [c * p[0] - s * p[1] + dx, s * p[0] + c * p[1] + dy]

    params = dict(d.params)
    for key in ("centre", "target"):
        if key in params:
            params[key] = turn(params[key])
    if "points" in params:
        params["points"] = [turn(p) for p in params["points"]]
    if "yaw" in params:
        params["yaw"] = params["yaw"] + yaw
    return Distractor(d.kind, params, d.z_mm)


def sample_table(rng: np.random.Generator, game: str | None, split: str) -> TableScene:
    """A random table: `game`'s pieces in play (None: a mix of all three), with extras.

    Raises:
        ValueError: unknown game.
    """
    if game is not None and game not in GAME_GROUPS:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(GAME_GROUPS)})")
    groups: list[Group] = []
    if game is None:
        games = list(GAME_GROUPS)
        chosen = [g for g in games if rng.random() < 0.45] or [games[int(rng.integers(3))]]
        for g in chosen:
            game_groups = GAME_GROUPS[g](rng)
            keep = [grp for grp in game_groups if rng.random() < 0.7] or game_groups[:1]
            groups += keep
        if rng.random() < 0.8:
            groups += generic_dice_groups(rng, split)
        if rng.random() < 0.7:
            groups += foreign_groups(rng)
    else:
        groups += GAME_GROUPS[game](rng)
    groups += distractor_groups(rng)
    moved, discs = place_groups(rng, groups)
    pieces: list[PlacedPiece] = []
    distractors: list[Distractor] = []
    for group in moved:
        pieces += group.pieces
        distractors += group.distractors
    # hands reach for a random piece
    for _ in range(int(rng.choice([0, 0, 0, 0, 1, 1, 2]))):
        if pieces:
            target = pieces[int(rng.integers(len(pieces)))]
            distractors.append(sample_distractor(rng, "hand", target.centre_mm))
    # camera aims: groups of pieces; dice groups count three times, since reading a die needs a
    # closer look than finding a card
    aims = []
    for disc, group in zip(discs, moved, strict=True):
        if group.pieces:
            aims += [disc] * (3 if any(p.kind == "die" for p in group.pieces) else 1)
    focus = focus_areas(aims or discs)
    return TableScene(tuple(pieces), tuple(distractors), focus, game)


def focus_areas(discs: list[tuple[float, float, float]]) -> tuple[tuple[float, float, float], ...]:
    """Camera aims for a table: the disc around all of `discs` first, then each disc itself
    (`TableScene.focus`; the scene sampler frames the first or one of the others)."""
    arr = np.array(discs, np.float64)
    lo = (arr[:, :2] - arr[:, 2:3]).min(axis=0)
    hi = (arr[:, :2] + arr[:, 2:3]).max(axis=0)
    centre = (lo + hi) / 2
    whole = (float(centre[0]), float(centre[1]), float(np.linalg.norm(hi - lo) / 2))
    return (whole, *[(float(x), float(y), float(r)) for x, y, r in discs])
