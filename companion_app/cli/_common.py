"""Helpers shared by the command handlers: reading JSON input, printing output, failing cleanly."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from engines.errors import MalformedError


class UsageError(ValueError):
    """A command-line problem that is not the engines' business (missing option, bad file)."""


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


__all__ = ["UsageError", "print_json", "print_lines", "read_json_source"]
