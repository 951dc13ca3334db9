"""`GameSession`: undo/redo, autosave after every change, resume with the exact state, the log."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from companion_app.storage import GameStore
from companion_app.viewmodels.session import GameSession, Player
from tests.companion_app import toy_game

PLAYERS = (Player("Anna", "red"), Player("Ben", "blue"), Player("Cecilia", "green"))


def _session(saves: list[dict[str, Any]] | None = None, first: int = 0) -> GameSession:
    return GameSession.start(
        "toy",
        PLAYERS,
        first=first,
        game_id="g1",
        seed=3,
        save=None if saves is None else saves.append,
        rules=toy_game,
    )


def _play(session: GameSession, steps: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    for _ in range(steps):
        if session.is_chance_node:
            session.play_chance(rng)
        else:
            session.apply(rng.choice(session.legal_actions()))


def test_start_rotates_seats_so_the_starter_acts_first() -> None:
    session = _session(first=1)
    assert [p.name for p in session.players] == ["Ben", "Cecilia", "Anna"]
    session.play_chance()
    assert session.player_to_act == "Ben"


def test_every_change_autosaves() -> None:
    saves: list[dict[str, Any]] = []
    session = _session(saves)
    assert len(saves) == 1  # the new game itself
    _play(session, 4)
    session.undo()
    session.redo()
    assert len(saves) == 1 + 4 + 2
    assert saves[-1]["state"] == toy_game.state_to_json(session.state)


def test_undo_redo_walk_the_history() -> None:
    session = _session()
    _play(session, 6)
    states = session.history.states
    session.undo()
    session.undo()
    assert session.state == states[-3] and session.can_redo
    session.redo()
    assert session.state == states[-2]
    session.apply(
        session.legal_actions()[0]
    ) if not session.is_chance_node else session.play_chance()
    assert not session.can_redo  # a new step clears redo


def test_illegal_action_is_refused_and_not_saved() -> None:
    saves: list[dict[str, Any]] = []
    session = _session(saves)
    with pytest.raises(ValueError, match="TOY-1"):
        session.apply(toy_game.Keep())  # a roll is due first
    assert len(saves) == 1 and not session.can_undo


def test_resume_restores_exact_state_history_and_redo(tmp_path: Path) -> None:
    store = GameStore(tmp_path)
    session = _session()
    session._save = store.save  # autosave into the store from now on
    _play(session, 9, seed=5)
    session.undo()
    record = json.loads(json.dumps(store.load("g1")))  # through JSON text, as on disk
    resumed = GameSession.from_record(record, rules=toy_game)
    assert resumed.state == session.state
    assert resumed.history == session.history
    assert [p.name for p in resumed.players] == ["Anna", "Ben", "Cecilia"]


def test_resume_keeps_state_when_actions_do_not_replay() -> None:
    session = _session()
    _play(session, 5)
    record = session.to_record()
    record["actions"] = record["actions"][:-2]  # a damaged log
    resumed = GameSession.from_record(record, rules=toy_game)
    assert resumed.state == session.state and not resumed.can_undo


def test_resume_rejects_damaged_record() -> None:
    with pytest.raises(ValueError, match="damaged"):
        GameSession.from_record({"game": "toy"}, rules=toy_game)


def test_log_by_round_groups_steps_newest_round_first() -> None:
    session = _session()
    _play(session, 8)
    rounds = session.log_by_round()
    assert [number for number, _ in rounds] == [2, 1]
    first_round = rounds[-1][1]
    assert len(first_round) == 6
    assert first_round[0].is_chance and first_round[0].player is None
    assert first_round[1].player == "Anna" and not first_round[1].is_chance


def test_listeners_hear_every_change() -> None:
    session = _session()
    heard: list[int] = []
    session.add_listener(lambda s: heard.append(len(s.history.actions)))
    _play(session, 3)
    session.undo()
    assert heard == [1, 2, 3, 2]


def test_view_models_do_not_import_kivy() -> None:
    code = (
        "import sys, companion_app.viewmodels, companion_app.live, companion_app.storage; "
        "sys.exit('kivy' in sys.modules)"
    )
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0
