"""A die's top face, found and read on its own: locate → rectify → read.

The whole-die reader (`vision.dice_reader`) sees the die with its side faces; on real oblique
photos it counted a side face's pips with the top's (real 4s read as 5s, 2s as 3s). Here:

1. **Locate**: a small network (`models/dice_top_face.onnx`, `TopFaceNet`) marks the top face's
   pixels on the same kind of square die crop (`crop_dice`, 48 px), and `quad_from_mask` fits a
   quadrilateral to the mark.
2. **Rectify**: the quad, a little enlarged, is warped from the full-resolution frame onto a
   small square (`rectify_faces`): the top face seen from straight above, side faces left out.
3. **Read**: the face reader (`models/dice_face_reader.onnx`, a `DiceReaderNet` trained on
   rectified rendered top faces) gives the value (class 0: no readable face) and pip colour; the
   plain pip counter (`vision.pips`) counts the rectified face's pips too (seen from above,
   with no side faces, its count is a fair second opinion).

`TopFaceReader` runs all three; the pipeline combines its values with the whole-die reader's.

Public names: `TopFaceConfig`, `TopFaceReadings`, `TopFaceReader`, `crop_geometry`,
`quad_from_mask`, `order_quad`, `rectify_faces`, `mask_targets`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.dice_reader import crop_dice
from vision.pips import count_pips
from vision.sessions import load_session

MODELS = Path(__file__).resolve().parent.parent / "models"
DEFAULT_LOCATOR = MODELS / "dice_top_face.onnx"
DEFAULT_FACE_READER = MODELS / "dice_face_reader.onnx"


@dataclass(frozen=True)
class TopFaceConfig:
    """Top-face settings.

    Attributes:
        crop_size: side of the locator's square die crop (must match the trained model).
        crop_margin: context around the die box, as for the whole-die reader.
        face_size: side of the rectified face (must match the face reader).
        face_margin: the located quad is enlarged by this fraction of its size on each side
            before warping, so that pips at its edge stay whole when the quad is a little small.
        mask_threshold: locator probability above which a pixel is top face.
        min_face_fraction: a mark smaller than this fraction of the crop is no face.
        pip_face_size: side of the rectified face the pip counter counts on.
        pip_face_margin: its margin (less than the reader's: the counter has no notion of a
            neighbouring face's pips showing at the edge).
        views: the face reader reads each face this many ways and averages (`face_views`: 8 =
            the four quarter turns and their mirror images). On the rendered eval split 8 views
            read 0.897 of the dice right against 0.883 with 1 (with the pip count); each view
            costs about 0.15 ms a die on one thread, so the live app, which votes over frames,
            reads one.
        batch: most crops per model call.
        threads: onnxruntime threads per model (the live app leaves a core to the preview).
    """

    crop_size: int = 48
    crop_margin: float = 0.2
    face_size: int = 32
    face_margin: float = 0.12
    mask_threshold: float = 0.5
    min_face_fraction: float = 0.02
    pip_face_size: int = 48
    pip_face_margin: float = 0.06
    views: int = 8
    batch: int = 64
    threads: int = 2


def crop_geometry(
    boxes_xyxy: np.ndarray, *, size: int, margin: float
) -> tuple[np.ndarray, np.ndarray]:
    """Centres (n, 2) and scales (n,) of `crop_dice`'s crops.

    A frame point p lies at ``(p − centre) · scale + size / 2`` in its crop.
    """
    boxes = np.asarray(boxes_xyxy, np.float64).reshape(-1, 4)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    sides = np.maximum(sides, 2.0) * (1 + 2 * margin)
    return centres, size / sides


def order_quad(quad: np.ndarray) -> np.ndarray:
    """The 4 points clockwise on screen (y down), starting from the one with the least x + y."""
    q = np.asarray(quad, np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    angles = np.arctan2(q[:, 1] - centre[1], q[:, 0] - centre[0])
    q = q[np.argsort(angles)]
    start = int(np.argmin(q.sum(axis=1)))
    return np.roll(q, -start, axis=0)


def quad_from_mask(
    probability: np.ndarray, *, threshold: float = 0.5, min_fraction: float = 0.02
) -> np.ndarray | None:
    """A quadrilateral (4, 2) around the largest marked region of a probability map, or None.

    The region's convex hull is simplified to 4 corners (`cv2.approxPolyDP` with a growing
    tolerance); when no tolerance gives exactly 4, its minimum-area rectangle is used.
    """
    mask = (np.asarray(probability) > threshold).astype(np.uint8)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if count <= 1:
        return None
    largest = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[largest, cv2.CC_STAT_AREA] < min_fraction * mask.size:
        return None
    region = (labels == largest).astype(np.uint8)
    contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    perimeter = cv2.arcLength(hull, True)
    for fraction in (0.02, 0.04, 0.06, 0.09, 0.12, 0.16):
        approx = cv2.approxPolyDP(hull, fraction * perimeter, True)
        if len(approx) == 4:
            # the mark's outline runs through its border pixels' centres, about half a pixel
            # inside the face's edge
            quad = approx.reshape(4, 2).astype(np.float64)
            centre = quad.mean(axis=0)
            direction = quad - centre
            length = np.linalg.norm(direction, axis=1, keepdims=True)
            return order_quad(quad + 0.5 * direction / np.maximum(length, 1e-6))
    return order_quad(cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64))


def rectify_faces(
    frame: np.ndarray, quads_px: np.ndarray, *, size: int = 32, margin: float = 0.12
) -> np.ndarray:
    """Warp each quad (n, 4, 2) of the frame onto a ``size × size`` square (n, size, size, 3).

    The quad is enlarged by `margin` of its size around its centre. Large faces are warped at a
    higher resolution first and area-averaged down, so their pips are not aliased away.
    """
    quads = np.asarray(quads_px, np.float64).reshape(-1, 4, 2)
    out = np.empty((len(quads), size, size, 3), np.uint8)
    for i, quad in enumerate(quads):
        quad = order_quad(quad)
        centre = quad.mean(axis=0)
        grown = centre + (quad - centre) * (1 + 2 * margin)
        edge = float(np.max(np.linalg.norm(np.roll(grown, -1, axis=0) - grown, axis=1)))
        work = int(min(2 * size, max(size, round(edge))))
        source = frame
        if edge > 2 * work:
            # area-average the face's surroundings down first: a perspective warp samples
            # points, and fine detail (pips of a die filling a phone photo) would alias
            x0, y0 = np.floor(grown.min(axis=0)).astype(int) - 1
            x1, y1 = np.ceil(grown.max(axis=0)).astype(int) + 2
            h, w = frame.shape[:2]
            xs = np.clip(np.arange(x0, x1), 0, w - 1)
            ys = np.clip(np.arange(y0, y1), 0, h - 1)
            factor = 1.5 * work / edge
            region = frame[ys[:, None], xs[None, :]]
            small = (
                max(1, round(region.shape[1] * factor)),
                max(1, round(region.shape[0] * factor)),
            )
            source = cv2.resize(region, small, interpolation=cv2.INTER_AREA)
            grown = (grown - (x0, y0)) * (small[0] / region.shape[1], small[1] / region.shape[0])
        square = np.array([[0, 0], [work, 0], [work, work], [0, work]], np.float64)
        matrix = cv2.getPerspectiveTransform(grown.astype(np.float32), square.astype(np.float32))
        face = cv2.warpPerspective(
            source, matrix, (work, work), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
        )
        if work != size:
            face = cv2.resize(face, (size, size), interpolation=cv2.INTER_AREA)
        out[i] = face
    return out


FACE_VIEWS: tuple[int, ...] = (1, 2, 4, 8)


def face_views(faces: np.ndarray, views: int) -> np.ndarray:
    """The faces (n, S, S, 3) seen `views` ways, stacked view by view ((views · n), S, S, 3).

    A top face seen from above has no up and no handedness to its value: 1 is the faces as they
    are, 2 adds a half turn, 4 the quarter turns, 8 also their mirror images.

    Raises:
        ValueError: `views` is not one of `FACE_VIEWS`.
    """
    if views not in FACE_VIEWS:
        raise ValueError(f"views must be one of {FACE_VIEWS}, not {views}")
    turns = (0, 2, 1, 3)[: min(views, 4)]
    stack = [np.rot90(faces, k, axes=(1, 2)) for k in turns]
    if views == 8:
        mirrored = faces[:, :, ::-1]
        stack += [np.rot90(mirrored, k, axes=(1, 2)) for k in turns]
    return np.ascontiguousarray(np.concatenate(stack))


def mask_targets(quads_crop: np.ndarray, size: int) -> np.ndarray:
    """Quads in crop pixels (n, 4, 2) drawn as anti-aliased masks (n, size, size) uint8."""
    quads = np.asarray(quads_crop, np.float64).reshape(-1, 4, 2)
    masks = np.zeros((len(quads), size, size), np.uint8)
    for i, quad in enumerate(quads):
        points = np.round(quad * 16).astype(np.int32)  # 1/16-pixel fixed point
        cv2.fillPoly(masks[i], [points], 255, cv2.LINE_AA, 4)
    return masks


@dataclass(frozen=True)
class TopFaceReadings:
    """What the top-face reader saw on n dice.

    Attributes:
        quads_px: (n, 4, 2) float64 the top face's corners in frame pixels (NaN: none found).
        value_probabilities: (n, 7) float32 (class 0: no readable face); all zero when no face
            was found.
        colour_probabilities: (n, 4) float32 (none, r, g, b); zero when no face was found.
        pip_counts: (n,) int64 the pip counter's count on the rectified face (0: unsure or no
            face); `pip_confidences` (n,) float32 its confidence.
    """

    quads_px: np.ndarray
    value_probabilities: np.ndarray
    colour_probabilities: np.ndarray
    pip_counts: np.ndarray
    pip_confidences: np.ndarray

    @property
    def found(self) -> np.ndarray:
        """(n,) bool: a top face was located."""
        return ~np.isnan(self.quads_px[:, 0, 0])


class TopFaceReader:
    """Locates, rectifies and reads dice top faces (both ONNX models loaded once).

    Raises:
        ModelError: a model file is missing or unreadable.
    """

    def __init__(
        self,
        locator_path: str | Path | None = None,
        face_reader_path: str | Path | None = None,
        config: TopFaceConfig | None = None,
    ) -> None:
        self.config = config or TopFaceConfig()
        if self.config.views not in FACE_VIEWS:
            raise ValueError(f"views must be one of {FACE_VIEWS}, not {self.config.views}")
        self._locator = load_session(
            Path(locator_path) if locator_path else DEFAULT_LOCATOR,
            "top-face locator",
            threads=self.config.threads,
        )
        self._reader = load_session(
            Path(face_reader_path) if face_reader_path else DEFAULT_FACE_READER,
            "face reader",
            threads=self.config.threads,
        )

    def locate(self, frame: np.ndarray, boxes_xyxy: np.ndarray) -> np.ndarray:
        """Top-face quads (n, 4, 2) in frame pixels, NaN where none was found."""
        cfg = self.config
        boxes = np.asarray(boxes_xyxy, np.float64).reshape(-1, 4)
        quads = np.full((len(boxes), 4, 2), np.nan)
        if not len(boxes):
            return quads
        crops = crop_dice(frame, boxes, size=cfg.crop_size, margin=cfg.crop_margin)
        probabilities = []
        name = self._locator.get_inputs()[0].name
        for start in range(0, len(crops), cfg.batch):
            batch = crops[start : start + cfg.batch].transpose(0, 3, 1, 2)
            tensor = np.ascontiguousarray(batch, dtype=np.float32) / 255.0
            probabilities.append(self._locator.run(None, {name: tensor})[0][:, 0])
        maps = np.concatenate(probabilities)
        centres, scales = crop_geometry(boxes, size=cfg.crop_size, margin=cfg.crop_margin)
        for i, probability in enumerate(maps):
            if probability.shape[0] != cfg.crop_size:
                probability = cv2.resize(
                    probability, (cfg.crop_size, cfg.crop_size), interpolation=cv2.INTER_LINEAR
                )
            quad = quad_from_mask(
                probability, threshold=cfg.mask_threshold, min_fraction=cfg.min_face_fraction
            )
            if quad is not None:
                quads[i] = (quad - cfg.crop_size / 2) / scales[i] + centres[i]
        return quads

    def read_faces(self, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Value (n, 7) and colour (n, 4) probabilities of rectified faces (n, S, S, 3) uint8,
        averaged over the configured `views` of each face."""
        n = len(faces)
        if not n:
            return np.zeros((0, 7), np.float32), np.zeros((0, 4), np.float32)
        views = face_views(faces, self.config.views)
        name = self._reader.get_inputs()[0].name
        values, colours = [], []
        for start in range(0, len(views), self.config.batch):
            batch = views[start : start + self.config.batch].transpose(0, 3, 1, 2)
            tensor = np.ascontiguousarray(batch, dtype=np.float32) / 255.0
            v, c = self._reader.run(None, {name: tensor})
            values.append(v)
            colours.append(c)
        value_p = np.concatenate(values).reshape(-1, n, 7).mean(axis=0)
        colour_p = np.concatenate(colours).reshape(-1, n, 4).mean(axis=0)
        return value_p.astype(np.float32), colour_p.astype(np.float32)

    def read(self, frame: np.ndarray, boxes_xyxy: np.ndarray) -> TopFaceReadings:
        """Locate, rectify and read the top faces of the dice in `boxes_xyxy`."""
        quads = self.locate(frame, boxes_xyxy)
        n = len(quads)
        values = np.zeros((n, 7), np.float32)
        colours = np.zeros((n, 4), np.float32)
        counts = np.zeros(n, np.int64)
        confidences = np.zeros(n, np.float32)
        found = ~np.isnan(quads[:, 0, 0])
        if found.any():
            cfg = self.config
            faces = rectify_faces(frame, quads[found], size=cfg.face_size, margin=cfg.face_margin)
            values[found], colours[found] = self.read_faces(faces)
            pip_faces = rectify_faces(
                frame, quads[found], size=cfg.pip_face_size, margin=cfg.pip_face_margin
            )
            for i, face in zip(np.flatnonzero(found), pip_faces, strict=True):
                pips = count_pips(face)
                counts[i], confidences[i] = pips.count, pips.confidence
        return TopFaceReadings(quads, values, colours, counts, confidences)


__all__ = [
    "TopFaceConfig",
    "TopFaceReader",
    "TopFaceReadings",
    "crop_geometry",
    "face_views",
    "mask_targets",
    "order_quad",
    "quad_from_mask",
    "rectify_faces",
]
