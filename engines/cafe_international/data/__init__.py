"""Data files of the Café International engine (the reference layout and its generator)."""
