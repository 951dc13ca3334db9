"""Loading our ONNX models: one place for the onnxruntime settings every model shares.

Public names: `load_session`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vision.errors import ModelError


def load_session(path: Path, what: str, *, threads: int, log_severity: int | None = None) -> Any:
    """An onnxruntime CPU session of the model at `path`.

    Idle threads sleep instead of spinning: the pipeline runs its models in turn on two cores,
    and one model's spinning threads slowed the next (`benchmarks/detect_speed.py`: a frame took
    150 ms instead of 73–90 ms).

    Args:
        path: the ONNX file.
        what: the model's name in error messages ("die reader").
        threads: intra-op threads (at least 1).
        log_severity: onnxruntime's log level for this session (None: its default).

    Raises:
        ModelError: the file is missing or onnxruntime cannot load it.
    """
    import onnxruntime as ort

    if not path.is_file():
        raise ModelError(f"{what} model not found: {path}")
    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, threads)
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    if log_severity is not None:
        options.log_severity_level = log_severity
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as error:  # onnxruntime raises its own types
        raise ModelError(f"{what} model unreadable: {path}: {error}") from None


__all__ = ["load_session"]
