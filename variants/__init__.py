"""The registry of variants: one sub-package per variant, each exposing ``VARIANT``.

A new variant is a new folder here with an ``__init__.py`` that builds a
:class:`judge.engine.variant.Variant` named ``VARIANT``; nothing else needs to change.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from judge.engine.variant import Variant


def variant_names() -> list[str]:
    """The names of every variant this judge runs, sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg)


@cache
def get_variant(name: str) -> Variant:
    """The variant called ``name``; raises KeyError with the known names if there is none."""
    key = name.strip().lower()
    if key not in variant_names():
        raise KeyError(f"unknown variant {name!r}; this judge runs: {', '.join(variant_names())}")
    module = importlib.import_module(f"{__name__}.{key}")
    return module.VARIANT
