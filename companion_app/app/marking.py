"""Marking points on a picture of the table: four corners of a zone or of a printed board.

`mark_corners` opens a popup with the latest camera frame; the player taps four corners
(clockwise from the top left), each shown as a dot, and `done` receives them in frame pixels.
Used by Settings for the King's Breakfast and Dice King zones (saved with
`vision.readers.zones.save_zones`) and the printed Café board's corners
(`vision.readers.cafe_international.save_board_corners`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from kivy.graphics import Color, Ellipse, Line
from kivy.metrics import dp, sp
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.image import Image
from kivy.uix.label import Label
from kivy.uix.popup import Popup

from companion_app.app import theme
from companion_app.app.table import frame_texture
from companion_app.app.widgets import BigButton

Point = tuple[float, float]


class MarkingImage(Image):
    """The frame, fitted; taps inside it become frame points (at most `wanted`)."""

    def __init__(self, frame: np.ndarray, wanted: int, on_point: Callable[[Point], None]) -> None:
        height, width = frame.shape[:2]
        super().__init__(texture=frame_texture(frame), fit_mode="contain")
        self.frame_size = (width, height)
        self.wanted = wanted
        self.points: list[Point] = []
        self._on_point = on_point
        self.bind(pos=self._redraw, size=self._redraw)

    def _shown(self) -> tuple[float, float, float, float]:
        shown_w, shown_h = self.norm_image_size
        return self.center_x - shown_w / 2, self.center_y - shown_h / 2, shown_w, shown_h

    def to_frame(self, x: float, y: float) -> Point | None:
        """Widget point → frame pixels (None outside the picture)."""
        x0, y0, shown_w, shown_h = self._shown()
        if shown_w <= 0 or not (x0 <= x <= x0 + shown_w and y0 <= y <= y0 + shown_h):
            return None
        width, height = self.frame_size
        return (x - x0) / shown_w * width, height - (y - y0) / shown_h * height

    def to_widget(self, point: Point) -> Point:
        """Frame pixels → widget point."""
        x0, y0, shown_w, shown_h = self._shown()
        width, height = self.frame_size
        return x0 + point[0] / width * shown_w, y0 + (height - point[1]) / height * shown_h

    def on_touch_down(self, touch: Any) -> bool:
        point = self.to_frame(*touch.pos) if self.collide_point(*touch.pos) else None
        if point is None or len(self.points) >= self.wanted:
            return bool(super().on_touch_down(touch))
        self.points.append(point)
        self._redraw()
        self._on_point(point)
        return True

    def _redraw(self, *_: Any) -> None:
        self.canvas.after.clear()
        radius = dp(9)
        with self.canvas.after:
            Color(*theme.FOCUS)
            shown = [self.to_widget(p) for p in self.points]
            for x, y in shown:
                Ellipse(pos=(x - radius, y - radius), size=(2 * radius, 2 * radius))
            if len(shown) >= 2:
                closed = shown + [shown[0]] if len(shown) == self.wanted else shown
                Line(points=[v for p in closed for v in p], width=dp(2))


def mark_corners(
    frame: np.ndarray,
    prompt: Callable[[int], str],
    done: Callable[[list[Point]], None],
    cancel_text: str,
    title: str,
) -> Popup:
    """Open the marking popup on `frame`; `prompt(n)` is the text asking for corner n (1–4);
    `done(points)` gets the four corners in frame pixels (the popup closes first)."""
    box = BoxLayout(orientation="vertical", spacing=dp(8))
    label = Label(
        text=prompt(1),
        font_size=sp(theme.FONT),
        color=theme.FOCUS,
        size_hint_y=None,
        height=dp(40),
    )
    popup = Popup(title=title, content=box, size_hint=(0.95, 0.95), auto_dismiss=False)

    def on_point(_point: Point) -> None:
        if len(image.points) >= 4:
            popup.dismiss()
            done(list(image.points))
        else:
            label.text = prompt(len(image.points) + 1)

    image = MarkingImage(frame, 4, on_point)
    cancel = BigButton(text=cancel_text)
    cancel.bind(on_release=lambda *_: popup.dismiss())
    box.add_widget(label)
    box.add_widget(image)
    box.add_widget(cancel)
    popup.open()
    return popup


__all__ = ["MarkingImage", "mark_corners"]
