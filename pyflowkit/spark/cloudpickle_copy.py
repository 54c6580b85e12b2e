"""PySpark's vendored cloudpickle (``pyspark/cloudpickle/cloudpickle.py``), loaded as this module
without importing the ``pyspark`` package (whose ``__init__`` imports py4j, the SQL API and, for
Spark Connect, pandas: 2-3 s).

No Flink counterpart (PyFlink pickles user functions with cloudpickle as well). A program that
submits its job to the local Spark service (``job_submission``) pickles the compiled JobGraph with
it; the service unpickles it with plain ``pickle`` (the functions it references live here, under
this module's name, in both processes). The source is exec'd in this module's namespace, so the
copy is exactly the cloudpickle PySpark ships (3.1.x), not a fork.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
from pathlib import Path


def _source() -> Path:
    spec = importlib.util.find_spec("pyspark")  # finds the package; does not import it
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("pyspark is not installed: no cloudpickle to load")
    return Path(next(iter(spec.submodule_search_locations))) / "cloudpickle" / "cloudpickle.py"


_PATH = _source()
# the loader reads PySpark's own cached bytecode (``__pycache__``) when it is fresh
exec(importlib.machinery.SourceFileLoader(__name__, str(_PATH)).get_code(__name__), globals())  # noqa: S102
