"""How long the Scoring screen's Scan takes: one player's spread read from a picture.

Renders end-of-game spreads of each game (`benchmarks/end_of_game_scores.py`'s tables, eval
split, 800×600 like its photos) and times `ScoringViewModel.read_photo` on them: the first call
of a game loads its models (what the first Scan of a game costs), the rest are the median of
one photo each. Also counts the photos read / refused (not checked against the truth here: the
end-of-game benchmark does that).

    .venv/bin/python benchmarks/scoring_scan_speed.py [--tables 10] [--seed 9000000] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from end_of_game_scores import table_photos  # noqa: E402

from companion_app.i18n import Translator  # noqa: E402
from companion_app.viewmodels.scoring import scoring_for  # noqa: E402
from datasets.state_render import render_spread  # noqa: E402

GAMES = ("kings-breakfast", "cafe-international", "dice-king")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=10, help="end-of-game tables per game")
    parser.add_argument("--seed", type=int, default=9_000_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report: dict[str, dict[str, float | int]] = {}
    for game in GAMES:
        first_ms: float | None = None
        times: list[float] = []
        read = refused = 0
        for seed in range(args.seed, args.seed + args.tables):
            for identities, photo_seed, what in table_photos(game, seed):
                frame, _ = render_spread(identities, photo_seed)
                form = scoring_for(game, ["player"], Translator("en"))
                person = "king" if what == "king" else "player"
                started = time.perf_counter()
                result = form.read_photo(person, frame)
                elapsed = (time.perf_counter() - started) * 1000
                if first_ms is None:
                    first_ms = elapsed
                else:
                    times.append(elapsed)
                read += result.ok
                refused += not result.ok
        report[game] = {
            "first_scan_ms": round(first_ms or 0.0, 1),
            "median_scan_ms": round(float(np.median(times)), 1) if times else 0.0,
            "p90_scan_ms": round(float(np.percentile(times, 90)), 1) if times else 0.0,
            "photos_read": read,
            "photos_refused": refused,
        }
    if args.json:
        print(json.dumps(report))
    else:
        for game, row in report.items():
            print(
                f"{game:<20} first {row['first_scan_ms']:>7} ms  median {row['median_scan_ms']:>7}"
                f" ms  p90 {row['p90_scan_ms']:>7} ms  read {row['photos_read']}"
                f" refused {row['photos_refused']}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
