"""Multi-frame voting: one identity per physical piece seen over several frames.

The live loop sees the same card in many frames; each frame's identification is a vote. A
`VoteTracker` follows pieces from frame to frame by overlap (IoU of their boxes, the same kind),
keeps a decaying tally of identity scores per piece, and answers for each detection of the latest
frame the identity with the largest tally and a combined confidence: that identity's share of all
votes cast for the piece (a "no identity" vote counts against every identity), times how much
evidence there is (saturating with `VotingConfig.full_evidence`). An identity is only reported when
it leads clearly (`VotingConfig.min_share`, `VotingConfig.min_confidence`): voting never turns
disagreement into a guess.

Frames are not needed: only `Detections`. Pieces not seen for `VotingConfig.max_missed` frames are
forgotten.

Public names: `VotingConfig`, `VoteTracker`, `box_iou`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from vision.detections import Detections


@dataclass(frozen=True)
class VotingConfig:
    """Thresholds of multi-frame voting.

    Attributes:
        min_iou: a detection continues a tracked piece of the same kind when their boxes
            overlap at least this much (intersection over union).
        decay: each frame, earlier votes are multiplied by this (older frames count less).
        null_vote: weight of a frame in which the piece was seen but not identified.
        full_evidence: total vote weight at which the confidence stops growing with evidence.
        min_share: the leading identity needs at least this share of the votes.
        min_confidence: and at least this combined confidence.
        max_missed: a piece unseen for more frames than this is forgotten.
        replaced_after: a piece identified as one other identity than its votes' leader in
            this many frames in a row was replaced where it lies (a Café tile drawn into a
            hand's emptied place, a King's Breakfast pile dealt anew): its earlier votes, for
            the piece that lay there before, are dropped. Without it a long-seen piece's tally
            took about 9 frames to change hands (0.9 s at 10 frames a second, the reading
            passing through "unknown" on the way), and a table still for less than that never
            gave a stable reading. None: never.
    """

    min_iou: float = 0.3
    decay: float = 0.9
    null_vote: float = 0.5
    full_evidence: float = 3.0
    min_share: float = 0.6
    min_confidence: float = 0.3
    max_missed: int = 15
    replaced_after: int | None = 2


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pairwise IoU of (n, 4) and (m, 4) boxes ``[x1, y1, x2, y2]``: an (n, m) array."""
    a = np.asarray(a, np.float64).reshape(-1, 4)
    b = np.asarray(b, np.float64).reshape(-1, 4)
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a[:, None] + area_b[None, :] - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(union > 0, inter / union, 0.0)


@dataclass
class _Track:
    kind: str
    box: np.ndarray
    votes: dict[str, float] = field(default_factory=dict)
    null: float = 0.0
    missed: int = 0
    challenger: str | None = None  # an identity other than the leader's, seen in a row …
    streak: int = 0  # … this many frames


class VoteTracker:
    """Combines per-frame identities of cards and tiles into one identity per physical piece."""

    def __init__(self, config: VotingConfig | None = None) -> None:
        self.config = config or VotingConfig()
        self._tracks: list[_Track] = []

    def __len__(self) -> int:
        return len(self._tracks)

    def reset(self) -> None:
        """Forget every piece (a new game, the camera moved)."""
        self._tracks = []

    def update(self, detections: Detections) -> Detections:
        """Add one frame's votes; return `detections` with the voted identities and confidences.

        Dice pass through unchanged. A card or tile whose votes do not agree clearly gets
        identity None and score 0.
        """
        config = self.config
        for track in self._tracks:
            for key in track.votes:
                track.votes[key] *= config.decay
            track.null *= config.decay
            track.missed += 1
        rows = [i for i in range(len(detections)) if detections.kinds[i] in ("card", "tile")]
        assigned = self._assign(detections, rows)
        identities = detections.identities.copy()
        scores = detections.identity_scores.copy()
        for i in rows:
            track = assigned[i]
            identity = detections.identities[i]
            self._replaced(track, identity)
            if identity is None:
                track.null += config.null_vote
            else:
                weight = float(max(detections.identity_scores[i], 1e-3))
                track.votes[identity] = track.votes.get(identity, 0.0) + weight
            track.box = detections.boxes_xyxy[i].astype(np.float64)
            track.missed = 0
            identities[i], scores[i] = self._decide(track)
        self._tracks = [t for t in self._tracks if t.missed <= config.max_missed]
        return detections.with_fields(identities=identities, identity_scores=scores)

    def _assign(self, detections: Detections, rows: list[int]) -> dict[int, _Track]:
        """Greedy matching by IoU (best pairs first); unmatched detections start new tracks."""
        out: dict[int, _Track] = {}
        if self._tracks and rows:
            iou = box_iou(detections.boxes_xyxy[rows], np.stack([t.box for t in self._tracks]))
            kinds = np.array([t.kind for t in self._tracks], object)
            same = detections.kinds[rows][:, None] == kinds[None, :]
            iou = np.where(same, iou, 0.0)
            used_tracks: set[int] = set()
            for flat in np.argsort(-iou, axis=None):
                r, t = np.unravel_index(flat, iou.shape)
                if iou[r, t] < self.config.min_iou:
                    break
                if rows[r] in out or t in used_tracks:
                    continue
                out[rows[r]] = self._tracks[t]
                used_tracks.add(int(t))
        for i in rows:
            if i not in out:
                track = _Track(str(detections.kinds[i]), detections.boxes_xyxy[i].astype(float))
                self._tracks.append(track)
                out[i] = track
        return out

    def _replaced(self, track: _Track, identity: str | None) -> None:
        """Count `identity` against `track`'s leader; after `replaced_after` frames in a row
        of one other identity, only that identity's votes are kept (a new piece lies there)."""
        limit = self.config.replaced_after
        leader = max(track.votes.items(), key=lambda kv: kv[1])[0] if track.votes else None
        if identity is None or identity == leader or leader is None:
            track.challenger, track.streak = None, 0
            return
        track.streak = track.streak + 1 if identity == track.challenger else 1
        track.challenger = identity
        if limit is not None and track.streak >= limit:
            track.votes = {identity: track.votes.get(identity, 0.0)}
            track.null = 0.0
            track.challenger, track.streak = None, 0

    def _decide(self, track: _Track) -> tuple[str | None, float]:
        config = self.config
        if not track.votes:
            return None, 0.0
        identity, best = max(track.votes.items(), key=lambda kv: kv[1])
        total = sum(track.votes.values()) + track.null
        share = best / total if total > 0 else 0.0
        confidence = share * min(1.0, total / config.full_evidence)
        if share < config.min_share or confidence < config.min_confidence:
            return None, 0.0
        return identity, float(confidence)


__all__ = ["VoteTracker", "VotingConfig", "box_iou"]
