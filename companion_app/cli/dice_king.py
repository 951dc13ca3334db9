"""Dice King on the command line: `advise dice-king STATE|-` and `demo --game dice-king`.

advise: STATE is the design's advice state ``{"deck", "row", "dice", "rolls_left"}`` (a file, or
``-`` for standard input); optional ``"villages": {"city": 3, …}`` (top village values) and
``"fairies": n``. It prints which face-up cards the dice meet now and, for each sensible keep,
the exact chance of meeting each card by the last roll when playing optimally for that card.
Keeps are listed best first by expected points: first ``max over cards of p × value`` (value =
printed points, + the top village when the card lies under its own village, a fairy = fairies + 1,
a dragon = 0 since the roller gives it away), then ``Σ p × value``, then the best single chance,
then more dice kept. Keeping all six dice means stopping. ``--json`` prints the contract's JSON.

demo: a short seeded simulated game in the terminal; the roller keeps dice as the advisor says.
"""

from __future__ import annotations

import argparse
import random
from typing import Any, cast

import engines.dice_king as dk
from companion_app.cli._common import (
    UsageError,
    photo_refused,
    print_json,
    print_lines,
    read_json_source,
)
from engines.api import GameRules, sample_chance
from engines.dice_king import advisor
from engines.dice_king.catalogue import DICE, penalties
from engines.dice_king.scoring import ranking, score_kingdom, winners

ADVISE_HELP = __doc__

RULES = cast(GameRules, dk)  # the module implements the engine API


def advise(args: argparse.Namespace) -> int:
    """`table-companion advise dice-king STATE|- [--json]`."""
    request = advisor.request_from_json(read_json_source(args.state, "state"))
    advice = advisor.advise(request)
    if getattr(args, "json", False):
        print_json(advice.to_json())
    else:
        print_lines(advisor.advice_to_text(request, advice))
    return 0


def _is_turn_start(state: dk.State) -> bool:
    return state.phase is dk.Phase.ROLL and state.rolls_done == 1 and not state.dice


def _play_turn_lines(state: dk.State, rng: random.Random) -> tuple[dk.State, list[str]]:
    """Play one whole turn (from its first die to the start of the next turn), describing it."""
    lines = [f"{state.player} ({state.rolls_allowed} rolls allowed)"]
    points = {p.id: p.points for p in penalties()}
    roller = state.current
    started = False
    while not dk.is_over(state):
        if started and _is_turn_start(state):
            break
        started = True
        if dk.is_chance_node(state):
            state = dk.apply(state, sample_chance(RULES, state, rng))
            continue
        if state.phase is dk.Phase.ROLL:
            lines.append(f"  roll {state.rolls_done}: {' '.join(state.dice)}")
        action = advisor.advised_action(state)
        before, state = state, dk.apply(state, action)
        if isinstance(action, dk.Reroll):
            kept = " ".join(action.keep) if action.keep else "nothing"
            lines.append(f"    keep {kept}, roll {DICE - len(action.keep)}")
        elif isinstance(action, dk.Take):
            new = state.kingdoms[roller][len(before.kingdoms[roller]) :]
            gifts = [g for g in state.gifts if g not in before.gifts]
            taken = [c for c in new if c != action.card]
            text = f"  takes {action.card}" + (" with " + ", ".join(taken) if taken else "")
            if gifts:
                text += f" (dragon {', '.join(gifts)} to give away)"
            lines.append(text)
        elif isinstance(action, dk.TakePenalty):
            penalty = before.penalty_top
            assert penalty is not None
            lines.append(
                f"  no card met: penalty {penalty} (-{points[penalty]}), "
                f"{state.discard[-1]} discarded"
            )
        elif isinstance(action, dk.Give):
            lines.append(f"  gives {action.card} to {action.player}")
    if not dk.is_over(state) and state.current == roller:
        lines.append("  (wizard's apprentice: another turn)")
    return state, lines


def demo(args: argparse.Namespace) -> int:
    """A short seeded simulated game: every turn's rolls, keeps, the card taken, final scores."""
    seed = getattr(args, "seed", None)
    seed = 1 if seed is None else int(seed)
    count = getattr(args, "players", None) or 3
    if not 2 <= int(count) <= 5:
        raise UsageError(f"dice king is for 2-5 players, got --players {count}")
    names = ["Anna", "Ben", "Cleo", "Dan", "Eve"][: int(count)]
    rng = random.Random(seed)
    state = dk.new_game(names)
    while dk.is_chance_node(state) and state.phase is dk.Phase.SETUP:
        state = dk.apply(state, sample_chance(RULES, state, rng))
    lines = [f"Dice King demo (seed {seed}): {', '.join(names)}"]
    lines.append("row: " + " ".join(str(c) for c in state.row))
    turn = 0
    log: list[dict[str, Any]] = []
    while not dk.is_over(state):
        turn += 1
        state, turn_lines = _play_turn_lines(state, rng)
        lines.append(f"turn {turn}: " + turn_lines[0])
        lines.extend(turn_lines[1:])
        log.append({"turn": turn, "lines": turn_lines})
    final = dk.scores(state)
    lines.append("final scores:")
    for name in ranking(state):
        part = score_kingdom(state.deck, state.kingdoms[state.players.index(name)])
        lines.append(
            f"  {name}: {final[name]} (inhabitants {part.inhabitants}, villages {part.villages}, "
            f"fairies {part.fairy_bonus}, penalties -{part.penalties}, dragons -{part.dragons})"
        )
    lines.append("winner: " + ", ".join(winners(state)))
    if getattr(args, "json", False):
        print_json({"seed": seed, "turns": log, "scores": final, "winners": winners(state)})
    else:
        print_lines(lines)
    return 0


__all__ = ["ADVISE_HELP", "advise", "demo"]


# --- score from photos ----------------------------------------------------------------------------


def score(args: argparse.Namespace) -> int:
    """Final scores from photos of each player's spread kingdom pile (``--player NAME=IMG``),
    DK-20, DK-25, DK-26 with the companion deck.

    Each photo is an image or its ``detect --json`` output; a photo with no cards, an
    unidentified card, a repeated card or another game's piece stops with a one-line message.
    """
    from engines.dice_king.catalogue import companion_deck
    from vision.readers.dice_king import read_spread
    from vision.readers.photos import parse_player_photos, photo_detections

    if getattr(args, "counts", None) or getattr(args, "king", None):
        raise UsageError("score dice-king takes --player NAME=IMG for each player's kingdom")
    photos = parse_player_photos(args.player)
    if not photos:
        raise UsageError("score dice-king needs --player NAME=IMG for each player's kingdom pile")
    deck = companion_deck()
    piles: dict[str, list[str]] = {}
    for name, path in photos.items():
        reading = read_spread(
            photo_detections(path, "dice-king")[0], what=f"photo of {name} {path!r}"
        )
        if reading.problems:
            raise photo_refused(reading.problems, "dice-king")
        piles[name] = reading.observation
    parts = {name: score_kingdom(deck, pile) for name, pile in piles.items()}
    order = sorted(parts, key=lambda n: (-parts[n].total, parts[n].penalty_cards))
    best = max((p.total, -p.penalty_cards) for p in parts.values())
    result = {
        "players": {
            name: {
                "total": p.total,
                "inhabitants": p.inhabitants,
                "villages": p.villages,
                "penalties": p.penalties,
                "dragons": p.dragons,
                "fairy_bonus": p.fairy_bonus,
                "penalty_cards": p.penalty_cards,
            }
            for name, p in parts.items()
        },
        "ranking": order,
        "winners": [n for n, p in parts.items() if (p.total, -p.penalty_cards) == best],
        "seen": {name: {"cards": pile} for name, pile in piles.items()},
    }
    if args.json:
        print_json(result)
    else:
        lines = [f"{'rank':<5} {'player':<10} {'total':>5}  cards"]
        for place, name in enumerate(order, start=1):
            lines.append(f"{place:<5} {name:<10} {parts[name].total:>5}  {', '.join(piles[name])}")
        lines.append(
            f"winner{'s' if len(result['winners']) > 1 else ''}: {', '.join(result['winners'])}"
        )
        print_lines(lines)
    return 0
