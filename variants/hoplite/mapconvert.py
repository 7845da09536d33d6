"""Convert the reconstructed Hoplite Wars map (``variants/hoplite/map-source.json``) to the project's
format: :func:`judge.engine.mapconvert.convert` plus what Hoplite Wars needs besides a graph.

Usage: ``python -m judge.variants.hoplite.mapconvert variants/hoplite/map-source.json variants/hoplite/map.json``

Added keys (read by :mod:`judge.variants.hoplite.rules`, ignored by :class:`Board`):
``centre_values`` (City 1, Town 1/2), ``minor_states`` (minor -> controlling major),
``colonies``, ``shrine``, ``victory_more_than`` and ``reconstruction``. Minor states' home
cities join ``home_centres``, since each minor keeps a centre chart of its own (rule 5).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from judge.engine.mapconvert import convert

# Spellings players will use for the reconstructed map's places (classical and modern).
ALIASES = {
    "Achaea": "AGM", "Aigion": "AGM", "Aegion": "AGM", "Patras": "PAT", "Pherae": "PHE",
    "Pheres": "PHE", "Miletus": "MIL", "Phokaia": "PHO", "Korinth": "COR", "Korinthos": "COR",
    "Athenai": "ATH", "Sparte": "SPA", "Lacedaemon": "SPA", "Thebai": "THB", "Larisa": "LAR",
    "Orchomenus": "ORC", "Euboea": "CHA", "Thermopylai": "TPY", "Plataea": "PLA",
    "Plataia": "PLA", "Naupaktos": "NAU", "Messenia": "MES", "Chalkis": "CHA",
    "Aegean": "CAG", "Aegean Sea": "CAG",
}


def convert_hoplite(source: dict) -> dict:
    data = convert(source, ALIASES)
    for minor, info in source["minor_states"].items():
        data["home_centres"][minor] = sorted(info["home_centers"])
    data["reconstruction"] = bool(source.get("reconstruction", True))
    data["centre_values"] = {p["abbrev"]: p["sc_value"] for p in source["provinces"]
                             if p["supply_center"]}
    data["minor_states"] = {m: info["controlled_by"] for m, info in source["minor_states"].items()}
    data["colonies"] = sorted(source["colonies"])
    data["shrine"] = source["shrine"]
    data["victory_more_than"] = source["victory"]["city_equivalents_more_than"]
    return data


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    data = convert_hoplite(json.loads(args.source.read_text(encoding="utf-8")))
    args.target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
