"""The Settings screen: frame source, game data files, language; saved after every change."""

from __future__ import annotations

from typing import Any

from kivy.app import App
from kivy.lang import Builder
from kivy.properties import NumericProperty, StringProperty
from kivy.uix.screenmanager import Screen

from companion_app.viewmodels.settings import Settings, SettingsViewModel

Builder.load_file(__file__.replace(".py", ".kv"))


class SettingsScreen(Screen):
    """Mirrors `SettingsViewModel.settings` in Kivy properties; forwards edits to it."""

    vm: SettingsViewModel | None = None
    source_kind = StringProperty("camera")
    camera_index = NumericProperty(0)
    video_path = StringProperty("")
    folder_path = StringProperty("")
    layout = StringProperty("reference")
    bar_values = StringProperty("default")
    deck = StringProperty("companion")
    message = StringProperty("")
    data_folder = StringProperty("")

    def bind_vm(self, vm: SettingsViewModel, data_folder: str = "") -> None:
        """Show `vm` and follow its changes."""
        self.vm = vm
        self.data_folder = data_folder
        vm.add_listener(self.refresh)
        self.refresh(vm.settings)

    def set(self, name: str, value: Any) -> None:
        """Forward one edit; a refused value shows its reason."""
        if self.vm is not None and not self.vm.set(name, value):
            self.message = self.vm.error or ""

    def step_camera(self, delta: int) -> None:
        """The camera index − and + buttons."""
        if self.vm is not None:
            self.vm.step_camera(delta)

    def refresh(self, settings: Settings | None = None, *_: Any) -> None:
        """Copy the settings into the screen's properties."""
        if self.vm is None:
            return
        settings = settings or self.vm.settings
        self.source_kind = settings.source_kind
        self.camera_index = settings.camera_index
        self.video_path = settings.video_path
        self.folder_path = settings.folder_path
        self.layout = settings.layout
        self.bar_values = settings.bar_values
        self.deck = settings.deck
        problem = self.vm.path_problem()
        t = App.get_running_app().translator.t
        self.message = t(problem) if problem else ""


__all__ = ["SettingsScreen"]
