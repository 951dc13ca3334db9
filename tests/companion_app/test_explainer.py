"""`ProcessExplainer`: the tracker's rule search in a worker process gives the same answers as in
the app's own process, and falls back to searching here when the worker cannot run."""

from __future__ import annotations

import random
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import pytest

import engines.kings_breakfast as kb
from companion_app.explainer import ProcessExplainer
from engines.api import random_step
from engines.kings_breakfast.explain import explain_states, observe


def _deal() -> tuple[kb.State, kb.State]:
    rng = random.Random(1)
    start = kb.new_game(["Anna", "Ben", "Cleo"])
    state = start
    while kb.is_chance_node(state):
        state = kb.apply(state, random_step(kb, state, rng))
    return start, state


def test_kb6_the_worker_explains_the_deal_as_the_engine_does() -> None:
    """KB-6 (the cook deals 2 × players cards): same paths and end states from the worker."""
    start, after = _deal()
    explainer = ProcessExplainer("kings-breakfast")
    try:
        got = explainer(start, observe(after), visited=False)
    finally:
        explainer.close()
    assert got == explain_states(start, observe(after), visited=False)
    assert len(got) == 1 and len(got[0][0]) == 6


class _BrokenPool:
    def submit(self, *_: Any, **__: Any) -> Any:
        raise BrokenProcessPool("worker died")

    def shutdown(self, **_: Any) -> None:
        pass


def test_a_dead_worker_falls_back_to_searching_here(caplog: pytest.LogCaptureFixture) -> None:
    start, after = _deal()
    explainer = ProcessExplainer("kings-breakfast")
    assert explainer._pool is not None
    explainer._pool.shutdown(wait=True)  # the real worker goes; a broken one stands in
    explainer._pool = _BrokenPool()  # type: ignore[assignment]
    with caplog.at_level("WARNING"):
        got = explainer(start, observe(after))
        again = explainer(start, observe(after))  # no second warning, no new worker
    assert got == again == explain_states(start, observe(after))
    assert sum("searching in-process" in r.message for r in caplog.records) == 1
    assert explainer._pool is None
    explainer.close()
    explainer.close()  # idempotent


def test_an_unknown_game_is_refused() -> None:
    with pytest.raises(KeyError):
        ProcessExplainer("chess")


def test_kb10_the_worker_runs_the_loose_search_as_the_engine_does() -> None:
    """KB-10: a pile taken while another pile reads a card short: the worker's `loose` gives
    the engine's `loose_explanations`, the move among them."""
    from dataclasses import replace

    from engines.kings_breakfast.explain import loose_explanations
    from engines.kings_breakfast.state import TakePile

    _, state = _deal()
    shown = observe(state)
    big = next(i for i, n in enumerate(shown.offer) if n >= 2)
    taken = next(i for i, n in enumerate(shown.offer) if n and i != big)
    after = observe(kb.apply(state, TakePile(kb.FOODS[taken])))
    offer = list(after.offer)
    offer[big] -= 1
    short = replace(after, offer=tuple(offer))
    explainer = ProcessExplainer("kings-breakfast")
    try:
        got = explainer.loose(state, short, visited=False)
    finally:
        explainer.close()
    assert got == loose_explanations(state, short, visited=False)
    assert (TakePile(kb.FOODS[taken]),) in [path for path, _ in got]
