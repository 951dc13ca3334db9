"""Trace a Café International board layout from a photo: a helper for describing one's own board.

The pipeline reads as its diagram, one module a stage:

1. **board** (`board`) — the four corners of the board: given by the user, or the largest convex
   quadrilateral outline in the photo (`find_board`);
2. **rectify** (`board`) — a top-down view of the board; the board's true aspect ratio is
   recovered from the perspective of its outline (`rectify`);
3. **tables** (`tables`) — the weightiest family of circles of one size with something printed
   inside (`find_tables`, Hough transform, each circle refined on its edge); tables that look
   oval mean the board's proportions were misjudged: the view is stretched until they are round;
4. **chairs** (`chairs`) — small square shapes that touch a table (`find_chairs`, closed
   outlines);
5. **touch** (`touch`) — each chair belongs to the 1 or 2 tables its outline reaches
   (`assign_chairs`);
6. **flags** (`flags`) — each table's flag compared with a small table of simplified flags
   (`FLAGS`, read from ``layout_trace_flags.json`` beside this package); when no orientation
   was given, the board is turned so that the flags read best; a close or poor match is marked
   unsure;
7. **bar** (`bar`) — circles smaller than the tables, off the tables: the bar's stools when
   there are 20 (`find_stools`);
8. **layout** (`layout`) — the design's layout JSON with the default bar values, validated by
   the engine's loader; every problem and every unsure guess is listed for the user to check
   (`trace_layout`, the orchestrator, returns a `Trace`).

`compare` measures a traced layout against a known one (`compare_layouts`); `config` holds the
thresholds of every stage (`TraceConfig`) and the one error (`TraceError`).

It is a helper, not an oracle: the result is meant to be drawn (``layout show``), compared with
the board and edited. Frames are ``uint8`` BGR arrays of shape (H, W, 3).

Public names: `TraceConfig`, `TraceError`, `TracedTable`, `TracedChair`, `Trace`, `FLAGS`,
`find_board`, `rectify`, `find_tables`, `find_chairs`, `assign_chairs`, `guess_nationalities`,
`find_stools`, `trace_layout`, `compare_layouts`.
"""

from vision.layout_trace.bar import find_stools
from vision.layout_trace.board import find_board, rectify
from vision.layout_trace.chairs import find_chairs
from vision.layout_trace.compare import compare_layouts
from vision.layout_trace.config import TraceConfig, TraceError
from vision.layout_trace.flags import FLAGS, TracedTable, guess_nationalities
from vision.layout_trace.layout import Trace, TracedChair, trace_layout
from vision.layout_trace.tables import find_tables
from vision.layout_trace.touch import assign_chairs

__all__ = [
    "FLAGS",
    "Trace",
    "TraceConfig",
    "TraceError",
    "TracedChair",
    "TracedTable",
    "assign_chairs",
    "compare_layouts",
    "find_board",
    "find_chairs",
    "find_stools",
    "find_tables",
    "guess_nationalities",
    "rectify",
    "trace_layout",
]
