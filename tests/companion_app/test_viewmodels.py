"""Screen view models over the real engines: home, settings, table, history, panels, scoring.

All Kivy-free and fast; the one whole-app test is `test_app_window.py`.
"""

from __future__ import annotations

import csv
import io
import json
import random
from pathlib import Path

import pytest

from companion_app.i18n import Translator
from companion_app.storage import GameStore
from companion_app.viewmodels import PANELS
from companion_app.viewmodels.describe import describe_action, describe_tile
from companion_app.viewmodels.history import HistoryViewModel
from companion_app.viewmodels.home import HomeViewModel
from companion_app.viewmodels.scoring import scoring_for
from companion_app.viewmodels.session import GameSession
from companion_app.viewmodels.settings import Settings, SettingsViewModel, game_options
from companion_app.viewmodels.table import TableViewModel

GAMES = ("kings-breakfast", "cafe-international", "dice-king")
TR = Translator("en")


def _session(
    game: str, seed: int = 1, steps: int = 0, store: GameStore | None = None
) -> GameSession:
    home = HomeViewModel(store)
    home.choose_game(game)
    session = home.start(seed=seed)
    _play(session, steps, seed)
    return session


def _play(session: GameSession, steps: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        if session.is_over:
            return
        if session.is_chance_node:
            session.play_chance(rng)
        else:
            session.apply(rng.choice(session.legal_actions()))


def _lines(sections: list, title: str) -> dict[str, str]:
    section = next(s for s in sections if s.title == title)
    return {line.label: line.value for line in section.lines}


# ---- home ----------------------------------------------------------------------------------------


def test_home_seats_players_and_reports_every_problem() -> None:
    home = HomeViewModel()
    home.choose_game("cafe-international")
    home.add_player()
    home.add_player()  # a fifth is refused: Café International takes 2–4
    assert [p.name for p in home.players] == ["Anna", "Ben", "Cecilia", "P4"]
    home.rename_player(3, "  Anna  ")
    home.rename_player(1, "")
    keys = [problem.key for problem in home.problems()]
    assert keys == ["home.problem.empty_name", "home.problem.duplicate"]
    assert not home.can_start
    with pytest.raises(ValueError, match="cannot start"):
        home.start()
    home.choose_game("kings-breakfast")
    home.remove_player(3)
    home.remove_player(2)
    assert [p.key for p in home.problems()] == ["home.problem.count", "home.problem.empty_name"]


def test_home_starter_follows_the_player_when_seats_move() -> None:
    home = HomeViewModel()
    home.set_first(2)
    home.move_player(2, -1)
    assert home.first == 1 and home.players[1].name == "Cecilia"
    home.remove_player(0)
    assert home.players[home.first].name == "Cecilia"
    colours = {p.colour for p in home.players}
    home.cycle_colour(0)
    assert home.players[0].colour not in colours - {home.players[0].colour}


def test_home_start_passes_the_first_cook_to_the_engine() -> None:
    """KB-5, KB-9: the chosen cook deals and acts first; seats keep their clockwise order."""
    home = HomeViewModel()
    home.set_first(1)
    session = home.start()
    assert [p.name for p in session.players] == ["Anna", "Ben", "Cecilia"]
    assert session.view["cook"] == "Ben"


@pytest.mark.parametrize("game", GAMES)
def test_resume_restores_the_exact_engine_state(tmp_path: Path, game: str) -> None:
    store = GameStore(tmp_path)
    session = _session(game, seed=3, steps=40, store=store)
    session.undo()
    home = HomeViewModel(store)
    [info] = home.saved_games()
    assert info.game == game and info.steps == len(session.history.actions)
    text = json.dumps(store.load(info.game_id))  # what is on disk, as text
    resumed = GameSession.from_record(json.loads(text))
    assert resumed.state == session.state
    assert resumed.history == session.history  # undo/redo survive too
    resumed_via_home = home.resume(info.game_id)
    assert resumed_via_home.state == session.state


# ---- settings ------------------------------------------------------------------------------------


def test_settings_validate_save_and_reload(tmp_path: Path) -> None:
    vm = SettingsViewModel(tmp_path)
    assert not vm.set("camera_index", "twelve")
    assert vm.error == "bad camera index 'twelve' in settings.camera_index"
    assert not vm.set("language", "xx")
    vm.step_camera(+1)
    vm.step_camera(+20)
    assert vm.settings.camera_index == 9
    assert vm.set("folder_path", str(tmp_path)) and vm.set("source_kind", "folder")
    assert vm.settings.source_spec() == str(tmp_path) and vm.path_problem() is None
    assert vm.set("language", "lt") and vm.set("bar_values", "alternative")
    reloaded = SettingsViewModel(tmp_path).settings
    assert reloaded == vm.settings
    assert Settings.from_json({"camera_index": -3, "language": "hu"}) == Settings(language="hu")


def test_settings_choose_the_bar_reading_for_cafe() -> None:
    """CI-5: both readings of stools 11–20 can be selected."""
    default = game_options("cafe-international", Settings())["layout"].bar_values
    other = game_options("cafe-international", Settings(bar_values="alternative"))["layout"]
    assert default[:10] == other.bar_values[:10] and default[10:] != other.bar_values[10:]
    assert game_options("dice-king", Settings()) == {}


def test_the_recognition_gets_the_users_board_layout(tmp_path: Path) -> None:
    """A layout file in the settings is what the Café reader places tiles with (its chairs'
    positions); the reference layout is left to the reader; a broken file says so."""
    from companion_app.viewmodels.settings import layout_json

    assert layout_json(Settings()) is None
    own = {"name": "mine", "tables": [], "chairs": []}
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(own), encoding="utf-8")
    assert layout_json(Settings(layout=str(path))) == own
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match="does not hold a JSON object"):
        layout_json(Settings(layout=str(path)))


# ---- table and history ---------------------------------------------------------------------------


def test_table_offers_chance_outcomes_then_legal_actions() -> None:
    session = _session("dice-king")
    table = TableViewModel(session, TR)
    assert session.is_chance_node and table.prompt() == TR.t("table.prompt.chance.dice-king")
    choices = table.choices()
    probabilities = [choice.probability or 0.0 for choice in choices]
    assert probabilities == sorted(probabilities, reverse=True) and sum(probabilities) <= 1.0
    while session.is_chance_node:
        table.play_chance()
    assert table.prompt() == f"{session.player_to_act}, your turn"
    chosen = table.choices()[0]
    assert table.choose(chosen) and session.history.actions[-1] == chosen.action


def test_table_refused_action_says_why() -> None:
    session = _session("kings-breakfast")
    table = TableViewModel(session, TR)
    legal_later = session.rules.action_from_json({"type": "draw"})
    from companion_app.viewmodels.table import Choice

    assert not table.choose(Choice("draw", legal_later))
    assert table.message and not session.can_undo


def test_table_status_line() -> None:
    table = TableViewModel(_session("dice-king"), TR)
    assert table.status(24.6, 81.2) == "25 FPS · recognition 81 ms"
    assert table.status(None, None) == "– FPS · recognition – ms"
    table.toggle_pause()
    assert table.status(30.0, 10.0) == "Paused"


def test_history_groups_by_round_and_undoes() -> None:
    session = _session("kings-breakfast", steps=25)
    history = HistoryViewModel(session, TR)
    rounds = history.rounds()
    assert rounds[0].title == f"Round {session.round}" and rounds[-1].title == "Round 1"
    assert sum(len(r.lines) for r in rounds) == 25
    assert rounds[-1].lines[0].startswith("1. Table: Dealt: ")
    before = session.state
    text = history.undo_text()
    history.undo()
    assert text.startswith("Undo: ") and history.can_redo
    history.redo()
    assert session.state == before


# ---- panels --------------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_its_panel_all_game_long(game: str) -> None:
    session = _session(game)
    table = TableViewModel(session, TR)
    assert isinstance(table.panel, PANELS[game])
    rng = random.Random(5)
    for _ in range(60):
        sections = table.sections()
        assert sections and all(section.title for section in sections)
        if session.is_over:
            break
        if session.is_chance_node:
            session.play_chance(rng)
        else:
            session.apply(table.choices()[0].action)


def test_kb_panel_shows_king_values_offer_and_hints() -> None:
    """KB-21: each food's card is worth the king's count; the offer and hints for the player."""
    session = _session("kings-breakfast", steps=60, seed=2)
    while session.is_chance_node or session.view["phase"] not in ("act",):
        _play(session, 1, 9)
    table = TableViewModel(session, TR)
    sections = table.sections()
    king = _lines(sections, TR.t("kb.king"))
    for food, count in session.view["king"].items():
        assert king[food] == f"king {count} · {count} pts each"
    turn = _lines(sections, "Turn")
    assert turn["Cook"] == session.view["cook"] and turn["Rounds left"] == str(
        session.view["rounds_left"]
    )
    hints = next(s for s in sections if s.title.startswith("Hints for"))
    assert hints.lines[0].tone == "good"
    best = table.panel.hints()["actions"][0]["action"]  # type: ignore[attr-defined]
    assert session.action_json(table.choices()[0].action) == best


def test_cafe_panel_bar_tally_and_best_moves() -> None:
    """CI-14, CI-5: stools taken, the points they gave and the next stool's value."""
    session = _session("cafe-international", steps=150, seed=4)
    while session.is_chance_node:
        _play(session, 1, 1)
    sections = TableViewModel(session, TR).sections()
    bar = session.view["bar"]
    tally = _lines(sections, "The bar")
    assert tally["Stools taken"] == f"{bar['taken']} / 20"
    next_line = next(k for k in tally if k.startswith("Next stool"))
    assert str(bar["next_stool"]) in next_line
    best = next(s for s in sections if s.title.startswith("Best moves"))
    points = [int(line.value.split(" ")[0].replace("−", "-")) for line in best.lines]
    assert points == sorted(points, reverse=True)


def test_dice_king_panel_dice_and_keep_advice() -> None:
    """DK-8, DK-9: the six dice as read and the best keeps with exact chances."""
    session = _session("dice-king", seed=6)
    rng = random.Random(6)
    while not (len(session.view["dice"]) == 6 and session.view["rolls_left"] > 0):
        _play(session, 1, rng.randrange(1000))
        if session.is_over:
            pytest.skip("no roll with dice left in this seed")
    sections = TableViewModel(session, TR).sections()
    dice = next(s for s in sections if s.title == "The dice").lines[0].label
    assert sum(dice.count(face) for face in "⚀⚁⚂⚃⚄⚅") == 6
    keeps = next(s for s in sections if s.title.startswith("Keep advice"))
    assert keeps.lines and all(line.value.endswith("%") for line in keeps.lines)


# ---- scoring -------------------------------------------------------------------------------------


def test_kb_scoring_matches_the_contract_example() -> None:
    """KB-20, KB-21, KB-23: the design's worked example, with the clause on every line."""
    form = scoring_for("kings-breakfast", ["Anna", "Ben"], TR)
    for row, column, value in [
        ("king", "cheese", 4),
        ("king", "bread", 2),
        ("Anna", "cheese", 3),
        ("Ben", "cheese", 5),
        ("Ben", "bread", 1),
    ]:
        form.set_count(row, column, value)
    result = form.result()
    assert result["players"]["Anna"] == {"total": 12, "discarded": 0, "by_food": {"cheese": 12}}
    assert result["players"]["Ben"]["total"] == 2 and result["winners"] == ["Anna"]
    clauses = [(line.player, line.clause, line.points) for line in form.breakdown()]
    assert clauses == [
        ("Anna", "KB-21", 12),
        ("Ben", "KB-20", 0),
        ("Ben", "KB-21", 2),
        ("Ben", "KB-23", None),
    ]


def test_kb_scoring_king_without_food() -> None:
    """KB-22: a food the king holds none of scores 0."""
    form = scoring_for("kings-breakfast", ["Anna"], TR)
    form.set_count("Anna", "wine", 2)
    assert [(line.clause, line.points) for line in form.breakdown()][0] == ("KB-22", 0)


def test_cafe_scoring_charges_tiles_left_in_hand() -> None:
    """CI-22: 5 points per guest and 10 per joker left in hand."""
    form = scoring_for("cafe-international", ["Anna", "Ben"], TR)
    form.set_count("Anna", "points", 40)
    form.set_count("Anna", "tiles", 2)
    form.set_count("Anna", "jokers", 1)
    form.set_count("Ben", "points", 25)
    result = form.result()
    assert result["players"]["Anna"]["total"] == 20 and result["ranking"] == ["Ben", "Anna"]
    assert [line.clause for line in form.breakdown() if line.player == "Anna"] == [
        "CI-18",
        "CI-22",
        "CI-22",
    ]


def test_dice_king_scoring_fairies_and_tie_break() -> None:
    """DK-20: n fairies score n(n+1)/2; DK-26: a tie goes to fewer penalty cards."""
    form = scoring_for("dice-king", ["Anna", "Ben"], TR)
    form.set_count("Anna", "fairies", 3)
    form.set_count("Anna", "inhabitants", 4)
    form.set_count("Ben", "inhabitants", 14)
    form.set_count("Ben", "penalties", 4)
    form.set_count("Ben", "penalty_cards", 1)
    result = form.result()
    assert result["players"]["Anna"]["total"] == 10 and result["players"]["Ben"]["total"] == 10
    assert result["winners"] == ["Anna"]
    assert ("DK-20", 6) in [(line.clause, line.points) for line in form.breakdown()]


@pytest.mark.parametrize("game", GAMES)
def test_scoring_fills_from_a_played_game_and_agrees_with_the_engine(game: str) -> None:
    session = _session(game, steps=400, seed=8)
    form = scoring_for(game, [p.name for p in session.players], TR)
    form.fill_from_state(session)
    totals = {name: entry["total"] for name, entry in form.result()["players"].items()}
    if session.is_over or game != "cafe-international":  # the Café charges hands at the end
        assert totals == session.scores()


def test_scoring_export_writes_json_and_csv(tmp_path: Path) -> None:
    form = scoring_for("cafe-international", ["Anna", "Ben"], TR)
    form.set_count("Ben", "points", 7)
    json_path, csv_path = form.export("final", tmp_path)
    assert json.loads(json_path.read_text(encoding="utf-8"))["winners"] == ["Ben"]
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert rows[0]["player"] == "Ben" and rows[0]["total"] == "7"


# ---- text ----------------------------------------------------------------------------------------


def test_describe_tiles_and_actions_in_every_language() -> None:
    assert describe_tile(TR, "joker/m@italy") == "joker ♂ → Italy"
    fi = Translator("fi")
    assert describe_action(fi, "kings-breakfast", {"type": "take", "food": "cheese"}) == (
        "Ota juusto-pino"
    )
    assert describe_action(TR, "dice-king", {"type": "reroll", "keep": []}) == (
        "Keep nothing, roll the rest"
    )
    assert describe_action(TR, "dice-king", {"type": "reroll", "keep": ["5r", "5g"]}) == (
        "Keep 5 red, 5 green, roll the rest"
    )
    assert describe_action(TR, "kings-breakfast", {"type": "new_kind", "x": 1}) == "new kind x=1"


def test_table_status_without_recognition() -> None:
    table = TableViewModel(_session("dice-king"), TR)
    assert table.status(21.0, 0.1, perceiving=False) == "21 FPS · no recognition"


def test_cafe_panel_places_each_tile_in_hand() -> None:
    """CI-13, CI-14: every tile in the mover's hand gets its best own placement (or none)."""
    session = _session("cafe-international", steps=80, seed=3)
    while session.is_chance_node:
        _play(session, 1, 2)
    sections = TableViewModel(session, TR).sections()
    tiles = next(s for s in sections if s.title.startswith("Tiles of"))
    mover = next(p for p in session.view["players"] if p["name"] == session.player_to_act)
    assert len(tiles.lines) == len(set(mover["hand"]))
    for line in tiles.lines:
        assert line.value == "nowhere now" or line.value.lstrip("+−-").isdigit()


@pytest.mark.parametrize("game", ["cafe-international", "kings-breakfast"])
def test_a_whole_game_tapped_through_ends_with_the_engines_scores(game: str) -> None:
    """Every step through the Table's choices (as taps would), then Scoring agrees (CI-22,
    KB-19…KB-23): the totals, ranking and winners of the finished game."""
    session = _session(game, seed=11)
    table = TableViewModel(session, TR)
    for _ in range(3000):
        if session.is_over:
            break
        if session.is_chance_node:
            assert table.play_chance()
        else:
            assert table.choose(table.choices()[0])
    assert session.is_over and table.prompt() == TR.t("table.prompt.over")
    form = scoring_for(game, [p.name for p in session.players], TR)
    form.fill_from_state(session)
    result = form.result()
    totals = {name: entry["total"] for name, entry in result["players"].items()}
    assert totals == session.scores()
    assert result["winners"] and set(result["winners"]) <= set(totals)
    best = max(totals.values())
    assert all(totals[name] == best for name in result["winners"])


def test_a_slow_preview_is_uploaded_smaller_for_the_rest_of_the_session() -> None:
    """Software OpenGL spends most of a frame uploading the picture: under LOW_PREVIEW_FPS the
    preview drops to REDUCED_PREVIEW of the view's pixels and stays there; a device that keeps
    up (or has not measured yet) stays at full size."""
    from companion_app.viewmodels.table import (
        LOW_PREVIEW_FPS,
        REDUCED_PREVIEW,
        next_preview_scale,
    )

    assert next_preview_scale(None, 1.0) == 1.0
    assert next_preview_scale(LOW_PREVIEW_FPS + 5, 1.0) == 1.0
    assert next_preview_scale(LOW_PREVIEW_FPS - 1, 1.0) == REDUCED_PREVIEW < 1.0
    assert next_preview_scale(LOW_PREVIEW_FPS + 5, REDUCED_PREVIEW) == REDUCED_PREVIEW
