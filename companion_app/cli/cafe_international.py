"""Café International on the command line: `advise cafe-international` and `demo --game …`.

advise: STATE is the design's advice position ``{"layout", "seated", "bar", "hand",
"first_turn_of_game"}`` (a file, or ``-`` for standard input). ``layout`` is ``"reference"``, a
path to a layout file (relative paths are tried from the working folder, then beside the state
file), the name of a layout saved under the user data folder's ``layouts/``, or an inline layout
object; optional ``"bar_reading": "alternative"`` picks the other reading of the bar (CI-5). It
prints every legal action, best first, with its points and hand limit change; ``--json`` prints
the contract's JSON. A position that breaks the rules is refused with every reason in one line.

demo: a short seeded simulated game in the terminal; every player takes the advisor's best action.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import engines.cafe_international as ci
from companion_app.cli._common import print_json, print_lines, read_json_source
from engines.api import sample_chance
from engines.cafe_international.advisor import (
    advice_to_json,
    describe,
    position_from_json,
)
from engines.cafe_international.advisor import (
    advise as advise_state,
)
from engines.cafe_international.catalogue import describe_tile
from engines.cafe_international.layout import REFERENCE_NAME, Layout, layout_from_json
from engines.errors import MalformedError

DEMO_PLAYERS = ("Anna", "Ben", "Carla")
DEMO_SEED = 7


def _layouts_folder() -> Path:
    from companion_app.storage import data_home

    return data_home() / "layouts"


def find_layout_file(value: str, base_dir: Path | None = None) -> Path:
    """Where the layout named `value` lives: a path (from the working folder, then `base_dir`),
    or ``<user data>/layouts/<value>.json``.

    Raises:
        MalformedError: no such file.
    """
    candidates = [Path(value)]
    if base_dir is not None and not Path(value).is_absolute():
        candidates.append(base_dir / value)
    if "/" not in value and "\\" not in value:
        stem = value[:-5] if value.endswith(".json") else value
        candidates.append(_layouts_folder() / f"{stem}.json")
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise MalformedError(
        f"unknown layout {value!r}: not 'reference', not a file, not a saved layout"
    )


def load_layout(value: str, *, bar: str = "default", base_dir: Path | None = None) -> Layout:
    """The layout named `value` (``reference``, a path or a saved layout's name), validated.

    Raises:
        MalformedError: missing file, bad JSON, or a layout that breaks the format.
    """
    if value == REFERENCE_NAME:
        return ci.reference_layout(bar)
    path = find_layout_file(value, base_dir)
    data = read_json_source(str(path), "layout")
    try:
        return layout_from_json(data, bar=bar)
    except MalformedError as error:
        raise MalformedError(f"layout {str(path)!r}: {error}") from None


def _layouts_for(data: Any, base_dir: Path | None) -> dict[str, Layout]:
    """Load the layout a state names by path, for the engine (which reads no files)."""
    if not isinstance(data, Mapping):
        return {}
    value = data.get("layout", REFERENCE_NAME)
    if not isinstance(value, str) or value == REFERENCE_NAME:
        return {}
    return {value: load_layout(value, base_dir=base_dir)}


def advise(args: argparse.Namespace) -> int:
    """`table-companion advise cafe-international STATE|- [--json]`."""
    data = read_json_source(args.state, "state")
    base_dir = None if args.state == "-" else Path(args.state).resolve().parent
    state = position_from_json(data, layouts=_layouts_for(data, base_dir))
    advice = advise_state(state)
    if getattr(args, "json", False):
        print_json(advice_to_json(state, advice))
        return 0
    taken = len(state.bar)
    values = state.layout.bar_values
    hand = ", ".join(describe_tile(t) for t in state.hands[0]) or "nothing"
    lines = [
        f"Layout {state.layout.name}: {len(state.layout.tables)} tables, "
        f"{sum(g is not None for g in state.seated)}/{len(state.layout.chairs)} chairs taken; "
        f"bar {taken}/{len(values)}"
        + (f", next stool {taken + 1} gives {values[taken]:+d}" if taken < len(values) else ""),
        f"Hand: {hand}",
        f"{len(advice)} legal action{'s' if len(advice) != 1 else ''}, best first:",
    ]
    width = len(str(len(advice)))
    lines += [f"{n:>{width}}. {describe(state, s)}" for n, s in enumerate(advice, start=1)]
    print_lines(lines)
    return 0


# --- demo -------------------------------------------------------------------------------------


def _bar_tally(state: ci.State) -> str:
    taken = len(state.bar)
    values = state.layout.bar_values
    given = sum(values[:taken])
    text = f"bar {taken}/{len(values)} ({given:+d} points given)"
    if taken < len(values):
        text += f", next stool {values[taken]:+d}"
    return text


def play_demo(seed: int = DEMO_SEED, players: tuple[str, ...] = DEMO_PLAYERS) -> list[str]:
    """Play a seeded game where everyone takes the advisor's best action; describe each turn."""
    rng = random.Random(seed)
    state = ci.new_game(players)
    lines = [f"Café International demo (seed {seed}): {', '.join(players)} on the reference board"]
    while not ci.is_over(state):
        if ci.is_chance_node(state):
            state = ci.apply(state, sample_chance(ci, state, rng))
            continue
        name = state.players[state.current]
        hand = " ".join(state.hands[state.current])
        best = advise_state(state)[0]
        text = describe(state, best)
        state = ci.apply(state, best.action)
        totals = ci.scores(state)
        lines.append(f"turn {state.turn:>2} {name:<6} [{hand}]")
        lines.append(f"        {text}  → {name} {totals[name]}; {_bar_tally(state)}")
    totals = ci.scores(state)
    view = ci.public_view(state)
    lines.append(f"Game over: {ci.end_reason(state)}.")
    for entry in view["players"]:
        penalty = view["penalties"][entry["name"]]
        lines.append(
            f"  {entry['name']:<6} {entry['score']:>4}  (hand {' '.join(entry['hand']) or '-'}: "
            f"−{penalty})"
        )
    lines.append(f"Winner{'s' if len(view['winners']) > 1 else ''}: {', '.join(view['winners'])}")
    return lines


def demo(args: argparse.Namespace) -> int:
    """`table-companion demo --game cafe-international`: a seeded game in the terminal."""
    seed = getattr(args, "seed", None)
    lines = play_demo(DEMO_SEED if seed is None else int(seed))
    if getattr(args, "json", False):
        print_json({"lines": lines})
    else:
        print_lines(lines)
    return 0


def layout_summary(layout: Layout) -> dict[str, Any]:
    """Counts of a layout, for `layout show --json`."""
    return {
        "name": layout.name,
        "tables": len(layout.tables),
        "chairs": len(layout.chairs),
        "shared_chairs": sum(chair.is_shared for chair in layout.chairs),
        "bar_reading": layout.bar_reading,
        "bar_values": list(layout.bar_values),
    }


__all__ = ["advise", "demo", "find_layout_file", "layout_summary", "load_layout", "play_demo"]


# --- score from photos ----------------------------------------------------------------------------


def score(args: argparse.Namespace) -> int:
    """Final scores from photos: each player's remaining tiles (``--player NAME=IMG``) subtracted
    (CI-22: 5 per tile, 10 per joker) from the running scores given with ``--scores``.

    ``--scores`` is a JSON object name → running score. A player with no tile left needs no
    photo. Each photo is an image or its ``detect --json`` output; a photo with no tiles, an
    unidentified tile or another game's piece stops with a one-line message (exit 2).
    """
    from companion_app.cli._common import UsageError, photo_refused
    from engines.cafe_international.scoring import hand_penalty, ranking, winners
    from vision.readers.cafe_international import read_spread
    from vision.readers.photos import parse_player_photos, photo_detections

    if getattr(args, "counts", None) or getattr(args, "king", None):
        raise UsageError("score cafe-international takes --scores FILE|- and --player NAME=IMG")
    if not args.scores:
        raise UsageError("score cafe-international needs --scores FILE|- (running scores)")
    running = read_json_source(args.scores, "scores")
    if isinstance(running, dict) and isinstance(running.get("players"), dict):
        running = running["players"]
    if not isinstance(running, dict) or not running:
        raise MalformedError("scores must be a json object of player name to running score")
    for name, value in running.items():
        if isinstance(value, bool) or not isinstance(value, int):
            raise MalformedError(f"scores.{name} must be an integer, got {value!r}")
    photos = parse_player_photos(args.player)
    for name in photos:
        if name not in running:
            raise UsageError(f"player {name!r} has a photo but no running score in --scores")
    tiles: dict[str, list[str]] = {}
    for name, path in photos.items():
        reading = read_spread(
            photo_detections(path, "cafe-international")[0], what=f"photo of {name} {path!r}"
        )
        if reading.problems:
            raise photo_refused(reading.problems, "cafe-international")
        tiles[name] = reading.observation
    players: dict[str, Any] = {}
    for name, points in running.items():
        penalty = hand_penalty(tiles.get(name, []))
        players[name] = {
            "total": points - penalty,
            "running": points,
            "penalty": penalty,
            "tiles": tiles.get(name, []),
        }
    totals = {name: entry["total"] for name, entry in players.items()}
    result = {
        "players": players,
        "ranking": ranking(totals),
        "winners": winners(totals),
        "seen": {name: {"tiles": t} for name, t in tiles.items()},
    }
    if args.json:
        print_json(result)
    else:
        lines = [f"{'rank':<5} {'player':<10} {'total':>5} {'running':>7} {'penalty':>7}  tiles"]
        for place, name in enumerate(result["ranking"], start=1):
            entry = players[name]
            lines.append(
                f"{place:<5} {name:<10} {entry['total']:>5} {entry['running']:>7} "
                f"{-entry['penalty']:>7}  {', '.join(entry['tiles']) or '-'}"
            )
        lines.append(
            f"winner{'s' if len(result['winners']) > 1 else ''}: {', '.join(result['winners'])}"
        )
        print_lines(lines)
    return 0
