"""Colours and sizes of the app: dark, high contrast, big touch targets (readable in bad light)."""

from __future__ import annotations

RGBA = tuple[float, float, float, float]

BACKGROUND: RGBA = (0.07, 0.08, 0.09, 1.0)
SURFACE: RGBA = (0.13, 0.14, 0.16, 1.0)
SURFACE_HIGH: RGBA = (0.19, 0.21, 0.24, 1.0)
TEXT: RGBA = (0.97, 0.97, 0.97, 1.0)
MUTED: RGBA = (0.72, 0.74, 0.78, 1.0)
PRIMARY: RGBA = (0.13, 0.45, 0.93, 1.0)
FOCUS: RGBA = (1.0, 0.78, 0.20, 1.0)
GOOD: RGBA = (0.42, 0.86, 0.47, 1.0)
WARN: RGBA = (1.0, 0.47, 0.42, 1.0)
DANGER: RGBA = (0.78, 0.20, 0.20, 1.0)
TONE_COLOURS: dict[str, RGBA] = {"plain": TEXT, "good": GOOD, "warn": WARN, "focus": FOCUS}

# Sizes in dp: every touch target is at least TOUCH high (a greasy thumb is ~10 mm).
TOUCH = 64
TOUCH_SMALL = 52
FONT = 20
FONT_SMALL = 17
FONT_LARGE = 26
FONT_TITLE = 30
GAP = 10

# The default font: DejaVu Sans (shipped with Kivy) covers Finnish, Hungarian and Lithuanian
# letters and the symbols we use (arrows, check marks, die faces).
FONT_NAME = "DejaVuSans"
DIE_FACES = "⚀⚁⚂⚃⚄⚅"
