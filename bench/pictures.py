"""Map pictures: the ways of making a report's picture, measured side by side.

    .venv/bin/python bench/pictures.py [--phases N] [--warm N]

Builds N random standard movement phases (22-34 units, every unit ordered, adjudicated), draws
each as the report does (the board after the phase, the orders as arrows), and times each way
of turning the SVG into an attachment, per picture: the median and 90th percentile of CPU time
(``time.process_time``: steadier than the wall clock on a shared machine) and of wall time,
and the median and largest size. The cached options are first warmed on ``--warm`` other
phases (a judge serving many games soon has every sprite of a board); their first picture in
a fresh process is reported as ``cold_ms``. The last line is one JSON object: the figures per
option and the option the judge uses (``chosen``).

Options: cairosvg whole to full-colour PNG (the judge before this), resvg (``resvg-py``, when
installed), cairosvg whole then a 48-colour palette (zlib level 6 or 9, full or 0.85 scale),
the layered renderer (:mod:`judge.render.raster`: board cached, sprites, palette), and the SVG
itself attached (plain and gzipped sizes; cost = building it).
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judge.engine.position import Phase  # noqa: E402
from judge.engine.randomgame import random_orders, random_position  # noqa: E402
from judge.render import raster  # noqa: E402
from judge.render.svg import render_svg  # noqa: E402
from variants import get_variant  # noqa: E402

VARIANT = get_variant("standard")
BOARD = VARIANT.board


def phase_svg(seed: int) -> str:
    """A report's picture of one random standard movement phase."""
    rng = random.Random(seed)
    position = random_position(BOARD, rng, rng.randint(22, 34))
    position.variant = "standard"
    position.phase = Phase(rng.choice("SF"), 1903, "M")
    outcome = VARIANT.adjudicate(position, random_orders(BOARD, position, rng))
    return render_svg("standard", VARIANT.write_position(outcome.position),
                      [r.to_json() for r in outcome.results], title="bench Standard",
                      supply_centres=BOARD.supply_centres, orders_of=str(position.phase))


def palette(svg: str, scale: float, level: int) -> bytes:
    from PIL import Image

    image = raster._rasterise(svg, scale).convert("RGB")
    out = io.BytesIO()
    image.quantize(raster.COLOURS, method=Image.Quantize.FASTOCTREE).save(
        out, "PNG", compress_level=level)
    return out.getvalue()


def options() -> dict[str, Callable[[str], bytes] | None]:
    import cairosvg

    try:
        import resvg_py
    except ImportError:  # not a dependency: `pip install resvg-py` to measure it
        resvg_py = None
    return {
        "cairosvg_rgb": lambda s: cairosvg.svg2png(bytestring=s.encode()),
        "resvg_rgb": (lambda s: bytes(resvg_py.svg_to_bytes(svg_string=s)))
        if resvg_py else None,
        "cairosvg_palette_z6": lambda s: palette(s, 1.0, 6),
        "cairosvg_palette_z9": lambda s: palette(s, 1.0, 9),
        "cairosvg_palette_z6_scale0.85": lambda s: palette(s, 0.85, 6),
        "layered_palette_scale1": lambda s: raster.png(s, 1.0),
        f"layered_palette_scale{raster.SCALE:g}": lambda s: raster.png(s),
    }


def measure(fn: Callable[[str], bytes], svgs: list[str]) -> dict:
    cpu, wall, sizes = [], [], []
    for svg in svgs:
        w, c = time.perf_counter(), time.process_time()
        data = fn(svg)
        cpu.append((time.process_time() - c) * 1000)
        wall.append((time.perf_counter() - w) * 1000)
        sizes.append(len(data))
    cpu.sort()
    wall.sort()
    return {"cpu_ms_p50": round(statistics.median(cpu), 1),
            "cpu_ms_p90": round(cpu[int(len(cpu) * 0.9) - 1], 1),
            "wall_ms_p50": round(statistics.median(wall), 1),
            "bytes_p50": int(statistics.median(sizes)), "bytes_max": max(sizes)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--phases", type=int, default=30)
    ap.add_argument("--warm", type=int, default=300)
    args = ap.parse_args()
    svgs = [phase_svg(seed) for seed in range(args.phases)]
    figures: dict[str, dict] = {}

    t = time.process_time()
    for seed in range(args.phases):
        phase_svg(seed)
    sizes = [len(s.encode()) for s in svgs]
    figures["svg_attached"] = {
        "cpu_ms_p50": round((time.process_time() - t) * 1000 / args.phases, 1),
        "bytes_p50": int(statistics.median(sizes)),
        "gzip_bytes_p50": int(statistics.median(len(gzip.compress(s.encode())) for s in svgs))}

    for name, fn in options().items():
        if fn is None:
            figures[name] = {"skipped": "not installed"}
            continue
        cold = None
        if name.startswith("layered"):
            c = time.process_time()
            fn(phase_svg(10_000))  # the first picture of a fresh process
            cold = round((time.process_time() - c) * 1000, 1)
            for seed in range(args.warm):
                fn(phase_svg(20_000 + seed))
        figures[name] = measure(fn, svgs)
        if cold is not None:
            figures[name]["cold_ms"] = cold
        print(name, figures[name], file=sys.stderr)
    print(json.dumps({"phases": args.phases, "warm": args.warm,
                      "chosen": f"layered_palette_scale{raster.SCALE:g}",
                      "options": figures}))


if __name__ == "__main__":
    main()
