"""Identification accuracy on rendered eval scenes: correct / wrong / null per game and size.

Renders eval-split table scenes per game (`datasets.render.scene.render_sample`), takes every
target card and tile (truth record ``target``), and identifies it from its corners. Without a
detector model the corners are the true corners perturbed by `--noise` (a fraction of the piece's
shorter side, Gaussian per coordinate) and listed from a random corner, as a detector that does
not know the printed top-left would. A face-up companion piece is *correct* when its identity (or
a piece with an identical face) is returned, *wrong* for another identity, *null* for none. A
face-down piece or a foreign one is correct when null, wrong otherwise.

``--style restyled`` first enrols a different edition of every piece (`tests/vision/restyle.py`)
from one photo per piece through ``table-companion enroll GAME --source FOLDER`` into a temporary
``TABLE_COMPANION_HOME``, then renders the scenes in that edition. ``--no-enrol`` is the control:
the same restyled scenes identified with the companion art only.

``--corners`` also measures corner refinement by reference alignment
(`vision.rectify.align_to_reference`) against the true corners: largest corner error per piece as
a fraction of its shorter side, before and after.

    .venv/bin/python benchmarks/identify_accuracy.py --count 15
    .venv/bin/python benchmarks/identify_accuracy.py --count 15 --style restyled
    .venv/bin/python benchmarks/identify_accuracy.py --count 6 --frames 5

``--garbage`` places boxes a confused detector might report (on bare table, astride two
pieces, moved off one) and counts how many are named; all should come back null.

``--mixed`` renders tables of all three games with foreign cards and tiles (which must stay
unidentified) and matches against every game.

``--frames N`` renders each scene N times from a still camera with fresh camera effects (blur,
noise, JPEG) and corner noise, identifies every frame, votes over the frames with
`vision.voting.VoteTracker` and scores the voted identities of the last frame next to that
frame's own.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import os
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from datasets import art  # noqa: E402
from datasets.render.scene import render_sample  # noqa: E402
from vision.detections import Detections  # noqa: E402
from vision.gallery import default_gallery, load_gallery  # noqa: E402
from vision.identify import Identifier, IdentifyConfig, Match  # noqa: E402
from vision.rectify import AlignConfig, align_to_reference  # noqa: E402

GAMES = ("kings-breakfast", "cafe-international", "dice-king")


def _decode(jpeg: bytes) -> np.ndarray:
    """A rendered JPEG as a uint8 BGR frame."""
    frame = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    if frame is None:
        raise ValueError("cannot decode a rendered image")
    return np.asarray(frame)


BUCKETS = ((0, 20, "<20px"), (20, 40, "20-40px"), (40, 80, "40-80px"), (80, 1e9, ">=80px"))


def _bucket(width: float) -> str:
    return next(name for lo, hi, name in BUCKETS if lo <= width < hi)


def enrol_restyled(home: Path, seed: int) -> dict[str, Any]:
    """Photograph every piece in the restyled edition and enrol the photos; the CLI's reports."""
    from companion_app.cli import main as cli_main
    from tests.vision.restyle import piece_photo, restyle
    from vision.gallery import piece_key

    rng = np.random.default_rng(seed)
    reports: dict[str, Any] = {}
    for game in GAMES:
        folder = home / "photos" / game
        folder.mkdir(parents=True, exist_ok=True)
        for identity in art.identities(game):
            photo = piece_photo([restyle(art.face(identity, 240), identity)], rng)
            cv2.imwrite(str(folder / f"{piece_key(identity)}.jpg"), photo)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = cli_main(["enroll", game, "--source", str(folder), "--json"])
        report = json.loads(out.getvalue().strip().splitlines()[-1])
        reports[game] = {
            "status": status,
            "enrolled": len(report["enrolled"]),
            "refused": report["refused"],
        }
    return reports


def evaluate(
    identifier: Identifier,
    count: int,
    seed: int,
    noise: float,
    size: tuple[int, int],
    restrict: bool,
    corners: bool,
    mixed: bool = False,
) -> dict[str, Any]:
    """Render `count` scenes per game and score identification; returns the tallies.

    `mixed`: `count` scenes of all games mixed with foreign cards and tiles instead, matched
    against every game (tallied as ``mixed``).
    """
    rng = np.random.default_rng(seed)
    tally: dict[tuple[str, ...], dict[str, int]] = defaultdict(
        lambda: {"correct": 0, "wrong": 0, "null": 0}
    )
    corner_errors: dict[str, list[tuple[float, float]]] = defaultdict(list)
    match_seconds, pieces = 0.0, 0
    for game in (None,) if mixed else GAMES:
        for index in range(count):
            sample = render_sample(seed, index, game=game, split="eval", size=size)
            frame = _decode(sample.jpeg)
            chosen = [
                o for o in sample.truth["objects"] if o["kind"] in ("card", "tile") and o["target"]
            ]
            if not chosen:
                continue
            true = np.array([o["corners"] for o in chosen], np.float64)
            sides = np.linalg.norm(np.roll(true, -1, axis=1) - true, axis=2)
            widths = sides.min(axis=1)
            noisy = true + rng.normal(0, noise / np.sqrt(2), true.shape) * widths[:, None, None]
            starts = rng.integers(0, 4, len(chosen))
            pairs = zip(noisy, starts, strict=True)
            shown = np.stack([np.roll(q, -int(s), axis=0) for q, s in pairs])
            detections = Detections.from_boxes(
                np.zeros((len(chosen), 4), np.float32),
                np.ones(len(chosen), np.float32),
                [o["kind"] for o in chosen],
                shown.astype(np.float32),
            )
            started = time.perf_counter()
            games = [game] if restrict and game is not None else None
            matches = identifier.match(frame, detections, games)
            match_seconds += time.perf_counter() - started
            pieces += len(chosen)
            for o, m, width, quad in zip(chosen, matches, widths, shown, strict=True):
                outcome, category = _score(o, m)
                name = game or "mixed"
                for key in ((name, category), (name, category, _bucket(width))):
                    tally[key][outcome] += 1
                if corners and category == "face" and m is not None and m.identity:
                    printed = np.roll(quad, m.rotation, axis=0)
                    face = art.face(m.identity, 96)
                    refined, _ = align_to_reference(frame, printed, face)
                    truth = np.array(o["corners"])
                    before = np.linalg.norm(printed - truth, axis=1).max() / width
                    after = np.linalg.norm(refined - truth, axis=1).max() / width
                    corner_errors[_bucket(width)].append((before, after))
    return {
        "tally": {"/".join(k): v for k, v in sorted(tally.items())},
        "ms_per_piece": 1000 * match_seconds / max(pieces, 1),
        "pieces": pieces,
        "corners": {
            b: {
                "n": len(v),
                "before_median": float(np.median([e[0] for e in v])),
                "after_median": float(np.median([e[1] for e in v])),
                "after_p90": float(np.percentile([e[1] for e in v], 90)),
                "after_within_1pct": float(np.mean([e[1] <= 0.01 for e in v])),
                "after_within_2pct": float(np.mean([e[1] <= 0.02 for e in v])),
            }
            for b, v in sorted(corner_errors.items())
        },
    }


def evaluate_voting(
    identifier: Identifier, count: int, seed: int, noise: float, size: tuple[int, int], frames: int
) -> dict[str, Any]:
    """Each scene seen `frames` times by a still camera; identities voted and scored."""
    import dataclasses

    from datasets.render import layouts
    from datasets.render.effects import encode_jpeg, sample_effects
    from datasets.render.scene import render_pieces, sample_environment, sample_rng
    from vision.geometry import box_from_corners
    from vision.voting import VoteTracker

    rng = np.random.default_rng(seed)
    tally: dict[tuple[str, ...], dict[str, int]] = defaultdict(
        lambda: {"correct": 0, "wrong": 0, "null": 0}
    )
    for game in GAMES:
        for index in range(count):
            scene_rng = sample_rng(seed, index)
            scene = layouts.sample_table(scene_rng, game, "eval")
            environment = sample_environment(scene_rng, scene, size, "eval")
            tracker = VoteTracker()
            voted: Detections | None = None
            single: list[Match | None] = []
            chosen: list[dict[str, Any]] = []
            for _ in range(frames):
                effects = sample_effects(scene_rng, size[0])
                shot = dataclasses.replace(environment, effects=effects)
                rendered = render_pieces(scene.pieces, scene.distractors, shot)
                jpeg = encode_jpeg(rendered.image, effects.jpeg_quality)
                frame = _decode(jpeg)
                chosen = [
                    o for o in rendered.objects if o["kind"] in ("card", "tile") and o["target"]
                ]
                if not chosen:
                    break
                true = np.array([o["corners"] for o in chosen], np.float64)
                widths = np.linalg.norm(np.roll(true, -1, axis=1) - true, axis=2).min(axis=1)
                jitter = rng.normal(0, noise / np.sqrt(2), true.shape) * widths[:, None, None]
                noisy = true + jitter
                boxes = np.stack([box_from_corners(q) for q in noisy])
                detections = Detections.from_boxes(
                    boxes.astype(np.float32),
                    np.ones(len(chosen), np.float32),
                    [o["kind"] for o in chosen],
                    noisy.astype(np.float32),
                )
                single = identifier.match(frame, detections, [game])
                voted = tracker.update(identifier.identify(frame, detections, [game]))
            if voted is None or not chosen:
                continue
            for o, m, identity in zip(chosen, single, voted.identities, strict=True):
                one, category = _score(o, m)
                both, _ = _score(o, _as_match(identity, m))
                tally[(game, category, "one frame")][one] += 1
                tally[(game, category, f"voted over {frames}")][both] += 1
    return {"tally": {"/".join(k): v for k, v in sorted(tally.items())}}


def evaluate_garbage(
    identifier: Identifier, count: int, seed: int, size: tuple[int, int]
) -> dict[str, Any]:
    """Boxes a confused detector might report, which must come back unidentified.

    Per scene and game: piece-sized quads on bare table (no object's box touches them), quads
    astride two neighbouring pieces of a kind (moved half way to the neighbour) and quads moved
    off their piece by 35–50 % of its width. Tallies how many of each are named.
    """
    rng = np.random.default_rng(seed)
    tally: dict[str, dict[str, int]] = defaultdict(lambda: {"boxes": 0, "named": 0})
    for game in GAMES:
        for index in range(count):
            sample = render_sample(seed, index, game=game, split="eval", size=size)
            frame = _decode(sample.jpeg)
            objects = sample.truth["objects"]
            boxes = np.array(
                [o["box"] for o in objects if len(o.get("box") or ()) == 4] or np.zeros((0, 4)),
                float,
            )
            pieces = [
                o
                for o in objects
                if o["kind"] in ("card", "tile") and o["target"] and o["visible_fraction"] > 0.9
            ]
            quads: list[np.ndarray] = []
            kinds: list[str] = []
            categories: list[str] = []
            for piece in pieces[:6]:
                quad = np.array(piece["corners"], float)
                for _ in range(20):
                    moved = quad + rng.uniform((-500, -400), (500, 400))
                    (x0, y0), (x1, y1) = moved.min(axis=0), moved.max(axis=0)
                    if x0 < 0 or y0 < 0 or x1 >= size[0] or y1 >= size[1]:
                        continue
                    touching = (
                        (boxes[:, 0] < x1)
                        & (boxes[:, 2] > x0)
                        & (boxes[:, 1] < y1)
                        & (boxes[:, 3] > y0)
                    )
                    if not np.any(touching):
                        quads.append(moved)
                        kinds.append(piece["kind"])
                        categories.append("bare table")
                        break
            for a in pieces:
                qa = np.array(a["corners"], float)
                span = np.linalg.norm(qa[1] - qa[0]) + np.linalg.norm(qa[2] - qa[1])
                for b in pieces:
                    qb = np.array(b["corners"], float)
                    step = qb.mean(axis=0) - qa.mean(axis=0)
                    if b is not a and b["kind"] == a["kind"] and np.linalg.norm(step) < 0.75 * span:
                        quads.append(qa + step / 2)
                        kinds.append(a["kind"])
                        categories.append("astride two")
                        break
                direction = rng.normal(size=2)
                direction /= np.linalg.norm(direction)
                width = np.linalg.norm(qa[1] - qa[0])
                quads.append(qa + direction * width * rng.uniform(0.35, 0.5))
                kinds.append(a["kind"])
                categories.append("moved off")
            if not quads:
                continue
            detections = Detections.from_boxes(
                np.zeros((len(quads), 4), np.float32),
                np.ones(len(quads), np.float32),
                kinds,
                np.array(quads, np.float32),
            )
            for category, m in zip(
                categories, identifier.match(frame, detections, [game]), strict=True
            ):
                for key in (f"{game}/{category}", category):
                    tally[key]["boxes"] += 1
                    tally[key]["named"] += int(m is not None and m.identity is not None)
    return {"garbage": dict(sorted(tally.items()))}


def _as_match(identity: str | None, like: Match | None) -> Match:
    same_face = like is not None and identity is not None and identity in like.aliases
    aliases = like.aliases if same_face and like is not None else (identity or "",)
    return Match(identity, 1.0, 1.0, 0, identity, None, (), tuple(aliases))


def _score(truth: dict[str, Any], match: Match | None) -> tuple[str, str]:
    identity = truth["identity"] if truth["face_up"] else None
    category = "face" if identity else ("back" if truth["identity"] else "foreign")
    predicted = match.identity if match is not None else None
    if identity is None:
        return ("correct" if predicted is None else "wrong"), category
    if predicted is None:
        return "null", category
    aliases = match.aliases if match is not None else ()
    return ("correct" if identity == predicted or identity in aliases else "wrong"), category


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=10, help="scenes per game")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--noise", type=float, default=0.02, help="corner noise, of the width")
    parser.add_argument("--width", type=int, default=1280, help="image width (4:3)")
    parser.add_argument("--style", choices=("companion", "restyled"), default="companion")
    parser.add_argument(
        "--no-enrol", action="store_true", help="restyled: skip enrolment (the control)"
    )
    parser.add_argument("--all-games", action="store_true", help="do not restrict to the game")
    parser.add_argument("--corners", action="store_true", help="also measure corner alignment")
    parser.add_argument(
        "--verify", action="store_true", help="IdentifyConfig(verify=True): for still photos"
    )
    parser.add_argument(
        "--config", default="", help="IdentifyConfig fields as a Python dict literal"
    )
    parser.add_argument(
        "--mixed", action="store_true", help="scenes of all games and foreign pieces, unrestricted"
    )
    parser.add_argument(
        "--frames", type=int, default=0, help="N > 1: still-camera clips of N frames, voted"
    )
    parser.add_argument(
        "--garbage",
        action="store_true",
        help="boxes on bare table, astride two pieces or moved off one: how many are named",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    size = (args.width, args.width * 3 // 4)
    restrict = not args.all_games and not args.mixed
    settings = ast.literal_eval(args.config) if args.config else {}
    if "verify_align" in settings:
        settings["verify_align"] = AlignConfig(**settings["verify_align"])
    config = IdentifyConfig(verify=args.verify, **settings)
    started = time.perf_counter()
    extra: dict[str, Any] = {}
    if args.style == "restyled":
        from tests.vision.restyle import restyled_art

        with tempfile.TemporaryDirectory() as folder:
            home = Path(folder)
            os.environ["TABLE_COMPANION_HOME"] = str(home)
            if args.no_enrol:  # the control: the restyled edition against the companion art
                identifier = Identifier(default_gallery(), config)
            else:
                extra["enrolment"] = enrol_restyled(home, args.seed)
                identifier = Identifier(load_gallery(home=home), config)
            with restyled_art():
                result = evaluate(
                    identifier, args.count, args.seed, args.noise, size, restrict, args.corners
                )
    elif args.garbage:
        identifier = Identifier(default_gallery(), config)
        result = evaluate_garbage(identifier, args.count, args.seed, size)
        result.update(pieces=0, ms_per_piece=0.0, corners={}, tally={})
    elif args.frames > 1:
        identifier = Identifier(default_gallery(), config)
        result = evaluate_voting(identifier, args.count, args.seed, args.noise, size, args.frames)
        result.update(pieces=0, ms_per_piece=0.0, corners={})
    else:
        identifier = Identifier(default_gallery(), config)
        result = evaluate(
            identifier, args.count, args.seed, args.noise, size, restrict, args.corners, args.mixed
        )
    result.update(extra)
    result["seconds"] = round(time.perf_counter() - started, 1)
    result["settings"] = {k: v for k, v in vars(args).items() if k != "json"}
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"style={args.style} scenes/game={args.count} noise={args.noise} size={size} "
        f"restricted_to_game={restrict} pieces={result['pieces']}"
    )
    for key, counts in result["tally"].items():
        n = sum(counts.values())
        rates = " ".join(f"{k}={v / n:.3f}" for k, v in counts.items())
        print(f"  {key:45s} n={n:4d} {rates}")
    for bucket, stats in result["corners"].items():
        print(
            f"  corners {bucket:8s} "
            + " ".join(
                f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in stats.items()
            )
        )
    for key, counts in result.get("garbage", {}).items():
        print(f"  garbage {key:40s} boxes={counts['boxes']:4d} named={counts['named']}")
    if "enrolment" in result:
        for game, report in result["enrolment"].items():
            print(f"  enrolled {game}: {report['enrolled']} (refused {len(report['refused'])})")
    print(f"  match ms/piece={result['ms_per_piece']:.2f}  total {result['seconds']} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
