"""The perception exception family: a frame that cannot be read, a model that cannot be loaded.

All are `ValueError` subclasses (bad input), so the CLI turns them into one-line messages.
"""

from __future__ import annotations


class PerceptionError(ValueError):
    """Base of perception failures; the message says why, in one lower-case line."""


class BadFrameError(PerceptionError):
    """A frame that cannot be processed (empty, too small, wrong dtype or channel count)."""


class ModelError(PerceptionError):
    """A model file that is missing or cannot be loaded."""


__all__ = ["BadFrameError", "ModelError", "PerceptionError"]
