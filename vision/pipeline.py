"""`Perception`: the orchestrator that reads as the diagram — detect → read dice → identify.

    frame (uint8 BGR, H × W × 3)
      → Detector.detect              card / tile / die boxes (+ corners)
      → DiceReader.read              die value 1–6 and pip colour, on full-resolution crops
      → TopFaceReader.read           the top face located, rectified and read on its own;
                                     combined with the whole-die reading (`top_face`)
      → count_pips (cross-check)     optional: a sure, disagreeing pip count vetoes the reading
      → CornerRefiner.refine         card / tile corners moved onto the piece's true corners
                                     (a small network looking at each piece on its own)
      → PieceReader.read             card / tile companion face read from the box (a small
                                     network; not for games with enrolled faces)
      → Identifier.identify          the pieces left unnamed matched against the gallery of
                                     reference faces (enrolled first); None where unsure
      → Detections

Models load once, in the constructor. `Perception.stages` exposes the stage callables so that
timing wraps them from outside (see `benchmarks/detect_speed.py`, `models/evaluate.py`).
`check_frame` turns what a caller might hand us (grey, 16-bit, BGRA) into a BGR uint8 frame, or
raises `BadFrameError`.

Public names: `PerceptionConfig`, `Perception`, `check_frame`, `distinct_pieces`,
`overlapping_pieces`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path

import numpy as np

from vision.corner_refiner import PIECE_ASPECTS, CornerRefiner, CornerRefinerConfig
from vision.corner_snap import CornerSnapConfig, CornerSnapper
from vision.detections import Detections
from vision.detector import Detector, DetectorConfig
from vision.dice_reader import (
    COLOUR_CLASSES,
    DiceReader,
    DiceReaderConfig,
    DieReadings,
    crop_dice,
)
from vision.errors import BadFrameError, ModelError
from vision.gallery import GAME_KINDS, load_enrolled
from vision.geometry import (
    boxes_near,
    clip_polygon_to_rect,
    largest_share_covered,
    polygon_area,
    polygon_overlap,
    quad_overlap,
    visible_fraction_in_rect,
)
from vision.identify import Identifier, Match, printed_corners
from vision.outline import refine_quad
from vision.penalty_seal import PENALTY_PREFIX, read_seal
from vision.piece_reader import (
    DEFAULT_MODEL as DEFAULT_PIECE_MODEL,
)
from vision.piece_reader import (
    FACE_READER_MODELS,
    FACE_WARP_MODELS,
    PieceReader,
    PieceReaderConfig,
    PieceReadings,
)
from vision.pips import PipCounterConfig, count_pips
from vision.rectify import quad_in_box
from vision.table_colours import table_colour_shares
from vision.top_face import TopFaceConfig, TopFaceReader, TopFaceReadings

# Dice King cards left unnamed are read from their warped quads (`PerceptionConfig.warp_readers`,
# `models/dice_king_warp_reader.md`) when the piece reader finds them at least 0.1 likely to show
# a Dice King face. On 300 eval-split scenes of seed 101 (not the evaluated seed 100), matched
# cards named right / wrong / unnamed 362 / 2 / 37 without; with a first reader (width 16) at
# 0.9 and the family at 0.9 374 / 3 / 24, at 0.5 377 / 3 / 21, at 0.1 381 / 3 / 17, at 0
# 382 / 3 / 16, and boxes on no piece named a Dice King card 0 -> 1 at 0.1, 2 at 0; the
# committed reader (width 8) at 0.1 379 / 3 / 19.
WARP_READERS = {"dice-king/": 0.9}
WARP_FAMILY = {"dice-king/": 0.1}


@dataclass(frozen=True)
class PerceptionConfig:
    """Settings of the whole perception pipeline.

    Attributes:
        detector: detector stage settings.
        dice_reader: die reader settings.
        pips: pip counter settings.
        use_pip_veto: whether the pip counter may veto die readings. Off by default: on whole-die
            crops (side faces visible) it was right only about 0.4 of the time it was "sure" on
            rendered dice and about 0.7 on the real webcam dice, so its veto hurt more than it
            helped (see `models/dice_reader.md`).
        veto_factor: a vetoed die's value score is multiplied by this.
        veto_min_confidence: the pip counter must be at least this sure to veto.
        drop_not_dice: remove detected dice that the reader says are not dice (class 0).
        min_frame_side: frames smaller than this (either side) are refused.
        second_look: cards and tiles left unidentified are tried once more with the corners of
            their box turned to the edges inside it (`vision.rectify.quad_in_box`, then the
            corner refiner and snapper; about 17 ms a rendered eval image: on by default, the
            live app leaves it off). Chosen on the validation scenes (eval split seed 101): by
            the gallery alone (`benchmarks/corner_refinement.py`) cards named 0.780 -> 0.838,
            tiles 0.721 -> 0.792, wrong 0.6 % -> 1.0 % and 0.4 % -> 0.6 %; through the whole
            pipeline (`models.evaluate`) cards 357 -> 360, tiles 1124 -> 1127, wrong unchanged.
            (Before the corner snapper it named more but got more wrong, and was off.)
        outline_look: cards and tiles still unidentified are tried again with their corners
            moved onto the outline the frame's edges show (`vision.outline.refine_quad`,
            about 3.5 ms a piece: on by default for photos; the live app, which votes over
            frames, leaves it off). After the corner refiner: cards 0.580 → 0.618 named,
            wrong unchanged (0.8 %).
        looks_below_not_piece: the second and outline looks skip a box the piece reader finds
            at least this likely to show no piece (`first` mode): most unnamed boxes of a table
            are its patterns, each look costs milliseconds, and a look that names one names it
            wrongly. None: every unnamed box is looked at again. 0.7 (default): on the speed
            benchmark's frame (`benchmarks/detect_speed.py`: 15 cards and 10 boxes of the table
            found as tiles) identification's median 120 -> 87 ms (0.9: 107, 0.5: 80); matched
            pieces' identities on the eval split unchanged, seed 101 (validation) and seed 100
            (at 0.5 seed 101 lost a card). Scoring photos keep every look (None).
        piece_aspects: short over long side of cards and tiles, for the second look's quads.
        refine_corners: move the detector's card and tile corners with the corner refiner
            (`vision.corner_refiner`) before identifying (and the second look's quads too).
        corner_refiner: its settings.
        snap_corners: after the corner refiner, snap each corner onto the piece's true one
            (`vision.corner_snap`, about 1 ms a piece).
        corner_snap: its settings.
        piece_kind: every detection is taken as this kind (``card`` or ``tile``), for photos of
            one game's pieces and nothing else (a scoring photo): the detector calls some small
            cards tiles and some tiles cards or dice (a flag's stripes), and the identifier
            compares a piece only with faces of its kind; what then stays unnamed refuses the
            photo instead of silently leaving a piece out. None (default): the detector's.
        pieces_as: cards and tiles are all taken as this kind (``card`` or ``tile``), dice stay
            dice: the live table of one game, whose pieces are of one kind. From the tablet's
            whole-table view (cards about 40 px) the detector called 14 of 16 Dice King cards
            tiles, and the identifier compares a piece only with faces of its kind: none was
            named. None (default): the detector's kinds.
        duplicate_overlap: after identification, two cards (or two tiles) whose quads overlap
            by this much of the smaller one are one piece found twice (the detector's box
            suppression misses turned, overlapping pieces; the refined corners of both land on
            the same piece): the named one, else the likelier one, is kept. None (default):
            off — on a table, cards lie stacked (the king's area, village stacks) and one
            nearly covers another; scoring photos (`vision.readers.photos`) of pieces spread
            out, each at least half visible, use 0.6. On the eval split it took card recall
            0.75 → 0.72 (stacked cards merged), so it stays off there.
        duplicate_union: per kind of piece that lies side by side and never on another (tiles in
            a scoring photo): two boxes that touch and together are no longer than this ×
            the kind's median box are one piece (`distinct_pieces`; the detector sometimes
            boxes the two halves of one tile apart). Empty (default): not used.
        covered_unnamed: per kind of piece that lies side by side and never on another: an
            unnamed box of that kind covered at least this much by the boxes of kept named
            pieces of its kind is no piece of its own (a box astride two tiles of a hand,
            piece-sized, so not `distinct_pieces`' astride rule) and is dropped
            (`distinct_pieces`); no piece can lie where two others lie. Empty (default): never.
        duplicate_by_reader: of two unnamed boxes found as one piece, keep the one the piece
            reader finds likelier to show a piece rather than the one the detector is surer
            of (`distinct_pieces`' `no_piece`): a box with cloth around a Café tile (no piece
            0.999, found at 0.56) took in the tile's own box (found at 0.30), a later step
            dropped it as no piece, and the hand was scored a tile short. False (default):
            the detector's score (the live table's tracked games were measured so).
        duplicate_quads_in_boxes: two named pieces with alike quads drawn much outside
            their boxes are one piece only when the quads clipped to their own boxes overlap
            by `duplicate_overlap` too (`distinct_pieces`' `quads_in_boxes`): two ham cards
            side by side, both boxes carrying one quad drawn across the two, were kept as one
            and a hand photo was scored a ham short. False (default): alike quads suffice
            (the live table's tracked games were measured so).
        doubtful_overlap: per kind, how much of the smaller of two kept boxes may overlap
            before the less sure one's name is doubtful and withdrawn (`overlapping_pieces`;
            with `duplicate_overlap` only). Empty (default): never.
        top_face: how the top-face reader (`vision.top_face`) joins the whole-die reader:
            ``product`` (default), ``replace`` or ``off`` (`combine_readings`).
        top_face_pip_likelihood: how likely a sure pip count on the rectified top face is
            right, as evidence in the ``product`` (0: the count is not used). 0.8 is what it
            was on rendered training scenes (`runs/cache/train_s4`, 2,840 sure counts of 3,412
            detected dice: 0.80 right).
        top_face_disagreement: when the whole-die reader and the top-face reader name
            different values for a die, its score is at most this (None: no cap; the product
            alone decides). The live Dice King table (dice about 13 px) refuses unsure dice: of
            286 dice found in 48 rendered tablet views, those scored >= 0.8 were 210 with 8
            wrong without the cap and 195 with 3 wrong with it at 0.5.
        top_face_reader: its settings.
        piece_reader: how the piece reader (`vision.piece_reader`: a network naming the
            companion face from the box, no corners needed) joins the gallery match:
            ``first`` (default: it names the pieces it is sure of, the gallery matches the
            rest), ``after`` (the gallery first, the reader names what it left) or ``off``.
            Never for a game with enrolled faces (the user's printing is not the companion
            art).
        piece_reader_config: its settings.
        drop_not_pieces: remove cards and tiles that the piece reader finds at least this
            likely to show no companion face (the table's pattern, a foreign card, a back),
            as `drop_not_dice` does for dice. None (default): keep them (unnamed).
        piece_reader_veto: a gallery name is withdrawn when the piece reader gives that face
            less than this probability (None: never). Reader v1 on the eval split's matched
            cards / tiles: 0.05 cut wrong names 8 / 5 → 4 / 2, right ones unchanged. 0.2
            (default since reader v3, chosen on eval-split scenes of seed 101 with the
            reader's `min_probability` 0.95: cards right / wrong 345 / 4 → 339 / 3).
        agreement: (least piece-reader probability, least gallery similarity): a piece
            neither names on its own (`first` mode) is named when the piece reader's likeliest
            face is the gallery's best class and they are at least this sure (two independent
            looks agreeing). Chosen on eval-split scenes of seed 101 (detector v14): of 183
            matched pieces left unnamed, (0.5, 0.6) named 25, all right; (0.3, 0.6) 26 / 0,
            (0.8, 0.7) 11 / 0. None: never.
        keep_not_pieces_within: such a box is kept all the same (unnamed) when it lies within
            this × a piece's size of a piece the reader named: it may be a piece boxed badly,
            or one the reader misread as no piece, and a scoring photo is then asked again
            rather than scored without it. Café hands on 200 rendered tables of seeds
            8,000,000+ (piece reader v1): 0 (touching) → 50, 0.25 → 47, 0.5 → 45 exactly
            right, none wrong; before the rule (and `overlapping_pieces` and the astride rule),
            8 of about 450 photos were scored wrong; with 0, seeds 8,000,200+ showed a tile
            read as no piece (p 0.93) 7 px from its neighbours, so 0.25 (default).
        near_not_pieces_from: a box the reader finds at least this likely to show no
            companion face is dropped even next to pieces (`keep_not_pieces_within` keeps
            those it is less sure of): the busy table's patterns along a spread. Not when the
            box cut to the neighbours' median size about its centre reads less sure
            (`_face_at_piece_size`): a Café tile boxed with the cloth around it (IoU 0.5) read
            0.999 no piece, was dropped, and its hand was scored without it. None (default):
            every box next to pieces is kept.
        near_sure_pieces: a box next to pieces that the detector found at least this sure is
            kept (unnamed) even when the reader is `near_not_pieces_from` sure it shows no
            piece: the two disagree about something lying among the pieces (a Dice King fairy
            card half under a penalty card, found at 0.69, read 0.99 no piece, and its pile
            was scored a card short). None (default): the reader decides.
        strayed_look: a card or tile about to be dropped as no piece that the detector found
            at least this sure is read again in boxes moved a third of its size left, right,
            up and down (`_strayed_boxes`): when the reader names a face in one of them, lying
            mostly off the other pieces, the detector's box strayed off a piece beside it, and
            the row takes that box and its name. A
            Café tile of a 1280 × 720 hand photo, found at 0.42 with its box 23 px above it
            (0.80 no piece), was dropped and its hand scored a tile short. None (default): no
            second look.
        near_faces_below: for `keep_not_pieces_within`, a piece is also one the piece reader
            finds less than this likely to show no companion face (a face it is unsure which);
            None (default): only the pieces it named.
        keep_sure_pieces: a detection the detector found at least this sure is never dropped
            as no piece (`drop_not_pieces`), only left unnamed: the two disagree, and a
            scoring photo is asked again. None (default): every one may be dropped.
        drop_sure_not_pieces: ... unless the piece reader finds it at least this likely to
            show no piece (a polka dot found as a card at 0.75, no piece at 0.9999). None
            (default): `keep_sure_pieces` holds whatever the reader finds.
        name_min_score: cards and tiles the detector found less sure than this stay unnamed
            whatever they look like (a scoring photo is then asked again): on a yellow polka
            table the piece reader took white-dotted squares for cheese cards. A number, or
            one per kind (``{"card": 0.4, "tile": 0.3}``; a kind left out: any score). None
            (default): every detection may be named.
        weak_names_alone: kind -> (least score, least odds, size, most covered): a piece of
            that kind found under `name_min_score` but at least the first keeps its name when
            it was named at least the second surely, its box is within the third times the
            median named box of its kind each way (2 named or more), and it lies less than the
            fourth share on any other card's or tile's box. Empty (default): never.
        foreign_faces_from: a card or tile the piece reader, over every game's faces, finds
            at least this likely to show a face of a game not asked about (`games`) keeps no
            name (`first` mode): restricted to the games asked about, the reader's odds of
            their faces are renormalised, and a Dice King penalty card read as a Café photo
            (odds of any Café face about 0.00) was named a German guest at 0.93. None
            (default): never.
        face_readers: identity prefix → the least probability its face reader
            (`vision.piece_reader.FACE_READER_MODELS`: a reader of those faces only, from a
            larger crop) must give a face for the piece to be named it (`first` mode). It reads
            every piece named a face of the prefix and every piece the piece reader finds at
            least `face_family` likely to show one of them, and its name replaces theirs;
            below the probability the piece stays unnamed. Empty (default): none.
        face_agreement: identity prefix (of `face_readers`) → (the least probability the
            piece reader must give a piece's name, the least share of the face reader's odds of
            a face): the face reader keeps such a name by agreeing rather than by its own
            certainty, when its likeliest *face* (its "no face" class set aside) is that name
            with at least that share of its odds of a face. The face reader's "no face" odds rose on
            pieces both readers named alike (a ham card at 1.00 by the piece reader, ham 0.66 /
            no face 0.34 by the face reader): it speaks to whether a face is there, which the
            detector and the piece reader have settled. Empty (default): never.
        face_readers_agree: identity prefix (of `face_readers`) → (another face reader's prefix,
            the least probability of this reader's face, the least probability the other
            reader gives a name of that face): a piece this reader leaves under its limit is
            named all the same when it is that sure and the other reader, asked about the same
            box, names that face that surely. Two networks that learnt from different crops (a
            Dice King penalty card's "-3" read by the penalty reader at 0.957 and by the Dice
            King reader at 0.75) rarely agree on a wrong face. Empty (default): never.
        face_dispute: identity prefix (of `face_readers`) → the least probability the piece
            reader must give a piece's name for a face reader naming it a card of another kind
            to leave it unnamed instead of renaming it: the face readers are there for the
            small print that tells cards of one kind apart (a penalty's value, an
            inhabitant's number), which the piece reader's smaller crop misreads; what kind of
            card it is (a fairy, a hypnotist) is in the picture, which the piece reader sees
            well (a benchmark-like Dice King photo: a fairy half under another card, the piece
            reader fairy at 1.00, the Dice King reader hypnotist at 0.93). Empty (default):
            the face reader's name stands.
        face_dispute_referee: identity prefix (of `face_dispute`) → the least probability
            the default piece reader (`vision.piece_reader.DEFAULT_MODEL`, the live table's,
            another network than the scoring photos' reader) must give the piece reader's
            name for that name to stand in such a dispute: two of three readers agree (under
            a candle-warm light the King's Breakfast reader took chicken cards for bread at
            0.94-0.98 while both piece readers read chicken at 0.92-1.00). Ignored when the
            pipeline's own piece reader is the default one. Empty (default): no referee.
        face_pair: identity prefix (of `face_readers`) → the least probability both the piece
            reader and the face reader must give one face for a piece the face reader leaves
            under its limit to be named it all the same (two readers of different crops,
            each fairly sure of one face). Empty (default): never.
        face_fusion: identity prefix (of `face_readers`) → (least odds, least detection
            score): a piece the face reader leaves under its limit is named the face whose
            odds, the two readers' multiplied and shared out again over the faces and "no
            face" (`fused_face_odds`), reach the least odds, when the detector found it at
            least that surely (a bread card at 0.78 and 0.85, each reader unsure alone).
            Empty (default): never.
        face_reader_views: identity prefix (of `face_readers`) → quarter turns its face reader
            reads a crop in (1 or 4, odds combined by their geometric mean;
            `PieceReaderConfig.views`); 1 for a prefix not given.
        face_family: see `face_readers`. 0.9: at 0.5 the Dice King reader named a box mostly on
            the table beside a card (the piece reader's odds of a Dice King face 0.69) a
            village, and a validation photo was scored wrong; at 0.9 every Dice King photo of
            160 validation tables (seeds 8,000,100+) was right / refused / wrong 323 / 237 / 0
            (0.5: 325 / 234 / 1). A number for every prefix, or one per prefix (a prefix left
            out: 0.9).
        table_like_share: an unnamed card or tile found less sure than
            `table_like_below_score` is dropped when at least this share of its own pixels
            has the table's colours (`vision.table_colours`): a box on the empty place of a
            spread's grid. Not when a named piece of the frame shows the table's colours as
            much (a yellow cheese card on a yellow cloth). A named one found less sure than
            `table_like_name_below` that shows the table's colours at least
            `table_like_name_share` (None: `table_like_share`) loses its name. None
            (default): never.
        table_like_below_score, table_like_name_below, table_like_name_share: see
            `table_like_share`.
        table_like_margin: with a number, a named piece guards only the boxes whose share
            is at most this much above its own (a box of purple cloth, share 1.00, stays
            dropped beside a purple cake card at 0.78: the card's white border and picture
            keep its share lower); None (default): any named piece at `table_like_share`
            guards every box.
        table_like_bare_names: (score, share): a named card or tile found less sure than
            `score` (above `table_like_name_below` too) loses its name when at least `share`
            of its pixels have the table's colours: bare cloth, not a face (a yellow polka
            cloth beside a spread boxed at 0.58, share 1.00, and named cheese by both readers;
            a true card's border and picture keep its share lower). None (default): never.
        table_like_sure_names: kind -> (least identity score, share): a named piece of that
            kind whose identity is at least that sure keeps its name under `table_like_name_below`
            while its share of the table's colours stays under the share (Café tiles whose
            faces share the cloth's colours, named at 0.9998 and more, lost their names and
            refused their photos). Empty (default): none keeps it.
        table_like_keep_faces: kind -> (least detection score, no-piece odds): an unnamed
            box of that kind the detector found at least that sure and the piece reader less
            than that likely to show no piece is never dropped as the table (it stays,
            unnamed, and a scoring photo is asked again): under a warm lamp a blurred dwarf
            card's white and orange matched a confetti cloth's colours, the detector found it
            at 0.51, the reader was sure it was a card (0.000 no piece) but of no one face, and
            the pile was scored a card short. The reader alone does not tell cards: it gives
            boxes of the empty place in a spread's grid (found at 0.26-0.37) a face as surely.
            Empty (default): the colours decide.
        table_like_keep_read_alone: kind -> (least face odds, most covered): an unnamed box
            of that kind whose likeliest face the piece reader gives at least that much, and
            of which no named piece's box covers that share or more, is never dropped as the
            table (it stays unnamed; a scoring photo is asked again): a USA tile (white and
            red stripes) on a pink-dotted cloth, found at 0.26 and read USA at 0.999, was
            dropped by its colours and the hand scored a tile short. A box half on a named tile
            reads that tile's face as surely, hence the cover. Empty (default): never.
        table_like_unguarded_below: kind -> score: an unnamed box of that kind found less
            sure than this is dropped as the table even when a named piece shows the table's
            colours as much (on a yellow polka cloth with white dots, the cheese cards' share
            is 0.97 and a box of bare cloth below the spread, 0.99, was kept by them); true
            cards are found far surer than such boxes. Empty (default): the named pieces guard
            every kind.
        weak_not_pieces: kind -> (found under, least odds, most area, moved odds): an unnamed
            box of that kind found under the first that the piece reader finds at least the
            second likely to show no piece, and whose box is at most the third times the median
            named box's area of its kind (2 named or more), is dropped even beside pieces
            (`Perception._weak_not_pieces`; `near_not_pieces_from` asks far surer there): on
            busy cloths the detector boxes the cloth where a spread's next tile would lie. A
            larger box may be a piece boxed with the cloth around it, which the reader doubts
            as much, and is kept; so is a box which, moved a third of its size, the reader finds
            less than the fourth likely to show no piece (it may have strayed off a piece).
            Empty (default): never.
        oversized: a card or tile whose box is at least this many times the median named
            piece's of its kind in both width and height (with 3 named or more) is no single
            piece: the pieces of one photo are one size. Named, it loses its name (a yellow
            polka cloth below a spread, named cheese); unnamed, it is dropped when it shows no
            piece (`Perception._oversized`: a stretch of cloth around a spread's corner). Boxes
            too small to be pieces are the readers' to set aside (`vision.readers.
            spread_pieces`, which keeps parts that together span a piece). With
            `duplicate_overlap`, such a box also goes after boxes of a piece's own size when
            one piece found twice is kept once, and its name disputes none. None (default):
            never.
        oversized_quad: kind -> with `oversized`, a box of that kind is too large for one piece
            only when its quad (corners) is also at least this many times the median named
            piece's quad area (`oversized_boxes`). Empty (default): the box alone decides.
        weak_large: kind -> (found under, longer side, area): a named piece of that kind
            found under the first, whose box is at least the second times the median named box
            of its kind in width or height and the third times its area, loses its name
            (`weak_large_boxes`): it may be two pieces of one face side by side, boxed as one.
            Empty (default): never.
        penalty_seals: (least correlation, least margin, least odds) for the seal printed on
            the companion art's Dice King penalty cards (`vision.penalty_seal`): after the face
            readers (`first` mode), a card named a penalty card whose seal reads another value
            that surely (the correlation and its lead over the next value's) loses its name,
            and an unnamed card that the piece reader finds at least the least odds likely to
            show a penalty face is named the value its seal reads that surely. None
            (default): never.
        warp_readers: identity prefix → the least probability its face-warp reader
            (`vision.piece_reader.FACE_WARP_MODELS`: the piece's quad, from the rectify stage,
            warped onto a square and read in its four quarter turns) must give a face for an
            unnamed piece to be named it (`first` mode, after the face readers). The box
            readers see small print at whatever size the piece has in the frame; the warp
            shows it at one size (the gallery, which also reads warps, was right where the
            piece reader overruled it on a Dice King card's number). Default
            `WARP_READERS` (Dice King at 0.9); empty: none.
        warp_family: identity prefix (of `warp_readers`) → the least odds the piece reader
            gives an unnamed piece of showing a face of the prefix for the warp reader to read
            it; a prefix left out: `face_family`. Default `WARP_FAMILY` (Dice King 0.1).
        warp_seconds: identity prefix (of `warp_readers`) → the least odds the piece reader
            must give the warp reader's face for it to name the piece. Empty: the warp reader
            names alone.
    """

    detector: DetectorConfig = field(default_factory=DetectorConfig)
    dice_reader: DiceReaderConfig = field(default_factory=DiceReaderConfig)
    pips: PipCounterConfig = field(default_factory=PipCounterConfig)
    use_pip_veto: bool = False
    veto_factor: float = 0.2
    veto_min_confidence: float = 0.9
    drop_not_dice: bool = True
    min_frame_side: int = 8
    second_look: bool = True
    outline_look: bool = True
    looks_below_not_piece: float | None = 0.7
    piece_aspects: dict[str, float] = field(default_factory=lambda: dict(PIECE_ASPECTS))
    refine_corners: bool = True
    corner_refiner: CornerRefinerConfig = field(default_factory=CornerRefinerConfig)
    snap_corners: bool = True
    corner_snap: CornerSnapConfig = field(default_factory=CornerSnapConfig)
    piece_kind: str | None = None
    pieces_as: str | None = None
    duplicate_overlap: float | None = None
    duplicate_by_reader: bool = False
    duplicate_quads_in_boxes: bool = False
    duplicate_union: dict[str, float] = field(default_factory=dict)
    covered_unnamed: dict[str, float] = field(default_factory=dict)
    doubtful_overlap: dict[str, float] = field(default_factory=dict)
    top_face: str = "product"
    top_face_pip_likelihood: float = 0.8
    top_face_disagreement: float | None = None
    top_face_reader: TopFaceConfig = field(default_factory=TopFaceConfig)
    piece_reader: str = "first"
    piece_reader_config: PieceReaderConfig = field(default_factory=PieceReaderConfig)
    drop_not_pieces: float | None = None
    piece_reader_veto: float | None = 0.2
    agreement: tuple[float, float] | None = (0.5, 0.6)
    keep_not_pieces_within: float = 0.25
    keep_sure_pieces: float | None = None
    drop_sure_not_pieces: float | None = None
    near_faces_below: float | None = None
    near_not_pieces_from: float | None = None
    near_sure_pieces: float | None = None
    strayed_look: float | None = None
    name_min_score: float | dict[str, float] | None = None
    weak_names_alone: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    foreign_faces_from: float | None = None
    face_readers: dict[str, float] = field(default_factory=dict)
    face_agreement: dict[str, tuple[float, float]] = field(default_factory=dict)
    face_dispute: dict[str, float] = field(default_factory=dict)
    face_dispute_referee: dict[str, float] = field(default_factory=dict)
    face_pair: dict[str, float] = field(default_factory=dict)
    face_fusion: dict[str, tuple[float, float]] = field(default_factory=dict)
    face_family: float | dict[str, float] = 0.9
    face_reader_views: dict[str, int] = field(default_factory=dict)
    face_readers_agree: dict[str, tuple[str, float, float]] = field(default_factory=dict)
    table_like_share: float | None = None
    table_like_below_score: float = 0.4
    table_like_name_below: float = 0.5
    table_like_name_share: float | None = None
    table_like_margin: float | None = None
    table_like_bare_names: tuple[float, float] | None = None
    table_like_sure_names: dict[str, tuple[float, float]] = field(default_factory=dict)
    table_like_keep_faces: dict[str, tuple[float, float]] = field(default_factory=dict)
    table_like_unguarded_below: dict[str, float] = field(default_factory=dict)
    table_like_keep_read_alone: dict[str, tuple[float, float]] = field(default_factory=dict)
    weak_not_pieces: dict[str, tuple[float, float, float, float]] = field(default_factory=dict)
    oversized: float | None = None
    oversized_quad: dict[str, float] = field(default_factory=dict)
    weak_large: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    penalty_seals: tuple[float, float, float] | None = None
    warp_readers: dict[str, float] = field(default_factory=lambda: dict(WARP_READERS))
    warp_family: dict[str, float] = field(default_factory=lambda: dict(WARP_FAMILY))
    warp_seconds: dict[str, float] = field(default_factory=dict)


PIECE_READER_MODES = ("first", "after", "off")


def check_frame(frame: np.ndarray, *, min_side: int = 8) -> np.ndarray:
    """A uint8 BGR (H, W, 3) frame from what OpenCV may read (grey, BGRA, 16-bit, float in [0, 1]).

    Returns the frame itself when it already is one (never modified).

    Raises:
        BadFrameError: not an image array, or smaller than `min_side` pixels on a side.
    """
    if not isinstance(frame, np.ndarray) or frame.ndim not in (2, 3) or frame.size == 0:
        shape = getattr(frame, "shape", None)
        raise BadFrameError(f"frame must be an image array (h, w[, c]), got shape {shape}")
    h, w = frame.shape[:2]
    if min(h, w) < min_side:
        raise BadFrameError(f"frame too small: {w}x{h} (at least {min_side}x{min_side})")
    image = frame
    if image.dtype == np.uint16:
        image = (image >> 8).astype(np.uint8)
    elif image.dtype in (np.float32, np.float64):
        image = (np.clip(image, 0.0, 1.0) * 255 + 0.5).astype(np.uint8)
    elif image.dtype != np.uint8:
        raise BadFrameError(f"frame dtype must be uint8 or uint16, got {image.dtype}")
    if image.ndim == 2:
        image = np.repeat(image[:, :, None], 3, axis=2)
    elif image.shape[2] == 1:
        image = np.repeat(image, 3, axis=2)
    elif image.shape[2] == 4:
        image = np.ascontiguousarray(image[:, :, :3])
    elif image.shape[2] != 3:
        raise BadFrameError(f"frame must have 1, 3 or 4 channels, got {image.shape[2]}")
    return image


TOP_FACE_MODES: tuple[str, ...] = ("off", "replace", "product")
PIP_SURE = 0.9  # the pip counter's confidence when its pips agree in size and lie together


def combine_readings(
    whole: DieReadings,
    faces: TopFaceReadings,
    mode: str,
    *,
    pip_likelihood: float = 0.0,
    disagreement: float | None = None,
) -> DieReadings:
    """The whole-die readings with the top-face readings folded in (dice whose top face was found).

    ``replace``: the top face's value, where it calls the die a die. ``product``: the two
    readers' value odds multiplied (each counts as evidence; a value one reader rules out is
    ruled out); a sure pip count on the rectified face is a third piece of evidence when
    `pip_likelihood` > 0: its count is given that probability and the other five share the rest.
    In both, the colour odds of the two readers are multiplied (the face's alone when the
    whole-die readings carry none). "Not a die": in ``replace`` it stays the whole-die reader's
    call; in ``product`` the two readers' odds of "not a die" are multiplied as well (the face
    reader's class 0 was trained on patches of table, not on unreadable dice, which it learnt as
    "a die, value unknown") and a die is dropped (value 0) when that is likelier than a die of any
    value. ``off`` changes nothing. With `disagreement`, a die whose two readers' likeliest
    values differ scores at most that (``product`` only).
    """
    if mode == "off" or not len(whole.values):
        return whole
    use = faces.found & (whole.values > 0) & (faces.value_probabilities[:, 1:].sum(axis=1) > 0)
    if not use.any():
        return whole
    value_p = whole.value_probabilities.copy()
    face_p = faces.value_probabilities[use]
    if mode == "replace":
        # the face's odds of 1–6, renormalised (its "no face" means "cannot tell", not "no die")
        die_odds = face_p[:, 1:]
        joint_not_die = value_p[use, 0]
    else:
        die_odds = value_p[use, 1:] * face_p[:, 1:]
        # both readers' odds of "a die" against "no die": real keyboard keys and cable ferrites
        # were called dice by the whole-die reader alone (55 of dice-webcam's false dice)
        is_die = die_odds.sum(axis=1)
        not_die = value_p[use, 0] * face_p[:, 0]
        joint_not_die = np.where(
            is_die + not_die > 0, not_die / np.maximum(is_die + not_die, 1e-12), 0.0
        )
        counts = faces.pip_counts[use]
        sure = (counts > 0) & (faces.pip_confidences[use] >= PIP_SURE) & (pip_likelihood > 0)
        if sure.any():
            evidence = np.full((int(sure.sum()), 6), (1 - pip_likelihood) / 5, np.float32)
            evidence[np.arange(len(evidence)), counts[sure] - 1] = pip_likelihood
            die_odds[sure] *= evidence
    total = die_odds.sum(axis=1, keepdims=True)
    keep = total[:, 0] > 0
    rows = np.flatnonzero(use)[keep]
    value_p[rows, 0] = joint_not_die[keep]
    die_share = 1.0 - value_p[rows, 0]  # the odds that this is a die
    value_p[rows, 1:] = die_odds[keep] / total[keep] * die_share[:, None]
    values = whole.values.copy()
    values[rows] = np.where(value_p[rows, 0] > 0.5, 0, 1 + value_p[rows, 1:].argmax(axis=1))
    colour_p = faces.colour_probabilities[rows]
    if whole.colour_probabilities is not None:
        # colour odds multiplied too: the face reader alone named the demo's Dice King dice's
        # colours worse than the whole-die reader (133 vs 160 of 216 right with the value)
        both = colour_p * whole.colour_probabilities[rows]
        total_colour = both.sum(axis=1, keepdims=True)
        colour_p = np.where(total_colour > 0, both / np.maximum(total_colour, 1e-12), colour_p)
    colours = whole.colours.copy()
    colour_scores = np.ones(len(values), np.float32)
    for k, row in enumerate(rows):
        colours[row] = COLOUR_CLASSES[int(colour_p[k].argmax())]
        colour_scores[row] = float(colour_p[k].max())
    scores = whole.scores.copy()
    scores[rows] = value_p[rows, values[rows]] * colour_scores[rows]
    if disagreement is not None and mode == "product":
        whole_value = whole.value_probabilities[rows, 1:].argmax(axis=1)
        face_value = faces.value_probabilities[rows, 1:].argmax(axis=1)
        split = rows[whole_value != face_value]
        scores[split] = np.minimum(scores[split], disagreement)
    return DieReadings(values, colours, scores.astype(np.float32), value_p.astype(np.float32))


def card_kind(identity: str) -> str:
    """What kind of card `identity` names, its number left out: ``dice-king/fairy-4`` →
    ``dice-king/fairy``, ``dice-king/penalty-10`` → ``dice-king/penalty``; a name without a
    number is its own kind (``kings-breakfast/ham``)."""
    head, dash, tail = identity.rpartition("-")
    return head if dash and tail.isdigit() else identity


def _scatter(detections: Detections, rows: np.ndarray, part: Detections) -> Detections:
    """`detections` with the identities, identity scores and corners of `rows` taken from
    `part` (the same pieces, identified on their own)."""
    identities = detections.identities.copy()
    scores = detections.identity_scores.copy()
    corners = detections.corners_px.copy()
    identities[rows] = part.identities
    scores[rows] = part.identity_scores
    corners[rows] = part.corners_px
    return detections.with_fields(identities=identities, identity_scores=scores, corners_px=corners)


def _unnamed(
    detections: Detections, matches: list[Match | None], rows: np.ndarray
) -> tuple[Detections, list[Match | None]]:
    """`detections` and `matches` with the names of `rows` (bool mask) withdrawn."""
    if not rows.any():
        return detections, matches
    identities = detections.identities.copy()
    identities[rows] = None
    scores = np.where(rows, 0.0, detections.identity_scores).astype(np.float32)
    named = detections.with_fields(identities=identities, identity_scores=scores)
    return named, [None if r else m for m, r in zip(matches, rows, strict=True)]


def _reader_match(reader: PieceReader, p: np.ndarray) -> Match:
    """The `Match` of a face a reader names from its odds `p` (one row of
    `PieceReadings.probabilities`): its best face, with the lead over the second."""
    best = int(p.argmax())
    second = float(np.sort(p)[-2]) if len(p) > 1 else 0.0
    score = float(p[best])
    return _companion_match(score, score - second, reader.candidates(p), reader.classes[best])


def _companion_match(
    score: float,
    margin: float,
    candidates: tuple[tuple[str, float], ...],
    aliases: tuple[str, ...],
) -> Match:
    """The `Match` of a companion face named without the gallery (a reader, a seal): the first
    of `aliases` (the identities sharing the face), upright."""
    identity = aliases[0]
    return Match(identity, score, margin, 0, identity, "companion", candidates, aliases)


def _same_name(
    detections: Detections, matches: Sequence[Match | None], row: int, other: int
) -> bool:
    """Whether `other` names the piece as `row` does: the same identity (or one sharing its
    face), or no name at all."""
    a, b = detections.identities[row], detections.identities[other]
    if b is None or a == b:
        return True
    kept, dropped = matches[row], matches[other]
    if kept is not None and b in kept.aliases:
        return True
    return dropped is not None and a in dropped.aliases


def _disputed(
    detections: Detections,
    matches: Sequence[Match | None],
    keep: np.ndarray,
    absorbed: dict[int, list[int]],
    oversized: np.ndarray,
) -> np.ndarray:
    """(n,) bool: kept rows (`distinct_pieces`) that stood for a box naming the piece
    otherwise: one piece given two names (a box named by the reader, another by the gallery),
    and which is right is not known, so neither is used. An `oversized` box that the kept named
    pieces cover (`OVERSIZED_COVERED`) names no piece of its own and disputes nothing;
    uncovered, it may hold the only trace of a piece missed."""
    named_kept = keep & np.array([i is not None for i in detections.identities], bool)
    spoken_for = np.zeros(len(detections), bool)
    for row in np.flatnonzero(oversized & ~keep):
        covered = _covered(detections.boxes_xyxy[row], detections.boxes_xyxy[named_kept])
        spoken_for[row] = covered >= OVERSIZED_COVERED
    disputed = np.zeros(len(detections), bool)
    for kept_row, others in absorbed.items():
        disputed[kept_row] = any(
            not _same_name(detections, matches, kept_row, other)
            for other in others
            if not spoken_for[other]
        )
    return disputed


def _intersection(boxes: np.ndarray, i: int, j: int) -> float:
    """Area shared by boxes `i` and `j` of `boxes` (n, 4 xyxy)."""
    wh = np.minimum(boxes[i, 2:], boxes[j, 2:]) - np.maximum(boxes[i, :2], boxes[j, :2])
    return float(np.prod(np.maximum(wh, 0.0)))


def _odds_of_none(no_piece: np.ndarray | None, i: int) -> float:
    """The piece reader's odds that row `i` shows no piece (0 where it did not read)."""
    if no_piece is None or not np.isfinite(no_piece[i]):
        return 0.0
    return float(no_piece[i])


def _surer(detections: Detections, i: int) -> tuple[bool, float, float]:
    """Sort key: named pieces first, the surest name first, then the detector's score."""
    return (
        detections.identities[i] is None,
        -float(detections.identity_scores[i]),
        -float(detections.scores[i]),
    )


def fused_face_odds(
    face_odds: np.ndarray,
    piece_odds: np.ndarray,
    face_classes: Sequence[tuple[str, ...]],
    piece_class_index: Mapping[str, int],
) -> np.ndarray:
    """A face reader's odds (class 0: no face of its family) and the piece reader's odds of the
    same box (class 0: no piece) taken as two independent looks: each face's odds multiplied
    by the piece reader's odds of any identity in it, "no face" by its "no piece", shared out
    again to sum to 1 (all zeros when the two rule each other out everywhere; NaN odds: not
    read, count as 0)."""
    piece = np.nan_to_num(np.asarray(piece_odds, np.float64), nan=0.0)
    fused = np.zeros(len(face_classes))
    fused[0] = float(face_odds[0]) * float(piece[0])
    for k in range(1, len(face_classes)):
        columns = {piece_class_index[i] for i in face_classes[k] if i in piece_class_index}
        fused[k] = float(face_odds[k]) * float(sum(piece[c] for c in columns))
    total = fused.sum()
    return fused / total if total > 0 else fused


def overlapping_pieces(detections: Detections, limits: dict[str, float]) -> np.ndarray:
    """(n,) bool: pieces of a kind in `limits` whose box overlaps a surer one's by more than
    ``limits[kind]`` of the smaller, and whose quad does too (where both have corners): then one
    of the two is not a piece of its own (a box astride two pieces, a piece's corner) and its
    name is doubtful. (Tiles lie side by side, never on each other; cards spread for a photo
    overlap a little, and the upright boxes of turned neighbours much more than their quads.)"""
    doubtful = np.zeros(len(detections), bool)
    boxes = detections.boxes_xyxy.astype(np.float64)
    areas = np.prod(np.maximum(boxes[:, 2:] - boxes[:, :2], 1e-6), axis=1)
    quads = detections.corners_px
    has_quad = np.isfinite(quads).all(axis=(1, 2))

    def overlap(i: int, j: int, limit: float) -> bool:
        if _intersection(boxes, i, j) <= limit * min(areas[i], areas[j]):
            return False
        if not (has_quad[i] and has_quad[j]):
            return True
        if min(_quad_in_box(quads[i], boxes[i]), _quad_in_box(quads[j], boxes[j])) < QUAD_IN_BOX:
            # a quad drawn much outside its box may reach over its neighbour (a turned card's
            # corners drawn across the card beside it): only what lies in the boxes counts
            return _boxed_quads_overlap(quads[i], boxes[i], quads[j], boxes[j]) > limit
        return quad_overlap(quads[i], quads[j]) > limit

    for kind, limit in limits.items():
        rows = sorted(
            (int(i) for i in np.flatnonzero(detections.kinds == kind)),
            key=lambda i: _surer(detections, i),
        )
        for n, i in enumerate(rows):
            if any(overlap(i, j, limit) for j in rows[:n]):
                doubtful[i] = True
    return doubtful


def _over_named_median(detections: Detections, values: np.ndarray, least: int) -> np.ndarray:
    """`values` (one row per detection) of each card and tile over the median of its kind's
    named rows whose values are all finite; NaN for dice and for kinds with fewer than `least`
    such rows."""
    ratios = np.full(values.shape, np.nan)
    named = np.array([i is not None for i in detections.identities], bool)
    for kind in ("card", "tile"):
        of_kind = detections.kinds == kind
        typical = values[named & of_kind]
        finite = np.isfinite(typical)
        typical = typical[finite.all(axis=1) if finite.ndim > 1 else finite]
        if len(typical) < least:
            continue
        ratios[of_kind] = values[of_kind] / np.maximum(np.median(typical, axis=0), 1e-6)
    return ratios


def size_ratios(detections: Detections, least: int = 3) -> np.ndarray:
    """(n, 2) each card's and tile's box width and height over the median named box of its
    kind; NaN for dice and for kinds with fewer than `least` named."""
    sizes = (detections.boxes_xyxy[:, 2:] - detections.boxes_xyxy[:, :2]).astype(np.float64)
    return _over_named_median(detections, sizes, least)


def quad_area_ratios(detections: Detections, least: int = 3) -> np.ndarray:
    """(n,) each card's and tile's quad area (its corners) over the median named quad's of its
    kind; NaN for dice, for kinds with fewer than `least` named, and for corners not all
    finite."""
    areas = np.array([polygon_area(q) for q in detections.corners_px], np.float64)
    return _over_named_median(detections, areas, least)


def oversized_boxes(
    detections: Detections,
    limit: float,
    least: int = 3,
    quad_limits: Mapping[str, float] | None = None,
) -> np.ndarray:
    """(n,) bool: cards and tiles whose box is at least `limit` times the median named box of
    their kind in both width and height, for kinds with at least `least` named. With
    `quad_limits` (kind -> least ratio), a box of such a kind whose quad (its corners) is under
    that many times the median named quad's area is not: one card turned half-way across the
    photo's axes fills a box that much larger with a quad of a card's size."""
    with np.errstate(invalid="ignore"):
        large = np.asarray((size_ratios(detections, least) >= limit).all(axis=1), bool)
        if quad_limits and large.any():
            ratios = quad_area_ratios(detections, least)
            for kind, quad_limit in quad_limits.items():
                # NaN (corners or medians unknown): the box's verdict stands
                large &= ~((detections.kinds == kind) & (ratios < quad_limit))
    return large


def weak_large_boxes(
    detections: Detections, below: float, longer: float, area: float, least: int = 3
) -> np.ndarray:
    """(n,) bool: named cards and tiles found under `below` whose box is at least `longer`
    times the median named box of their kind in width or in height and at least `area` times
    its area (kinds with at least `least` named): a weak box that much larger than a piece may
    hold two of one face side by side (a card lying across is as long but no larger)."""
    ratios = size_ratios(detections, least)
    named = np.array([i is not None for i in detections.identities], bool)
    with np.errstate(invalid="ignore"):  # NaN: dice, kinds with too few named
        large = (ratios.max(axis=1) >= longer) & (ratios.prod(axis=1) >= area)
    return np.asarray(named & (detections.scores < below) & large, bool)


def _boxed_quads_overlap(
    quad_a: np.ndarray, box_a: np.ndarray, quad_b: np.ndarray, box_b: np.ndarray
) -> float:
    """`quad_overlap` of two quads each clipped to its own box (xyxy)."""
    clipped = [
        clip_polygon_to_rect(np.asarray(q, np.float64).reshape(4, 2), *map(float, box))
        for q, box in ((quad_a, box_a), (quad_b, box_b))
    ]
    return polygon_overlap(*clipped)


def _quad_in_box(quad: np.ndarray, box: np.ndarray) -> float:
    """The share of `quad`'s area (4 corners) inside `box` (xyxy); 0 for a degenerate quad
    or corners not all finite."""
    corners = np.asarray(quad, np.float64).reshape(4, 2)
    if not np.isfinite(corners).all():
        return 0.0
    x0, y0, x1, y1 = (float(v) for v in box)
    return visible_fraction_in_rect(corners - [x0, y0], x1 - x0, y1 - y0)


# `PerceptionConfig.strayed_look`: how far a box is moved each way (of its size), how little of
# it may lie on the other pieces' boxes, and the least box (of their median area) read again
STRAYED_SHIFT = 1 / 3
STRAYED_ON_OTHERS = 0.3
STRAYED_LEAST_AREA = 0.6


def _moved_off_others(
    box: np.ndarray, others: np.ndarray
) -> list[tuple[tuple[float, float], np.ndarray]]:
    """`box` (xyxy) moved `STRAYED_SHIFT` of its size left, right, up and down: each (dx, dy)
    and moved box that lies less than `STRAYED_ON_OTHERS` on any of the `others` boxes (else it
    reads the piece beside it)."""
    w, h = (box[2:] - box[:2]) * STRAYED_SHIFT
    moves = []
    for dx, dy in ((-w, 0.0), (w, 0.0), (0.0, -h), (0.0, h)):
        moved = box + [dx, dy, dx, dy]
        if largest_share_covered(moved, others) < STRAYED_ON_OTHERS:
            moves.append(((float(dx), float(dy)), moved))
    return moves


def _take_readings(readings: PieceReadings, rows: Sequence[int]) -> PieceReadings:
    """The `rows` of `readings`, in that order."""
    index = np.asarray(rows, np.intp)
    return PieceReadings(*(getattr(readings, f.name)[index] for f in fields(readings)))


def _replace_readings(
    readings: PieceReadings, rows: np.ndarray, again: PieceReadings
) -> PieceReadings:
    """`readings` with the rows where `rows` (bool) is set replaced by `again`, in order."""
    values = []
    for f in fields(readings):
        column = getattr(readings, f.name).copy()
        column[rows] = getattr(again, f.name)
        values.append(column)
    return PieceReadings(*values)


def _covered(box: np.ndarray, parts: np.ndarray, cells: int = 24) -> float:
    """The share of `box` (xyxy) that the boxes `parts` (k, 4) cover, on a cells × cells grid."""
    xs = box[0] + (np.arange(cells) + 0.5) * (box[2] - box[0]) / cells
    ys = box[1] + (np.arange(cells) + 0.5) * (box[3] - box[1]) / cells
    gx, gy = np.meshgrid(xs, ys)
    covered = np.zeros(gx.shape, bool)
    for x0, y0, x1, y1 in parts:
        covered |= (gx >= x0) & (gx <= x1) & (gy >= y0) & (gy <= y1)
    return float(covered.mean())


# two detections' quads are compared only when their boxes share at least this of the smaller
QUAD_NEEDS_BOX = 0.5
# a quad with less than this of its area inside its own box merges two named pieces only when
# it is alike to the other's (each holds most of the other). A 1280 x 720 king photo (seed
# 8,000,106) kept two neighbouring cakes as one: one's quad, drawn across both (0.77 in its
# box), held the other's (0.99) though the boxes shared 0.52. Scoring photos of validation
# tables (8,000,040+ / 200+ / 400+, both sizes, every game), right / refused / wrong: King's
# Breakfast 1280 x 720 8,000,040+ 745 / 4 / 1 -> 745 / 5 / 0, the rest unchanged (Café hands
# often show a box strayed off its tile with the tile's own quad: those stay one piece). The
# live table's tracked King's Breakfast games (3 x 30 moves): 9 such merges undone, the
# tracked results unchanged (Dice King and Café games: no quad merges at all).
QUAD_IN_BOX = 0.9
# an oversized box merged into a named piece disputes its name only when the kept named pieces
# cover less than this of it (`_disputed`)
OVERSIZED_COVERED = 0.7
# a box at least this many times a piece's median area may lie astride two pieces; one only
# a little larger than a piece, when the two it holds are both named (a whole card's box holds
# unnamed fragments of itself often, two named cards rarely)
ASTRIDE_AREA = 1.5
ASTRIDE_NAMED_AREA = 1.15


def distinct_pieces(
    detections: Detections,
    overlap: float,
    union: dict[str, float] | None = None,
    absorbed: dict[int, list[int]] | None = None,
    *,
    covered_unnamed: dict[str, float] | None = None,
    oversized: np.ndarray | None = None,
    no_piece: np.ndarray | None = None,
    quads_in_boxes: bool = False,
) -> np.ndarray:
    """Which rows to keep so that each card (or tile) is kept once: named pieces first, whole
    ones before parts (boxes under 0.6 of the median) and before the `oversized` rows (bool
    mask: boxes too large for one piece, `oversized_boxes`), the surest name first; unnamed
    boxes the piece reader finds likelier to show a piece first (`no_piece`: its odds of no
    piece per row, NaN where it did not read), then the detector score. Dice always stay. A
    box astride two pieces (`ASTRIDE_AREA` times a piece's size or more, holding most of two
    piece-sized boxes that are not one piece; from `ASTRIDE_NAMED_AREA` times when both are
    named) is dropped first when they cover 0.7 of it or more; else it may hold a piece found
    only so, and is kept apart (never merged).

    Two detections are one piece when their quads, or their boxes, overlap by `overlap` of the
    smaller one or more (boxes too: a piece named from its box keeps the detector's rough
    corners, and one piece found by two passes of the detector has two such quads but nearly
    one box; quads only where the boxes share `QUAD_NEEDS_BOX` of the smaller, and for two
    named pieces with a quad much outside its box, `QUAD_IN_BOX`, only alike quads, and with
    `quads_in_boxes` only those overlapping inside their own boxes too), or — for
    a kind in `union`, pieces that lie side by side and never on each other —
    when their boxes touch and together are no longer than ``union[kind]`` × the kind's median
    box (the detector sometimes boxes two halves of one tile apart). `absorbed`, when given, is
    filled with the rows each kept row stood for (merged into it). Last, for a kind in
    `covered_unnamed`, a kept unnamed box that the kept named boxes of its kind cover at least
    that much is dropped (no piece lies where others lie)."""
    limits = union or {}
    keep = np.ones(len(detections), bool)
    boxes = detections.boxes_xyxy.astype(np.float64)
    sizes = np.maximum(boxes[:, 2:] - boxes[:, :2], 1e-6)
    areas = np.prod(sizes, axis=1)

    def inter(i: int, j: int) -> float:
        return _intersection(boxes, i, j)

    def same_piece(i: int, j: int, limit: float | None, typical: float) -> bool:
        common = inter(i, j)
        if common >= overlap * min(areas[i], areas[j]):
            return True
        if limit is not None and common > 0:
            joined = np.maximum(boxes[i, 2:], boxes[j, 2:]) - np.minimum(boxes[i, :2], boxes[j, :2])
            if joined.max() <= limit * typical:
                return True
        # rough corners can reach over a neighbour (a half-covered card's quad drawn whole):
        # quads speak only for boxes that share a good part too, or two neighbouring cards
        # of one food were kept as one
        if common < QUAD_NEEDS_BOX * min(areas[i], areas[j]):
            return False
        quads = detections.corners_px
        held = quad_overlap(quads[i], quads[j])
        if held < overlap:
            return False
        names = detections.identities
        if names[i] is None or names[j] is None:
            return True
        # two named pieces, one quad drawn much outside its own box: it may be drawn across
        # two cards and hold its neighbour's whole quad (a king's area of overlapping cards),
        # while a box that strayed off its piece keeps the piece's quad. One piece only when
        # the quads are alike: each holds most of the other
        fits = min(_quad_in_box(quads[i], boxes[i]), _quad_in_box(quads[j], boxes[j]))
        if fits >= QUAD_IN_BOX:
            return True
        sizes_ij = sorted(abs(polygon_area(np.asarray(quads[k], np.float64))) for k in (i, j))
        if held * sizes_ij[0] < overlap * sizes_ij[1]:
            return False
        if not quads_in_boxes:
            return True
        # alike, but both may be one quad drawn across two cards side by side (each box
        # carrying it): what lies inside each box must still be one piece
        return _boxed_quads_overlap(quads[i], boxes[i], quads[j], boxes[j]) >= overlap

    for kind in ("card", "tile"):
        rows = [int(i) for i in np.flatnonzero(detections.kinds == kind)]
        if not rows:
            continue
        area = float(np.median(areas[rows]))  # a piece's size
        # a box astride two pieces (as large as two, holding most of two piece-sized boxes that
        # are not one piece and together fill most of it) is neither of them, however sure its
        # name: keeping it would drop both. (Two halves of one piece boxed apart are not
        # piece-sized: their piece stays.)
        apart: set[int] = set()
        for i in rows:
            if areas[i] < ASTRIDE_NAMED_AREA * area:
                continue
            named_only = areas[i] < ASTRIDE_AREA * area
            inside = [
                j
                for j in rows
                if j != i
                and areas[j] >= 0.6 * area
                and inter(i, j) >= overlap * areas[j]
                and not (named_only and detections.identities[j] is None)
            ]
            pairs = [
                (j, k)
                for n, j in enumerate(inside)
                for k in inside[n + 1 :]
                if inter(j, k) < overlap * min(areas[j], areas[k])
            ]
            if not pairs:
                continue
            if _covered(boxes[i], boxes[inside]) < 0.7:
                apart.add(i)  # much of it shows none of them: a piece the detector found only so
            elif any(areas[j] + areas[k] >= 0.7 * areas[i] for j, k in pairs):
                keep[i] = False
        rows = [i for i in rows if keep[i] and i not in apart]
        typical = float(np.median(sizes[rows].max(axis=1))) if rows else 0.0
        order = sorted(
            rows,
            key=lambda i: (
                detections.identities[i] is None,
                bool(areas[i] < 0.6 * area),  # a part of a piece after whole ones
                # a box with much cloth around its piece after one that fits it (the name is
                # the same; a box of the piece's own size is what the later steps can use)
                bool(oversized is not None and oversized[i]),
                -float(detections.identity_scores[i]),
                # a box with cloth around a tile that the reader calls no piece (and a later
                # step drops as such) must not take in the tile's own box
                _odds_of_none(no_piece, i) if detections.identities[i] is None else 0.0,
                -float(detections.scores[i]),
            ),
        )
        kept: list[int] = []
        for i in order:
            into = next((j for j in kept if same_piece(i, j, limits.get(kind), typical)), None)
            if into is None:
                kept.append(i)
                continue
            keep[i] = False
            if absorbed is not None:
                absorbed.setdefault(into, []).append(i)
        least = (covered_unnamed or {}).get(kind)
        if least is not None:
            named = [i for i in kept if detections.identities[i] is not None]
            for i in kept:
                if named and detections.identities[i] is None:
                    keep[i] = _covered(boxes[i], boxes[named]) < least
    return keep


class Perception:
    """Frames → `Detections` (models loaded once).

    `top_face_models` is a folder holding another top-face locator and face reader
    (``dice_top_face.onnx`` and ``dice_face_reader.onnx``, as `models.train top-face --out` writes
    them); None uses the committed pair.

    Raises:
        ModelError: a model file is missing or unreadable.
    """

    def __init__(
        self,
        config: PerceptionConfig | None = None,
        *,
        detector_model: str | Path | None = None,
        dice_model: str | Path | None = None,
        corner_model: str | Path | None = None,
        snap_model: str | Path | None = None,
        identifier: Identifier | None = None,
        games: Sequence[str] | None = None,
        identify: bool = True,
        piece_model: str | Path | None = None,
        top_face_models: str | Path | None = None,
    ) -> None:
        self.config = config or PerceptionConfig()
        self.detector = Detector(detector_model, self.config.detector)
        self.reader = DiceReader(dice_model, self.config.dice_reader)
        if self.config.top_face not in TOP_FACE_MODES:
            raise ValueError(
                f"top_face must be one of {', '.join(TOP_FACE_MODES)}, not {self.config.top_face!r}"
            )
        # a folder of another top-face training's pair (locator and face reader, as it writes them)
        folder = Path(top_face_models) if top_face_models is not None else None
        self.top_face = (
            TopFaceReader(
                folder / "dice_top_face.onnx" if folder else None,
                folder / "dice_face_reader.onnx" if folder else None,
                config=self.config.top_face_reader,
            )
            if self.config.top_face != "off"
            else None
        )
        self.refiner = (
            CornerRefiner(corner_model, self.config.corner_refiner)
            if self.config.refine_corners
            else None
        )
        self.snapper = (
            CornerSnapper(snap_model, self.config.corner_snap)
            if self.config.refine_corners and self.config.snap_corners
            else None
        )
        if self.config.piece_reader not in PIECE_READER_MODES:
            raise ValueError(
                f"piece_reader must be one of {', '.join(PIECE_READER_MODES)}, "
                f"not {self.config.piece_reader!r}"
            )
        self.piece_reader = (
            PieceReader(piece_model, self.config.piece_reader_config)
            if self.config.piece_reader != "off" and identify
            else None
        )
        # a referee must be another network than the reader whose name it would uphold
        self._own_default_reader = piece_model is None or (
            Path(piece_model).resolve() == DEFAULT_PIECE_MODEL.resolve()
        )
        # the gallery is drawn at the first card or tile (about 2 s), not for dice-only use
        self._identifier = identifier
        self.games = tuple(games) if games is not None else None
        self.identifies = identify
        self._reader_games_cache: tuple[str, ...] | None = None
        self._face_readers: dict[str, PieceReader] = {}

    # --- stages ----------------------------------------------------------------------------------
    def detect(self, frame: np.ndarray) -> Detections:
        """Stage 1: boxes of cards, tiles and dice (cards and tiles as `piece_kind` if set)."""
        detections = self.detector.detect(frame)
        kind = self.config.piece_kind
        if not len(detections):
            return detections
        if kind is not None:
            return detections.with_fields(kinds=np.full(len(detections), kind, object))
        if self.config.pieces_as is not None:
            kinds = detections.kinds.copy()
            kinds[np.isin(kinds, ("card", "tile"))] = self.config.pieces_as
            return detections.with_fields(kinds=kinds)
        return detections

    def read_dice(self, frame: np.ndarray, detections: Detections) -> Detections:
        """Stage 2: value, colour and value score of every die (crops of the full frame)."""
        is_die = detections.kinds == "die"
        if not is_die.any():
            return detections
        crops = crop_dice(
            frame,
            detections.boxes_xyxy[is_die],
            size=self.reader.config.crop_size,
            margin=self.reader.config.margin,
        )
        readings = self.reader.read_crops(crops)
        if self.top_face is not None:
            faces = self.top_face.read(frame, detections.boxes_xyxy[is_die])
            readings = combine_readings(
                readings,
                faces,
                self.config.top_face,
                pip_likelihood=self.config.top_face_pip_likelihood,
                disagreement=self.config.top_face_disagreement,
            )
        scores = self._cross_check(crops, readings)
        values = detections.die_values.copy()
        colours = detections.die_colours.copy()
        value_scores = detections.die_value_scores.copy()
        values[is_die] = readings.values
        colours[is_die] = readings.colours
        value_scores[is_die] = scores
        updated = detections.with_fields(
            die_values=values, die_colours=colours, die_value_scores=value_scores
        )
        if self.config.drop_not_dice:
            not_die = np.zeros(len(detections), bool)
            not_die[np.flatnonzero(is_die)[readings.values == 0]] = True
            updated = updated[~not_die]
        return updated

    def _cross_check(self, crops: np.ndarray, readings: DieReadings) -> np.ndarray:
        scores = readings.scores.copy()
        if not self.config.use_pip_veto:
            return scores
        for i, crop in enumerate(crops):
            if readings.values[i] == 0:
                continue
            pips = count_pips(crop, self.config.pips)
            sure = pips.count > 0 and pips.confidence >= self.config.veto_min_confidence
            if sure and pips.count != int(readings.values[i]):
                scores[i] *= self.config.veto_factor
        return scores

    def rectify(self, frame: np.ndarray, detections: Detections) -> Detections:
        """Stage 3: card and tile corners refined (`vision.corner_refiner`), then each corner
        snapped (`vision.corner_snap`); dice unchanged."""
        pieces = np.flatnonzero(np.isin(detections.kinds, ("card", "tile")))
        if self.refiner is None or len(pieces) == 0:
            return detections
        corners = detections.corners_px.copy()
        aspects = [self.config.piece_aspects[str(k)] for k in detections.kinds[pieces]]
        refined = self.refiner.refine(frame, corners[pieces], aspects)
        if self.snapper is not None:
            refined = self.snapper.snap(frame, refined)
        corners[pieces] = refined.astype(corners.dtype)
        return detections.with_fields(corners_px=corners)

    def identify(self, frame: np.ndarray, detections: Detections) -> Detections:
        """Stage 4: card and tile identities matched against the gallery (enrolled faces first,
        then the companion art), restricted to `games` when given; None where unsure."""
        return self.identify_detailed(frame, detections)[0]

    def identify_detailed(
        self, frame: np.ndarray, detections: Detections
    ) -> tuple[Detections, list[Match | None]]:
        """`identify`, and the `Match` of every row (None for dice, or with nothing identified).

        Looks, each only at the pieces the ones before left unnamed: the corners given (the
        rectify stage's); the box's edge-turned rectangle (`second_look`); the outline
        (`outline_look`).
        """
        pieces = np.isin(detections.kinds, ("card", "tile"))
        if not self.identifies or not pieces.any():
            return detections, [None] * len(detections)
        mode = self.config.piece_reader if self.piece_reader is not None else "off"
        no_piece = np.full(len(detections), np.nan)  # the piece reader's odds, where it read
        face_odds = np.full(len(detections), np.nan)  # ... of its likeliest face
        if mode == "first":
            detections, matches, not_pieces, odds, foreign = self._read_pieces(frame, detections)
            if not_pieces.any():
                detections = detections[~not_pieces]
                matches = [m for m, drop in zip(matches, not_pieces, strict=True) if not drop]
                pieces = pieces[~not_pieces]
                odds = odds[~not_pieces]
                foreign = foreign[~not_pieces]
            no_piece = odds[:, 0].astype(np.float64)
            if odds.shape[1] > 1:
                with np.errstate(invalid="ignore"):
                    face_odds = np.max(odds[:, 1:], axis=1).astype(np.float64)
            rest = np.flatnonzero(
                pieces & np.array([i is None for i in detections.identities], bool)
            )
            if len(rest):
                no_looks = np.zeros(len(rest), bool)
                if self.config.looks_below_not_piece is not None:
                    with np.errstate(invalid="ignore"):  # NaN: not read
                        no_looks = odds[rest, 0] >= self.config.looks_below_not_piece
                matched, rest_matches = self._match_gallery(frame, detections[rest], no_looks)
                matched, rest_matches = self._veto(matched, rest_matches, odds[rest])
                matched, rest_matches = self._agreed(matched, rest_matches, odds[rest])
                detections = _scatter(detections, rest, matched)
                for row, m in zip(rest, rest_matches, strict=True):
                    matches[int(row)] = m
            for prefix, limit in self.config.face_readers.items():
                detections, matches = self._read_faces(
                    frame, detections, matches, odds, prefix, limit
                )
            for prefix, limit in self.config.warp_readers.items():
                detections, matches = self._read_warps(
                    frame, detections, matches, odds, prefix, limit
                )
            if self.config.penalty_seals is not None:
                detections, matches = self._read_seals(frame, detections, matches, odds)
            if self.config.foreign_faces_from is not None:
                with np.errstate(invalid="ignore"):
                    alien = foreign >= self.config.foreign_faces_from  # NaN: not read
                detections, matches = _unnamed(detections, matches, alien)
        else:
            detections, matches = self._match_gallery(frame, detections)
            if mode == "after":
                rest = np.flatnonzero(
                    pieces & np.array([i is None for i in detections.identities], bool)
                )
                if len(rest):
                    read, read_matches, _, _, _ = self._read_pieces(frame, detections[rest])
                    detections = _scatter(detections, rest, read)
                    for row, m in zip(rest, read_matches, strict=True):
                        if m is not None and m.identity is not None:
                            matches[int(row)] = m
        if self.config.name_min_score is not None:
            unsure = pieces & (detections.scores < self._name_min_scores(detections.kinds))
            unsure &= ~self._weak_names_alone(detections)
            detections, matches = _unnamed(detections, matches, unsure)
        if self.config.duplicate_overlap is not None:
            absorbed: dict[int, list[int]] = {}
            large = np.zeros(len(detections), bool)
            if self.config.oversized is not None:
                large = oversized_boxes(
                    detections, self.config.oversized, quad_limits=self.config.oversized_quad
                )
            keep = distinct_pieces(
                detections,
                self.config.duplicate_overlap,
                self.config.duplicate_union,
                absorbed,
                covered_unnamed=self.config.covered_unnamed,
                oversized=large,
                no_piece=no_piece if self.config.duplicate_by_reader else None,
                quads_in_boxes=self.config.duplicate_quads_in_boxes,
            )
            disputed = _disputed(detections, matches, keep, absorbed, large)
            detections = detections[keep]
            no_piece = no_piece[keep]
            face_odds = face_odds[keep]
            matches = [m for m, k in zip(matches, keep, strict=True) if k]
            doubtful = overlapping_pieces(detections, self.config.doubtful_overlap)
            doubtful |= disputed[keep]
            detections, matches = _unnamed(detections, matches, doubtful)
        if self.config.weak_not_pieces:
            weak = self._weak_not_pieces(frame, detections, no_piece)
            detections = detections[~weak]
            matches = [m for m, w in zip(matches, weak, strict=True) if not w]
            no_piece = no_piece[~weak]
            face_odds = face_odds[~weak]
        if self.config.table_like_share is not None:
            shares = self._table_shares(frame, detections)
            detections, matches = self._table_like(detections, matches, shares, no_piece, face_odds)
        if self.config.oversized is not None:
            detections, matches = self._oversized(frame, detections, matches)
        if self.config.weak_large:
            weak = np.zeros(len(detections), bool)
            for kind, limits in self.config.weak_large.items():
                weak |= weak_large_boxes(detections, *limits) & (detections.kinds == kind)
            detections, matches = _unnamed(detections, matches, weak)
        return detections, matches

    def _weak_names_alone(self, detections: Detections) -> np.ndarray:
        """(n,) bool: the named rows `weak_names_alone` lets keep their names."""
        keep = np.zeros(len(detections), bool)
        if not self.config.weak_names_alone:
            return keep
        named = np.array([i is not None for i in detections.identities], bool)
        ratios = size_ratios(detections, least=2)
        boxes = detections.boxes_xyxy.astype(np.float64)
        pieces = np.isin(detections.kinds, ("card", "tile"))
        for kind, (least, odds, size, covered) in self.config.weak_names_alone.items():
            with np.errstate(invalid="ignore"):  # NaN (too few named): not kept
                rows = (
                    named
                    & (detections.kinds == kind)
                    & (detections.scores >= least)
                    & (detections.identity_scores >= odds)
                    & (ratios <= size).all(axis=1)
                    & (ratios >= 1.0 / size).all(axis=1)
                )
            for row in np.flatnonzero(rows):
                others = boxes[pieces & (np.arange(len(boxes)) != row)]
                keep[row] = largest_share_covered(boxes[row], others) < covered
        return keep

    def _name_min_scores(self, kinds: np.ndarray) -> np.ndarray:
        """(n,) `name_min_score` for each detection's kind (0 where none applies)."""
        limit = self.config.name_min_score
        if isinstance(limit, dict):
            return np.array([limit.get(str(k), 0.0) for k in kinds], np.float32)
        return np.full(len(kinds), 0.0 if limit is None else limit, np.float32)

    def _oversized(
        self, frame: np.ndarray, detections: Detections, matches: list[Match | None]
    ) -> tuple[Detections, list[Match | None]]:
        """`oversized`: such named boxes lose their names; unnamed ones are dropped when they
        show no piece of their own: the piece reader finds none in them (at least
        `near_not_pieces_from`, else 0.9) or their own pixels have the table's colours (at
        least `table_like_share`, else 0.85). A box twice a Café tile's size held the only
        trace of a tile the detector missed (the reader: that tile at 0.76), and dropping it
        scored the photo a tile short.

        The table's colours are sampled outside every box, so many large boxes of cloth leave
        too little table to judge any of them: the colours are judged again, without the boxes
        dropped, for as long as that drops more (a yellow polka cloth boxed ten times around a
        King's Breakfast spread, every box judgeable only once the first was gone)."""
        assert self.config.oversized is not None
        oversized = oversized_boxes(
            detections, self.config.oversized, quad_limits=self.config.oversized_quad
        )
        named = np.array([i is not None for i in detections.identities], bool)
        detections, matches = _unnamed(detections, matches, oversized & named)
        rows = np.flatnonzero(oversized & ~named)
        if not len(rows):
            return detections, matches
        empty = np.zeros(len(rows), bool)
        games = self._reader_games()
        if self.piece_reader is not None and games:
            none = self.piece_reader.read(frame, detections.boxes_xyxy[rows], games)
            empty |= none.probabilities[:, 0] >= (self.config.near_not_pieces_from or 0.9)
        drop = np.zeros(len(detections), bool)
        drop[rows[empty]] = True
        while True:
            left = rows[~drop[rows]]
            if not len(left):
                break
            kept = np.flatnonzero(~drop)
            shares = table_colour_shares(
                frame, detections.boxes_xyxy[kept], np.searchsorted(kept, left)
            )
            with np.errstate(invalid="ignore"):
                table = left[shares >= (self.config.table_like_share or 0.85)]
            if not len(table):
                break
            drop[table] = True
        return detections[~drop], [m for m, d in zip(matches, drop, strict=True) if not d]

    def _table_shares(self, frame: np.ndarray, detections: Detections) -> np.ndarray:
        """(n,) each card's and tile's share of the table's colours (`vision.table_colours`);
        NaN for dice and boxes that cannot be judged, and for all when no card or tile is weak
        enough for `table_like_share` to touch (most photos: nothing to compute)."""
        shares = np.full(len(detections), np.nan)
        pieces = np.isin(detections.kinds, ("card", "tile"))
        weak = max(self.config.table_like_below_score, self.config.table_like_name_below)
        if self.config.table_like_bare_names is not None:
            weak = max(weak, self.config.table_like_bare_names[0])
        if not (pieces & (detections.scores < weak)).any():
            return shares
        rows = np.flatnonzero(pieces)
        shares[rows] = table_colour_shares(frame, detections.boxes_xyxy, rows)
        return shares

    def _weak_not_pieces(
        self, frame: np.ndarray, detections: Detections, no_piece: np.ndarray
    ) -> np.ndarray:
        """(n,) bool: the unnamed boxes `weak_not_pieces` drops (`no_piece`: the piece
        reader's odds of no piece per row, NaN where it did not read: kept). A box that, moved
        a third of its size off the other pieces (`STRAYED_SHIFT`), shows something the reader
        finds less likely than the setting's fourth value to be no piece is kept: the detector's
        only box on a piece may have strayed half off it (a USA tile boxed across its lower
        edge: no piece 0.81 there, 0.002 moved up)."""
        drop = np.zeros(len(detections), bool)
        unnamed = np.array([i is None for i in detections.identities], bool)
        ratios = size_ratios(detections, least=2).prod(axis=1)
        moved_odds = np.full(len(detections), -np.inf)
        for kind, (below, least_odds, most_area, moved) in self.config.weak_not_pieces.items():
            with np.errstate(invalid="ignore"):  # NaN (not read, too few named): kept
                rows = (
                    unnamed
                    & (detections.kinds == kind)
                    & (detections.scores < below)
                    & (no_piece >= least_odds)
                    & (ratios <= most_area)
                )
            drop |= rows
            moved_odds[rows] = moved
        if drop.any() and self.piece_reader is not None:
            drop &= ~self._piece_off_box(frame, detections, drop, moved_odds)
        return drop

    def _piece_off_box(
        self, frame: np.ndarray, detections: Detections, candidates: np.ndarray, odds: np.ndarray
    ) -> np.ndarray:
        """(n,) bool: the `candidates` rows whose box, moved off the other cards and tiles
        (`_moved_off_others`), the piece reader finds less than the row's `odds` likely to show
        no piece in at least once."""
        assert self.piece_reader is not None
        found = np.zeros(len(detections), bool)
        pieces = np.isin(detections.kinds, ("card", "tile"))
        boxes = detections.boxes_xyxy.astype(np.float64)
        moved_boxes, owners = [], []
        for row in np.flatnonzero(candidates):
            others = boxes[pieces & (np.arange(len(boxes)) != row)]
            for _, moved in _moved_off_others(boxes[row], others):
                moved_boxes.append(moved)
                owners.append(row)
        if not moved_boxes:
            return found
        games = self._reader_games()
        readings = self.piece_reader.read(frame, np.asarray(moved_boxes, np.float32), games)
        for n, row in enumerate(owners):
            found[row] |= bool(readings.probabilities[n, 0] < odds[row])
        return found

    def _table_like(
        self,
        detections: Detections,
        matches: list[Match | None],
        shares: np.ndarray,
        no_piece: np.ndarray | None = None,
        face_odds: np.ndarray | None = None,
    ) -> tuple[Detections, list[Match | None]]:
        """`table_like_share`: weak named boxes showing the table lose their names; weak
        unnamed ones are dropped, unless a named piece shows the table's colours as much (the
        pieces' faces then share the table's colours, and the test cannot tell them apart), or
        the piece reader is sure they show a piece (`table_like_keep_faces`; `no_piece`: its
        odds of no piece per row, NaN where it did not read; None: not read at all) or names
        a face in a box no named piece covers (`table_like_keep_read_alone`; `face_odds`: its
        odds of its likeliest face per row, NaN where it did not read)."""
        limit = self.config.table_like_share
        if limit is None:
            return detections, matches
        name_limit = self.config.table_like_name_share
        with np.errstate(invalid="ignore"):
            table = shares >= limit  # NaN (cannot judge): False
            name_table = shares >= (limit if name_limit is None else name_limit)
        named = np.array([i is not None for i in detections.identities], bool)
        doubtful = named & name_table & (detections.scores < self.config.table_like_name_below)
        if self.config.table_like_bare_names is not None:
            bare_below, bare_share = self.config.table_like_bare_names
            with np.errstate(invalid="ignore"):
                doubtful |= named & (shares >= bare_share) & (detections.scores < bare_below)
        for kind, (least_score, below_share) in self.config.table_like_sure_names.items():
            with np.errstate(invalid="ignore"):
                doubtful &= ~(
                    (detections.kinds == kind)
                    & (detections.identity_scores >= least_score)
                    & (shares < below_share)
                )
        detections, matches = _unnamed(detections, matches, doubtful)
        guards = named & ~doubtful & table
        drop = ~named & table & (detections.scores < self.config.table_like_below_score)
        for kind, (least_score, below) in self.config.table_like_keep_faces.items():
            if no_piece is None:
                break
            with np.errstate(invalid="ignore"):  # NaN (not read): the colours decide
                drop &= ~(
                    (detections.kinds == kind)
                    & (detections.scores >= least_score)
                    & (no_piece < below)
                )
        for kind, (least_odds, most_covered) in self.config.table_like_keep_read_alone.items():
            if face_odds is None:
                break
            pieces = detections.boxes_xyxy[named & ~doubtful & (detections.kinds == kind)]
            with np.errstate(invalid="ignore"):  # NaN (not read): the colours decide
                read = (detections.kinds == kind) & (face_odds >= least_odds)
            for row in np.flatnonzero(drop & read):
                # a box half on a named piece reads that piece's face: only one apart counts
                if largest_share_covered(detections.boxes_xyxy[row], pieces) < most_covered:
                    drop[row] = False
        unguarded = np.zeros(len(detections), bool)
        for kind, below in self.config.table_like_unguarded_below.items():
            unguarded |= (detections.kinds == kind) & (detections.scores < below)
        if guards.any():
            margin = self.config.table_like_margin
            # a box far more of the table's colours than every named piece is none of them
            far = np.zeros(len(detections), bool)
            if margin is not None:
                far = shares > shares[guards].max() + margin
            drop &= far | unguarded
        if not drop.any():
            return detections, matches
        return detections[~drop], [m for m, d in zip(matches, drop, strict=True) if not d]

    def _reader_games(self) -> tuple[str, ...] | None:
        """The games the piece reader may name pieces of: those asked about, less those with
        enrolled faces (empty: none)."""
        if self._reader_games_cache is None:
            gallery = getattr(self._identifier, "gallery", None)
            refs = (gallery or load_enrolled(self.games)).references
            enrolled = {r.game for r in refs if r.source == "enrolled"}
            games = self.games if self.games is not None else tuple(GAME_KINDS)
            self._reader_games_cache = tuple(g for g in games if g not in enrolled)
        return self._reader_games_cache

    def _read_pieces(
        self, frame: np.ndarray, detections: Detections
    ) -> tuple[Detections, list[Match | None], np.ndarray, np.ndarray, np.ndarray]:
        """The piece reader on every card and tile: identities it is sure of, their Matches,
        which rows are no piece (`drop_not_pieces`), every row's face odds and its odds of a
        face of a game not asked about (`PieceReadings.foreign`; NaN where it was not asked)."""
        matches: list[Match | None] = [None] * len(detections)
        not_pieces = np.zeros(len(detections), bool)
        foreign = np.full(len(detections), np.nan, np.float32)
        rows = np.flatnonzero(np.isin(detections.kinds, ("card", "tile")))
        games = self._reader_games()
        if self.piece_reader is None or not games or len(rows) == 0:
            odds = np.full((len(detections), 1), np.nan)
            return detections, matches, not_pieces, odds, foreign
        reader = self.piece_reader
        readings = reader.read(frame, detections.boxes_xyxy[rows], games)
        odds = np.full((len(detections), len(reader.classes)), np.nan, np.float32)
        odds[rows] = readings.probabilities
        foreign[rows] = readings.foreign
        if self.config.drop_not_pieces is not None:
            not_pieces[rows] = readings.probabilities[:, 0] >= self.config.drop_not_pieces
            if self.config.keep_sure_pieces is not None:
                # the detector sure and the reader sure it is none: a disagreement, asked again
                unsure = detections.scores < self.config.keep_sure_pieces
                if self.config.drop_sure_not_pieces is not None:
                    unsure[rows] |= readings.probabilities[:, 0] >= self.config.drop_sure_not_pieces
                not_pieces &= unsure
            anchor = np.array([i is not None for i in readings.identities], bool)
            if self.config.near_faces_below is not None:
                anchor |= readings.probabilities[:, 0] < self.config.near_faces_below
            near = boxes_near(
                detections.boxes_xyxy, not_pieces, rows[anchor], self.config.keep_not_pieces_within
            )
            # a "no piece" box next to pieces may be a piece boxed badly (half on the table), or
            # one the reader misread: left unnamed, it refuses a photo that dropping it would
            # score wrongly
            if self.config.near_not_pieces_from is not None:
                sure = np.zeros(len(detections), bool)
                sure[rows] = readings.probabilities[:, 0] >= self.config.near_not_pieces_from
                sure &= ~self._face_at_piece_size(
                    frame, detections.boxes_xyxy, sure & near, rows[anchor], games
                )
                if self.config.near_sure_pieces is not None:
                    sure &= detections.scores < self.config.near_sure_pieces
                near &= ~sure
            not_pieces &= ~near
            if self.config.strayed_look is not None:
                strayed = not_pieces & (detections.scores >= self.config.strayed_look)
                detections, moved, again = self._strayed_boxes(
                    frame, detections, strayed, ~not_pieces, games
                )
                if again is not None:
                    readings = _replace_readings(readings, moved, again)
                    odds[rows] = readings.probabilities
                    foreign[rows] = readings.foreign
                    not_pieces[rows[moved]] = False
        identities = detections.identities.copy()
        scores = detections.identity_scores.copy()
        for k, row in enumerate(rows):
            identity = readings.identities[k]
            if identity is None:
                continue
            identities[row] = identity
            scores[row] = float(readings.scores[k])
            matches[int(row)] = _reader_match(reader, readings.probabilities[k])
        named = detections.with_fields(identities=identities, identity_scores=scores)
        return named, matches, not_pieces, odds, foreign

    def _strayed_boxes(
        self,
        frame: np.ndarray,
        detections: Detections,
        candidates: np.ndarray,
        kept: np.ndarray,
        games: tuple[str, ...],
    ) -> tuple[Detections, np.ndarray, PieceReadings | None]:
        """`strayed_look`: the `candidates` rows (bool, about to be dropped as no piece) at
        least `STRAYED_LEAST_AREA` of the median box of the `kept` cards and tiles (bool) are
        read again in their box moved by `STRAYED_SHIFT` of its size each way, each moved box
        lying less than `STRAYED_ON_OTHERS` on any other card's or tile's box (else it reads
        the piece beside it); a row with moved boxes the reader names (sure of one face) takes
        the surest (its corners moved with it). Returns the detections, (r,) bool over the card
        and tile rows, in order: which moved, and the reader's readings of the moved rows' new
        boxes, in order (None: none moved)."""
        rows = np.flatnonzero(np.isin(detections.kinds, ("card", "tile")))
        moved = np.zeros(len(rows), bool)
        tried = [k for k, row in enumerate(rows) if candidates[row]]
        if not tried or self.piece_reader is None:
            return detections, moved, None
        boxes = detections.boxes_xyxy.astype(np.float64)
        others = boxes[rows[~candidates[rows]]]
        pieces = boxes[rows[kept[rows]]]
        if len(pieces) == 0:
            return detections, moved, None
        # a box much smaller than a piece is a part of one, or a bit of the table's pattern
        least = STRAYED_LEAST_AREA * float(np.median(np.prod(pieces[:, 2:] - pieces[:, :2], 1)))
        shifts, moved_boxes, owners = [], [], []
        for k in tried:
            box = boxes[rows[k]]
            if np.prod(box[2:] - box[:2]) < least:
                continue
            for shift, shifted in _moved_off_others(box, others):
                shifts.append(shift)
                moved_boxes.append(shifted)
                owners.append(k)
        if not moved_boxes:
            return detections, moved, None
        readings = self.piece_reader.read(frame, np.asarray(moved_boxes, np.float32), games)
        new_boxes = detections.boxes_xyxy.copy()
        corners = detections.corners_px.copy()
        chosen = []
        for k in sorted(set(owners)):
            named = [
                n
                for n, owner in enumerate(owners)
                if owner == k and readings.identities[n] is not None
            ]
            if not named:
                continue
            best = max(named, key=lambda n: float(readings.scores[n]))
            row = rows[k]
            new_boxes[row] = np.asarray(moved_boxes[best], new_boxes.dtype)
            corners[row] = corners[row] + np.asarray(shifts[best], corners.dtype)
            moved[k] = True
            chosen.append(best)
        if not chosen:
            return detections, moved, None
        moved_detections = detections.with_fields(boxes_xyxy=new_boxes, corners_px=corners)
        return moved_detections, moved, _take_readings(readings, chosen)

    def _face_at_piece_size(
        self,
        frame: np.ndarray,
        boxes_xyxy: np.ndarray,
        candidates: np.ndarray,
        anchors: np.ndarray,
        games: tuple[str, ...],
    ) -> np.ndarray:
        """(n,) bool: the `candidates` rows whose box is larger than the median size of the
        `anchors` rows' boxes, and which, cut down to it about its own centre, the piece reader
        no longer finds `near_not_pieces_from` likely to show no piece. A box far larger than
        the piece in it (a tile and the cloth around it) reads as no piece; the piece-sized box
        reads it. Smaller boxes are left out: one on a tile's emblem, kept, was merged with the
        tile's own box as one piece, then set aside as too small, and the tile went uncounted."""
        found = np.zeros(len(boxes_xyxy), bool)
        limit = self.config.near_not_pieces_from
        if len(anchors) == 0 or limit is None or self.piece_reader is None:
            return found
        boxes = np.asarray(boxes_xyxy, np.float64)
        size = np.median(boxes[anchors, 2:] - boxes[anchors, :2], axis=0)
        larger = ((boxes[:, 2:] - boxes[:, :2]) >= size).all(axis=1)
        rows = np.flatnonzero(candidates & larger)
        if len(rows) == 0:
            return found
        centres = (boxes[rows, :2] + boxes[rows, 2:]) / 2
        resized = np.hstack([centres - size / 2, centres + size / 2]).astype(np.float32)
        odds = self.piece_reader.read(frame, resized, games).probabilities[:, 0]
        found[rows] = odds < limit
        return found

    def _odds_of_names(self, detections: Detections, odds: np.ndarray) -> np.ndarray:
        """(n,) the piece reader's odds of each row's name; NaN where a row is unnamed, its
        face is not one of the reader's, or the reader did not read it (or has other classes)."""
        named = np.full(len(detections), np.nan, np.float32)
        reader = self.piece_reader
        if reader is None or odds.shape[1] != len(reader.classes):
            return named
        for i, identity in enumerate(detections.identities):
            k = reader.class_index.get(str(identity)) if identity is not None else None
            if k is not None:
                named[i] = odds[i, k]
        return named

    def _veto(
        self, detections: Detections, matches: list[Match | None], odds: np.ndarray
    ) -> tuple[Detections, list[Match | None]]:
        """Gallery names the piece reader all but rules out (its odds of that face below
        `piece_reader_veto`) are withdrawn; rows it did not read (NaN odds) keep theirs."""
        limit = self.config.piece_reader_veto
        if limit is None:
            return detections, matches
        return _unnamed(detections, matches, self._odds_of_names(detections, odds) < limit)

    def _agreed(
        self, detections: Detections, matches: list[Match | None], odds: np.ndarray
    ) -> tuple[Detections, list[Match | None]]:
        """Unnamed pieces whose gallery best class is the piece reader's likeliest face, both
        at least as sure as `agreement` asks, named it (`odds`: the reader's, NaN: not read)."""
        reader = self.piece_reader
        if self.config.agreement is None or reader is None or odds.shape[1] != len(reader.classes):
            return detections, matches
        least_odds, least_similarity = self.config.agreement
        identities = detections.identities.copy()
        scores = detections.identity_scores.copy()
        corners = detections.corners_px.copy()
        matches = list(matches)
        for row, m in enumerate(matches):
            if identities[row] is not None or m is None or m.label is None or not m.candidates:
                continue
            p = odds[row]
            if not np.all(np.isfinite(p)):
                continue
            best = int(p.argmax())
            best_name, similarity = m.candidates[0]
            if (
                best == 0
                or p[best] < least_odds
                or similarity < least_similarity
                or best_name != m.label
                or best_name not in reader.classes[best]
            ):
                continue
            identities[row], scores[row] = best_name, float(similarity)
            matches[row] = replace(m, identity=best_name, score=float(similarity))
            # listed from the printed top-left, as the gallery lists the pieces it names
            corners[row] = printed_corners(corners[row], m.rotation)
        return (
            detections.with_fields(
                identities=identities, identity_scores=scores, corners_px=corners
            ),
            matches,
        )

    def face_reader(self, prefix: str) -> PieceReader:
        """The face reader of identity `prefix` (`FACE_READER_MODELS`), loaded once.

        Raises:
            ModelError: there is none for `prefix`, or its model cannot be loaded.
        """
        views = self.config.face_reader_views.get(prefix, 1)
        return self._loaded_reader(prefix, FACE_READER_MODELS.get(prefix), "face reader", views)

    def _loaded_reader(self, key: str, model: Path | None, what: str, views: int) -> PieceReader:
        """The reader `model` under `key` in the readers loaded so far (loaded at first use, to
        name only: `min_probability` 1), read in `views` quarter turns.

        Raises:
            ModelError: `model` is None (there is no such reader), or cannot be loaded.
        """
        if key not in self._face_readers:
            if model is None:
                raise ModelError(f"no {what} for {key.rpartition(':')[2]!r}")
            self._face_readers[key] = PieceReader(
                model,
                replace(self.config.piece_reader_config, min_probability=1.0, views=views),
            )
        return self._face_readers[key]

    def _read_faces(
        self,
        frame: np.ndarray,
        detections: Detections,
        matches: list[Match | None],
        odds: np.ndarray,
        prefix: str,
        limit: float,
    ) -> tuple[Detections, list[Match | None]]:
        """Pieces named a face of `prefix`, or that the piece reader finds at least
        `face_family` likely to show one, named by `prefix`'s face reader when it gives a face
        at least `limit`, else left unnamed (`PerceptionConfig.face_readers`)."""
        family = self._family_odds(odds, prefix)
        reader = self.piece_reader
        if family is None or reader is None:
            return detections, matches
        game = prefix.partition("/")[0]
        named = np.array([str(i).startswith(prefix) for i in detections.identities], bool)
        rows = np.flatnonzero(
            np.isin(detections.kinds, ("card", "tile"))
            & (named | (family >= self._face_family(prefix)))
        )
        if not len(rows):
            return detections, matches
        faces = self.face_reader(prefix)
        readings = faces.read(frame, detections.boxes_xyxy[rows], [game])
        identities = detections.identities.copy()
        scores = detections.identity_scores.copy()
        matches = list(matches)
        agree_from, agree_share = self.config.face_agreement.get(prefix, (np.inf, np.inf))
        named_odds = self._odds_of_names(detections, odds)
        seconded = self._seconded(frame, detections, rows, readings, prefix, limit)
        dispute = self.config.face_dispute.get(prefix, np.inf)
        pair = self.config.face_pair.get(prefix, np.inf)
        fusion = self.config.face_fusion.get(prefix)
        for k, row in enumerate(rows):
            p = readings.probabilities[k]
            best = int(p.argmax())
            if (best == 0 or p[best] < limit) and not seconded[k]:
                if best > 0 and p[best] >= pair:
                    top = int(np.nan_to_num(odds[row], nan=0.0).argmax())
                    if odds[row, top] >= pair and faces.classes[best][0] in reader.classes[top]:
                        # two readers of different crops, each fairly sure, name one face
                        identities[row] = faces.classes[best][0]
                        scores[row] = float(min(p[best], odds[row, top]))
                        matches[int(row)] = _reader_match(faces, p)
                        continue
                if named_odds[row] >= agree_from:
                    face = int(p[1:].argmax()) + 1
                    share = float(p[face] / max(float(p[1:].sum()), 1e-12))
                    if share >= agree_share and str(identities[row]) in faces.classes[face]:
                        continue  # both readers name it alike: the piece reader's name stands
                if fusion is not None and detections.scores[row] >= fusion[1]:
                    fused = fused_face_odds(p, odds[row], faces.classes, reader.class_index)
                    face = int(fused.argmax())
                    if face > 0 and fused[face] >= fusion[0]:
                        identities[row], scores[row] = faces.classes[face][0], float(fused[face])
                        matches[int(row)] = _reader_match(faces, fused)
                        continue
                identities[row], scores[row], matches[int(row)] = None, 0.0, None
                continue
            if named_odds[row] >= dispute and card_kind(faces.classes[best][0]) != card_kind(
                str(identities[row])
            ):  # the two readers see different cards: neither name is used, unless a third
                # reader sides with the piece reader
                box = detections.boxes_xyxy[row]
                if not self._referee_upholds(frame, box, str(identities[row]), prefix):
                    identities[row], scores[row], matches[int(row)] = None, 0.0, None
                continue
            identities[row], scores[row] = faces.classes[best][0], float(p[best])
            matches[int(row)] = _reader_match(faces, p)
        return detections.with_fields(identities=identities, identity_scores=scores), matches

    def _referee_upholds(self, frame: np.ndarray, box: np.ndarray, name: str, prefix: str) -> bool:
        """Whether the default piece reader (`face_dispute_referee`), asked about a piece its
        face reader and piece reader see as cards of different kinds, gives the piece
        reader's `name` at least as asked (False where no referee is set)."""
        least = self.config.face_dispute_referee.get(prefix)
        if least is None or self._own_default_reader:
            return False
        referee = self._loaded_reader("referee", DEFAULT_PIECE_MODEL, "referee reader", 1)
        column = referee.class_index.get(name)
        if column is None:
            return False
        odds = referee.read(frame, box[None], [prefix.partition("/")[0]])
        return float(odds.probabilities[0, column]) >= least

    def warp_reader(self, prefix: str) -> PieceReader:
        """The face-warp reader of identity `prefix` (`FACE_WARP_MODELS`), loaded once; it
        reads every warp in its four quarter turns (a quad may start at any corner).

        Raises:
            ModelError: there is none for `prefix`, or its model cannot be loaded.
        """
        model = FACE_WARP_MODELS.get(prefix)
        return self._loaded_reader(f"warp:{prefix}", model, "face-warp reader", 4)

    def _read_warps(
        self,
        frame: np.ndarray,
        detections: Detections,
        matches: list[Match | None],
        odds: np.ndarray,
        prefix: str,
        limit: float,
    ) -> tuple[Detections, list[Match | None]]:
        """`warp_readers`: unnamed pieces the piece reader finds at least `warp_family` likely
        to show a face of `prefix` are read from their warped quads and named the warp
        reader's face when it gives one at least `limit` (with `warp_seconds`, and the piece
        reader gives that face at least so much); the rest stay unnamed."""
        family = self._family_odds(odds, prefix)
        if family is None:
            return detections, matches
        least_family = self.config.warp_family.get(prefix, self._face_family(prefix))
        unnamed = np.array([i is None for i in detections.identities], bool)
        rows = np.flatnonzero(
            np.isin(detections.kinds, ("card", "tile")) & unnamed & (family >= least_family)
        )
        if not len(rows):
            return detections, matches
        reader = self.warp_reader(prefix)
        readings = reader.read_quads(frame, detections.corners_px[rows], [prefix.partition("/")[0]])
        second = self.config.warp_seconds.get(prefix)
        identities = detections.identities.copy()
        scores = detections.identity_scores.copy()
        matches = list(matches)
        for k, row in enumerate(rows):
            p = readings.probabilities[k]
            best = int(p.argmax())
            face = reader.classes[best]
            if best > 0 and p[best] >= limit and self._piece_reader_gives(odds[row], face, second):
                identities[row], scores[row] = face[0], float(p[best])
                matches[int(row)] = _reader_match(reader, p)
        return detections.with_fields(identities=identities, identity_scores=scores), matches

    def _piece_reader_gives(
        self, odds: np.ndarray, face: tuple[str, ...], least: float | None
    ) -> bool:
        """Whether the piece reader's `odds` (one row; NaN: not read) give `face` at least
        `least` (None: no second is asked for)."""
        if least is None:
            return True
        reader = self.piece_reader
        if reader is None or len(odds) != len(reader.classes) or not face:
            return False
        column = reader.class_index.get(face[0])
        return column is not None and bool(np.nan_to_num(odds[column]) >= least)

    def _read_seals(
        self,
        frame: np.ndarray,
        detections: Detections,
        matches: list[Match | None],
        odds: np.ndarray,
    ) -> tuple[Detections, list[Match | None]]:
        """`penalty_seals`: Dice King penalty cards checked, and unnamed likely ones named, by
        the value printed in their seal (`vision.penalty_seal.read_seal`)."""
        assert self.config.penalty_seals is not None
        least_score, least_margin, least_odds = self.config.penalty_seals
        family = self._family_odds(odds, PENALTY_PREFIX)
        if family is None:
            return detections, matches
        identities = detections.identities.copy()
        scores = detections.identity_scores.copy()
        matches = list(matches)
        for row in range(len(detections)):
            identity = identities[row]
            named = identity is not None and str(identity).startswith(PENALTY_PREFIX)
            if detections.kinds[row] != "card" or not (
                named or (identity is None and family[row] >= least_odds)
            ):
                continue
            seal = read_seal(frame, detections.corners_px[row])
            if seal is None or seal.score < least_score or seal.margin < least_margin:
                continue  # no whole seal in sight, or not sure: the readers' word stands
            if named:
                if identity not in seal.identities:  # the print says another value
                    identities[row], scores[row], matches[row] = None, 0.0, None
                continue
            identities[row], scores[row] = seal.identities[0], seal.score
            matches[row] = _companion_match(
                seal.score, seal.margin, ((seal.identities[0], seal.score),), seal.identities
            )
        return detections.with_fields(identities=identities, identity_scores=scores), matches

    def _family_odds(self, odds: np.ndarray, prefix: str) -> np.ndarray | None:
        """Each row's piece-reader odds of a face whose identity starts with `prefix`; None
        when the reader was not asked about the prefix's game (an enrolled game: its printing
        is not the companion art)."""
        reader = self.piece_reader
        if (
            reader is None
            or odds.shape[1] != len(reader.classes)
            or prefix.partition("/")[0] not in (self._reader_games() or ())
        ):
            return None
        columns = [
            k for k, group in enumerate(reader.classes) if group and group[0].startswith(prefix)
        ]
        return np.nan_to_num(odds[:, columns].sum(axis=1), nan=0.0)

    def _face_family(self, prefix: str) -> float:
        """`face_family` for `prefix`'s face reader."""
        least = self.config.face_family
        return least.get(prefix, 0.9) if isinstance(least, dict) else least

    def _seconded(
        self,
        frame: np.ndarray,
        detections: Detections,
        rows: np.ndarray,
        readings: PieceReadings,
        prefix: str,
        limit: float,
    ) -> np.ndarray:
        """(len(rows),) bool: the faces `prefix`'s reader gives under `limit` but at least as
        surely as `face_readers_agree` asks, which the other reader it names also reads as that
        face surely enough (the other reads only those boxes)."""
        seconded = np.zeros(len(rows), bool)
        rule = self.config.face_readers_agree.get(prefix)
        if rule is None:
            return seconded
        other_prefix, least, least_other = rule
        p = readings.probabilities
        best = p.argmax(axis=1)
        top = p[np.arange(len(rows)), best]
        asked = np.flatnonzero((best > 0) & (top < limit) & (top >= least))
        if not len(asked):
            return seconded
        faces = self.face_reader(prefix)
        other = self.face_reader(other_prefix)
        game = prefix.partition("/")[0]
        second = other.read(frame, detections.boxes_xyxy[rows[asked]], [game]).probabilities
        for k, q in zip(asked, second, strict=True):
            face = int(q.argmax())
            seconded[k] = (
                face > 0
                and q[face] >= least_other
                and other.classes[face][0] in faces.classes[int(best[k])]
            )
        return seconded

    def _match_gallery(
        self, frame: np.ndarray, detections: Detections, no_looks: np.ndarray | None = None
    ) -> tuple[Detections, list[Match | None]]:
        """Gallery matching, with the extra looks at what the corners given left unnamed (but
        the `no_looks` rows)."""
        identified, matches = self.identifier.identify_detailed(frame, detections, self.games)
        looks: list[Callable[[Detections], np.ndarray]] = []
        aspects = self.config.piece_aspects
        if self.config.second_look:

            def box_look(d: Detections) -> np.ndarray:
                quads = np.stack(
                    [
                        quad_in_box(frame, box, aspects[str(kind)])
                        for box, kind in zip(d.boxes_xyxy, d.kinds, strict=True)
                    ]
                )
                if self.refiner is None:
                    return quads
                quads = self.refiner.refine(frame, quads, [aspects[str(k)] for k in d.kinds])
                return quads if self.snapper is None else self.snapper.snap(frame, quads)

            looks.append(box_look)
        if self.config.outline_look:
            looks.append(
                lambda d: np.stack(
                    [
                        refine_quad(frame, quad, box, aspects[str(kind)])[0]
                        for quad, box, kind in zip(d.corners_px, d.boxes_xyxy, d.kinds, strict=True)
                    ]
                )
            )
        for look in looks:
            unsure = np.flatnonzero(
                np.isin(identified.kinds, ("card", "tile"))
                & np.array([i is None for i in identified.identities], bool)
                & (True if no_looks is None else ~no_looks)
            )
            if len(unsure) == 0:
                break
            # each look starts from the corners given (the outline refines those)
            retry = detections[unsure]
            quads = look(retry).astype(np.float32)
            again, again_matches = self.identifier.identify_detailed(
                frame, retry.with_fields(corners_px=quads), self.games
            )
            named = np.array([i is not None for i in again.identities], bool)
            if not named.any():
                continue
            rows = unsure[named]
            identified = _scatter(identified, rows, again[named])
            for row, k in zip(rows, np.flatnonzero(named), strict=True):
                matches[int(row)] = again_matches[int(k)]
        return identified, matches

    @property
    def identifier(self) -> Identifier:
        """The identifier of stage 3 (drawn at first use: the gallery takes about 2 s)."""
        if self._identifier is None:
            self._identifier = Identifier()
        return self._identifier

    @property
    def stages(self) -> tuple[tuple[str, Callable[..., Detections]], ...]:
        """(name, callable) of each stage, in order, for timing from outside."""
        return (
            ("detect", self.detect),
            ("read_dice", self.read_dice),
            ("rectify", self.rectify),
            ("identify", self.identify),
        )

    # --- whole frame -----------------------------------------------------------------------------
    def process(self, frame: np.ndarray, *, identify: bool = True) -> Detections:
        """Detections of one frame (uint8 BGR (H, W, 3); grey or 16-bit frames are converted);
        `identify` False stops before identification (a caller that identifies on its own).

        Raises:
            BadFrameError: the frame cannot be processed (see `check_frame`).
        """
        image = check_frame(frame, min_side=self.config.min_frame_side)
        detections = self.detect(image)
        detections = self.read_dice(image, detections)
        detections = self.rectify(image, detections)
        return self.identify(image, detections) if identify else detections


__all__ = [
    "PIECE_READER_MODES",
    "TOP_FACE_MODES",
    "Perception",
    "PerceptionConfig",
    "check_frame",
    "combine_readings",
    "distinct_pieces",
    "overlapping_pieces",
]
