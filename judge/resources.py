"""The judge's package data, found through :mod:`importlib.resources` so that an installed
wheel works as well as a checkout: the email templates (``judge.templates``, the repository's
``templates/``) and each variant's files (``judge.variants.NAME``, the repository's
``variants/NAME/``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from importlib.resources import files
from importlib.resources.abc import Traversable

import jinja2

TEMPLATES_PACKAGE = "judge.templates"
VARIANTS_PACKAGE = "judge.variants"


def variant_file(variant: str, name: str) -> Traversable:
    """The file ``name`` of the variant package ``variant`` (e.g. ``standard``, ``map.json``)."""
    return files(f"{VARIANTS_PACKAGE}.{variant}").joinpath(name)


def _template_source(name: str) -> tuple[str, None, Callable[[], bool]] | None:
    resource = files(TEMPLATES_PACKAGE).joinpath(*name.split("/"))
    if not resource.is_file():
        return None
    return resource.read_text(encoding="utf-8"), None, lambda: True


@cache
def template_loader() -> jinja2.BaseLoader:
    """The loader every Jinja environment of the judge uses: templates by their path under
    ``templates/`` (``reply.txt.j2``, ``stab/report.txt.j2``)."""
    return jinja2.FunctionLoader(_template_source)
