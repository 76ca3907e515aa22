"""One game's tests, a folder per game: its engine, parser, service and end-to-end tests.

``cluedo`` holds what both Cluedo variants share (rules C*), ``cluedo_days`` the variant by
game days (D*), ``cluedo_rounds`` the variant by rounds (R*), ``maniac`` Maniac (M*).
Tests that cross games (mail reading, the store, the CLI, the texts) stay in ``tests/``.
Imported as ``games.<game>.…`` (``tests/`` is on ``sys.path``, see ``tests/conftest.py``);
the seeds' worked examples they play are in ``tests/kits/``."""
