"""Café International board registration on rendered photos: how often every chair lands right.

For N seeded mid-game Café tables (eval split, seeds 9_000_000 + k, the same tables as
`end_of_game_scores.py --render`), the scene renderer draws the companion board at 1280 × 960
with the eval split's light, blur and noise; `register_companion_board` registers it from the
pixels alone. A registration is right when every chair lies within 10 px of where the camera put
it, wrong otherwise (a wrong registration must never be returned: it must be refused instead).
Prints right %, refused, wrong, the worst error of the right ones, and seconds per table; with
``--hands`` a hand reaches over the board in every photo (markers may be covered).

    .venv/bin/python benchmarks/cafe_registration.py [--tables 200] [--hands] [--csv FILE]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines.cafe_international as ci  # noqa: E402
from engines.api import random_playout  # noqa: E402
from vision.readers import cafe_international as ci_reader  # noqa: E402

SEED_BASE = 9_000_000
NAMES = ("Anna", "Ben", "Cleo", "Dan", "Eve")
LAYOUT_JSON = json.loads(
    (
        Path(__file__).resolve().parents[1]
        / "engines/cafe_international/data/reference_layout.json"
    ).read_text(encoding="utf-8")
)


def table(seed: int, hands: bool) -> tuple[np.ndarray, dict]:
    """The rendered mid-game table of `seed` (as `end_of_game_scores.ci_registration` draws it)."""
    from datasets.state_render import render_state

    rng = random.Random(seed)
    state = ci.new_game(list(NAMES[: 2 + seed % 3]))
    state = random_playout(ci, state, rng.randrange(10, 80), rng)
    reach: tuple[tuple[float, float], ...] = ()
    if hands:
        hand_rng = np.random.default_rng([seed, 5])
        x, y = hand_rng.uniform([-300.0, -250.0], [300.0, 250.0])
        reach = ((float(x), float(y)),)
    return render_state("cafe-international", state, seed, size=(1280, 960), hands=reach)


def chair_error_px(registration: ci_reader.Registration, truth: dict) -> float:
    """The largest distance (px) between a chair as registered and as the camera put it."""
    from datasets.render.camera import look_at_table
    from datasets.render.layouts import board_unit_to_local_mm

    keys = ("target_mm", "distance_mm", "tilt_deg", "azimuth_deg", "roll_deg", "hfov_deg")
    camera = look_at_table(1280, 960, **{k: truth["camera"][k] for k in keys})
    units = np.array([c["center"] for c in LAYOUT_JSON["chairs"]], float)
    mm = board_unit_to_local_mm(units)
    expected = camera.project(np.column_stack([mm, np.full(len(mm), 3.7)]))
    got = registration.homography @ np.column_stack([units, np.ones(len(units))]).T
    return float(np.abs((got[:2] / got[2]).T - expected).max())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--start", type=int, default=0, help="first table index")
    parser.add_argument("--hands", action="store_true", help="a hand over the board")
    parser.add_argument("--csv", type=Path, help="write one row per table")
    args = parser.parse_args()
    rows: list[dict[str, str]] = []
    seconds = 0.0
    for k in range(args.start, args.start + args.tables):
        seed = SEED_BASE + k
        image, truth = table(seed, args.hands)
        start = time.perf_counter()
        try:
            registration = ci_reader.register_companion_board(image, LAYOUT_JSON)
            reason = ""
        except ci_reader.RegistrationError as error:
            registration, reason = None, str(error)
        seconds += time.perf_counter() - start
        if registration is None:
            rows.append({"seed": str(seed), "outcome": "refused", "error_px": "", "reason": reason})
            continue
        error_px = chair_error_px(registration, truth)
        outcome = "right" if error_px < 10.0 else "wrong"
        rows.append(
            {"seed": str(seed), "outcome": outcome, "error_px": f"{error_px:.2f}", "reason": ""}
        )
    outcomes = [r["outcome"] for r in rows]
    errors = [float(r["error_px"]) for r in rows if r["outcome"] == "right"]
    n = len(rows)
    print(
        f"café registration{' (hand over the board)' if args.hands else ''}: tables {n}  "
        f"right {100 * outcomes.count('right') / n:.1f} %  refused {outcomes.count('refused')}  "
        f"wrong {outcomes.count('wrong')}  worst right error "
        f"{max(errors) if errors else float('nan'):.1f} px  "
        f"median {float(np.median(errors)) if errors else float('nan'):.1f} px  "
        f"{1000 * seconds / n:.0f} ms/table (registration only)"
    )
    if args.csv:
        with args.csv.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=["seed", "outcome", "error_px", "reason"])
            writer.writeheader()
            writer.writerows(rows)


if __name__ == "__main__":
    main()
