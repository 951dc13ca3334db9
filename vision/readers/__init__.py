"""Game readers: one frame's `Detections` → an observation of one game, or the problems seen.

Owns the table zones (`zones`), the three game readers (`kings_breakfast`, `cafe_international`,
`dice_king`) and reading photos for scoring (`photos`). A reader never guesses: a piece it cannot
place or identify is a problem in the result, and an observation with problems is not used.

Public names: `Reading`, and the modules above.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reading:
    """What a reader made of one frame.

    Attributes:
        observation: the game's observation (an engine value), or None when it could not be built.
        problems: one-line, lower-case problems; when any, do not trust `observation`.
        seen: what was seen, as JSON (per zone, per chair…), for the user and for reports.
    """

    observation: Any
    problems: tuple[str, ...] = ()
    seen: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether the observation can be used (built, and no problem)."""
        return self.observation is not None and not self.problems


__all__ = ["Reading"]
