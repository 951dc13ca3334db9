"""The demo's bundled clips: a seeded game simulated by its engine, rendered as a short video.

`simulate(game, seed)` plays a seeded game with `engines.api.random_step` and keeps the table at
rest after each player decision (chance outcomes are played until a player decides again). A clip
shows `STATES` consecutive rest states from step `START` of the game, each held `HOLD_FRAMES`
frames at `FPS` frames per second (long enough for the tracker's 0.5 s stability rule even with a
slow detector), rendered by `datasets.state_render.render_state`.

`write_clip(game, folder)` writes ``<game>.mp4`` and ``<game>.json`` (the manifest). The manifest
holds the truth per frame range, so the app can follow the recorded game when it cannot
recognise it, and tests can compare what is read with the truth::

    {"format": 1, "game": ..., "players": [...], "seed": ..., "fps": ..., "frames": N,
     "size": [w, h], "prelude": [action JSON, ...],   # steps before the first frame
     "segments": [{"start": i, "end": j,               # frames i .. j-1 show this state
                   "actions": [action JSON, ...],      # steps from the previous segment's state
                   "state": state JSON, "scores": {name: points},
                   "objects": [{"kind", "box", "corners", "identity" | "value", "colour"}]},
                  ...]}                                # the rendered pieces (truth)

Regenerate the committed clips (about 30 s)::

    .venv/bin/python -m datasets.demo_clips [--out companion_app/demo_clips]

Public names: `ClipSegment`, `SimulatedClip`, `simulate`, `write_clip`, `load_manifest`,
`segment_at`, `clip_path`, `CLIP_FOLDER`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2

from engines import game_rules
from engines.api import random_step

GAMES = ("kings-breakfast", "cafe-international", "dice-king")
CLIP_FOLDER = Path(__file__).resolve().parents[1] / "companion_app" / "demo_clips"
FORMAT = 1
FPS = 10.0
HOLD_FRAMES = 16  # 1.6 s per table state
SIZE = (800, 600)
PLAYERS: dict[str, tuple[str, ...]] = {
    "kings-breakfast": ("Anna", "Ben", "Cecilia"),
    "cafe-international": ("Anna", "Ben", "Cecilia"),
    "dice-king": ("Anna", "Ben", "Cecilia"),
}
SEEDS: dict[str, int] = {"kings-breakfast": 11, "cafe-international": 12, "dice-king": 13}
# the look of the table (surface, light, camera): one per clip, chosen calm to compress well
RENDER_SEEDS: dict[str, int] = {"kings-breakfast": 5, "cafe-international": 3, "dice-king": 5}
START: dict[str, int] = {"kings-breakfast": 6, "cafe-international": 4, "dice-king": 4}
STATES = 12


@dataclass(frozen=True)
class ClipSegment:
    """One table state of a clip: the frames that show it and how the game got there."""

    start: int
    end: int
    actions: tuple[dict[str, Any], ...]
    state: Any
    state_json: dict[str, Any]
    scores: dict[str, int]


@dataclass(frozen=True)
class SimulatedClip:
    """A simulated game cut to the clip's states (no pixels yet)."""

    game: str
    players: tuple[str, ...]
    seed: int
    prelude: tuple[dict[str, Any], ...]
    segments: tuple[ClipSegment, ...]

    @property
    def frames(self) -> int:
        """Frames in the clip."""
        return self.segments[-1].end if self.segments else 0


def simulate(
    game: str,
    seed: int | None = None,
    *,
    start: int | None = None,
    states: int = STATES,
    hold_frames: int = HOLD_FRAMES,
) -> SimulatedClip:
    """Play a seeded game and keep `states` rest states from rest state number `start`.

    Raises:
        ValueError: unknown game, or `states` < 1.
    """
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r} (known: {', '.join(GAMES)})")
    if states < 1:
        raise ValueError(f"states must be at least 1, got {states}")
    seed = SEEDS[game] if seed is None else seed
    start = START[game] if start is None else start
    rules = game_rules(game)
    players = PLAYERS[game]
    rng = random.Random(seed)
    state = rules.new_game(list(players))
    steps: list[dict[str, Any]] = []

    def settle() -> None:
        nonlocal state
        while not rules.is_over(state) and rules.is_chance_node(state):
            action = random_step(rules, state, rng)
            steps.append(dict(rules.action_to_json(action)))
            state = rules.apply(state, action)

    settle()
    rest = [(list(steps), state)]
    while not rules.is_over(state) and len(rest) < start + states:
        action = random_step(rules, state, rng)
        steps.append(dict(rules.action_to_json(action)))
        state = rules.apply(state, action)
        settle()
        rest.append((list(steps), state))
    start = min(start, max(0, len(rest) - states))
    chosen = rest[start : start + states]
    prelude = tuple(chosen[0][0])
    segments = []
    done = len(prelude)
    for k, (taken, at) in enumerate(chosen):
        segments.append(
            ClipSegment(
                start=k * hold_frames,
                end=(k + 1) * hold_frames,
                actions=tuple(taken[done:]),
                state=at,
                state_json=dict(rules.state_to_json(at)),
                scores=dict(rules.scores(at)),
            )
        )
        done = len(taken)
    return SimulatedClip(game, players, seed, prelude, tuple(segments))


def _recorded(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The renderer's truth records a perfect detector would find, rounded for the manifest."""
    out = []
    for o in objects:
        if not o.get("target") or o.get("box") is None:
            continue
        item: dict[str, Any] = {
            "kind": o["kind"],
            "box": [round(float(v), 1) for v in o["box"]],
            "target": True,
        }
        if o["kind"] == "die":
            item["value"], item["colour"] = o.get("value"), o.get("colour")
        else:
            item["corners"] = [[round(float(x), 1), round(float(y), 1)] for x, y in o["corners"]]
            item["identity"] = o.get("identity")
            item["face_up"] = bool(o.get("face_up", True))
        out.append(item)
    return out


def manifest(
    clip: SimulatedClip,
    fps: float = FPS,
    size: tuple[int, int] = SIZE,
    objects: list[list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """The clip's manifest as JSON (see the module docstring); `objects` are each segment's
    recorded pieces (the renderer's truth: box, corners, identity or die value)."""
    return {
        "format": FORMAT,
        "game": clip.game,
        "players": list(clip.players),
        "seed": clip.seed,
        "fps": fps,
        "frames": clip.frames,
        "size": list(size),
        "prelude": list(clip.prelude),
        "segments": [
            {
                "start": s.start,
                "end": s.end,
                "actions": list(s.actions),
                "state": s.state_json,
                "scores": s.scores,
                "objects": objects[k] if objects is not None else [],
            }
            for k, s in enumerate(clip.segments)
        ],
    }


def render_states(
    game: str, states: list[Any], size: tuple[int, int] = SIZE, render_seed: int | None = None
) -> list[tuple[Any, list[dict[str, Any]]]]:
    """Render `states` at one table: the same camera, surface and light for every state (a
    clip of one game). Returns (BGR image, truth records) per state."""
    import numpy as np

    from datasets.render.scene import render_pieces
    from datasets.state_render import HIDDEN, environment, place_state, table_camera

    seed = RENDER_SEEDS[game] if render_seed is None else render_seed
    rng = np.random.default_rng([seed, 17])
    camera = table_camera(game, size, rng)
    scene = environment(camera, rng)
    out = []
    for state in states:
        pieces = place_state(game, state, np.random.default_rng([seed, 18]))
        rendered = render_pieces(pieces, [], scene)
        records = list(rendered.objects)
        for placed, record in zip(pieces, records, strict=True):
            if placed.group.endswith(HIDDEN):
                record["target"] = False  # under other pieces: no detection target
        out.append((rendered.image, records))
    return out


def write_clip(
    game: str,
    folder: Path = CLIP_FOLDER,
    *,
    seed: int | None = None,
    states: int = STATES,
    hold_frames: int = HOLD_FRAMES,
    size: tuple[int, int] = SIZE,
) -> tuple[Path, Path]:
    """Simulate, render and write ``<game>.mp4`` and ``<game>.json`` into `folder`.

    Returns the two paths. The video is written to a temporary file first, then moved.

    Raises:
        OSError: the video cannot be written (no MPEG-4 encoder in this OpenCV).
    """
    clip = simulate(game, seed, states=states, hold_frames=hold_frames)
    folder.mkdir(parents=True, exist_ok=True)
    video = folder / f"{game}.mp4"
    handle, temporary = tempfile.mkstemp(suffix=".mp4", dir=folder)
    os.close(handle)
    writer = cv2.VideoWriter(temporary, cv2.VideoWriter.fourcc(*"mp4v"), FPS, size)
    if not writer.isOpened():
        os.unlink(temporary)
        raise OSError(f"cannot write an mp4 video to {video}")
    objects = []
    try:
        for segment, (image, records) in zip(
            clip.segments, render_states(game, [s.state for s in clip.segments], size), strict=True
        ):
            objects.append(_recorded(records))
            for _ in range(segment.end - segment.start):
                writer.write(image)
    finally:
        writer.release()
    os.chmod(temporary, 0o644)
    os.replace(temporary, video)
    data = json.dumps(manifest(clip, FPS, size, objects), separators=(",", ":"), sort_keys=True)
    path = folder / f"{game}.json"
    path.write_text(data + "\n", encoding="utf-8")
    return video, path


def clip_path(game: str, folder: Path = CLIP_FOLDER) -> Path | None:
    """The bundled clip of `game` (None when it is not there)."""
    path = folder / f"{game}.mp4"
    return path if path.is_file() and (folder / f"{game}.json").is_file() else None


def load_manifest(game: str, folder: Path = CLIP_FOLDER) -> dict[str, Any]:
    """The manifest of `game`'s bundled clip.

    Raises:
        ValueError: missing or malformed manifest (named).
    """
    path = folder / f"{game}.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as error:
        raise ValueError(f"demo clip manifest {path} unreadable: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("game") != game:
        raise ValueError(f"demo clip manifest {path} is not a format-{FORMAT} {game} manifest")
    return data


def segment_at(data: dict[str, Any], frame_index: int) -> int:
    """The index of the segment that frame `frame_index` of a looping clip shows."""
    frames = int(data["frames"])
    position = frame_index % frames if frames > 0 else 0
    for k, segment in enumerate(data["segments"]):
        if segment["start"] <= position < segment["end"]:
            return k
    return len(data["segments"]) - 1


class RecordedDetector:
    """A stand-in for the detector on a bundled clip, for tests and benchmarks: it finds which
    table state a frame shows (the nearest of the clip's state frames, compared at 80×60) and
    returns that state's recorded pieces as `Detections` (boxes, corners, die values), with
    card and tile identities left out unless `with_identities` (then the truth's)."""

    def __init__(self, game: str, folder: Path = CLIP_FOLDER, with_identities: bool = False):
        import numpy as np

        self.data = load_manifest(game, folder)
        self.with_identities = with_identities
        starts = [int(s["start"]) for s in self.data["segments"]]
        capture = cv2.VideoCapture(str(folder / f"{game}.mp4"))
        thumbs: dict[int, Any] = {}
        index = 0
        while len(thumbs) < len(starts):
            ok, frame = capture.read()
            if not ok:
                break
            if index in starts:
                thumbs[index] = self._thumb(frame)
            index += 1
        capture.release()
        self._thumbs = np.stack([thumbs[s] for s in starts])

    @staticmethod
    def _thumb(frame: Any) -> Any:
        import numpy as np

        return cv2.resize(frame, (80, 60), interpolation=cv2.INTER_AREA).astype(np.float32)

    def segment_of(self, frame: Any) -> int:
        """The clip segment `frame` shows."""
        import numpy as np

        distances = np.abs(self._thumbs - self._thumb(frame)).mean(axis=(1, 2, 3))
        return int(distances.argmin())

    def __call__(self, frame: Any) -> Any:
        import numpy as np

        from datasets.state_render import detections_from_truth

        objects = self.data["segments"][self.segment_of(frame)]["objects"]
        detections = detections_from_truth(objects)
        if self.with_identities:
            return detections
        none = np.empty(len(detections), dtype=object)
        none[:] = None
        return detections.with_fields(
            identities=none, identity_scores=np.zeros(len(detections), np.float32)
        )


def main(argv: list[str] | None = None) -> int:
    """Write the bundled clips (all games, or those named)."""
    parser = argparse.ArgumentParser(description="write the demo's bundled clips")
    parser.add_argument("--out", type=Path, default=CLIP_FOLDER)
    parser.add_argument("games", nargs="*", default=list(GAMES))
    args = parser.parse_args(argv)
    for game in args.games:
        video, path = write_clip(game, args.out)
        size = video.stat().st_size + path.stat().st_size
        print(f"{game}: {video} ({size / 1e6:.2f} MB with its manifest)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


__all__ = [
    "CLIP_FOLDER",
    "ClipSegment",
    "RecordedDetector",
    "SimulatedClip",
    "clip_path",
    "load_manifest",
    "manifest",
    "segment_at",
    "simulate",
    "write_clip",
]
