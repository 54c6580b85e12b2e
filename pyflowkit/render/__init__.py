"""DOT/SVG rendering of pyflowkit's graphs; reads graphs, never computes structure."""
