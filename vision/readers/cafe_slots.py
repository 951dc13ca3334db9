"""Read each chair and bar stool of a registered Café board directly, slot by slot.

Once the board is registered (`vision.readers.cafe_international`), every chair and stool is at
a known place in the frame, so a tile on it need not be found by the detector first (chesscog
reads a chessboard square by square the same way). For each slot:

1. **Occupancy.** The frame is seen from above through the registration (`view_px_per_unit`
   pixels per board unit) and compared with the empty board's appearance, the *reference*: the
   companion art, drawn from the layout exactly as it is printed (`companion_reference`; the
   same way the gallery draws the companion faces). The light is undone first: per colour
   channel a gain and offset fitted on the board around the slots (trimmed least squares:
   exposure, white balance, haze), then a smooth gain field of block medians (a spot light,
   shade); the reference is softened a little (a camera is softer than the drawn art). What
   remains differs from the board only where something lies on it: a slot is occupied when
   the mean residual over the core of its tile place reaches `empty_below`.
2. **Identity.** Only occupied slots are identified: tile quads (the tile's side in board
   units, `tile_side_units`) at a small grid of positions around the slot (players place tiles
   imprecisely, and a tile's face stands above the board's plane) are projected into the frame
   and given to the shared `vision.identify.Identifier`, which handles quarter turns and
   refuses to guess. The best-scoring position's class must also beat every other class seen
   at any position (`SlotConfig.pose_ratio`). A slot that differs only faintly from the board
   and looks like no tile is empty after all (a crumb, the light); one that surely holds
   something is looked at again farther off and turned (a tile placed carelessly). An
   occupied slot that is not identified stays unidentified: the reader reports it, never
   guesses.

The tile's side in board units is not in the layout file: it follows from the chair places the
art draws (`chair_side_units`, the same rule as the art's) — each chair place is a little wider
than a tile (the renderer: 24 mm tiles on 36-unit chairs at 0.75 mm per unit, ratio 8/9; a
printed board: 1–2 mm wider than the tile). A layout traced from a photo of another board has no
art to compare with (`companion_reference` returns None); reading its slots needs a reference
image of the empty board (`BoardReference`, e.g. a top-down snapshot taken at registration).

Accuracy and speed: `benchmarks/cafe_slots.py`.

Public names: `SlotConfig`, `Slot`, `SlotRead`, `BoardReference`, `SlotReader`,
`chair_side_units`, `tile_side_units`, `board_slots`, `companion_reference`, `tile_quads_units`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision.detections import Detections
from vision.geometry import layout_spacing, project_points
from vision.identify import Identifier, Match

if TYPE_CHECKING:
    from vision.readers.cafe_international import Registration

GAME = "cafe-international"
PREFIX = GAME + "/"

# the art's chair place: 0.7 × the median distance to the nearest chair, at most 0.6 × the
# layout's spacing (`datasets.art.cafe_international._geometry`, which `vision` must not import;
# tests/vision/readers/test_cafe_slots.py checks the two agree)
_CHAIR_OF_NEAREST = 0.7
_CHAIR_OF_SPACING = 0.6


@dataclass(frozen=True)
class SlotConfig:
    """Settings of slot reading (defaults chosen on rendered eval-split tables, seeds other
    than the benchmark's default ones; see `benchmarks/cafe_slots.py`).

    Attributes:
        tile_of_chair: a tile's side as a fraction of the art's chair place (renderer 8/9; a
            printed board 0.92–0.96: the tile's quad is a little smaller than the real tile,
            which the identifier's inset tolerates).
        view_px_per_unit: resolution of the top-down view occupancy is decided on (a tile
            is 8 pixels: finer shows the frame's noise, not more of the tile).
        sample_px_per_unit: the frame is sampled at this resolution (about its own on a
            board filling a tablet's frame), then area-averaged down to the view.
        core: the fraction of a tile's side (centred) whose residual decides occupancy: a
            tile's rim and the chair's outline blur into each other.
        empty_below: a slot whose mean core residual (in units of the board's contrast) is
            under this is empty. An empty slot above it is a problem reported to the player;
            an occupied slot under it that the identifier could not name would be a silent
            miss. Chosen from `benchmarks/cafe_slots.py --first 1000 --empty-below 0 --csv`
            (tables other than the reported ones) as the trade-off between the two.
        sure_occupied: a slot whose residual is under this and whose best match scores under
            `tile_like_score` at every position looked at is empty after all: it differs a
            little from the board (light, a crumb, a slightly off registration) but looks
            like no tile (on the tuning tables no occupied slot did: tiles the identifier
            cannot name still look like tiles).
        tile_like_score: see `sure_occupied`.
        light_trim: the fraction of board pixels (least residual) the light's fit keeps.
        light_block_units: side (board units) of the blocks of the smooth gain field.
        min_reference_level: board pixels darker than this (0–255, in the reference) do not
            measure the gain field (a ratio to black is noise).
        reference_blurs: Gaussian sigmas (view pixels) the reference is blurred by; each frame
            is compared with the one whose light fit leaves the least residual on the free
            board. One small sigma by default: matching a defocused frame's blur hid tiles
            as much as chairs' outlines on rendered tables.
        poses: a tile is looked at in a poses × poses grid of positions around its slot …
        pose_step: … this fraction of a tile's side apart.
        wide_step: a tile not identified in that grid (on a slot at least `sure_occupied`,
            with room around it: not the bar's stools, which touch) is looked at again in one
            this fraction of a tile's side apart …
        wide_turns: … also turned by these angles (degrees); empty: no second look.
        pose_ratio: the distance-ratio test (as `IdentifyConfig.min_distance_ratio`) the best
            class must pass against every other class at every position looked at.
        reuse_below: a slot whose top-down patch (1.5 tiles wide) changed by less than this
            mean absolute difference (grey levels) since the last frame read with the same
            registration keeps that frame's reading: identifying is most of a frame's cost,
            and between moves almost every slot is unchanged. None: always read afresh.
        floor_margin: across frames read with one registration (the live table), a slot
            read occupied but not identified, fainter than `sure_occupied`, is empty when it
            differs from the board less than this more than it did at its least in the earlier
            such frames: it looked so before anything came (guests never leave, CI-12), so
            what shows is the light or the print, not a tile (an empty chair at 0.062 on a
            rendered tablet view, every frame of a game, was a guest nobody could explain).
            A single photo has no earlier frames: it is read as before. None: off.
    """

    tile_of_chair: float = 8.0 / 9.0
    view_px_per_unit: float = 0.25
    sample_px_per_unit: float = 1.0
    core: float = 1.0
    empty_below: float = 0.06
    sure_occupied: float = 0.15
    tile_like_score: float = 0.55
    light_trim: float = 0.8
    light_block_units: float = 64.0
    min_reference_level: float = 60.0
    reference_blurs: tuple[float, ...] = (0.7,)
    poses: int = 3
    pose_step: float = 1.0 / 16.0
    pose_ratio: float = 1.5
    wide_step: float = 0.125
    wide_turns: tuple[float, ...] = (-12.0, 12.0)
    reuse_below: float | None = 4.0
    floor_margin: float | None = 0.03


@dataclass(frozen=True)
class Slot:
    """A place a tile can sit: a chair (its layout id) or a bar stool (``stool 1`` …)."""

    id: str
    kind: str  # "chair" or "stool"
    index: int  # position among the layout's chairs or stools
    centre_units: tuple[float, float]


@dataclass(frozen=True)
class SlotRead:
    """What one slot shows.

    Attributes:
        slot: the slot.
        occupied: something lies on it.
        tile: the tile's id within the game (``italy/w``), or None (empty, or not identified).
        occupancy: the mean residual over the slot's core (see `SlotConfig.empty_below`).
        centre_units: where the tile was identified best (the slot's centre when empty).
        match: the identifier's conclusion at the best position looked at (identity None when
            not accepted; None for an empty slot).
    """

    slot: Slot
    occupied: bool
    tile: str | None
    occupancy: float
    centre_units: tuple[float, float]
    match: Match | None = None

    @property
    def is_unidentified(self) -> bool:
        """Occupied, but no tile could be named (a problem to report, never a guess)."""
        return self.occupied and self.tile is None


@dataclass(frozen=True)
class BoardReference:
    """The empty board seen from above: BGR uint8 `image` and the 3×3 board units → image
    pixels matrix `unit_to_px` (the companion art, or a snapshot of the empty board)."""

    image: np.ndarray
    unit_to_px: np.ndarray


def chair_side_units(layout_json: Mapping[str, Any]) -> float:
    """The side (board units) of the chair places the companion art draws for `layout_json`."""
    chairs = np.asarray([c["center"] for c in layout_json["chairs"]], np.float64).reshape(-1, 2)
    d = layout_spacing(layout_json)
    if len(chairs) < 2:
        return _CHAIR_OF_SPACING * d
    gaps = np.linalg.norm(chairs[:, None] - chairs[None], axis=2)
    np.fill_diagonal(gaps, np.inf)
    return float(min(_CHAIR_OF_NEAREST * np.median(gaps.min(axis=1)), _CHAIR_OF_SPACING * d))


def tile_side_units(layout_json: Mapping[str, Any], config: SlotConfig | None = None) -> float:
    """A tile's side in board units: `SlotConfig.tile_of_chair` × the art's chair place."""
    config = config or SlotConfig()
    return config.tile_of_chair * chair_side_units(layout_json)


def board_slots(layout_json: Mapping[str, Any]) -> tuple[Slot, ...]:
    """Every chair (layout order) then every bar stool (stool order) of `layout_json`."""
    chairs = [
        Slot(str(c["id"]), "chair", i, (float(c["center"][0]), float(c["center"][1])))
        for i, c in enumerate(layout_json["chairs"])
    ]
    stools = [
        Slot(f"stool {i + 1}", "stool", i, (float(u), float(v)))
        for i, (u, v) in enumerate(layout_json.get("bar", {}).get("stools", []))
    ]
    return tuple(chairs + stools)


def tile_quads_units(centres_units: np.ndarray, side: float) -> np.ndarray:
    """(n, 4, 2) axis-aligned squares of `side` around (n, 2) centres, clockwise from the top
    left (board units)."""
    h = side / 2.0
    offsets = np.array([[-h, -h], [h, -h], [h, h], [-h, h]])
    return np.asarray(centres_units, np.float64).reshape(-1, 1, 2) + offsets[None]


def companion_reference(
    layout_json: Mapping[str, Any], px_per_unit: float = 0.5
) -> BoardReference | None:
    """The companion art of `layout_json` drawn at `px_per_unit`, or None when the board on the
    table is not the art (a layout traced from a photo of another board).

    Drawn like the gallery's companion faces: from `datasets.art`, in memory (a tenth of a
    second for the reference layout).
    """
    if layout_json.get("traced_from"):
        return None
    from datasets import art  # the companion art, as `vision.gallery` draws it

    drawn = art.board(dict(layout_json), float(px_per_unit))
    return BoardReference(np.ascontiguousarray(drawn.image[:, :, :3]), np.asarray(drawn.unit_to_px))


class SlotReader:
    """Reads every slot of one layout's board; build once per layout, call per frame.

    Args:
        layout_json: the layout (design contract), with positions.
        identifier: the shared identifier (its gallery must hold the Café tiles).
        reference: the empty board's appearance; by default the companion art.
        config: settings.

    Raises:
        ValueError: no reference (a traced layout, see `companion_reference`).
    """

    def __init__(
        self,
        layout_json: Mapping[str, Any],
        identifier: Identifier,
        reference: BoardReference | None = None,
        config: SlotConfig | None = None,
    ):
        self.config = config or SlotConfig()
        self.identifier = identifier
        # the last frame read: its homography, slot patches and reading (see `read`)
        self._last: tuple[np.ndarray, list[np.ndarray], tuple[SlotRead, ...]] | None = None
        # per slot, the least occupancy of the frames read with the last registration in which
        # it was faint and not identified (inf: none yet; see `SlotConfig.floor_margin`)
        self._floors: np.ndarray | None = None
        self.slots = board_slots(layout_json)
        self.tile_side = tile_side_units(layout_json, self.config)
        scale = self.config.view_px_per_unit
        reference = reference or companion_reference(layout_json, self.config.sample_px_per_unit)
        if reference is None:
            raise ValueError(
                f"no empty-board reference for layout {layout_json.get('name', 'layout')!r}"
            )
        # the view: board units → view pixels, the reference resampled onto it
        self._units_to_view = self._view_from(reference, scale)
        sharp = self._top_down(reference.image, reference.unit_to_px)
        self._references = [
            cv2.GaussianBlur(sharp, (0, 0), sigma) if sigma > 0 else sharp
            for sigma in self.config.reference_blurs
        ]
        self._centres = np.array([s.centre_units for s in self.slots], np.float64).reshape(-1, 2)
        self._centres_view = project_points(self._units_to_view, self._centres)
        self._board_mask = self._free_board_mask()
        # slots whose neighbours' tiles a wider look cannot reach (not the bar's stools,
        # placed edge to edge)
        gaps = np.linalg.norm(self._centres[:, None] - self._centres[None], axis=2)
        np.fill_diagonal(gaps, np.inf)
        self._roomy = gaps.min(axis=1) >= self.tile_side * (1 + 2 * self.config.wide_step)

    # --- setup -----------------------------------------------------------------------------------
    def _view_from(self, reference: BoardReference, scale: float) -> np.ndarray:
        """Board units → view pixels covering the reference's extent at `scale` px per unit."""
        h, w = reference.image.shape[:2]
        corners = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        units = project_points(np.linalg.inv(reference.unit_to_px), corners)
        lo, hi = units.min(axis=0), units.max(axis=0)
        size = np.ceil((hi - lo) * scale).astype(int)
        self._view_size = (int(size[1]), int(size[0]))
        return np.array([[scale, 0, -lo[0] * scale], [0, scale, -lo[1] * scale], [0, 0, 1.0]])

    def _free_board_mask(self) -> np.ndarray:
        """Board pixels of the view where no tile lies (every slot's place and the poses
        around it cut out): they measure the light."""
        h, w = self._view_size
        mask = np.ones((h, w), bool)
        reach = 0.5 + (self.config.poses // 2) * self.config.pose_step
        half = reach * self.tile_side * self.config.view_px_per_unit + 1
        for x, y in self._centres_view:
            x0, y0 = max(0, int(x - half)), max(0, int(y - half))
            mask[y0 : int(np.ceil(y + half)) + 1, x0 : int(np.ceil(x + half)) + 1] = False
        return mask

    def _top_down(self, image: np.ndarray, units_to_image: np.ndarray) -> np.ndarray:
        """`image` seen from above on the view: sampled at `sample_px_per_unit`, then
        area-averaged down to the view (no aliasing, and pixel noise averages out)."""
        h, w = self._view_size
        k = max(1, int(round(self.config.sample_px_per_unit / self.config.view_px_per_unit)))
        to_sample = np.diag([k, k, 1.0]) @ self._units_to_view
        sampled = cv2.warpPerspective(
            image,
            units_to_image @ np.linalg.inv(to_sample),
            (w * k, h * k),
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        )
        return cv2.resize(sampled, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32)

    # --- reading ---------------------------------------------------------------------------------
    def residual(self, frame: np.ndarray, registration: Registration) -> np.ndarray:
        """How much the frame (uint8 BGR) differs from the empty board, seen from above: (H, W)
        float32 in units of the board's contrast (0: the empty board)."""
        return self._residual(self._top_down(frame, registration.homography))

    def _residual(self, view: np.ndarray) -> np.ndarray:
        free = self._board_mask
        # the reference as blurred as the frame: the one the light's fit explains best
        fits = [_fit_light(r[free], view[free], self.config.light_trim) for r in self._references]
        best = int(np.argmin([error for _, _, error in fits]))
        ref = self._references[best]
        gain, offset, _ = fits[best]
        field = self._gain_field(view, ref, gain, offset)
        contrast = gain * field
        residual = view - (contrast * ref + offset)
        scale = np.sqrt((contrast**2).mean(axis=2)) * 255.0 + 1e-6
        return np.sqrt((residual**2).mean(axis=2)) / scale

    def _gain_field(
        self, view: np.ndarray, ref: np.ndarray, gain: np.ndarray, offset: np.ndarray
    ) -> np.ndarray:
        """(H, W, 3) smooth multiplicative light field: block medians of the frame over the
        reference on the free, bright board, interpolated (1 where a block has none)."""
        h, w = self._view_size
        block = max(2, int(round(self.config.light_block_units * self.config.view_px_per_unit)))
        usable = self._board_mask & (ref.mean(axis=2) > self.config.min_reference_level)
        ratio = (view - offset) / np.maximum(gain * ref, 1.0)
        ratio[~usable] = np.nan
        bh, bw = -(-h // block), -(-w // block)
        padded = np.full((bh * block, bw * block, 3), np.nan, np.float32)
        padded[:h, :w] = ratio
        blocks = padded.reshape(bh, block, bw, block, 3).transpose(0, 2, 1, 3, 4)
        counts = np.isfinite(blocks[..., 0]).sum(axis=(2, 3))
        with np.errstate(all="ignore"):
            medians = np.nanmedian(blocks.reshape(bh, bw, -1, 3), axis=2)
        medians[counts < block] = np.nan
        fill = np.nanmedian(medians.reshape(-1, 3), axis=0)
        fill = np.where(np.isfinite(fill), fill, 1.0)
        medians = np.where(np.isfinite(medians), medians, fill).astype(np.float32)
        field = cv2.resize(medians, (w, h), interpolation=cv2.INTER_LINEAR)
        return np.clip(field, 0.3, 3.0)

    def occupancy(self, residual: np.ndarray) -> np.ndarray:
        """Per slot (n,), the mean residual over its core (0 where the slot is off the view)."""
        scale = self.config.view_px_per_unit
        core = max(1, int(round(self.config.core * self.tile_side * scale)))
        covered = cv2.blur(residual, (core, core), borderType=cv2.BORDER_REPLICATE)
        h, w = covered.shape
        x = np.round(self._centres_view[:, 0]).astype(int)
        y = np.round(self._centres_view[:, 1]).astype(int)
        inside = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        scores = np.zeros(len(self.slots), np.float64)
        scores[inside] = covered[y[inside], x[inside]]
        return scores

    def identify(
        self,
        frame: np.ndarray,
        registration: Registration,
        rows: np.ndarray,
        *,
        wide: bool = False,
    ) -> list[tuple[Match | None, np.ndarray]]:
        """The tiles on slots `rows`: per slot the best position's match (its identity None
        unless accepted; its candidates are what the UI offers) and that position (board
        units).

        Each slot's tile is looked at in a small grid of positions around the slot (`poses`,
        `pose_step` of a tile's side): players place tiles imprecisely, and the tile's face
        stands above the board's plane. `wide`: farther off and turned too (`wide_step`,
        `wide_turns`), for a tile placed carelessly.
        """
        if wide:
            poses = self._poses(self.config.wide_step, (0.0, *self.config.wide_turns))
        else:
            poses = self._poses(self.config.pose_step, (0.0,))
        return self._look(frame, registration, self._centres[rows], poses)

    def _poses(self, step: float, turns: tuple[float, ...]) -> np.ndarray:
        """(p, 3) offsets (board units) and turns (degrees): a `poses` × `poses` grid `step` of
        a tile's side apart, at each turn."""
        n = self.config.poses
        grid = np.arange(-(n // 2), n // 2 + 1) * step * self.tile_side
        return np.array([(dx, dy, turn) for turn in turns for dy in grid for dx in grid])

    def _look(
        self,
        frame: np.ndarray,
        registration: Registration,
        centres: np.ndarray,
        poses: np.ndarray,
    ) -> list[tuple[Match | None, np.ndarray]]:
        """Per slot centre (n, 2), a tile at each of the (p, 3) `poses` (offset, turn)
        identified: the pose whose best class scores highest wins, and its class must beat
        every other class at every pose looked at, by the identifier's margin and by
        `pose_ratio` in distance (1 − similarity). A class that is best only where the quad is
        off the tile is no identity."""
        p = len(poses)
        square = tile_quads_units(np.zeros((1, 2)), self.tile_side)[0]
        turns = np.radians(poses[:, 2])
        cos, sin = np.cos(turns), np.sin(turns)
        rotation = np.stack([np.stack([cos, -sin], -1), np.stack([sin, cos], -1)], -2)
        shapes = np.einsum("pij,cj->pci", rotation, square) + poses[:, None, :2]  # (p, 4, 2)
        quads_units = centres[:, None, None, :] + shapes[None]  # (n, p, 4, 2)
        quads = project_points(registration.homography, quads_units.reshape(-1, 2))
        matches = self.identifier.match(frame, _tile_detections(quads.reshape(-1, 4, 2)), [GAME])
        out: list[tuple[Match | None, np.ndarray]] = []
        min_margin = self.identifier.config.min_margin
        for k in range(len(centres)):
            looked = matches[k * p : (k + 1) * p]
            scored = [(m.score if m is not None else -np.inf, j) for j, m in enumerate(looked)]
            best_score, j = max(scored)
            best = looked[j]
            where = centres[k] + poses[j, :2]
            if best is None or best.identity is None:
                out.append((best, where))
                continue
            other = max(
                (m.score if m.label != best.label else m.score - m.margin)
                for m in looked
                if m is not None
            )
            clear = best_score - other >= min_margin and (1 - other) >= self.config.pose_ratio * (
                1 - best_score
            )
            out.append((best if clear else replace(best, identity=None), where))
        return out

    def _slot_patches(self, view: np.ndarray) -> list[np.ndarray]:
        """Each slot's top-down patch, 1.5 tiles wide (for telling which slots changed)."""
        half = max(1, int(round(0.75 * self.tile_side * self.config.view_px_per_unit)))
        h, w = view.shape[:2]
        patches = []
        for x, y in np.round(self._centres_view).astype(int):
            patches.append(
                view[max(0, y - half) : min(h, y + half), max(0, x - half) : min(w, x + half)]
            )
        return patches

    def _unchanged(self, patches: list[np.ndarray], same: bool) -> np.ndarray:
        """Which slots look as they did in the last frame read (`same`: with this
        registration)."""
        last = self._last
        limit = self.config.reuse_below
        if limit is None or last is None or not same:
            return np.zeros(len(self.slots), bool)
        return np.array(
            [
                a.shape == b.shape and a.size > 0 and float(np.abs(a - b).mean()) < limit
                for a, b in zip(patches, last[1], strict=True)
            ],
            bool,
        )

    def read(self, frame: np.ndarray, registration: Registration) -> tuple[SlotRead, ...]:
        """Every slot of the board in `frame` (uint8 BGR, registered by `registration`); slots
        unchanged since the last frame keep its reading (`SlotConfig.reuse_below`)."""
        view = self._top_down(frame, registration.homography)
        patches = self._slot_patches(view)
        same = self._last is not None and np.array_equal(self._last[0], registration.homography)
        unchanged = self._unchanged(patches, same)
        previous = self._last[2] if self._last is not None else ()
        fresh = self._read(frame, registration, view, skip=unchanged)
        out = tuple(previous[i] if unchanged[i] else fresh[i] for i in range(len(self.slots)))
        out = self._against_floors(out, self._floors if same else None)
        self._last = (registration.homography.copy(), patches, out)
        return out

    def _against_floors(
        self, reads: tuple[SlotRead, ...], floors: np.ndarray | None
    ) -> tuple[SlotRead, ...]:
        """Faint unidentified slots no more unlike the board than they were before: empty
        (`SlotConfig.floor_margin`); the floors then take this frame's faint slots in."""
        margin = self.config.floor_margin
        if margin is None:
            return reads
        faint = np.array(
            [r.tile is None and r.occupancy < self.config.sure_occupied for r in reads], bool
        )
        occupancy = np.array([r.occupancy for r in reads], np.float64)
        if floors is not None:
            reads = tuple(
                replace(r, occupied=False, match=None, centre_units=r.slot.centre_units)
                if faint[i] and r.occupied and r.occupancy < floors[i] + margin
                else r
                for i, r in enumerate(reads)
            )
        else:
            floors = np.full(len(reads), np.inf)
        self._floors = np.where(faint, np.minimum(floors, occupancy), floors)
        return reads

    def _read(
        self,
        frame: np.ndarray,
        registration: Registration,
        view: np.ndarray,
        *,
        skip: np.ndarray,
    ) -> tuple[SlotRead, ...]:
        """Read the slots afresh, leaving out (as empty) the `skip` ones' identification."""
        occupancy = self.occupancy(self._residual(view))
        occupied = occupancy >= self.config.empty_below
        rows = np.flatnonzero(occupied & ~skip)
        found = dict(zip(rows.tolist(), self.identify(frame, registration, rows), strict=True))
        again = []
        for i, (match, _) in found.items():
            if match is not None and match.identity is not None:
                continue
            if occupancy[i] >= self.config.sure_occupied:
                if self._roomy[i]:
                    again.append(i)  # surely something: look farther and turned
            elif match is None or match.score < self.config.tile_like_score:
                occupied[i] = False  # a little unlike the board, and like no tile: empty
        if again and self.config.wide_turns:
            looked = self.identify(frame, registration, np.array(again), wide=True)
            for i, (match, centre) in zip(again, looked, strict=True):
                if match is not None and match.identity is not None:
                    found[i] = (match, centre)
        out = []
        for i, slot in enumerate(self.slots):
            if skip[i] and i not in found:
                occupied[i] = False  # kept from the last frame by the caller
            match, centre = found[i] if occupied[i] else (None, self._centres[i])
            identity = match.identity if match is not None else None
            tile = identity[len(PREFIX) :] if identity and identity.startswith(PREFIX) else None
            out.append(
                SlotRead(
                    slot,
                    bool(occupied[i]),
                    tile,
                    float(occupancy[i]),
                    (float(centre[0]), float(centre[1])),
                    match,
                )
            )
        return tuple(out)


def _fit_light(
    reference: np.ndarray, seen: np.ndarray, trim: float
) -> tuple[np.ndarray, np.ndarray, float]:
    """Per channel gain and offset mapping reference pixels (n, 3) to seen ones (n, 3), fitted
    by least squares on the `trim` fraction of pixels it explains best (refitted twice), and
    the mean squared error on those pixels in reference levels.

    Every channel at once, in closed form (a line's least squares), on every other pixel."""
    x = reference[::2].astype(np.float64)
    y = seen[::2].astype(np.float64)
    weight = np.ones_like(x)
    gain, offset = np.ones(3), np.zeros(3)
    for _ in range(3):
        count = weight.sum(axis=0) + 1e-9
        mx, my = (weight * x).sum(axis=0) / count, (weight * y).sum(axis=0) / count
        var = (weight * (x - mx) ** 2).sum(axis=0)
        cov = (weight * (x - mx) * (y - my)).sum(axis=0)
        gain = np.maximum(np.where(var > 0, cov / np.maximum(var, 1e-9), 1.0), 0.02)
        offset = my - gain * mx
        miss = np.abs(y - (gain * x + offset))
        weight = (miss <= np.quantile(miss, trim, axis=0)).astype(np.float64)
    kept = (weight * ((y - (gain * x + offset)) / gain) ** 2).sum(axis=0)
    error = float((kept / np.maximum(weight.sum(axis=0), 1.0)).sum())
    return gain.astype(np.float32), offset.astype(np.float32), error


def _tile_detections(quads_px: np.ndarray) -> Detections:
    """Detections of tiles at (n, 4, 2) quads (what the identifier takes)."""
    quads = np.asarray(quads_px, np.float32).reshape(-1, 4, 2)
    boxes = np.concatenate([quads.min(axis=1), quads.max(axis=1)], axis=1)
    return Detections.from_boxes(
        boxes, np.ones(len(quads), np.float32), ["tile"] * len(quads), quads
    )


__all__ = [
    "BoardReference",
    "Slot",
    "SlotConfig",
    "SlotRead",
    "SlotReader",
    "board_slots",
    "chair_side_units",
    "companion_reference",
    "tile_quads_units",
    "tile_side_units",
]
