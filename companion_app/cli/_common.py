"""Helpers shared by the command handlers: reading JSON input, printing output, failing cleanly."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from engines.errors import MalformedError


class UsageError(ValueError):
    """A command-line problem that is not the engines' business (missing option, bad file)."""


# What a player can do about a scoring photo the app could not read (pieces it could not name,
# or one much smaller than the others): nearly every such photo of the rendered benchmark is read
# when taken again (`benchmarks/end_of_game_scores.py --retakes 2`: 93-94 % of tables first try,
# 97.5-100 % within two retakes); a half-covered Dice King penalty card hides its value.
RETAKE_ADVICE = (
    "take that photo again: pieces flat and apart, each face at least half in view, the camera "
    "above them"
)
# ... and for Dice King, whose penalty cards differ only in their printed value
PENALTY_ADVICE = "every penalty card's number showing"


def photo_refused(problems: tuple[str, ...], game: str | None = None) -> UsageError:
    """The one-line error for a scoring photo the reader refused: its first problem (and how
    many more), with `RETAKE_ADVICE` when a retake can help (not for another game's piece or an
    empty photo), and `PENALTY_ADVICE` for a Dice King photo."""
    from vision.readers.photos import retake_helps

    problem = problems[0]
    if len(problems) > 1:  # one line: the first in full, the rest counted
        more = len(problems) - 1
        problem += f" (and {more} more problem{'s' if more > 1 else ''} in that photo)"
    if retake_helps(problems[0]):
        advice = RETAKE_ADVICE + (f", {PENALTY_ADVICE}" if game == "dice-king" else "")
        return UsageError(f"{problem}; {advice}")
    return UsageError(problem)


def read_json_source(source: str, what: str) -> Any:
    """Parse JSON from a file path, or from standard input when `source` is ``-``.

    Raises:
        MalformedError: the file cannot be read or does not hold JSON; the message names `what`.
    """
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except OSError as error:
        raise MalformedError(f"cannot read {what} {source!r}: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise MalformedError(f"{what} {source!r} is not utf-8 text") from None
    if not text.strip():
        raise MalformedError(f"{what} {source!r} is empty")
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise MalformedError(
            f"malformed json in {what} {source!r}: {error.msg} at line {error.lineno} "
            f"column {error.colno}"
        ) from None


def print_json(value: Any) -> None:
    """Print `value` as one line of JSON on standard output."""
    sys.stdout.write(json.dumps(value, ensure_ascii=False) + "\n")


def print_lines(lines: list[str]) -> None:
    """Print readable text lines on standard output."""
    sys.stdout.write("\n".join(lines) + "\n")


__all__ = [
    "PENALTY_ADVICE",
    "RETAKE_ADVICE",
    "UsageError",
    "photo_refused",
    "print_json",
    "print_lines",
    "read_json_source",
]
