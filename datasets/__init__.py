"""Synthetic data: companion art for every piece and rendered table scenes with exact labels."""
