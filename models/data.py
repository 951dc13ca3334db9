"""Training data for our models, rendered by `datasets.render` into a cache folder.

A cache folder holds what `table-companion dataset generate` writes — `images/<name>.jpg` and
`truth.jsonl` (one JSON object per image, with `"file"` naming the image) — plus a `done/` folder
of per-chunk markers so that an interrupted build resumes where it stopped.

The default mix holds two kinds of scene (the kind is recorded in the truth as ``"scene"``):
- ``table``: `datasets.render.scene.render_sample` — a random table of one game or of all three;
- ``dice``: a dice-heavy table (a throw of generic dice of many designs or the Dice King dice, with
  the same random camera, table, light, distractors and camera effects), because dice are small
  and the die reader needs many of them.
Other mixes (`MIXES`, see `render_training_scene`): close dice, scoring-photo spreads, Dice
King kingdom piles and live tables (``states``: game positions laid out as players do).

Public names: `SceneRecord`, `render_training_scene`, `build_scene_cache`, `read_scene_cache`,
`die_is_readable`, `extract_dice_crops`, `mine_false_dice`, `face_classes`,
`extract_piece_crops`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from datasets.render.ranges import CameraRanges

GAMES: tuple[str | None, ...] = ("kings-breakfast", "cafe-international", "dice-king", None)


@dataclass(frozen=True)
class SceneRecord:
    """One cached scene: its image path and truth (the renderer's JSON record)."""

    image_path: Path
    truth: dict[str, Any]


def _dice_scene(rng: np.random.Generator, split: str) -> Any:
    """A dice-heavy table: one or two throws of dice, some cards or tiles, distractors."""
    from datasets.art import dice as art_dice
    from datasets.render import layouts
    from datasets.render.pieces import TableScene

    groups: list[Any] = []
    kind = rng.random()
    if kind < 0.45:
        groups += layouts.generic_dice_groups(rng, split)
    elif kind < 0.7:
        styles = [
            art_dice.dice_king_style(i) for i in rng.permutation(6)[: int(rng.integers(3, 7))]
        ]
        groups.append(
            layouts.Group("dice", tuple(layouts.dice_cluster(rng, styles, spread=1.0)), 80.0)
        )
    else:
        groups += layouts.generic_dice_groups(rng, split)
        groups += layouts.generic_dice_groups(rng, split)
    if rng.random() < 0.5:
        games = ("kings-breakfast", "cafe-international", "dice-king")
        extra = layouts.GAME_GROUPS[games[int(rng.integers(3))]](rng)
        groups.append(extra[int(rng.integers(len(extra)))])
    groups += layouts.distractor_groups(rng)
    moved, discs = layouts.place_groups(rng, groups)
    pieces: list[Any] = []
    distractors: list[Any] = []
    for g in moved:
        pieces += g.pieces
        distractors += g.distractors
    dice_discs = [
        d for g, d in zip(moved, discs, strict=False) if any(p.kind == "die" for p in g.pieces)
    ]
    focus = layouts.focus_areas(dice_discs or discs)
    return TableScene(tuple(pieces), tuple(distractors), focus, None)


# Close, oblique views of dice: a webcam or tablet near the table sees dice 60–120 px wide with
# their side faces large next to the top face. The default camera ranges (180 mm and farther)
# never come that close, and the die reader misread such dice (a side face's pips counted).
CLOSE_DICE_CAMERA = CameraRanges(
    tilt_deg=(0.0, 65.0), framing=(0.45, 1.0), distance_mm=(80.0, 500.0)
)
MIXES = ("default", "dice-close", "spreads", "kingdoms", "states")
# a live table's game (`states` mix): random steps played from the start, up to this many
STATE_STEPS = 220
# players at a live table, per game (within each game's rules: KB-3, and Café's and Dice King's)
STATE_PLAYERS = {"kings-breakfast": (3, 5), "cafe-international": (2, 4), "dice-king": (2, 5)}
# a scoring photo's pieces (`datasets.state_render.render_spread`): up to this many per photo
SPREAD_PIECES = (1, 30)


def render_training_scene(
    seed: int,
    index: int,
    *,
    size: tuple[int, int] = (640, 480),
    split: str = "train",
    mix: str = "default",
) -> tuple[bytes, dict[str, Any]]:
    """Render training scene `index` of the run seeded `seed`; return (JPEG bytes, truth).

    ``default`` mix: even indices are dice-heavy scenes, odd ones `render_sample` tables cycling
    over the games. ``dice-close``: every scene is dice-heavy, seen by a close oblique camera
    (`CLOSE_DICE_CAMERA`). ``spreads``: photos for scoring (`render_spread`): a King's Breakfast
    hand or king's area, a Dice King kingdom pile or a Café hand, spread out and photographed
    from above (the cards overlap; the detector had seen few such spreads and missed a third of
    their cards). ``kingdoms``: Dice King kingdom piles only, 30-80 % of them penalty cards (for
    the penalty reader: those faces differ only in their number and crowns). ``states``: live
    tables (`render_state`): a random position of one game laid out as players do, seen by
    the tablet at the table's edge from a pose varied about the game's own, hands over it in
    some (the detector had seen no King's Breakfast columns: cards overlapping so that their
    centres lie 15-25 px apart, of which it found about 80 %).
    """
    from datasets.render import scene as render_scene
    from datasets.render.effects import encode_jpeg

    if mix not in MIXES:
        raise ValueError(f"unknown scene mix {mix!r} (one of {', '.join(MIXES)})")
    if mix in ("spreads", "kingdoms"):
        return _spread_scene(seed, index, size, split, kingdoms=mix == "kingdoms")
    if mix == "states":
        return _state_scene(seed, index, size, split)
    close = mix == "dice-close"
    if index % 2 == 1 and not close:
        game = GAMES[(index // 2) % len(GAMES)]
        sample = render_scene.render_sample(seed, index, size=size, game=game, split=split)
        truth = dict(sample.truth, scene="table")
        return sample.jpeg, truth
    rng = render_scene.sample_rng(seed, index)
    table = _dice_scene(rng, split)
    environment = render_scene.sample_environment(
        rng, table, size, split, camera_ranges=CLOSE_DICE_CAMERA if close else None
    )
    rendered = render_scene.render_pieces(table.pieces, table.distractors, environment)
    jpeg = encode_jpeg(rendered.image, environment.effects.jpeg_quality)
    truth = _scene_truth(
        seed,
        index,
        size,
        split,
        None,
        "dice-close" if close else "dice",
        environment.to_json(),
        rendered.objects,
    )
    return jpeg, truth


def _scene_truth(
    seed: int,
    index: int,
    size: tuple[int, int],
    split: str,
    game: str | None,
    scene: str,
    params: dict[str, Any],
    objects: list[dict[str, Any]],
) -> dict[str, Any]:
    """The truth record of a training scene (as `render_sample` writes a table's)."""
    return {
        "seed": int(seed),
        "index": int(index),
        "width": size[0],
        "height": size[1],
        "split": split,
        "game": game,
        "scene": scene,
        "params": params,
        "objects": objects,
    }


def _spread_scene(
    seed: int, index: int, size: tuple[int, int], split: str, kingdoms: bool = False
) -> tuple[bytes, dict[str, Any]]:
    """A scoring photo of random pieces of one game (see `render_training_scene`); with
    `kingdoms`, a Dice King kingdom pile, about half of it penalty cards."""
    from datasets.render import _art
    from datasets.render.effects import encode_jpeg
    from datasets.state_render import render_spread

    rng = np.random.default_rng([int(seed), int(index), 43 if kingdoms else 41])
    game = (
        "dice-king"
        if kingdoms
        else ("kings-breakfast", "cafe-international", "dice-king")[index % 3]
    )
    pool = _art.identities(game)
    count = int(rng.integers(SPREAD_PIECES[0], SPREAD_PIECES[1] + 1))
    chosen = [pool[int(i)] for i in rng.integers(0, len(pool), count)]
    if kingdoms:
        penalties = [i for i in pool if "/penalty-" in i]
        others = [i for i in pool if "/penalty-" not in i]
        share = rng.uniform(0.3, 0.8)
        chosen = []
        for _ in range(count):
            group = penalties if rng.random() < share else others
            chosen.append(group[int(rng.integers(len(group)))])
    image, record = render_spread(chosen, int(rng.integers(2**31)), size=size, split=split)
    truth = _scene_truth(
        seed, index, size, split, game, "spread", {"camera": record["camera"]}, record["objects"]
    )
    return encode_jpeg(image, int(rng.integers(60, 96))), truth


def _state_scene(
    seed: int, index: int, size: tuple[int, int], split: str
) -> tuple[bytes, dict[str, Any]]:
    """A live table (see `render_training_scene`): one game's position after random steps."""
    import random

    from datasets.render.camera import look_at_table
    from datasets.render.effects import encode_jpeg
    from datasets.state_render import GAMES as TABLE_GAMES
    from datasets.state_render import TABLE_CAMERAS, render_state
    from engines import game_rules
    from engines.api import random_playout

    rng = np.random.default_rng([int(seed), int(index), 47])
    # half of them King's Breakfast: its columns are what the detector missed
    game = TABLE_GAMES[(0, 0, 1, 2)[index % 4]]
    rules = game_rules(game)
    fewest, most = STATE_PLAYERS[game]
    players = ["A", "B", "C", "D", "E"][: int(rng.integers(fewest, most + 1))]
    start = rules.new_game(players)
    steps = int(rng.integers(0, STATE_STEPS + 1))
    state = random_playout(rules, start, steps, random.Random(int(rng.integers(2**31))))
    pose = TABLE_CAMERAS[game]
    camera = look_at_table(
        size[0],
        size[1],
        target_mm=(
            pose.target_mm[0] + float(rng.normal(0.0, 40.0)),
            pose.target_mm[1] + float(rng.normal(0.0, 40.0)),
        ),
        distance_mm=pose.distance_mm * float(rng.uniform(0.8, 1.15)),
        tilt_deg=pose.tilt_deg + float(rng.uniform(-8.0, 8.0)),
        azimuth_deg=90.0 + float(rng.uniform(-12.0, 12.0)),
        roll_deg=float(rng.uniform(-3.0, 3.0)),
        hfov_deg=pose.hfov_deg,
    )
    hands = [
        (float(rng.uniform(-400.0, 400.0)), float(rng.uniform(-150.0, 450.0)))
        for _ in range(int(rng.choice([0, 0, 1, 2])))
    ]
    image, record = render_state(
        game, state, int(rng.integers(2**31)), size=size, hands=hands, split=split, camera=camera
    )
    truth = _scene_truth(
        seed, index, size, split, game, "state", {"camera": record["camera"]}, record["objects"]
    )
    return encode_jpeg(image, int(rng.integers(60, 96))), truth


def build_scene_cache(
    folder: Path,
    count: int,
    *,
    seed: int,
    size: tuple[int, int] = (640, 480),
    split: str = "train",
    chunk: int = 25,
    progress: bool = True,
    mix: str = "default",
) -> Path:
    """Render `count` scenes into `folder` (resumable: finished chunks are kept and skipped).

    `mix` chooses the kind of scenes (`render_training_scene`).

    Returns the folder. Each chunk writes its truth lines to `truth/<chunk>.jsonl` and a marker in
    `done/`; `read_scene_cache` reads them in index order.
    """
    from tqdm import tqdm

    folder = Path(folder)
    for sub in ("images", "truth", "done"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    starts = list(range(0, count, chunk))
    todo = [s for s in starts if not (folder / "done" / f"{s:07d}").exists()]
    bar = tqdm(
        total=count,
        initial=count - sum(min(chunk, count - s) for s in todo),
        disable=not progress,
        desc=f"render {folder.name}",
        unit="img",
    )
    for start in todo:
        lines = []
        for index in range(start, min(count, start + chunk)):
            jpeg, truth = render_training_scene(seed, index, size=size, split=split, mix=mix)
            name = f"{split}_{seed}_{index:07d}.jpg"
            (folder / "images" / name).write_bytes(jpeg)
            truth["file"] = f"images/{name}"
            lines.append(json.dumps(truth))
            bar.update(1)
        tmp = folder / "truth" / f"{start:07d}.jsonl.tmp"
        tmp.write_text("\n".join(lines) + "\n")
        os.replace(tmp, folder / "truth" / f"{start:07d}.jsonl")
        (folder / "done" / f"{start:07d}").touch()
    bar.close()
    return folder


def read_scene_cache(folder: Path) -> Iterator[SceneRecord]:
    """Yield the scenes of a cache folder (ours, or one written by `dataset generate`)."""
    folder = Path(folder)
    files = sorted((folder / "truth").glob("*.jsonl")) if (folder / "truth").is_dir() else []
    if not files and (folder / "truth.jsonl").exists():
        files = [folder / "truth.jsonl"]
    for file in files:
        for line in file.read_text().splitlines():
            if not line.strip():
                continue
            truth = json.loads(line)
            name = truth.get("file") or truth.get("image")
            yield SceneRecord(folder / str(name), truth)


# A die's value is unreadable when the camera's blur is large next to the die: pips are about 0.16
# of the die's width apart from their neighbours' edges, so a blur of more than ~5.5 % of the width
# blurs them past reading. Such dice still are dice (the detector must find them), but their value
# is a guess.
READABLE_BLUR_FRACTION = 0.055
READABLE_MIN_WIDTH_PX = 10.0


def die_is_readable(die: dict[str, Any], effects: dict[str, Any] | None) -> bool:
    """Whether a rendered die's top face can be read at all (its size against the scene's blur).

    Args:
        die: the truth object of the die (its ``box`` in pixels).
        effects: the scene's camera effects (``defocus_sigma`` and ``motion_length`` in pixels).
    """
    box = die.get("box")
    if not box:
        return False
    width = float(max(box[2] - box[0], box[3] - box[1]))
    if width < READABLE_MIN_WIDTH_PX:
        return False
    effects = effects or {}
    blur = float(
        np.hypot(effects.get("defocus_sigma", 0.0), effects.get("motion_length", 0.0) / 2.5)
    )
    return blur <= READABLE_BLUR_FRACTION * width


# --- die crops ---------------------------------------------------------------------------------
COLOUR_INDEX: dict[str | None, int] = {None: 0, "r": 1, "g": 2, "b": 3}


def _overlaps(box: np.ndarray, boxes: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """Intersection areas of `box` with each of `boxes` (xyxy), the box's area and theirs."""
    x1 = np.maximum(box[0], boxes[:, 0])
    y1 = np.maximum(box[1], boxes[:, 1])
    x2 = np.minimum(box[2], boxes[:, 2])
    y2 = np.minimum(box[3], boxes[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = float((box[2] - box[0]) * (box[3] - box[1]))
    areas = (boxes[:, 2] - boxes[:, 0]) * (boxes[:, 3] - boxes[:, 1])
    return inter, area, areas


def _box_iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    if len(boxes) == 0:
        return np.zeros(0)
    inter, area, areas = _overlaps(box, boxes)
    return inter / np.maximum(area + areas - inter, 1e-6)


def extract_dice_crops(
    folders: list[Path],
    *,
    seed: int,
    size: int = 40,
    margin: float = 0.2,
    jitters: int = 2,
    negatives: int = 1,
    limit: int | None = None,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Die crops from cached scenes, cut as `vision.dice_reader.crop_dice` cuts them.

    Each target die gives `jitters` crops whose box is shifted and scaled a little (an imperfect
    detector box); each scene gives `negatives` crops of die-sized boxes away from every die
    (value class 0, "not a die"). Returns arrays ``crops`` (N, S, S, 3) uint8, ``values`` (N,)
    int64 (0–6), ``colours`` (N,) int64 (0 none, 1 r, 2 g, 3 b), ``scene`` (N,) int64 and
    ``readable`` (N,) bool (`die_is_readable`; negatives are readable: "not a die" is visible).
    """
    import cv2
    from tqdm import tqdm

    from vision.dice_reader import crop_dice

    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    values: list[int] = []
    colours: list[int] = []
    scenes: list[int] = []
    readable: list[bool] = []
    records = [r for folder in folders for r in read_scene_cache(folder)]
    if limit is not None:
        records = records[:limit]
    for scene_index, record in enumerate(tqdm(records, desc="die crops", disable=not progress)):
        image = cv2.imread(str(record.image_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        dice = [o for o in record.truth["objects"] if o["kind"] == "die" and o.get("box")]
        all_boxes = np.array([o["box"] for o in dice], np.float64).reshape(-1, 4)
        boxes, labels = [], []
        effects = record.truth.get("params", {}).get("effects")
        for o in dice:
            if not o.get("target"):
                continue
            is_readable = die_is_readable(o, effects)
            box = np.array(o["box"], np.float64)
            for _ in range(jitters):
                boxes.append(_jittered_box(rng, box))
                labels.append((int(o["value"]), COLOUR_INDEX.get(o.get("colour"), 0)))
                readable.append(is_readable)
        typical = np.median(all_boxes[:, 2:] - all_boxes[:, :2]) if len(all_boxes) else 40.0
        for _ in range(negatives):
            free = _free_square(rng, (w, h), float(typical), (0.6, 1.6), all_boxes, 0.05)
            if free is not None:
                boxes.append(free)
                labels.append((0, 0))
                readable.append(True)
        if not boxes:
            continue
        crops.append(crop_dice(image, np.array(boxes), size=size, margin=margin))
        values += [v for v, _ in labels]
        colours += [c for _, c in labels]
        scenes += [scene_index] * len(labels)
    return {
        "crops": np.concatenate(crops) if crops else np.zeros((0, size, size, 3), np.uint8),
        "values": np.array(values, np.int64),
        "colours": np.array(colours, np.int64),
        "scene": np.array(scenes, np.int64),
        "readable": np.array(readable, bool),
    }


def _jittered_box(rng: np.random.Generator, box: np.ndarray) -> np.ndarray:
    """A die box as an imperfect detector gives it: centre and sides disturbed a little."""
    centre, side = (box[:2] + box[2:]) / 2, box[2:] - box[:2]
    c = centre + rng.normal(0, 0.07, 2) * side.max()
    s = side * rng.uniform(0.85, 1.25) * rng.uniform(0.92, 1.08, 2)
    return np.concatenate([c - s / 2, c + s / 2])


def _free_square(
    rng: np.random.Generator,
    image_size: tuple[int, int],
    typical: float,
    scale: tuple[float, float],
    boxes: np.ndarray,
    max_iou: float,
) -> np.ndarray | None:
    """A square box (xyxy) of side U(`scale`) × `typical` anywhere in the image that overlaps none
    of `boxes` by more than `max_iou` (IoU), or None after 10 tries (a table crowded with dice)."""
    for _attempt in range(10):
        half = typical * float(rng.uniform(*scale)) / 2
        c = rng.uniform([0, 0], image_size)
        box = np.array([c[0] - half, c[1] - half, c[0] + half, c[1] + half])
        if not (_box_iou(box, boxes) > max_iou).any():
            return box
    return None


TOP_FACE_ARRAYS = ("crops", "masks", "faces", "values", "colours", "scene", "readable")


def extract_top_faces(
    folders: list[Path],
    *,
    seed: int,
    crop_size: int = 48,
    face_size: int = 32,
    margin: float = 0.2,
    face_margin: float = 0.12,
    corner_noise: float = 0.05,
    negatives: int = 1,
    limit: int | None = None,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Training data of the top-face locator and the face reader (`vision.top_face`).

    For each target die whose top face is at least 90 % visible: a crop around an imperfect box
    (cut as `crop_dice` cuts it) with the top face's mask in crop pixels, and the top face
    rectified from the scene's true top-face corners, disturbed as a locator would (the quad
    shifted by N(0, `corner_noise`) of the face's size and scaled by U(0.85, 1.15), then each
    corner moved by N(0, `corner_noise`)). Each scene also gives `negatives` rectified patches of
    the table away from the dice (value 0: no face). Arrays: ``crops`` (N, C, C, 3) uint8,
    ``masks`` (N, C, C) uint8 (0–255), ``faces`` (N, F, F, 3) uint8, ``values`` (N,) 0–6,
    ``colours`` (N,) 0–3, ``scene`` (N,), ``readable`` (N,) bool. Negatives have an empty mask.
    """
    import cv2
    from tqdm import tqdm

    from vision.dice_reader import crop_dice
    from vision.top_face import crop_geometry, mask_targets, rectify_faces

    rng = np.random.default_rng(seed)
    parts: dict[str, list[np.ndarray]] = {k: [] for k in TOP_FACE_ARRAYS}
    records = [r for folder in folders for r in read_scene_cache(folder)]
    if limit is not None:
        records = records[:limit]
    for scene_index, record in enumerate(tqdm(records, desc="top faces", disable=not progress)):
        dice = [
            o
            for o in record.truth["objects"]
            if o["kind"] == "die" and o.get("box") and o.get("corners")
        ]
        targets = [
            o for o in dice if o.get("target") and float(o.get("top_visible_fraction", 1)) >= 0.9
        ]
        if not targets and not negatives:
            continue
        image = cv2.imread(str(record.image_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        effects = record.truth.get("params", {}).get("effects")
        boxes, quads, face_quads, labels = [], [], [], []
        for o in targets:
            box = _jittered_box(rng, np.array(o["box"], np.float64))
            quad = np.array(o["corners"], np.float64).reshape(4, 2)
            size = float(np.sqrt(max(cv2.contourArea(quad.astype(np.float32)), 1.0)))
            boxes.append(box)
            quads.append(quad)
            # a located quad is off by a few percent at each corner, and often a little too
            # large or too small as a whole (the locator's mask at 48 px is coarse)
            centre = quad.mean(axis=0) + rng.normal(0, corner_noise * size, 2)
            grown = (quad - quad.mean(axis=0)) * rng.uniform(0.85, 1.15)
            face_quads.append(centre + grown + rng.normal(0, corner_noise * size, (4, 2)))
            labels.append(
                (
                    int(o["value"]),
                    COLOUR_INDEX.get(o.get("colour"), 0),
                    die_is_readable(o, effects),
                )
            )
        negative_quads = []
        all_boxes = np.array([o["box"] for o in dice], np.float64).reshape(-1, 4)
        typical = np.median(all_boxes[:, 2:] - all_boxes[:, :2]) if len(all_boxes) else 30.0
        for _ in range(negatives):
            free = _free_square(rng, (w, h), float(typical), (0.3, 0.8), all_boxes, 0.0)
            if free is not None:
                c, half = (free[:2] + free[2:]) / 2, (free[2] - free[0]) / 2
                angle = rng.uniform(0, np.pi / 2)
                corners = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * half
                turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
                negative_quads.append(c + corners @ turn.T * rng.uniform(0.8, 1.2, (4, 2)))
        if boxes:
            box_array = np.array(boxes)
            centres, scales = crop_geometry(box_array, size=crop_size, margin=margin)
            in_crop = (np.array(quads) - centres[:, None]) * scales[:, None, None] + crop_size / 2
            parts["crops"].append(crop_dice(image, box_array, size=crop_size, margin=margin))
            parts["masks"].append(mask_targets(in_crop, crop_size))
            parts["faces"].append(
                rectify_faces(image, np.array(face_quads), size=face_size, margin=face_margin)
            )
            parts["values"].append(np.array([v for v, _, _ in labels], np.int64))
            parts["colours"].append(np.array([c for _, c, _ in labels], np.int64))
            parts["readable"].append(np.array([r for _, _, r in labels], bool))
            parts["scene"].append(np.full(len(labels), scene_index, np.int64))
        if negative_quads:
            k = len(negative_quads)
            parts["crops"].append(np.zeros((k, crop_size, crop_size, 3), np.uint8))
            parts["masks"].append(np.zeros((k, crop_size, crop_size), np.uint8))
            parts["faces"].append(
                rectify_faces(image, np.array(negative_quads), size=face_size, margin=face_margin)
            )
            parts["values"].append(np.zeros(k, np.int64))
            parts["colours"].append(np.zeros(k, np.int64))
            parts["readable"].append(np.ones(k, bool))
            parts["scene"].append(np.full(k, scene_index, np.int64))
    shapes = {
        "crops": (0, crop_size, crop_size, 3),
        "masks": (0, crop_size, crop_size),
        "faces": (0, face_size, face_size, 3),
    }
    return {
        k: np.concatenate(v)
        if v
        else np.zeros(shapes.get(k, (0,)), np.uint8 if k in shapes else np.int64)
        for k, v in parts.items()
    }


def mine_false_dice(
    folders: list[Path],
    detector_model: Path,
    *,
    size: int = 40,
    margin: float = 0.2,
    threshold: float = 0.3,
    limit: int | None = None,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Hard "not a die" crops: the detector's dice that are no die in the rendered scenes.

    Random boxes on the table are easy negatives; what the reader must learn to refuse is what a
    detector takes for a die (a pip of a big die, a coin, a letter on a card, a pen's cap). A
    predicted die counts as false when it overlaps no recorded die (IoU ≤ 0.2) and is not most of
    one (a box holding a quarter of a die's area or more may be a loose box on a real die).
    Returns arrays as `extract_dice_crops` (values 0, colours 0, all readable).
    """
    import cv2
    from tqdm import tqdm

    from vision.detector import Detector, DetectorConfig
    from vision.dice_reader import crop_dice

    config = DetectorConfig(
        score_thresholds={"card": 1.1, "tile": 1.1, "die": threshold}, threads=1
    )
    detector = Detector(detector_model, config)
    records = [r for folder in folders for r in read_scene_cache(folder)]
    if limit is not None:
        records = records[:limit]
    crops: list[np.ndarray] = []
    scenes: list[int] = []
    for scene_index, record in enumerate(tqdm(records, desc="false dice", disable=not progress)):
        image = cv2.imread(str(record.image_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        dice = [o for o in record.truth["objects"] if o["kind"] == "die" and o.get("box")]
        die_boxes = np.array([o["box"] for o in dice], np.float64).reshape(-1, 4)
        found = detector.detect(image)
        boxes = found.boxes_xyxy[found.kinds == "die"].astype(np.float64)
        false = []
        for box in boxes:
            if len(die_boxes):
                inter, area, die_areas = _overlaps(box, die_boxes)
                iou = inter / np.maximum(area + die_areas - inter, 1e-6)
                on_a_die = (inter >= 0.25 * die_areas) & (inter >= 0.5 * area)
                if (iou > 0.2).any() or on_a_die.any():
                    continue
            false.append(box)
        if false:
            crops.append(crop_dice(image, np.array(false), size=size, margin=margin))
            scenes += [scene_index] * len(false)
    n = len(scenes)
    return {
        "crops": np.concatenate(crops) if crops else np.zeros((0, size, size, 3), np.uint8),
        "values": np.zeros(n, np.int64),
        "colours": np.zeros(n, np.int64),
        "scene": np.array(scenes, np.int64),
        "readable": np.ones(n, bool),
    }


PIECE_ARRAYS = ("crops", "labels", "scene")


def off_objects(box: np.ndarray, objects: np.ndarray) -> bool:
    """Whether `box` (xyxy) is a box of no piece among `objects` (n, 4 xyxy): its centre on
    none of them, an IoU under 0.15 with each, and none of them half inside it. A box astride
    a piece's edge, centred on the table, is no piece (a scoring photo's pieces are each at
    least half visible, and the detector boxes them whole); one around a whole piece shows it."""
    if len(objects) == 0:
        return True
    centre = (box[:2] + box[2:]) / 2
    if ((objects[:, :2] <= centre) & (centre <= objects[:, 2:])).all(axis=1).any():
        return False
    inter, area, areas = _overlaps(box, objects)
    iou = inter / np.maximum(area + areas - inter, 1e-6)
    return bool((iou < 0.15).all() and (inter < 0.5 * areas).all())


def mine_false_pieces(
    folders: list[Path],
    detector_model: Path,
    *,
    size: int = 64,
    margin: float = 0.1,
    threshold: float = 0.15,
    zoom_piece_px: float | None = 80.0,
    limit: int | None = None,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Hard "no companion face" crops for the piece reader: what the detector, run as scoring
    photos run it (every kind at `threshold`, the zoom), boxes where no piece lies.

    One free square of table a scene is an easy negative; what scoring photos are refused for
    is the detector's weak boxes on a busy table next to the spread, which the reader had never
    been shown, or its boxes astride a piece's edge, centred on the table. A box is false when
    it is off every recorded object (`off_objects`: pieces, dice, hidden ones included); a
    loose box of a real piece is left out (neither a face nor "no piece" to learn).
    Returns arrays as `extract_piece_crops` (all class 0).
    """
    import cv2
    from tqdm import tqdm

    from vision.detector import Detector, DetectorConfig
    from vision.dice_reader import crop_dice

    config = DetectorConfig(
        score_thresholds={"card": threshold, "tile": threshold, "die": threshold},
        zoom_piece_px=zoom_piece_px,
        threads=1,
    )
    detector = Detector(detector_model, config)
    records = [r for folder in folders for r in read_scene_cache(folder)]
    if limit is not None:
        records = records[:limit]
    crops: list[np.ndarray] = []
    scenes: list[int] = []
    for scene_index, record in enumerate(tqdm(records, desc="false pieces", disable=not progress)):
        image = cv2.imread(str(record.image_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        known = [o["box"] for o in record.truth["objects"] if o.get("box")]
        known_boxes = np.array(known, np.float64).reshape(-1, 4)
        found = detector.detect(image)
        false = [b for b in found.boxes_xyxy.astype(np.float64) if off_objects(b, known_boxes)]
        if false:
            crops.append(crop_dice(image, np.array(false), size=size, margin=margin))
            scenes += [scene_index] * len(false)
    n = len(scenes)
    return {
        "crops": np.concatenate(crops) if crops else np.zeros((0, size, size, 3), np.uint8),
        "labels": np.zeros(n, np.int64),
        "scene": np.array(scenes, np.int64),
    }


def face_classes() -> list[tuple[str, ...]]:
    """The piece reader's classes after class 0 ("no companion face": a back, a foreign piece,
    the table): one per distinct companion face, as the identities sharing it (Dice King's
    penalty cards of one value share one face, DK-3), in gallery order."""
    import hashlib

    from vision.gallery import default_gallery

    groups: dict[str, list[str]] = {}
    for ref in default_gallery().references:
        if ref.identity is None:
            continue
        key = hashlib.sha1(np.ascontiguousarray(ref.face).tobytes()).hexdigest()
        if ref.identity not in groups.setdefault(key, []):
            groups[key].append(ref.identity)
    return [tuple(v) for v in groups.values()]


def _piece_box(rng: np.random.Generator, box: np.ndarray) -> np.ndarray:
    """A card's or tile's box as the detector gives it: often only part of the piece (a covered
    card's visible art), sometimes a little too large, shifted."""
    centre, side = (box[:2] + box[2:]) / 2, box[2:] - box[:2]
    c = centre + rng.normal(0, 0.08, 2) * side
    s = side * rng.uniform(0.65, 1.2) * rng.uniform(0.9, 1.1, 2)
    return np.concatenate([c - s / 2, c + s / 2])


def _piece_arrays(
    crops: list[np.ndarray], labels: list[int], scenes: list[int], size: int
) -> dict[str, np.ndarray]:
    """`PIECE_ARRAYS` from per-scene crop stacks and per-crop labels and scene indices."""
    return {
        "crops": np.concatenate(crops) if crops else np.zeros((0, size, size, 3), np.uint8),
        "labels": np.array(labels, np.int64),
        "scene": np.array(scenes, np.int64),
    }


def extract_piece_crops(
    folders: list[Path],
    classes: list[tuple[str, ...]],
    *,
    seed: int,
    size: int = 64,
    margin: float = 0.1,
    jitters: int = 1,
    negatives: int = 1,
    limit: int | None = None,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Training data of the piece reader (`vision.piece_reader`): square crops around imperfect
    boxes of target cards and tiles (cut as `crop_dice` cuts them), labelled with their face's
    class in `classes` + 1; face-down and foreign pieces, and table squares away from every
    piece, are class 0. Arrays ``crops`` (N, S, S, 3) uint8, ``labels`` (N,), ``scene`` (N,)."""
    import cv2
    from tqdm import tqdm

    from vision.dice_reader import crop_dice

    label_of = {identity: k + 1 for k, group in enumerate(classes) for identity in group}
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    scenes: list[int] = []
    records = [r for folder in folders for r in read_scene_cache(folder)]
    if limit is not None:
        records = records[:limit]
    for scene_index, record in enumerate(tqdm(records, desc="piece crops", disable=not progress)):
        objects = [o for o in record.truth["objects"] if o.get("box")]
        pieces = [o for o in objects if o["kind"] in ("card", "tile") and o.get("target")]
        if not pieces and not negatives:
            continue
        image = cv2.imread(str(record.image_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        boxes, names = [], []
        for o in pieces:
            label = label_of.get(o.get("identity"), 0) if o.get("face_up", True) else 0
            for _ in range(jitters):
                boxes.append(_piece_box(rng, np.array(o["box"], np.float64)))
                names.append(label)
        all_boxes = np.array([o["box"] for o in objects], np.float64).reshape(-1, 4)
        sides = (all_boxes[:, 2:] - all_boxes[:, :2]).max(axis=1) if len(all_boxes) else []
        typical = float(np.median(sides)) if len(all_boxes) else 40.0
        for _ in range(negatives):
            free = _free_square(rng, (w, h), typical, (0.5, 1.5), all_boxes, 0.1)
            if free is not None:
                boxes.append(free)
                names.append(0)
        if not boxes:
            continue
        crops.append(crop_dice(image, np.array(boxes), size=size, margin=margin))
        labels += names
        scenes += [scene_index] * len(names)
    return _piece_arrays(crops, labels, scenes, size)


def disturbed_quad(rng: np.random.Generator, quad: np.ndarray) -> np.ndarray:
    """A piece's 4 corners as the rectify stage gives them: most within a few hundredths of
    its edge, some far off (a corner snapped to another card's edge, or to the visible part of
    a covered card): the quad shifted and scaled a little, then each corner moved by N(0, s) of
    the mean edge, s from 0.005-0.03 (70 %) or 0.03-0.1."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    edge = float(np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1).mean())
    centre = q.mean(axis=0)
    q = centre + (q - centre) * rng.uniform(0.95, 1.05) + rng.normal(0, 0.02 * edge, 2)
    sigma = rng.uniform(0.005, 0.03) if rng.random() < 0.7 else rng.uniform(0.03, 0.1)
    return q + rng.normal(0, sigma * edge, (4, 2))


def extract_face_warps(
    folders: list[Path],
    classes: list[tuple[str, ...]],
    *,
    seed: int,
    size: int = 64,
    jitters: int = 1,
    negatives: int = 1,
    limit: int | None = None,
    progress: bool = True,
) -> dict[str, np.ndarray]:
    """Training data of a face-warp reader (`vision.piece_reader.PieceReader.read_quads`): each
    target card's and tile's true corners, disturbed as the rectify stage's are
    (`disturbed_quad`), started at a random corner and warped onto a `size` square
    (`vision.piece_reader.warp_squares`), labelled with its face's class in `classes` + 1;
    face-down and foreign pieces are class 0, and so are, `negatives` per scene, the quad of a
    piece moved half its size along one side (half a card and the table or its neighbour: the
    corners of a box on two pieces) and a quad of bare table. Arrays as
    `extract_piece_crops`'s: ``crops`` (N, S, S, 3), ``labels`` (N,), ``scene`` (N,)."""
    import cv2
    from tqdm import tqdm

    from vision.geometry import clockwise_quad
    from vision.piece_reader import warp_squares

    label_of = {identity: k + 1 for k, group in enumerate(classes) for identity in group}
    rng = np.random.default_rng(seed)
    crops: list[np.ndarray] = []
    labels: list[int] = []
    scenes: list[int] = []
    records = [r for folder in folders for r in read_scene_cache(folder)]
    if limit is not None:
        records = records[:limit]
    for scene_index, record in enumerate(tqdm(records, desc="face warps", disable=not progress)):
        objects = [o for o in record.truth["objects"] if o.get("box")]
        # each target piece with its true corners as a clockwise quad (none: no convex quad)
        pieces = [
            (o, quad)
            for o in objects
            if o["kind"] in ("card", "tile") and o.get("target") and o.get("corners")
            for quad in [clockwise_quad(np.array(o["corners"], np.float64))]
            if quad is not None
        ]
        if not pieces:
            continue
        image = cv2.imread(str(record.image_path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        h, w = image.shape[:2]
        boxes = np.array([o["box"] for o in objects], np.float64).reshape(-1, 4)
        quads, names = [], []
        for o, true in pieces:
            label = label_of.get(o.get("identity"), 0) if o.get("face_up", True) else 0
            for _ in range(jitters):
                quads.append(np.roll(disturbed_quad(rng, true), -int(rng.integers(4)), axis=0))
                names.append(label)
        for _ in range(negatives):
            true = pieces[int(rng.integers(len(pieces)))][1]
            side = int(rng.integers(4))
            along = true[(side + 1) % 4] - true[side]
            quads.append(true + along * rng.uniform(0.45, 0.6) * rng.choice([-1, 1]))
            names.append(0)
            edge = float(np.linalg.norm(along))
            centre = rng.uniform([0, 0], [w, h])
            angle = rng.uniform(0, np.pi / 2)
            turn = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
            square = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], np.float64) * edge / 2
            table = centre + square @ turn.T
            inside = (boxes[:, :2] <= centre) & (centre <= boxes[:, 2:])
            if not inside.all(axis=1).any():
                quads.append(table)
                names.append(0)
        warps, readable = warp_squares(image, np.array(quads), size)
        crops.append(warps[readable])
        labels += [n for n, ok in zip(names, readable, strict=True) if ok]
        scenes += [scene_index] * int(readable.sum())
    return _piece_arrays(crops, labels, scenes, size)


def _main() -> None:  # pragma: no cover - a build helper
    """``python -m models.data FOLDER COUNT SEED [SPLIT [MIX [WxH]]]``: render a scene cache
    (images 640x480 unless WxH is given)."""
    import sys

    usage = "usage: python -m models.data FOLDER COUNT SEED [SPLIT [MIX [WxH]]]"
    if not 4 <= len(sys.argv) <= 7:
        raise SystemExit(usage)
    try:
        folder, count, seed = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
        width, _, height = (sys.argv[6] if len(sys.argv) > 6 else "640x480").partition("x")
        size = (int(width), int(height))
        if min(size) < 1:
            raise ValueError(size)
    except ValueError:
        raise SystemExit(f"{usage}\nCOUNT and SEED are whole numbers, WxH like 640x480") from None
    split = sys.argv[4] if len(sys.argv) > 4 else "train"
    mix = sys.argv[5] if len(sys.argv) > 5 else "default"
    from datasets.render.ranges import SPLITS

    if split not in SPLITS:
        raise SystemExit(f"{usage}\nSPLIT is one of {', '.join(SPLITS)}, not {split!r}")
    if mix not in MIXES:
        raise SystemExit(f"models.data: unknown scene mix {mix!r} (one of {', '.join(MIXES)})")
    build_scene_cache(folder, count, seed=seed, split=split, mix=mix, size=size)


if __name__ == "__main__":
    _main()
