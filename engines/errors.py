"""The three kinds of bad input, shared by every engine (all are `ValueError`s).

- `MalformedError`: the input cannot be parsed (bad JSON shape, unknown id, wrong type).
- `IllegalActionError`: parsed, but the rules forbid it; carries the clause it breaks.
- `AmbiguousError`: more than one action explains what was seen; carries the candidates.

Messages are one line, lower-case, naming the field and the value.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


class RulesError(ValueError):
    """Base class of every bad-input error raised by an engine."""


class MalformedError(RulesError):
    """The input cannot be parsed into a game value."""


class IllegalActionError(RulesError):
    """The action or position breaks a rule; `clause` names it (e.g. ``"KB-10"``)."""

    def __init__(self, clause: str, message: str) -> None:
        super().__init__(f"{clause}: {message}")
        self.clause = clause
        self.reason = message


class AmbiguousError(RulesError):
    """More than one action explains an observation; `candidates` lists them."""

    def __init__(self, message: str, candidates: Sequence[Any]) -> None:
        super().__init__(message)
        self.candidates = tuple(candidates)


@dataclass(frozen=True)
class Problem:
    """One named problem with an observed position: the clause broken and a one-line message."""

    clause: str
    message: str

    def __str__(self) -> str:
        return f"{self.clause}: {self.message}"


__all__ = ["AmbiguousError", "IllegalActionError", "MalformedError", "Problem", "RulesError"]
