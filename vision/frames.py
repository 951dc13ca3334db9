"""Frame sources: a camera, a video file or a folder of images, behind one small interface.

Every source yields `uint8` BGR frames of shape (H, W, 3) and never hands out an array it keeps
(each frame is a fresh array the caller may keep or modify). `open_source` turns what a user typed
(``"0"``, ``"clip.mp4"``, ``"shots/"``) into the right source. Failures raise one small exception
family, `FrameSourceError`, with a one-line lower-case message naming the source.

Public names: `FrameSource`, `CameraSource`, `VideoSource`, `FolderSource`, `open_source`,
`FrameSourceError`, `CameraNotFoundError`, `UnreadableVideoError`, `EmptyFolderError`,
`UnreadableImageError`, `IMAGE_SUFFIXES`, `CAMERA_RESOLUTION`.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

import cv2
import numpy as np

IMAGE_SUFFIXES: frozenset[str] = frozenset(
    {".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"}
)


class FrameSourceError(ValueError):
    """A frame source cannot be opened or read; the message is one line naming the source."""


class CameraNotFoundError(FrameSourceError):
    """No camera answers at the given index."""


class UnreadableVideoError(FrameSourceError):
    """The video file is missing or cannot be decoded."""


class EmptyFolderError(FrameSourceError):
    """The folder holds no image file."""


class UnreadableImageError(FrameSourceError):
    """An image file in a folder cannot be decoded."""


def _as_bgr(frame: np.ndarray) -> np.ndarray:
    """Return `frame` as a fresh contiguous uint8 BGR (H, W, 3) array."""
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if frame.dtype != np.uint8:
        frame = cv2.convertScaleAbs(frame)
    return np.ascontiguousarray(frame).copy()


class FrameSource:
    """Base of every source: `read()` gives the next frame or None at the end.

    Sources are iterable and context managers; `close()` is safe to call twice. `read` is
    thread-safe (a lock serialises access to the underlying reader).
    """

    description: str = "source"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._closed = False

    def read(self) -> np.ndarray | None:
        """The next frame, `uint8` BGR (H, W, 3), or None when the source has ended."""
        with self._lock:
            if self._closed:
                return None
            return self._read()

    def _read(self) -> np.ndarray | None:
        raise NotImplementedError

    @property
    def fps(self) -> float | None:
        """The source's nominal frame rate, or None when it has none (folders)."""
        return None

    def close(self) -> None:
        """Release the underlying device or file."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self._release()

    def _release(self) -> None:
        return None

    def __iter__(self) -> Iterator[np.ndarray]:
        while (frame := self.read()) is not None:
            yield frame

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.description}>"


class _CaptureSource(FrameSource):
    """A source backed by `cv2.VideoCapture` (cameras and video files)."""

    def __init__(self, capture: cv2.VideoCapture, loop: bool) -> None:
        super().__init__()
        self._capture = capture
        self._loop = loop

    @property
    def fps(self) -> float | None:
        value = float(self._capture.get(cv2.CAP_PROP_FPS) or 0.0)
        return value if value > 0 else None

    def _read(self) -> np.ndarray | None:
        ok, frame = self._capture.read()
        if not ok and self._loop:
            self._capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
            ok, frame = self._capture.read()
        if not ok or frame is None:
            return None
        return _as_bgr(frame)

    def _release(self) -> None:
        self._capture.release()


def _quietly_open(index: int) -> cv2.VideoCapture:
    """Open a camera without OpenCV's multi-line warnings when it is not there."""
    log = getattr(cv2, "utils", None) and getattr(cv2.utils, "logging", None)
    if log is None:
        return cv2.VideoCapture(index)
    previous = log.getLogLevel()
    log.setLogLevel(log.LOG_LEVEL_SILENT)
    try:
        return cv2.VideoCapture(index)
    finally:
        log.setLogLevel(previous)


# Most camera drivers start at 640 × 480, where the far side of a game table leaves cards 20–30
# px wide, too few to tell similar faces apart; 1280 × 720 is offered by nearly every webcam and
# tablet camera. The camera picks its nearest mode; `CameraSource.resolution` says which.
CAMERA_RESOLUTION: tuple[int, int] = (1280, 720)


class CameraSource(_CaptureSource):
    """A live camera by index (0 is the first camera), asked for `resolution` (width, height;
    None: the driver's default). `resolution` afterwards holds what the camera delivers."""

    def __init__(self, index: int, resolution: tuple[int, int] | None = CAMERA_RESOLUTION) -> None:
        if index < 0:
            raise CameraNotFoundError(f"camera index must be 0 or more, got {index}")
        if resolution is not None and (min(resolution) < 1 or len(resolution) != 2):
            raise FrameSourceError(f"camera resolution must be two sizes >= 1, got {resolution}")
        capture = _quietly_open(index)
        if not capture.isOpened():
            capture.release()
            raise CameraNotFoundError(f"camera {index} not found")
        if resolution is not None:
            capture.set(cv2.CAP_PROP_FRAME_WIDTH, float(resolution[0]))
            capture.set(cv2.CAP_PROP_FRAME_HEIGHT, float(resolution[1]))
        super().__init__(capture, loop=False)
        self.resolution = (
            int(capture.get(cv2.CAP_PROP_FRAME_WIDTH)),
            int(capture.get(cv2.CAP_PROP_FRAME_HEIGHT)),
        )
        self.description = f"camera {index}"


class VideoSource(_CaptureSource):
    """A video file, read from the start; with `loop`, it starts again at the end."""

    def __init__(self, path: str | Path, loop: bool = False) -> None:
        path = Path(path)
        if not path.is_file():
            raise UnreadableVideoError(f"video file '{path}' not found")
        capture = cv2.VideoCapture(str(path))
        ok = capture.isOpened()
        if ok:
            ok, _ = capture.read()
            capture.set(cv2.CAP_PROP_POS_FRAMES, 0)
        if not ok:
            capture.release()
            raise UnreadableVideoError(f"cannot read video '{path}'")
        super().__init__(capture, loop=loop)
        self.path = path
        self.description = f"video {path.name}"


class FolderSource(FrameSource):
    """The image files of a folder in sorted name order; with `loop`, it starts again at the end."""

    def __init__(self, path: str | Path, loop: bool = False) -> None:
        super().__init__()
        path = Path(path)
        if not path.is_dir():
            raise EmptyFolderError(f"image folder '{path}' not found")
        self.paths: tuple[Path, ...] = tuple(
            sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())
        )
        if not self.paths:
            raise EmptyFolderError(f"no image in folder '{path}'")
        self.path = path
        self._loop = loop
        self._next = 0
        self.description = f"folder {path.name} ({len(self.paths)} images)"

    def _read(self) -> np.ndarray | None:
        if self._next >= len(self.paths):
            if not self._loop:
                return None
            self._next = 0
        image_path = self.paths[self._next]
        self._next += 1
        frame = cv2.imread(str(image_path), cv2.IMREAD_COLOR)
        if frame is None:
            raise UnreadableImageError(f"cannot read image '{image_path}'")
        return _as_bgr(frame)


def open_source(spec: str | int | Path, loop: bool = False) -> FrameSource:
    """Open what a user typed: a camera index (``0``), a video file, or a folder of images.

    Raises:
        FrameSourceError: (a subclass naming the problem) nothing usable at `spec`.
    """
    if isinstance(spec, int):
        return CameraSource(spec)
    text = str(spec).strip()
    if text.isdigit():
        return CameraSource(int(text))
    path = Path(text).expanduser()
    if path.is_dir():
        return FolderSource(path, loop=loop)
    if path.is_file():
        return VideoSource(path, loop=loop)
    raise FrameSourceError(f"no camera, video or folder at '{text}'")


__all__ = [
    "CAMERA_RESOLUTION",
    "IMAGE_SUFFIXES",
    "CameraNotFoundError",
    "CameraSource",
    "EmptyFolderError",
    "FolderSource",
    "FrameSource",
    "FrameSourceError",
    "UnreadableImageError",
    "UnreadableVideoError",
    "VideoSource",
    "open_source",
]
