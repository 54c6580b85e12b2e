"""The widgets' ES modules and style sheets, built from the front-end files (``pyflowkit/_widgets``
in a wheel, ``<repo>/widgets`` in a checkout: found by ``pyflowkit.render.widget_files``).

No Flink counterpart.
"""

from __future__ import annotations

from pyflowkit.render.widget_files import REPO_WIDGETS, widget_file

__all__ = ["REPO_WIDGETS", "THEMED_STYLES", "widget_bundle", "widget_file", "widget_styles"]

#: The style sheets of a widget in the front end's theme: the layout, the themes' colours, the
#: drawings' and the chrome's rules (later rules win at equal specificity).
THEMED_STYLES = ("widgets.css", "theme_colours.css", "theme_drawings.css", "themes.css")


def widget_bundle(*names: str) -> str:
    """One ES module from several front-end files (no build step): each file's
    ``export default`` line is dropped except the last file's, so their functions share a scope."""
    texts = [widget_file(name).read_text(encoding="utf-8") for name in names]
    kept = [
        "\n".join(line for line in text.splitlines() if not line.startswith("export default"))
        for text in texts[:-1]
    ]
    return "\n".join([*kept, texts[-1]])


def widget_styles(*names: str) -> str:
    """One style sheet from several CSS files, in order (later rules win at equal specificity)."""
    return "\n".join(widget_file(name).read_text(encoding="utf-8") for name in names)
