"""Corner refinement on rendered eval scenes: corner error and identification per corner source.

Reads the rendered eval scenes of a scene cache (`models.data.read_scene_cache`; default
``runs/cache/eval_s100``), keeps the scenes of a game (those have cards or tiles), runs the
detector, and matches its card and tile boxes to the target pieces of the same kind (IoU ≥ 0.5,
each piece once). For every matched piece it compares corner sources:

- ``detector``: the detector's own corners;
- ``quad_in_box``: `vision.rectify.quad_in_box` (the piece's aspect turned to the box's edges);
- ``refined``: `vision.outline.refine_quad` started from the detector's corners;
- ``learned``: the corner refiner (`vision.corner_refiner.CornerRefiner`, two rounds) started
  from the detector's corners (the pipeline's rectify stage);
- ``learned_box``: the corner refiner started from ``quad_in_box``;
- ``learned_rect``: the corner refiner started from the detection box's own rectangle;
- ``learned_pick``: of ``learned`` and ``learned_rect``, the quad whose bounding box agrees
  better with the detection box (IoU), per piece;
- ``learned_outline``: `refine_quad` started from ``learned``;
- ``snapped``: ``learned`` with each corner snapped (`vision.corner_snap.CornerSnapper`; the
  pipeline's rectify stage);
- ``snapped_outline``: `refine_quad` started from ``snapped`` (the pipeline's outline look);
- ``snapped_box``: ``learned_box`` snapped (the pipeline's second look);
- ``snapped_rect``: ``learned_rect`` snapped;
- ``true``: the rendered piece's true corners (the ceiling).

It reports the corner error (`models.evaluate.corner_error`: mean corner distance over the
piece's mean edge; median and share within 2 % and 5 %), identification with those corners
(`Identifier.identify_detailed` restricted to the scene's game: correct / wrong / null, as in
``models.evaluate``; a face-down piece is correct when null), the share of pieces the refinement
changed (quality > 0) and its time per piece. The ``a>b`` rows are the pipeline's looks in turn:
a piece left unnamed with a's corners is identified again with b's (``detector>quad_in_box`` is
`vision.pipeline`'s second look today).

    .venv/bin/python benchmarks/corner_refinement.py
    .venv/bin/python benchmarks/corner_refinement.py --scenes 40 --json runs/corner_refinement.json
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from models.data import read_scene_cache  # noqa: E402
from models.evaluate import _iou_matrix, corner_error  # noqa: E402
from vision.corner_refiner import PIECE_ASPECTS, CornerRefiner  # noqa: E402
from vision.corner_snap import CornerSnapConfig, CornerSnapper  # noqa: E402
from vision.detector import Detector  # noqa: E402
from vision.identify import Identifier  # noqa: E402
from vision.outline import refine_quad  # noqa: E402
from vision.rectify import quad_in_box  # noqa: E402

ASPECTS = PIECE_ASPECTS
SOURCES = (
    "detector",
    "quad_in_box",
    "refined",
    "learned",
    "learned_box",
    "learned_rect",
    "learned_pick",
    "learned_outline",
    "snapped",
    "snapped_outline",
    "snapped_box",
    "snapped_rect",
    "true",
)
# the pipeline's looks in turn: a piece left unnamed by one is tried with the next one's corners
CASCADES = {
    "detector>quad_in_box": ("detector", "quad_in_box"),
    "detector>quad_in_box>refined": ("detector", "quad_in_box", "refined"),
    "detector>refined>quad_in_box": ("detector", "refined", "quad_in_box"),
    "refined>detector>quad_in_box": ("refined", "detector", "quad_in_box"),
    "learned>learned_box": ("learned", "learned_box"),
    "learned>learned_box>refined": ("learned", "learned_box", "refined"),
    "learned>learned_outline": ("learned", "learned_outline"),
    "learned>learned_box>learned_outline": ("learned", "learned_box", "learned_outline"),
    "learned_pick>learned_outline": ("learned_pick", "learned_outline"),
    "snapped>snapped_outline": ("snapped", "snapped_outline"),
    "snapped>learned": ("snapped", "learned"),
    "snapped>learned>snapped_outline": ("snapped", "learned", "snapped_outline"),
    "snapped>snapped_box": ("snapped", "snapped_box"),
    "snapped>snapped_box>snapped_outline": ("snapped", "snapped_box", "snapped_outline"),
    "snapped>snapped_box>snapped_rect": ("snapped", "snapped_box", "snapped_rect"),
    "snapped>snapped_box>snapped_rect>snapped_outline": (
        "snapped",
        "snapped_box",
        "snapped_rect",
        "snapped_outline",
    ),
}


def _match(boxes: np.ndarray, truth: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """(detection row, truth index) pairs: best IoU ≥ 0.5, each truth piece once."""
    truth_boxes = np.array([o["box"] for o in truth], np.float64).reshape(-1, 4)
    iou = _iou_matrix(boxes.astype(np.float64), truth_boxes)
    pairs: list[tuple[int, int]] = []
    used: set[int] = set()
    for i in range(len(boxes)):
        if iou.shape[1] == 0:
            break
        j = int(np.argmax(iou[i]))
        if iou[i, j] >= 0.5 and j not in used:
            used.add(j)
            pairs.append((i, j))
    return pairs


def _box_agreement(quad: np.ndarray, box: np.ndarray) -> float:
    """IoU of the quad's bounding box with the detection box."""
    lo, hi = quad.min(axis=0), quad.max(axis=0)
    return float(_iou_matrix(np.array([[*lo, *hi]]), np.asarray(box, np.float64)[None])[0, 0])


def _named(match: Any) -> bool:
    return match is not None and match.identity is not None


def _outcome(match: Any, piece: dict[str, Any]) -> str:
    expected = piece.get("identity") if piece.get("face_up", True) else None
    got = match.identity if match is not None else None
    if got is None:
        return "correct" if expected is None else "null"
    aliases = match.aliases if match is not None else ()
    right = expected is not None and (got == expected or expected in aliases)
    return "correct" if right else "wrong"


def run(
    cache: Path,
    scenes: int,
    model: str | None,
    skip: int = 0,
    refiner_model: str | None = None,
    snapper_model: str | None = None,
    snap_rounds: int = 1,
) -> dict[str, Any]:
    detector = Detector(model)
    refiner = CornerRefiner(refiner_model)
    snapper = CornerSnapper(snapper_model, CornerSnapConfig(rounds=snap_rounds))
    identifier = Identifier()
    records = [r for r in read_scene_cache(cache) if r.truth.get("game")][skip : skip + scenes]
    errors: dict[tuple[str, str], list[float]] = defaultdict(list)
    outcomes: dict[tuple[str, str], dict[str, int]] = defaultdict(
        lambda: {"correct": 0, "wrong": 0, "null": 0}
    )
    changed: dict[str, list[bool]] = defaultdict(list)
    refine_seconds = 0.0
    learned_seconds = 0.0
    snap_seconds = 0.0
    for record in records:
        frame = cv2.imread(str(record.image_path))
        if frame is None:
            continue
        detections = detector.detect(frame)
        games = [str(record.truth["game"])]
        for kind in ("card", "tile"):
            truth = [
                o
                for o in record.truth["objects"]
                if o["kind"] == kind and o.get("target") and o.get("corners") and o.get("box")
            ]
            of_kind = detections[detections.kinds == kind]
            pairs = _match(of_kind.boxes_xyxy, truth) if truth else []
            if not pairs:
                continue
            matched = of_kind[np.array([i for i, _ in pairs])]
            pieces = [truth[j] for _, j in pairs]
            true = np.array([p["corners"] for p in pieces], np.float64)
            boxes = matched.boxes_xyxy.astype(np.float64)
            detected = matched.corners_px.astype(np.float64)
            in_box = np.stack([quad_in_box(frame, b, ASPECTS[kind]) for b in boxes])
            refined = np.empty_like(detected)
            for i in range(len(detected)):
                start = time.perf_counter()
                refined[i], quality = refine_quad(frame, detected[i], boxes[i], ASPECTS[kind])
                refine_seconds += time.perf_counter() - start
                changed[kind].append(quality > 0)
            start = time.perf_counter()
            learned = refiner.refine(frame, detected, ASPECTS[kind])
            learned_seconds += time.perf_counter() - start
            start = time.perf_counter()
            snapped = snapper.snap(frame, learned)
            snap_seconds += time.perf_counter() - start
            rect = np.stack(
                [[[b[0], b[1]], [b[2], b[1]], [b[2], b[3]], [b[0], b[3]]] for b in boxes]
            )
            learned_rect = refiner.refine(frame, rect, ASPECTS[kind])
            learned_box = refiner.refine(frame, in_box.astype(np.float64), ASPECTS[kind])
            pick = np.stack(
                [
                    a if _box_agreement(a, box) >= _box_agreement(r, box) else r
                    for a, r, box in zip(learned, learned_rect, boxes, strict=True)
                ]
            )
            corners = {
                "detector": detected,
                "quad_in_box": in_box.astype(np.float64),
                "refined": refined,
                "learned": learned,
                "learned_box": learned_box,
                "learned_rect": learned_rect,
                "learned_pick": pick,
                "learned_outline": np.stack(
                    [
                        refine_quad(frame, quad, box, ASPECTS[kind])[0]
                        for quad, box in zip(learned, boxes, strict=True)
                    ]
                ),
                "snapped": snapped,
                "snapped_outline": np.stack(
                    [
                        refine_quad(frame, quad, box, ASPECTS[kind])[0]
                        for quad, box in zip(snapped, boxes, strict=True)
                    ]
                ),
                "snapped_box": snapper.snap(frame, learned_box),
                "snapped_rect": snapper.snap(frame, learned_rect),
                "true": true,
            }
            found: dict[str, list[Any]] = {}
            for source, quads in corners.items():
                for quad, t in zip(quads, true, strict=True):
                    errors[(kind, source)].append(corner_error(quad, t))
                with_corners = matched.with_fields(corners_px=quads.astype(np.float32))
                _, found[source] = identifier.identify_detailed(frame, with_corners, games)
                for match, piece in zip(found[source], pieces, strict=True):
                    outcomes[(kind, source)][_outcome(match, piece)] += 1
            for name, looks in CASCADES.items():
                for i, piece in enumerate(pieces):
                    named = [found[s][i] for s in looks if _named(found[s][i])]
                    outcomes[(kind, name)][_outcome(named[0] if named else None, piece)] += 1
    pieces_total = sum(len(v) for v in changed.values())
    summary: dict[str, Any] = {
        "scenes": len(records),
        "refine_ms_per_piece": round(1000 * refine_seconds / max(pieces_total, 1), 3),
        "learned_ms_per_piece": round(1000 * learned_seconds / max(pieces_total, 1), 3),
        "snap_ms_per_piece": round(1000 * snap_seconds / max(pieces_total, 1), 3),
        "kinds": {},
    }
    for kind in ("card", "tile"):
        if not changed[kind]:
            continue
        entry: dict[str, Any] = {
            "pieces": len(changed[kind]),
            "refined_share": round(float(np.mean(changed[kind])), 3),
        }
        for name in CASCADES:
            counts = outcomes[(kind, name)]
            n = max(sum(counts.values()), 1)
            entry[name] = {k: round(v / n, 3) for k, v in counts.items()}
        for source in SOURCES:
            values = np.array(errors[(kind, source)])
            counts = outcomes[(kind, source)]
            n = max(sum(counts.values()), 1)
            entry[source] = {
                "corner_median": round(float(np.median(values)), 4),
                "within_0.01": round(float((values <= 0.01).mean()), 3),
                "within_0.02": round(float((values <= 0.02).mean()), 3),
                "within_0.05": round(float((values <= 0.05).mean()), 3),
                **{k: round(v / n, 3) for k, v in counts.items()},
            }
        summary["kinds"][kind] = entry
    return summary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=ROOT / "runs" / "cache" / "eval_s100")
    parser.add_argument("--scenes", type=int, default=80, help="scenes of a game to read")
    parser.add_argument("--skip", type=int, default=0, help="leave out the first N of them")
    parser.add_argument("--model", default=None, help="detector ONNX (default: the shipped one)")
    parser.add_argument("--refiner", default=None, help="corner refiner ONNX (default: shipped)")
    parser.add_argument("--snapper", default=None, help="corner snapper ONNX (default: shipped)")
    parser.add_argument("--snap-rounds", type=int, default=1, help="corner snapper rounds")
    parser.add_argument("--json", type=Path, default=None, help="also write the summary here")
    args = parser.parse_args()
    summary = run(
        args.cache,
        args.scenes,
        args.model,
        args.skip,
        args.refiner,
        args.snapper,
        args.snap_rounds,
    )
    print(
        f"{summary['scenes']} scenes, refine_quad {summary['refine_ms_per_piece']} ms/piece,"
        f" corner refiner {summary['learned_ms_per_piece']} ms/piece,"
        f" corner snapper {summary['snap_ms_per_piece']} ms/piece"
    )
    header = f"{'kind':5} {'source':15} {'median':>7} {'<=1%':>6} {'<=2%':>6} {'<=5%':>6}"
    print(header + f" {'correct':>8} {'wrong':>6} {'null':>6}")
    for kind, entry in summary["kinds"].items():
        for source in SOURCES:
            s = entry[source]
            print(
                f"{kind:5} {source:15} {s['corner_median']:7.3f} {s['within_0.01']:6.2f}"
                f" {s['within_0.02']:6.2f}"
                f" {s['within_0.05']:6.2f} {s['correct']:8.3f} {s['wrong']:6.3f} {s['null']:6.3f}"
            )
        for name in CASCADES:
            s = entry[name]
            print(
                f"{kind:5} {name:33} {s['correct']:8.3f} {s['wrong']:6.3f} {s['null']:6.3f}"
                " (next look where unnamed)"
            )
        print(f"{kind:5} pieces {entry['pieces']}, refined (quality > 0) {entry['refined_share']}")
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    main()
