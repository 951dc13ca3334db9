"""The live loop: frames in one thread, perception in another, the preview never waits.

```
source ──reader thread──▶ latest frame ──▶ preview (the UI polls `latest_frame`, ≥ 20 FPS)
                               │
                               └──▶ perception worker: perceive(frame) ──▶ latest result
```
The reader keeps only the newest frame; the worker always takes the newest frame it has not seen,
so a slow `perceive` skips frames instead of delaying the preview. `perceive` is pluggable: a
callable ``perceive(frame) -> result`` taking a `uint8` BGR (H, W, 3) frame it must not modify.
Until the perception pipeline lands, `no_perception` stands in. A `perceive` that raises is
logged and the frame skipped (the only broad ``except`` of the app's live path).

Timing is measured from outside: the preview FPS is what the UI reports through
`note_preview_shown`, the perception latency is frame capture to result ready.

`ClipSource` plays a recorded clip (the demo's bundled clips) at a camera's frame rate: each
stored frame is handed out `repeat` times, as fresh arrays, so the preview and the perception
worker carry the same load as with a camera; `clip_position(frame_index)` maps a live frame index
back to the clip's own frame.

Public names: `LiveLoop`, `LiveStats`, `PerceptionResult`, `Perceive`, `no_perception`,
`ClipSource`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.frames import FrameSource, FrameSourceError, VideoSource

Perceive = Callable[[np.ndarray], Any]
_LOG = logging.getLogger(__name__)
_WINDOW = 60  # samples kept for the moving FPS and latency figures
PERCEPTION_SHARE = 0.5  # the app's worker rests as long as it works: the preview keeps its pace
CLIP_REPEAT = 3  # the 10 FPS demo clips feed the live loop like a 30 FPS camera


def no_perception(frame: np.ndarray) -> None:
    """The placeholder perception: sees nothing (the perception issue replaces it)."""
    return None


class ClipSource(FrameSource):
    """A looping video clip, each of its frames handed out `repeat` times (frame-rate
    conversion: a 10 FPS clip with ``repeat=3`` feeds the live loop like a 30 FPS camera).

    Raises:
        FrameSourceError: the clip cannot be read.
    """

    def __init__(self, path: str | Path, repeat: int = 3, loop: bool = True) -> None:
        super().__init__()
        if repeat < 1:
            raise FrameSourceError(f"clip repeat must be at least 1, got {repeat}")
        self._video = VideoSource(path, loop=loop)
        self.repeat = repeat
        self._frame: np.ndarray | None = None
        self._left = 0
        clip_fps = self._video.fps
        self._fps = None if clip_fps is None else clip_fps * repeat
        self.description = f"demo clip {Path(path).name}"

    @property
    def fps(self) -> float | None:
        """The rate the live loop should read at (the clip's own rate times `repeat`)."""
        return self._fps

    def clip_position(self, frame_index: int) -> int:
        """The clip frame (counted over loops) that live frame `frame_index` shows."""
        return frame_index // self.repeat

    def _read(self) -> np.ndarray | None:
        if self._left <= 0 or self._frame is None:
            self._frame = self._video.read()
            if self._frame is None:
                return None
            self._left = self.repeat
        self._left -= 1
        return self._frame.copy()

    def _release(self) -> None:
        self._video.close()


@dataclass(frozen=True)
class PerceptionResult:
    """What `perceive` returned for one frame, and how long after capture it was ready."""

    frame_index: int
    value: Any
    latency_s: float


@dataclass(frozen=True)
class LiveStats:
    """Moving figures of the live loop (None until there is enough to measure)."""

    preview_fps: float | None
    source_fps: float | None
    perception_fps: float | None
    perception_latency_ms: float | None
    frames_read: int
    frames_perceived: int
    perception_errors: int
    last_error: str | None
    ended: bool


def _rate(stamps: deque[float]) -> float | None:
    if len(stamps) < 2 or stamps[-1] <= stamps[0]:
        return None
    return (len(stamps) - 1) / (stamps[-1] - stamps[0])


class LiveLoop:
    """Reads a `FrameSource` and runs `perceive` on it in background threads.

    Args:
        source: where frames come from (closed by `stop`).
        perceive: called on frames in the worker thread; its results are kept.
        max_source_fps: the reader's pace for files and folders (a camera paces itself);
            None reads as fast as the source gives frames.
        on_result: called in the worker thread with every `PerceptionResult`.
        perception_share: at most this share of the wall clock goes to `perceive` (after a
            call that took d seconds the worker rests d·(1/share − 1)), so that on a tablet
            with few cores the preview keeps its frame rate; 1.0 never rests.
    """

    def __init__(
        self,
        source: FrameSource,
        perceive: Perceive = no_perception,
        *,
        max_source_fps: float | None = 30.0,
        on_result: Callable[[PerceptionResult], None] | None = None,
        clock: Callable[[], float] = time.perf_counter,
        perception_share: float = 1.0,
    ) -> None:
        if not 0.0 < perception_share <= 1.0:
            raise ValueError(f"perception_share must be in (0, 1], got {perception_share}")
        self._rest_factor = 1.0 / perception_share - 1.0
        self.source = source
        self.perceive = perceive
        self.on_result = on_result
        self._period = 1.0 / max_source_fps if max_source_fps else 0.0
        self._clock = clock
        self._lock = threading.Lock()
        self._frame_ready = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._paused = threading.Event()
        self._frame: np.ndarray | None = None
        self._frame_index = -1
        self._frame_time = 0.0
        self._result: PerceptionResult | None = None
        self._read_stamps: deque[float] = deque(maxlen=_WINDOW)
        self._shown_stamps: deque[float] = deque(maxlen=_WINDOW)
        self._perceived_stamps: deque[float] = deque(maxlen=_WINDOW)
        self._latencies: deque[float] = deque(maxlen=_WINDOW)
        self._perceived = 0
        self._errors = 0
        self._last_error: str | None = None
        self._ended = False
        self._threads: list[threading.Thread] = []

    # ---- control ---
    def start(self) -> None:
        """Start the reader and the perception worker."""
        if self._threads:
            return
        self._threads = [
            threading.Thread(target=self._read_loop, name="live-reader", daemon=True),
            threading.Thread(target=self._perceive_loop, name="live-perception", daemon=True),
        ]
        for thread in self._threads:
            thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        """Stop both threads and close the source."""
        self._stop.set()
        with self._frame_ready:
            self._frame_ready.notify_all()
        for thread in self._threads:
            thread.join(timeout)
        self._threads = []
        self.source.close()

    def join(self, timeout: float | None = None) -> bool:
        """Wait until a finite source has ended and its last frame was perceived.

        Returns whether both threads finished within `timeout` (a camera or a looping source
        never finishes by itself: use `stop`).
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        for thread in self._threads:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            thread.join(left)
        return not any(thread.is_alive() for thread in self._threads)

    @property
    def paused(self) -> bool:
        """Whether reading is paused (the preview holds its last frame)."""
        return self._paused.is_set()

    def set_paused(self, paused: bool) -> None:
        """Pause or resume reading (and so perception)."""
        if paused:
            self._paused.set()
        else:
            self._paused.clear()

    # ---- what the UI reads ---
    def latest_frame(self) -> tuple[int, np.ndarray] | None:
        """The newest frame and its index (None before the first). Do not modify the array."""
        with self._lock:
            if self._frame is None:
                return None
            return self._frame_index, self._frame

    def latest_result(self) -> PerceptionResult | None:
        """The newest perception result (None before the first)."""
        with self._lock:
            return self._result

    def note_preview_shown(self) -> None:
        """The UI calls this each time it puts a new frame on screen (for the preview FPS)."""
        with self._lock:
            self._shown_stamps.append(self._clock())

    def stats(self) -> LiveStats:
        """The current moving figures."""
        with self._lock:
            latency = (
                1000.0 * float(np.median(np.array(self._latencies))) if self._latencies else None
            )
            return LiveStats(
                preview_fps=_rate(self._shown_stamps),
                source_fps=_rate(self._read_stamps),
                perception_fps=_rate(self._perceived_stamps),
                perception_latency_ms=latency,
                frames_read=self._frame_index + 1,
                frames_perceived=self._perceived,
                perception_errors=self._errors,
                last_error=self._last_error,
                ended=self._ended,
            )

    # ---- threads ---
    def _read_loop(self) -> None:
        next_time = self._clock()
        while not self._stop.is_set():
            if self._paused.is_set():
                self._stop.wait(0.02)
                next_time = self._clock()
                continue
            try:
                frame = self.source.read()
            except FrameSourceError as error:
                _LOG.warning("frame skipped: %s", error)
                with self._lock:
                    self._last_error = str(error)
                continue
            if frame is None:
                with self._frame_ready:
                    self._ended = True
                    self._frame_ready.notify_all()
                return
            now = self._clock()
            with self._frame_ready:
                self._frame = frame
                self._frame_index += 1
                self._frame_time = now
                self._read_stamps.append(now)
                self._frame_ready.notify_all()
            if self._period:
                next_time = max(next_time + self._period, now - self._period)
                delay = next_time - self._clock()
                if delay > 0:
                    self._stop.wait(delay)

    def _perceive_loop(self) -> None:
        seen = -1
        while not self._stop.is_set():
            with self._frame_ready:
                while not self._stop.is_set() and (
                    self._frame_index == seen or self._frame is None
                ):
                    if self._ended:
                        return
                    self._frame_ready.wait(0.1)
                if self._stop.is_set():
                    return
                frame, index, captured = self._frame, self._frame_index, self._frame_time
            seen = index
            assert frame is not None
            began = self._clock()
            try:
                value = self.perceive(frame)
            except Exception as error:  # the top of the live loop: log, skip the frame
                _LOG.warning("perception failed on frame %d: %s", index, error)
                with self._lock:
                    self._errors += 1
                    self._last_error = f"{type(error).__name__}: {error}"
                continue
            done = self._clock()
            result = PerceptionResult(index, value, done - captured)
            with self._lock:
                self._result = result
                self._perceived += 1
                self._perceived_stamps.append(done)
                self._latencies.append(done - captured)
            if self.on_result is not None:
                self.on_result(result)
            if self._rest_factor > 0.0:
                self._stop.wait((done - began) * self._rest_factor)


__all__ = [
    "CLIP_REPEAT",
    "PERCEPTION_SHARE",
    "ClipSource",
    "LiveLoop",
    "LiveStats",
    "Perceive",
    "PerceptionResult",
    "no_perception",
]
