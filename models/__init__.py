"""Trained ONNX models, their model cards, and the code that trains, evaluates and exports them.

Files: `detector.onnx` (card/tile/die detector, card `detector.md`) and `dice_reader.onnx` (die
value and pip colour, card `dice_reader.md`), loaded by `vision.detector` and `vision.dice_reader`.

Every model uses the same verbs: build data (`models.data`), train (``python -m models.train
dice|detector``, `models.train_dice`, `models.train_detector`, run folders in `models.runs`),
evaluate (``python -m models.evaluate``) and export (`models.export`). Networks live in
`models.architectures`. Training needs the ``train`` extra (torch, onnx); nothing in `vision`
imports torch.
"""
