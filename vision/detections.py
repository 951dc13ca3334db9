"""`Detections`: what one frame shows, as one validated dataclass of parallel numpy arrays.

Row ``i`` of every array describes object ``i``. Kinds are the contract's ``card``, ``tile`` and
``die``. Cards and tiles have 4 corners in image pixels; dice have NaN corners. Dice have a value
1–6 (0 = none: not a die, or not read) and a pip colour ``r``/``g``/``b`` or None. Identities are
the contract's piece ids (``kings-breakfast/cheese``) or None when nothing matched with confidence.

`to_json` writes exactly the design's `detect` object (``design.md``, "Detections").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np

KINDS: tuple[str, ...] = ("card", "tile", "die")
DIE_COLOURS: tuple[str, ...] = ("r", "g", "b")


def _as_array(name: str, value: Any, dtype: Any) -> np.ndarray:
    try:
        return np.asarray(value, dtype=dtype)
    except (TypeError, ValueError) as error:
        raise ValueError(
            f"detections.{name} cannot be read as {np.dtype(dtype)}: {error}"
        ) from None


def _object_array(values: Sequence[Any] | np.ndarray) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    for i, v in enumerate(values):
        out[i] = v
    return out


@dataclass(frozen=True)
class Detections:
    """Objects found in one frame; every field is an array with one row per object.

    Attributes:
        boxes_xyxy: (n, 4) float32 boxes ``[x1, y1, x2, y2]`` in image pixels.
        scores: (n,) float32 detection confidence in [0, 1].
        kinds: (n,) str ``card``, ``tile`` or ``die``.
        corners_px: (n, 4, 2) float32 corners of cards and tiles, NaN for dice.
        die_values: (n,) int64 die value 1–6, 0 for none (not a die, or unread).
        die_colours: (n,) object ``r``, ``g``, ``b`` or None.
        die_value_scores: (n,) float32 confidence of the value and colour (0 when none).
        identities: (n,) object piece id or None.
        identity_scores: (n,) float32 confidence of the identity (0 when None).

    Raises:
        ValueError: on construction, a field of the wrong shape or an unknown kind or colour; the
            message names the field, the expected and the actual shape.
    """

    boxes_xyxy: np.ndarray
    scores: np.ndarray
    kinds: np.ndarray
    corners_px: np.ndarray
    die_values: np.ndarray
    die_colours: np.ndarray
    die_value_scores: np.ndarray
    identities: np.ndarray
    identity_scores: np.ndarray

    def __post_init__(self) -> None:
        boxes = _as_array("boxes_xyxy", self.boxes_xyxy, np.float32)
        if boxes.size == 0:
            boxes = boxes.reshape(0, 4)
        if boxes.ndim != 2 or boxes.shape[1] != 4:
            raise ValueError(f"detections.boxes_xyxy must have shape (n, 4), got {boxes.shape}")
        n = boxes.shape[0]
        specs: dict[str, tuple[Any, tuple[int, ...]]] = {
            "scores": (np.float32, (n,)),
            "kinds": (object, (n,)),
            "corners_px": (np.float32, (n, 4, 2)),
            "die_values": (np.int64, (n,)),
            "die_colours": (object, (n,)),
            "die_value_scores": (np.float32, (n,)),
            "identities": (object, (n,)),
            "identity_scores": (np.float32, (n,)),
        }
        object.__setattr__(self, "boxes_xyxy", boxes)
        for name, (dtype, shape) in specs.items():
            raw = getattr(self, name)
            if dtype is object:
                arr = raw if isinstance(raw, np.ndarray) and raw.dtype == object else None
                if arr is None:
                    arr = _object_array(list(raw)) if np.ndim(raw) == 1 else np.asarray(raw)
            else:
                arr = _as_array(name, raw, dtype)
                if arr.size == 0 and n == 0:
                    arr = arr.reshape(shape)
            expected = "(" + ", ".join("n" if i == 0 else str(s) for i, s in enumerate(shape))
            expected += ",)" if len(shape) == 1 else ")"
            if arr.shape != shape:
                raise ValueError(
                    f"detections.{name} must have shape {expected} with n={n}, got {arr.shape}"
                )
            object.__setattr__(self, name, arr)
        for kind in self.kinds:
            if kind not in KINDS:
                raise ValueError(
                    f"detections.kinds has unknown kind {kind!r} (known: card, tile, die)"
                )
        for colour in self.die_colours:
            if colour is not None and colour not in DIE_COLOURS:
                raise ValueError(f"detections.die_colours has unknown colour {colour!r}")
        bad = (self.die_values < 0) | (self.die_values > 6)
        if bad.any():
            raise ValueError(
                f"detections.die_values must be 0-6, got {int(self.die_values[bad][0])}"
            )

    # --- constructors ----------------------------------------------------------------------------
    @classmethod
    def empty(cls) -> Detections:
        """No objects."""
        return cls.from_boxes(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), [])

    @classmethod
    def from_boxes(
        cls,
        boxes_xyxy: np.ndarray,
        scores: np.ndarray,
        kinds: Sequence[str] | np.ndarray,
        corners_px: np.ndarray | None = None,
    ) -> Detections:
        """Detections with boxes, scores and kinds only (no die values, no identities yet)."""
        boxes = np.asarray(boxes_xyxy, np.float32)
        if boxes.size == 0:
            boxes = boxes.reshape(0, 4)
        n = len(boxes)
        corners = np.full((n, 4, 2), np.nan, np.float32) if corners_px is None else corners_px
        return cls(
            boxes_xyxy=boxes,
            scores=scores,
            kinds=_object_array(list(kinds)),
            corners_px=corners,
            die_values=np.zeros(n, np.int64),
            die_colours=_object_array([None] * n),
            die_value_scores=np.zeros(n, np.float32),
            identities=_object_array([None] * n),
            identity_scores=np.zeros(n, np.float32),
        )

    # --- collection behaviour --------------------------------------------------------------------
    def __len__(self) -> int:
        return int(self.boxes_xyxy.shape[0])

    def __getitem__(self, index: Any) -> Detections:
        """Select rows by a boolean mask, an index array or a slice; always returns Detections."""
        if isinstance(index, (int, np.integer)):
            index = [int(index)]
        if isinstance(index, np.ndarray) and index.dtype == bool and index.shape != (len(self),):
            raise ValueError(f"detections mask must have shape ({len(self)},), got {index.shape}")
        return Detections(**{f.name: getattr(self, f.name)[index] for f in fields(self)})

    def with_fields(self, **changes: Any) -> Detections:
        """A copy with some fields replaced (validated again)."""
        values = {f.name: getattr(self, f.name) for f in fields(self)}
        unknown = set(changes) - set(values)
        if unknown:
            raise ValueError(f"unknown detections field {sorted(unknown)[0]!r}")
        values.update(changes)
        return Detections(**values)

    @staticmethod
    def merge(parts: Sequence[Detections]) -> Detections:
        """Concatenate several Detections (in order) into one."""
        if not parts:
            return Detections.empty()
        return Detections(
            **{
                f.name: np.concatenate([getattr(p, f.name) for p in parts], axis=0)
                for f in fields(Detections)
            }
        )

    # --- JSON ------------------------------------------------------------------------------------
    def to_objects(self) -> list[dict[str, Any]]:
        """The contract's object list: dice carry value and colour; cards and tiles corners.

        A die's ``score`` is its detection score times its value score, so a die whose value is
        unsure (or unread: ``value`` null) scores low; it is never a confident guess.
        """
        out: list[dict[str, Any]] = []
        for i in range(len(self)):
            kind = str(self.kinds[i])
            obj: dict[str, Any] = {
                "kind": kind,
                "box": [round(float(v), 1) for v in self.boxes_xyxy[i]],
            }
            if kind == "die":
                # one score for "a die showing this value": an unsure reading scores low
                value = int(self.die_values[i])
                score = float(self.scores[i]) * (float(self.die_value_scores[i]) if value else 0.0)
                obj["score"] = round(score, 3)
                obj["value"] = value if value > 0 else None
                obj["colour"] = self.die_colours[i]
            else:
                corners = self.corners_px[i]
                obj["corners"] = (
                    None
                    if not np.all(np.isfinite(corners))
                    else [[round(float(x), 1), round(float(y), 1)] for x, y in corners]
                )
                obj["score"] = round(float(self.scores[i]), 3)
                obj["identity"] = self.identities[i]
                obj["identity_score"] = (
                    round(float(self.identity_scores[i]), 3) if self.identities[i] else None
                )
            out.append(obj)
        return out

    def to_json(self, image_name: str, width: int, height: int) -> dict[str, Any]:
        """The `detect --json` object of one image (``design.md``, "Detections")."""
        return {
            "image": image_name,
            "width": int(width),
            "height": int(height),
            "objects": self.to_objects(),
        }


__all__ = ["DIE_COLOURS", "KINDS", "Detections"]
