"""Draw a given game state: the pieces of a true position laid out on a table, then rendered.

`place_state(game, state, rng)` lays the pieces of an engine state out as the players would at
a table seen by a tablet standing at the table's edge (the camera of `table_camera`);
`place_spread(game, ids, rng)` lays a pile of pieces spread out for a photo (a player's hand or
kingdom, the king's area). `render_state(game, state, seed)` renders the table with the scene
renderer's public `render_pieces` and returns ``(image, truth)``; `render_spread` does the same
for a spread. `project_pieces` is the cheap counterpart: the truth records of a layout projected
through the camera without drawing pixels (pieces marked hidden, covered by a stack or under a
hand, are left out), for long frame sequences. `detections_from_truth` turns truth records into
`vision.detections.Detections`, so readers and the tracker can be tested without the detector.

Table frame: millimetres, the camera at the near edge (negative y) looking towards +y; a piece
with yaw 0 shows its printed top away from the camera.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from datasets.render import _art
from datasets.render.camera import Camera, look_at_table
from datasets.render.dice import possible_fronts
from datasets.render.effects import sample_effects
from datasets.render.layouts import (
    board_piece,
    board_size_mm,
    board_unit_to_local_mm,
    piece,
    reference_layout,
)
from datasets.render.lighting import sample_light
from datasets.render.pieces import Distractor, PlacedPiece
from datasets.render.scene import Environment, render_pieces
from datasets.render.textures import sample_surface
from vision.detections import Detections

GAMES = ("kings-breakfast", "cafe-international", "dice-king")
HIDDEN = ":hidden"  # a group suffix: the piece lies under others (not a detection target)
SIZE = (800, 600)


@dataclass(frozen=True)
class TableCamera:
    """The tablet at the table's edge: where it looks and how (see `look_at_table`)."""

    target_mm: tuple[float, float] = (0.0, 250.0)
    distance_mm: float = 1100.0
    tilt_deg: float = 45.0
    hfov_deg: float = 68.0


TABLE_CAMERAS: dict[str, TableCamera] = {
    "kings-breakfast": TableCamera(),
    "cafe-international": TableCamera(target_mm=(0.0, 60.0), distance_mm=1000.0, tilt_deg=30.0),
    "dice-king": TableCamera(target_mm=(0.0, 0.0), distance_mm=1000.0, tilt_deg=35.0),
}


def table_camera(
    game: str, size: tuple[int, int] = SIZE, rng: np.random.Generator | None = None
) -> Camera:
    """The default tablet camera of `game`; with `rng`, placed a little differently (mm, < 1°)."""
    pose = TABLE_CAMERAS[game]
    jitter = rng.normal(0.0, 1.0, 5) if rng is not None else np.zeros(5)
    return look_at_table(
        size[0],
        size[1],
        target_mm=(pose.target_mm[0] + 6 * jitter[0], pose.target_mm[1] + 6 * jitter[1]),
        distance_mm=pose.distance_mm * (1 + 0.01 * jitter[2]),
        tilt_deg=pose.tilt_deg + 0.7 * jitter[3],
        azimuth_deg=90.0 + 0.7 * jitter[4],
        roll_deg=0.0,
        hfov_deg=pose.hfov_deg,
    )


# --- layouts --------------------------------------------------------------------------------------


def _jitter(
    rng: np.random.Generator, p: PlacedPiece, mm: float = 1.5, deg: float = 2.5
) -> PlacedPiece:
    dx, dy = rng.normal(0.0, mm, 2)
    return replace(
        p,
        centre_mm=(p.centre_mm[0] + float(dx), p.centre_mm[1] + float(dy)),
        yaw_deg=p.yaw_deg + float(rng.normal(0.0, deg)),
    )


def _column(
    rng: np.random.Generator,
    identities: Sequence[str],
    x: float,
    y: float,
    *,
    step: float = 40.0,
    group: str = "",
    face_up: bool = True,
) -> list[PlacedPiece]:
    """Cards overlapping in a column going away from the camera (each later one on top)."""
    out = []
    for i, identity in enumerate(identities):
        p = piece(identity, (x, y + i * step), 0.0, z=i * 0.33, face_up=face_up, group=group)
        out.append(_jitter(rng, p))
    return out


def _stack(
    rng: np.random.Generator,
    identities: Sequence[str],
    x: float,
    y: float,
    *,
    group: str,
    face_up: bool = True,
) -> list[PlacedPiece]:
    """A neat stack, first id at the bottom; every card but the top is marked hidden."""
    out = []
    for i, identity in enumerate(identities):
        top = i == len(identities) - 1
        p = piece(
            identity,
            (x, y),
            0.0,
            z=i * 0.33,
            face_up=face_up,
            group=group if top else group + HIDDEN,
        )
        out.append(_jitter(rng, p, mm=0.6, deg=1.2))
    return out


def _kb_table(state: Any, rng: np.random.Generator) -> list[PlacedPiece]:
    from engines.kings_breakfast.catalogue import FOODS
    from engines.kings_breakfast.state import Phase

    pieces: list[PlacedPiece] = []
    # the deck, face down, away from every zone
    deck = ["kings-breakfast/cheese"] * min(6, sum(state.deck))
    pieces += _stack(rng, deck, -480.0, 700.0, group="deck", face_up=False)
    # the king's area: one column per food, going away from the camera
    foods = [(food, n) for food, n in zip(FOODS, state.king, strict=True) if n]
    for k, (food, n) in enumerate(foods):
        pieces += _column(rng, [f"kings-breakfast/{food}"] * n, (k - 3) * 80.0, 340.0, group="king")
    # the offer: one pile per food
    piles = [(food, n) for food, n in zip(FOODS, state.offer, strict=True) if n]
    for k, (food, n) in enumerate(piles):
        pieces += _column(
            rng, [f"kings-breakfast/{food}"] * n, (k - 3) * 80.0, -130.0, group="offer"
        )
    # Emeralds on the table, and one just drawn in the reveal area
    pieces += _column(
        rng, ["kings-breakfast/emerald"] * state.emeralds_on_table, 470.0, -130.0, group="emeralds"
    )
    if state.phase == Phase.EMERALD:
        pieces += _column(rng, ["kings-breakfast/emerald"], -470.0, -130.0, group="reveal")
    return pieces


def cafe_side_origin(side: str) -> tuple[float, float, float]:
    """Where a player's face-up hand lies (table mm) and its yaw, for a board at the origin."""
    bw, bh = board_size_mm()
    return {
        "near": (0.0, -bh / 2 - 45.0, 0.0),
        "far": (0.0, bh / 2 + 45.0, 180.0),
        "left": (-bw / 2 - 45.0, 0.0, -90.0),
        "right": (bw / 2 + 45.0, 0.0, 90.0),
    }[side]


CAFE_SIDES: dict[int, tuple[str, ...]] = {
    2: ("near", "far"),
    3: ("near", "left", "far"),
    4: ("near", "left", "far", "right"),
}


def _cafe_table(state: Any, rng: np.random.Generator) -> list[PlacedPiece]:
    from engines.cafe_international.catalogue import hand_tile

    layout = reference_layout()
    pieces = [board_piece(layout)]
    chairs = board_unit_to_local_mm(np.array([c["center"] for c in layout["chairs"]], float))
    for (x, y), guest in zip(chairs, state.seated, strict=True):
        if guest is not None:
            p = piece(
                f"cafe-international/{hand_tile(guest)}",
                (float(x), float(y)),
                0.0,
                z=1.5,
                group="seated",
            )
            pieces.append(_jitter(rng, p, mm=1.0, deg=4.0))
    stools = board_unit_to_local_mm(np.array(layout["bar"]["stools"], float))
    for (x, y), tile in zip(stools, state.bar, strict=False):
        p = piece(f"cafe-international/{tile}", (float(x), float(y)), 0.0, z=1.5, group="bar")
        pieces.append(_jitter(rng, p, mm=1.0, deg=4.0))
    sides = CAFE_SIDES[len(state.players)]
    for side, hand in zip(sides, state.hands, strict=True):
        cx, cy, yaw = cafe_side_origin(side)
        for i, tile in enumerate(hand):
            offset = (i - (len(hand) - 1) / 2) * 32.0
            a = math.radians(yaw)
            x, y = cx + offset * math.cos(a), cy + offset * math.sin(a)
            p = piece(f"cafe-international/{tile}", (x, y), yaw, group=f"hand:{side}")
            pieces.append(_jitter(rng, p))
    return pieces


DK_ROW_X = tuple((k - 2) * 78.0 for k in range(5))


def _dk_dice(
    rng: np.random.Generator, readings: Sequence[str], centre: tuple[float, float]
) -> list[PlacedPiece]:
    """The dice showing `readings` in a loose cluster (a die whose face lacks the colour is
    repainted on that face, so any reading can be drawn)."""
    out: list[PlacedPiece] = []
    placed: list[tuple[float, float]] = []
    for k, reading in enumerate(readings):
        value, colour = int(reading[:-1]), reading[-1]
        style = _art.dice_king_style(k % 6)
        colours = list(getattr(style, "face_colours", None) or ["r"] * 6)
        if colours[value - 1] != colour:
            from datasets.art.palette import DIE_COLOURS

            colours[value - 1] = colour
            pips = list(style.face_pip_bgr or [style.pip_bgr] * 6)
            pips[value - 1] = DIE_COLOURS[colour]
            style = replace(style, face_colours=tuple(colours), face_pip_bgr=tuple(pips))
        for _ in range(60):
            x = centre[0] + float(rng.uniform(-90, 90))
            y = centre[1] + float(rng.uniform(-35, 35))
            if all(math.hypot(x - a, y - b) > 26.0 for a, b in placed):
                break
        placed.append((x, y))
        front = int(rng.choice(possible_fronts(value)))
        out.append(
            PlacedPiece(
                "die",
                None,
                (x, y),
                float(rng.uniform(0, 360)),
                (16.0, 16.0),
                0.0,
                16.0,
                True,
                None,
                value,
                front,
                style,
                group="dice",
            )
        )
    return out


def dk_kingdom_x(player: int, n_players: int) -> float:
    """Where player `player`'s kingdom pile lies along the near edge (table mm)."""
    return (player - (n_players - 1) / 2) * 110.0


def _dk_table(state: Any, rng: np.random.Generator) -> list[PlacedPiece]:
    pieces: list[PlacedPiece] = []
    pieces += _stack(
        rng,
        ["dice-king/snob-1"] * min(5, len(state.draw_pile)),
        -300.0,
        110.0,
        group="draw",
        face_up=False,
    )
    for x, stack in zip(DK_ROW_X, state.villages, strict=True):
        pieces += _stack(
            rng, [f"dice-king/{c}" for c in reversed(stack)], x, 110.0, group="village"
        )
    for x, card in zip(DK_ROW_X, state.row, strict=True):
        if card is not None:
            pieces.append(_jitter(rng, piece(f"dice-king/{card}", (x, 0.0), 0.0, group="row")))
    if state.penalty_top is not None:
        under = [f"dice-king/{c}" for c in state.penalty_pile[:3]]
        pieces += _stack(
            rng, [*under, f"dice-king/{state.penalty_top}"], 300.0, 110.0, group="penalty"
        )
    pieces += _dk_dice(rng, state.dice, (0.0, -120.0))
    for player, pile in enumerate(state.kingdoms):
        if pile:
            pieces += _stack(
                rng,
                [f"dice-king/{c}" for c in pile[-4:]],
                dk_kingdom_x(player, len(state.players)),
                -250.0,
                group=f"kingdom:{player}",
            )
    return pieces


def place_state(game: str, state: Any, rng: np.random.Generator) -> list[PlacedPiece]:
    """The pieces of `state` laid out on the table (bottom first), in table mm.

    Raises:
        ValueError: unknown game.
    """
    if game == "kings-breakfast":
        return _kb_table(state, rng)
    if game == "cafe-international":
        return _cafe_table(state, rng)
    if game == "dice-king":
        return _dk_table(state, rng)
    raise ValueError(f"unknown game {game!r}")


def place_spread(
    identities: Sequence[str], rng: np.random.Generator, *, shuffle: bool = True
) -> list[PlacedPiece]:
    """Pieces spread out for a photo: a loose grid of overlapping cards (each at least half
    visible), or tiles side by side."""
    ids = list(identities)
    if shuffle:
        rng.shuffle(ids)
    if not ids:
        return []
    w, h = _art.piece_size_mm(ids[0])
    cols = max(1, math.ceil(math.sqrt(len(ids) * 1.2)))
    thick = ids[0].startswith("cafe-international/")  # tiles are laid side by side
    step_x, step_y = (1.25 * w, 1.25 * h) if thick else (0.8 * w, 0.72 * h)
    rows = math.ceil(len(ids) / cols)
    out = []
    for i, identity in enumerate(ids):
        r, c = divmod(i, cols)
        x = (c - (cols - 1) / 2) * step_x
        y = ((rows - 1) / 2 - r) * step_y
        out.append(_jitter(rng, piece(identity, (x, y), 0.0, z=i * 0.33, group="spread"), 1.5, 3.0))
    return out


def spread_camera(
    pieces: Sequence[PlacedPiece], size: tuple[int, int], rng: np.random.Generator
) -> Camera:
    """A hand-held photo from above that frames the whole spread."""
    pts = np.array([p.centre_mm for p in pieces] or [(0.0, 0.0)], float)
    half = np.abs(pts).max(axis=0) + 110.0
    hfov = float(rng.uniform(58, 70))
    fit = max(half[0], half[1] * size[0] / size[1]) / math.tan(math.radians(hfov / 2))
    return look_at_table(
        size[0],
        size[1],
        target_mm=(float(rng.normal(0, 5)), float(rng.normal(0, 5))),
        distance_mm=fit * float(rng.uniform(1.15, 1.3)),
        tilt_deg=float(rng.uniform(0, 18)),
        azimuth_deg=90.0 + float(rng.normal(0, 6)),
        roll_deg=float(rng.normal(0, 3)),
        hfov_deg=hfov,
    )


# --- rendering ------------------------------------------------------------------------------------


def environment(camera: Camera, rng: np.random.Generator, split: str = "eval") -> Environment:
    """A random table surface, light and camera effects (of `split`) around `camera`."""
    return Environment(
        camera=camera,
        surface=sample_surface(rng, split),
        light=sample_light(rng, split),
        effects=sample_effects(rng, camera.width),
    )


def hand_over(rng: np.random.Generator, target: tuple[float, float]) -> Distractor:
    """A hand and arm reaching over the table towards `target` from the near edge."""
    from datasets.render.distractors import sample_distractor

    return sample_distractor(rng, "hand", target)


def _truth(
    game: str | None,
    seed: int,
    camera: Camera,
    pieces: Sequence[PlacedPiece],
    objects: list[dict],
    distractors: list[dict],
    state_json: Any,
) -> dict[str, Any]:
    return {
        "game": game,
        "seed": int(seed),
        "width": camera.width,
        "height": camera.height,
        "camera": camera.params,
        "state": state_json,
        "objects": objects,
        "distractors": distractors,
    }


def _state_json(game: str, state: Any) -> Any:
    from engines import game_rules

    return game_rules(game).state_to_json(state)


def render_state(
    game: str,
    state: Any,
    seed: int,
    *,
    size: tuple[int, int] = SIZE,
    hands: Sequence[tuple[float, float]] = (),
    split: str = "eval",
    camera: Camera | None = None,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Render `state` of `game` as the tablet at the table's edge sees it.

    Returns the BGR uint8 image and the truth: one renderer record per piece, the camera and
    the state as JSON. `hands` are table points that hands reach for (occluding pieces).
    `camera` replaces the game's `table_camera` (training scenes vary the tablet's pose).
    """
    rng = np.random.default_rng([int(seed), 17])
    pieces = place_state(game, state, rng)
    # drawn even when replaced, so that the generator's later draws (hands, table) stay the same
    own_camera = table_camera(game, size, rng)
    camera = own_camera if camera is None else camera
    distractors = [hand_over(rng, target) for target in hands]
    rendered = render_pieces(pieces, distractors, environment(camera, rng, split))
    truth = _truth(
        game,
        seed,
        camera,
        pieces,
        _mark_hidden(pieces, rendered.objects),
        rendered.distractors,
        _state_json(game, state),
    )
    return rendered.image, truth


def render_spread(
    identities: Sequence[str],
    seed: int,
    *,
    size: tuple[int, int] = SIZE,
    split: str = "eval",
    retake: int = 0,
) -> tuple[np.ndarray, dict[str, Any]]:
    """Render a photo of pieces spread out (a hand, a kingdom pile, the king's area).

    `retake` n > 0 is the n-th photo taken again of the same spread on the same table under the
    same light (what a player does when the app asks): only the camera's pose and its effects
    (blur, noise, exposure) are drawn anew."""
    if retake < 0:
        raise ValueError(f"retake must be 0 or more, not {retake}")
    rng = np.random.default_rng([int(seed), 29])
    pieces = place_spread(identities, rng)
    camera = spread_camera(pieces, size, rng)
    scene = environment(camera, rng, split)
    if retake:
        again = np.random.default_rng([int(seed), 29, int(retake)])
        camera = spread_camera(pieces, size, again)
        scene = replace(scene, camera=camera, effects=sample_effects(again, camera.width))
    rendered = render_pieces(pieces, [], scene)
    game = identities[0].partition("/")[0] if identities else None
    truth = _truth(game, seed, camera, pieces, rendered.objects, [], None)
    truth["identities"] = list(identities)
    return rendered.image, truth


def _mark_hidden(pieces: Sequence[PlacedPiece], objects: list[dict]) -> list[dict]:
    for p, record in zip(pieces, objects, strict=True):
        if p.group.endswith(HIDDEN):
            record["target"] = False
    return objects


def project_pieces(
    pieces: Sequence[PlacedPiece],
    camera: Camera,
    *,
    hands: Sequence[tuple[float, float]] = (),
    hand_radius_mm: float = 110.0,
) -> list[dict[str, Any]]:
    """Truth records of `pieces` through `camera` without drawing: corners, box, identity, target.

    A piece is a target when it is not marked hidden, lies inside the image and its centre is
    not under a hand: a disc of `hand_radius_mm` at each point of `hands`, and the arm from
    there straight to the camera's edge of the table.
    """
    records = []
    near_y = float(camera.position[1])
    for p in pieces:
        if p.kind == "board":
            continue
        corners_mm = p.face_corners_mm() if p.kind != "die" else _die_top(p)
        corners = camera.project(corners_mm)
        inside = bool(
            np.all(corners[:, 0] >= 0)
            and np.all(corners[:, 0] < camera.width)
            and np.all(corners[:, 1] >= 0)
            and np.all(corners[:, 1] < camera.height)
        )
        cx, cy = p.centre_mm
        covered = any(
            math.hypot(cx - hx, cy - hy) < hand_radius_mm
            or (near_y <= cy <= hy and abs(cx - hx) < 0.6 * hand_radius_mm)
            for hx, hy in hands
        )
        target = inside and not covered and not p.group.endswith(HIDDEN)
        colour = _art.die_colour(p.die_style, int(p.value or 0)) if p.kind == "die" else None
        records.append(
            {
                "kind": p.kind,
                "identity": p.identity,
                "face_up": p.face_up,
                "corners": corners.tolist(),
                "box": [
                    float(corners[:, 0].min()),
                    float(corners[:, 1].min()),
                    float(corners[:, 0].max()),
                    float(corners[:, 1].max()),
                ],
                "value": p.value if p.kind == "die" else None,
                "colour": colour,
                "target": target,
                "group": p.group,
            }
        )
    return records


def _die_top(p: PlacedPiece) -> np.ndarray:
    from datasets.render import dice

    return dice.top_corners_mm(p)


def detections_from_truth(objects: Sequence[dict[str, Any]]) -> Detections:
    """`Detections` as a perfect detector would give them: the truth records marked as targets.

    Face-down pieces carry no identity (a back cannot be told apart); dice carry value and
    colour. For tests and benchmarks of the stages after detection only.
    """
    rows = [o for o in objects if o.get("target") and o.get("box") is not None]
    n = len(rows)
    boxes = np.array([o["box"] for o in rows], np.float32).reshape(n, 4)
    corners = np.full((n, 4, 2), np.nan, np.float32)
    kinds: list[str] = []
    values: list[int] = []
    colours: list[str | None] = []
    identities: list[str | None] = []
    for i, o in enumerate(rows):
        kinds.append(o["kind"])
        if o["kind"] == "die":
            values.append(int(o["value"] or 0))
            colours.append(o.get("colour"))
            identities.append(None)
        else:
            corners[i] = np.asarray(o["corners"], np.float32)
            values.append(0)
            colours.append(None)
            identities.append(o["identity"] if o.get("face_up", True) else None)
    det = Detections.from_boxes(boxes, np.ones(n, np.float32), kinds, corners)
    ids = np.empty(n, dtype=object)
    ids[:] = identities
    cols = np.empty(n, dtype=object)
    cols[:] = colours
    return det.with_fields(
        die_values=np.array(values, np.int64),
        die_colours=cols,
        die_value_scores=np.array([1.0 if v else 0.0 for v in values], np.float32),
        identities=ids,
        identity_scores=np.array([1.0 if x else 0.0 for x in identities], np.float32),
    )


__all__ = [
    "CAFE_SIDES",
    "GAMES",
    "HIDDEN",
    "TABLE_CAMERAS",
    "TableCamera",
    "cafe_side_origin",
    "detections_from_truth",
    "dk_kingdom_x",
    "environment",
    "place_spread",
    "place_state",
    "project_pieces",
    "render_spread",
    "render_state",
    "spread_camera",
    "table_camera",
]
