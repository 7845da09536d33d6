"""The package list of the distribution (everything else is in pyproject.toml).

``judge/`` installs as ``judge``; the repository's top-level ``variants/`` and ``templates/``
install as ``judge.variants`` and ``judge.templates`` (``package-dir`` in pyproject.toml), so a
new variant folder is picked up without editing any list.
"""

from setuptools import find_namespace_packages, setup

SKIP = ["*__pycache__*"]

setup(packages=[
    *find_namespace_packages(include=["judge", "judge.*"], exclude=SKIP),
    "judge.variants",
    *(f"judge.variants.{p}" for p in find_namespace_packages("variants", exclude=SKIP)),
    "judge.templates",
    # its folders (notices/, stab/, ...) are packages too, or setuptools warns that their
    # templates "would be ignored" (they were copied all the same, as data of judge.templates)
    *(f"judge.templates.{p}" for p in find_namespace_packages("templates", exclude=SKIP)),
])
