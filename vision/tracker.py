"""Live tracking: stable observations of the table, explained by the rules, or asked about.

Every frame gives a `Reading` (a game reader's output) and the number of raw detections. The
tracker keeps the last *stable* observation: one seen unchanged, without problems and without a
hand over the table, for at least `TrackerConfig.stable_seconds` and `min_frames` frames. When a
new stable observation differs from the confirmed state's, the engine's `explain_states` is asked
for the legal action sequences that produce it:

- exactly one: it is applied (an ``applied`` event); when the state it leads to still waits
  for chance (cards being dealt, tiles being drawn: the camera has not seen all of the move), a
  ``pending`` event follows, so the user is told rather than left with a half-seen move;
- exactly one, after a stretch of `stable_seconds` or more that the tracker cannot account
  for (no hand seen, neither the confirmed table nor a stable reading: readings that failed
  or never stood still) ending in a hand or in this reading — an ``unseen`` event follows the
  ``applied`` one: a move may have ended there unread (a hand the hand test missed joins two
  moves into one such stretch), and the story the rules pick for what came after is the
  shortest one, not necessarily what happened (a Dice King player rerolling all six dice
  unseen looks the same as one first throw, but has one throw less left), so the user is told
  to check. Only with frames (the hand test marks the hands);
- exactly one, but the observation holds pieces the camera could not identify (its
  ``has_unknown``) where that move changed the table: a ``question`` with that one candidate,
  for the user to confirm (`TrackerConfig.confirm_unknown`; a move that leaves every such piece's
  place as it was, the game's `unknowns_kept`, is applied: a Dice King penalty card on top,
  unread from the tablet, asked about at every roll after the user had named it). The rules
  can always find some legal move behind a misread table: on rendered King's Breakfast games
  (5, tracked from pixels) a pile of stacked cards read as fewer cards was explained as a pile
  taken or an Emerald used, and applied silently in 4 of 5 games; every one of those tables
  showed an unidentified card;
- exactly one that the game's explain module's `confirm_first(path)` holds back (King's
  Breakfast: food taken from the king's area, which a pile read a card short looks like): a
  ``question`` with that one candidate, as above;
- none, and the game's explain module's `partial_view(state, observation)` holds (King's
  Breakfast: the confirmed table with a pile read short, every pile still seen): nothing moved,
  nothing is asked (a card under another that the detector missed is no move);
- none: when the game's explain module has `loose_explanations(state, observation, …)`,
  what it finds (Café: what explains a looser reading, `loosened`: new guests let be any tile,
  then the hands not seen; Dice King: a reroll the camera missed before a take; King's
  Breakfast: the move with piles read short, `partial_view` of where it leads) is offered as
  the question's candidates, never applied: a misread tile (two red flags at 12 px) or a hand
  read a tile short then costs the user one tap, not the whole move entered by hand;
- none or several: a ``question`` event lists the candidates and the tracker waits. Until the user
  answers (`answer`, `correct`), later stable observations are still tried against the confirmed
  state; one that is explained withdraws the question (a table caught half-way through a move).

Hands and arms (documented heuristic, two signals, either suffices):

1. with a frame: `hand_in_frame` finds an arm coming in from the frame's border: a region that
   differs from the table's background (`TableBackground`, a running average of the frames
   without a hand, at 160 px), touches the border, covers at least `skin_min_fraction` of the
   frame and holds some skin colour (YCrCb skin range, at least `skin_min_share` of the frame;
   a sleeve need not be skin, a hand is). Skin colour alone is not enough: a wooden or orange
   table is skin-coloured from edge to edge (on rendered tables 18 of 60 settled frames per game
   were "hands" that way, 0 of 60 against the background, while 172 of 180 hands were seen, 109
   by skin alone).
   Whatever is seen as a hand for `hand_background_seconds` becomes the background: an exposure
   change or an object left at the border stops counting as a hand then, and so does a hand
   resting that long. For the first `hand_background_seconds` a skin-coloured blob at the
   border counts as well (an arm already there when tracking starts must not become table at
   once): on a skin-coloured table the first observation so waits that long;
2. without one: any frame whose observation differs from the last stable frame, or whose number
   of detections differs by more than a detector's flicker (`TrackerConfig.count_slack`), is
   "activity". Activity never becomes stable by itself because a moving hand changes what is
   covered from frame to frame; and after activity, a table that looks unchanged is explained
   with at least one action (`visited=True`): an invisible move (a hidden draw, a pass, a reroll
   showing the same dice) happened under the hand.

A hand held perfectly still over the pieces for longer than `stable_seconds` without a frame to
test would look stable; what it hides then has to be explained by legal actions, which a hidden
pile rarely is, so it comes out as a question rather than a wrong state.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.readers import Reading

ExplainStates = Callable[..., list[tuple[tuple[Any, ...], Any]]]

EXPLAIN_MODULES: dict[str, str] = {
    "kings-breakfast": "engines.kings_breakfast.explain",
    "cafe-international": "engines.cafe_international.explain",
    "dice-king": "engines.dice_king.explain",
}


@dataclass(frozen=True)
class TrackerConfig:
    """Thresholds of the tracker.

    Attributes:
        stable_seconds: how long an observation must stay the same to count (≥ 0.5 s).
        min_frames: and in at least this many frames.
        skin_min_fraction: a region this large (fraction of the frame), changed from the
            background and touching the border, is an arm when it holds skin colour.
        skin_min_share: the skin colour an arm's region must hold (fraction of the frame).
        background_change: a pixel differs from the background by this much (sum of the YCrCb
            channels' absolute differences, 0–765) to count as changed.
        background_seconds: time constant of the background's running average (frames
            without a hand only).
        hand_background_seconds: whatever is seen as a hand this long becomes the background;
            also the warm-up, when a skin-coloured blob alone is a hand.
        count_slack: two frames' raw detection counts are "the same" when they differ by at
            most this many, or by `count_share` of the larger: a detector flickering on one of
            sixty small pieces is not a hand moving pieces (the observation must still be equal).
        count_share: see `count_slack`.
        confirm_unknown: the one explanation of a table with unidentified pieces is asked
            about (a question with one candidate), not applied.
    """

    stable_seconds: float = 0.5
    min_frames: int = 3
    skin_min_fraction: float = 0.01
    skin_min_share: float = 0.003
    background_change: float = 20.0
    background_seconds: float = 0.3
    hand_background_seconds: float = 4.0
    count_slack: int = 2
    count_share: float = 0.05
    confirm_unknown: bool = True


@dataclass(frozen=True)
class Event:
    """Something the app should show.

    Attributes:
        kind: ``applied`` (actions applied), ``pending`` (after ``applied``: the state waits
            for chance outcomes the camera has not seen yet), ``unseen`` (after ``applied``:
            a stretch of unread or unsettled table came before it, so moves may have been
            missed and the applied story is a guess to check), ``question`` (none or several
            explanations: ask), ``withdrawn`` (an open question was resolved by a later
            observation).
        actions: the applied actions (``applied``).
        candidates: the candidate action sequences (``question``; empty: nothing explains it).
        observation: the stable observation concerned.
    """

    kind: str
    actions: tuple[Any, ...] = ()
    candidates: tuple[tuple[Any, ...], ...] = ()
    observation: Any = None


SMALL_WIDTH = 160  # the hand test's working width: arms are large, noise averages out
SKIN_LOW, SKIN_HIGH = (40, 138, 77), (250, 173, 127)  # YCrCb skin range


def small_ycrcb(frame: np.ndarray) -> np.ndarray:
    """`frame` (uint8 BGR) at the hand test's working size, as float32 YCrCb."""
    size = (SMALL_WIDTH, max(1, SMALL_WIDTH * frame.shape[0] // frame.shape[1]))
    small = cv2.resize(frame, size, interpolation=cv2.INTER_AREA)
    return cv2.cvtColor(small, cv2.COLOR_BGR2YCrCb).astype(np.float32)


def hand_in_frame(
    frame: np.ndarray,
    config: TrackerConfig | None = None,
    background: np.ndarray | None = None,
) -> bool:
    """Whether a hand or arm is in `frame` (uint8 BGR, (H, W, 3)).

    With `background` (`small_ycrcb` of the table without hands, e.g. `TableBackground.image`):
    a region that differs from it, touches the frame's border (arms come in from the edge), is
    at least `skin_min_fraction` of the frame and holds `skin_min_share` of skin colour. Without
    one: a skin-coloured blob that large touching the border (a skin-coloured table is one).
    """
    return _arm_in(small_ycrcb(frame), config or TrackerConfig(), background)


def _arm_in(ycrcb: np.ndarray, config: TrackerConfig, background: np.ndarray | None) -> bool:
    """`hand_in_frame` on a frame already made `small_ycrcb`."""
    skin = cv2.inRange(ycrcb, SKIN_LOW, SKIN_HIGH)
    if background is not None and background.shape == ycrcb.shape:
        changed = np.abs(ycrcb - background).sum(axis=2) >= config.background_change
        region = changed.astype(np.uint8) * 255
    else:
        region = skin
    region = cv2.morphologyEx(region, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(region)
    h, w = region.shape
    for label in range(1, n):
        x, y, bw, bh, area = stats[label]
        touches = x <= 1 or y <= 1 or x + bw >= w - 1 or y + bh >= h - 1
        if not touches or area < config.skin_min_fraction * h * w:
            continue
        if np.count_nonzero(skin[labels == label]) >= config.skin_min_share * h * w:
            return True
    return False


@dataclass
class TableBackground:
    """The table as it looks without hands: a running average of `small_ycrcb` frames.

    `update` tests a frame against the background (`hand_in_frame`), then learns from it only
    when no hand was seen (a frame with a hand blended in would leave a ghost of the arm, itself
    a "hand" on a skin-coloured table). Whatever stays flagged for `hand_background_seconds`
    (an exposure change, an object left at the border, a hand resting that long) becomes the
    background at once.
    """

    config: TrackerConfig = field(default_factory=TrackerConfig)
    image: np.ndarray | None = None
    _time_s: float | None = None
    _start_s: float | None = None
    _hand_since_s: float | None = None

    def update(self, time_s: float, frame: np.ndarray) -> bool:
        """Whether `frame` shows a hand; the background then learns from it."""
        config = self.config
        current = small_ycrcb(frame)
        hand = _arm_in(current, config, self.image)
        if self._start_s is None:
            self._start_s = time_s
        if time_s - self._start_s < config.hand_background_seconds:
            # warming up: the background may still hold an arm that was there from the start
            hand = hand or _arm_in(current, config, None)
        if hand and self._hand_since_s is None:
            self._hand_since_s = time_s
        elif not hand:
            self._hand_since_s = None
        stuck = hand and time_s - (self._hand_since_s or time_s) >= config.hand_background_seconds
        if self.image is None or self.image.shape != current.shape or stuck:
            self.image = current
            self._hand_since_s = None
        elif not hand and self._time_s is not None:
            dt = max(0.0, time_s - self._time_s)
            alpha = 1.0 - float(np.exp(-dt / max(config.background_seconds, 1e-6)))
            self.image += alpha * (current - self.image)
        self._time_s = time_s
        return hand


@dataclass
class Tracker:
    """Follows one game from a confirmed state through stable, explained observations.

    Attributes:
        game: the contract game name.
        state: the confirmed engine state.
        config: thresholds.
        explain_states: the engine's explainer (default: the game's `explain.explain_states`);
            one with a `loose(before, after, *, visited)` method also runs the game's
            `loose_explanations` (the app's `companion_app.explainer.ProcessExplainer`).
    """

    game: str
    state: Any
    config: TrackerConfig = field(default_factory=TrackerConfig)
    explain_states: ExplainStates | None = None
    question: Event | None = None
    _candidate: Any = None
    _candidate_since: float = 0.0
    _candidate_frames: int = 0
    _stable: Any = None
    _stable_count: int = -1
    _activity: bool = False
    _history: list[Any] = field(default_factory=list)
    _question_states: list[Any] = field(default_factory=list)
    # the last frame the tracker could account for (a hand, the confirmed table, a new stable
    # reading) and the last frame seen: a stretch of `stable_seconds` between them that ends
    # in a hand or in a new stable reading may have held a move's end unread (see `unseen`)
    _accounted_s: float | None = None
    _last_frame_s: float | None = None
    _missed: bool = False
    _background: TableBackground = field(init=False)
    last_hand: bool = False

    def __post_init__(self) -> None:
        self._background = TableBackground(self.config)
        if self.explain_states is None:
            module = importlib.import_module(EXPLAIN_MODULES[self.game])
            self.explain_states = module.explain_states

    # --- frames ----------------------------------------------------------------------------------
    def update(
        self,
        time_s: float,
        reading: Reading,
        n_detections: int,
        frame: np.ndarray | None = None,
    ) -> list[Event]:
        """Feed one frame: its time, the reader's result, the number of raw detections, and
        optionally the frame itself (for the skin test). Returns the events it caused."""
        hand = frame is not None and self._background.update(time_s, frame)
        self.last_hand = hand
        usable = reading.ok and not hand
        key = (reading.observation, n_detections) if usable else None
        if frame is not None:
            if hand and self._unaccounted(self._last_frame_s):
                self._missed = True
            if hand or self._same(key, (self._stable, self._stable_count)):
                self._accounted_s = time_s
            self._last_frame_s = time_s
        if key is None or not self._same(key, self._candidate):
            self._candidate, self._candidate_since, self._candidate_frames = key, time_s, 0
        self._candidate_frames += 1
        stable = (self._stable, self._stable_count)
        if not self._same(key, stable):
            self._activity = True
        if key is None:
            return []
        stable_long = time_s - self._candidate_since >= self.config.stable_seconds
        if not (stable_long and self._candidate_frames >= self.config.min_frames):
            return []
        if self._same(key, stable) and not self._activity:
            return []
        # the readings before this one, since the last frame accounted for, never stood still
        # (votes still changing, a hand the hand test missed): a move may have ended there
        if frame is not None and self._unaccounted(self._candidate_since):
            self._missed = True
        self._accounted_s = time_s
        # the candidate's first count anchors the comparisons (flicker compared with flicker
        # could drift out of the allowance step by step)
        return self._on_stable(reading.observation, self._candidate[1])

    def _same(self, key: Any, other: Any) -> bool:
        """Same observation, and raw detection counts within the flicker allowance."""
        if key is None or other is None:
            return key is other
        (observation, count), (other_observation, other_count) = key, other
        if observation != other_observation:
            return False
        allowed = max(self.config.count_slack, self.config.count_share * max(count, other_count))
        return abs(count - other_count) <= allowed

    def _unaccounted(self, until_s: float | None) -> bool:
        """Whether the frames from the last one accounted for until `until_s` span
        `stable_seconds` or more (readings that never stood still, no hand seen)."""
        if until_s is None or self._accounted_s is None:
            return False
        return until_s - self._accounted_s >= self.config.stable_seconds

    def _on_stable(self, observation: Any, n_detections: int) -> list[Event]:
        visited = self._activity and self._stable is not None
        first = self._stable is None
        missed, self._missed = self._missed, False
        self._stable, self._stable_count, self._activity = observation, n_detections, False
        assert self.explain_states is not None
        found = self.explain_states(self.state, observation, visited=visited and not first)
        events: list[Event] = []
        unsure = self.config.confirm_unknown and bool(getattr(observation, "has_unknown", False))
        loosened = False
        if not found and not first and self._partial_view(observation):
            return events  # the confirmed table with a pile read short: nothing moved
        if not found and not first:
            # nothing explains what was read: what a misread or a missed step would hide is
            # offered to the user (one tap instead of entering the move), never applied
            found = list(self._loose_explanations(observation, visited))
            loosened = bool(found)
        if unsure and len(found) == 1 and self._unknowns_kept(found[0][1], observation):
            unsure = False  # the move left what the camera could not identify as it was
        if len(found) == 1 and self._confirm_first(found[0][0]):
            unsure = True  # a move a misread table looks like: the user confirms it
        if len(found) == 1 and not (unsure and found[0][0]) and not loosened:
            actions, state = found[0]
            if self.question is not None:
                events.append(Event("withdrawn", observation=observation))
                self.question = None
            if actions:
                self._history.append(self.state)
                self.state = state
                events.append(Event("applied", actions=tuple(actions), observation=observation))
                if self._waits_for_chance(state):
                    events.append(Event("pending", observation=observation))
                if missed:
                    events.append(Event("unseen", observation=observation))
            return events
        if found or self.question is None:
            found = [*found, *self._variants(found)]
            self.question = Event(
                "question",
                candidates=tuple(tuple(path) for path, _ in found),
                observation=observation,
            )
            self._question_states = [state for _, state in found]
            events.append(self.question)
        return events

    def _hook(self, name: str) -> Callable[..., Any] | None:
        """The game's explain module's optional function `name`, or None when it has none."""
        return getattr(importlib.import_module(EXPLAIN_MODULES[self.game]), name, None)

    def _variants(self, found: Sequence[tuple[Any, Any]]) -> Sequence[tuple[Any, Any]]:
        """The game's `unseen_throws(found)`, if any: what a question's candidates would be
        with a step the camera cannot see between two glances (a Dice King reroll), offered
        beside them."""
        variants = self._hook("unseen_throws")
        return () if variants is None or not found else variants(found)

    def _loose_explanations(self, observation: Any, visited: bool) -> Sequence[tuple[Any, Any]]:
        """The game's `loose_explanations(state, observation, visited=…, explain=…)`, if any:
        what explains a looser reading of `observation`, or one with a step the camera missed;
        its searches go through `explain_states` (the app's worker process)."""
        in_worker = getattr(self.explain_states, "loose", None)
        if callable(in_worker):  # the explainer runs the whole loose search (a worker process)
            return list(in_worker(self.state, observation, visited=visited))
        loose = self._hook("loose_explanations")
        if loose is None:
            return ()
        return loose(self.state, observation, visited=visited, explain=self.explain_states)

    def _partial_view(self, observation: Any) -> bool:
        """The game's `partial_view(state, observation)`, if any: whether nothing explains
        `observation` only because it shows the confirmed table with pieces missed."""
        partial = self._hook("partial_view")
        return partial is not None and bool(partial(self.state, observation))

    def _confirm_first(self, path: Sequence[Any]) -> bool:
        """The game's `confirm_first(path)`, if any: whether that one explanation is asked
        about rather than applied (a move a misread table looks like)."""
        confirm = self._hook("confirm_first")
        return confirm is not None and bool(confirm(path))

    def _unknowns_kept(self, after: Any, observation: Any) -> bool:
        """The game's `unknowns_kept(state, after, observation)`, if any: whether the move to
        `after` left every unidentified piece's place as it was."""
        kept = self._hook("unknowns_kept")
        return kept is not None and bool(kept(self.state, after, observation))

    def _waits_for_chance(self, state: Any) -> bool:
        """A deal or a draw under way: the rules wait for chance outcomes."""
        from engines import game_rules

        rules = game_rules(self.game)
        return bool(rules.is_chance_node(state)) and not rules.is_over(state)

    # --- the user's answers ---------------------------------------------------------------------
    def answer(self, index: int) -> list[Event]:
        """The user picked candidate `index` of the open question. Returns ``[pending]`` when
        the picked state waits for a deal or a draw the camera has not seen yet (told as after
        an ``applied`` event), else nothing."""
        if self.question is None or not 0 <= index < len(self.question.candidates):
            raise ValueError(f"no candidate {index} to pick")
        observation = self.question.observation
        self._history.append(self.state)
        self.state = self._question_states[index]
        self.question = None
        if self._waits_for_chance(self.state):
            return [Event("pending", observation=observation)]
        return []

    def correct(self, state: Any) -> None:
        """The user set the state by hand (nothing explained what was seen)."""
        self._history.append(self.state)
        self.state = state
        self.question = None

    @property
    def candidate_states(self) -> Sequence[Any]:
        """The state each candidate of the open question leads to (same order)."""
        return tuple(self._question_states) if self.question is not None else ()

    @property
    def history(self) -> Sequence[Any]:
        """The confirmed states before the current one, oldest first."""
        return tuple(self._history)


__all__ = [
    "EXPLAIN_MODULES",
    "Event",
    "TableBackground",
    "Tracker",
    "TrackerConfig",
    "hand_in_frame",
    "small_ycrcb",
]
