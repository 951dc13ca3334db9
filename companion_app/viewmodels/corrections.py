"""Corrections of what the camera saw: tap a piece, pick the right identity from candidates.

Perception reports objects in the `detect` JSON shape (``kind``, ``box`` in frame pixels,
``identity`` / ``identity_score`` for cards and tiles, ``value`` / ``colour`` for dice, and
optionally ``candidates``: ``[[identity, score], ...]`` best first). The Table screen asks
`object_at` which object a tap hit, offers `candidates`, and records the player's choice with
`correct`. `apply` then overrides every later result's object at the same place (by box
overlap), so the game reader downstream sees the corrected identity with score 1.0 and
``corrected: true``. Plain Python; no Kivy.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines.cafe_international.catalogue import Gender, Nationality
from engines.dice_king.catalogue import COLOURS
from engines.kings_breakfast.catalogue import EMERALD, FOODS

MAX_CANDIDATES = 8
MATCH_IOU = 0.5  # a later box at least this close to a corrected one is the same piece


def game_identities(game: str, kind: str) -> list[str]:
    """Every identity a piece of `kind` can have in `game` (the fallback candidate list)."""
    if kind == "die":
        return [f"{value}{colour}" for value in range(1, 7) for colour in COLOURS]
    if game == "kings-breakfast":
        return [f"kings-breakfast/{food}" for food in (*FOODS, EMERALD)]
    if game == "cafe-international":
        tiles = [f"{n}/{g}" for n in Nationality for g in Gender] + ["joker/w", "joker/m"]
        return [f"cafe-international/{tile}" for tile in tiles]
    return []


def iou(a: list[float], b: list[float]) -> float:
    """Intersection over union of two ``[x1, y1, x2, y2]`` boxes."""
    width = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = width * height
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


@dataclass(frozen=True)
class Correction:
    """The player's word on one piece: where it is, what kind, and what it really is."""

    kind: str
    box: tuple[float, float, float, float]
    identity: str


def _objects(result: Any) -> list[dict[str, Any]]:
    if isinstance(result, dict) and isinstance(result.get("objects"), list):
        return [o for o in result["objects"] if isinstance(o, dict) and len(o.get("box", [])) == 4]
    return []


def _identity_of(item: dict[str, Any]) -> str | None:
    if item.get("kind") == "die":
        value, colour = item.get("value"), item.get("colour")
        return None if value is None or colour is None else f"{value}{colour}"
    identity = item.get("identity")
    return None if identity is None else str(identity)


class CorrectionsViewModel:
    """The player's corrections for one game, applied to every perception result."""

    def __init__(self, game: str) -> None:
        self.game = game
        self.corrections: list[Correction] = []

    def object_at(self, result: Any, x_px: float, y_px: float) -> int | None:
        """The index of the smallest object whose box holds the point (None: no object)."""
        hits = [
            (((o["box"][2] - o["box"][0]) * (o["box"][3] - o["box"][1])), index)
            for index, o in enumerate(_objects(result))
            if o["box"][0] <= x_px <= o["box"][2] and o["box"][1] <= y_px <= o["box"][3]
        ]
        return min(hits)[1] if hits else None

    def candidates(self, result: Any, index: int) -> list[str]:
        """Identities to offer for object `index`: perception's candidates first, then the rest
        of the game's pieces of that kind, at most `MAX_CANDIDATES`; the current one first."""
        item = _objects(result)[index]
        offered: list[str] = []
        current = _identity_of(item)
        if current:
            offered.append(current)
        for entry in item.get("candidates", []) or []:
            identity = entry[0] if isinstance(entry, list | tuple) else entry
            if isinstance(identity, str) and identity not in offered:
                offered.append(identity)
        for identity in game_identities(self.game, str(item.get("kind", ""))):
            if len(offered) >= MAX_CANDIDATES:
                break
            if identity not in offered:
                offered.append(identity)
        return offered[:MAX_CANDIDATES]

    def correct(self, result: Any, index: int, identity: str) -> None:
        """Record that object `index` of `result` is really `identity`.

        Raises:
            ValueError: `identity` is not a piece of this game and kind.
        """
        item = _objects(result)[index]
        kind = str(item.get("kind", ""))
        known = game_identities(self.game, kind)
        if known and identity not in known:
            raise ValueError(f"unknown {kind} identity {identity!r} for {self.game}")
        box = tuple(float(v) for v in item["box"])
        self.corrections = [
            c
            for c in self.corrections
            if not (c.kind == kind and iou(list(c.box), list(box)) >= MATCH_IOU)
        ]
        self.corrections.append(Correction(kind, box, identity))  # type: ignore[arg-type]

    def apply(self, result: Any) -> Any:
        """`result` with every corrected piece's identity replaced (a new dict; input kept)."""
        objects = _objects(result)
        if not objects or not self.corrections:
            return result
        fixed = []
        for item in objects:
            item = dict(item)
            for correction in self.corrections:
                if (
                    correction.kind == item.get("kind")
                    and iou(list(correction.box), item["box"]) >= MATCH_IOU
                ):
                    if item.get("kind") == "die":
                        item["value"], item["colour"] = (
                            int(correction.identity[:-1]),
                            correction.identity[-1],
                        )
                    else:
                        item["identity"] = correction.identity
                    item["identity_score"] = 1.0
                    item["corrected"] = True
            fixed.append(item)
        return {**result, "objects": fixed}

    def clear(self) -> None:
        """Forget every correction (a new round, or the pieces were moved)."""
        self.corrections.clear()


__all__ = ["Correction", "CorrectionsViewModel", "game_identities", "iou"]
