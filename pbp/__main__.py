"""``python -m pbp`` = the ``pbp`` command."""

from pbp.cli import main

main()
