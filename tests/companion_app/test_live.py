"""The live loop: results arrive, slow perception skips frames, errors are counted."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np

from companion_app.live import LiveLoop, PerceptionResult, no_perception
from vision.frames import FolderSource


def _folder(tmp_path: Path, count: int = 5) -> Path:
    for index in range(count):
        image = np.full((16, 24, 3), 10 * index, np.uint8)
        cv2.imwrite(str(tmp_path / f"{index:02d}.png"), image)
    return tmp_path


def _wait_for(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.005)
    return condition()


def test_results_arrive_for_frames_in_order(tmp_path: Path) -> None:
    seen: list[int] = []
    results: list[PerceptionResult] = []

    def perceive(frame: np.ndarray) -> int:
        seen.append(int(frame[0, 0, 0]))
        return int(frame[0, 0, 0])

    loop = LiveLoop(
        FolderSource(_folder(tmp_path)), perceive, max_source_fps=200, on_result=results.append
    )
    loop.start()
    assert loop.join(timeout=10)
    loop.stop()
    assert seen == sorted(seen) and seen[-1] == 40  # never out of order; the last frame is seen
    assert all(r.value == seen[i] for i, r in enumerate(results))
    stats = loop.stats()
    assert stats.frames_read == 5 and stats.perception_latency_ms is not None


def test_slow_perception_skips_frames_but_not_the_preview(tmp_path: Path) -> None:
    gate = threading.Event()

    def slow(frame: np.ndarray) -> None:
        gate.wait(5)

    loop = LiveLoop(FolderSource(_folder(tmp_path), loop=True), slow, max_source_fps=500)
    loop.start()
    assert _wait_for(lambda: loop.stats().frames_read > 20)  # the reader runs on
    gate.set()
    loop.stop()
    stats = loop.stats()
    assert stats.frames_perceived < stats.frames_read


def test_perception_errors_are_counted_and_skipped(tmp_path: Path) -> None:
    def broken(frame: np.ndarray) -> None:
        raise RuntimeError("model missing")

    loop = LiveLoop(FolderSource(_folder(tmp_path, 3)), broken, max_source_fps=200)
    loop.start()
    assert loop.join(timeout=10)
    loop.stop()
    stats = loop.stats()
    assert stats.frames_perceived == 0 and "model missing" in (stats.last_error or "")


def test_perceive_gets_frames_it_must_not_change(tmp_path: Path) -> None:
    frames: list[np.ndarray] = []
    loop = LiveLoop(FolderSource(_folder(tmp_path, 2)), frames.append, max_source_fps=200)
    loop.start()
    assert loop.join(timeout=10)
    latest = loop.latest_frame()
    loop.stop()
    assert latest is not None and latest[1] is frames[-1]  # one array shared, never copied twice


def test_pause_stops_reading_and_preview_fps_is_measured(tmp_path: Path) -> None:
    loop = LiveLoop(FolderSource(_folder(tmp_path), loop=True), no_perception, max_source_fps=500)
    loop.start()
    assert _wait_for(lambda: loop.stats().frames_read > 3)
    loop.set_paused(True)
    time.sleep(0.05)
    before = loop.stats().frames_read
    time.sleep(0.05)
    assert loop.paused and loop.stats().frames_read == before
    loop.set_paused(False)
    for _ in range(3):
        loop.note_preview_shown()
        time.sleep(0.002)
    loop.stop()
    assert loop.stats().preview_fps is not None


def _clip(tmp_path: Path, frames: int = 4) -> Path:
    path = tmp_path / "clip.mp4"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 10.0, (32, 24))
    for index in range(frames):
        writer.write(np.full((24, 32, 3), 60 * index, np.uint8))
    writer.release()
    return path


def test_clip_source_repeats_each_frame_and_loops(tmp_path: Path) -> None:
    from companion_app.live import ClipSource

    source = ClipSource(_clip(tmp_path), repeat=3)
    assert source.fps == 30.0
    means = [float(source.read().mean()) for _ in range(15)]  # type: ignore[union-attr]
    source.close()
    levels = [round(m / 60) for m in means]
    assert levels == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0, 0]  # 4 frames ×3, then again
    assert [source.clip_position(i) % 4 for i in range(15)] == levels
    assert source.read() is None  # closed


def test_clip_source_hands_out_fresh_arrays(tmp_path: Path) -> None:
    from companion_app.live import ClipSource

    with ClipSource(_clip(tmp_path), repeat=2) as source:
        first, second = source.read(), source.read()
        assert first is not None and second is not None and first is not second
        first[:] = 255
        assert float(second.mean()) < 10


def test_perception_share_rests_the_worker(tmp_path: Path) -> None:
    """With a share of 0.5 the worker rests as long as each call took (on the loop's clock)."""
    import pytest

    with pytest.raises(ValueError, match="perception_share"):
        LiveLoop(FolderSource(_folder(tmp_path)), perception_share=0.0)
    now = [0.0]
    rests: list[float] = []

    class RecordingEvent(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:
            if timeout is not None and threading.current_thread().name == "live-perception":
                rests.append(timeout)
            return super().wait(0.001 if timeout is not None else None)

    def perceive(frame: np.ndarray) -> None:
        now[0] += 0.25  # this call "took" 0.25 s on the loop's clock

    loop = LiveLoop(
        FolderSource(_folder(tmp_path), loop=True),
        perceive,
        max_source_fps=None,
        clock=lambda: now[0],
        perception_share=0.5,
    )
    loop._stop = RecordingEvent()  # noqa: SLF001 (observe the worker's rests)
    loop.start()
    _wait_for(lambda: len(rests) >= 3)
    loop.stop()
    assert rests[:3] == [0.25, 0.25, 0.25]
