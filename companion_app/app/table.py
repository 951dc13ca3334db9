"""The Table screen: the live view with its overlay, the game panel, the choices, pause."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
from kivy.app import App
from kivy.core.text import Label as CoreLabel
from kivy.graphics import Color, Line, Rectangle
from kivy.graphics.texture import Texture
from kivy.lang import Builder
from kivy.metrics import dp, sp
from kivy.properties import BooleanProperty, StringProperty
from kivy.uix.screenmanager import Screen
from kivy.uix.widget import Widget

from companion_app.app import theme
from companion_app.app.widgets import BigButton, fill_sections, resize_children
from companion_app.viewmodels.table import TableViewModel

Builder.load_file(__file__.replace(".py", ".kv"))

# Maps a point in frame pixels to widget coordinates.
FrameToWidget = Callable[[float, float], tuple[float, float]]
OverlayHook = Callable[[Any, "OverlayLayer", FrameToWidget], None]


def _piece_name(item: dict[str, Any]) -> str | None:
    """What a recognised object is, in the current language (None: not recognised)."""
    if item.get("kind") == "die":
        value, colour = item.get("value"), item.get("colour")
        identity = f"{value}{colour}" if value and colour else None
    else:
        identity = item.get("identity")
    if not identity:
        return None
    app = App.get_running_app()
    translator = getattr(app, "translator", None)
    if translator is None:
        return str(identity).split("/")[-1]
    from companion_app.viewmodels.describe import identity_text

    return identity_text(translator, str(identity))


def draw_detections(result: Any, layer: OverlayLayer, to_widget: FrameToWidget) -> None:
    """The default overlay: each object of a `detect`-shaped result outlined (its corners when
    known, else its box), recognised pieces named with their confidence; a piece seen but not
    recognised gets a thin outline and "?" (tap it to say what it is).

    `result` is what perception returned; anything without an ``objects`` list draws nothing.
    """
    objects = result.get("objects", []) if isinstance(result, dict) else []
    taken: list[tuple[float, float, float, float]] = []  # labels drawn so far (no overlaps)
    for item in objects:
        box = item.get("box")
        if not box or len(box) != 4:
            continue
        name = _piece_name(item)
        score = float(item.get("identity_score") or item.get("score") or 0.0)
        if name is None:
            colour, width = theme.MUTED, dp(1)
        else:
            colour = theme.GOOD if score >= 0.8 else theme.FOCUS if score >= 0.5 else theme.WARN
            width = dp(2)
        corners = item.get("corners")
        if corners and len(corners) == 4:
            points = [to_widget(float(x), float(y)) for x, y in corners]
        else:
            points = [
                to_widget(box[0], box[1]),
                to_widget(box[2], box[1]),
                to_widget(box[2], box[3]),
                to_widget(box[0], box[3]),
            ]
        with layer.canvas:
            Color(*colour)
            Line(points=[v for p in points for v in p], width=width, close=True)
        top = max(points, key=lambda p: p[1])
        texture = _text_texture("?" if name is None else f"{_short(name)} {score:.0%}")
        width, height = texture.size
        x, y = top[0] - width / 2, top[1] + dp(1)
        if any(
            x < a + w and a < x + width and y < b + h and b < y + height for a, b, w, h in taken
        ):
            continue  # crowded: the outline's colour says it, a tap tells the rest
        taken.append((x, y, width, height))
        with layer.canvas:
            Color(0, 0, 0, 0.55)  # a dark backing keeps the text readable on any table
            Rectangle(pos=(x - dp(2), y), size=(width + dp(4), height))
            Color(*colour)
            Rectangle(texture=texture, pos=(x, y), size=(width, height))


def _short(name: str, limit: int = 12) -> str:
    """A piece's name cut for a label over a small picture (``village-enchanted_forest-2`` →
    ``village-ench…``)."""
    return name if len(name) <= limit else name[: limit - 1] + "…"


_TEXTURES: dict[str, Any] = {}


def _text_texture(text: str) -> Any:
    """A white text texture (cached; tinted by the canvas colour). Drawn straight into the
    overlay's canvas, so a label shows in the very frame its result arrives."""
    texture = _TEXTURES.get(text)
    if texture is None:
        if len(_TEXTURES) > 512:
            _TEXTURES.clear()
        label = CoreLabel(
            text=text, font_size=sp(theme.FONT_SMALL * 0.8), font_name=theme.FONT_NAME
        )
        label.refresh()
        texture = _TEXTURES[text] = label.texture
    return texture


def frame_texture(frame: np.ndarray, texture: Any = None) -> Any:
    """A texture showing the `uint8` BGR `frame`: `texture` written over when it has the
    frame's size, else a new one."""
    height, width = frame.shape[:2]
    if texture is None or tuple(texture.size) != (width, height):
        texture = Texture.create(size=(width, height), colorfmt="rgba")
        texture.flip_vertical()
    # RGBA uploads as is; 3-byte formats are converted pixel by pixel in many drivers
    rgba = cv2.cvtColor(frame, cv2.COLOR_BGR2RGBA)
    texture.blit_buffer(rgba.tobytes(), colorfmt="rgba", bufferfmt="ubyte")
    return texture


def fit_to(frame: np.ndarray, size: tuple[float, float]) -> np.ndarray:
    """`frame` shrunk (never enlarged) to fit in `size` (w, h) keeping its aspect; a new array."""
    height, width = frame.shape[:2]
    scale = min(size[0] / width, size[1] / height, 1.0) if size[0] > 1 and size[1] > 1 else 1.0
    if scale >= 0.95:
        return frame
    target = (max(1, round(width * scale)), max(1, round(height * scale)))
    return cv2.resize(frame, target, interpolation=cv2.INTER_LINEAR)  # 8x cheaper than AREA


class OverlayLayer(Widget):
    """Draws what perception saw over the preview; `hook` decides how (see `draw_detections`)."""

    hook: OverlayHook = staticmethod(draw_detections)  # type: ignore[assignment]

    _mapping: tuple[tuple[int, int], tuple[float, ...]] | None = None

    def redraw(self, result: Any, frame_size: tuple[int, int], shown: tuple[float, ...]) -> None:
        """Redraw for `result` on a frame of `frame_size` (w, h) shown at `shown` (x, y, w, h)."""
        self.canvas.clear()
        self.clear_widgets()
        self._mapping = (frame_size, shown)
        if result is None:
            return
        width, height = frame_size
        x0, y0, shown_w, shown_h = shown

        def to_widget(x: float, y: float) -> tuple[float, float]:
            return x0 + x / width * shown_w, y0 + (height - y) / height * shown_h

        self.hook(result, self, to_widget)

    def frame_point(self, x: float, y: float) -> tuple[float, float] | None:
        """Window point → frame pixels (None when outside the shown frame)."""
        if self._mapping is None:
            return None
        (width, height), (x0, y0, shown_w, shown_h) = self._mapping
        if not (x0 <= x <= x0 + shown_w and y0 <= y <= y0 + shown_h) or shown_w <= 0:
            return None
        return (x - x0) / shown_w * width, height - (y - y0) / shown_h * height

    def on_touch_down(self, touch: Any) -> bool:
        """A tap on a recognised piece asks the app to correct it (the piece's candidates)."""
        point = self.frame_point(*touch.pos) if self.collide_point(*touch.pos) else None
        if point is not None and App.get_running_app().correct_at(*point):
            return True
        return bool(super().on_touch_down(touch))


class TableScreen(Screen):
    """Forwards taps to `TableViewModel`; the app pushes frames and status into it."""

    vm: TableViewModel | None = None
    status = StringProperty("")
    prompt = StringProperty("")
    message = StringProperty("")
    source_message = StringProperty("")
    note = StringProperty("")  # what is recognised, or why nothing is (over the picture)
    no_source = BooleanProperty(True)
    paused = BooleanProperty(False)
    is_chance = BooleanProperty(False)
    can_undo = BooleanProperty(False)
    _textures: list[Texture | None]
    preview_scale = 1.0  # share of the view's pixels frames are uploaded at (next_preview_scale)
    _turn = 0

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._textures = [None, None]

    def bind_vm(self, vm: TableViewModel | None) -> None:
        """Show `vm` (None: no game yet)."""
        self.vm = vm
        self.refresh()

    def refresh(self, *_: Any) -> None:
        """Redraw the panel, prompt and choices from the view model."""
        vm = self.vm
        sections = self.ids.sections
        choices = self.ids.choices
        if vm is None:
            fill_sections(sections, [])
            resize_children(choices, 0, self._make_choice_button)
            self.prompt = ""
            return
        fill_sections(sections, vm.sections())
        self.prompt = vm.prompt()
        self.message = vm.message or ""
        self.is_chance = vm.session.is_chance_node
        self.can_undo = vm.session.can_undo
        offered = vm.choices()
        buttons = resize_children(choices, len(offered), self._make_choice_button)
        for button, choice in zip(buttons, offered, strict=True):
            button.text = choice.text
            button.choice = choice

    def _make_choice_button(self) -> BigButton:
        button = BigButton(font_size=sp(theme.FONT_SMALL))
        button.bind(on_release=self._choose)
        return button

    def _choose(self, button: Any) -> None:
        choice = getattr(button, "choice", None)
        if self.vm is not None and choice is not None and not self.vm.choose(choice):
            self.message = self.vm.message or ""

    def show_frame(self, frame: np.ndarray) -> None:
        """Put a `uint8` BGR (H, W, 3) frame on screen (the array is not modified).

        The frame is first shrunk to the pixels it will cover: uploading a full camera frame
        to the GPU every time costs far more than the resize on a tablet.
        """
        width, height = self.ids.preview.size
        frame = fit_to(frame, (width * self.preview_scale, height * self.preview_scale))
        # Two textures in turn: writing into the texture the GPU is still drawing makes the
        # driver wait for that frame to finish (on software GL, most of a frame's time).
        self._turn = 1 - self._turn
        texture = frame_texture(frame, self._textures[self._turn])
        self._textures[self._turn] = texture
        preview = self.ids.preview
        preview.texture = texture
        preview.canvas.ask_update()

    def show_result(self, result: Any, frame_size: tuple[int, int]) -> None:
        """Redraw the overlay for a perception result on a frame of `frame_size` (w, h)."""
        preview = self.ids.preview
        shown_w, shown_h = preview.norm_image_size
        x0 = preview.center_x - shown_w / 2
        y0 = preview.center_y - shown_h / 2
        self.ids.overlay.redraw(result, frame_size, (x0, y0, shown_w, shown_h))


__all__ = ["OverlayLayer", "TableScreen", "draw_detections", "fit_to", "frame_texture"]
