"""`table-companion layout …`: Café International board layouts.

- ``layout show NAME|PATH --out PNG [--bar default|alternative]`` draws a layout (``reference``,
  a layout file, or a layout saved under the user data folder's ``layouts/``) as a diagram.
- ``layout trace PHOTO --out LAYOUT.json`` will trace a layout from a photo of a board; it is not
  available yet.
"""

from __future__ import annotations

import argparse
from pathlib import Path

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
    trace = actions.add_parser("trace", help="trace a layout from a photo (not available yet)")
    trace.add_argument("photo", metavar="PHOTO")
    trace.add_argument("--out", required=True, metavar="LAYOUT.json")
    trace.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    action = getattr(args, "layout_action", None)
    if action == "trace":
        raise UsageError("'layout trace' is not available yet")
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
