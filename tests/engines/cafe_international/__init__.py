"""Tests of the Café International engine."""
