"""Convert a map from the shared exchange format (``variants/*/map-source.json``) to the project's own.

Usage: ``python -m judge.engine.mapconvert SOURCE.json TARGET.json [--aliases ALIASES.json]``

The project's format (read by :class:`judge.engine.board.Board`) keys provinces by abbreviation,
stores home centres per power, and adds the alternative spellings players write. It is
committed in each variant's folder so a game never depends on files outside the project.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def convert(source: dict, aliases: dict[str, str] | None = None) -> dict:
    provinces = {}
    for p in source["provinces"]:
        provinces[p["abbrev"]] = {
            "name": p["name"],
            "type": p["type"],
            "supply_centre": bool(p["supply_center"]),
            "home": p.get("home"),
            "coasts": list(p.get("coasts", [])),
        }
    army = {k: sorted(v) for k, v in source["adjacency"]["army"].items()}
    fleet = {k: sorted(v) for k, v in source["adjacency"]["fleet"].items()}
    return {
        "name": source["name"],
        "source": source.get("source", {}),
        "powers": list(source["powers"]),
        "provinces": provinces,
        "coast_names": dict(source.get("location_names", {})),
        "impassable": list(source.get("impassable", [])),
        "home_centres": {k: sorted(v) for k, v in source["home_centers"].items()},
        "starting_units": source.get("starting_units", {}),
        "victory_centres": len(source["supply_centers"]) // 2 + 1,
        "adjacency": {"army": army, "fleet": fleet},
        "aliases": dict(sorted((aliases or {}).items())),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    parser.add_argument("--aliases", type=Path, help="JSON object: spelling -> location")
    args = parser.parse_args(argv)
    source = json.loads(args.source.read_text(encoding="utf-8"))
    aliases = json.loads(args.aliases.read_text(encoding="utf-8")) if args.aliases else None
    data = convert(source, aliases)
    args.target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
