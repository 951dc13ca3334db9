"""Pixels to game observations: frames → detections → rectified faces → identities → observations.

Stages, each a module with its own tests: `frames` (camera, video and folder sources),
`detector` (ONNX boxes and corners), `dice_reader`, `top_face` and `pips` (die value and colour:
the whole die, then its top face located, rectified and read on its own), `rectify`
and `identify` (card and tile faces against the `gallery`), `pipeline` (`Perception`, the
orchestrator), `voting` (one identity per physical piece over frames), `readers/` (detections →
a game's observation), `tracker` (stable observations → explained actions or a question) and
`layout_trace` (a printed Café board → a layout file). `geometry` is the neutral geometry shared
with `datasets`.

Public names live in those modules: `vision.detections.Detections`,
`vision.pipeline.Perception`, `vision.identify.Identifier`, `vision.tracker.Tracker`, ….
"""
