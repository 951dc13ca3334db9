"""The user data folder: atomic writes that survive crashes, saved games, settings, exports."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from companion_app import storage
from companion_app.storage import GameStore, StorageError


@pytest.fixture()
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(storage.HOME_ENV, str(tmp_path / "home"))
    return tmp_path / "home"


def test_env_var_replaces_the_data_folder(home: Path) -> None:
    assert storage.data_home() == home
    assert home.is_dir()


def test_atomic_write_replaces_content(tmp_path: Path) -> None:
    target = tmp_path / "a" / "b.json"
    storage.atomic_write_json(target, {"v": 1})
    storage.atomic_write_json(target, {"v": 2})
    assert storage.read_json(target) == {"v": 2}
    assert [p.name for p in target.parent.iterdir()] == ["b.json"]  # no temp file left


def test_crash_between_temp_write_and_rename_keeps_old_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "save.json"
    storage.atomic_write_json(target, {"turn": 7})

    def killed(*_: object) -> None:
        raise KeyboardInterrupt("simulated kill before rename")

    monkeypatch.setattr(storage.os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        storage.atomic_write_json(target, {"turn": 8})
    assert storage.read_json(target) == {"turn": 7}
    assert [p.name for p in tmp_path.iterdir()] == ["save.json"]


_WRITER = """
import sys
from companion_app.storage import atomic_write_json
payload = "x" * 200_000
n = 0
while True:
    n += 1
    atomic_write_json(sys.argv[1], {"n": n, "payload": payload})
    if n == 20:
        print("ready", flush=True)
"""


def test_kill_during_writes_leaves_a_whole_file(tmp_path: Path) -> None:
    """A real SIGKILL of a process that keeps saving: the file is always one whole version."""
    target = tmp_path / "game.json"
    child = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(target)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    value = storage.read_json(target)
    assert value["n"] >= 20 and len(value["payload"]) == 200_000


def test_read_json_errors_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(StorageError, match="not found"):
        storage.read_json(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{oops")
    with pytest.raises(StorageError, match="malformed json"):
        storage.read_json(tmp_path / "bad.json")


def _record(game_id: str, finished: bool = False, steps: int = 2) -> dict[str, object]:
    return {
        "id": game_id,
        "game": "dice-king",
        "players": [{"name": "Anna", "colour": "red"}, {"name": "Ben", "colour": "blue"}],
        "actions": [{"n": i} for i in range(steps)],
        "finished": finished,
    }


def test_game_store_save_load_list(home: Path) -> None:
    store = GameStore()
    store.save(_record("20260101-000000-000001-dice-king", finished=True))
    store.save(_record("20260101-000000-000002-dice-king", steps=5))
    (store.folder / "damaged.json").write_text("{")
    listed = store.list()
    assert [info.game_id for info in listed] == [
        "20260101-000000-000002-dice-king",
        "20260101-000000-000001-dice-king",
    ]
    assert listed[0].players == ("Anna", "Ben") and listed[0].steps == 5
    assert store.latest_unfinished() == listed[0]
    loaded = store.load("20260101-000000-000002-dice-king")
    assert loaded["actions"] == [{"n": i} for i in range(5)] and "updated" in loaded
    store.delete("20260101-000000-000002-dice-king")
    assert store.latest_unfinished() is None


def test_game_store_rejects_path_tricks(home: Path) -> None:
    with pytest.raises(StorageError, match="bad saved game id"):
        GameStore().path_of("../etc/passwd")


def test_settings_round_trip(home: Path) -> None:
    assert storage.load_settings() == {}
    storage.save_settings({"language": "fi", "camera_index": 1})
    assert storage.load_settings() == {"language": "fi", "camera_index": 1}


RESULTS = {
    "game": "kings-breakfast",
    "players": {
        "Anna": {"total": 12, "discarded": 0, "by_food": {"cheese": 12}},
        "Ben": {"total": 2, "discarded": 5, "by_food": {"cheese": 0, "bread": 2}},
    },
    "ranking": ["Anna", "Ben"],
    "winners": ["Anna"],
}


def test_export_results_json_and_csv(home: Path) -> None:
    json_path, csv_path = storage.export_results(RESULTS, "final")
    assert json.loads(json_path.read_text(encoding="utf-8")) == RESULTS
    rows = list(csv.DictReader(io.StringIO(csv_path.read_text(encoding="utf-8"))))
    assert [r["player"] for r in rows] == ["Anna", "Ben"]
    assert rows[0]["rank"] == "1" and rows[0]["winner"] == "True"
    assert rows[1]["by_food.bread"] == "2" and rows[0]["by_food.bread"] == ""
    assert csv_path.parent == home / "exports"
