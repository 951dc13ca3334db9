"""The `table-companion` console command: one entry point, one module per subcommand.

Each subcommand lives in its own module with two functions, ``configure(parser)`` (its options)
and ``run(args) -> int`` (the exit status). A subcommand whose module has not landed yet is still
listed and answers, in one line, that it is not available yet (exit 2). Bad input anywhere ends
with exit status 2 and a one-line reason on standard error, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import ModuleType
from typing import NoReturn

PROG = "table-companion"

# subcommand → (handler module, one-line help). Order is the order of `--help`.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "demo": ("companion_app.cli.demo", "run the companion on the embedded demo (no camera needed)"),
    "run": ("companion_app.cli.run_app", "run the companion live on a camera, video or folder"),
    "score": ("companion_app.cli.score", "final scores from counts or from photos"),
    "advise": ("companion_app.cli.advise", "list the legal actions for a position, best first"),
    "detect": ("companion_app.cli.detect", "find cards, tiles and dice in images"),
    "dataset": ("companion_app.cli.dataset", "synthetic data: generate, preview, print"),
    "enroll": ("companion_app.cli.enroll", "teach the app your own copy of a game"),
    "layout": ("companion_app.cli.layout", "Café International board layouts: show, trace"),
}

GAME_NAMES = ("kings-breakfast", "cafe-international", "dice-king")


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line and exit 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def _load_handler(module_name: str) -> ModuleType | None:
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name == module_name:
            return None
        raise


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, ModuleType | None]]:
    """Build the full parser; return it with the handler module of each subcommand (or None)."""
    parser = _Parser(prog=PROG, description="A camera companion for tabletop games.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    handlers: dict[str, ModuleType | None] = {}
    for name, (module_name, help_text) in SUBCOMMANDS.items():
        handler = _load_handler(module_name)
        handlers[name] = handler
        if handler is None:
            sub = subparsers.add_parser(name, help=f"{help_text} (not available yet)")
            sub.add_argument("rest", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
            sub.add_argument("--json", action="store_true", help="machine-readable output")
        else:
            sub = subparsers.add_parser(name, help=help_text, description=help_text)
            handler.configure(sub)
    return parser, handlers


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return (and, as a console script, exit with) its status."""
    parser, handlers = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 2
    handler = handlers[args.command]
    if handler is None:
        sys.stderr.write(f"{PROG}: '{args.command}' is not available yet\n")
        return 2
    try:
        return int(handler.run(args) or 0)
    except ValueError as error:  # engines' and our own bad-input errors are ValueErrors
        sys.stderr.write(f"{PROG} {args.command}: {_one_line(error)}\n")
        return 2
    except OSError as error:
        sys.stderr.write(f"{PROG} {args.command}: {_one_line(error)}\n")
        return 2
    except KeyboardInterrupt:
        return 130


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split()) or type(error).__name__


def entry_point() -> None:
    raise SystemExit(main())


__all__ = ["GAME_NAMES", "SUBCOMMANDS", "build_parser", "main"]
