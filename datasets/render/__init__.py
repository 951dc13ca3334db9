"""Synthetic table scenes: a plain description of placed pieces, rendered like a camera photo.

A scene is first a list of `PlacedPiece` values (identity, pose on the table plane, stacking order)
and `Distractor` values; `render_pieces` draws such a list under an `Environment` (camera, table
surface, light, camera effects) and returns the image with a truth record per piece (corners,
visible box, visible fraction, target flag). `render_sample` draws a random scene from a seed.

Modules: `pieces` (the description), `arrangements` (piles, rows, fans, thrown dice), `layouts`
(how each game lies in real play), `camera`, `textures`, `table_edge`, `lighting`, `effects`,
`dice`, `distractors`, `scene` (composition), `labels` (YOLO and truth), `ranges` (the random
ranges).

Public names: `PlacedPiece`, `Distractor`, `TableScene`, `Environment`, `render_pieces`,
`render_sample`, `sample_environment`.
"""

from datasets.render.pieces import Distractor, PlacedPiece, TableScene
from datasets.render.scene import Environment, render_pieces, render_sample, sample_environment

__all__ = [
    "Distractor",
    "Environment",
    "PlacedPiece",
    "TableScene",
    "render_pieces",
    "render_sample",
    "sample_environment",
]
