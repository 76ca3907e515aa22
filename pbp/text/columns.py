"""Plain-text tables for the terminal (``pbp kept``, ``pbp lost``, ``pbp games``)."""

from __future__ import annotations

from collections.abc import Sequence


def aligned(lines: Sequence[Sequence[str]]) -> str:
    """``lines`` (a header first, then the rows; every line as long as the header) as
    columns two spaces apart, each as wide as its widest cell but the last, which is left
    as it is (no trailing spaces to pad); no trailing newline.

    >>> print(aligned([("ID", "FROM"), ("12", "doug@example.test")]))
    ID  FROM
    12  doug@example.test
    """
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]) - 1)]
    return "\n".join(
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=False))
        + "  "
        + line[-1]
        for line in lines
    )
