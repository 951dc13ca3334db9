"""`TableCompanionApp`: wires the screens to the view models, the live loop and storage.

The app object owns the long-lived things (translator, settings, saved games, the session, the
live loop, recognition) and the intents that cross screens (start or resume a game, undo, pause,
choose a source). Screens only forward taps here or to their view model.

The product loop: the live loop's worker runs `Recognition` (perception → identities of the game
→ votes → the game's reader → the tracker) on the newest frame; the preview tick draws what was
recognised over the picture, applies the tracker's explained changes to the session (autosaved,
in the history) and shows its questions with their candidates as big buttons. Without a detector
model the app says so on the Table and the manual panel keeps working.

The demo (`demo=True` with no `source`) plays the game's bundled clip (`datasets.demo_clips`)
as the source, looping, through the same loop. When recognition is unavailable the panel follows
the recording's true states from its manifest, and the Table says so ("recognition unavailable:
showing the recorded game"): the demo never claims to recognise what it does not.
"""

from __future__ import annotations

import json
import logging
import os
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from kivy.app import App
from kivy.clock import Clock
from kivy.core.window import Window
from kivy.lang import Builder
from kivy.metrics import sp
from kivy.properties import StringProperty
from kivy.uix.boxlayout import BoxLayout
from kivy.uix.filechooser import FileChooserListView
from kivy.uix.gridlayout import GridLayout
from kivy.uix.popup import Popup

from companion_app import storage
from companion_app.app import theme
from companion_app.app.history import HistoryScreen
from companion_app.app.home import HomeScreen
from companion_app.app.scoring import ScoringScreen
from companion_app.app.settings import SettingsScreen
from companion_app.app.table import TableScreen
from companion_app.app.widgets import BigButton
from companion_app.i18n import Translator
from companion_app.live import (
    CLIP_REPEAT,
    PERCEPTION_SHARE,
    ClipSource,
    LiveLoop,
    Perceive,
    no_perception,
)
from companion_app.viewmodels.corrections import CorrectionsViewModel
from companion_app.viewmodels.describe import describe_action, game_name, identity_text
from companion_app.viewmodels.history import HistoryViewModel
from companion_app.viewmodels.home import COLOURS, HomeViewModel
from companion_app.viewmodels.recognition import (
    Recognition,
    RecognitionUnavailable,
    detector_model_path,
    load_recognition,
    table_key,
)
from companion_app.viewmodels.scoring import scoring_for
from companion_app.viewmodels.session import GameSession, Player
from companion_app.viewmodels.settings import SettingsViewModel, game_options
from companion_app.viewmodels.table import TableViewModel, next_preview_scale
from vision.frames import FrameSourceError, open_source

_HERE = Path(__file__).resolve().parent
Builder.load_file(str(_HERE / "widgets.kv"))
Builder.load_file(str(_HERE / "root.kv"))
_LOG = logging.getLogger(__name__)

PREVIEW_HZ = 30.0
GIL_SWITCH_S = 0.001  # see on_start
STATUS_HZ = 2.0
DEMO_STEP_S = 0.12
DEMO_STEPS = 30
TOUR_TAPS = 4
PLAY_TAPS_PER_FRAME = 6
SCAN_WAIT_S = 60.0  # the scripted scan's limit: the models load, then one photo is read
TOUR_SETTLE_S = 1.0  # a slow machine needs a few frames before a new screen's layout settles
DEMO_ANSWER_S = 0.8  # the demo answers a tracker question from the recording after this long
SCREENS = ("home", "table", "scoring", "history", "settings")
TOUR = (*SCREENS, "table@fi")  # the last shot proves run-time language switching
__all__ = ["RootView", "TableCompanionApp"]

# Keep screen classes referenced: the kv rules name them.
_SCREEN_CLASSES = (HomeScreen, TableScreen, ScoringScreen, HistoryScreen, SettingsScreen)


class RootView(BoxLayout):
    """Top bar, the screens, the navigation bar (layout in ``root.kv``)."""


class TableCompanionApp(App):
    """The tablet app. See `companion_app.app.launch` for the arguments."""

    language = StringProperty("en")
    title_text = StringProperty("Table Companion")
    saved_text = StringProperty("")

    def __init__(
        self,
        *,
        game: str | None = None,
        source: str | None = None,
        screenshot: Path | None = None,
        exit_after: float | None = None,
        demo: bool = False,
        tour_folder: Path | None = None,
        language: str | None = None,
        perceive: Perceive = no_perception,
        demo_steps: int = DEMO_STEPS,
        play_folder: Path | None = None,
        recognition_factory: Any = None,
        scan_folder: Path | None = None,
    ) -> None:
        super().__init__()
        self.title = "Table Companion"
        self.exit_status = 0
        self._game = game
        self._source = source
        self._screenshot = screenshot
        self._exit_after = exit_after
        self._demo = demo
        self._tour_folder = tour_folder
        self._perceive = perceive
        self._demo_steps = demo_steps
        self._play_folder = play_folder
        self._scan_folder = scan_folder
        self._scan_deadline = 0.0
        # (session, corrections) -> Recognition: replaces `load_recognition` (tests, benchmarks)
        self._recognition_factory = recognition_factory
        self.store = storage.GameStore()
        self.settings_vm = SettingsViewModel(storage.data_home())
        self.translator = Translator(language or self.settings_vm.settings.language)
        self.language = self.translator.language
        self.home_vm = HomeViewModel(self.store)
        self.session: GameSession | None = None
        self.table_vm: TableViewModel | None = None
        self.live: LiveLoop | None = None
        self._shown_index = -1
        self._result_index = -1
        self._demo_rng = random.Random(7)
        self.corrections: CorrectionsViewModel | None = None
        self._seen: Any = None  # the latest perception result, corrections applied
        self._seen_size = (0, 0)
        self._no_source: tuple[str, dict[str, Any]] | None = None
        self._demo_left = 0
        self.recognition: Recognition | None = None
        self.recognition_problem: str | None = None
        self._clip: dict[str, Any] | None = None  # the demo clip's manifest
        self._clip_source: ClipSource | None = None
        self._clip_at: tuple[int, int] = (-1, -1)  # (loop, segment) the session follows
        self._applying = False  # the session is being changed from tracker events
        self._question_popup: Popup | None = None
        self._last_result: dict[str, Any] | None = None
        self._demo_changes = 0  # table changes the demo clip showed (with recognition)
        self._demo_recognised = 0  # of which the tracker got right by itself

    # ---- Kivy hooks ---
    def build(self) -> RootView:
        Window.clearcolor = theme.BACKGROUND
        # Panels nest labels in rows in sections in scroll views: settling their sizes takes
        # more layout passes than Kivy's default 10 per frame, which left a half-laid-out
        # screen visible for several frames on a slow tablet.
        Clock.max_iteration = 30
        root = RootView()
        self.root_view = root
        ids = root.ids
        ids.home.bind_vm(self.home_vm)
        ids.settings.bind_vm(self.settings_vm, str(storage.data_home()))
        ids.table.bind_vm(None)
        ids.history.bind_vm(None)
        ids.scoring.bind_vm(None)
        self.translator.bind(lambda _language: self._refresh_all())
        # several changes in one frame (a demo step, undo) redraw the screen once
        self._refresh_current = Clock.create_trigger(self._refresh_current_now, 0)
        return root

    def on_start(self) -> None:
        # The recognition worker runs pure-Python searches (the rules' explanations) for up to a
        # second or two; with the default 5 ms GIL switch interval the UI thread waited up to
        # 5 ms at every return from C code and the preview fell below 20 FPS.
        sys.setswitchinterval(GIL_SWITCH_S)
        self.store.clean_temporaries()
        clip = None
        if self._demo and self._source is None and self._tour_folder is None:
            clip = self._bundled_clip(self._game or self.home_vm.game)
        if clip is not None:
            self._start_demo_clip(*clip)
        elif self._game is not None:
            self.home_vm.choose_game(self._game)
            self.start_game()
        if self._source is not None:
            self.open_live(self._source)
        elif clip is not None:
            self._open_clip(clip[0])
        elif self._demo:
            self._set_no_source("table.demo_no_clip")
        else:
            self.open_live_from_settings(quiet=True)
        if self._demo and self.session is not None and self._clip is None:
            self._demo_left = self._demo_steps
            Clock.schedule_interval(self._demo_step, DEMO_STEP_S)
        Clock.schedule_interval(self._tick_preview, 1.0 / PREVIEW_HZ)
        Clock.schedule_interval(self._tick_status, 1.0 / STATUS_HZ)
        if self._play_folder is not None:
            Clock.schedule_once(lambda _dt: self._play_taps(), TOUR_SETTLE_S)
        elif self._scan_folder is not None:
            self._scan_deadline = time.monotonic() + SCAN_WAIT_S
            Clock.schedule_once(lambda _dt: self._scan_tap(), TOUR_SETTLE_S)
        elif self._tour_folder is not None and not self._demo_left:
            Clock.schedule_once(lambda _dt: self._tour(list(TOUR)), 1.0)
        elif self._exit_after is not None:
            Clock.schedule_once(self._finish, self._exit_after)
        self._refresh_title()

    def on_stop(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None
        self._close_recognition()

    # ---- translation (kv calls `app.tr(key, app.language)` so texts follow the language) ---
    def tr(self, key: str, _language: str | None = None, **fields: Any) -> str:
        """The text of `key` in the current language."""
        return self.translator.t(key, **fields)

    def set_language(self, language: str) -> None:
        """Switch the language of every screen at once, and remember it."""
        self.settings_vm.set("language", language)
        self.translator.set_language(language)
        self.language = language

    # ---- navigation ---
    def show(self, name: str) -> None:
        """Show the screen `name` (redrawn from its view model first)."""
        getattr(self.root_view.ids, name).refresh()
        self.root_view.ids.screens.current = name

    # ---- games ---
    def start_game(self) -> None:
        """Start the game set up on the Home screen and go to the Table."""
        try:
            options = self._game_options(self.home_vm.game)
            session = self.home_vm.start(options=options, seed=random.randrange(1_000_000))
        except ValueError as error:
            self.root_view.ids.home.problems = str(error)
            return
        self._use_session(session)
        self.show("table")

    def resume_game(self, game_id: str) -> None:
        """Resume a saved game and go to the Table."""
        try:
            session = self.home_vm.resume(game_id)
        except ValueError as error:
            self.root_view.ids.home.problems = str(error)
            return
        self._use_session(session)
        self.show("table")

    def _game_options(self, game: str) -> dict[str, Any]:
        """Engine options from the settings (board layout and bar values, deck file)."""
        return game_options(game, self.settings_vm.settings)

    def _use_session(self, session: GameSession) -> None:
        self.session = session
        self.corrections = CorrectionsViewModel(session.game)
        self._build_recognition()
        self.table_vm = TableViewModel(session, self.translator)
        ids = self.root_view.ids
        ids.table.bind_vm(self.table_vm)
        ids.history.bind_vm(HistoryViewModel(session, self.translator))
        ids.scoring.bind_vm(
            scoring_for(session.game, [p.name for p in session.players], self.translator), session
        )
        session.add_listener(self._session_changed)
        self._session_changed(session)

    def _session_changed(self, session: GameSession) -> None:
        if self.recognition is not None and not self._applying:
            self.recognition.sync(session.state)  # a tap or undo: the tracker follows
        self.saved_text = self.translator.t("app.saved", steps=len(session.history.actions))
        self._refresh_title()
        self._refresh_current()

    def _refresh_current_now(self, *_: Any) -> None:
        ids = self.root_view.ids
        getattr(ids, ids.screens.current).refresh()

    def _refresh_title(self) -> None:
        if self.session is None:
            self.title_text = "Table Companion"
            return
        names = ", ".join(p.name for p in self.session.players)
        self.title_text = f"{game_name(self.translator, self.session.game)} — {names}"

    def _refresh_all(self) -> None:
        self._refresh_title()
        if self._no_source is not None and self.root_view.ids.table.no_source:
            self._set_no_source(self._no_source[0], **self._no_source[1])
        if self.session is not None:
            self._session_changed(self.session)
        for name in SCREENS:
            getattr(self.root_view.ids, name).refresh()

    def undo(self) -> None:
        """Take back the last step of the game."""
        if self.session is not None and self.session.can_undo:
            self.session.undo()

    def play_chance(self) -> None:
        """Let chance decide the pending deal, draw or roll."""
        if self.table_vm is not None:
            self.table_vm.play_chance()

    def _demo_step(self, _dt: float) -> bool:
        session = self.session
        if (
            session is None
            or session.is_over
            or (
                self._demo_left <= 0 and not session.is_chance_node  # end where a player decides
            )
        ):
            if self._tour_folder is not None:
                Clock.schedule_once(lambda _dt: self._tour(list(TOUR)), 0.5)
            return False
        self._demo_left -= 1
        if session.is_chance_node:
            session.play_chance(self._demo_rng)
        elif self.table_vm is not None:
            ranked = self.table_vm.panel_ranked_actions()
            if ranked:
                pick = ranked[0] if self._demo_rng.random() < 0.7 else self._demo_rng.choice(ranked)
                session.apply(pick)
        return True

    # ---- live view ---
    def open_live(self, spec: str) -> bool:
        """Open a camera index, video file or image folder for the live view."""
        self._close_live()
        try:
            source = open_source(spec, loop=True)
        except FrameSourceError as error:
            self._set_no_source("table.no_source", reason=str(error))
            return False
        self._start_live(source)
        return True

    def _start_live(self, source: Any) -> None:
        """Run the live loop on an opened source (the recognition, when there is one)."""
        self._clip_source = source if isinstance(source, ClipSource) else None
        self._last_result = None
        perceive = self._perceive if self._perceive is not no_perception else self._perceive_frame
        self.live = LiveLoop(
            source, perceive, max_source_fps=source.fps or 30.0, perception_share=PERCEPTION_SHARE
        )
        self.live.start()
        self._shown_index = -1
        self._result_index = -1
        table = self.root_view.ids.table
        table.preview_scale = 1.0  # a new source starts at full size
        table.no_source = False
        table.source_message = ""

    def open_live_from_settings(self, quiet: bool = False) -> bool:
        """Open the source the settings name (used at start and by "try again")."""
        spec = self.settings_vm.settings.source_spec()
        if not spec:
            self._set_no_source("table.no_source_chosen")
            return False
        opened = self.open_live(spec)
        if opened and not quiet:
            self.show("table")
        return opened

    def _set_no_source(self, key: str, **fields: Any) -> None:
        """Show why there is no picture (kept as a key, so it follows the language)."""
        self._no_source = (key, fields)
        table = self.root_view.ids.table
        table.no_source = True
        table.source_message = self.translator.t(key, **fields)

    def _close_recognition(self) -> None:
        close = getattr(self.recognition, "close", None)  # test doubles may have none
        if close is not None:
            close()

    def _close_live(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None

    def toggle_pause(self) -> None:
        """Pause or resume the live view."""
        table = self.root_view.ids.table
        table.paused = not table.paused
        if self.table_vm is not None:
            self.table_vm.paused = table.paused
        if self.live is not None:
            self.live.set_paused(table.paused)

    def correct_at(self, x_px: float, y_px: float) -> bool:
        """Offer the candidates of the piece at a frame point; returns whether a piece is there."""
        corrections = self.corrections
        if corrections is None:
            return False
        index = corrections.object_at(self._seen, x_px, y_px)
        if index is None:
            return False
        seen = self._seen
        box = BoxLayout(orientation="vertical", spacing=8)
        popup = Popup(
            title=self.tr("table.correct"),
            title_size=sp(theme.FONT_LARGE),
            content=box,
            size_hint=(0.6, 0.9),
        )
        for identity in corrections.candidates(seen, index):
            button = BigButton(text=identity_text(self.translator, identity))

            def choose(_button: Any, identity: str = identity) -> None:
                corrections.correct(seen, index, identity)
                self._seen = corrections.apply(seen)
                self.root_view.ids.table.show_result(self._seen, self._seen_size)
                popup.dismiss()

            button.bind(on_release=choose)
            box.add_widget(button)
        cancel = BigButton(text=self.tr("settings.cancel"))
        cancel.bind(on_release=lambda *_: popup.dismiss())
        box.add_widget(cancel)
        popup.open()
        return True

    def choose_path(self, kind: str) -> None:
        """A file chooser for a video file (`kind` "video") or an image folder ("folder")."""
        settings = self.settings_vm.settings
        start = settings.video_path if kind == "video" else settings.folder_path
        start_folder = Path(start).parent if kind == "video" and start else Path(start or ".")
        if not start_folder.is_dir():
            start_folder = Path.home()
        chooser = FileChooserListView(
            path=str(start_folder.resolve()), dirselect=kind == "folder", font_name=theme.FONT_NAME
        )
        box = BoxLayout(orientation="vertical", spacing=8)
        box.add_widget(chooser)
        buttons = BoxLayout(size_hint_y=None, height=theme.TOUCH * 1.0, spacing=8)
        popup = Popup(title=self.tr(f"settings.choose_{kind}"), content=box, size_hint=(0.9, 0.9))

        def use(*_: Any) -> None:
            chosen = chooser.selection[0] if chooser.selection else chooser.path
            field = "video_path" if kind == "video" else "folder_path"
            if self.settings_vm.set(field, chosen):
                self.settings_vm.set("source_kind", kind)
                popup.dismiss()
                self.open_live_from_settings()

        use_button = BigButton(text=self.tr("settings.use_this"))
        use_button.bind(on_release=use)
        cancel = BigButton(text=self.tr("settings.cancel"))
        cancel.bind(on_release=lambda *_: popup.dismiss())
        buttons.add_widget(cancel)
        buttons.add_widget(use_button)
        box.add_widget(buttons)
        popup.open()

    def _tick_preview(self, _dt: float) -> None:
        live = self.live
        if live is None:
            return
        latest = live.latest_frame()
        table = self.root_view.ids.table
        if latest is not None and latest[0] != self._shown_index:
            self._shown_index, frame = latest
            current = self.root_view.ids.screens.current
            if current == "table":
                table.show_frame(frame)
            elif current == "scoring":  # what a scan would read
                self.root_view.ids.scoring.show_frame(frame)
            live.note_preview_shown()
            if self._clip is not None:
                self._follow_recording(self._shown_index)
            result = live.latest_result()
            if result is not None and result.frame_index != self._result_index:
                self._result_index = result.frame_index
                if isinstance(result.value, dict):
                    self._last_result = result.value
                self._seen = (
                    self.corrections.apply(result.value) if self.corrections else result.value
                )
                self._seen_size = (frame.shape[1], frame.shape[0])
                table.show_result(self._seen, self._seen_size)

        if self.recognition is not None:
            for event in self.recognition.take_events():
                self._on_event(event)

    def _tick_status(self, _dt: float) -> None:
        table = self.root_view.ids.table
        table.note = self._note()
        if self.live is None:
            table.status = ""
            return
        stats = self.live.stats()
        table.preview_scale = next_preview_scale(stats.preview_fps, table.preview_scale)
        source = self.live.source.description
        if self.table_vm is not None:
            line = self.table_vm.status(
                stats.preview_fps,
                stats.perception_latency_ms,
                perceiving=self.recognition is not None or self._perceive is not no_perception,
            )
        else:
            fps = "–" if stats.preview_fps is None else f"{stats.preview_fps:.0f}"
            line = self.translator.t("table.status.live", fps=fps, latency="–")
        table.status = f"{source} · {line}"

    # ---- recognition: the product loop ---
    def _build_recognition(self) -> None:
        """Recognition for the current session, or the reason there is none (shown on the Table)."""
        self._close_recognition()
        self.recognition = None
        session = self.session
        if session is None or self._perceive is not no_perception:
            return
        if self._recognition_factory is not None:
            self.recognition = self._recognition_factory(session, self.corrections)
            return
        try:
            from companion_app.viewmodels.settings import layout_json
            from vision.readers.cafe_international import load_board_corners

            layout_name = self._layout_name()
            printed = (
                session.game == "cafe-international"
                and self._clip is None
                and load_board_corners(layout_name, (4, 3)) is not None
            )
            self.recognition = load_recognition(
                session.game,
                session.state,
                len(session.players),
                corrections=self.corrections,
                demo=self._clip is not None,
                printed_board=printed,
                layout_json=(
                    layout_json(self.settings_vm.settings)
                    if session.game == "cafe-international"
                    else None
                ),
            )
            self.recognition_problem = None
        except (RecognitionUnavailable, ValueError, OSError) as error:
            # a missing model, or a layout file gone since the game began: the app goes on
            self.recognition_problem = str(error)
            _LOG.info("recognition unavailable: %s", error)

    def _layout_name(self) -> str:
        """The name of the Café board layout in use (its corners are remembered under it)."""
        layout = self.settings_vm.settings.layout
        if layout in ("", "reference"):
            return "reference"
        try:
            return str(storage.read_json(Path(layout).expanduser()).get("name", "layout"))
        except (OSError, ValueError, AttributeError):
            return "layout"

    def _perceive_frame(self, frame: Any) -> Any:
        """The live loop's perceive: the current game's recognition (nothing without one)."""
        recognition = self.recognition
        return None if recognition is None else recognition(frame)

    def _on_event(self, event: Any) -> None:
        """A tracker event: an explained change is applied (and a half-seen one told); a
        question is asked."""
        session = self.session
        if session is None or self.recognition is None:
            return
        if event.kind == "applied":
            self._apply_actions(event.actions)
        elif event.kind == "pending":
            # part of a move (a deal, a draw) was not seen: say so rather than look finished
            self.root_view.ids.table.message = self.tr("table.pending")
        elif event.kind == "unseen":
            # the table lay unread before the move: what was applied is a guess to check
            self.root_view.ids.table.message = self.tr("table.unseen")
        elif event.kind == "question":
            self._show_question(event)
        elif event.kind == "withdrawn" and self._question_popup is not None:
            self._question_popup.dismiss()
            self._question_popup = None

    def _apply_actions(self, actions: Any) -> None:
        """Apply engine actions the tracker already confirmed (autosaved, in the history)."""
        session = self.session
        if session is None:
            return
        self._applying = True
        try:
            for action in actions:
                session.apply(action)
        except ValueError as error:
            _LOG.warning("recognised actions refused by the session: %s", error)
        finally:
            self._applying = False
        if self.recognition is not None:
            self.recognition.sync(session.state)

    def _show_question(self, event: Any) -> None:
        """The tracker asks: its candidates as big buttons, or a request to tap what happened."""
        session = self.session
        if session is None:
            return
        if self._question_popup is not None:
            self._question_popup.dismiss()
        box = BoxLayout(orientation="vertical", spacing=8)
        key = "table.question" if event.candidates else "table.question_none"
        popup = Popup(
            title=self.tr(key),
            title_size=sp(theme.FONT_LARGE),
            content=box,
            # no candidate: only the message and one button, not an empty list
            size_hint=(0.7, 0.9 if event.candidates else 0.4),
            auto_dismiss=False,
        )
        for index, candidate in enumerate(event.candidates[:6]):
            text = " → ".join(
                describe_action(self.translator, session.game, session.action_json(a))
                for a in candidate
            )
            button = BigButton(text=text or self.tr("describe.none"))
            button.bind(on_release=lambda *_, index=index: self.answer_question(index))
            box.add_widget(button)
        later = BigButton(
            text=self.tr("table.question_tap" if event.candidates else "table.question_ok")
        )
        later.bind(on_release=lambda *_: self._close_question())
        box.add_widget(later)
        self._question_popup = popup
        popup.open()
        if self._clip is not None:
            Clock.schedule_once(lambda _dt: self._demo_answer(popup), DEMO_ANSWER_S)

    def _close_question(self) -> None:
        if self._question_popup is not None:
            self._question_popup.dismiss()
            self._question_popup = None

    def answer_question(self, index: int) -> None:
        """The player picked candidate `index` of the tracker's question."""
        if self.recognition is None:
            return
        try:
            actions = self.recognition.answer(index)
        except ValueError as error:
            self.root_view.ids.table.message = str(error)
        else:
            self._apply_actions(actions)
        self._close_question()

    def _demo_answer(self, popup: Popup) -> None:
        """The demo answers an open question from the recording (and says so)."""
        if self._question_popup is not popup or self.recognition is None or self._clip is None:
            return
        segment = self._clip_segment_shown()
        if segment is None or self.session is None:
            return
        game = self.session.game
        truth = self.session.rules.state_from_json(self._clip["segments"][segment]["state"])
        keys = [table_key(game, state) for state in self.recognition.candidate_states()]
        if table_key(game, truth) in keys:
            self.answer_question(keys.index(table_key(game, truth)))
        else:
            self._close_question()
            self._set_session_to_recording(segment)
        self.root_view.ids.table.message = self.tr("table.demo_answered")

    # ---- settings: zones, board corners, recognition ---
    def _settings_game(self) -> str:
        return self.session.game if self.session is not None else self.home_vm.game

    def _settings_message(self, text: str) -> None:
        self.root_view.ids.settings.message = text

    def _marking_frame(self) -> Any:
        """The newest camera frame to mark on (None, with a message, when there is none)."""
        latest = self.live.latest_frame() if self.live is not None else None
        if latest is None:
            self._settings_message(self.tr("settings.needs_picture"))
            return None
        return latest[1].copy()

    def mark_zones(self) -> None:
        """Pick a zone, then tap its four corners on the picture; saved for the game."""
        from companion_app.app.marking import mark_corners
        from vision.readers.zones import Zones, load_zones, save_zones

        game = self._settings_game()
        if game == "cafe-international":
            self._settings_message(self.tr("settings.no_zones"))
            return
        frame = self._marking_frame()
        if frame is None:
            return
        players = len(self.session.players) if self.session is not None else 5
        zones = load_zones(game, n_players=players)
        grid = GridLayout(cols=4, spacing=8, size_hint_y=None)
        grid.bind(minimum_height=grid.setter("height"))
        chooser = Popup(
            title=self.tr("settings.choose_zone"),
            title_size=sp(theme.FONT_LARGE),
            content=grid,
            size_hint=(0.8, 0.8),
        )

        def saved(zone: str, points: list[tuple[float, float]]) -> None:
            height, width = frame.shape[:2]
            polygon = np.asarray(points, float) / np.array([width, height], float)
            # the other zones moved into this picture's shape; saved with it
            shown = zones.in_frame((width, height))
            path = save_zones(Zones(game, {**shown.polygons, zone: polygon}, shown.aspect))
            self._settings_message(self.tr("settings.saved_to", path=str(path)))
            self._build_recognition()

        def pick(zone: str) -> None:
            chooser.dismiss()
            mark_corners(
                frame,
                lambda n: self.tr("settings.tap_corner", what=zone, n=n),
                lambda points: saved(zone, points),
                self.tr("settings.cancel"),
                self.tr("settings.zones"),
            )

        for zone in zones.polygons:
            button = BigButton(text=zone, font_size=sp(theme.FONT_SMALL))
            button.bind(on_release=lambda *_, zone=zone: pick(zone))
            grid.add_widget(button)
        chooser.open()

    def reset_zones(self) -> None:
        """Forget the marked zones of the game (the defaults for a tablet at the edge again)."""
        from vision.readers.zones import zones_file

        game = self._settings_game()
        if game == "cafe-international":
            self._settings_message(self.tr("settings.no_zones"))
            return
        zones_file(game).unlink(missing_ok=True)
        self._settings_message(self.tr("settings.zones_reset"))
        self._build_recognition()

    def mark_board_corners(self) -> None:
        """Tap the printed Café board's four corners; remembered for the board layout."""
        from companion_app.app.marking import mark_corners
        from vision.readers.cafe_international import save_board_corners

        frame = self._marking_frame()
        if frame is None:
            return
        what = self.tr("settings.board_corners")

        def saved(points: list[tuple[float, float]]) -> None:
            height, width = frame.shape[:2]
            path = save_board_corners(self._layout_name(), points, (width, height))
            self._settings_message(self.tr("settings.saved_to", path=str(path)))
            self._build_recognition()

        mark_corners(
            frame,
            lambda n: self.tr("settings.tap_corner", what=what, n=n),
            saved,
            self.tr("settings.cancel"),
            what,
        )

    def model_text(self, _language: str | None = None) -> str:
        """The Settings line about the detector model (kv calls it with the language)."""
        path = self._model_path_text()
        if detector_model_path().is_file():
            return self.tr("settings.model_ready", path=path)
        return self.tr("settings.model_missing", path=path)

    # ---- the demo's bundled clip ---
    def _bundled_clip(self, game: str) -> tuple[Path, dict[str, Any]] | None:
        """The bundled clip of `game` and its manifest (None when not there or unreadable)."""
        from datasets.demo_clips import clip_path, load_manifest

        path = clip_path(game)
        if path is None:
            return None
        try:
            return path, load_manifest(game)
        except ValueError as error:
            _LOG.warning("%s", error)
            return None

    @property
    def camera_is_demo_clip(self) -> bool:
        """Whether the live picture is the bundled demo recording (a whole table seen from the
        tablet's stand, not anybody's spread pieces)."""
        return self._clip is not None and self._clip_source is not None

    def _start_demo_clip(self, path: Path, manifest: dict[str, Any]) -> None:
        """Start the recorded game: its players, the steps before the clip's first frame."""
        del path
        self._clip = manifest
        self.home_vm.choose_game(manifest["game"])
        colours = list(COLOURS)
        self.home_vm.players = [
            Player(name, colours[i % len(colours)]) for i, name in enumerate(manifest["players"])
        ]
        self.home_vm.first = 0
        session = self.home_vm.start(options={}, seed=int(manifest["seed"]))
        for data in manifest["prelude"]:
            session.apply_json(data)
        self._clip_at = (0, 0)
        self._use_session(session)
        self.show("table")

    def _open_clip(self, path: Path) -> None:
        """Open the bundled clip as the live source (looping)."""
        self._close_live()
        try:
            source = ClipSource(path, repeat=CLIP_REPEAT)
        except FrameSourceError as error:
            self._set_no_source("table.no_source", reason=str(error))
            return
        self._start_live(source)

    def _clip_segment_shown(self) -> int | None:
        """The clip segment of the frame on screen (None outside the demo clip)."""
        if self._clip is None or self._clip_source is None or self._shown_index < 0:
            return None
        from datasets.demo_clips import segment_at

        return segment_at(self._clip, self._clip_source.clip_position(self._shown_index))

    def _follow_recording(self, frame_index: int) -> None:
        """The demo's session and the recording.

        Without recognition the session follows the recording's true states. With it, the
        tracker drives the session; when the clip moves on to its next table state and the
        previous change was not recognised, the session catches up from the recording (counted
        and shown, never passed off as recognised); a new loop of the clip starts over.
        """
        if self._clip is None or self._clip_source is None or self.session is None:
            return
        from datasets.demo_clips import segment_at

        position = self._clip_source.clip_position(frame_index)
        at = (position // max(1, int(self._clip["frames"])), segment_at(self._clip, position))
        if at == self._clip_at:
            return
        before, self._clip_at = self._clip_at, at
        if self.recognition is None or at[0] != before[0] or at[1] == 0:
            self._set_session_to_recording(at[1])
            return
        previous = at[1] - 1
        game, rules = self.session.game, self.session.rules
        now = table_key(game, self.session.state)
        # the tracker may already have the new state (the preview lags the worker): fine too
        same = any(
            now == table_key(game, rules.state_from_json(self._clip["segments"][k]["state"]))
            for k in (previous, at[1])
        )
        if previous > 0:
            self._demo_changes += 1
            self._demo_recognised += same
        if not same:
            self._set_session_to_recording(previous)

    def _recording_steps(self, segment: int) -> list[dict[str, Any]]:
        """Every step of the recorded game up to `segment`'s state, as action JSON."""
        assert self._clip is not None
        steps = list(self._clip["prelude"])
        for part in self._clip["segments"][1 : segment + 1]:
            steps += part["actions"]
        return steps

    def _set_session_to_recording(self, segment: int) -> None:
        """Bring the session to the recording's state at `segment`: undo back to where they
        agree, then apply the recorded steps (each autosaved, as a player's taps would be)."""
        session = self.session
        if session is None:
            return
        wanted = self._recording_steps(segment)
        have = [session.action_json(a) for a in session.history.actions]
        common = 0
        while common < min(len(have), len(wanted)) and have[common] == wanted[common]:
            common += 1
        self._applying = True
        try:
            while len(session.history.actions) > common and session.can_undo:
                session.undo()
            for data in wanted[len(session.history.actions) :]:
                session.apply_json(data)
        except ValueError as error:
            _LOG.warning("recorded step refused: %s", error)
        finally:
            self._applying = False
        if self.recognition is not None:
            self.recognition.sync(session.state)

    def _note(self) -> str:
        """The line over the picture: what is recognised, or why nothing is."""
        t = self.translator.t
        reason = t("table.no_model", path=self._model_path_text())
        if self.recognition is None:
            if self._clip is not None:
                return t("table.demo_recording", reason=reason)
            if self.live is not None and self.session is not None:
                return t("table.no_recognition", reason=self.recognition_problem or reason)
            return ""
        result = self._last_result
        parts = [t("table.demo_note")] if self._clip is not None else []
        if self._clip is not None and self._demo_changes:
            recognised, changes = self._demo_recognised, self._demo_changes
            parts.append(t("table.demo_progress", recognised=recognised, changes=changes))
        if result is not None:
            objects = [o for o in result.get("objects", []) if o.get("kind") != "die"]
            known = sum(1 for o in objects if o.get("identity"))
            parts.append(t("table.recognised", known=known, total=len(objects)))
            if result.get("observation_ok"):
                parts.append(t("table.table_read"))
                # read with a note (a tile seen but not identified): told, not refused
                notes = (result.get("seen") or {}).get("notes") or []
                if notes:
                    parts.append(str(notes[0]))
            elif result.get("problems"):
                parts.append(str(result["problems"][0]))
        return " · ".join(parts)

    def _model_path_text(self) -> str:
        path = detector_model_path()
        try:
            return str(path.relative_to(Path.cwd()))
        except ValueError:
            return str(path)

    # ---- scripted exits (screenshots, the window test) ---
    def _tap_steps(self, left: int, before: int) -> None:
        """Tap the first choice (or "At random" at a chance step) like a finger would."""
        from kivy.tests.common import UnitTestTouch  # only the scripted tour uses it

        session = self.session
        if left and session is not None and not session.is_over:
            table = self.root_view.ids.table
            choices = list(reversed(table.ids.choices.children))
            target = table.ids.random_button if session.is_chance_node else choices[0]
            touch = UnitTestTouch(*target.to_window(*target.center))
            touch.touch_down()
            touch.touch_up()
            Clock.schedule_once(lambda _dt: self._tap_steps(left - 1, before), TOUR_SETTLE_S / 2)
            return
        assert self._tour_folder is not None
        after = len(session.history.actions) if session else 0
        record = {"taps": TOUR_TAPS - left, "steps_before": before, "steps_after": after}
        (self._tour_folder / "taps.json").write_text(json.dumps(record), encoding="utf-8")
        self.stop()

    def _tap(self, widget: Any) -> None:
        """A simulated finger on `widget` (down and up at its centre)."""
        from kivy.tests.common import UnitTestTouch  # only the scripted runs use it

        touch = UnitTestTouch(*widget.to_window(*widget.center))
        touch.touch_down()
        touch.touch_up()

    def _play_taps(self) -> None:
        """Play the whole game with simulated touches: the first choice, or "At random" at a
        chance step; a few taps per frame (the Table redrawn after each, as a frame would).
        When the game is over, tap Scoring, save ``scoring.png`` and ``result.json``, exit."""
        session = self.session
        table = self.root_view.ids.table
        if session is None:
            self.exit_status = 3
            self.stop()
            return
        for _ in range(PLAY_TAPS_PER_FRAME):
            if session.is_over:
                break
            if session.is_chance_node:
                self._tap(table.ids.random_button)
            else:
                choices = list(reversed(table.ids.choices.children))
                if not choices:
                    break
                self._tap(choices[0])
            table.refresh()
        if not session.is_over:
            Clock.schedule_once(lambda _dt: self._play_taps(), 0)
            return
        nav = [
            child
            for child in self.root_view.walk()
            if isinstance(child, BigButton) and self.tr("nav.scoring") in str(child.text)
        ]
        self._tap(nav[0])
        Clock.schedule_once(lambda _dt: self._play_done(), TOUR_SETTLE_S)

    def _play_done(self) -> None:
        assert self._play_folder is not None and self.session is not None
        scoring = self.root_view.ids.scoring
        self.save_screenshot(self._play_folder / "scoring.png")
        shown = scoring.vm.result() if scoring.vm is not None else {}
        record = {
            "screen": self.root_view.ids.screens.current,
            "over": self.session.is_over,
            "steps": len(self.session.history.actions),
            "game_id": self.session.game_id,
            "engine_scores": self.session.scores(),
            "shown": {p: v["total"] for p, v in shown.get("players", {}).items()},
        }
        (self._play_folder / "result.json").write_text(json.dumps(record), encoding="utf-8")
        self.stop()

    def _scan_tap(self) -> None:
        """Show Scoring and tap the first person's Scan once the camera has a picture."""
        from companion_app.app.scoring import ScanButton

        scoring = self.root_view.ids.scoring
        if self.root_view.ids.screens.current != "scoring":
            self.show("scoring")  # tapped once the screen has slid in and laid out
            Clock.schedule_once(lambda _dt: self._scan_tap(), TOUR_SETTLE_S)
            return
        buttons = [w for w in scoring.walk() if isinstance(w, ScanButton)]
        has_picture = self.live is not None and self.live.latest_frame() is not None
        if not buttons or not has_picture:
            if time.monotonic() < self._scan_deadline:
                Clock.schedule_once(lambda _dt: self._scan_tap(), 0.2)
                return
            self._scan_done(None)
            return
        first = scoring.vm.scannable_rows()[0] if scoring.vm is not None else None
        button = next((b for b in buttons if b.row == first), buttons[0])
        self._tap(button.children[0])
        Clock.schedule_once(lambda _dt: self._scan_wait(button.row), 0.2)

    def _scan_wait(self, row: str) -> None:
        if self.root_view.ids.scoring.scanning and time.monotonic() < self._scan_deadline:
            Clock.schedule_once(lambda _dt: self._scan_wait(row), 0.2)
            return
        Clock.schedule_once(lambda _dt: self._scan_done(row), TOUR_SETTLE_S / 2)

    def _scan_done(self, row: str | None) -> None:
        """Save ``scoring.png`` and ``scan.json`` (the message, the row's counts), tap the
        picture and save it large (``picture.png``), then exit."""
        assert self._scan_folder is not None
        scoring = self.root_view.ids.scoring
        vm = scoring.vm
        self.save_screenshot(self._scan_folder / "scoring.png")
        game_counts: dict[str, int] = {}
        if vm is not None and row and self.session is not None:
            # the same form filled from the game alone: what the row shows without the photo
            from_game = scoring_for(vm.game, list(vm.players), self.translator)
            from_game.fill_from_state(self.session)
            game_counts = {c: from_game.count(row, c) for c in vm.columns()}
        record = {
            "row": row,
            "scanning": scoring.scanning,
            "message": scoring.scan_message,
            "counts": {c: vm.count(row, c) for c in vm.columns()} if vm and row else {},
            "game_counts": game_counts,
        }
        (self._scan_folder / "scan.json").write_text(json.dumps(record), encoding="utf-8")
        if scoring.ids.camera.texture is None:
            self.stop()
            return
        self._tap(scoring.ids.camera)  # the picture, large (``picture.png``)

        def shoot(_dt: float) -> None:
            assert self._scan_folder is not None
            self.save_screenshot(self._scan_folder / "picture.png")
            self.stop()

        Clock.schedule_once(shoot, TOUR_SETTLE_S)

    def save_screenshot(self, path: Path) -> Path:
        """Save the window to `path` (PNG)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        # Draw the current frame into the back buffer first: after a buffer swap it holds an
        # older frame, which is what a plain screenshot would read.
        Window.dispatch("on_draw")
        written = Window.screenshot(name=str(path.resolve()))
        os.replace(written, path)
        return path

    def _finish(self, _dt: float = 0.0) -> None:
        if self._screenshot is not None:
            self.save_screenshot(self._screenshot)
        self._print_stats()
        self.stop()

    def _print_stats(self) -> None:
        """One line of the live loop's own figures on stderr (the demo's measured numbers)."""
        if self.live is None:
            return
        stats = self.live.stats()

        def number(value: float | None) -> str:
            return "-" if value is None else f"{value:.1f}"

        stages = self.recognition.stage_ms if self.recognition is not None else {}
        stream = sys.__stderr__ or sys.stderr  # Kivy redirects sys.stderr to its logger
        stream.write(
            f"live: {self.live.source.description}; preview {number(stats.preview_fps)} FPS; "
            f"source {number(stats.source_fps)} FPS; perception {number(stats.perception_fps)} "
            f"FPS, latency {number(stats.perception_latency_ms)} ms (median); "
            f"frames read {stats.frames_read}, perceived {stats.frames_perceived}, "
            f"errors {stats.perception_errors}; demo changes recognised "
            f"{self._demo_recognised}/{self._demo_changes}; recognition "
            f"{'on' if self.recognition is not None else 'off: ' + str(self.recognition_problem)}"
            f"; last stages ms { ({k: round(v, 1) for k, v in stages.items()}) }\n"
        )

    def _tour(self, remaining: list[str]) -> None:
        """Show each screen in `remaining` and save ``<name>.png``; a name ``screen@lang``
        switches the language first (run-time switching, seen in the real window). Then tap
        through `TOUR_TAPS` steps on the Table with simulated touches and write ``taps.json``."""
        if not remaining:
            self.set_language("en")
            self.show("table")
            before = len(self.session.history.actions) if self.session else 0
            Clock.schedule_once(lambda _dt: self._tap_steps(TOUR_TAPS, before), TOUR_SETTLE_S)
            return
        shot = remaining[0]
        name, _, language = shot.partition("@")
        if language:
            self.set_language(language)
        self.show(name)

        def shoot(_dt: float) -> None:
            assert self._tour_folder is not None
            self.save_screenshot(self._tour_folder / f"{shot.replace('@', '_')}.png")
            self._tour(remaining[1:])

        Clock.schedule_once(shoot, TOUR_SETTLE_S)
