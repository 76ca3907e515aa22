"""Reading players' mail (DESIGN.md, "parse"): MIME → :class:`~pbp.parse.mime.Letter`,
names → canonical names (:mod:`pbp.parse.names`), text → moves (:mod:`pbp.games.cluedo.parse`).

Pure: no I/O, no clock.
"""
