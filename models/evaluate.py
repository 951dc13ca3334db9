"""Evaluate the perception pipeline: ``python -m models.evaluate``.

Two sets:
- **synthetic**: the eval split of our rendered scenes (``runs/cache/eval_s100`` by default,
  rendered with ``--split eval`` when missing). Per kind, predictions are matched one-to-one to the
  renderer's `target` objects by IoU ≥ 0.5 (best score first); a prediction on a recorded but
  non-target object (mostly hidden or cut by the border) is neither right nor wrong. Reports
  recall and precision at the configured thresholds, the best recall at precision ≥ 0.98 over all
  thresholds, and the die value (and colour) accuracy of matched dice.
- **dice-webcam** (real photos, validation only): a predicted die matches a label when the label's
  centre (a box around the top face's pips) lies inside the predicted box; each label and each
  prediction is used once. Reports dice found, found with the right value, and false dice per image.

Writes a per-sample table (CSV and JSON: counts per stage, per-stage times in ms, or the error of a
sample that failed) and ``summary.json`` into the output folder, and prints the summary.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.detections import KINDS, Detections
from vision.detector import DetectorConfig
from vision.pipeline import PIECE_READER_MODES, TOP_FACE_MODES, Perception, PerceptionConfig

ROOT = Path(__file__).resolve().parent.parent
WEBCAM = ROOT.parent / "shared" / "datasets" / "dice-webcam"
SWEEP_THRESHOLD = 0.15


def _iou_matrix(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if len(a) == 0 or len(b) == 0:
        return np.zeros((len(a), len(b)))
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / np.maximum(area_a[:, None] + area_b[None, :] - inter, 1e-6)


def _timed(
    perception: Perception, frame: np.ndarray
) -> tuple[Detections, dict[str, float], list[Any]]:
    """Run the pipeline's stages one by one, timing each from outside; also returns every
    row's identification `Match` (None for dice), so that scoring identities needs no second
    identification."""
    times: dict[str, float] = {}
    detections: Detections | None = None
    matches: list[Any] = []
    for name, stage in perception.stages:
        start = time.perf_counter()
        if detections is None:
            detections = stage(frame)
        elif name == "identify":
            detections, matches = perception.identify_detailed(frame, detections)
        else:
            detections = stage(frame, detections)
        times[f"ms_{name}"] = round((time.perf_counter() - start) * 1000, 2)
    assert detections is not None
    return detections, times, matches or [None] * len(detections)


# --- synthetic ---------------------------------------------------------------------------------
def evaluate_synthetic(
    perception: Perception, folder: Path, thresholds: dict[str, float], limit: int | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-image rows and the summary on a rendered scene folder."""
    from models.data import die_is_readable, read_scene_cache

    records = list(read_scene_cache(folder))[:limit]
    rows: list[dict[str, Any]] = []
    # per kind: (score, is_true_positive) of every prediction, and the number of targets
    scored: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    targets: dict[str, int] = defaultdict(int)
    dice_right = dice_colour_right = dice_read = 0
    readable_right = readable_read = 0
    # identities of matched cards and tiles: correct (or a piece with the same face) / wrong / null
    identity_counts: dict[str, dict[str, int]] = {
        k: {"correct": 0, "wrong": 0, "null": 0} for k in ("card", "tile")
    }
    by_size: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    # identities of matched pieces by their width in the frame (where the nulls are)
    identity_by_width: dict[str, dict[str, int]] = defaultdict(
        lambda: {"correct": 0, "wrong": 0, "null": 0}
    )
    corner_errors: dict[str, list[float]] = defaultdict(list)
    for record in records:
        row: dict[str, Any] = {"sample": record.image_path.name, "error": ""}
        try:
            frame = cv2.imread(str(record.image_path), cv2.IMREAD_COLOR)
            if frame is None:
                raise ValueError(f"cannot read {record.image_path}")
            detections, times, matches = _timed(perception, frame)
            row.update(times)
            for kind in KINDS:
                objs = [o for o in record.truth["objects"] if o["kind"] == kind and o.get("box")]
                truth = [o for o in objs if o.get("target")]
                ignored = np.array([o["box"] for o in objs if not o.get("target")]).reshape(-1, 4)
                truth_boxes = np.array([o["box"] for o in truth], np.float64).reshape(-1, 4)
                of_kind = np.flatnonzero(detections.kinds == kind)
                order = np.argsort(-detections.scores[of_kind], kind="stable")
                in_frame = of_kind[order]  # prediction i is detections row in_frame[i]
                pred = detections[in_frame]
                iou = _iou_matrix(pred.boxes_xyxy.astype(np.float64), truth_boxes)
                iou_ignored = _iou_matrix(pred.boxes_xyxy.astype(np.float64), ignored)
                used = np.zeros(len(truth), bool)
                tp = fp = 0
                matched: list[tuple[int, int]] = []
                for i in range(len(pred)):
                    candidates = np.where(~used & (iou[i] >= 0.5), iou[i], -1.0)
                    j = int(np.argmax(candidates)) if len(truth) else -1
                    score = float(pred.scores[i])
                    if j >= 0 and candidates[j] >= 0.5:
                        used[j] = True
                        scored[kind].append((score, True))
                        if score >= thresholds[kind]:
                            tp += 1
                            matched.append((i, j))
                            if kind == "die":
                                dice_read += 1
                                ok = int(pred.die_values[i]) == int(truth[j]["value"])
                                dice_right += ok
                                dice_colour_right += pred.die_colours[i] == truth[j].get("colour")
                                effects = record.truth.get("params", {}).get("effects")
                                if die_is_readable(truth[j], effects):
                                    readable_read += 1
                                    readable_right += ok
                                bucket = _size_bucket(truth_boxes[j])
                                by_size[bucket][0] += ok
                                by_size[bucket][1] += 1
                    elif iou_ignored.shape[1] and iou_ignored[i].max() >= 0.3:
                        continue  # a hidden or cut object: neither right nor wrong
                    else:
                        scored[kind].append((score, False))
                        fp += int(score >= thresholds[kind])
                for i, j in matched:
                    if kind != "die" and truth[j].get("corners"):
                        corner_errors[kind].append(
                            corner_error(pred.corners_px[i], np.array(truth[j]["corners"]))
                        )
                if kind in identity_counts and matched:
                    _score_identities(
                        [matches[in_frame[i]] for i, _ in matched],
                        [truth[j] for _, j in matched],
                        identity_counts[kind],
                    )
                    for i, j in matched:
                        bucket = f"{kind} {_piece_width_bucket(truth_boxes[j])}"
                        _score_identities(
                            [matches[in_frame[i]]], [truth[j]], identity_by_width[bucket]
                        )
                targets[kind] += len(truth)
                row[f"{kind}_targets"] = len(truth)
                row[f"{kind}_tp"] = tp
                row[f"{kind}_fp"] = fp
                row[f"{kind}_fn"] = len(truth) - tp
        except Exception as error:  # a failing sample is a row, not a crash
            row["error"] = f"{type(error).__name__}: {error}"
        rows.append(row)
    summary: dict[str, Any] = {
        "images": len(records),
        "errors": sum(bool(r["error"]) for r in rows),
    }
    for kind in KINDS:
        pairs = sorted(scored[kind], key=lambda p: -p[0])
        flags = np.array([p[1] for p in pairs], bool)
        scores = np.array([p[0] for p in pairs])
        total = targets[kind]
        at = scores >= thresholds[kind]
        tp = int(flags[at].sum())
        fp = int((~flags[at]).sum())
        best_recall, best_threshold = 0.0, None
        if len(flags) and total:
            cum_tp = np.cumsum(flags)
            precision = cum_tp / np.arange(1, len(flags) + 1)
            recall = cum_tp / total
            reached = precision >= 0.98
            if reached.any():
                k = int(np.argmax(np.where(reached, recall, -1)))
                best_recall, best_threshold = float(recall[k]), float(scores[k])
        summary[kind] = {
            "targets": total,
            "recall": round(tp / total, 4) if total else None,
            "precision": round(tp / (tp + fp), 4) if tp + fp else None,
            "best_recall_at_precision_0.98": round(best_recall, 4),
            "threshold_for_it": best_threshold,
        }
    summary["die_value_accuracy"] = round(dice_right / dice_read, 4) if dice_read else None
    summary["die_colour_accuracy"] = round(dice_colour_right / dice_read, 4) if dice_read else None
    summary["identities"] = {
        k: {**v, "correct_rate": round(v["correct"] / max(sum(v.values()), 1), 4)}
        for k, v in identity_counts.items()
    }
    summary["identities_by_width_px"] = {k: v for k, v in sorted(identity_by_width.items())}
    summary["corner_error"] = {k: _error_summary(v) for k, v in sorted(corner_errors.items())}
    summary["dice_read"] = dice_read
    # dice too blurred or too small for their pips to be told apart (models.data.die_is_readable)
    summary["readable_die_value_accuracy"] = (
        round(readable_right / readable_read, 4) if readable_read else None
    )
    summary["readable_dice_read"] = readable_read
    summary["die_value_accuracy_by_width_px"] = {
        k: {"accuracy": round(v[0] / v[1], 4), "dice": v[1]} for k, v in sorted(by_size.items())
    }
    _add_times(summary, rows)
    return rows, summary


def corner_error(predicted: np.ndarray, true: np.ndarray) -> float:
    """Mean distance of predicted to true corners over the piece's mean edge length, for the best
    of the 8 orders round the quad (which corner is "first" is the identifier's business, and a
    face-down piece's truth lists its back's corners, turning the other way in the image); NaN
    corners (none predicted) give inf."""
    predicted = np.asarray(predicted, np.float64).reshape(4, 2)
    true = np.asarray(true, np.float64).reshape(4, 2)
    if not np.all(np.isfinite(predicted)):
        return float("inf")
    edge = float(np.linalg.norm(np.roll(true, -1, axis=0) - true, axis=1).mean())
    best = min(
        float(np.linalg.norm(np.roll(order, k, axis=0) - true, axis=1).mean())
        for order in (predicted, predicted[::-1])
        for k in range(4)
    )
    return best / max(edge, 1e-9)


def _error_summary(errors: list[float]) -> dict[str, Any]:
    values = np.array(errors, np.float64)
    return {
        "pieces": len(values),
        "median": round(float(np.median(values)), 4),
        "p90": round(float(np.quantile(values, 0.9)), 4),
        "within_0.01": round(float((values <= 0.01).mean()), 4),
        "within_0.02": round(float((values <= 0.02).mean()), 4),
        "within_0.05": round(float((values <= 0.05).mean()), 4),
    }


def _score_identities(
    matches: list[Any], truth: list[dict[str, Any]], counts: dict[str, int]
) -> None:
    """Count the identities of matched detections (their `Match` and true objects, in pairs):
    a face-up piece is correct when named (or a piece with an identical face is), wrong for
    another name, null for none; a face-down one is correct when null."""
    for match, piece in zip(matches, truth, strict=True):
        identity = match.identity if match is not None else None
        aliases = match.aliases if match is not None else ()
        expected = piece.get("identity") if piece.get("face_up", True) else None
        if identity is None:
            counts["correct" if expected is None else "null"] += 1
        elif expected is not None and (identity == expected or expected in aliases):
            counts["correct"] += 1
        else:
            counts["wrong"] += 1


def _piece_width_bucket(box: np.ndarray) -> str:
    width = float(max(box[2] - box[0], box[3] - box[1]))
    return "<40" if width < 40 else "40-80" if width < 80 else ">=80"


def _size_bucket(box: np.ndarray) -> str:
    width = float(max(box[2] - box[0], box[3] - box[1]))
    return "<24" if width < 24 else "24-48" if width < 48 else ">=48"


# --- dice-webcam -------------------------------------------------------------------------------
def evaluate_webcam(
    perception: Perception, folder: Path, threshold: float, limit: int | None
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per-image rows and the summary on the real dice-webcam photos (validation only)."""
    labels: dict[str, list[tuple[float, float, int]]] = defaultdict(list)
    with (folder / "annotations.csv").open() as f:
        for r in csv.DictReader(f):
            cx = (float(r["x1"]) + float(r["x2"])) / 2
            cy = (float(r["y1"]) + float(r["y2"])) / 2
            labels[r["filename"]].append((cx, cy, int(r["value"])))
    names = sorted(labels)[:limit]
    rows: list[dict[str, Any]] = []
    totals: dict[str, int] = defaultdict(int)
    confusions: dict[str, int] = defaultdict(int)
    for name in names:
        row: dict[str, Any] = {"sample": name, "error": ""}
        truth = labels[name]
        try:
            frame = cv2.imread(str(folder / name), cv2.IMREAD_COLOR)
            if frame is None:
                raise ValueError(f"cannot read {name}")
            detections, times, _ = _timed(perception, frame)
            row.update(times)
            dice = detections[(detections.kinds == "die") & (detections.scores >= threshold)]
            order = np.argsort(-dice.scores, kind="stable")
            dice = dice[order]
            used = np.zeros(len(dice), bool)
            found = right = confident_right = 0
            for cx, cy, value in truth:
                b = dice.boxes_xyxy
                inside = (b[:, 0] <= cx) & (cx <= b[:, 2]) & (b[:, 1] <= cy) & (cy <= b[:, 3])
                candidates = np.flatnonzero(inside & ~used)
                if len(candidates) == 0:
                    confusions[f"{value}->missed"] += 1
                    continue
                i = int(candidates[0])
                used[i] = True
                found += 1
                got = int(dice.die_values[i])
                right += got == value
                combined = float(dice.scores[i] * dice.die_value_scores[i])
                confident_right += got == value and combined >= 0.5
                if got != value:
                    confusions[f"{value}->{got}"] += 1
            row.update(
                labelled=len(truth),
                found=found,
                right_value=right,
                confident_right_value=confident_right,
                false_dice=int((~used).sum()),
            )
            for key in ("labelled", "found", "right_value", "confident_right_value", "false_dice"):
                totals[key] += row[key]
        except Exception as error:  # a failing sample is a row, not a crash
            row["error"] = f"{type(error).__name__}: {error}"
        rows.append(row)
    n = max(totals["labelled"], 1)
    summary: dict[str, Any] = {
        "images": len(names),
        "errors": sum(bool(r["error"]) for r in rows),
        "labelled_dice": totals["labelled"],
        "found": round(totals["found"] / n, 4),
        "found_with_right_value": round(totals["right_value"] / n, 4),
        "found_with_right_value_and_score_0.5": round(totals["confident_right_value"] / n, 4),
        "false_dice_per_image": round(totals["false_dice"] / max(len(names), 1), 4),
        "confusions": dict(sorted(confusions.items(), key=lambda kv: -kv[1])[:15]),
    }
    _add_times(summary, rows)
    return rows, summary


def _add_times(summary: dict[str, Any], rows: list[dict[str, Any]]) -> None:
    keys = sorted({k for r in rows for k in r if k.startswith("ms_")})
    summary["median_ms"] = {
        k[3:]: round(float(np.median([r[k] for r in rows if k in r])), 2) for k in keys
    }


def _write_table(path: Path, rows: list[dict[str, Any]]) -> None:
    keys: list[str] = []
    for r in rows:
        keys += [k for k in r if k not in keys]
    with path.with_suffix(".csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)
    path.with_suffix(".json").write_text(json.dumps(rows, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    """Run the evaluation from the command line."""
    parser = argparse.ArgumentParser(
        prog="python -m models.evaluate",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--synthetic", type=Path, default=ROOT / "runs" / "cache" / "eval_s100")
    parser.add_argument(
        "--synthetic-count",
        type=int,
        default=300,
        help="eval scenes to render when the folder is missing",
    )
    parser.add_argument("--webcam", type=Path, default=WEBCAM)
    parser.add_argument("--sets", default="synthetic,webcam", help="comma-separated sets")
    parser.add_argument("--limit", type=int, default=None, help="at most this many images per set")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "eval-latest")
    parser.add_argument("--detector-model", type=Path, default=None)
    parser.add_argument("--dice-model", type=Path, default=None)
    parser.add_argument(
        "--top-face-models",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder with another dice_top_face.onnx and dice_face_reader.onnx (training --out)",
    )
    parser.add_argument(
        "--corner-model", type=Path, default=None, help="another corner refiner ONNX"
    )
    parser.add_argument("--snap-model", type=Path, default=None, help="another corner snapper ONNX")
    parser.add_argument(
        "--no-snap", action="store_true", help="leave the corner refiner's corners unsnapped"
    )
    parser.add_argument(
        "--second-look",
        choices=("on", "off"),
        default="on" if PerceptionConfig().second_look else "off",
        help="retry unnamed cards and tiles from their box's edge-turned rectangle",
    )
    parser.add_argument(
        "--outline-look",
        choices=("on", "off"),
        default="on" if PerceptionConfig().outline_look else "off",
        help="retry cards and tiles still unnamed with their corners moved onto the outline",
    )
    parser.add_argument("--pip-veto", action="store_true", help="let the pip counter veto")
    parser.add_argument(
        "--top-face",
        choices=TOP_FACE_MODES,
        default=PerceptionConfig().top_face,
        help="how the top-face reader joins the whole-die reader",
    )
    parser.add_argument(
        "--piece-reader",
        choices=PIECE_READER_MODES,
        default=PerceptionConfig().piece_reader,
        help="how the piece reader joins the gallery match (cards and tiles)",
    )
    parser.add_argument("--piece-model", type=Path, default=None)
    parser.add_argument(
        "--drop-not-pieces",
        type=float,
        default=PerceptionConfig().drop_not_pieces,
        metavar="P",
        help="drop cards and tiles the piece reader finds at least P likely to be no piece",
    )
    parser.add_argument(
        "--piece-reader-veto",
        type=float,
        default=PerceptionConfig().piece_reader_veto,
        metavar="P",
        help="withdraw gallery names the piece reader gives under P",
    )
    parser.add_argument(
        "--face-reader",
        action="append",
        default=[],
        metavar="PREFIX=P",
        help="name the faces of PREFIX by its face reader at P (repeatable; e.g. dice-king/=0.9)",
    )
    args = parser.parse_args(argv)
    face_readers: dict[str, float] = {}
    for item in args.face_reader:
        prefix, _, value = item.partition("=")
        try:
            face_readers[prefix] = float(value)
        except ValueError:
            parser.error(f"--face-reader must be PREFIX=P, got {item!r}")
        if not prefix:
            parser.error(f"--face-reader must be PREFIX=P, got {item!r}")
    default = DetectorConfig()
    thresholds = dict(default.score_thresholds)
    # run the detector with low thresholds so precision/recall can be swept afterwards
    low = DetectorConfig(score_thresholds={k: SWEEP_THRESHOLD for k in thresholds})
    config = PerceptionConfig(
        detector=low,
        use_pip_veto=args.pip_veto,
        top_face=args.top_face,
        piece_reader=args.piece_reader,
        drop_not_pieces=args.drop_not_pieces,
        piece_reader_veto=args.piece_reader_veto,
        face_readers=face_readers,
        snap_corners=not args.no_snap,
        second_look=args.second_look == "on",
        outline_look=args.outline_look == "on",
    )
    perception = Perception(
        config,
        snap_model=args.snap_model,
        corner_model=args.corner_model,
        detector_model=args.detector_model,
        dice_model=args.dice_model,
        piece_model=args.piece_model,
        top_face_models=args.top_face_models,
    )
    args.out.mkdir(parents=True, exist_ok=True)
    summary: dict[str, Any] = {
        "thresholds": thresholds,
        "pip_veto": args.pip_veto,
        "top_face": args.top_face,
        "top_face_models": str(args.top_face_models) if args.top_face_models else None,
        "piece_reader": args.piece_reader,
        "drop_not_pieces": args.drop_not_pieces,
        "piece_reader_veto": args.piece_reader_veto,
        "face_readers": face_readers,
        "snap_corners": not args.no_snap,
        "second_look": args.second_look == "on",
        "outline_look": args.outline_look == "on",
        "snap_model": str(args.snap_model) if args.snap_model else None,
        "corner_model": str(args.corner_model) if args.corner_model else None,
    }
    sets = set(args.sets.split(","))
    if "synthetic" in sets:
        if not args.synthetic.exists():
            from models.data import build_scene_cache

            build_scene_cache(args.synthetic, args.synthetic_count, seed=100, split="eval")
        rows, summary["synthetic"] = evaluate_synthetic(
            perception, args.synthetic, thresholds, args.limit
        )
        _write_table(args.out / "synthetic", rows)
    if "webcam" in sets:
        if (args.webcam / "annotations.csv").exists():
            rows, summary["webcam"] = evaluate_webcam(
                perception, args.webcam, thresholds["die"], args.limit
            )
            _write_table(args.out / "webcam", rows)
        else:
            summary["webcam"] = {"error": f"no annotations.csv in {args.webcam}"}
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
