"""The packages pbp installs: those under ``pbp/``, and the data package ``pbp.templates``,
which ``pyproject.toml`` maps onto the product's top-level ``templates/`` (a mapped folder
is not seen by the package search, so it is named here; the rest of the configuration
is ``pyproject.toml``'s)."""

from setuptools import find_packages, setup

setup(packages=[*find_packages(include=["pbp*"]), "pbp.templates"])
