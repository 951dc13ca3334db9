"""The ranges every random rendering parameter is drawn from, one config dataclass per stage.

Defaults are the documented values; a scene records the values it drew (see `truth.jsonl`).
"""

from __future__ import annotations

from dataclasses import dataclass

SPLITS: tuple[str, str] = ("train", "eval")


@dataclass(frozen=True)
class CameraRanges:
    """Camera pose and lens.

    Attributes:
        tilt_deg: optical axis angle from the table normal (0 = straight down).
        hfov_deg: horizontal field of view (phones, tablets and webcams).
        roll_sigma_deg: spread of the rotation about the optical axis (azimuth already turns the
            table freely; roll tilts the horizon of oblique views).
        framing: camera distance relative to "scene just fits"; below 1 crops the scene.
        distance_mm: hard limits on the camera distance.
        target_jitter: aim point spread, in scene radii.
        k1: barrel distortion strength; applied with `distortion_probability`.
    """

    tilt_deg: tuple[float, float] = (0.0, 50.0)
    hfov_deg: tuple[float, float] = (48.0, 78.0)
    roll_sigma_deg: float = 8.0
    framing: tuple[float, float] = (0.65, 1.25)
    distance_mm: tuple[float, float] = (180.0, 1400.0)
    target_jitter: float = 0.25
    k1: tuple[float, float] = (0.0, 0.18)
    distortion_probability: float = 0.6


@dataclass(frozen=True)
class EffectRanges:
    """Camera effects applied after the scene is lit.

    Attributes:
        defocus_sigma_px: Gaussian defocus at 640 px wide (scaled with the image width).
        defocus_probability: how often there is noticeable defocus.
        motion_px: motion blur length; applied with `motion_probability`.
        noise_sigma: Gaussian sensor noise (8-bit levels), plus shot noise of the same order.
        jpeg_quality: encoder quality of the saved image.
        exposure: overall gain (under/over exposure).
        gamma: tone curve exponent.
        contrast: contrast around mid-grey (webcams lift their blacks).
        saturation: colour saturation multiplier.
        white_balance: per-channel gain error of the camera's white balance.
        vignetting: darkening in the corners (fraction).
    """

    defocus_sigma_px: tuple[float, float] = (0.4, 2.2)
    defocus_probability: float = 0.55
    motion_px: tuple[float, float] = (1.5, 7.0)
    motion_probability: float = 0.25
    noise_sigma: tuple[float, float] = (1.0, 7.0)
    jpeg_quality: tuple[int, int] = (40, 95)
    exposure: tuple[float, float] = (0.7, 1.35)
    gamma: tuple[float, float] = (0.8, 1.2)
    contrast: tuple[float, float] = (0.7, 1.08)
    saturation: tuple[float, float] = (0.65, 1.15)
    white_balance: float = 0.08
    vignetting: tuple[float, float] = (0.0, 0.45)


@dataclass(frozen=True)
class VisibilityRules:
    """When an object counts as a target (labelled in YOLO) rather than only recorded.

    Attributes:
        flat_min_visible: cards and tiles need this fraction of their face visible.
        die_min_visible: dice need this fraction of their silhouette visible…
        die_top_min_visible: …and this fraction of their top face (the value must be readable).
        min_box_px: both sides of the visible box at least this many pixels.
    """

    flat_min_visible: float = 0.4
    die_min_visible: float = 0.5
    die_top_min_visible: float = 0.6
    min_box_px: float = 6.0
