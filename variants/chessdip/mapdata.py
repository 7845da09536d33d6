"""Convert the shared Chess Dip data (``variants/chessdip/map-source.json``) to the project's map format.

Usage: ``python -m judge.variants.chessdip.mapdata SOURCE.json TARGET.json``

The project's :class:`~judge.engine.board.Board` wants provinces, home centres and adjacency.
Chess Dip has no adjacency list (reach is computed from piece movement), so the 64 squares
become ``land`` provinces and the ``army`` adjacency holds king steps: that is what the
generic code (distances, neighbours) needs, and it is never used to check a move. The chess
facts (sides, pawn directions, castling squares) are carried over under ``chess``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _king_steps(square: str) -> list[str]:
    f, r = ord(square[0]) - 97, int(square[1]) - 1
    out = []
    for df in (-1, 0, 1):
        for dr in (-1, 0, 1):
            if (df or dr) and 0 <= f + df < 8 and 0 <= r + dr < 8:
                out.append(f"{chr(97 + f + df)}{r + dr + 1}")
    return sorted(out)


def convert(source: dict) -> dict:
    squares = list(source["board"]["squares"])
    centres = set(source["supply_centers"])
    side_of_rank = {}
    for side, info in source["sides"].items():
        for rank in info["home_ranks"]:
            side_of_rank[str(rank)] = side
    provinces = {
        sq: {
            "name": sq,
            "type": "land",
            "supply_centre": sq in centres,
            # The side (not a power) whose home rank the centre is on: both powers share it.
            "home": side_of_rank.get(sq[1]) if sq in centres else None,
            "coasts": [],
        }
        for sq in squares
    }
    return {
        "name": source["name"],
        "source": source.get("source", {}),
        "powers": list(source["powers"]),
        "provinces": provinces,
        "coast_names": {},
        "impassable": [],
        "home_centres": {k: sorted(v) for k, v in source["home_centers"].items()},
        "starting_units": source["starting_units"],
        "victory_centres": int(source["victory"]["supply_centers"]),
        "adjacency": {"army": {sq: _king_steps(sq) for sq in squares}, "fleet": {}},
        "aliases": {},
        "chess": {
            "power_info": source["power_info"],
            "sides": source["sides"],
            "special_squares": source["special_squares"],
            "piece_types": source["piece_types"],
            "buildable_piece_types": source["buildable_piece_types"],
            "promotion_piece_types": source["promotion_piece_types"],
        },
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", type=Path)
    parser.add_argument("target", type=Path)
    args = parser.parse_args(argv)
    data = convert(json.loads(args.source.read_text(encoding="utf-8")))
    args.target.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
