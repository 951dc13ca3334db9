"""Café slots read directly: rendered mid-game tables → `SlotReader` → every chair and stool.

For each of N seeded random games (eval split, seeds never used in training: 9_000_000 + k,
k from ``--first``), a few dozen random steps are played and the table is rendered at
1280 × 960 with the eval split's surfaces, lights and camera effects
(`datasets.state_render.render_state`, as `end_of_game_scores.ci_registration` does). The board
is registered from its ArUco markers in the pixels (the real registration), then every chair
and bar stool is read by `vision.readers.cafe_slots.SlotReader` with the companion gallery
(the real identifier). Each slot is compared with the true state:

- right: an empty slot read empty, or a seated tile read as itself;
- null: an occupied slot whose tile could not be identified (a problem reported to the player);
- refused: an empty slot taken for occupied (also a problem reported, never a seat);
- wrong: a silently wrong seat: a tile read as another, a tile on an empty slot, or an occupied
  slot read empty. Must be ~0.

Prints one line: tables (registered), slots, occupancy right %, occupied slots identified
right / null / wrong, empty slots refused, exact boards % (every slot right), boards with a
wrong slot, and ms per frame of slot reading (all 88 slots; registration not included).
``--csv`` writes one row per slot; ``--empty-below 0`` identifies every slot (for choosing
`SlotConfig.empty_below` from the CSV on seeds other than the reported ones).

    .venv/bin/python benchmarks/cafe_slots.py [--tables 100] [--first 0] [--csv slots.csv]
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engines.cafe_international as ci  # noqa: E402
from datasets.state_render import render_state  # noqa: E402
from engines.api import random_playout  # noqa: E402
from engines.cafe_international.catalogue import hand_tile  # noqa: E402
from vision.gallery import default_gallery  # noqa: E402
from vision.identify import Identifier  # noqa: E402
from vision.readers import cafe_international as ci_reader  # noqa: E402
from vision.readers.cafe_slots import SlotConfig, SlotReader  # noqa: E402

SEED_BASE = 9_000_000
NAMES = ("Anna", "Ben", "Cleo", "Dan", "Eve")
LAYOUT_JSON = json.loads(
    (
        Path(__file__).resolve().parents[1]
        / "engines/cafe_international/data/reference_layout.json"
    ).read_text(encoding="utf-8")
)


def mid_game(seed: int) -> Any:
    """A random Café game played 10–80 random steps from the start (as `ci_registration`)."""
    rng = random.Random(seed)
    state = ci.new_game(list(NAMES[: 2 + seed % 3]))
    state = random_playout(ci, state, rng.randrange(10, 80), rng)
    return state


def true_slots(state: Any) -> list[str | None]:
    """The tile on every chair (layout order) then every stool, as printed (jokers bare)."""
    stools = len(LAYOUT_JSON["bar"]["stools"])
    seated = [hand_tile(g) if g is not None else None for g in state.seated]
    return seated + list(state.bar) + [None] * (stools - len(state.bar))


def outcome(truth: str | None, occupied: bool, tile: str | None) -> str:
    """right, null (occupied, unidentified), refused (empty taken for occupied) or wrong."""
    if truth is None:
        if not occupied:
            return "right"
        return "refused" if tile is None else "wrong"
    if not occupied:
        return "wrong"
    if tile is None:
        return "null"
    return "right" if tile == truth else "wrong"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=100, help="rendered tables")
    parser.add_argument("--first", type=int, default=0, help="first k of the seeds 9_000_000+k")
    parser.add_argument("--csv", type=Path, help="write one row per slot")
    parser.add_argument(
        "--empty-below",
        type=float,
        help="occupancy threshold (default: SlotConfig's); 0 identifies every slot, for tuning",
    )
    args = parser.parse_args()
    config = SlotConfig()
    if args.empty_below is not None:
        config = replace(config, empty_below=args.empty_below)
    reader = SlotReader(LAYOUT_JSON, Identifier(default_gallery([ci_reader.GAME])), config=config)
    rows: list[dict[str, Any]] = []
    seconds: list[float] = []
    registered = 0
    for k in range(args.first, args.first + args.tables):
        seed = SEED_BASE + k
        state = mid_game(seed)
        image, _ = render_state("cafe-international", state, seed, size=(1280, 960))
        try:
            registration = ci_reader.register_companion_board(image, LAYOUT_JSON)
        except ci_reader.RegistrationError:
            continue
        registered += 1
        start = time.perf_counter()
        reads = reader.read(image, registration)
        seconds.append(time.perf_counter() - start)
        for read, truth in zip(reads, true_slots(state), strict=True):
            rows.append(
                {
                    "seed": seed,
                    "slot": read.slot.id,
                    "truth": truth or "",
                    "occupied": int(read.occupied),
                    "tile": read.tile or "",
                    "occupancy": round(read.occupancy, 4),
                    "score": round(read.match.score, 4) if read.match is not None else "",
                    "outcome": outcome(truth, read.occupied, read.tile),
                }
            )
    if args.csv:
        with args.csv.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["seed"])
            writer.writeheader()
            writer.writerows(rows)
    print(summary(rows, registered, args.tables, seconds))


def summary(rows: list[dict[str, Any]], registered: int, tables: int, seconds: list[float]) -> str:
    """The one summary line (see the module docstring)."""
    if not rows:
        return f"cafe slots: tables {tables}, none registered"
    occupied = [r for r in rows if r["truth"]]
    empty = [r for r in rows if not r["truth"]]
    occupancy_right = sum(bool(r["occupied"]) == bool(r["truth"]) for r in rows)
    boards: dict[int, list[str]] = {}
    for r in rows:
        boards.setdefault(r["seed"], []).append(r["outcome"])
    exact = sum(all(o == "right" for o in b) for b in boards.values())
    wrong_boards = sum(any(o == "wrong" for o in b) for b in boards.values())

    def count(group: list[dict[str, Any]], what: str) -> int:
        return sum(r["outcome"] == what for r in group)

    ms = 1000.0 * sum(seconds) / max(1, len(seconds))
    identified = 100 * count(occupied, "right") / max(1, len(occupied))
    return (
        f"cafe slots: tables {tables} (registered {registered}), slots {len(rows)}, "
        f"occupancy right {100 * occupancy_right / len(rows):.2f} %; "
        f"occupied {len(occupied)}: right {identified:.1f} %"
        f" null {count(occupied, 'null')} wrong {count(occupied, 'wrong')}; "
        f"empty {len(empty)}: refused {count(empty, 'refused')} wrong {count(empty, 'wrong')}; "
        f"exact boards {100 * exact / max(1, len(boards)):.1f} %, boards with a wrong slot "
        f"{wrong_boards}; {ms:.0f} ms per frame (88 slots)"
    )


if __name__ == "__main__":
    main()
