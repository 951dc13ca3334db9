"""Small reusable widgets (their look is in ``widgets.kv``): buttons and the game panel's rows."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from kivy.properties import BooleanProperty, ColorProperty, ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button
from kivy.uix.widget import Widget

from companion_app.app import theme
from companion_app.viewmodels.panel import PanelSection


class BigButton(Button):
    """A large touch target; `selected` marks the current choice; `fill` is its colour."""

    selected = BooleanProperty(False)
    fill = ListProperty(list(theme.SURFACE_HIGH))


class PanelLineRow(BoxLayout):
    """One ``label … value`` line of a panel section, coloured by its tone."""

    label = StringProperty("")
    value = StringProperty("")
    colour = ColorProperty(theme.TEXT)


class PanelSectionView(BoxLayout):
    """A titled group of lines."""

    title = StringProperty("")


def resize_children(container: Any, count: int, make: Callable[[], Widget]) -> list[Any]:
    """Make `container` hold exactly `count` children of its kind (oldest kept); return them.

    Widgets are reused rather than rebuilt on every change: rebuilding dozens of widgets per
    move is slow on a tablet, and widgets dropped while their layout is pending can leave
    Kivy's clock with callbacks it never runs. Dropped widgets are kept until the next call.
    """
    kept = [child for child in reversed(container.children) if getattr(child, "reusable", False)]
    dropped = kept[count:]
    for child in dropped:
        container.remove_widget(child)
    container.__dict__["_dropped"] = dropped  # keep them alive until the next refresh
    kept = kept[:count]
    while len(kept) < count:
        child = make()
        child.reusable = True
        container.add_widget(child)
        kept.append(child)
    return kept


def fill_sections(container: Any, sections: Sequence[PanelSection]) -> None:
    """Show `sections` in `container`: one `PanelSectionView` per section, reusing widgets."""
    views = resize_children(container, len(sections), PanelSectionView)
    for view, section in zip(views, sections, strict=True):
        view.title = section.title
        rows = resize_children(view, len(section.lines), PanelLineRow)
        for row, line in zip(rows, section.lines, strict=True):
            row.label = line.label
            row.value = line.value
            row.colour = theme.TONE_COLOURS.get(line.tone, theme.TEXT)


__all__ = ["BigButton", "PanelLineRow", "PanelSectionView", "fill_sections", "resize_children"]
