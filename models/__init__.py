"""Trained ONNX models, their model cards, and the code that trains, evaluates and exports them."""
