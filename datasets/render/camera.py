"""A pinhole camera with radial lens distortion, looking down at the table plane.

World frame: millimetres, the table is the plane ``z = 0``, ``z`` points up. Camera frame: x to the
image's right, y down, z forward (OpenCV convention). Rendering happens in the undistorted pinhole
image; `Camera.distort_image` then bends it with the lens, and `Camera.project` gives the final
(distorted) pixel of any 3D point, so labels and pixels always agree.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from datasets.render.ranges import CameraRanges


@dataclass(frozen=True)
class Camera:
    """A posed pinhole camera plus a radial lens model (barrel for ``k1 > 0``).

    Attributes:
        width, height: image size in pixels.
        focal_px: focal length in pixels (square pixels, principal point at the centre).
        rotation: (3, 3) world → camera rotation.
        translation: (3,) world → camera translation (``x_cam = R @ x_world + t``).
        k1, k2: radial coefficients of the undistortion map (distorted → pinhole), see `_radial`.
        params: the sampled parameters (for the truth record).
    """

    width: int
    height: int
    focal_px: float
    rotation: np.ndarray
    translation: np.ndarray
    k1: float
    k2: float
    params: dict[str, Any]

    @property
    def intrinsics(self) -> np.ndarray:
        """The (3, 3) pinhole matrix K."""
        return np.array(
            [
                [self.focal_px, 0.0, self.width / 2.0],
                [0.0, self.focal_px, self.height / 2.0],
                [0.0, 0.0, 1.0],
            ]
        )

    @property
    def position(self) -> np.ndarray:
        """Camera centre in world millimetres."""
        return -self.rotation.T @ self.translation

    def plane_homography(self, z_mm: float = 0.0) -> np.ndarray:
        """Homography from the horizontal plane at height `z_mm` (x, y in mm) to pinhole pixels."""
        r = self.rotation
        columns = np.column_stack([r[:, 0], r[:, 1], r[:, 2] * z_mm + self.translation])
        return self.intrinsics @ columns

    def project_pinhole(self, points_mm: np.ndarray) -> np.ndarray:
        """Project (n, 3) world points to undistorted pinhole pixels (n, 2)."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        cam = pts @ self.rotation.T + self.translation
        z = np.maximum(cam[:, 2:3], 1e-6)
        return (cam[:, :2] / z) * self.focal_px + np.array([self.width / 2.0, self.height / 2.0])

    def depth(self, points_mm: np.ndarray) -> np.ndarray:
        """Distance along the optical axis of (n, 3) world points, in mm."""
        pts = np.asarray(points_mm, dtype=np.float64).reshape(-1, 3)
        return (pts @ self.rotation.T + self.translation)[:, 2]

    def project(self, points_mm: np.ndarray) -> np.ndarray:
        """Project (n, 3) world points to final (distorted) image pixels (n, 2)."""
        return self.distort_points(self.project_pinhole(points_mm))

    # lens ----------------------------------------------------------------------------------------
    def _radial(self, rho2: np.ndarray) -> np.ndarray:
        # distorted pixel p_d maps to pinhole pixel c + (p_d - c) * scale * (1 + k1 rho² + k2 rho⁴),
        # rho measured in focal units; `scale` keeps the image corners fixed (no black borders).
        return self._scale * (1.0 + self.k1 * rho2 + self.k2 * rho2 * rho2)

    @property
    def _scale(self) -> float:
        corner2 = ((self.width / 2.0) ** 2 + (self.height / 2.0) ** 2) / self.focal_px**2
        return 1.0 / (1.0 + self.k1 * corner2 + self.k2 * corner2 * corner2)

    @property
    def has_distortion(self) -> bool:
        """Whether the lens bends the image at all."""
        return abs(self.k1) > 1e-6 or abs(self.k2) > 1e-6

    def distort_points(self, pinhole_px: np.ndarray) -> np.ndarray:
        """Map (n, 2) pinhole pixels to distorted image pixels (fixed-point inverse of the map)."""
        pts = np.asarray(pinhole_px, dtype=np.float64).reshape(-1, 2)
        if not self.has_distortion:
            return pts.copy()
        centre = np.array([self.width / 2.0, self.height / 2.0])
        offset_u = pts - centre
        offset_d = offset_u.copy()
        for _ in range(20):
            rho2 = (offset_d**2).sum(axis=1, keepdims=True) / self.focal_px**2
            offset_d = offset_u / self._radial(rho2)
        return offset_d + centre

    def distortion_maps(self) -> tuple[np.ndarray, np.ndarray]:
        """`cv2.remap` maps (float32) that bend a pinhole image into the distorted image."""
        dx, dy = _centred_grid(self.width, self.height)
        cx, cy = self.width / 2.0, self.height / 2.0
        rho2 = (dx * dx + dy * dy) / np.float32(self.focal_px**2)
        factor = self._radial(rho2).astype(np.float32)
        return (dx * factor + cx).astype(np.float32), (dy * factor + cy).astype(np.float32)

    def distort_image(self, image: np.ndarray, interpolation: int = cv2.INTER_LINEAR) -> np.ndarray:
        """Bend a pinhole image with the lens (returns a new image)."""
        if not self.has_distortion:
            return image
        map_x, map_y = self.distortion_maps()
        return cv2.remap(image, map_x, map_y, interpolation, borderMode=cv2.BORDER_REFLECT)


@functools.lru_cache(maxsize=4)
def _centred_grid(width: int, height: int) -> tuple[np.ndarray, np.ndarray]:
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    dx, dy = xs - np.float32(width / 2.0), ys - np.float32(height / 2.0)
    dx.setflags(write=False)
    dy.setflags(write=False)
    return dx, dy


def look_at_table(
    width: int,
    height: int,
    *,
    target_mm: tuple[float, float],
    distance_mm: float,
    tilt_deg: float,
    azimuth_deg: float,
    roll_deg: float,
    hfov_deg: float,
    k1: float = 0.0,
    k2: float = 0.0,
) -> Camera:
    """A camera `distance_mm` from the table point `target_mm`, tilted `tilt_deg` from vertical.

    `azimuth_deg` is the horizontal direction the camera looks in (so the table appears rotated by
    it), `roll_deg` turns the image about the optical axis.
    """
    theta, phi, roll = (math.radians(a) for a in (tilt_deg, azimuth_deg, roll_deg))
    look = np.array([math.cos(phi), math.sin(phi), 0.0])
    up_world = np.array([0.0, 0.0, 1.0])
    target = np.array([target_mm[0], target_mm[1], 0.0])
    centre = target + distance_mm * (-math.sin(theta) * look + math.cos(theta) * up_world)
    forward = math.sin(theta) * look - math.cos(theta) * up_world
    image_up = math.cos(theta) * look + math.sin(theta) * up_world
    y_axis = -image_up
    x_axis = np.cross(y_axis, forward)
    # roll about the optical axis
    c, s = math.cos(roll), math.sin(roll)
    x_rolled = c * x_axis + s * y_axis
    y_rolled = -s * x_axis + c * y_axis
    rotation = np.vstack([x_rolled, y_rolled, forward])
    translation = -rotation @ centre
    focal = (width / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)
    params = {
        "target_mm": [round(float(v), 3) for v in target_mm],
        "distance_mm": round(float(distance_mm), 3),
        "tilt_deg": round(float(tilt_deg), 3),
        "azimuth_deg": round(float(azimuth_deg), 3),
        "roll_deg": round(float(roll_deg), 3),
        "hfov_deg": round(float(hfov_deg), 3),
        "focal_px": round(float(focal), 3),
        "k1": round(float(k1), 5),
        "k2": round(float(k2), 5),
    }
    return Camera(width, height, focal, rotation, translation, float(k1), float(k2), params)


def sample_camera(
    rng: np.random.Generator,
    width: int,
    height: int,
    *,
    scene_centre_mm: tuple[float, float],
    scene_radius_mm: float,
    ranges: CameraRanges | None = None,
) -> Camera:
    """A random camera that frames a scene of radius `scene_radius_mm` (sometimes cropping it)."""
    r = ranges or CameraRanges()
    hfov = float(rng.uniform(*r.hfov_deg))
    tilt = float(r.tilt_deg[1] * math.sqrt(rng.uniform(0.0, 1.0)))  # more oblique views than flat
    azimuth = float(rng.uniform(0.0, 360.0))
    roll = float(rng.normal(0.0, r.roll_sigma_deg))
    half_span = min(width, height) / max(width, height) * math.tan(math.radians(hfov) / 2.0)
    fit = scene_radius_mm / max(half_span, 1e-3)
    distance = float(np.clip(fit * rng.uniform(*r.framing), r.distance_mm[0], r.distance_mm[1]))
    jitter = rng.normal(0.0, scene_radius_mm * r.target_jitter, 2)
    target = (scene_centre_mm[0] + float(jitter[0]), scene_centre_mm[1] + float(jitter[1]))
    k1 = float(rng.uniform(*r.k1)) if rng.random() < r.distortion_probability else 0.0
    return look_at_table(
        width,
        height,
        target_mm=target,
        distance_mm=distance,
        tilt_deg=tilt,
        azimuth_deg=azimuth,
        roll_deg=roll,
        hfov_deg=hfov,
        k1=k1,
        k2=0.0,
    )
