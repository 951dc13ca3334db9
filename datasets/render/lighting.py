"""Scene light: colour temperature, brightness gradients, a light direction for shadows, glare.

Light families are split like textures: `train` scenes never use an `eval` family. A family fixes
the ranges (temperature, how directional, how hard the shadows, how strong the gradients).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from datasets.render.effects import Effects, exposure_gains, vignetting_factor


@dataclass(frozen=True)
class LightFamily:
    """Ranges of one kind of lighting."""

    name: str
    kelvin: tuple[float, float]
    elevation_deg: tuple[float, float]
    gradient: tuple[float, float]
    spot: tuple[float, float]
    shadow_strength: tuple[float, float]
    shadow_softness: tuple[float, float]
    tint: tuple[float, float, float] = (1.0, 1.0, 1.0)
    glare_probability: float = 0.3


TRAIN_LIGHTS: tuple[LightFamily, ...] = (
    LightFamily(
        "daylight_overhead",
        (5000, 6500),
        (60, 85),
        (0.0, 0.25),
        (0.0, 0.2),
        (0.25, 0.5),
        (0.6, 1.0),
    ),
    LightFamily(
        "warm_lamp", (2700, 3600), (35, 70), (0.1, 0.4), (0.2, 0.5), (0.35, 0.6), (0.3, 0.7)
    ),
    LightFamily(
        "fluorescent",
        (3800, 5000),
        (70, 89),
        (0.0, 0.2),
        (0.0, 0.15),
        (0.15, 0.35),
        (0.8, 1.0),
        tint=(1.0, 1.04, 0.98),
    ),
)

EVAL_LIGHTS: tuple[LightFamily, ...] = (
    LightFamily(
        "window_side",
        (6000, 8000),
        (20, 45),
        (0.3, 0.6),
        (0.0, 0.1),
        (0.4, 0.65),
        (0.2, 0.5),
        glare_probability=0.45,
    ),
    LightFamily(
        "candle_dim",
        (1900, 2600),
        (30, 60),
        (0.2, 0.5),
        (0.3, 0.6),
        (0.3, 0.55),
        (0.4, 0.8),
        glare_probability=0.1,
    ),
    LightFamily(
        "led_spot",
        (3400, 4600),
        (50, 80),
        (0.1, 0.3),
        (0.3, 0.6),
        (0.45, 0.7),
        (0.15, 0.4),
        tint=(1.05, 0.95, 1.05),
        glare_probability=0.5,
    ),
)

LIGHT_FAMILIES: dict[str, tuple[LightFamily, ...]] = {"train": TRAIN_LIGHTS, "eval": EVAL_LIGHTS}


def kelvin_to_bgr(kelvin: float) -> np.ndarray:
    """Approximate colour of a black body at `kelvin`, as BGR gains with max 1."""
    t = kelvin / 100.0
    if t <= 66:
        r = 255.0
        g = 99.47 * math.log(t) - 161.12
        b = 0.0 if t <= 19 else 138.52 * math.log(t - 10) - 305.04
    else:
        r = 329.7 * (t - 60) ** -0.1332
        g = 288.12 * (t - 60) ** -0.0755
        b = 255.0
    rgb = np.clip(np.array([r, g, b]), 1, 255)
    return (rgb[::-1] / rgb.max()).astype(np.float32)


@dataclass(frozen=True)
class Light:
    """The light of one scene (all values recorded in the truth record).

    Attributes:
        family: light family name.
        kelvin: colour temperature; `awb` how much the camera's white balance corrects it (0..1).
        direction_deg: azimuth the light comes from (table frame); `elevation_deg` its height.
        gradient, gradient_angle_deg: linear brightness change across the image.
        spot, spot_centre, spot_radius: a radial hot spot (fraction, image-relative centre/radius).
        shadow_strength, shadow_softness: darkness and blur of cast shadows (softness 0..1).
        glare: None, or (x, y, radius, strength) of a specular highlight in image-relative units.
    """

    family: str
    kelvin: float
    awb: float
    direction_deg: float
    elevation_deg: float
    gradient: float
    gradient_angle_deg: float
    spot: float
    spot_centre: tuple[float, float]
    spot_radius: float
    shadow_strength: float
    shadow_softness: float
    tint: tuple[float, float, float]
    glare: tuple[float, float, float, float] | None

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

    def shadow_offset(self, height_mm: float) -> tuple[float, float]:
        """Table-plane offset (mm) of the shadow of a point `height_mm` above the surface below."""
        reach = height_mm / math.tan(math.radians(max(self.elevation_deg, 5.0)))
        a = math.radians(self.direction_deg)
        return (-reach * math.cos(a), -reach * math.sin(a))

    def colour_gains(self) -> np.ndarray:
        """BGR gains of the light after the camera's (partial) white balance."""
        raw = kelvin_to_bgr(self.kelvin) * np.array(self.tint, np.float32)
        balanced = raw / raw.mean()
        return (balanced * (1 - self.awb) + self.awb).astype(np.float32)


def sample_light(rng: np.random.Generator, split: str) -> Light:
    """A random light from `split`'s families."""
    families = LIGHT_FAMILIES[split]
    fam = families[int(rng.integers(len(families)))]
    glare = None
    if rng.random() < fam.glare_probability:
        glare = (
            float(rng.uniform(0.1, 0.9)),
            float(rng.uniform(0.1, 0.9)),
            float(rng.uniform(0.05, 0.25)),
            float(rng.uniform(0.15, 0.6)),
        )
    return Light(
        family=fam.name,
        kelvin=float(rng.uniform(*fam.kelvin)),
        awb=float(rng.uniform(0.3, 0.85)),
        direction_deg=float(rng.uniform(0, 360)),
        elevation_deg=float(rng.uniform(*fam.elevation_deg)),
        gradient=float(rng.uniform(*fam.gradient)),
        gradient_angle_deg=float(rng.uniform(0, 360)),
        spot=float(rng.uniform(*fam.spot)),
        spot_centre=(float(rng.uniform(0, 1)), float(rng.uniform(0, 1))),
        spot_radius=float(rng.uniform(0.3, 0.9)),
        shadow_strength=float(rng.uniform(*fam.shadow_strength)),
        shadow_softness=float(rng.uniform(*fam.shadow_softness)),
        tint=fam.tint,
        glare=glare,
    )


def illumination_field(
    light: Light, width: int, height: int, effects: Effects | None = None
) -> np.ndarray:
    """Per-pixel BGR gain (float32, (h, w, 3)) of the light and, when given, the camera's exposure,
    white balance and vignetting. Smooth, so callers compute it on a coarse grid and upsample."""
    sw, sh = max(2, width), max(2, height)
    ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
    u, v = xs / (sw - 1), ys / (sh - 1)
    a = math.radians(light.gradient_angle_deg)
    ramp = (u - 0.5) * math.cos(a) + (v - 0.5) * math.sin(a)
    field = 1.0 + light.gradient * ramp * 1.4
    d2 = ((u - light.spot_centre[0]) ** 2 + (v - light.spot_centre[1]) ** 2) / light.spot_radius**2
    field = field * (1.0 - light.spot * 0.5) + light.spot * np.exp(-d2) * 0.8
    field = np.clip(field, 0.25, 1.8).astype(np.float32)
    gains = light.colour_gains()
    if effects is not None:
        field = field * vignetting_factor(effects, u, v)
        gains = gains * exposure_gains(effects)
    return field[..., None] * gains[None, None, :]


def apply_light(image: np.ndarray, light: Light, effects: Effects | None = None) -> np.ndarray:
    """Light a rendered (albedo) image: gains (with the camera's exposure), then glare.

    Returns a new uint8 image. The gain field is applied in 8-bit fixed point (1/64 steps).
    """
    h, w = image.shape[:2]
    field = illumination_field(light, w // 8 + 1, h // 8 + 1, effects)
    field_u8: np.ndarray = np.clip(field * 64.0, 0, 255).astype(np.uint8)
    field_u8 = cv2.resize(field_u8, (w, h), interpolation=cv2.INTER_LINEAR)
    lit = cv2.multiply(image, field_u8, scale=1.0 / 64.0)
    if light.glare is not None:
        gx, gy, radius, strength = light.glare
        sw, sh = max(4, w // 8), max(4, h // 8)
        ys, xs = np.mgrid[0:sh, 0:sw].astype(np.float32)
        d2 = ((xs / sw - gx) ** 2 * (w / h) ** 2 + (ys / sh - gy) ** 2) / radius**2
        blob = np.clip(255.0 * strength * np.exp(-d2 * 2.0), 0, 255).astype(np.uint8)
        blob = cv2.resize(blob, (w, h), interpolation=cv2.INTER_LINEAR)
        lit = cv2.add(lit, cv2.cvtColor(blob, cv2.COLOR_GRAY2BGR))
    return lit
