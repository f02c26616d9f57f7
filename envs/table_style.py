"""The one table style every command draws (a rule under the header, no box, the title on the left).

Its own module, free of the engine and the reports, so the graders' commands (calibration) draw
their tables in it without importing the reports (the graders never import ``envs.report``).
"""

from __future__ import annotations


def line_table(title: str | None = None, **kw):
    """An empty rich Table in the one style every command draws: a rule under the header, no box,
    the title on the left (``envs.report.terminal.fit_table`` fills one to a width; ``kw`` goes to
    ``rich.table.Table``)."""
    from rich import box
    from rich.table import Table

    style = dict(box=box.SIMPLE_HEAD, padding=(0, 1), pad_edge=False, show_edge=False, title_justify="left")
    return Table(title=title, **{**style, **kw})
