"""Map pictures: a position drawn as SVG for every variant, and as PNG for mail (issue 10).

:func:`render_svg` draws a position (and a phase's orders as arrows) from the variant's
drawing data (:mod:`judge.render.drawing`); :func:`svg_to_png` rasterises it (a pure function
of the SVG text, cheap after the first picture of a board: :mod:`judge.render.raster`);
:func:`private_position` is what a Stab! player may see of a position.
"""

from judge.render.raster import png as svg_to_png
from judge.render.svg import render_svg
from judge.render.views import map_for, private_position

__all__ = ["map_for", "private_position", "render_svg", "svg_to_png"]
