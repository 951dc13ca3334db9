"""The die reader: a die's top-face value (1–6) and pip colour (r/g/b/None) from its box.

Crops are cut from the **full-resolution** frame (never the detector's downscaled input) as squares
around the die box with a context margin, then resized to the model's input. The ONNX model
(`models/dice_reader.onnx`, trained by ``python -m models.train dice``) outputs calibrated
probabilities: 7 value classes (class 0 = "not a die", 1–6 the value) and 4 colour classes
(none, r, g, b). A die's value score is ``p(value) × p(colour)``.

Public names: `DiceReaderConfig`, `DieReadings`, `DiceReader`, `crop_dice`, `COLOUR_CLASSES`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.sessions import load_session

COLOUR_CLASSES: tuple[str | None, ...] = (None, "r", "g", "b")
DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "dice_reader.onnx"


@dataclass(frozen=True)
class DiceReaderConfig:
    """Die reader settings.

    Attributes:
        crop_size: side of the square model input in pixels (must match the trained model).
        margin: context added on each side of the die box, as a fraction of its longer side
            (the reader sees the table and neighbours, as in training).
        batch: most crops per model call.
    """

    crop_size: int = 40
    margin: float = 0.2
    batch: int = 64


def crop_dice(
    frame: np.ndarray, boxes_xyxy: np.ndarray, *, size: int = 40, margin: float = 0.2
) -> np.ndarray:
    """Square crops around die boxes, resized to ``size × size``.

    Args:
        frame: uint8 BGR image (H, W, 3), the full-resolution frame (not modified).
        boxes_xyxy: (n, 4) boxes in that frame's pixels.
        size: output side in pixels.
        margin: context on each side, as a fraction of the box's longer side.

    Returns:
        (n, size, size, 3) uint8 crops; parts outside the frame repeat the border pixels.
    """
    boxes = np.asarray(boxes_xyxy, np.float64).reshape(-1, 4)
    out = np.empty((len(boxes), size, size, 3), np.uint8)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    sides = np.maximum(sides, 2.0) * (1 + 2 * margin)
    for i in range(len(boxes)):
        scale = size / sides[i]
        # affine map: crop square (centre ± side/2) → [0, size)
        tx = size / 2 - scale * centres[i, 0]
        ty = size / 2 - scale * centres[i, 1]
        matrix = np.array([[scale, 0, tx], [0, scale, ty]], np.float64)
        interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        if scale < 0.5:
            # area-average first so small pips are not aliased away
            x1, y1 = np.floor(centres[i] - sides[i] / 2).astype(int)
            side = int(np.ceil(sides[i])) + 1
            patch = _padded_patch(frame, x1, y1, side)
            out[i] = cv2.resize(patch, (size, size), interpolation=cv2.INTER_AREA)
            continue
        out[i] = cv2.warpAffine(
            frame, matrix, (size, size), flags=interpolation, borderMode=cv2.BORDER_REPLICATE
        )
    return out


def _padded_patch(frame: np.ndarray, x1: int, y1: int, side: int) -> np.ndarray:
    h, w = frame.shape[:2]
    if x1 >= 0 and y1 >= 0 and x1 + side <= w and y1 + side <= h:
        return frame[y1 : y1 + side, x1 : x1 + side]  # inside the frame: a view, no copy
    xs = np.clip(np.arange(x1, x1 + side), 0, w - 1)
    ys = np.clip(np.arange(y1, y1 + side), 0, h - 1)
    return frame[ys[:, None], xs[None, :]]


@dataclass(frozen=True)
class DieReadings:
    """Readings of n dice: values 1–6 (0: not a die), colours, and their calibrated scores.

    Attributes:
        values: (n,) int64 most likely value (0 when "not a die" is most likely).
        colours: (n,) object ``r``/``g``/``b``/None.
        scores: (n,) float32 ``p(value) × p(colour)``.
        value_probabilities: (n, 7) float32, class 0 = not a die.
        colour_probabilities: (n, 4) float32 none/r/g/b, or None when not known.
    """

    values: np.ndarray
    colours: np.ndarray
    scores: np.ndarray
    value_probabilities: np.ndarray
    colour_probabilities: np.ndarray | None = None


class DiceReader:
    """Reads dice with the ONNX die reader (loaded once, in the constructor).

    Raises:
        ModelError: the model file is missing or unreadable.
    """

    def __init__(
        self, model_path: str | Path | None = None, config: DiceReaderConfig | None = None
    ) -> None:
        self.config = config or DiceReaderConfig()
        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        self._session = load_session(path, "die reader", threads=2)
        self._input = self._session.get_inputs()[0].name
        shape = self._session.get_inputs()[0].shape
        if isinstance(shape[-1], int) and shape[-1] != self.config.crop_size:
            self.config = DiceReaderConfig(shape[-1], self.config.margin, self.config.batch)

    def read_crops(self, crops: np.ndarray) -> DieReadings:
        """Read (n, S, S, 3) uint8 BGR crops made by `crop_dice`."""
        n = len(crops)
        if n == 0:
            return DieReadings(
                np.zeros(0, np.int64),
                np.empty(0, object),
                np.zeros(0, np.float32),
                np.zeros((0, 7), np.float32),
                np.zeros((0, 4), np.float32),
            )
        value_parts, colour_parts = [], []
        for start in range(0, n, self.config.batch):
            batch = crops[start : start + self.config.batch]
            tensor = np.ascontiguousarray(batch.transpose(0, 3, 1, 2), dtype=np.float32) / 255.0
            value_p, colour_p = self._session.run(None, {self._input: tensor})
            value_parts.append(value_p)
            colour_parts.append(colour_p)
        value_p = np.concatenate(value_parts).astype(np.float32)
        colour_p = np.concatenate(colour_parts).astype(np.float32)
        values = value_p.argmax(axis=1)
        colour_index = colour_p.argmax(axis=1)
        colours = np.empty(n, object)
        for i, c in enumerate(colour_index):
            colours[i] = COLOUR_CLASSES[int(c)]
        scores = value_p[np.arange(n), values] * colour_p[np.arange(n), colour_index]
        scores[values == 0] = 0.0
        return DieReadings(
            values.astype(np.int64), colours, scores.astype(np.float32), value_p, colour_p
        )

    def read(self, frame: np.ndarray, boxes_xyxy: np.ndarray) -> DieReadings:
        """Read the dice in `boxes_xyxy` of a uint8 BGR frame (H, W, 3), at full resolution."""
        crops = crop_dice(frame, boxes_xyxy, size=self.config.crop_size, margin=self.config.margin)
        return self.read_crops(crops)


__all__ = ["COLOUR_CLASSES", "DiceReader", "DiceReaderConfig", "DieReadings", "crop_dice"]
