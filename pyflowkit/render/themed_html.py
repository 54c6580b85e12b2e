"""Static drawings (graphs, sequence diagrams) as HTML that follows the notebook's theme.

No Flink counterpart. A ``%%pipeline`` cell's graph, ``%pipeline show``, ``display(graph)`` and
``stepper.sequence_diagram()`` are plain outputs (no widget, no script): the SVG inline in a
``pfk-static pfk-themed pfk-auto`` box with the theme style sheets beside it
(``widgets/theme_colours.css``, ``widgets/theme_drawings.css``). JupyterLab and Notebook 7 mark
``<body>`` with their theme, and those selectors recolour the drawing live (light elsewhere, and in
an untrusted notebook, whose outputs are sanitised: the SVG's own light colours).
"""

from __future__ import annotations

import re
from functools import lru_cache

from pyflowkit.render.widget_files import widget_file

#: The style sheets a static drawing needs: the themes' colours and the drawings' rules.
THEME_SHEETS = ("theme_colours.css", "theme_drawings.css")


@lru_cache(maxsize=1)
def theme_style() -> str:
    """``<style>`` with the theme sheets, comments and spacing dropped (about 6 KB)."""
    css = "\n".join(widget_file(name).read_text(encoding="utf-8") for name in THEME_SHEETS)
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"\s*\n\s*", "\n", css).strip()
    return f"<style>{css}</style>"


def svg_element(svg: str) -> str:
    """The ``<svg>`` element alone (no XML prolog), for embedding in HTML."""
    start = svg.find("<svg")
    return svg[start:] if start >= 0 else svg


def themed_html(inner: str, style: str = "") -> str:
    """``inner`` (HTML with inline SVG) in a box that follows the front end's theme."""
    attr = f' style="{style}"' if style else ""
    return f'{theme_style()}<div class="pfk-static pfk-themed pfk-auto"{attr}>{inner}</div>'


def graph_html(svg: str, start_at_end: bool = False) -> str:
    """A Graphviz SVG inline at its own size (11 pt labels = 14.7 px), scrolling sideways when
    wider than the cell (a notebook shows ``image/svg+xml`` scaled down to the cell's width, text
    and all), in the theme's colours.

    ``start_at_end``: scrolled to the right end at first, where a cell's new (downstream)
    operators are (``direction: rtl`` on the box; no script runs in an output).
    """
    # JupyterLab's `.jp-RenderedHTMLCommon svg {max-width: 100%}` would scale it down again
    element = svg_element(svg).replace("<svg", '<svg style="max-width: none"', 1)
    direction = " direction: rtl;" if start_at_end else ""
    return themed_html(
        f'<div class="pfk-graph-output" style="overflow-x: auto; max-width: 100%;{direction}">'
        f'<div class="pfk-graph-canvas" style="direction: ltr; width: max-content;">{element}'
        "</div></div>"
    )


def sequence_html(svg: str) -> str:
    """A sequence diagram's SVG at its own size (14 px text), scrolling sideways if wide."""
    return themed_html(svg_element(svg), "overflow-x: auto; max-width: 100%;")
