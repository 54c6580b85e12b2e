"""``python -m pyflowkit``: the same as the ``pyflowkit`` command."""

from __future__ import annotations

import sys

from pyflowkit.cli import main

sys.exit(main())
