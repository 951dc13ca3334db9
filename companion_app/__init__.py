"""The companion itself: the `table-companion` command, the Kivy tablet app and the live loop.

It ties `engines` (rules) and `vision` (pixels) together and holds no rules or pixel code itself.
Public names: `companion_app.cli.main`.
"""
