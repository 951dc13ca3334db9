"""`table-companion layout …`: Café International board layouts.

- ``layout show NAME|PATH --out PNG [--bar default|alternative]`` draws a layout (``reference``,
  a layout file, or a layout saved under the user data folder's ``layouts/``) as a diagram.
- ``layout trace PHOTO --out LAYOUT.json [--corners x1,y1,…,x4,y4] [--json]`` traces a layout
  from a photo of a board (`vision.layout_trace`): tables, chairs, which chair touches which
  table, each table's flag guessed, the bar's stools, the default bar values. It prints what it
  found, what to confirm, and the next step; a photo with no board exits 2.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

from companion_app.cli._common import UsageError, print_json, print_lines


def configure(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="layout_action", metavar="ACTION")
    show = actions.add_parser("show", help="draw a layout as a diagram PNG")
    show.add_argument("layout", metavar="NAME|PATH", help="'reference', a layout file or a name")
    show.add_argument("--out", required=True, metavar="PNG", help="where to write the picture")
    show.add_argument(
        "--bar", default="default", metavar="READING", help="bar reading: default or alternative"
    )
    show.add_argument("--json", action="store_true", help="machine-readable output")
    trace = actions.add_parser("trace", help="trace a layout from a photo of a board")
    trace.add_argument("photo", metavar="PHOTO", help="a photo of the whole board, from above")
    trace.add_argument("--out", required=True, metavar="LAYOUT.json", help="where to write it")
    trace.add_argument(
        "--corners",
        metavar="x1,y1,x2,y2,x3,y3,x4,y4",
        help="the board's corners in the photo (pixels), clockwise from its top left",
    )
    trace.add_argument("--name", help="the layout's name (default: the photo's file name)")
    trace.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "layout_action", None)
    if action == "trace":
        return _trace(args)
    if action != "show":
        raise UsageError("choose an action: layout show NAME|PATH --out PNG, or layout trace")
    from companion_app.board_diagram import save_layout_png
    from companion_app.cli.cafe_international import layout_summary, load_layout

    layout = load_layout(args.layout, bar=args.bar)
    out = Path(args.out)
    if out.suffix.lower() != ".png":
        raise UsageError(f"--out must name a .png file, got {args.out!r}")
    save_layout_png(layout, str(out))
    if args.json:
        print_json({"out": str(out), **layout_summary(layout)})
    else:
        summary = layout_summary(layout)
        print_lines(
            [
                f"wrote {out}: layout {summary['name']!r}, {summary['tables']} tables, "
                f"{summary['chairs']} chairs ({summary['shared_chairs']} shared), "
                f"bar reading {summary['bar_reading']}"
            ]
        )
    return 0


def _parse_corners(text: str | None) -> list[list[float]] | None:
    if text is None:
        return None
    try:
        values = [float(v) for v in text.split(",")]
    except ValueError:
        values = []
    if len(values) != 8 or not all(math.isfinite(v) for v in values):
        raise UsageError(f"--corners must be 8 numbers x1,y1,...,x4,y4, got {text!r}")
    return [values[i : i + 2] for i in range(0, 8, 2)]


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(prefix=path.name, suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _layout_text(layout: dict[str, Any]) -> str:
    """The layout as JSON for a person to edit: one table or chair per line."""

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    parts = []
    for key, value in layout.items():
        if key in ("tables", "chairs") and value:
            rows = ",\n".join(f"    {one(entry)}" for entry in value)
            parts.append(f"  {one(key)}: [\n{rows}\n  ]")
        elif isinstance(value, dict) and value:
            rows = ",\n".join(f"    {one(k)}: {one(v)}" for k, v in value.items())
            parts.append(f"  {one(key)}: {{\n{rows}\n  }}")
        else:
            parts.append(f"  {one(key)}: {one(value)}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def _trace(args: argparse.Namespace) -> int:
    """`layout trace PHOTO --out LAYOUT.json [--corners …] [--name NAME] [--json]`."""
    import cv2

    from vision.layout_trace import trace_layout

    corners = _parse_corners(args.corners)
    out = Path(args.out)
    if out.suffix.lower() != ".json":
        raise UsageError(f"--out must name a .json file, got {args.out!r}")
    photo_path = Path(args.photo)
    if not photo_path.is_file():
        raise UsageError(f"photo {args.photo!r} not found")
    photo = cv2.imread(str(photo_path), cv2.IMREAD_COLOR)
    if photo is None:
        raise UsageError(f"photo {args.photo!r} is not an image opencv can read")
    trace = trace_layout(photo, corners, name=args.name or photo_path.stem)
    _write_atomically(out, _layout_text(trace.layout))
    layout = trace.layout
    shared = sum(1 for c in layout["chairs"] if len(c["tables"]) == 2)
    stools = len(layout["bar"].get("stools", []))
    next_step = f"table-companion layout show {out} --out check.png"
    if args.json:
        print_json(
            {
                "out": str(out),
                "tables": len(layout["tables"]),
                "chairs": len(layout["chairs"]),
                "shared_chairs": shared,
                "stools": stools,
                "nationalities": {t["id"]: t["nationality"] for t in layout["tables"]},
                "corners_px": layout["traced_from"]["corners_px"],
                "corners_given": trace.corners_given,
                "valid": trace.is_valid,
                "problems": list(trace.problems),
                "unsure": list(trace.unsure),
                "next": next_step,
            }
        )
        return 0
    where = "given" if trace.corners_given else "found from its outline"
    lines = [
        f"wrote {out}: {len(layout['tables'])} tables, {len(layout['chairs'])} chairs "
        f"({shared} shared), {stools} bar stools",
        f"board corners ({where}): "
        + " ".join(f"{x:g},{y:g}" for x, y in layout["traced_from"]["corners_px"]),
        "nationalities (guessed from the flags): "
        + ", ".join(
            f"{t['id']} {t['nationality']}" + ("?" if "unsure" in t else "")
            for t in layout["tables"]
        ),
        "bar: the default values were written; check them against your board"
        + (", stools numbered clockwise from the top-left one" if stools else ""),
    ]
    if trace.unsure:
        lines.append("to confirm: " + "; ".join(trace.unsure))
    if trace.problems:
        lines.append(
            "problems (the layout will not load until fixed): " + "; ".join(trace.problems)
        )
    else:
        lines.append("the layout loads as it is")
    lines.append(f"next: {next_step}, compare it with your board, then edit {out}")
    print_lines(lines)
    return 0
