"""`python -m companion_app.cli` is `table-companion`."""

from companion_app.cli import entry_point

entry_point()
