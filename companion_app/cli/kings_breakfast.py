"""King's Breakfast on the command line: `score` (from counts), `advise` (hints) and `demo`.

- ``table-companion score kings-breakfast --counts FILE|- [--json]``: the design's counts →
  scores contract (KB-19..KB-23).
- ``table-companion advise kings-breakfast VIEW|- [--json]``: hints for the player to act, from a
  public view (``engines.kings_breakfast.public_view``), optionally with a ``"hand"`` field
  holding that player's whole hand.
- ``table-companion demo [--seed N] [--players N] [--json]``: a full game between simulated
  players, played by the engine, printed round by round.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

import engines.kings_breakfast as kb
from companion_app.cli._common import (
    UsageError,
    photo_refused,
    print_json,
    print_lines,
    read_json_source,
)
from engines.errors import MalformedError
from engines.kings_breakfast.hints import hints
from engines.kings_breakfast.policy import choose_action
from engines.kings_breakfast.rules import sample_outcome
from engines.kings_breakfast.scoring import scores_report, state_results

DEMO_NAMES = ("Anna", "Ben", "Cleo", "Dan", "Eve")


# --- score ---------------------------------------------------------------------------------------


def score(args: argparse.Namespace) -> int:
    """Final scores from counted cards (``--counts``)."""
    if not args.counts:
        if getattr(args, "king", None) or getattr(args, "player", None):
            return score_photos(args)
        raise UsageError(
            "score kings-breakfast needs --counts FILE|- or --king IMG --player NAME=IMG ..."
        )
    result = kb.scores_from_counts(read_json_source(args.counts, "counts"))
    if args.json:
        print_json(result)
    else:
        print_lines(score_table(result))
    return 0


def score_photos(args: argparse.Namespace) -> int:
    """Final scores from photos: the king's area (``--king``) and each player's spread hand.

    Each photo is an image or its ``detect --json`` output. A photo with no cards, an
    unidentified card or another game's piece stops with a one-line message (exit 2).
    """
    from vision.readers.kings_breakfast import read_spread
    from vision.readers.photos import parse_player_photos, photo_detections

    players = parse_player_photos(args.player)
    if not args.king:
        raise UsageError("score kings-breakfast from photos needs --king IMG (the king's area)")
    if not players:
        raise UsageError(
            "score kings-breakfast from photos needs --player NAME=IMG for each player"
        )
    king = read_spread(
        photo_detections(args.king, "kings-breakfast")[0], what=f"king photo {args.king!r}"
    )
    readings = {
        name: read_spread(
            photo_detections(path, "kings-breakfast")[0],
            what=f"photo of {name} {path!r}",
            allow_emerald=True,
        )
        for name, path in players.items()
    }
    for reading in (king, *readings.values()):
        if reading.problems:
            raise photo_refused(reading.problems, "kings-breakfast")
    counts = {"king": king.observation, "players": {n: r.observation for n, r in readings.items()}}
    result = kb.scores_from_counts(counts)
    result["seen"] = {"king": king.seen, "players": {n: r.seen for n, r in readings.items()}}
    if args.json:
        print_json(result)
    else:
        print_lines(score_table(result) + [f"seen: king {_counts_text(king.observation)}"])
    return 0


def score_table(result: dict[str, Any]) -> list[str]:
    """A readable table of the contract's scores JSON, in ranking order."""
    width = max([6, *(len(name) for name in result["ranking"])])
    lines = [f"{'rank':<5} {'player':<{width}} {'total':>5} {'discarded':>9}  by food"]
    for place, name in enumerate(result["ranking"], start=1):
        player = result["players"][name]
        foods = ", ".join(f"{food} {points}" for food, points in player["by_food"].items())
        lines.append(
            f"{place:<5} {name:<{width}} {player['total']:>5} {player['discarded']:>9}  "
            f"{foods or '-'}"
        )
    winners = result["winners"]
    label = "winner" if len(winners) == 1 else "winners (shared, KB-23)"
    lines.append(f"{label}: {', '.join(winners) if winners else 'none'}")
    return lines


# --- advise --------------------------------------------------------------------------------------


def advise(args: argparse.Namespace) -> int:
    """Hints for the player to act, from a public view (with an optional ``"hand"``)."""
    data = read_json_source(args.state, "view")
    if not isinstance(data, dict):
        raise MalformedError(f"view must be a json object, got {type(data).__name__}")
    view = {key: value for key, value in data.items() if key != "hand"}
    result = hints(view, data.get("hand"))
    if args.json:
        print_json(result)
        return 0
    lines = [f"hints for {result['player']} ({result['playouts_per_action']} playouts each)"]
    for row in result["actions"]:
        risky = {f: item["risk"] for f, item in row["by_food"].items() if item["risk"] >= 0.05}
        risk_text = ", ".join(f"{food} {p:.0%}" for food, p in risky.items()) or "none"
        lines.append(
            f"  {describe(kb.action_from_json(row['action'])):<34} now {row['points_now']:>3}  "
            f"expected {row['expected_points']:>6.1f}  win {row['win_chance']:.0%}  "
            f"risk: {risk_text}"
        )
    print_lines(lines)
    return 0


# --- demo ----------------------------------------------------------------------------------------


def demo(args: argparse.Namespace) -> int:
    """A full seeded game between simulated players, printed round by round."""
    if args.screenshot or args.exit_after is not None:
        raise UsageError("screenshots need the tablet app, which is not available yet")
    if not 3 <= args.players <= 5:
        raise UsageError(f"--players: KB-3 allows 3 to 5 players, got {args.players}")
    log = play_demo_game(DEMO_NAMES[: args.players], seed=args.seed)
    if args.json:
        print_json(log)
    else:
        print_lines(demo_text(log))
    return 0


def play_demo_game(players: tuple[str, ...], *, seed: int) -> dict[str, Any]:
    """Play a whole game with the engine: chance from a seeded RNG, players by the heuristic.

    Returns the game log: each round's offer, each turn, the king's area after the round, and
    the final scores in the contract's shape.
    """
    rng = random.Random(seed)
    state = kb.new_game(players, cook=rng.randrange(len(players)))  # KB-5: choose the cook
    rounds: list[dict[str, Any]] = []
    record: dict[str, Any] = {}
    while not kb.is_over(state):
        if state.phase == kb.Phase.DEAL and state.dealt == 0:
            record = {
                "round": state.round,
                "cook": state.players[state.cook],
                "deck_before": state.deck_count,
                "turns": [],
            }
            rounds.append(record)
        if state.phase == kb.Phase.ACT and state.acted == 0 and "offer" not in record:
            view = kb.public_view(state)
            record["offer"] = view["offer"]
            record["emeralds_on_table"] = view["emeralds_on_table"]
        chance = kb.is_chance_node(state)
        action = sample_outcome(state, rng) if chance else choose_action(state)
        if state.phase in (kb.Phase.ACT, kb.Phase.EMERALD):
            if state.phase == kb.Phase.ACT:
                record["turns"].append({"player": state.current_player, "actions": []})
            record["turns"][-1]["actions"].append(kb.action_to_json(action))
        elif state.phase == kb.Phase.DRAW:
            record["turns"][-1]["drew"] = action.card  # type: ignore[union-attr]
        round_before = state.round
        state = kb.apply(state, action)
        if state.round != round_before or kb.is_over(state):
            record["king"] = kb.public_view(state)["king"]
    view = kb.public_view(state)
    return {
        "game": kb.NAME,
        "seed": seed,
        "players": list(players),
        "rounds": rounds,
        "unused": view["unused"],
        "king": view["king"],
        "removed": view["removed"],
        "hands": {
            name: dict(zip(kb.FOODS, state.hand(index), strict=True))
            for index, name in enumerate(players)
        },
        "scores": scores_report(state_results(state)),
    }


def describe(action: kb.Action, drew: str | None = None) -> str:
    """One action in words."""
    if isinstance(action, kb.TakePile):
        return f"takes the {action.food} pile"
    if isinstance(action, kb.DrawCard):
        return f"draws a card (secretly: {drew})" if drew else "draws a card"
    if isinstance(action, kb.UseEmerald):
        first, second = action.foods
        return f"uses an emerald: the king loses {first} and {second}"
    if isinstance(action, kb.LayEmerald):
        return "lays the emerald on the table"
    if isinstance(action, kb.Pass):
        return "passes (nothing possible)"
    return repr(action)


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{food} {n}" for food, n in counts.items()) or "nothing"


def demo_text(log: dict[str, Any]) -> list[str]:
    """The game log as readable text: a few lines per round, then the final scores."""
    players = log["players"]
    width = max(len(name) for name in players)
    lines = [f"King's Breakfast: {', '.join(players)} (seed {log['seed']})", ""]
    for record in log["rounds"]:
        lines.append(
            f"Round {record['round']}: {record['cook']} cooks, {record['deck_before']} cards in "
            "the deck"
        )
        emeralds = record.get("emeralds_on_table", 0)
        extra = f"; emeralds on the table: {emeralds}" if emeralds else ""
        lines.append(f"  offer: {_counts_text(record.get('offer', {}))}{extra}")
        for turn in record["turns"]:
            drew = turn.get("drew")
            words = []
            for action_json in turn["actions"]:
                words.append(describe(kb.action_from_json(action_json), drew))
            if drew == kb.EMERALD:
                words[0] = "draws an emerald"
                words[1:] = [w.replace("uses an emerald", "uses it") for w in words[1:]]
            lines.append(f"  {turn['player']:<{width}} {', then '.join(words)}")
        lines.append(f"  king: {_counts_text(record.get('king', {}))}")
    total_unused = sum(log["unused"].values())
    lines += [
        "",
        f"Game over: {total_unused} card(s) left in the deck go unused (KB-18).",
        f"King's area: {_counts_text(log['king'])}",
        *(
            f"{name:<{width}} holds {_counts_text({f: n for f, n in hand.items() if n})}"
            for name, hand in log["hands"].items()
        ),
        "",
        *score_table(log["scores"]),
    ]
    return lines


__all__ = ["advise", "demo", "demo_text", "describe", "play_demo_game", "score", "score_table"]
