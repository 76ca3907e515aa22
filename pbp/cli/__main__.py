"""``python -m pbp.cli`` = the ``pbp`` command (as ``python -m pbp``)."""

from pbp.cli import main

if __name__ == "__main__":  # not when a child process (pbp.app.reader) imports it again
    main()
