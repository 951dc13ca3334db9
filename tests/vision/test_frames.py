"""Frame sources on small generated files: folders, videos, cameras that are not there."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.frames import (
    CameraNotFoundError,
    CameraSource,
    EmptyFolderError,
    FolderSource,
    FrameSourceError,
    UnreadableImageError,
    UnreadableVideoError,
    VideoSource,
    open_source,
)


def _image(value: int, shape: tuple[int, int] = (24, 32)) -> np.ndarray:
    image = np.zeros((*shape, 3), np.uint8)
    image[:, :, 0] = value
    image[:, :, 2] = 255 - value
    return image


def _write_folder(folder: Path, values: list[int]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for index, value in enumerate(values):
        cv2.imwrite(str(folder / f"frame_{index:03d}.png"), _image(value))


def _write_video(path: Path, count: int) -> Path:
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (32, 24))
    assert writer.isOpened()
    for index in range(count):
        writer.write(_image(40 * index))
    writer.release()
    return path


def test_folder_yields_sorted_bgr_frames(tmp_path: Path) -> None:
    _write_folder(tmp_path / "shots", [10, 20, 30])
    (tmp_path / "shots" / "notes.txt").write_text("not an image")
    with FolderSource(tmp_path / "shots") as source:
        frames = list(source)
    assert [int(frame[0, 0, 0]) for frame in frames] == [10, 20, 30]
    assert all(f.dtype == np.uint8 and f.shape == (24, 32, 3) for f in frames)
    assert source.fps is None


def test_folder_loops_when_asked(tmp_path: Path) -> None:
    _write_folder(tmp_path, [1, 2])
    source = FolderSource(tmp_path, loop=True)
    values = [int(source.read()[0, 0, 0]) for _ in range(5)]  # type: ignore[index]
    assert values == [1, 2, 1, 2, 1]


def test_frames_are_fresh_arrays(tmp_path: Path) -> None:
    _write_folder(tmp_path, [5])
    source = FolderSource(tmp_path, loop=True)
    first = source.read()
    assert first is not None
    first[:] = 0  # the caller may scribble on its frame ...
    second = source.read()
    assert second is not None and int(second[0, 0, 0]) == 5  # ... without harming the source


def test_empty_and_missing_folders(tmp_path: Path) -> None:
    with pytest.raises(EmptyFolderError, match="no image in folder"):
        FolderSource(tmp_path)
    with pytest.raises(EmptyFolderError, match="not found"):
        FolderSource(tmp_path / "missing")


def test_unreadable_image_in_folder(tmp_path: Path) -> None:
    (tmp_path / "broken.png").write_bytes(b"not a png")
    source = FolderSource(tmp_path)
    with pytest.raises(UnreadableImageError, match="broken.png"):
        source.read()


def test_video_reads_every_frame_and_loops(tmp_path: Path) -> None:
    path = _write_video(tmp_path / "clip.avi", 4)
    with VideoSource(path) as video:
        frames = list(video)
        assert video.fps == pytest.approx(10.0, rel=0.01)
    assert len(frames) == 4
    assert all(f.dtype == np.uint8 and f.shape == (24, 32, 3) for f in frames)
    looping = VideoSource(path, loop=True)
    assert sum(looping.read() is not None for _ in range(9)) == 9
    looping.close()
    looping.close()  # closing twice is harmless
    assert looping.read() is None


def test_unreadable_video(tmp_path: Path) -> None:
    with pytest.raises(UnreadableVideoError, match="not found"):
        VideoSource(tmp_path / "missing.mp4")
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 64)
    with pytest.raises(UnreadableVideoError, match="cannot read video"):
        VideoSource(bad)


def test_camera_not_found() -> None:
    with pytest.raises(CameraNotFoundError, match="must be 0 or more"):
        CameraSource(-1)
    with pytest.raises(CameraNotFoundError, match="camera 97 not found"):
        CameraSource(97)


def test_open_source_dispatches(tmp_path: Path) -> None:
    _write_folder(tmp_path / "f", [3])
    video = _write_video(tmp_path / "v.avi", 2)
    assert isinstance(open_source(str(tmp_path / "f")), FolderSource)
    assert isinstance(open_source(video), VideoSource)
    with pytest.raises(CameraNotFoundError):
        open_source("97")
    with pytest.raises(FrameSourceError, match="no camera, video or folder"):
        open_source(str(tmp_path / "nothing"))
    assert issubclass(FrameSourceError, ValueError)  # the cli turns these into exit 2


class _FakeCapture:
    """A camera that offers one mode: it takes the asked size when it has it, else 640 × 480."""

    def __init__(self, modes: set[tuple[int, int]]) -> None:
        self.modes: set[tuple[int, int]] = modes
        self.asked: dict[int, int] = {}
        self.size = (640, 480)

    def isOpened(self) -> bool:  # noqa: N802 (cv2's name)
        return True

    def set(self, prop: int, value: float) -> bool:
        self.asked[prop] = int(value)
        want = (
            self.asked.get(cv2.CAP_PROP_FRAME_WIDTH, self.size[0]),
            self.asked.get(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1]),
        )
        if want in self.modes:
            self.size = want
        return True

    def get(self, prop: int) -> float:
        return float(
            {cv2.CAP_PROP_FRAME_WIDTH: self.size[0], cv2.CAP_PROP_FRAME_HEIGHT: self.size[1]}.get(
                prop, 0
            )
        )

    def read(self) -> tuple[bool, np.ndarray]:
        return True, np.zeros((self.size[1], self.size[0], 3), np.uint8)

    def release(self) -> None:
        pass


def test_a_camera_is_asked_for_1280_by_720_and_says_what_it_delivers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import vision.frames as frames

    hd = _FakeCapture({(640, 480), (1280, 720)})
    monkeypatch.setattr(frames, "_quietly_open", lambda index: hd)
    camera = CameraSource(0)
    frame = camera.read()
    assert camera.resolution == (1280, 720)
    assert frame is not None and frame.shape == (720, 1280, 3)
    small = _FakeCapture({(640, 480)})  # a camera without the mode keeps its own
    monkeypatch.setattr(frames, "_quietly_open", lambda index: small)
    assert CameraSource(0).resolution == (640, 480)
    default = _FakeCapture({(640, 480), (1280, 720)})
    monkeypatch.setattr(frames, "_quietly_open", lambda index: default)
    assert CameraSource(0, resolution=None).resolution == (640, 480) and not default.asked
    with pytest.raises(FrameSourceError, match="resolution"):
        CameraSource(0, resolution=(0, 720))
