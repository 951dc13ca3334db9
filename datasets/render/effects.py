"""Camera effects: exposure, tone, white balance, vignetting, defocus and motion blur, sensor noise,
and JPEG compression (the saved file *is* the compressed image).

Noise comes from a per-process bank (fixed seed, so output never depends on the process): a random
crop of a large pre-drawn noise field costs far less than drawing fresh Gaussian noise per image.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from datasets.render import _raster
from datasets.render.ranges import EffectRanges

_NOISE_SIZE = 1024


@dataclass(frozen=True)
class Effects:
    """The camera effects of one image (recorded in the truth record)."""

    exposure: float
    gamma: float
    contrast: float
    saturation: float
    white_balance: tuple[float, float, float]
    vignetting: float
    defocus_sigma: float
    motion_length: float
    motion_angle_deg: float
    noise_sigma: float
    noise_offset: tuple[int, int]
    jpeg_quality: int

    def to_json(self) -> dict[str, Any]:
        """The parameters as a JSON object (rounded)."""
        out: dict[str, Any] = {}
        for key, value in self.__dict__.items():
            if isinstance(value, float):
                out[key] = round(value, 4)
            elif isinstance(value, tuple):
                out[key] = [round(float(v), 4) for v in value]
            else:
                out[key] = value
        return out


def sample_effects(
    rng: np.random.Generator, width: int, ranges: EffectRanges | None = None
) -> Effects:
    """Random camera effects for an image `width` pixels wide."""
    r = ranges or EffectRanges()
    scale = width / 640.0
    defocus = float(rng.uniform(*r.defocus_sigma_px)) if rng.random() < r.defocus_probability else 0
    motion = float(rng.uniform(*r.motion_px)) if rng.random() < r.motion_probability else 0.0
    return Effects(
        exposure=float(np.exp(rng.uniform(np.log(r.exposure[0]), np.log(r.exposure[1])))),
        gamma=float(rng.uniform(*r.gamma)),
        contrast=float(rng.uniform(*r.contrast)),
        saturation=float(rng.uniform(*r.saturation)),
        white_balance=_raster.float3(1 + rng.uniform(-r.white_balance, r.white_balance, 3)),
        vignetting=float(rng.uniform(*r.vignetting)),
        defocus_sigma=defocus * scale,
        motion_length=motion * scale,
        motion_angle_deg=float(rng.uniform(0, 180)),
        noise_sigma=float(rng.uniform(*r.noise_sigma)),
        noise_offset=(int(rng.integers(0, _NOISE_SIZE)), int(rng.integers(0, _NOISE_SIZE))),
        jpeg_quality=int(rng.integers(r.jpeg_quality[0], r.jpeg_quality[1] + 1)),
    )


@functools.lru_cache(maxsize=1)
def _noise_bank() -> np.ndarray:
    """Unit Gaussian noise stored as uint8 around 128 (16 levels per sigma), slightly correlated."""
    rng = np.random.default_rng(20261130)
    bank = rng.standard_normal((_NOISE_SIZE, _NOISE_SIZE, 3)).astype(np.float32)
    bank = cv2.GaussianBlur(bank, (0, 0), 0.6) * 1.6  # demosaiced sensors correlate neighbours
    return np.clip(np.round(128.0 + _NOISE_LEVELS * bank), 0, 255).astype(np.uint8)


_NOISE_LEVELS = 16.0


def _noise(width: int, height: int, offset: tuple[int, int]) -> np.ndarray:
    bank = _noise_bank()
    if width <= _NOISE_SIZE and height <= _NOISE_SIZE:  # a crop of the bank (no copy)
        x = offset[0] % (_NOISE_SIZE - width + 1)
        y = offset[1] % (_NOISE_SIZE - height + 1)
        return bank[y : y + height, x : x + width]
    reps_y = math.ceil((height + offset[1]) / _NOISE_SIZE)
    reps_x = math.ceil((width + offset[0]) / _NOISE_SIZE)
    bank = np.tile(bank, (reps_y, reps_x, 1))
    return bank[offset[1] : offset[1] + height, offset[0] : offset[0] + width]


def _motion_kernel(length: float, angle_deg: float) -> np.ndarray:
    size = max(3, int(math.ceil(length)) | 1)
    kernel = np.zeros((size, size), np.float32)
    c = size // 2
    a = math.radians(angle_deg)
    dx, dy = math.cos(a) * length / 2, math.sin(a) * length / 2
    cv2.line(
        kernel, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1.0, 1, cv2.LINE_AA
    )
    return kernel / max(kernel.sum(), 1e-6)


def exposure_gains(effects: Effects) -> np.ndarray:
    """BGR gains of exposure and white-balance error (folded into the light field by the scene)."""
    return np.array(effects.white_balance, np.float32) * np.float32(effects.exposure)


def vignetting_factor(effects: Effects, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Vignetting gain at image-relative coordinates `u`, `v` in [0, 1]."""
    r2 = ((u - 0.5) ** 2 + (v - 0.5) ** 2) * 2.0
    return (1.0 - effects.vignetting * r2).astype(np.float32)


@functools.lru_cache(maxsize=64)
def _tone_lut(gamma: float, contrast: float) -> np.ndarray:
    x = np.arange(256, dtype=np.float64) / 255.0
    y = 0.5 + (x ** (1.0 / gamma) - 0.5) * contrast
    return np.clip(np.round(y * 255.0), 0, 255).astype(np.uint8)


def apply_effects(image: np.ndarray, effects: Effects) -> np.ndarray:
    """Apply saturation, tone curve, defocus and motion blur and sensor noise to a lit uint8 BGR
    image (exposure, white balance and vignetting are part of the light field). Returns a new image.
    """
    s = effects.saturation
    mix = np.full((3, 3), (1.0 - s) / 3.0, np.float32) + np.eye(3, dtype=np.float32) * s
    out = cv2.transform(image, mix)
    out = cv2.LUT(out, _tone_lut(round(effects.gamma, 3), round(effects.contrast, 3)))
    if effects.defocus_sigma > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), effects.defocus_sigma)
    if effects.motion_length > 1.0:
        out = cv2.filter2D(out, -1, _motion_kernel(effects.motion_length, effects.motion_angle_deg))
    h, w = out.shape[:2]
    # sensor noise: read noise plus shot noise, which grows with the image's brightness
    brightness = float(np.mean(out[::8, ::8])) / 255.0
    sigma = effects.noise_sigma * (0.6 + 0.8 * brightness)
    k = sigma / _NOISE_LEVELS
    return cv2.addWeighted(out, 1.0, _noise(w, h, effects.noise_offset), k, -128.0 * k)


def encode_jpeg(image: np.ndarray, quality: int) -> bytes:
    """Encode a BGR image as JPEG bytes at `quality`."""
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    if not ok:
        raise RuntimeError("jpeg encoding failed")
    return data.tobytes()
