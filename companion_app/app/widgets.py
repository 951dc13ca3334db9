"""Small reusable widgets (their look is in ``widgets.kv``): buttons and the game panel's rows."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kivy.properties import BooleanProperty, ColorProperty, ListProperty, StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.button import Button

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


def fill_sections(container: Any, sections: Sequence[PanelSection]) -> None:
    """Replace `container`'s children by one `PanelSectionView` per section."""
    container.clear_widgets()
    for section in sections:
        view = PanelSectionView(title=section.title)
        for line in section.lines:
            colour = theme.TONE_COLOURS.get(line.tone, theme.TEXT)
            view.add_widget(PanelLineRow(label=line.label, value=line.value, colour=colour))
        container.add_widget(view)


__all__ = ["BigButton", "PanelLineRow", "PanelSectionView", "fill_sections"]
