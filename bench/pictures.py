"""Map pictures: the ways of making a report's picture, measured side by side.

    .venv/bin/python bench/pictures.py [--games N] [--warm N]

Plays ``--games`` random standard games from the start (every unit a random legal order) and
draws the first ten movement phases of each as the report does (the board after the phase,
the orders as arrows); times each way of turning the SVG into an attachment, per picture: the
median and 90th percentile of CPU time (``time.process_time``: steadier than the wall clock
on a shared machine) and the median wall time, and the median and largest size. The cached
options first draw ``--warm`` other games (a judge serving many games soon holds the common
sprites); their first picture in a fresh process is ``cold_ms``. The chosen option is also
measured on 30 phases of 22-34 units scattered anywhere with random orders (``_scattered``:
the worst case for its caches). The last line is one JSON object: the figures per option and
the option the judge uses (``chosen``).

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

from judge.engine.position import Phase, Position  # noqa: E402
from judge.engine.randomgame import random_orders, random_position  # noqa: E402
from judge.render import raster  # noqa: E402
from judge.render.svg import render_svg  # noqa: E402
from judge.variants import get_variant  # noqa: E402

VARIANT = get_variant("standard")
BOARD = VARIANT.board


def picture(before: Position, outcome) -> str:
    """A report's picture: the board after the phase, the phase's orders as arrows."""
    return render_svg("standard", VARIANT.write_position(outcome.position),
                      [r.to_json() for r in outcome.results], title="bench Standard",
                      supply_centres=BOARD.supply_centres, orders_of=str(before.phase))


def game_svgs(seed: int, phases: int = 10) -> list[str]:
    """The pictures of the first ``phases`` movement phases of a random game from the start
    (every unit given a random legal order; retreats and builds left to the defaults)."""
    rng, position, out = random.Random(seed), VARIANT.initial_position(), []
    while len(out) < phases:
        if position.phase.kind == "M":
            outcome = VARIANT.adjudicate(position, random_orders(BOARD, position, rng))
            out.append(picture(position, outcome))
        else:
            outcome = VARIANT.adjudicate(position, [])
        position = outcome.position
    return out


def scattered_svg(seed: int) -> str:
    """The worst case for the caches: 22-34 units anywhere on the board, random orders."""
    rng = random.Random(seed)
    position = random_position(BOARD, rng, rng.randint(22, 34))
    position.variant = "standard"
    position.phase = Phase(rng.choice("SF"), 1903, "M")
    return picture(position, VARIANT.adjudicate(position, random_orders(BOARD, position, rng)))


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
    ap.add_argument("--games", type=int, default=3, help="games measured (10 phases each)")
    ap.add_argument("--warm", type=int, default=30, help="other games drawn first")
    args = ap.parse_args()
    svgs = [svg for g in range(args.games) for svg in game_svgs(g)]
    warm = [svg for g in range(args.warm) for svg in game_svgs(1_000 + g)]
    figures: dict[str, dict] = {}

    t = time.process_time()
    for g in range(args.games):
        game_svgs(g)
    sizes = [len(s.encode()) for s in svgs]
    figures["svg_attached"] = {
        "cpu_ms_p50": round((time.process_time() - t) * 1000 / len(svgs), 1),
        "bytes_p50": int(statistics.median(sizes)),
        "gzip_bytes_p50": int(statistics.median(len(gzip.compress(s.encode())) for s in svgs))}

    for name, fn in options().items():
        if fn is None:
            figures[name] = {"skipped": "not installed"}
            continue
        cold = None
        if name.startswith("layered"):
            c = time.process_time()
            fn(scattered_svg(0))  # the first picture of a fresh process
            cold = round((time.process_time() - c) * 1000, 1)
            for svg in warm:
                fn(svg)
        figures[name] = measure(fn, svgs)
        if cold is not None:
            figures[name]["cold_ms"] = cold
        print(name, figures[name], file=sys.stderr)
    chosen = f"layered_palette_scale{raster.SCALE:g}"
    scattered = [scattered_svg(seed) for seed in range(1, 31)]
    figures[chosen + "_scattered"] = measure(raster.png, scattered)
    print(json.dumps({"pictures": len(svgs), "warm_pictures": len(warm), "chosen": chosen,
                      "sprites_cached": len(raster._SPRITES),
                      "sprite_mb": round(raster._SPRITES.bytes / 2**20, 1), "options": figures}))


if __name__ == "__main__":
    main()
