"""Pixels to game observations: frames → detections → rectified faces → identities → observations.

Nothing here yet beyond the package; stages land with the perception issues.
"""
