"""SVG to PNG, cheaply: the board drawn once, only what a phase changes drawn per picture.

:func:`png` takes any SVG :mod:`judge.render.svg` writes and returns PNG bytes. It is a pure
function of its arguments (the caches below only remember results already computed, per
process), so a pool of worker processes can call it with the SVG text and send back the bytes.

How it stays cheap (figures and the options weighed: ``bench/pictures.py``, README):

* The board layers (``ground``, ``labels``: the provinces and their names, the same for every
  phase of a variant) are rasterised once per distinct board and scale and kept.
* An element drawn at one point (a unit, a centre: ``transform="translate(x y)"`` or a circle's
  ``cx``/``cy``) or a province's tint (a path of absolute points) is rasterised once as a small
  sprite and pasted where it stands; the set of such sprites is bounded by the variant's
  places times its powers, so a long-running judge soon has them all.
* What is left (order arrows, the legend) is drawn in one pass over a transparent canvas.
* The result is reduced to a palette of :data:`COLOURS` colours and compressed.

Rasterising is cairosvg's (the Cairo library); quantising and compositing Pillow's.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections import OrderedDict
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape, quoteattr

SVG_NS = "http://www.w3.org/2000/svg"
SCALE = 0.85  # pixels per SVG unit of a mailed picture
COLOURS = 48  # palette size of a mailed PNG
BOARD_LAYERS = ("ground", "labels")  # the same for every phase of a variant
_TRANSLATE = re.compile(r"^\s*translate\(\s*([-\d.]+)[\s,]+([-\d.]+)\s*\)\s*$")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_ABSOLUTE_PATH = re.compile(r"^[MLZ\d\s.,-]+$")
_REF = re.compile(r"url\(#([^)]+)\)")

SPRITE_BYTES = 48 << 20  # pixels kept per process for sprites (least recently used go first)


class _Sprites:
    """The sprites drawn so far, least recently used first, within :data:`SPRITE_BYTES`
    (a memo: it holds only results, so it changes no picture)."""

    def __init__(self) -> None:
        self.images: OrderedDict[tuple, Any] = OrderedDict()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self.images)

    def get(self, key: tuple) -> Any:
        image = self.images.get(key)
        if image is not None:
            self.images.move_to_end(key)
        return image

    def put(self, key: tuple, sprite: tuple[Any, int, int]) -> None:
        self.images[key] = sprite
        self.bytes += sprite[0].width * sprite[0].height * 4
        while self.bytes > SPRITE_BYTES and len(self.images) > 1:
            _, (old, _, _) = self.images.popitem(last=False)
            self.bytes -= old.width * old.height * 4


_SPRITES = _Sprites()


def whole_png(svg: str, scale: float = SCALE, colours: int | None = COLOURS) -> bytes:
    """The PNG of ``svg``, drawn whole in one pass (any SVG; no caching): for pictures drawn
    once, such as the gallery. ``colours=None`` keeps full colour."""
    return _encode(_rasterise(svg, scale), colours)


def png(svg: str, scale: float = SCALE, colours: int | None = COLOURS) -> bytes:
    """The PNG of a map picture from :func:`judge.render.svg.render_svg`, built from cached
    layers and sprites (see the module's docstring); any other SVG is drawn whole."""
    root = ET.fromstring(svg)
    if root.tag != f"{{{SVG_NS}}}svg" or root.find(f"{{{SVG_NS}}}g") is None:
        return whole_png(svg, scale, colours)
    width, height = int(float(root.get("width", "0"))), int(float(root.get("height", "0")))
    markers = {m.get("id", ""): _canon(m) for d in root.iter(f"{{{SVG_NS}}}defs") for m in d}
    board: list[ET.Element] = []
    layers: list[ET.Element] = []
    for child in root:
        tag = _tag(child)
        if tag == "g" and child.get("class") not in BOARD_LAYERS:
            layers.append(child)
        elif tag not in ("defs", "title"):
            board.append(child)
    canvas = _board(width, height, _board_text(svg, board), scale).copy()
    vector: list[str] = []

    def flush() -> None:
        if vector:
            defs = f"<defs>{''.join(markers.values())}</defs>"
            overlay = _rasterise(_document(width, height, defs + "".join(vector)), scale)
            canvas.paste(overlay, (0, 0), overlay)
            vector.clear()

    for layer in layers:
        for element in layer:
            x, y = 0.0, 0.0
            m = _TRANSLATE.match(element.get("transform", ""))
            if _tag(element) == "g" and m:  # drawn at one point: one sprite for every point
                x, y = float(m.group(1)), float(m.group(2))
                parts, box = list(element), _union([_bbox(c) for c in element])
            else:
                parts, box = [element], _bbox(element)
            if box is None:
                vector.append(_canon(element))
                continue
            flush()
            key = (tuple(_key(e) for e in parts), box, scale)
            sprite = _SPRITES.get(key)
            if sprite is None:
                body = "".join(_canon(e) for e in parts)
                defs = "".join(markers.get(r, "") for r in sorted(set(_REF.findall(body))))
                sprite = _draw_sprite(defs + body, box, scale)
                _SPRITES.put(key, sprite)
            image, dx, dy = sprite
            _paste(canvas, image, round((x + box[0]) * scale) + dx,
                   round((y + box[1]) * scale) + dy)
    flush()
    return _encode(canvas, colours)


# ------------------------------------------------------------------------------ the parts
def _board_text(svg: str, board: list[ET.Element]) -> str:
    """The board's markup: as written when :func:`~judge.render.svg.render_svg` wrote it
    (background, then the board layers, just after the definitions: the text itself is the
    cache key, no need to write it again), else rebuilt from the elements."""
    start = svg.find("</defs>") + len("</defs>")
    ends = [svg.find(f'<g class="{name}">', start) for name in BOARD_LAYERS]
    end = svg.find('<g class="', max(ends) + 1) if min(ends) >= start else -1
    if start >= len("</defs>") and end > 0:
        text = svg[start:end]
        if text.count("<g ") == len(BOARD_LAYERS) and len(board) == len(BOARD_LAYERS) + 1:
            return text
    return "".join(_canon(e) for e in board)


def _tag(element: ET.Element) -> str:
    return element.tag.rpartition("}")[2]


def _canon(element: ET.Element) -> str:
    """The element's markup without what does not change its look (``class``, ``data-``):
    the same drawing gives the same text, whichever unit or order it is."""
    attrs = "".join(f" {k}={quoteattr(v)}" for k, v in element.attrib.items()
                    if k != "class" and not k.startswith("data-"))
    inner = escape(element.text or "") + "".join(_canon(c) + escape(c.tail or "")
                                                 for c in element)
    tag = _tag(element)
    return f"<{tag}{attrs}>{inner}</{tag}>" if inner else f"<{tag}{attrs}/>"


def _key(element: ET.Element) -> tuple:
    """What decides an element's look, cheaply (the cache key of its sprite)."""
    return (element.tag, tuple(kv for kv in element.attrib.items()
                               if kv[0] != "class" and not kv[0].startswith("data-")),
            element.text, tuple(_key(c) for c in element))


Box = tuple[float, float, float, float]  # x0, y0, x1, y1


def _union(boxes: list[Box | None]) -> Box | None:
    if not boxes or any(b is None for b in boxes):
        return None
    return (min(b[0] for b in boxes if b), min(b[1] for b in boxes if b),
            max(b[2] for b in boxes if b), max(b[3] for b in boxes if b))


def _bbox(element: ET.Element) -> Box | None:
    """Where an element draws, generously (stroke, arrowheads, text), or None if unknown."""
    a = element.attrib
    tag = _tag(element)
    pad = 3 + float(a.get("stroke-width", "0")) * (6 if "marker-end" in a else 1)
    xs: tuple[float, ...]  # a path has any number of points
    ys: tuple[float, ...]
    try:
        if tag == "g" and not a.get("transform"):
            box = _union([_bbox(c) for c in element])
            return box
        if tag == "line":
            xs, ys = (float(a["x1"]), float(a["x2"])), (float(a["y1"]), float(a["y2"]))
        elif tag == "circle":
            r = float(a.get("r", "0"))
            x, y = float(a.get("cx", "0")), float(a.get("cy", "0"))
            xs, ys = (x - r, x + r), (y - r, y + r)
        elif tag == "rect":
            x, y = float(a.get("x", "0")), float(a.get("y", "0"))
            xs, ys = (x, x + float(a["width"])), (y, y + float(a["height"]))
        elif tag == "path" and _ABSOLUTE_PATH.match(a.get("d", "-")):
            numbers = [float(n) for n in _NUMBER.findall(a["d"])]
            xs, ys = tuple(numbers[0::2]), tuple(numbers[1::2])
        elif tag == "text" and len(element) == 0:
            size = float(a.get("font-size", "16"))
            reach = size * (len(element.text or "") + 1)
            x, y = float(a.get("x", "0")), float(a.get("y", "0"))
            xs, ys = (x - reach, x + reach), (y - size * 1.5, y + size)
        else:
            return None
    except (KeyError, ValueError):
        return None
    if not xs or not ys or len(element) and tag != "text":
        return None
    return (min(xs) - pad, min(ys) - pad, max(xs) + pad, max(ys) + pad)


def _document(width: float, height: float, body: str,
              view: tuple[float, float, float, float] | None = None) -> str:
    x, y, w, h = view or (0, 0, width, height)
    return (f'<svg xmlns="{SVG_NS}" width="{w}" height="{h}" viewBox="{x} {y} {w} {h}">'
            f"{body}</svg>")


@lru_cache(maxsize=16)
def _board(width: int, height: int, board: str, scale: float):
    """The board layers, rasterised once per distinct board and scale (opaque: RGB)."""
    return _rasterise(_document(width, height, board), scale).convert("RGB")


def _draw_sprite(body: str, box: Box, scale: float) -> tuple[Any, int, int]:
    """``body`` drawn within ``box``, cropped to what it paints: (image, x, y offset)."""
    x0, y0, x1, y1 = box
    image = _rasterise(_document(x1 - x0, y1 - y0, body, (x0, y0, x1 - x0, y1 - y0)), scale)
    painted = image.getchannel("A").getbbox() or (0, 0, 1, 1)
    return image.crop(painted), painted[0], painted[1]


def _paste(canvas, image, left: int, top: int) -> None:
    """``image`` (RGBA) composited onto the opaque ``canvas`` at (left, top): over an opaque
    background, pasting through the image's own alpha is compositing (Pillow clips)."""
    canvas.paste(image, (left, top), image)


def _rasterise(svg: str, scale: float):
    """An RGBA Pillow image of ``svg`` (cairosvg and Pillow imported here, so the judge
    runs without them until a picture is asked for)."""
    # cairosvg ships no type information (no py.typed, no stubs package)
    from cairosvg.parser import Tree  # type: ignore[import-untyped]
    from cairosvg.surface import PNGSurface  # type: ignore[import-untyped]
    from PIL import Image

    surface = PNGSurface(Tree(bytestring=svg.encode("utf-8")), None, 96, scale=scale).cairo
    surface.flush()
    return Image.frombuffer("RGBA", (surface.get_width(), surface.get_height()),
                            bytes(surface.get_data()), "raw", "BGRa", surface.get_stride(), 1)


def _encode(image, colours: int | None) -> bytes:
    """PNG bytes; with ``colours``, a palette of that many chosen from a quarter-size copy (as
    good as from the whole picture for flat map colours, and a fraction of the time)."""
    from PIL import Image

    out = io.BytesIO()
    flat = image.convert("RGB") if image.mode == "RGBA" else image  # the board is opaque
    if colours:
        sample = flat.reduce(4) if min(flat.size) >= 256 else flat
        palette = sample.quantize(colours, method=Image.Quantize.FASTOCTREE)
        flat = flat.quantize(palette=palette, dither=Image.Dither.NONE)
    flat.save(out, "PNG", compress_level=6)
    return out.getvalue()
