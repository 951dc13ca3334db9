"""End-of-game scores from photos: rendered final tables → readers → scores, against the truth.

For each game, N seeded random games (eval split, seeds never used in training: 9_000_000 + k)
are played to the end; the photos the scoring command takes are laid out from the final state
(`datasets.state_render.place_spread`): King's Breakfast the king's area and each player's hand,
Café International each player's remaining tiles, Dice King each player's kingdom pile. By
default the detections are TRUTH-DERIVED (`detections_from_truth`: what a perfect detector would
return; it measures the readers and the scoring alone); ``--detector`` measures the whole thing.

``--render`` renders every photo with the scene renderer and takes its truth records (a piece is
detected when the renderer marks it a target: enough of it visible); without it the layouts are
projected through the camera without drawing (fast); it also renders a mid-game Café table per
seed and registers the board from its markers in the pixels (the real registration; right:
every chair within 10 px of where the camera put it). ``--detector`` renders the photos and runs
them through the real perception pipeline (`vision.pipeline.Perception`) instead of the truth.
Prints one line per game: tables, exactly right %, refused (a problem reported, no score; for
King's Breakfast also counts the rules refuse, KB-1, as `table-companion score` does), wrong
(a made-up score: must be 0), seconds.

    .venv/bin/python benchmarks/end_of_game_scores.py [--tables 200] [--render | --detector]
        [--every-photo] [--wrong-game] [--retakes K] [--size WxH]

``--wrong-game`` (with ``--detector``) reads every photo of each table as each *other* game's
scoring photo would be read (identification restricted to that game): every one must be
refused, never scored.

``--retakes K`` (with ``--detector``) also plays the player who does what the app asks: a photo
the app refuses is taken again, up to K times (`render_spread(retake=n)`: the same spread, a new
camera pose and camera effects). The first line per game stays the first-try figure; a second
line gives the tables' outcomes after retakes.

``--size WxH`` renders the photos at that size (default 800x600, what the photo settings were
measured on): ``1280x720`` is a tablet camera's frame, as the app's Scoring screen scans it,
the spread framed by the frame's height.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines.cafe_international as ci  # noqa: E402
import engines.dice_king as dk  # noqa: E402
import engines.kings_breakfast as kb  # noqa: E402
from datasets.state_render import (  # noqa: E402
    detections_from_truth,
    place_spread,
    project_pieces,
    render_spread,
    spread_camera,
)
from engines.api import random_playout, random_step  # noqa: E402
from engines.cafe_international.scoring import hand_penalty  # noqa: E402
from engines.dice_king.catalogue import companion_deck  # noqa: E402
from engines.dice_king.scoring import score_kingdom  # noqa: E402
from engines.errors import MalformedError  # noqa: E402
from engines.kings_breakfast.catalogue import FOODS  # noqa: E402
from vision.readers import cafe_international as ci_reader  # noqa: E402
from vision.readers import dice_king as dk_reader  # noqa: E402
from vision.readers import kings_breakfast as kb_reader  # noqa: E402

SEED_BASE = 9_000_000
NAMES = ("Anna", "Ben", "Cleo", "Dan", "Eve")


def final_state(module: Any, players: list[str], seed: int) -> Any:
    rng = random.Random(seed)
    state = module.new_game(players)
    while not module.is_over(state):
        state = module.apply(state, random_step(module, state, rng))
    return state


# per game, tables refused by the rules' checks of what was read (counts no game can hold)
RULES_REFUSED: dict[str, int] = {}
PERCEPTION: Any = None  # with --detector: the pipeline loads (photos: `perception_for(game)`)
# with --detector, per game: pieces in the photos, found (box IoU >= 0.5), named right / wrong,
# and detections matching no piece
PIECES: dict[str, dict[str, int]] = {}
RETAKES = 0  # photos the player may take again after a refusal, in the current pass
COUNTING = True  # tally pieces and rules refusals (off while re-reading tables with retakes)
PHOTO_SIZE = (800, 600)  # rendered photos' width and height (--size)


def _tally(identities: list[str], truth: dict[str, Any], detections: Any) -> None:
    from models.evaluate import _iou_matrix

    game = identities[0].partition("/")[0]
    tally = PIECES.setdefault(
        game, {"pieces": 0, "found": 0, "right": 0, "wrong": 0, "extra": 0, "photos": 0}
    )
    pieces = [o for o in truth["objects"] if o.get("box")]
    found = detections[detections.kinds != "die"]
    iou = _iou_matrix(
        found.boxes_xyxy.astype(np.float64),
        np.array([o["box"] for o in pieces], np.float64).reshape(-1, 4),
    )
    used = np.zeros(len(pieces), bool)
    tally["photos"] += 1
    tally["pieces"] += len(pieces)
    for i in np.argsort(-found.scores):
        candidates = np.where(~used & (iou[i] >= 0.5), iou[i], -1.0)
        j = int(np.argmax(candidates)) if len(pieces) else -1
        if j < 0 or candidates[j] < 0.5:
            tally["extra"] += 1
            continue
        used[j] = True
        tally["found"] += 1
        name = found.identities[i]
        if name is not None:
            right = _same_face(str(name), str(pieces[j].get("identity")))
            tally["right" if right else "wrong"] += 1


def _same_face(a: str, b: str) -> bool:
    """Equal, or Dice King penalty cards of one value (one face, DK-3: the identifier names
    the class after its first card)."""
    from engines.dice_king.catalogue import penalties

    points = {card.id: card.points for card in penalties()}
    ka, kb_ = a.removeprefix("dice-king/"), b.removeprefix("dice-king/")
    return a == b or (ka in points and points.get(ka) == points.get(kb_))


def photo(identities: list[str], seed: int, render: bool, retake: int = 0) -> Any:
    if PERCEPTION is not None:
        from vision.readers.photos import perception_for

        image, truth = render_spread(identities, seed, size=PHOTO_SIZE, retake=retake)
        # as `table-companion score GAME` reads a photo: identification restricted to the game
        detections = perception_for(identities[0].partition("/")[0]).process(image)
        if COUNTING and retake == 0:
            _tally(identities, truth, detections)
        return detections
    if render:
        _, truth = render_spread(identities, seed, size=PHOTO_SIZE)
        return detections_from_truth(truth["objects"])
    rng = np.random.default_rng([seed, 29])
    pieces = place_spread(identities, rng)
    camera = spread_camera(pieces, PHOTO_SIZE, rng)
    return detections_from_truth(project_pieces(pieces, camera))


def _read(reader: Any, identities: list[str], seed: int, render: bool) -> Any:
    """Read one scoring photo; a refused one is taken again, up to `RETAKES` times."""
    for retake in range(RETAKES + 1):
        reading = reader(photo(identities, seed, render, retake))
        if not reading.problems:
            break
    return reading


def kb_table(seed: int, render: bool) -> tuple[str, dict[str, int] | None, dict[str, int]]:
    n = 3 + seed % 3
    state = final_state(kb, list(NAMES[:n]), seed)
    truth = kb.scores(state)
    king_ids = _cards(state.king)
    king = _read(lambda d: kb_reader.read_spread(d, what="king photo"), king_ids, seed, render)
    if king.problems:
        return "refused", None, truth
    players: dict[str, dict[str, int]] = {}
    for i, name in enumerate(state.players):
        ids = _cards(state.hand(i))
        if not ids:
            players[name] = {}
            continue
        reading = _read(
            lambda d: kb_reader.read_spread(d, allow_emerald=True), ids, seed * 10 + i, render
        )
        if reading.problems:
            return "refused", None, truth
        players[name] = reading.observation
    try:
        result = kb.scores_from_counts({"king": king.observation, "players": players})
    except MalformedError:
        # counts no game can hold (more of a food than KB-1's 15): the command refuses them with
        # the rules' reason, as it does a photo it cannot read
        if COUNTING:
            RULES_REFUSED["kings-breakfast"] = RULES_REFUSED.get("kings-breakfast", 0) + 1
        return "refused", None, truth
    got = {name: entry["total"] for name, entry in result["players"].items()}
    return ("right" if got == truth else "wrong"), got, truth


def ci_table(seed: int, render: bool) -> tuple[str, dict[str, int] | None, dict[str, int]]:
    n = 2 + seed % 3
    state = final_state(ci, list(NAMES[:n]), seed)
    truth = ci.scores(state)
    got = {}
    for i, name in enumerate(state.players):
        hand = list(state.hands[i])
        tiles: list[str] = []
        if hand:
            reading = _read(
                ci_reader.read_spread,
                [f"cafe-international/{t}" for t in hand],
                seed * 10 + i,
                render,
            )
            if reading.problems:
                return "refused", None, truth
            tiles = reading.observation
        got[name] = state.points[i] - hand_penalty(tiles)
    return ("right" if got == truth else "wrong"), got, truth


def dk_table(seed: int, render: bool) -> tuple[str, dict[str, int] | None, dict[str, int]]:
    n = 2 + seed % 4
    state = final_state(dk, list(NAMES[:n]), seed)
    truth = dk.scores(state)
    deck = companion_deck()
    got = {}
    for i, name in enumerate(state.players):
        pile = list(state.kingdoms[i])
        cards: list[str] = []
        if pile:
            reading = _read(
                dk_reader.read_spread, [f"dice-king/{c}" for c in pile], seed * 10 + i, render
            )
            if reading.problems:
                return "refused", None, truth
            cards = reading.observation
        got[name] = score_kingdom(deck, cards).total
    return ("right" if got == truth else "wrong"), got, truth


GAMES = {"kings-breakfast": kb_table, "cafe-international": ci_table, "dice-king": dk_table}


def _cards(counts: Any) -> list[str]:
    """King's Breakfast card identities from counts per food (in `FOODS` order)."""
    return [f"kings-breakfast/{f}" for f, c in zip(FOODS, counts, strict=True) for _ in range(c)]


def table_photos(game: str, seed: int) -> list[tuple[list[str], int, str]]:
    """Every photo the scoring command takes of table `seed`'s final state: (identities,
    photo seed, what: king / hand / pile), as the `*_table` functions lay them out."""
    if game == "kings-breakfast":
        state = final_state(kb, list(NAMES[: 3 + seed % 3]), seed)
        out = [(_cards(state.king), seed, "king")]
        for i in range(len(state.players)):
            out.append((_cards(state.hand(i)), seed * 10 + i, "hand"))
    elif game == "cafe-international":
        state = final_state(ci, list(NAMES[: 2 + seed % 3]), seed)
        out = [
            ([f"cafe-international/{t}" for t in hand], seed * 10 + i, "hand")
            for i, hand in enumerate(state.hands)
        ]
    else:
        state = final_state(dk, list(NAMES[: 2 + seed % 4]), seed)
        out = [
            ([f"dice-king/{c}" for c in pile], seed * 10 + i, "pile")
            for i, pile in enumerate(state.kingdoms)
        ]
    return [photo_ for photo_ in out if photo_[0]]


def photo_outcome(game: str, identities: list[str], seed: int, what: str, render: bool) -> str:
    """One photo read alone: right (what the score needs, exactly), refused or wrong."""
    detections = photo(identities, seed, render)
    names = [i.partition("/")[2] for i in identities]
    if game == "kings-breakfast":
        reading = kb_reader.read_spread(detections, allow_emerald=what == "hand")
        if reading.problems:
            return "refused"
        got = {k: v for k, v in reading.observation.items() if v}
        return "right" if got == dict(Counter(names)) else "wrong"
    if game == "cafe-international":
        reading = ci_reader.read_spread(detections)
        if reading.problems:
            return "refused"
        return "right" if sorted(reading.observation) == sorted(names) else "wrong"
    reading = dk_reader.read_spread(detections)
    if reading.problems:
        return "refused"
    deck = companion_deck()
    same = score_kingdom(deck, reading.observation).total == score_kingdom(deck, names).total
    return "right" if same and len(reading.observation) == len(names) else "wrong"


READERS: dict[str, Any] = {
    "kings-breakfast": lambda d: kb_reader.read_spread(d, allow_emerald=True),
    "cafe-international": ci_reader.read_spread,
    "dice-king": dk_reader.read_spread,
}


def wrong_game_outcome(game: str, other: str, identities: list[str], seed: int) -> str:
    """One photo of `game`'s pieces read as a photo of `other`: refused or scored (a made-up
    score)."""
    from vision.readers.photos import perception_for

    image, _ = render_spread(identities, seed, size=PHOTO_SIZE)
    reading = READERS[other](perception_for(other).process(image))
    return "refused" if reading.problems else "scored"


def ci_registration(seed: int) -> tuple[str, float]:
    """Render a Café table mid-game (1280 × 960, eval effects) and register the board from its
    ArUco markers; the chairs are then compared with where the camera really put them."""
    import json

    from datasets.render.camera import look_at_table
    from datasets.render.layouts import board_unit_to_local_mm
    from datasets.state_render import render_state

    rng = random.Random(seed)
    state = ci.new_game(list(NAMES[: 2 + seed % 3]))
    state = random_playout(ci, state, rng.randrange(10, 80), rng)
    image, truth = render_state("cafe-international", state, seed, size=(1280, 960))
    layout_json = json.loads(
        (
            Path(__file__).resolve().parents[1] / "engines/cafe_international/data/"
            "reference_layout.json"
        ).read_text(encoding="utf-8")
    )
    try:
        registration = ci_reader.register_companion_board(image, layout_json)
    except ci_reader.RegistrationError:
        return "refused", float("nan")
    keys = ("target_mm", "distance_mm", "tilt_deg", "azimuth_deg", "roll_deg", "hfov_deg")
    camera = look_at_table(1280, 960, **{k: truth["camera"][k] for k in keys})
    units = np.array([c["center"] for c in layout_json["chairs"]], float)
    mm = board_unit_to_local_mm(units)
    expected = camera.project(np.column_stack([mm, np.full(len(mm), 3.7)]))
    got = registration.homography @ np.column_stack([units, np.ones(len(units))]).T
    error = float(np.abs((got[:2] / got[2]).T - expected).max())
    return ("right" if error < 10.0 else "wrong"), error  # a tile still lands on its chair


def _retake_refused_tables(game: str, rows: list[dict], retakes: int, render: bool) -> None:
    """Read the tables refused on the first try again, letting the player retake each refused
    photo up to `retakes` times; the others' outcomes cannot change (retakes follow refusals)."""
    global RETAKES, COUNTING
    counts: Counter[str] = Counter()
    RETAKES, COUNTING = retakes, False
    try:
        for row in (r for r in rows if r["game"] == game):
            outcome = row["outcome"]
            if outcome == "refused":
                try:
                    outcome = GAMES[game](row["seed"], render)[0]
                except Exception:  # a failing sample is a row, not a crash
                    outcome = "error"
            counts[outcome] += 1
    finally:
        RETAKES, COUNTING = 0, True
    total = sum(counts.values())
    print(
        f"{'':<20} after up to {retakes} retake(s) of a refused photo: exactly right"
        f" {100 * counts['right'] / total:6.2f} %  refused {counts['refused']:>3}"
        f"  wrong {counts['wrong']:>3}  errors {counts['error']:>3}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200, help="tables per game")
    parser.add_argument("--render", action="store_true", help="render the photos (slow)")
    parser.add_argument(
        "--detector", action="store_true", help="render and run the real perception pipeline"
    )
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--csv", type=Path, help="write one row per table")
    parser.add_argument(
        "--seed-base",
        type=int,
        default=SEED_BASE,
        help="first table's seed (other seeds than the benchmark's, to choose settings on)",
    )
    parser.add_argument(
        "--every-photo",
        action="store_true",
        help="also read every photo of each table alone (right / refused / wrong per photo)",
    )
    parser.add_argument(
        "--wrong-game",
        action="store_true",
        help="also read every photo as each other game's (with --detector): must be refused",
    )
    parser.add_argument(
        "--retakes",
        type=int,
        default=0,
        metavar="K",
        help="with --detector: a refused photo is taken again up to K times (a second line)",
    )
    parser.add_argument(
        "--size",
        default="800x600",
        metavar="WxH",
        help="rendered photos' size (a tablet camera's 1280x720: pieces framed by the height)",
    )
    args = parser.parse_args()
    if args.retakes < 0 or (args.retakes and not args.detector):
        parser.error("--retakes needs --detector and a count of 0 or more")
    global PHOTO_SIZE
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        parser.error(f"--size must be WxH, got {args.size!r}")
    if min(width, height) < 64:
        parser.error(f"--size {args.size} is too small for a photo")
    PHOTO_SIZE = (width, height)
    rows = []
    global PERCEPTION
    if args.detector:
        from vision.pipeline import Perception

        try:
            PERCEPTION = Perception()
        except ValueError as error:
            print(f"real detector: not available ({error})")
            return
        args.render = True
        print("detections: REAL DETECTOR (vision.pipeline.Perception) on rendered photos")
    else:
        mode = "rendered photos" if args.render else "projected layouts (no pixels)"
        print(f"detections: TRUTH-DERIVED (perfect detector); photos: {mode}")
    for game in args.games:
        start = time.perf_counter()
        counts = {"right": 0, "refused": 0, "wrong": 0}
        for k in range(args.tables):
            seed = args.seed_base + k
            truth: dict[str, Any]
            try:
                outcome, got, truth = GAMES[game](seed, args.render)
            except Exception as error:  # a failing sample is a row, not a crash
                outcome, got, truth = "error", None, {"error": repr(error)}
            counts[outcome] = counts.get(outcome, 0) + 1
            rows.append(
                {"game": game, "seed": seed, "outcome": outcome, "got": got, "truth": truth}
            )
        seconds = time.perf_counter() - start
        total = args.tables
        print(
            f"{game:<20} tables {total:>4}  exactly right {100 * counts['right'] / total:6.2f} %"
            f"  refused {counts['refused']:>3}  wrong {counts['wrong']:>3}"
            f"  errors {counts.get('error', 0):>3}  {seconds:6.1f} s"
        )
        if args.retakes:
            _retake_refused_tables(game, rows, args.retakes, args.render)
        by_rules = RULES_REFUSED.get(game, 0)
        if by_rules:
            print(f"{'':<20} of the refused, by the rules' check of the counts: {by_rules}")
        if args.every_photo:
            alone = Counter(
                photo_outcome(game, ids, photo_seed, what, args.render)
                for k in range(args.tables)
                for ids, photo_seed, what in table_photos(game, args.seed_base + k)
            )
            print(
                f"{'':<20} every photo alone: {sum(alone.values())}, right"
                f" {alone['right']}, refused {alone['refused']}, wrong {alone['wrong']}"
            )
        if args.wrong_game and PERCEPTION is not None:
            for other in (g for g in GAMES if g != game):
                wrong = Counter(
                    wrong_game_outcome(game, other, ids, photo_seed)
                    for k in range(args.tables)
                    for ids, photo_seed, _ in table_photos(game, args.seed_base + k)
                )
                print(
                    f"{'':<20} read as {other}: {sum(wrong.values())} photos, refused"
                    f" {wrong['refused']}, scored {wrong['scored']} (must be 0)"
                )
        tally = PIECES.get(game)
        if tally:
            print(
                f"{'':<20} photos {tally['photos']}: pieces {tally['pieces']}, found"
                f" {tally['found']}, named right {tally['right']}, wrong {tally['wrong']},"
                f" detections of no piece {tally['extra']}"
            )
    if args.render and "cafe-international" in args.games:
        start = time.perf_counter()
        outcomes = [ci_registration(args.seed_base + k)[0] for k in range(args.tables)]
        print(
            f"{'café board markers':<20} tables {args.tables:>4}  registered right "
            f"{100 * outcomes.count('right') / args.tables:6.2f} %  refused "
            f"{outcomes.count('refused'):>3}  wrong {outcomes.count('wrong'):>3}"
            f"  (rendered pixels, real ArUco detection)  {time.perf_counter() - start:6.1f} s"
        )
    if args.csv:
        with args.csv.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=["game", "seed", "outcome", "got", "truth"])
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
