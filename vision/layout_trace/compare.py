"""Measuring a traced layout against a known one (`compare_layouts`): for tests, benchmarks and
evaluation, not part of tracing itself."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np


def _match(a: np.ndarray, b: np.ndarray, tolerance: float) -> dict[int, int]:
    """Greedy nearest-pair matching of points a → b within `tolerance`."""
    if len(a) == 0 or len(b) == 0:
        return {}
    d = np.hypot(a[:, None, 0] - b[None, :, 0], a[:, None, 1] - b[None, :, 1])
    pairs: dict[int, int] = {}
    used: set[int] = set()
    for flat in np.argsort(d, axis=None):
        i, j = divmod(int(flat), len(b))
        if d[i, j] > tolerance:
            break
        if i not in pairs and j not in used:
            pairs[i] = j
            used.add(j)
    return pairs


def compare_layouts(traced: Mapping[str, Any], truth: Mapping[str, Any]) -> dict[str, int]:
    """How well a traced layout agrees with the true one (both layout JSON with positions).

    Positions are aligned by a similarity fitted on the tables (traced units differ from the
    true ones); tables and chairs are then paired by position.

    Returns:
        Counts: ``tables``/``chairs`` (true), ``tables_found``/``chairs_found`` (traced),
        ``tables_matched``/``chairs_matched``, ``adjacency_exact`` (matched chairs whose tables
        are the matched tables of the truth), ``nationality_right`` (matched tables),
        ``stools``/``stools_found`` and ``stools_in_order`` (traced stool i at true stool i).
    """
    t_true = np.array([t["center"] for t in truth["tables"]], np.float64)
    t_found = np.array([t["center"] for t in traced["tables"]], np.float64).reshape(-1, 2)
    c_true = np.array([c["center"] for c in truth["chairs"]], np.float64)
    c_found = np.array([c["center"] for c in traced["chairs"]], np.float64).reshape(-1, 2)

    def normalise(points: np.ndarray, ref: np.ndarray) -> np.ndarray:
        centre = ref.mean(axis=0)
        scale = math.sqrt(((ref - centre) ** 2).sum(axis=1).mean()) or 1.0
        return (points - centre) / scale

    result = {
        "tables": len(t_true),
        "tables_found": len(t_found),
        "chairs": len(c_true),
        "chairs_found": len(c_found),
        "tables_matched": 0,
        "chairs_matched": 0,
        "adjacency_exact": 0,
        "nationality_right": 0,
        "stools": len(truth.get("bar", {}).get("stools", [])),
        "stools_found": len(traced.get("bar", {}).get("stools", [])),
        "stools_in_order": 0,
    }
    if len(t_found) == 0:
        return result
    # a rough alignment by the tables' spread, refined by a similarity on the first matching
    a, b = normalise(t_found, t_found), normalise(t_true, t_true)
    pairs = _match(a, b, 0.3)
    if len(pairs) >= 2:
        src = np.array([t_found[i] for i in pairs], np.float32)
        dst = np.array([t_true[j] for j in pairs.values()], np.float32)
        matrix, _ = cv2.estimateAffine2D(src, dst)
        if matrix is not None:

            def to_true(p: np.ndarray) -> np.ndarray:
                return p @ matrix[:, :2].T + matrix[:, 2]

            spacing = (
                float(np.median(np.sort(np.hypot(*(t_true[:, None] - t_true[None]).T), 1)[:, 1]))
                if len(t_true) > 1
                else 1.0
            )
            pairs = _match(to_true(t_found), t_true, 0.35 * spacing)
            chair_pairs = _match(to_true(c_found), c_true, 0.25 * spacing)
            result["chairs_matched"] = len(chair_pairs)
            s_true = np.array(truth.get("bar", {}).get("stools", []), np.float64).reshape(-1, 2)
            s_found = np.array(traced.get("bar", {}).get("stools", []), np.float64).reshape(-1, 2)
            if len(s_true) == len(s_found) and len(s_true):
                off = np.hypot(*(to_true(s_found) - s_true).T)
                result["stools_in_order"] = int((off < 0.15 * spacing).sum())
            table_of = {
                traced["tables"][i]["id"]: truth["tables"][j]["id"] for i, j in pairs.items()
            }
            for i, j in chair_pairs.items():
                mapped = {table_of.get(t, "?") for t in traced["chairs"][i]["tables"]}
                if mapped == set(truth["chairs"][j]["tables"]):
                    result["adjacency_exact"] += 1
    result["tables_matched"] = len(pairs)
    result["nationality_right"] = sum(
        traced["tables"][i]["nationality"] == truth["tables"][j]["nationality"]
        for i, j in pairs.items()
    )
    return result
