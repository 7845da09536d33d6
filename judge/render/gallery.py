"""``python -m judge.render.gallery [DIR]``: each variant's starting position as
``DIR/map-<variant>.png`` (default ``docs/``), the pictures shown in the README."""

from __future__ import annotations

import sys
from pathlib import Path

from judge.render.svg import render_svg, svg_to_png
from judge.variants import get_variant, variant_names


def write_gallery(folder: Path) -> list[Path]:
    out = []
    for name in variant_names():
        v = get_variant(name)
        svg = render_svg(name, v.write_position(v.initial_position()), title=v.title,
                         supply_centres=v.board.supply_centres)
        path = folder / f"map-{name}.png"
        path.write_bytes(svg_to_png(svg))
        out.append(path)
    return out


if __name__ == "__main__":
    for p in write_gallery(Path(sys.argv[1] if len(sys.argv) > 1 else "docs")):
        print(p)
