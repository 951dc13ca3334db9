"""The tracker's rule search in a process of its own, so that the preview keeps drawing.

Explaining a table change (`engines.<game>.explain.explain_states`) is a pure-Python search that
can take a second or more when cards are unknown; in the app's recognition thread it held the
interpreter lock that long, and the preview, drawn by the UI thread, stalled (King's Breakfast
demo: 14.6–16.5 FPS once the corner refiner let more cards be named). `ProcessExplainer` sends
the states to one spawned worker process and waits without the lock. The search is the same
function, so the answers are the same; the worker runs at a lower priority (nice 10), so on
a two-core tablet the search waits for the preview rather than the other way round. If the
worker cannot start or dies, the search runs here, as before (slower preview, same answers),
and the failure is logged once.

Public names: `ProcessExplainer`.
"""

from __future__ import annotations

import contextlib
import importlib
import logging
import multiprocessing
import os
import threading
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from vision.tracker import EXPLAIN_MODULES

_LOG = logging.getLogger(__name__)


def _lower_priority() -> None:
    """Runs at the worker's start: the search yields the cores to the preview and perception."""
    with contextlib.suppress(AttributeError, OSError):  # not here, or not allowed: run as is
        os.nice(10)


def _explain(module_name: str, before: Any, after: Any, visited: bool) -> Any:
    """Runs in the worker process."""
    return importlib.import_module(module_name).explain_states(before, after, visited=visited)


def _loose(module_name: str, before: Any, after: Any, visited: bool) -> Any:
    """Runs in the worker process: the game's `loose_explanations`, searching with its own
    `explain_states` (none: nothing)."""
    loose = getattr(importlib.import_module(module_name), "loose_explanations", None)
    return [] if loose is None else loose(before, after, visited=visited)


class ProcessExplainer:
    """``explain_states(before, after, *, visited)`` of `game`, run in a worker process.

    Raises:
        KeyError: an unknown game.
    """

    def __init__(self, game: str) -> None:
        self.module_name = EXPLAIN_MODULES[game]
        self._pool: ProcessPoolExecutor | None = None
        self._local_only = False
        self._guard = threading.Lock()
        pool = self._executor()
        if pool is not None:  # start the worker and import the rules now, not at the first move
            pool.submit(importlib.import_module, self.module_name)

    def _executor(self) -> ProcessPoolExecutor | None:
        with self._guard:
            if self._pool is None and not self._local_only:
                try:
                    context = multiprocessing.get_context("spawn")
                    self._pool = ProcessPoolExecutor(
                        max_workers=1, mp_context=context, initializer=_lower_priority
                    )
                except (OSError, ValueError) as error:
                    self._fail(error)
            return self._pool

    def _fail(self, error: BaseException) -> None:
        if not self._local_only:
            _LOG.warning("rule search worker unavailable, searching in-process: %s", error)
        self._local_only = True

    def __call__(self, before: Any, after: Any, *, visited: bool = False) -> Any:
        return self._run(_explain, before, after, visited)

    def loose(self, before: Any, after: Any, *, visited: bool = False) -> Any:
        """The game's `loose_explanations(before, after, visited=…)` in the worker (what
        explains a looser reading: King's Breakfast's searches its own way, which would hold
        the interpreter lock here for a fraction of a second)."""
        return self._run(_loose, before, after, visited)

    def _run(self, function: Any, before: Any, after: Any, visited: bool) -> Any:
        pool = self._executor()
        if pool is not None:
            try:
                return pool.submit(function, self.module_name, before, after, visited).result()
            except (BrokenProcessPool, OSError, RuntimeError) as error:
                with self._guard:
                    self._fail(error)
                    self._pool = None
        return function(self.module_name, before, after, visited)

    def close(self) -> None:
        """Stop the worker process (idempotent); a later search runs in this process."""
        with self._guard:
            pool, self._pool = self._pool, None
            self._local_only = True
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


__all__ = ["ProcessExplainer"]
