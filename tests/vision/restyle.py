"""Test art: a different printing of the same games, and photos of single pieces to enrol from.

Not product code. `restyle` turns a companion face into another "edition": its palette turned
round the colour wheel (except Café International's flags: every edition prints a flag in its
colours), its layout mirrored (text and pictograms no longer where the companion art
has them), a new dark frame with a gold rule, and a paper-like texture. `piece_photo` lays faces on
a plain contrasting surface and photographs them (perspective, light gradient, blur, noise,
JPEG), as a user would for ``table-companion enroll --source FOLDER``. `restyled_scenes` renders
table scenes in the restyled edition with the scene renderer.
"""

from __future__ import annotations

import contextlib
import functools
import zlib
from collections.abc import Iterator

import cv2
import numpy as np

HUE_TURN_DEG = 70


def _identity_seed(identity: str) -> int:
    return zlib.crc32(identity.encode())


@functools.lru_cache(maxsize=1024)
def _texture(height: int, width: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    low = cv2.resize(rng.normal(0, 1, (6, 6)).astype(np.float32), (width, height))
    grain = rng.normal(0, 1, (height, width)).astype(np.float32)
    return 1.0 + 0.05 * low + 0.035 * grain


def restyle(face: np.ndarray, identity: str = "") -> np.ndarray:
    """The same piece in a different edition (uint8 BGR, same size as `face`)."""
    image = np.ascontiguousarray(face[:, :, :3])
    h, w = image.shape[:2]
    hsv = cv2.cvtColor(image, cv2.COLOR_BGR2HSV).astype(np.int32)
    if not identity.startswith("cafe-international/"):  # a flag is a flag in every edition
        hsv[..., 0] = (hsv[..., 0] + HUE_TURN_DEG // 2) % 180
    hsv[..., 1] = np.clip(hsv[..., 1] * 0.85 + 20, 0, 255)
    out = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
    out = np.ascontiguousarray(out[:, ::-1])  # mirrored layout
    frame = max(2, int(round(0.07 * w)))
    rule = max(1, frame // 4)
    out = out.copy()
    navy = (60, 35, 25)
    out[:frame] = navy
    out[-frame:] = navy
    out[:, :frame] = navy
    out[:, -frame:] = navy
    cv2.rectangle(
        out,
        (frame - rule, frame - rule),
        (w - frame + rule - 1, h - frame + rule - 1),
        (60, 180, 220),
        rule,
    )
    textured = out.astype(np.float32) * _texture(h, w, _identity_seed(identity))[..., None]
    return np.clip(textured, 0, 255).astype(np.uint8)


def piece_photo(
    faces: list[np.ndarray],
    rng: np.random.Generator,
    size: tuple[int, int] = (960, 720),
    background: tuple[int, int, int] | None = None,
) -> np.ndarray:
    """A photo of `faces` lying side by side on a plain surface (no face: an empty surface)."""
    w, h = size
    base = np.array(background or (40, 70, 45), np.float32)
    photo = np.empty((h, w, 3), np.float32)
    photo[:] = base
    photo += rng.normal(0, 4, photo.shape).astype(np.float32)
    count = max(1, len(faces))
    slot = w / count
    for k, face in enumerate(faces):
        fh, fw = face.shape[:2]
        scale = min(0.8 * slot / fw, 0.7 * h / fh)
        cw, ch = fw * scale, fh * scale
        cx = slot * (k + 0.5) + rng.uniform(-0.05, 0.05) * slot
        cy = h / 2 + rng.uniform(-0.05, 0.05) * h
        angle = np.radians(rng.uniform(-8, 8))
        rot = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        rect = np.array([[-cw, -ch], [cw, -ch], [cw, ch], [-cw, ch]]) / 2
        quad = rect @ rot.T + (cx, cy)
        quad += rng.normal(0, 0.015 * cw, quad.shape)  # a little perspective
        src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
        matrix = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
        warped = cv2.warpPerspective(face.astype(np.float32), matrix, (w, h))
        mask = cv2.warpPerspective(np.ones((fh, fw), np.float32), matrix, (w, h))[..., None]
        photo = photo * (1 - mask) + warped * mask
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    gradient = 0.85 + 0.3 * (xs / w) * rng.uniform(0.5, 1.0) + 0.1 * (ys / h)
    photo *= gradient[..., None]
    blurred = np.asarray(cv2.GaussianBlur(photo, (0, 0), 0.8), np.float32)
    blurred += rng.normal(0, 2.5, blurred.shape).astype(np.float32)
    image = np.clip(blurred, 0, 255).astype(np.uint8)
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 88])
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else None
    assert decoded is not None
    return np.asarray(decoded)


@contextlib.contextmanager
def restyled_art() -> Iterator[None]:
    """While active, the scene renderer draws companion pieces in the restyled edition."""
    from datasets.render import _art, scene

    original = _art.face

    @functools.lru_cache(maxsize=1024)
    def face(identity: str, width_px: int) -> np.ndarray:
        image = restyle(np.asarray(original(identity, width_px)), identity)
        image.setflags(write=False)
        return image

    scene.piece_texture.cache_clear()
    _art.face = face  # type: ignore[assignment]
    try:
        yield
    finally:
        _art.face = original  # type: ignore[assignment]
        scene.piece_texture.cache_clear()


__all__ = ["piece_photo", "restyle", "restyled_art"]
