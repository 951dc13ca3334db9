"""Recognition: the perception worker's per-frame loop, from pixels to explained game changes.

```
frame → Perception.process (detector + die reader)
      → Identifier.identify_detailed, restricted to the game (cards, tiles; candidates kept)
      → VoteTracker (one identity per physical piece over frames)
      → the player's corrections (a tapped piece keeps the identity the player gave it)
      → the game's reader (zones / board registration → an Observation, or problems)
      → vision.tracker.Tracker (stable observations explained by the rules, or a question)
```

`Recognition` is the ``perceive`` callable of `companion_app.live.LiveLoop`: it runs in the
worker thread and returns, per frame, a dict in the `detect --json` shape (``objects`` with
boxes, identities, confidences and ``candidates``) plus ``problems``, ``seen`` and
``observation_ok``, which the Table screen draws over the preview. Tracker events are queued;
the UI thread takes them with `take_events` and applies them to the session (an ``applied``
event's actions) or asks the player (a ``question``: `answer` or `correct`). When the session
changes by a tap (a manual choice, undo), the UI calls `sync` so the tracker starts from the
session's state. Every public method is thread-safe.

`load_recognition` builds one for a game, or says why it cannot (no detector model yet): a
missing model never stops the app, the manual panel keeps working.

Plain Python; no Kivy. Public names: `Recognition`, `RecognitionUnavailable`,
`load_recognition`, `detector_model_path`.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from companion_app.viewmodels.corrections import MATCH_IOU, CorrectionsViewModel, iou
from vision.detections import Detections
from vision.readers import Reading
from vision.tracker import Event, Tracker

CAFE_LAYOUT_JSON = (
    Path(__file__).resolve().parents[2] / "engines/cafe_international/data/reference_layout.json"
)


class RecognitionUnavailable(RuntimeError):
    """Recognition cannot run here (a model is missing); the message says what to do."""


MODEL_ENV = "TABLE_COMPANION_DETECTOR"


# The games whose live table runs the live table's detector (`vision.detector.LIVE_MODEL`, v16);
# the others run the default one (v14). Café: v16 finds more tiles on rendered positions (0.917
# -> 0.944) but on the tracked games' tables it missed tiles of the players' hands, which the
# tracker then took for tiles not yet drawn: tracked pixel games (5 whole games, 20 still
# frames) asked 48.0 questions a game against v14's 20.6 (all final states right either way).
LIVE_DETECTOR_GAMES = ("kings-breakfast", "dice-king")


def detector_model_path(game: str | None = None) -> Path:
    """The detector model the live table of `game` uses: ``$TABLE_COMPANION_DETECTOR`` when
    set, else the live table's detector (``models/live_detector.onnx``) for the games of
    `LIVE_DETECTOR_GAMES` and the default one (``models/detector.onnx``) for the others (and
    for None: the Settings line names the model every game has)."""
    override = os.environ.get(MODEL_ENV, "").strip()
    if override:
        return Path(override).expanduser()
    from vision import detector  # cheap: onnxruntime is imported only by `Detector()`

    return Path(detector.LIVE_MODEL if game in LIVE_DETECTOR_GAMES else detector.DEFAULT_MODEL)


def table_key(game: str, state: Any) -> Any:
    """What the camera can know of `state`: two states with the same key look the same on the
    table (King's Breakfast: the public state; Dice King: the state without the hidden deck
    order, the dice in any order; Café International: the state itself)."""
    if game == "kings-breakfast":
        from engines.kings_breakfast.explain import public_key

        return public_key(state)
    if game == "dice-king":
        from engines.dice_king.explain import state_key

        key = state_key(state)
        # the dice are a set on the table: the order they were rolled in is not seen
        return (*key[:6], tuple(sorted(key[6])), *key[7:])
    return state


def _reader_for(
    game: str,
    n_players: int,
    *,
    zones: Any = None,
    layout: Any = None,
    layout_json: dict[str, Any] | None = None,
    printed: bool = False,
    identifier: Any = None,
) -> Callable[[np.ndarray, Detections], Reading]:
    """The game's reader as ``read(frame, detections) -> Reading``.

    Café International with an `identifier` on the companion board (not `printed`): once the
    board is registered, every chair and stool is read from the frame itself
    (`vision.readers.cafe_slots`; small tiles on the board are where the detector is weakest);
    the detections add the players' hands. A board without an empty-board reference (a traced
    layout of another printing) is read from detections only.
    """
    if game == "kings-breakfast":
        from vision.readers import kings_breakfast as kb

        def read_kb(frame: np.ndarray, detections: Detections) -> Reading:
            return kb.read_table(detections, (frame.shape[1], frame.shape[0]), zones)

        return read_kb
    if game == "dice-king":
        from vision.readers import dice_king as dk

        def read_dk(frame: np.ndarray, detections: Detections) -> Reading:
            return dk.read_table(
                detections,
                (frame.shape[1], frame.shape[0]),
                n_players,
                zones,
                min_die_score=LIVE_MIN_DIE_SCORE,
            )

        return read_dk
    from vision.readers import cafe_international as ci

    registration: list[Any] = [None]  # the board does not move: registered once, then reused
    layout_data = layout_json or json.loads(CAFE_LAYOUT_JSON.read_text(encoding="utf-8"))
    slot_reader = None
    # slots are compared with the companion art: only the companion board (found by its
    # markers) looks like it; a printed board of the user's own is read from detections
    if identifier is not None and not printed:
        from vision.readers.cafe_slots import SlotReader

        try:
            slot_reader = SlotReader(layout_data, identifier)
        except ValueError:  # no empty-board reference for this layout: detections only
            slot_reader = None

    def read_ci(frame: np.ndarray, detections: Detections) -> Reading:
        reading, registration[0] = ci.read_frame(
            frame,
            detections,
            layout,
            layout_data,
            n_players=n_players,
            registration=registration[0],
            printed=printed,
            slot_reader=slot_reader,
        )
        return reading

    return read_ci


class Recognition:
    """Frames of one game → what is recognised, and tracker events for the session.

    Args:
        game: the contract game name.
        state: the session's current engine state (the tracker starts there).
        n_players: players at the table.
        process: frame → `Detections` (the perception pipeline's ``process``).
        identify: ``(frame, detections) -> (detections, matches)`` restricted to the game.
        read: ``(frame, detections) -> Reading`` (the game's reader).
        corrections: the player's corrections, applied before reading.
        clock: seconds, for the tracker's stability rule.
        hand_test: pass frames to the tracker's skin test (hands over the table).
        explain_states: the tracker's rule search (default: the game's, in this process; the
            app passes a `companion_app.explainer.ProcessExplainer`).
    """

    def __init__(
        self,
        game: str,
        state: Any,
        n_players: int,
        *,
        process: Callable[[np.ndarray], Detections],
        identify: Callable[[np.ndarray, Detections], tuple[Detections, list[Any]]] | None,
        read: Callable[[np.ndarray, Detections], Reading],
        corrections: CorrectionsViewModel | None = None,
        clock: Callable[[], float] = time.monotonic,
        hand_test: bool = True,
        explain_states: Any = None,
    ) -> None:
        from vision.voting import VoteTracker

        self.game = game
        self.n_players = n_players
        self._process = process
        self._identify = identify
        self._read = read
        self.corrections = corrections or CorrectionsViewModel(game)
        self._clock = clock
        self._hand_test = hand_test
        self._lock = threading.Lock()
        # events have their own lock: the UI takes them at every preview tick and must not wait
        # for the tracker, whose explanation search can take a few hundred milliseconds
        self._events_lock = threading.Lock()
        self._votes = VoteTracker()
        self._tracker = Tracker(game, state, explain_states=explain_states)
        self._explainer = explain_states
        self._events: list[Event] = []
        self.stage_ms: dict[str, float] = {}

    # ---- the worker thread ---
    def __call__(self, frame: np.ndarray) -> dict[str, Any]:
        """Recognise one frame (uint8 BGR); returns the overlay's dict (see the module notes)."""
        times: dict[str, float] = {}
        start = time.perf_counter()
        detections = self._process(frame)
        times["detect"] = time.perf_counter() - start
        matches: list[Any] = [None] * len(detections)
        if self._identify is not None and len(detections):
            mark = time.perf_counter()
            detections, matches = self._identify(frame, detections)
            times["identify"] = time.perf_counter() - mark
        with self._lock:
            detections = self._votes.update(detections)
            detections = self._corrected(detections)
        # The reader (the Café board's slots take 100+ ms) runs outside the lock: the UI thread
        # takes events under it at every preview tick and must not wait for a whole reading.
        # Only this worker thread calls the reader, so its own state needs no lock.
        mark = time.perf_counter()
        reading = self._read(frame, detections)
        times["read"] = time.perf_counter() - mark
        with self._lock:
            mark = time.perf_counter()
            events = self._tracker.update(
                self._clock(), reading, len(detections), frame if self._hand_test else None
            )
            times["track"] = time.perf_counter() - mark
            self.stage_ms = {k: 1000.0 * v for k, v in times.items()}
        with self._events_lock:
            self._events.extend(events)
        objects = detections.to_objects()
        for item, match in zip(objects, matches, strict=True):
            if match is not None:
                from vision.identify import candidates_json

                item["candidates"] = candidates_json(match)
        return {
            "width": int(frame.shape[1]),
            "height": int(frame.shape[0]),
            "objects": objects,
            "observation_ok": reading.ok,
            "problems": list(reading.problems),
            "seen": reading.seen,
        }

    def _corrected(self, detections: Detections) -> Detections:
        """The player's corrections win over what was recognised (same kind, same place)."""
        if not self.corrections.corrections or not len(detections):
            return detections
        identities = detections.identities.copy()
        scores = detections.identity_scores.copy()
        values = detections.die_values.copy()
        colours = detections.die_colours.copy()
        value_scores = detections.die_value_scores.copy()
        for i in range(len(detections)):
            box = [float(v) for v in detections.boxes_xyxy[i]]
            for correction in self.corrections.corrections:
                if correction.kind != detections.kinds[i]:
                    continue
                if iou(list(correction.box), box) < MATCH_IOU:
                    continue
                if correction.kind == "die":
                    values[i] = int(correction.identity[:-1])
                    colours[i] = correction.identity[-1]
                    value_scores[i] = 1.0
                else:
                    identities[i] = correction.identity
                    scores[i] = 1.0
        return detections.with_fields(
            identities=identities,
            identity_scores=scores,
            die_values=values,
            die_colours=colours,
            die_value_scores=value_scores,
        )

    # ---- the UI thread ---
    def take_events(self) -> list[Event]:
        """The tracker events since the last call (oldest first)."""
        with self._events_lock:
            events, self._events = self._events, []
            return events

    @property
    def question(self) -> Event | None:
        """The tracker's open question (None when there is none)."""
        with self._lock:
            return self._tracker.question

    def candidate_states(self) -> tuple[Any, ...]:
        """The state each candidate of the open question leads to."""
        with self._lock:
            return tuple(self._tracker.candidate_states)

    def answer(self, index: int) -> tuple[Any, ...]:
        """The player picked candidate `index`; returns its actions (apply them to the session).
        When the picked move waits for a deal or a draw, a ``pending`` event is queued.

        Raises:
            ValueError: no open question, or no such candidate.
        """
        with self._lock:
            question = self._tracker.question
            if question is None or not 0 <= index < len(question.candidates):
                raise ValueError(f"no candidate {index} to pick")
            actions = tuple(question.candidates[index])
            told = self._tracker.answer(index)
        if told:  # a half-seen move: the UI says so when it next takes the events
            with self._events_lock:
                self._events.extend(told)
        return actions

    def sync(self, state: Any) -> None:
        """The session's state changed by hand (a tap, undo, a correction): follow it."""
        with self._lock:
            if self._tracker.state != state:
                self._tracker.correct(state)

    @property
    def state(self) -> Any:
        """The tracker's confirmed state."""
        with self._lock:
            return self._tracker.state

    def close(self) -> None:
        """Release what the recognition holds (the rule search's worker process)."""
        close = getattr(self._explainer, "close", None)
        if close is not None:
            close()


# The piece reader (`vision.piece_reader`, about 1 ms a piece on one thread) on the live table,
# per game. King's Breakfast and Café: stacked cards and 12-15 px hand tiles the gallery leaves
# unnamed are named by it. Rendered King's Breakfast frames (3 games, every 6th move, 221
# cards): found cards named 100 -> 180 of 196, wrong 2 -> 2; tracked pixel games (800 x 600,
# seeds 8,000,000+): King's Breakfast 3 x 30 moves 10.3 -> 9.3 questions a game; Café 3 x 30
# moves 4.67 -> 2.67, 5 whole games 14.2 -> 11.4 (half-seen moves told 5.0 -> 0.4 a game);
# final states all right, none silently wrong. Dice King: off (20 whole games 5.30 -> 5.45
# questions a game, its dice are the bottleneck), where it cost frames: demo previews 18.0-21.5
# FPS with it, 21.9-23.0 without, on this 2-core machine. Photos and `detect` always use it.
LIVE_PIECE_READER: dict[str, str] = {
    "kings-breakfast": "first",
    "cafe-international": "first",
    "dice-king": "off",
}


# Dice King's rolling area is looked at again, enlarged this much, with this margin around the
# zone: from the tablet's whole-table view (800 x 600) dice are about 13 px wide, and the
# detector found 26 of 144 dice in 24 rendered tables (seeds 8,000,000-3); with the zoom 143
# (115 read right). Dice only: the zoom named no more cards (cards 40 px wide are found).
DICE_ZOOM = 2.0
DICE_ZOOM_MARGIN = 0.25
DICE_ZOOM_KINDS = ("die",)
# Café International's tiles are looked for again in the whole frame enlarged this much (at
# most to 1600 px): the players' hands lie off the board, tiles about 12-15 px wide from the
# tablet's view (800 x 600), and a hand read a tile short cannot be explained (CI-17's draws).
# Settled readings equal to the truth, 10 moves of seed 8,000,000: 0 -> 8. Tracked pixel games
# (5, with the engine chaining two turns seen as one change): questions a game 19.4 -> 16.2;
# detection and dice 144 -> 261 ms a perceived frame (one thread).
CAFE_ZOOM = 2.0
# A die in the rolling area read less sure than this refuses the live reading: any six values
# are a legal throw, so the rules cannot catch a misread die. 13 px dice read right 0.80 of
# the time, and of the dice kept at 0.8 only 4 % are wrong (8 of 210, 48 rendered tables).
# Tracked pixel games of Dice King (10, seeds 8,000,000+, dice zoom on): questions a game 10.0
# -> 6.6, games with a silently wrong move 1 -> 1 (a 4 read as 1 at 0.975).
LIVE_MIN_DIE_SCORE = 0.8


# The live detector's (`vision.detector.LIVE_MODEL`) thresholds per game where they differ from
# `DetectorConfig`'s 0.35. Dice King: on some eval-split cloths (a yellow polka dot) it boxed
# bits of bare table at 0.37-0.47, in a kingdom zone, so the reading had two face-up cards
# there and the table went unread for the rest of the game. Tracked pixel games (20 whole
# games, seeds 8,000,000+, 20 final frames): at 0.35 questions a game 4.25, final state right
# 95 %; at 0.5 (cards and the tiles read as cards) 5.65 and 100 % (v14 at 0.35: 6.25, 100 %).
# Rendered live positions (24): cards found 1.000 either way, precision 0.945 -> 0.983.
LIVE_SCORE_THRESHOLDS: dict[str, dict[str, float]] = {
    "dice-king": {"card": 0.5, "tile": 0.5, "die": 0.35},
}


def live_perception_config(game: str, zones: Any = None) -> Any:
    """The `vision.pipeline.PerceptionConfig` of the live table of `game` (the app and the
    tracked-games benchmark share it); `zones` (`vision.readers.zones.Zones`) place Dice King's
    dice zoom on the rolling area (None: no zoom)."""
    from vision.corner_refiner import CornerRefinerConfig
    from vision.corner_snap import CornerSnapConfig
    from vision.detector import DetectorConfig
    from vision.pipeline import PerceptionConfig
    from vision.readers.photos import PIECE_KIND
    from vision.top_face import TopFaceConfig

    detector: dict[str, Any] = {}  # the DetectorConfig fields that differ: thresholds, zooms
    if game in LIVE_SCORE_THRESHOLDS:
        detector["score_thresholds"] = dict(LIVE_SCORE_THRESHOLDS[game])
    if game == "cafe-international":
        detector |= {
            "zoom_regions": ((0.0, 0.0, 1.0, 1.0),),
            "zoom_region_factor": CAFE_ZOOM,
            "zoom_region_kinds": ("tile",),
        }
    if zones is not None and "dice" in zones.polygons:
        detector |= {
            "zoom_regions": (zones.bounds("dice", DICE_ZOOM_MARGIN),),
            "zoom_region_factor": DICE_ZOOM,
            "zoom_region_kinds": DICE_ZOOM_KINDS,
            "zoom_regions_aspect": zones.aspect,
        }
    # one thread: the other core draws the preview; no second or outline look (3.5 ms a piece
    # and more): the app votes over frames instead
    return PerceptionConfig(
        detector=DetectorConfig(threads=1, **detector),
        corner_refiner=CornerRefinerConfig(rounds=1, threads=1),
        corner_snap=CornerSnapConfig(threads=1),
        top_face_reader=TopFaceConfig(threads=1, views=1),
        # two readers naming different values make an unsure die (refused under
        # LIVE_MIN_DIE_SCORE): dice scored >= 0.8 in 48 rendered tablet views, 210 with 8
        # wrong -> 195 with 3 wrong
        top_face_disagreement=0.5,
        second_look=False,
        outline_look=False,
        piece_reader=LIVE_PIECE_READER.get(game, "off"),
        # one game's pieces are of one kind (the detector mixes them up when they are small),
        # and a piece boxed twice is one piece: tracked pixel games (seeds 8,000,000+, 20 final
        # frames), questions a game 20.6 -> 18.4 (King's Breakfast, 5 games), 23.5 -> 13.0
        # (Café, 2), 33 -> 12 (Dice King, 3); final states all right, none silently wrong
        pieces_as=PIECE_KIND.get(game),
        duplicate_overlap=0.6,
    )


def load_recognition(
    game: str,
    state: Any,
    n_players: int,
    *,
    corrections: CorrectionsViewModel | None = None,
    demo: bool = False,
    detector_model: Path | None = None,
    printed_board: bool = False,
    layout_json: dict[str, Any] | None = None,
) -> Recognition:
    """The full recognition of `game`, with the user's zones (the defaults in the demo) and,
    for Café International, the user's board layout (`layout_json`; None: the reference).

    Raises:
        RecognitionUnavailable: the detector model is missing or cannot be loaded.
    """
    zones = None
    layout = getattr(state, "layout", None)
    if game in ("kings-breakfast", "dice-king"):
        from vision.readers.zones import default_zones, load_zones

        zones = (
            default_zones(game, n_players=n_players)
            if demo
            else load_zones(game, n_players=n_players)
        )
    path = detector_model or detector_model_path(game)
    if not path.is_file():
        raise RecognitionUnavailable(f"no detector model at {path}")
    try:
        from vision.gallery import default_gallery, load_gallery
        from vision.identify import Identifier
        from vision.pipeline import Perception

        config = live_perception_config(game, zones)
        identifier = Identifier(default_gallery([game]) if demo else load_gallery([game]))
        perception = Perception(config, detector_model=path, identifier=identifier, games=[game])
    except (ImportError, ValueError) as error:  # ModelError is a ValueError
        raise RecognitionUnavailable(str(error).splitlines()[0]) from None

    def process(frame: np.ndarray) -> Detections:
        return perception.process(frame, identify=False)  # identified below, timed apart

    def identify(frame: np.ndarray, detections: Detections) -> tuple[Detections, list[Any]]:
        return perception.identify_detailed(frame, detections)

    read = _reader_for(
        game,
        n_players,
        zones=zones,
        layout=layout,
        layout_json=layout_json,
        printed=printed_board,
        identifier=identifier,
    )
    from companion_app.explainer import ProcessExplainer

    return Recognition(
        game,
        state,
        n_players,
        process=process,
        identify=identify,
        read=read,
        corrections=corrections,
        explain_states=ProcessExplainer(game),
    )


__all__ = [
    "Recognition",
    "MODEL_ENV",
    "RecognitionUnavailable",
    "detector_model_path",
    "LIVE_DETECTOR_GAMES",
    "load_recognition",
]
