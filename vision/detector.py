"""The detector stage: a uint8 BGR frame of any size → card, tile and die boxes (+ corners).

Runs the ONNX CenterNet-style model (`models/detector.onnx`, trained by ``python -m models.train
detector``) with onnxruntime. The model is fully convolutional at stride 8, so any input size
works; the frame is resized so that its longer side is `DetectorConfig.long_side` (never enlarged)
and padded to a multiple of 32. When that shrinks the frame so much that the smallest dice we
promise (`min_die_px` wide in the frame) would become smaller than `min_die_input_px` at the
model's input, the frame is also cut into overlapping tiles at a larger scale, and dice found in
the tiles are merged with the main pass (per-kind non-maximum suppression). Cards and tiles come
from the main pass only (they are large).

Decoding is vectorised: the model already outputs its heatmap with non-peaks zeroed (3×3
max-pool), so peaks are `np.nonzero(heat > threshold)`.

Public names: `DetectorConfig`, `Detector`, `decode_maps`, `nms_per_kind`, `contained_dice`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.detections import KINDS, Detections
from vision.geometry import change_aspect, order_corners_clockwise
from vision.sessions import load_session
from vision.voting import box_iou

DEFAULT_MODEL = Path(__file__).resolve().parent.parent / "models" / "detector.onnx"
# The live table's detector (`models/detector.md`, v16): the default one trained further on
# live tables (game positions laid out as players do, seen from the tablet at the table's edge).
# There it finds far more (24 rendered positions a game: King's Breakfast cards 0.44 -> 0.79,
# Dice King cards 0.50 -> 1.00, Café tiles 0.92 -> 0.94), but on the eval split's mixed tables
# and real dice photos it ranks worse (best recall at precision 0.98: cards 0.51 -> 0.41, tiles
# 0.19 -> 0.02; dice-webcam right 0.985 -> 0.982), so `detect` and scoring photos keep v14; so
# does the live Café table (`companion_app.viewmodels.recognition.LIVE_DETECTOR_GAMES`).
LIVE_MODEL = DEFAULT_MODEL.with_name("live_detector.onnx")
STRIDE = 8


@dataclass(frozen=True)
class DetectorConfig:
    """Detector settings (defaults chosen on the synthetic training renders, not on real photos).

    Attributes:
        long_side: the main pass resizes the frame so its longer side is at most this (pixels).
        short_side: when set, the main pass may rather resize the frame so its shorter side is
            this (pixels; never enlarged, nor the longer side beyond 2 × `long_side`): a frame
            wider than 4:3 then shows its pieces as large at the model's input as a 4:3 frame of
            the same height would. Scoring photos frame a spread by the frame's height, and
            their settings were measured on 800 × 600 photos; at `long_side` alone a 1280 × 720
            photo showed its cards a quarter smaller, and the detector missed cards half under
            others (`vision.readers.photos.PHOTO_SHORT_SIDE`). None (default): `long_side` only.
        score_thresholds: minimum heatmap peak per kind (card, tile, die) to report an object.
        nms_iou: boxes of one kind overlapping more than this are duplicates (the best is kept).
        max_objects: most objects reported per frame (best scores first).
        min_die_px: the smallest die width we promise to find, in frame pixels.
        min_die_input_px: the smallest die width the model sees reliably at its input.
        tile_side: side of a tile at the model's input in the tiled pass (pixels).
        tile_overlap: fraction of a tile shared with its neighbour (a die cut by one is whole in
            the next).
        max_tile_scale: the tiled pass never enlarges the frame beyond this factor.
        flat_pass_scale: when set, a second, coarser pass at this fraction of the main pass's
            scale finds cards and tiles (large pieces fit the network's receptive field better
            there); its cards and tiles are merged with the main pass's. None: main pass only.
        contained_die_fraction: a die box lying at least this fraction inside a die box of more
            than twice its area is dropped (a pip or a face detail seen as a small die: a die
            cannot lie inside another).
        zoom_piece_px: when set, a photo's cards and tiles are found again at a scale where the
            pieces the first pass found are about this wide (geometric mean of a box's sides) at
            the model's input: the region around them is cut out and enlarged (scoring photos
            often show a spread of small cards in the middle of the frame). The zoomed pass's
            cards and tiles replace the first pass's in the region, but for those placing the
            region (`zoom_min_score`) that no zoomed box on them (IoU >= `ZOOM_SAME_PIECE_IOU`)
            is surer than, none at all included. None: no zoom (the live table).
        zoom_min_score: first-pass cards and tiles at least this sure place the zoom's region.
        zoom_below: the zoom runs only when those pieces were narrower than this ×
            `zoom_piece_px` at the first pass's input.
        zoom_max_factor: the zoom never enlarges the region beyond this factor.
        zoom_max_side: nor makes it longer than this (pixels; time).
        zoom_regions: rectangles of the frame (x0, y0, x1, y1, normalised 0..1) where pieces
            are looked for again, enlarged `zoom_region_factor` times: the live table's play
            area, which the tablet's whole-table view shows small (cards about 40 px, dice
            about 13 px: below what the model finds at its input). The zoomed pass's pieces of
            `zoom_region_kinds` replace the first passes' ones centred in the region. Empty
            (default): none.
        zoom_region_factor: the enlargement of `zoom_regions` (at most to `zoom_max_side`).
        zoom_region_kinds: the kinds of piece the region zoom finds.
        zoom_regions_aspect: the width / height of the frames `zoom_regions` are drawn for
            (a frame of another shape from the same camera shows the same width, more or less
            of the height: `vision.geometry.change_aspect`). None: the frame's own.
        threads: onnxruntime intra-op threads.
    """

    long_side: int = 640
    short_side: int | None = None
    score_thresholds: dict[str, float] = field(
        default_factory=lambda: {"card": 0.35, "tile": 0.35, "die": 0.35}
    )
    nms_iou: float = 0.5
    max_objects: int = 200
    min_die_px: float = 16.0
    min_die_input_px: float = 8.0
    tile_side: int = 640
    tile_overlap: float = 0.25
    max_tile_scale: float = 1.0
    flat_pass_scale: float | None = 0.5
    contained_die_fraction: float = 0.7
    zoom_piece_px: float | None = None
    zoom_min_score: float = 0.3
    zoom_below: float = 0.35
    zoom_max_factor: float = 4.0
    zoom_max_side: int = 1600
    zoom_regions: tuple[tuple[float, float, float, float], ...] = ()
    zoom_region_factor: float = 2.0
    zoom_region_kinds: tuple[str, ...] = KINDS
    zoom_regions_aspect: float | None = None
    threads: int = 2


# a zoomed box and a first-pass box on one piece overlap at least this much (IoU)
ZOOM_SAME_PIECE_IOU = 0.3


def _letterbox(frame: np.ndarray, scale: float) -> tuple[np.ndarray, tuple[int, int]]:
    """Resize by `scale`, pad (bottom/right) to multiples of 32; return the NCHW float tensor."""
    h, w = frame.shape[:2]
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    if (nw, nh) != (w, h):
        interpolation = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
        frame = cv2.resize(frame, (nw, nh), interpolation=interpolation)
    ph, pw = -(-nh // 32) * 32, -(-nw // 32) * 32
    padded = np.zeros((ph, pw, 3), np.float32)
    padded[:nh, :nw] = frame
    return padded.transpose(2, 0, 1)[None] / 255.0, (nw, nh)


def decode_maps(
    heat: np.ndarray,
    size: np.ndarray,
    offset: np.ndarray,
    corners: np.ndarray,
    thresholds: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Objects from one image's stride-8 maps, in model-input pixels.

    Args:
        heat: (3, H, W) peak heatmap (non-peaks already 0).
        size: (2, H, W) log box width/height in cells.
        offset: (2, H, W) sub-cell centre offsets.
        corners: (8, H, W) corner − centre in cells (4 points, clockwise).
        thresholds: (3,) minimum score per kind.

    Returns:
        boxes (n, 4), scores (n,), kind indices (n,), corners (n, 4, 2), all float32/int64.
    """
    keep = heat > thresholds[:, None, None]
    k, ys, xs = np.nonzero(keep)
    scores = heat[k, ys, xs]
    cx = (xs + offset[0, ys, xs]) * STRIDE
    cy = (ys + offset[1, ys, xs]) * STRIDE
    bw = np.exp(np.clip(size[0, ys, xs], -4, 8)) * STRIDE
    bh = np.exp(np.clip(size[1, ys, xs], -4, 8)) * STRIDE
    boxes = np.stack([cx - bw / 2, cy - bh / 2, cx + bw / 2, cy + bh / 2], axis=1)
    c = corners[:, ys, xs].T.reshape(-1, 4, 2) * STRIDE + np.stack([cx, cy], axis=1)[:, None, :]
    return (
        boxes.astype(np.float32),
        scores.astype(np.float32),
        k.astype(np.int64),
        c.astype(np.float32),
    )


def nms_per_kind(
    boxes: np.ndarray, scores: np.ndarray, kinds: np.ndarray, iou: float
) -> np.ndarray:
    """Indices kept by non-maximum suppression within each kind, best score first."""
    if len(boxes) == 0:
        return np.zeros(0, np.int64)
    # offset each kind far apart so one class-agnostic NMS separates them (vectorised in OpenCV)
    shift = (kinds.astype(np.float32) * (boxes.max() + 1.0))[:, None]
    shifted = boxes + shift
    xywh = np.concatenate([shifted[:, :2], shifted[:, 2:] - shifted[:, :2]], axis=1)
    kept = cv2.dnn.NMSBoxes(xywh.tolist(), scores.tolist(), 0.0, float(iou))
    keep = np.asarray(kept, np.int64).reshape(-1)
    return keep[np.argsort(-scores[keep], kind="stable")]


def contained_dice(boxes: np.ndarray, kinds: np.ndarray, fraction: float) -> np.ndarray:
    """Mask of dice whose box lies at least `fraction` inside a die box over twice its area."""
    die = kinds == KINDS.index("die")
    out = np.zeros(len(boxes), bool)
    if die.sum() < 2:
        return out
    b = boxes[die].astype(np.float64)
    area = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    x1 = np.maximum(b[:, None, 0], b[None, :, 0])
    y1 = np.maximum(b[:, None, 1], b[None, :, 1])
    x2 = np.minimum(b[:, None, 2], b[None, :, 2])
    y2 = np.minimum(b[:, None, 3], b[None, :, 3])
    inside = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None) / np.maximum(area[:, None], 1e-6)
    bigger = area[None, :] > 2 * area[:, None]
    out[np.flatnonzero(die)] = ((inside >= fraction) & bigger).any(axis=1)
    return out


def _centred_in(boxes: np.ndarray, region: tuple[int, int, int, int]) -> np.ndarray:
    """Which boxes have their centre in `region` (x1, y1, x2, y2 px, the far edges excluded)."""
    x1, y1, x2, y2 = region
    cx, cy = (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2
    return (cx >= x1) & (cx < x2) & (cy >= y1) & (cy < y2)


class Detector:
    """Finds cards, tiles and dice in frames (model loaded once, in the constructor).

    Raises:
        ModelError: the model file is missing or cannot be loaded.
    """

    def __init__(
        self, model_path: str | Path | None = None, config: DetectorConfig | None = None
    ) -> None:
        self.config = config or DetectorConfig()
        path = Path(model_path) if model_path is not None else DEFAULT_MODEL
        self._session = load_session(path, "detector", threads=self.config.threads)
        self._input = self._session.get_inputs()[0].name
        self._thresholds = np.array([self.config.score_thresholds[k] for k in KINDS], np.float32)
        for region in self.config.zoom_regions:
            x0, y0, x1, y1 = region
            if not (0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0):
                raise ValueError(
                    f"zoom region {region} is not inside the frame (0..1, x0 < x1, y0 < y1)"
                )
        if self.config.zoom_region_factor <= 0:
            raise ValueError(
                f"zoom_region_factor must be positive, got {self.config.zoom_region_factor}"
            )
        aspect = self.config.zoom_regions_aspect
        if aspect is not None and not aspect > 0:
            raise ValueError(f"zoom_regions_aspect must be positive, got {aspect}")
        unknown = set(self.config.zoom_region_kinds) - set(KINDS)
        if unknown:
            raise ValueError(
                f"zoom_region_kinds: unknown kind(s) {sorted(unknown)} (known: {KINDS})"
            )

    # --- passes ----------------------------------------------------------------------------------
    def _run(self, tensor: np.ndarray) -> list[np.ndarray]:
        return self._session.run(None, {self._input: np.ascontiguousarray(tensor, np.float32)})

    def _main_pass(self, frame: np.ndarray, scale: float) -> tuple[np.ndarray, ...]:
        tensor, _ = _letterbox(frame, scale)
        heat, size, offset, corners = self._run(tensor)
        boxes, scores, kinds, corner_pts = decode_maps(
            heat[0], size[0], offset[0], corners[0], self._thresholds
        )
        return boxes / scale, scores, kinds, corner_pts / scale

    def _tile_pass(self, frame: np.ndarray, scale: float) -> tuple[np.ndarray, ...]:
        """Dice only, from overlapping tiles of the frame resized by `scale`."""
        h, w = frame.shape[:2]
        nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
        resized = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_AREA)
        side = self.config.tile_side
        step = max(32, int(side * (1 - self.config.tile_overlap)))
        xs = list(range(0, max(1, nw - side) + 1, step))
        ys = list(range(0, max(1, nh - side) + 1, step))
        if xs[-1] + side < nw:
            xs.append(nw - side)
        if ys[-1] + side < nh:
            ys.append(nh - side)
        tensors, origins = [], []
        for y in ys:
            for x in xs:
                tile = resized[y : y + side, x : x + side]
                tensor, _ = _letterbox(tile, 1.0)
                if tensor.shape[2:] != (side, side):
                    full = np.zeros((1, 3, side, side), np.float32)
                    full[:, :, : tensor.shape[2], : tensor.shape[3]] = tensor[:, :, :side, :side]
                    tensor = full
                tensors.append(tensor)
                origins.append((x, y, tile.shape[1], tile.shape[0]))
        all_boxes, all_scores = [], []
        die = KINDS.index("die")
        for start in range(0, len(tensors), 4):
            heat, size, offset, corners = self._run(np.concatenate(tensors[start : start + 4]))
            for j in range(heat.shape[0]):
                x, y, tw, th = origins[start + j]
                boxes, scores, kinds, _ = decode_maps(
                    heat[j], size[j], offset[j], corners[j], self._thresholds
                )
                # keep dice that are not cut by an inner tile edge
                margin = 2.0
                inner = np.ones(len(boxes), bool)
                if x > 0:
                    inner &= boxes[:, 0] > margin
                if y > 0:
                    inner &= boxes[:, 1] > margin
                if x + tw < nw:
                    inner &= boxes[:, 2] < tw - margin
                if y + th < nh:
                    inner &= boxes[:, 3] < th - margin
                keep = (kinds == die) & inner
                all_boxes.append((boxes[keep] + np.array([x, y, x, y], np.float32)) / scale)
                all_scores.append(scores[keep])
        boxes = np.concatenate(all_boxes) if all_boxes else np.zeros((0, 4), np.float32)
        scores = np.concatenate(all_scores) if all_scores else np.zeros(0, np.float32)
        kinds = np.full(len(boxes), die, np.int64)
        corners = np.full((len(boxes), 4, 2), np.nan, np.float32)
        return boxes, scores, kinds, corners

    # --- public ----------------------------------------------------------------------------------
    def scales(
        self, width: int, height: int, long_side: int | None = None
    ) -> tuple[float, float | None]:
        """The main-pass scale and the tiled-pass scale (None: no tiles) for a frame size
        (`long_side`: the main pass's longest side, default the configured one and
        `short_side`)."""
        main = min(1.0, (long_side or self.config.long_side) / max(width, height))
        if long_side is None and self.config.short_side is not None:
            by_short = min(
                self.config.short_side / min(width, height),
                2 * self.config.long_side / max(width, height),
            )
            main = min(1.0, max(main, by_short))
        if self.config.min_die_px * main >= self.config.min_die_input_px:
            return main, None
        tile = min(
            self.config.max_tile_scale, self.config.min_die_input_px / self.config.min_die_px
        )
        return main, tile

    def _passes(self, frame: np.ndarray, long_side: int | None = None) -> tuple[np.ndarray, ...]:
        """Boxes, scores, kind indices and corners of every pass, before suppression."""
        h, w = frame.shape[:2]
        main_scale, tile_scale = self.scales(w, h, long_side)
        parts = [self._main_pass(frame, main_scale)]
        if self.config.flat_pass_scale is not None:
            coarse = self._main_pass(frame, main_scale * self.config.flat_pass_scale)
            flat = coarse[2] != KINDS.index("die")
            parts.append(tuple(a[flat] for a in coarse))
        if tile_scale is not None:
            parts.append(self._tile_pass(frame, tile_scale))
        return tuple(np.concatenate([p[i] for p in parts]) for i in range(4))

    def _zoomed(self, frame: np.ndarray, found: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
        """The passes again on the region of the found cards and tiles, enlarged so that they
        are about `zoom_piece_px` wide; its cards and tiles replace the first passes'."""
        boxes, scores, kinds, _ = found
        target = self.config.zoom_piece_px
        flat = (kinds != KINDS.index("die")) & (scores >= self.config.zoom_min_score)
        if target is None or not flat.any():
            return found
        b = boxes[flat]
        sides = np.sqrt(np.clip(b[:, 2] - b[:, 0], 1, None) * np.clip(b[:, 3] - b[:, 1], 1, None))
        # a photo's pieces are of one size; much smaller boxes are mostly the table's pattern
        # (speckles, confetti) and must neither widen the region nor shrink the piece size
        # (a box astride several pieces, the largest, at worst makes the zoom too weak to run)
        large = sides >= 0.4 * float(sides.max())
        b, sides = b[large], sides[large]
        piece = float(np.median(sides))
        h, w = frame.shape[:2]
        margin = 0.5 * piece
        x1, y1 = max(0, int(b[:, 0].min() - margin)), max(0, int(b[:, 1].min() - margin))
        x2, y2 = min(w, int(b[:, 2].max() + margin) + 1), min(h, int(b[:, 3].max() + margin) + 1)
        factor = min(
            self.config.zoom_max_factor,
            target / piece,
            self.config.zoom_max_side / max(x2 - x1, y2 - y1),
        )
        main = self.scales(w, h)[0]
        # only pieces the first passes saw small: on framed photos of Café hands (tiles about
        # 50 px at the model's input) zooming to 80 px lost more tiles than it found (200
        # validation tables of seeds 8,000,000+ exactly right: no zoom 33.5 %, zoom whenever
        # pieces were under 80 px 20 %, under 0.5 × 80 px 30 %, under 0.35 × 80 px 33.5 %)
        if piece * main >= self.config.zoom_below * target or factor <= 1.1 * main:
            return found
        zb, zs, zk, zc = self._region_passes(frame, (x1, y1, x2, y2), factor)
        keep_zoom = zk != KINDS.index("die")
        # dice, and cards or tiles centred outside the region, stay from the first passes
        keep_first = (kinds == KINDS.index("die")) | ~_centred_in(boxes, (x1, y1, x2, y2))
        # ... and so does a first-pass piece (placing the region) surer than every zoomed box
        # on it: a Café tile found at 0.59 was boxed by the zoom only loosely (0.31, IoU 0.42)
        # and went uncounted. Also where the zoom found nothing on it: a plainly shown tile found
        # at 0.40 that the zoom missed went uncounted, and its hand was scored a tile short.
        overlap = box_iou(boxes, zb[keep_zoom]) >= ZOOM_SAME_PIECE_IOU
        zoom_scores = np.where(overlap, zs[keep_zoom][None, :], -1.0)
        best_zoom = zoom_scores.max(axis=1, initial=-1.0)
        keep_first |= (
            (kinds != KINDS.index("die"))
            & (scores >= self.config.zoom_min_score)
            & (scores > best_zoom)
        )
        return tuple(
            np.concatenate([a[keep_first], z[keep_zoom]])
            for a, z in zip(found, (zb, zs, zk, zc), strict=True)
        )

    def _region_zoomed(
        self, frame: np.ndarray, found: tuple[np.ndarray, ...], region: tuple[float, ...]
    ) -> tuple[np.ndarray, ...]:
        """The passes again on one `zoom_regions` rectangle, enlarged `zoom_region_factor`
        times; its pieces of `zoom_region_kinds` replace the first passes' ones centred in it."""
        h, w = frame.shape[:2]
        x0, y0, x1, y1 = region
        aspect = self.config.zoom_regions_aspect
        if aspect is not None:
            y0, y1 = (
                float(v) for v in np.clip(change_aspect(np.array([y0, y1]), aspect, w / h), 0, 1)
            )
            if y1 - y0 < 1.0 / h:
                return found  # the region lies outside this frame
        left, top = int(x0 * w), int(y0 * h)
        right, bottom = max(left + 1, int(np.ceil(x1 * w))), max(top + 1, int(np.ceil(y1 * h)))
        # never longer than `zoom_max_side` (time): a 1280 px frame's whole table is
        # enlarged 1.25 times, not twice
        factor = min(
            self.config.zoom_region_factor,
            self.config.zoom_max_side / max(right - left, bottom - top),
        )
        zoomed = self._region_passes(frame, (left, top, right, bottom), factor)
        chosen = np.array([KINDS.index(k) for k in self.config.zoom_region_kinds], np.int64)
        mine = np.isin(zoomed[2], chosen)
        boxes, _, kinds, _ = found
        keep = ~(np.isin(kinds, chosen) & _centred_in(boxes, (left, top, right, bottom)))
        return tuple(np.concatenate([a[keep], z[mine]]) for a, z in zip(found, zoomed, strict=True))

    def _region_passes(
        self, frame: np.ndarray, region: tuple[int, int, int, int], factor: float
    ) -> tuple[np.ndarray, ...]:
        """The passes on `region` (x1, y1, x2, y2 px) of the frame enlarged `factor` times;
        boxes and corners in the frame's coordinates."""
        x1, y1, x2, y2 = region
        big = cv2.resize(
            frame[y1:y2, x1:x2], None, fx=factor, fy=factor, interpolation=cv2.INTER_LINEAR
        )
        boxes, scores, kinds, corners = self._passes(big, long_side=max(big.shape[:2]))
        offset = np.array([x1, y1], np.float32)
        return boxes / factor + np.tile(offset, 2), scores, kinds, corners / factor + offset

    def detect(self, frame: np.ndarray) -> Detections:
        """Detect pieces in a uint8 BGR frame (H, W, 3); coordinates are the frame's pixels."""
        h, w = frame.shape[:2]
        found = self._passes(frame)
        if self.config.zoom_piece_px is not None:
            found = self._zoomed(frame, found)
        for region in self.config.zoom_regions:
            found = self._region_zoomed(frame, found, region)
        boxes, scores, kinds, corners = found
        keep = nms_per_kind(boxes, scores, kinds, self.config.nms_iou)
        keep = keep[~contained_dice(boxes[keep], kinds[keep], self.config.contained_die_fraction)]
        keep = keep[: self.config.max_objects]
        boxes, scores, kinds, corners = boxes[keep], scores[keep], kinds[keep], corners[keep]
        # boxes inside the frame; corners clockwise from the top-left (dice: NaN)
        boxes[:, [0, 2]] = np.clip(boxes[:, [0, 2]], 0, w)
        boxes[:, [1, 3]] = np.clip(boxes[:, [1, 3]], 0, h)
        die_rows = kinds == KINDS.index("die")
        ordered = corners.copy()
        for i in np.flatnonzero(~die_rows):
            ordered[i] = order_corners_clockwise(corners[i])
        ordered[die_rows] = np.nan
        return Detections.from_boxes(boxes, scores, [KINDS[k] for k in kinds], ordered)


__all__ = ["DetectorConfig", "Detector", "contained_dice", "decode_maps", "nms_per_kind"]
