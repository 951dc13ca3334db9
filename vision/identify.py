"""Identify cards and tiles by matching their rectified faces against a gallery of references.

Each card or tile quad is warped to a small canonical thumbnail (`vision.rectify.warp_face`),
colour-balanced within limits (grey world: the light's colour and the white balance scale the
channels) and described cell by cell (cards 3 × 4 cells, tiles one): per cell a lightness block
(blurred, centred and scaled over the whole face: exposure and contrast drop out) and a colour
block (the log-chromaticity log R/G, log B/G minus the face's mean: a coloured light or the
camera's white balance scales the channels and drops out exactly). Two faces' similarity is the
mean over their best-agreeing three quarters of cells of the cells' weighted cosines, in
[-1, 1]: a card partly covered by another, a hand or glare is still recognised by the rest.
Every reference is described
in all four rotations (a card turned a quarter is described squashed into the upright frame,
exactly as the query warp would show it) and also blurred, so neither the order in which the
detector lists a quad's corners nor defocus matters; the best rotation tells which corner is the
printed top-left.

A piece is identified when its best class scores at least `IdentifyConfig.min_score`, leads the
best *other* class by `min_margin`, and passes a distance-ratio test (the other class at least
`min_distance_ratio` times as far, 1 − similarity; stricter for pieces under `small_side_px`).
An undecided piece gets a second, finer look among its best classes (twice the thumbnail size);
optionally (`verify`, for still photos) its two best candidates are aligned with the frame and
compared by correlation. Otherwise its identity is None and the top candidates are kept
(`Match.candidates`) for the UI to offer. Backs are classes too: a face-down piece matches its
back and stays unidentified. References with identical faces (Dice King's penalty cards of equal
value) form one class named after the first of them (`Match.aliases`); so do the enrolled faces of
pieces whose companion faces are identical (`companion_twins`: copies of one card).

Enrolled references (the user's own printing) are matched first: when they identify the piece
the companion art is not consulted, and a piece's enrolled face replaces its companion face.
Matching is vectorised: one product per cell for all pieces of a frame
(`benchmarks/identify_speed.py`; accuracy: `benchmarks/identify_accuracy.py`). The defaults were
chosen on rendered eval-split scenes of other seeds than the benchmark's.

Public names: `IdentifyConfig`, `Match`, `Identifier`, `describe`, `similarity`, `cell_grid`,
`fine_config`, `thumb_size`, `candidates_json`, `printed_corners`, `companion_twins`.
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from vision.detections import Detections
from vision.gallery import Gallery, Reference, load_gallery
from vision.geometry import clockwise_quad
from vision.rectify import AlignConfig, align_to_reference, warp_face


@dataclass(frozen=True)
class IdentifyConfig:
    """Thresholds and sizes of identification (defaults chosen on rendered scenes).

    Attributes:
        card_thumb: (width, height) of the canonical card thumbnail; both card games use it
            (their aspects, 1.40 and 1.56, are close enough to squash into one frame).
        tile_thumb: (width, height) of the canonical tile thumbnail.
        card_cells: (columns, rows) of the grid of cells a card's face is compared by.
        tile_cells: the same for tiles.
        keep_cells: the fraction of best-agreeing cells that count in a similarity (the rest
            may be covered by another piece, a hand or glare).
        grey_world: balance each face's colour channels to a common mean before describing it
            (the light's colour and the camera's white balance scale the channels).
        grey_world_gains: the least and most gain that balancing applies to a channel. The
            balance now feeds only the lightness block (colour is log-chromaticity), so it may
            be wide: candle light made a red-and-navy Café tile as light as the British flag
            under (0.85, 1.18); (0.5, 2.0) on seeds 7 and 11: Café 0.961 → 0.972 and
            0.919 → 0.923 correct, wrong 5 → 1.
        cell_floor: a cell whose lightness varies less than this fraction of the face's
            typical cell is not amplified to unit length (flat cells carry no pattern).
        inset: fraction of the thumbnail cut off at each side before describing it (rounded
            corners, the table beyond them and a few per cent of corner error).
        blur_sigma: Gaussian blur (thumbnail pixels) of the lightness block.
        colour_grid: the colour block's cells are this many thumbnail pixels square.
        lightness_weight: weight of the lightness layout's cosine in the similarity.
        colour_weight: weight of the colour layout's cosine in the similarity.
        chroma_floor: chroma (Lab units, root mean square) below which a face counts as grey:
            its colour block is shrunk instead of amplified (noise is not a colour); used when
            `colour_space` is ``lab``.
        colour_space: ``log`` (default): the colour block is the log-chromaticity
            (log R/G, log B/G) minus the face's mean, which a coloured light or the camera's
            white balance (a gain per channel) shifts by a constant, so the mean removes them
            exactly; ``lab``: Lab chroma after grey-world balancing, whose layout a warm light
            bends (measured on rendered eval scenes of seed 7: a brown King's Breakfast card
            under orange light read as the pink one; log lifted Café 0.915 → 0.954 correct,
            King's Breakfast 0.938 → 0.984, wrong 4.7 % → 0).
        log_chroma_floor: `chroma_floor` for the ``log`` colour space (natural-log units).
        log_offset: added to the 0–1 channels before the logarithm (dark pixels' noise would
            otherwise dominate their ratios).
        min_score: least similarity of the best class to identify a piece (0.6: on seeds 7
            and 11 no correct answer scored lower, and boxes on bare table score 0.5–0.7).
        tile_min_score: the same for tiles, which are one cell (nothing of a tile half on
            the table is left out of its similarity, so a Café tile moved half off its place
            still scores 0.6–0.7 with its neighbour's flag; 0.7: garbage boxes named 13 of 966
            → 9 on seed 99, 2 of 641 tiles fewer identified on seed 7, none on seed 11).
        min_margin: least lead of the best class over the best other class (a floor under the
            ratio test, which decides: measured on seeds 7 and 11, lowering it from 0.02 to 0.01
            identified 2 % more Dice King cards, whose penalty faces differ only in a number,
            and no more wrongly).
        min_distance_ratio: the best other class must be at least this many times farther
            (distance = 1 − similarity) than the best class (a ratio test: a lead of 0.05 is
            decisive at similarity 0.97 and meaningless at 0.5).
        min_distance_ratio_small: the same for pieces whose shorter side is under
            `small_side_px` pixels (a 20-pixel tile shows little: it must lead clearly).
        small_side_px: below this shorter side (frame pixels) a piece counts as small.
        enrolled_min_score: least similarity for an enrolled reference (matched first).
        enrolled_min_margin: least lead for an enrolled reference.
        top_k: how many candidates a `Match` keeps for the UI.
        min_side_px: quads whose shorter side is under this many pixels are not identified.
        duplicate_similarity: references this similar (in every block) are one class.
        reference_blurs: each reference is also described blurred by these Gaussian sigmas
            (thumbnail pixels), so a defocused or moving piece is compared with references as
            blurred as itself and the classes keep their margins.
        tile_reference_blurs: the same for tiles (3.5 added: a 20-pixel tile defocused by 3
            frame pixels is blurred by about 3.5 thumbnail pixels; seeds 7 and 11 gained 2.5
            points of Café tiles, no more wrong; cards gained nothing and matched a third
            slower).
        rerank_top: a piece whose best classes are too close is looked at again at
            `fine_scale` times the thumbnail size, comparing only this many best classes
            (Dice King's villages differ only in their number of houses).
        fine_scale: the fine look's thumbnail (and blur) scale.
        fine_min_ratio: the fine look's distance-ratio test (as `min_distance_ratio`).
        fine_min_margin: the fine look's least lead (as `min_margin`).
        align_corners: refine an identified piece's corners on the full frame by aligning its
            reference face (`vision.rectify.align_to_reference`; about 10 ms a piece, so off by
            default: for still photos, not the live loop).
        align: settings of that alignment.
        verify: settle an undecided piece (at least `verify_min_side_px` on its shorter side)
            between its two best candidates by aligning each one's face with the frame
            (`vision.rectify.align_to_reference`): the winner needs an aligned correlation of
            `verify_min_correlation` and a lead of `verify_margin`. Tens of milliseconds a
            piece, so off by default: for still photos (scoring from photos), not the live loop.
        verify_min_side_px: the least shorter side (frame pixels) of a piece worth verifying.
        verify_min_correlation: the least aligned correlation of the winner.
        verify_margin: the least lead of the winner's aligned correlation.
        verify_turns: quarter turns (added to the best rotation) each candidate is aligned at;
            (0, 2) also tries it upside down (measured: no gain on rendered scenes, twice the
            time).
        verify_align: the alignment settings verification uses.
        detail_look: settle an undecided piece (at least `detail_min_side_px` on its shorter
            side, best class at least `detail_min_score`) whose best classes lie within
            `detail_gap` of each other, all of them among its candidates, by comparing its face
            (warped at `detail_size` pixels wide, grey, either way up) with theirs only where
            their faces differ, then the best two only where those two differ: the winner
            needs a correlation of `detail_min_correlation` there and a lead of
            `detail_margin`. Whole-face descriptors average away what tells a Dice King
            inhabitant's or village's number apart. Chosen on rendered eval-split scenes of
            seeds 7 and 11 (40 a game, true corners ± 2 %): no wrong name added; a piece whose
            close classes fill its candidate list is left alone (with more candidates kept,
            penalty cards of value 3 were named value 1 at correlations 0.83-0.93).
        detail_sources: the references (``enrolled``, ``companion``) whose near ties the detail
            look settles. Enrolled only by default: the companion art's small print is read by
            trained readers before the gallery is asked (`vision.piece_reader`), and through the
            whole pipeline on the eval split the detail look on companion faces named one card
            more wrongly (cards right / wrong / unnamed 339 / 2 / 15 -> 339 / 3 / 14; seed 101's
            validation scenes unchanged). On the gallery alone (true corners ± 2 %, seed 2026)
            companion Dice King faces went 0.884 -> 0.891 right and King's Breakfast 0.938 ->
            0.946, none wrong.
        detail_min_score, detail_gap, detail_min_side_px, detail_size, detail_min_correlation,
            detail_margin: see `detail_look`.
        shift_check: an identified piece's quad is also read moved by this fraction of its
            sides in each of four directions; when a moved quad matches the identified class
            within `shift_tolerance` of the quad itself (or better), the quad is misplaced (half
            on the table, astride two pieces) and the identity is dropped. 0 turns it off.
            Measured on garbage boxes in rendered scenes (seed 99): 37 of 966 named without
            it, 20 with it, at no cost to correct answers on seed 7. The piece's thumbnail is
            the centre of the same warp (`_surround`).
        shift_tolerance: see `shift_check` (negative: a moved quad nearly as good suffices).
        shift_check_below: only pieces identified with a similarity under this are checked
            (no misplaced quad scored above 0.88 on those scenes; the check then costs about
            0.08 ms a piece instead of 0.25).
    """

    card_thumb: tuple[int, int] = (24, 36)
    tile_thumb: tuple[int, int] = (24, 24)
    card_cells: tuple[int, int] = (3, 4)
    tile_cells: tuple[int, int] = (1, 1)
    keep_cells: float = 0.75
    grey_world: bool = True
    grey_world_gains: tuple[float, float] = (0.5, 2.0)
    cell_floor: float = 0.3
    inset: float = 0.07
    blur_sigma: float = 0.7
    colour_grid: int = 2
    lightness_weight: float = 0.55
    colour_weight: float = 0.45
    chroma_floor: float = 4.0
    colour_space: str = "log"
    log_chroma_floor: float = 0.04
    log_offset: float = 0.04
    min_score: float = 0.6
    tile_min_score: float = 0.7
    min_margin: float = 0.01
    min_distance_ratio: float = 1.3
    min_distance_ratio_small: float = 1.5
    small_side_px: float = 30.0
    enrolled_min_score: float = 0.6
    enrolled_min_margin: float = 0.01
    top_k: int = 3
    min_side_px: float = 8.0
    duplicate_similarity: float = 0.995
    reference_blurs: tuple[float, ...] = (1.0, 2.0)
    tile_reference_blurs: tuple[float, ...] = (1.0, 2.0, 3.5)
    rerank_top: int = 3
    fine_scale: int = 2
    fine_min_ratio: float = 1.3
    fine_min_margin: float = 0.01
    align_corners: bool = False
    verify: bool = False
    verify_min_side_px: float = 60.0
    verify_min_correlation: float = 0.8
    verify_margin: float = 0.08
    verify_turns: tuple[int, ...] = (0,)
    verify_align: AlignConfig = field(default_factory=AlignConfig)
    detail_look: bool = True
    detail_sources: tuple[str, ...] = ("enrolled",)
    detail_min_score: float = 0.85
    detail_gap: float = 0.03
    detail_min_side_px: float = 40.0
    detail_size: int = 96
    detail_min_correlation: float = 0.6
    detail_margin: float = 0.15
    shift_check: float = 0.25
    shift_tolerance: float = -0.03
    shift_check_below: float = 0.93
    align: AlignConfig = field(default_factory=AlignConfig)


@dataclass(frozen=True)
class Match:
    """What identification concluded about one piece.

    Attributes:
        identity: the piece id, or None (not confident, a back, or nothing matched).
        score: similarity of the best class (in [-1, 1]; 0 when there was nothing to match).
        margin: lead of the best class over the best other class.
        rotation: quarter turns r such that ``np.roll(corners, r, axis=0)`` lists the printed
            TL, TR, BR, BL corners (meaningful when something matched).
        label: the best class's label (an identity, or ``back:<game>``), even when not accepted.
        source: ``enrolled`` or ``companion``: where the best reference came from.
        candidates: the best `top_k` (identity, similarity) pairs, best first (backs left
            out: they are nothing to offer).
        aliases: every identity with the same face as the best class (its label first).
    """

    identity: str | None
    score: float
    margin: float
    rotation: int
    label: str | None
    source: str | None
    candidates: tuple[tuple[str, float], ...] = ()
    aliases: tuple[str, ...] = field(default=())


_NO_MATCH = Match(None, 0.0, 0.0, 0, None, None)


def _standard(face: np.ndarray) -> np.ndarray:
    """A face in grey, lightly blurred, zero mean and unit spread (exposure and contrast out)."""
    grey = cv2.GaussianBlur(cv2.cvtColor(face, cv2.COLOR_BGR2GRAY).astype(np.float32), (0, 0), 1.0)
    return (grey - grey.mean()) / max(float(grey.std()), 1e-3)


def companion_twins(references: Sequence[Reference]) -> dict[str, frozenset[str]]:
    """identity → the identities whose companion face is pixel for pixel the same (itself
    included), for those that have such twins: copies of one card (Dice King's penalty cards of
    equal value, DK-3). A printing prints copies alike, so the user's enrolled photos of them are
    one face too: photographed apart they differ only by the photos, and as separate classes
    they tie and leave every such card unnamed."""
    groups: dict[tuple[str, bytes], set[str]] = {}
    for ref in references:
        if ref.source == "companion" and ref.identity is not None:
            key = (ref.game, hashlib.sha1(np.ascontiguousarray(ref.face).tobytes()).digest())
            groups.setdefault(key, set()).add(ref.identity)
    return {i: frozenset(g) for g in groups.values() if len(g) > 1 for i in g}


def thumb_size(kind: str, config: IdentifyConfig) -> tuple[int, int]:
    """The canonical (width, height) thumbnail of a `kind` (card or tile)."""
    if kind == "card":
        return config.card_thumb
    if kind == "tile":
        return config.tile_thumb
    raise ValueError(f"no thumbnail for kind {kind!r} (card or tile)")


def fine_config(config: IdentifyConfig) -> IdentifyConfig:
    """The settings of the fine look: thumbnails and colour cells `fine_scale` times larger.

    Its own blur stays as small as the coarse look's (details survive); references are also
    described at the coarse blurs and at those scaled up (a blurred piece still has its match).
    """
    k = max(1, int(config.fine_scale))
    return replace(
        config,
        card_thumb=(config.card_thumb[0] * k, config.card_thumb[1] * k),
        tile_thumb=(config.tile_thumb[0] * k, config.tile_thumb[1] * k),
        colour_grid=config.colour_grid * k,
        reference_blurs=(*config.reference_blurs, *(b * k for b in config.reference_blurs)),
        tile_reference_blurs=(
            *config.tile_reference_blurs,
            *(b * k for b in config.tile_reference_blurs),
        ),
    )


def _inset_slices(size: tuple[int, int], inset: float) -> tuple[slice, slice]:
    w, h = size
    mx, my = int(round(w * inset)), int(round(h * inset))
    return slice(my, h - my), slice(mx, w - mx)


def describe(thumbs: np.ndarray, config: IdentifyConfig, kind: str = "card") -> np.ndarray:
    """Descriptors of (n, H, W, 3) uint8 BGR thumbnails of `kind`: (n, cells × d) float32.

    The face (inset) is cut into the kind's grid of cells. Each cell holds a lightness block (the
    face's blurred lightness, centred and scaled over the whole face, then this cell's part made
    unit length) and a colour block (log-chromaticity, or Lab chroma, minus the face's mean,
    this cell's part unit length unless it is greyer than the colour space's floor), weighted by
    the square roots of `lightness_weight` and `colour_weight`, so that the dot product of two
    cells is their weighted similarity (see `similarity`).
    """
    thumbs = np.asarray(thumbs, np.uint8)
    n, h, w = thumbs.shape[:3]
    gx, gy = cell_grid(kind, config)
    if n == 0:
        return np.zeros((0, 0), np.float32)
    rows, cols = _inset_slices((w, h), config.inset)
    rgb = thumbs[:, rows, cols].astype(np.float32) / 255.0
    raw = rgb
    if config.grey_world:
        # von Kries: the light's colour and the camera's white balance scale each channel
        # (within limits: a face mostly of one colour keeps some of it)
        means = rgb.mean(axis=(1, 2), keepdims=True)
        gains = means.mean(axis=3, keepdims=True) / (means + 1e-3)
        low, high = config.grey_world_gains
        rgb = np.clip(rgb * np.clip(gains, low, high), 0.0, 1.0)
    ih, iw = rgb.shape[1:3]
    lab = cv2.cvtColor(rgb.reshape(n * ih, iw, 3), cv2.COLOR_BGR2Lab).reshape(n, ih, iw, 3)
    lightness = lab[..., 0]
    if config.blur_sigma > 0:
        lightness = _blur_stack(lightness, config.blur_sigma)
    lightness = lightness - lightness.mean(axis=(1, 2), keepdims=True)
    lightness /= np.sqrt((lightness**2).sum(axis=(1, 2), keepdims=True)) + 1e-6
    light_cells = _cells(lightness[..., None], gx, gy)  # (n, C, m)
    m = light_cells.shape[2]
    pixels = lightness.shape[1] * lightness.shape[2]
    floor = config.cell_floor * np.sqrt(m / pixels)
    light_cells /= np.maximum(np.linalg.norm(light_cells, axis=2, keepdims=True), floor)

    g = max(1, config.colour_grid)
    if config.colour_space == "log":
        logs = np.log(raw + config.log_offset)
        chroma = np.stack([logs[..., 2] - logs[..., 1], logs[..., 0] - logs[..., 1]], axis=-1)
        chroma_floor = config.log_chroma_floor
    elif config.colour_space == "lab":
        chroma = lab[..., 1:]
        chroma_floor = config.chroma_floor
    else:
        raise ValueError(f"unknown colour space {config.colour_space!r} (log or lab)")
    ch, cw = (chroma.shape[1] // g) * g, (chroma.shape[2] // g) * g
    chroma = chroma[:, :ch, :cw].reshape(n, ch // g, g, cw // g, g, 2).mean(axis=(2, 4))
    chroma = chroma - chroma.mean(axis=(1, 2), keepdims=True)
    colour_cells = _cells(chroma, gx, gy)
    cell_floor = chroma_floor * np.sqrt(colour_cells.shape[2] / 2)
    colour_cells /= np.maximum(np.linalg.norm(colour_cells, axis=2, keepdims=True), cell_floor)
    out = np.concatenate(
        [
            np.sqrt(config.lightness_weight) * light_cells,
            np.sqrt(config.colour_weight) * colour_cells,
        ],
        axis=2,
    )
    return out.reshape(n, -1).astype(np.float32)


def _cells(images: np.ndarray, gx: int, gy: int) -> np.ndarray:
    """(n, H, W, c) → (n, gx·gy, m): the pixels of each grid cell (edges trimmed to fit)."""
    n, h, w, c = images.shape
    ch, cw = max(1, h // gy), max(1, w // gx)
    top, left = (h - ch * gy) // 2, (w - cw * gx) // 2
    cropped = images[:, top : top + ch * gy, left : left + cw * gx]
    blocks = cropped.reshape(n, gy, ch, gx, cw, c).transpose(0, 1, 3, 2, 4, 5)
    return np.ascontiguousarray(blocks.reshape(n, gy * gx, ch * cw * c))


def cell_grid(kind: str, config: IdentifyConfig) -> tuple[int, int]:
    """The (columns, rows) grid of cells a `kind`'s face is compared by."""
    return config.card_cells if kind == "card" else config.tile_cells


def similarity(queries: np.ndarray, matrix: np.ndarray, cells: int, keep: int) -> np.ndarray:
    """(n, k) similarities of (n, cells × d) queries to the columns of a (cells, d, k) matrix.

    Each pair's similarity is the mean of its `keep` best cells' similarities: a piece partly
    covered by another, a hand or glare is still recognised by the rest of its face.
    """
    n = len(queries)
    per_cell = queries.reshape(n, cells, -1)
    # einsum, not BLAS: a multi-threaded BLAS on a busy tablet is 100× slower at this size
    sims = np.stack(
        [np.einsum("nd,dk->nk", per_cell[:, c], matrix[c]) for c in range(cells)], axis=2
    )
    if keep >= cells:
        return sims.mean(axis=2)
    return np.partition(sims, cells - keep, axis=2)[:, :, cells - keep :].mean(axis=2)


def _blur_stack(images: np.ndarray, sigma: float) -> np.ndarray:
    """Separable Gaussian blur of (n, H, W) float32 images (edges replicated), two OpenCV calls."""
    n, h, w = images.shape
    radius = max(1, int(np.ceil(2.5 * sigma)))
    taps = cv2.getGaussianKernel(2 * radius + 1, sigma, cv2.CV_32F)
    one = np.ones((1, 1), np.float32)
    rows = np.ascontiguousarray(images, np.float32).reshape(n * h, w)
    across = np.asarray(cv2.sepFilter2D(rows, -1, taps, one, borderType=cv2.BORDER_REPLICATE))
    cols = np.ascontiguousarray(across.reshape(n, h, w).transpose(0, 2, 1)).reshape(n * w, h)
    down = np.asarray(cv2.sepFilter2D(cols, -1, taps, one, borderType=cv2.BORDER_REPLICATE))
    return down.reshape(n, w, h).transpose(0, 2, 1)


def _reference_descriptors(refs: list[Reference], kind: str, config: IdentifyConfig) -> np.ndarray:
    """(R, 4 × (1 + blurs), D) descriptors of references in every rotation and blur."""
    size = thumb_size(kind, config)
    views = np.stack([_rotated_views(np.asarray(r.face), size) for r in refs])
    flat = views.reshape(-1, *views.shape[2:])
    variants = [flat] + [
        np.stack([cv2.GaussianBlur(v, (0, 0), sigma) for v in flat])
        for sigma in (config.tile_reference_blurs if kind == "tile" else config.reference_blurs)
    ]
    return np.stack(
        [describe(v, config, kind).reshape(len(refs), 4, -1) for v in variants], axis=1
    ).reshape(len(refs), 4 * len(variants), -1)


def _cell_matrix(descriptors: np.ndarray, cells: int) -> np.ndarray:
    """(k, cells × d) reference descriptors as the (cells, d, k) matrix `similarity` takes."""
    k = len(descriptors)
    return np.ascontiguousarray(descriptors.reshape(k, cells, -1).transpose(1, 2, 0))


def _rotated_views(face: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """The 4 thumbnails a query warp shows of `face` when its corners start r places later."""
    fh, fw = face.shape[:2]
    rect = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64)
    return np.stack([warp_face(face, np.roll(rect, -r, axis=0), size) for r in range(4)])


@dataclass
class _Bank:
    """The descriptors of one kind's references: (R * 4, D), with per-row reference index."""

    references: list[Reference]
    descriptors: np.ndarray  # (R, 4 * blur variants, D): variant v is rotation v % 4
    fine: np.ndarray  # the same at the fine look's size
    classes: np.ndarray  # (R,) class index
    class_labels: list[str]
    class_aliases: list[tuple[str, ...]]
    class_identity: list[str | None]
    class_source: list[str]
    class_game: list[str]
    class_starts: np.ndarray  # first reference of each class (references sorted by class)
    cells: int  # cells per descriptor
    keep: int  # cells that count in a similarity
    subsets: dict[tuple[str, ...] | None, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(
        default_factory=dict
    )


class Identifier:
    """Matches card and tile faces against a gallery; build once, call per frame.

    Args:
        gallery: references to match against; by default `vision.gallery.load_gallery()`
            (enrolled faces from the user data folder first, then the companion art).
        config: thresholds and sizes.
    """

    def __init__(self, gallery: Gallery | None = None, config: IdentifyConfig | None = None):
        self.config = config or IdentifyConfig()
        self._fine = fine_config(self.config)
        self.gallery = gallery if gallery is not None else load_gallery()
        self.problems: tuple[str, ...] = self.gallery.problems
        self._banks: dict[tuple[str, str], _Bank] = {}
        self._faces: dict[str, np.ndarray] = {}
        self._class_matrices: dict[tuple[str, str, str], np.ndarray] = {}
        for ref in self.gallery.references:
            if ref.identity is not None:
                self._faces.setdefault(ref.identity, ref.face)
        # an enrolled face replaces the companion art of the same piece: the user's printing
        # is what lies on the table, and the companion face would only be a look-alike
        enrolled = {r.identity for r in self.gallery.references if r.source == "enrolled"}
        by_key: dict[tuple[str, str], list[Reference]] = {}
        enrolled_games = {r.game for r in self.gallery.references if r.source == "enrolled"}
        for ref in self.gallery.references:
            stage = "enrolled" if ref.source == "enrolled" else "companion"
            if stage == "companion" and ref.identity is not None and ref.identity in enrolled:
                continue
            by_key.setdefault((ref.kind, stage), []).append(ref)
            if stage == "companion" and ref.identity is None and ref.game in enrolled_games:
                # backs compete in the enrolled stage too: a face-down card is no enrolled face
                by_key.setdefault((ref.kind, "enrolled"), []).append(ref)
        twins = companion_twins(self.gallery.references)
        for key, refs in by_key.items():
            self._banks[key] = self._build_bank(refs, key[0], twins)
        # every class's identities with its face, by the class's label (the first of them)
        self._aliases: dict[str, tuple[str, ...]] = {}
        for bank in self._banks.values():
            for label, names in zip(bank.class_labels, bank.class_aliases, strict=True):
                self._aliases.setdefault(label, names)

    # --- building ------------------------------------------------------------------------------
    def _build_bank(
        self, refs: list[Reference], kind: str, twins: dict[str, frozenset[str]]
    ) -> _Bank:
        """One stage's references of one kind as classes (`twins`: `companion_twins`)."""
        descriptors = _reference_descriptors(refs, kind, self.config)
        fine = _reference_descriptors(refs, kind, self._fine)
        labels: list[str] = []
        aliases: list[list[str]] = []
        identity: list[str | None] = []
        source: list[str] = []
        games: list[str] = []
        classes = np.zeros(len(refs), np.int64)
        cells = int(np.prod(cell_grid(kind, self.config)))
        upright = descriptors[:, 0] / np.sqrt(cells)
        for i, ref in enumerate(refs):
            found = -1
            for j, label in enumerate(labels):
                if label == ref.label and source[j] == ref.source:
                    found = j  # the same piece enrolled twice: one class
                    break
            if found < 0 and ref.source == "enrolled" and ref.identity is not None:
                copies = twins.get(ref.identity, frozenset())
                for j, label in enumerate(labels):
                    if source[j] == "enrolled" and label in copies:
                        found = j  # a copy of a card enrolled before: one face, one class
                        break
            if found < 0:
                for j in range(len(labels)):
                    first = int(np.flatnonzero(classes[:i] == j)[0]) if i else -1
                    if (
                        first >= 0
                        and games[j] == ref.game
                        and identity[j] is not None
                        and ref.identity is not None
                        and float(upright[first] @ upright[i]) >= self.config.duplicate_similarity
                    ):
                        found = j
                        break
            if found < 0:
                labels.append(ref.label)
                aliases.append([ref.label])
                identity.append(ref.identity)
                source.append(ref.source)
                games.append(ref.game)
                found = len(labels) - 1
            elif ref.label not in aliases[found]:
                aliases[found].append(ref.label)
            classes[i] = found
        order = np.argsort(classes, kind="stable")
        classes = classes[order]
        return _Bank(
            references=[refs[int(i)] for i in order],
            descriptors=descriptors[order],
            fine=fine[order],
            classes=classes,
            class_starts=np.searchsorted(classes, np.arange(len(labels))),
            cells=cells,
            keep=max(1, int(round(self.config.keep_cells * cells))),
            class_labels=labels,
            class_aliases=[tuple(a) for a in aliases],
            class_identity=identity,
            class_source=source,
            class_game=games,
        )

    # --- matching ------------------------------------------------------------------------------
    def match_descriptors(
        self,
        descriptors: np.ndarray,
        kind: str,
        games: Sequence[str] | None = None,
        fine: Callable[[np.ndarray], np.ndarray] | None = None,
        sides: np.ndarray | None = None,
    ) -> list[Match]:
        """Match (n, D) query descriptors of one `kind`; enrolled references first.

        `fine(indices)` gives the fine-look descriptors of some queries (computed only for the
        undecided ones); without it there is no fine look. `sides` (n,) are the pieces' shorter
        sides in frame pixels: small pieces need a clearer lead (`min_distance_ratio_small`).
        """
        n = len(descriptors)
        results: list[Match | None] = [None] * n
        for stage in ("enrolled", "companion"):
            bank = self._banks.get((kind, stage))
            pending = [i for i, r in enumerate(results) if r is None or r.identity is None]
            if bank is None or not pending:
                continue
            sub_fine = None
            if fine is not None:
                chosen = np.asarray(pending)

                def sub_fine(idx: np.ndarray, chosen: np.ndarray = chosen) -> np.ndarray:
                    return fine(chosen[idx])

            sub_sides = None if sides is None else np.asarray(sides, np.float64)[pending]
            matches = self._match_bank(
                bank, descriptors[pending], games, stage, sub_fine, sub_sides, kind
            )
            for i, m in zip(pending, matches, strict=True):
                previous = results[i]
                if m.identity is not None or previous is None or m.score > previous.score:
                    results[i] = m
        return [m if m is not None else _NO_MATCH for m in results]

    def _match_bank(
        self,
        bank: _Bank,
        queries: np.ndarray,
        games: Sequence[str] | None,
        stage: str,
        fine: Callable[[np.ndarray], np.ndarray] | None = None,
        sides: np.ndarray | None = None,
        kind: str = "card",
    ) -> list[Match]:
        config = self.config
        n_classes = len(bank.class_labels)
        key = None if games is None else tuple(sorted(set(games)))
        subset = bank.subsets.get(key)
        if subset is None:
            allowed = np.ones(n_classes, bool)
            if key is not None:
                allowed = np.array([g in key for g in bank.class_game], bool)
            refs = np.flatnonzero(allowed[bank.classes])
            _, v, d = bank.descriptors.shape
            # no piece of this kind in the games (a "tile" detected at King's Breakfast): no
            # matrix to build, every query is unmatched below
            matrix = (
                _cell_matrix(bank.descriptors[refs].reshape(len(refs) * v, d), bank.cells)
                if len(refs)
                else np.zeros((0, 0, 0), np.float32)
            )
            subset = (allowed, refs, matrix)
            bank.subsets[key] = subset
        allowed, refs, matrix = subset
        if len(refs) == 0:
            return [_NO_MATCH] * len(queries)
        v = bank.descriptors.shape[1]
        sims = similarity(queries, matrix, bank.cells, bank.keep)
        sims = sims.reshape(len(queries), len(refs), v)
        best_rotation = np.zeros((len(queries), len(bank.classes)), np.int64)
        best_rotation[:, refs] = sims.argmax(axis=2) % 4
        per_ref = np.full((len(queries), len(bank.classes)), -np.inf, np.float32)
        per_ref[:, refs] = sims.max(axis=2)
        # classes are numbered in reference order: the best member of each class by reduceat
        per_class = np.maximum.reduceat(per_ref, bank.class_starts, axis=1)
        per_class[:, ~allowed] = -np.inf
        order = np.argsort(-per_class, axis=1)
        min_score = config.enrolled_min_score if stage == "enrolled" else config.min_score
        if kind == "tile":
            min_score = max(min_score, config.tile_min_score)
        min_margin = config.enrolled_min_margin if stage == "enrolled" else config.min_margin
        small = np.zeros(len(queries), bool) if sides is None else sides < config.small_side_px
        ratio = np.where(small, config.min_distance_ratio_small, config.min_distance_ratio)
        fine_ratio = np.where(small, config.min_distance_ratio_small, config.fine_min_ratio)
        decided = _decide(per_class, order, min_score, min_margin, ratio)
        undecided = np.flatnonzero(
            ~decided & (per_class[np.arange(len(queries)), order[:, 0]] >= min_score)
        )
        if fine is not None and len(undecided) and config.rerank_top > 1:
            top = order[undecided, : config.rerank_top]
            fine_class = self._fine_scores(bank, fine(undecided), top, per_class[undecided])
            fine_order = np.argsort(-fine_class, axis=1)
            fine_decided = _decide(
                fine_class, fine_order, -1.0, config.fine_min_margin, fine_ratio[undecided]
            )
            for row, query in enumerate(undecided):
                if fine_decided[row]:
                    # the fine look's winner, ranked first among the coarse candidates
                    winner = fine_order[row, 0]
                    rest = [c for c in order[query] if c != winner]
                    order[query] = np.array([winner, *rest])
                    decided[query] = True
        out: list[Match] = []
        for q in range(len(queries)):
            best = int(order[q, 0])
            score = float(per_class[q, best])
            second = float(per_class[q, order[q, 1]]) if n_classes > 1 else -1.0
            if not np.isfinite(second):
                second = -1.0
            margin = score - second
            members = np.flatnonzero(bank.classes == best)
            ref = int(members[np.argmax(per_ref[q, members])])
            accepted = bool(decided[q]) and bank.class_identity[best] is not None
            # lazily: the first top_k named classes in score order, not all of the gallery's
            candidates = tuple(
                itertools.islice(
                    (
                        (bank.class_labels[int(c)], round(float(per_class[q, c]), 4))
                        for c in order[q]
                        if np.isfinite(per_class[q, c]) and bank.class_identity[int(c)] is not None
                    ),
                    config.top_k,
                )
            )
            out.append(
                Match(
                    identity=bank.class_identity[best] if accepted else None,
                    score=score,
                    margin=margin,
                    rotation=int(best_rotation[q, ref]),
                    label=bank.class_labels[best],
                    source=bank.class_source[best],
                    candidates=candidates,
                    aliases=bank.class_aliases[best],
                )
            )
        return out

    def _fine_scores(
        self, bank: _Bank, queries: np.ndarray, top: np.ndarray, coarse: np.ndarray
    ) -> np.ndarray:
        """(n, classes) fine-look similarities; only the `top` classes of each row are finite."""
        out = np.full(coarse.shape, -np.inf, np.float32)
        v = bank.fine.shape[1]
        for row in range(len(queries)):
            classes = [int(c) for c in top[row] if np.isfinite(coarse[row, c])]
            members = np.flatnonzero(np.isin(bank.classes, classes))
            matrix = _cell_matrix(bank.fine[members].reshape(len(members) * v, -1), bank.cells)
            sims = similarity(queries[row : row + 1], matrix, bank.cells, bank.keep)[0]
            per_ref = sims.reshape(len(members), v).max(axis=1)
            np.maximum.at(out[row], bank.classes[members], per_ref)
        return out

    def thumbnails(
        self, frame: np.ndarray, corners: np.ndarray, kind: str, *, fine: bool = False
    ) -> np.ndarray:
        """Canonical thumbnails (n, H, W, 3) of (n, 4, 2) quads of `kind` in `frame`."""
        size = thumb_size(kind, self._fine if fine else self.config)
        quads = np.asarray(corners, np.float64).reshape(-1, 4, 2)
        out = np.empty((len(quads), size[1], size[0], 3), np.uint8)
        for i, quad in enumerate(quads):
            out[i] = warp_face(frame, quad, size)
        return out

    def match(
        self,
        frame: np.ndarray,
        detections: Detections,
        games: Sequence[str] | None = None,
    ) -> list[Match | None]:
        """One `Match` per detection row (None for dice and for quads that cannot be read).

        `frame` is the full-size uint8 BGR (H, W, 3) frame the detections' corners refer to;
        `games` restricts the candidates (None: every game in the gallery). Corners listed
        counter-clockwise are read in reverse.
        """
        results: list[Match | None] = [None] * len(detections)
        for kind in ("card", "tile"):
            rows = []
            quads = []
            for i in np.flatnonzero(detections.kinds == kind):
                quad = clockwise_quad(detections.corners_px[i])
                if quad is None:
                    continue
                sides = np.linalg.norm(np.roll(quad, -1, axis=0) - quad, axis=1)
                if sides.min() < self.config.min_side_px:
                    continue
                rows.append(int(i))
                quads.append(quad)
            if not rows:
                continue
            stacked = np.stack(quads)
            surround = self._surround(frame, stacked, kind)
            thumbs = self._centre(surround, kind)

            def fine(
                idx: np.ndarray, stacked: np.ndarray = stacked, kind: str = kind
            ) -> np.ndarray:
                views = self.thumbnails(frame, stacked[idx], kind, fine=True)
                return describe(views, self._fine, kind)

            descriptors = describe(thumbs, self.config, kind)
            sides = np.array(
                [np.linalg.norm(np.roll(q, -1, axis=0) - q, axis=1).min() for q in quads]
            )
            matches = self.match_descriptors(descriptors, kind, games, fine, sides)
            if self.config.shift_check > 0:
                matches = self._check_placement(surround, kind, matches)
            if self.config.verify:
                matches = [
                    self._verify(frame, quad, m) if side >= self.config.verify_min_side_px else m
                    for quad, m, side in zip(quads, matches, sides, strict=True)
                ]
            if self.config.detail_look:
                matches = [
                    self._detail(frame, quad, m) if side >= self.config.detail_min_side_px else m
                    for quad, m, side in zip(quads, matches, sides, strict=True)
                ]
            for row_index, m in zip(rows, matches, strict=True):
                results[row_index] = m
        return results

    def _margins(self, kind: str) -> tuple[int, int, int, int]:
        """(width, height, dx, dy): a kind's thumbnail and the surround `_surround` adds."""
        w, h = thumb_size(kind, self.config)
        fraction = max(0.0, self.config.shift_check)
        return w, h, int(round(fraction * w)), int(round(fraction * h))

    def _surround(self, frame: np.ndarray, quads: np.ndarray, kind: str) -> np.ndarray:
        """(n, H + 2dy, W + 2dx, 3) warps of each quad with `shift_check` of its sides around it.

        The surround is laid out in the piece's own perspective (the quad's homography extended
        beyond it), so its centre window is exactly the quad's thumbnail and the windows moved
        by (dx, dy) are the quad moved along its sides: one warp serves matching and
        `_check_placement`.
        """
        w, h, dx, dy = self._margins(kind)
        out = np.empty((len(quads), h + 2 * dy, w + 2 * dx, 3), np.uint8)
        rect = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        grown_rect = np.array(
            [[-dx, -dy, 1], [w + dx, -dy, 1], [w + dx, h + dy, 1], [-dx, h + dy, 1]], np.float64
        )
        for i, quad in enumerate(quads):
            homography = cv2.getPerspectiveTransform(rect, quad.astype(np.float32))
            points = grown_rect @ homography.T
            if dx == dy == 0 or np.any(points[:, 2] <= 1e-9):
                # no surround wanted, or the quad's plane does not reach that far: the centre
                # alone (its surround stays blank)
                out[i] = 0
                out[i, dy : dy + h, dx : dx + w] = warp_face(frame, quad, (w, h))
                continue
            grown = points[:, :2] / points[:, 2:3]
            out[i] = warp_face(frame, grown, (w + 2 * dx, h + 2 * dy))
        return out

    def _centre(self, surround: np.ndarray, kind: str) -> np.ndarray:
        """The quads' own thumbnails: the centre windows of `_surround`."""
        w, h, dx, dy = self._margins(kind)
        return np.ascontiguousarray(surround[:, dy : dy + h, dx : dx + w])

    def _check_placement(
        self, surround: np.ndarray, kind: str, matches: list[Match]
    ) -> list[Match]:
        """Identified pieces whose quad, moved along its sides, matches its class better: null.

        A quad the detector placed astride two pieces or half on the table still matches some
        class by the part it covers, often clearly; moved by `shift_check` of its sides towards
        the piece it half covers, it matches that class better, which a well-placed quad (whose
        every move uncovers table) never does. `surround` is `_surround`'s warps.
        """
        below = self.config.shift_check_below
        chosen = [
            i
            for i, m in enumerate(matches)
            if m.identity is not None and m.source and m.score < below
        ]
        if not chosen:
            return matches
        w, h, dx, dy = self._margins(kind)
        big = surround[chosen]
        windows = [(2 * dx, dy), (0, dy), (dx, 2 * dy), (dx, 0)]
        k = len(windows)
        views_stack = np.stack([big[:, y : y + h, x : x + w] for x, y in windows], axis=1).reshape(
            -1, h, w, 3
        )
        views = describe(views_stack, self.config, kind)
        out = list(matches)
        for row, i in enumerate(chosen):
            m = matches[i]
            bank = self._banks.get((kind, str(m.source)))
            if bank is None or m.label not in bank.class_labels:
                continue
            key = (kind, str(m.source), str(m.label))
            matrix = self._class_matrices.get(key)
            if matrix is None:
                members = np.flatnonzero(bank.classes == bank.class_labels.index(str(m.label)))
                refs = bank.descriptors[members].reshape(-1, bank.descriptors.shape[2])
                matrix = self._class_matrices[key] = _cell_matrix(refs, bank.cells)
            sims = similarity(views[k * row : k * row + k], matrix, bank.cells, bank.keep)
            if float(sims.max()) > m.score + self.config.shift_tolerance:
                out[i] = replace(m, identity=None)
        return out

    def _verify(self, frame: np.ndarray, quad: np.ndarray, match: Match) -> Match:
        """An undecided piece's two best candidates compared by aligned correlation (ECC)."""
        config = self.config
        if match.identity is not None or len(match.candidates) < 2:
            return match
        if match.score < config.min_score:
            return match
        printed = np.roll(quad, match.rotation, axis=0)
        results: list[tuple[float, int, str]] = []
        for candidate, _ in match.candidates[:2]:
            face = self._faces.get(candidate)
            if face is None:
                return match
            best = (0.0, match.rotation)
            for turn in config.verify_turns:
                _, correlation = align_to_reference(
                    frame, np.roll(printed, turn, axis=0), face, config.verify_align
                )
                if correlation > best[0]:
                    best = (correlation, (match.rotation + turn) % 4)
            results.append((best[0], best[1], candidate))
        results.sort(reverse=True)
        (top, rotation, identity), (other, _, _) = results[0], results[1]
        if top < config.verify_min_correlation or top - other < config.verify_margin:
            return match
        return self._settled(match, identity, rotation)

    def _detail(self, frame: np.ndarray, quad: np.ndarray, match: Match) -> Match:
        """An undecided piece whose best classes nearly tie compared only where their faces
        differ (`detail_look`)."""
        config = self.config
        if match.identity is not None or match.score < config.detail_min_score:
            return match
        if match.source not in config.detail_sources:
            return match
        close = [c for c, sim in match.candidates if sim >= match.score - config.detail_gap]
        if len(close) < 2 or any(c not in self._faces for c in close):
            return match
        if len(close) == len(match.candidates):
            return match  # a class beyond the candidates kept may be as close: not all are known
        faces = [self._faces[c] for c in close]
        printed = np.roll(quad, match.rotation, axis=0)
        height, width = faces[0].shape[:2]
        w = config.detail_size
        h = max(1, int(round(w * height / width)))
        seen = _standard(warp_face(frame, printed, (w, h)))
        # a card nearly alike turned half-way round (a penalty card but its number) may have
        # matched upside down: each candidate is compared both ways up
        views = (seen, seen[::-1, ::-1])
        refs = np.stack(
            [_standard(cv2.resize(f, (w, h), interpolation=cv2.INTER_AREA)) for f in faces]
        )
        spread = refs.std(axis=0)
        region = spread >= 0.5 * float(spread.max())
        if float(spread.max()) < 0.5 or region.sum() < 12:
            return match  # their faces do not differ: nothing to look at

        def agreement(ref: np.ndarray, where: np.ndarray) -> float:
            return max(float(np.corrcoef(v[where], ref[where])[0, 1]) for v in views)

        scores = [agreement(r, region) for r in refs]
        order = np.argsort(scores)[::-1]
        # the two likeliest again, only where those two differ: the winner must win there too
        a, b = refs[int(order[0])], refs[int(order[1])]
        apart = cv2.GaussianBlur(np.abs(a - b), (0, 0), 1.0)
        pair = apart >= 0.5 * float(apart.max())
        top, other = agreement(a, pair), agreement(b, pair)
        if not np.isfinite(top) or top < config.detail_min_correlation:
            return match
        if np.isfinite(other) and top - other < config.detail_margin:
            return match
        return self._settled(match, close[int(order[0])], match.rotation)

    def _settled(self, match: Match, identity: str, rotation: int) -> Match:
        """`match` named `identity` (one of its candidates) at `rotation`, with its class's
        aliases: what `verify` or the detail look settled."""
        return replace(
            match,
            identity=identity,
            score=dict(match.candidates)[identity],
            rotation=rotation,
            label=identity,
            aliases=self._aliases.get(identity, (identity,)),
        )

    def identify(
        self,
        frame: np.ndarray,
        detections: Detections,
        games: Sequence[str] | None = None,
    ) -> Detections:
        """`detections` with identities and identity scores of cards and tiles filled in.

        An identified piece's corners are re-listed from its printed top-left (clockwise); the
        others keep theirs. Unidentified pieces get identity None and score 0.
        """
        return self.identify_detailed(frame, detections, games)[0]

    def identify_detailed(
        self,
        frame: np.ndarray,
        detections: Detections,
        games: Sequence[str] | None = None,
    ) -> tuple[Detections, list[Match | None]]:
        """`identify`, and the `Match` of every row (its candidates are what the UI offers)."""
        matches = self.match(frame, detections, games)
        identities = detections.identities.copy()
        scores = detections.identity_scores.copy()
        corners = detections.corners_px.copy()
        for i, m in enumerate(matches):
            if m is None:
                continue
            identities[i] = m.identity
            scores[i] = max(0.0, m.score) if m.identity is not None else 0.0
            if m.identity is not None:
                quad = clockwise_quad(corners[i])
                if quad is not None:
                    printed = printed_corners(quad, m.rotation)
                    if self.config.align_corners:
                        face = self._faces[m.identity]
                        printed, _ = align_to_reference(frame, printed, face, self.config.align)
                    corners[i] = printed
        updated = detections.with_fields(
            identities=identities, identity_scores=scores, corners_px=corners
        )
        return updated, matches


def candidates_json(match: Match | None) -> list[list[Any]]:
    """A match's candidates as the app's ``candidates`` list: ``[[identity, score], ...]``."""
    if match is None:
        return []
    return [[identity, round(float(score), 3)] for identity, score in match.candidates]


def _decide(
    per_class: np.ndarray,
    order: np.ndarray,
    min_score: float,
    min_margin: float,
    ratio: float | np.ndarray,
) -> np.ndarray:
    """Which rows' best class passes the score, margin and distance-ratio tests."""
    rows = np.arange(len(per_class))
    best = per_class[rows, order[:, 0]]
    if per_class.shape[1] > 1:
        second = per_class[rows, order[:, 1]]
        second = np.where(np.isfinite(second), second, -1.0)
    else:
        second = np.full(len(per_class), -1.0, np.float32)
    return (
        (best >= min_score) & (best - second >= min_margin) & ((1 - second) >= ratio * (1 - best))
    )


def printed_corners(corners: np.ndarray, rotation: int) -> np.ndarray:
    """A piece's 4 corners listed clockwise from its printed top-left (a `Match.rotation`);
    corners that form no convex quad are returned as given."""
    quad = clockwise_quad(corners)
    if quad is None:
        return np.asarray(corners)
    return np.roll(quad, rotation, axis=0).astype(np.asarray(corners).dtype)


__all__ = [
    "IdentifyConfig",
    "Identifier",
    "Match",
    "candidates_json",
    "cell_grid",
    "describe",
    "fine_config",
    "printed_corners",
    "similarity",
    "thumb_size",
]
