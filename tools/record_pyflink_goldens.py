"""Record real PyFlink's output of pyflowkit's pipelines as golden files (the behaviour oracle).

Every pipeline is written once, as a PyFlink program: ``tests/goldens/programs/*.py`` import from
``pyflink``, the shared pipeline catalog (``tests/pipelines/catalog.py``) and the bundled examples
import from ``pyflowkit``. This tool copies them into a staging directory with the import name
changed to ``pyflink`` (the project's promise: the import is the only difference), runs each
(pipeline, runtime mode) on real PyFlink's local MiniCluster in one separate Python process, and
writes what PyFlink printed (print-sink lines, as the JVM wrote them to stdout) or collected
(``repr`` of each ``execute_and_collect()`` value) to ``tests/goldens/pyflink/<case>.json``.
``tests/goldens/test_pyflink_goldens.py`` compares pyflowkit with these files; it never needs the
JVM or PyFlink. Never run this from the test suite or CI.

Re-recording (PyFlink lives in its own virtualenv, which the project's ``.venv`` never uses:
apache-flink pins pyarrow/pandas/numpy/protobuf/py4j versions that PySpark 4.3 cannot share)::

    python3 -m venv /work/pyflink-venv
    /work/pyflink-venv/bin/pip install -U pip
    /work/pyflink-venv/bin/pip install "apache-flink==1.20.3" "apache-flink-libraries==1.20.3"
    # Java 17 on PATH (or JAVA_HOME). Then, from the repository root, with the project's own
    # .venv (it lists the cases by importing the catalog with pyflowkit; PyFlink runs in the
    # other venv, in a subprocess):
    .venv/bin/python tools/record_pyflink_goldens.py --python /work/pyflink-venv/bin/python
    .venv/bin/python tools/record_pyflink_goldens.py --only keyed_state  # ids containing this
    .venv/bin/python tools/record_pyflink_goldens.py --missing  # cases without a golden yet
    .venv/bin/python tools/record_pyflink_goldens.py --update-meta  # notes/compare from cases.py

A case takes 30-70 s on a loaded 2-core machine (each job starts PyFlink's Python worker); the
whole set takes about an hour. Goldens are written one by one as their cases finish.

Each golden holds: the case id, the source file and entry point, the runtime mode, the PyFlink
version, ``kind`` (``print`` or ``collect``), the raw ``lines``, how to compare them (``exact``:
the order is defined; ``sorted``: compare as sorted lines; ``sorted_no_subtask``: sorted, with the
``:k>``/``k>`` subtask prefix dropped because Flink picks the round-robin start at random;
``final_per_key``: each key's last line, subtask dropped, for running aggregates whose inputs
interleave from several subtasks; ``final_per_subtask``: each sink subtask's last line, for a
running aggregate of plain values),
``error`` (PyFlink's own exception text if the pipeline cannot run there) and ``notes``.
Recording is deterministic: fixed inputs, and ordering is only relied on where Flink defines it.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = ROOT / "tests" / "goldens" / "programs"
GOLDENS = ROOT / "tests" / "goldens" / "pyflink"
CATALOG_FILES = ("catalog.py", "spec.py", "java_ref.py")
EXAMPLES = ("word_count", "alerts_geohash")  # bundled examples with a build(env)
DEFAULT_PYTHON = "/work/pyflink-venv/bin/python"
BEGIN, END = "@@GOLDEN-BEGIN ", "@@GOLDEN-END "
PYFLOWKIT_IMPORT = re.compile(r"\bpyflowkit\b")


# ---------------------------------------------------------------------------------------------
# outer process: staging, case list, parsing, writing goldens
# ---------------------------------------------------------------------------------------------
def to_pyflink(source: str) -> str:
    """The same program with the import changed from ``pyflowkit`` to ``pyflink``."""
    return PYFLOWKIT_IMPORT.sub("pyflink", source)


def stage(directory: Path) -> None:
    """Staging packages: ``tests.pipelines`` (catalog), ``programs``, ``examples``."""
    pipelines = directory / "tests" / "pipelines"
    pipelines.mkdir(parents=True)
    (directory / "tests" / "__init__.py").write_text("")
    (pipelines / "__init__.py").write_text("")
    for name in CATALOG_FILES:
        source = (ROOT / "tests" / "pipelines" / name).read_text()
        (pipelines / name).write_text(to_pyflink(source))
    shutil.copytree(PROGRAMS, directory / "programs", ignore=shutil.ignore_patterns("__pycache__"))
    (directory / "programs" / "__init__.py").write_text("")
    (directory / "examples").mkdir()
    (directory / "examples" / "__init__.py").write_text("")
    for name in EXAMPLES:
        source = (ROOT / "pyflowkit" / "examples" / f"{name}.py").read_text()
        (directory / "examples" / f"{name}.py").write_text(to_pyflink(source))


def discover() -> list[dict[str, Any]]:
    """Every case: (source, entry, mode). Imports the catalog with pyflowkit (no JVM needed)."""
    sys.path.insert(0, str(ROOT))
    from tests.goldens.cases import all_cases

    return all_cases()


def write_golden(case: dict[str, Any], result: dict[str, Any], printed: list[str]) -> Path:
    lines = result["collected"] if case["kind"] == "collect" else printed
    golden = {
        "id": case["id"],
        "source": case["source"],
        "entry": case["entry"],
        "mode": case["mode"],
        "kind": case["kind"],
        "pyflink_version": result["version"],
        "compare": case["compare"],
        "lines": lines if not result.get("error") else [],
        "error": result.get("error"),
        "notes": case.get("notes", ""),
    }
    path = GOLDENS / f"{case['id']}.json"
    path.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
    return path


def record(python: str, only: str | None, missing: bool) -> int:
    cases = [c for c in discover() if only is None or only in c["id"]]
    if missing:
        cases = [c for c in cases if not (GOLDENS / f"{c['id']}.json").exists()]
    by_id = {c["id"]: c for c in cases}
    GOLDENS.mkdir(parents=True, exist_ok=True)
    written = 0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="pyflink-goldens-") as tmp:
        staging = Path(tmp) / "src"
        stage(staging)
        (Path(tmp) / "cases.json").write_text(json.dumps(cases))
        env = dict(os.environ)
        env["PYTHONPATH"] = str(staging)  # the Python workers import the staged modules too
        env["PATH"] = f"{Path(python).parent}{os.pathsep}{env.get('PATH', '')}"
        env.pop("PYTHONHASHSEED", None)
        with subprocess.Popen(
            [python, __file__, "--inner", tmp],
            env=env,
            stdout=subprocess.PIPE,
            text=True,
            cwd=tmp,
        ) as proc:
            assert proc.stdout is not None
            current: str | None = None
            printed: list[str] = []
            for raw in proc.stdout:  # one golden is written as soon as its case has ended
                line = raw.rstrip("\n")
                if line.startswith(BEGIN):
                    current, printed = line[len(BEGIN) :], []
                elif line.startswith(END) and current is not None:
                    result = json.loads((Path(tmp) / f"result-{current}.json").read_text())
                    path = write_golden(by_id[current], result, printed)
                    written += 1
                    state = f"ERROR {result['error'][:120]}" if result.get("error") else "ok"
                    print(f"{path.relative_to(ROOT)}: {state}", flush=True)
                    current = None
                elif current is not None:
                    printed.append(line)
    print(f"{written}/{len(cases)} cases in {time.monotonic() - started:.0f} s")
    return 0 if written == len(cases) else 1


# ---------------------------------------------------------------------------------------------
# inner process (inside the PyFlink virtualenv): run every case on PyFlink's MiniCluster
# ---------------------------------------------------------------------------------------------
def _entry(case: dict[str, Any]) -> Any:
    module = importlib.import_module(case["module"])
    if case["entry"].startswith("catalog:"):
        return module.BY_NAME[case["entry"].split(":", 1)[1]].build
    return getattr(module, case["entry"])


PYTHON_ERROR = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b(: |$)")


def _error_text(exc: BaseException) -> str:
    """The exception as PyFlink raised it: the Python type and first line, Java's ``Caused by``
    chain (no stack frames) and the Python worker's own exception line(s), if any."""
    lines = [line.strip() for line in str(exc).strip().splitlines() if line.strip()]
    head = f"{type(exc).__name__}: {lines[0] if lines else ''}"
    causes = [line for line in lines[1:] if line.startswith(("Caused by:", ": "))][:4]
    python = [line for line in lines[1:] if PYTHON_ERROR.match(line)]
    kept = [head]
    for line in causes + python[-2:]:
        if line not in kept:
            kept.append(line)
    return "\n".join(kept)


def inner(tmp: str) -> int:
    from pyflink.common import Configuration
    from pyflink.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
    from pyflink.version import __version__ as version

    cases = json.loads((Path(tmp) / "cases.json").read_text())
    for case in cases:
        sys.stdout.flush()
        os.write(1, f"{BEGIN}{case['id']}\n".encode())
        result: dict[str, Any] = {"version": version}
        began = time.monotonic()
        try:
            config = Configuration()
            config.set_string("python.executable", sys.executable)
            env = StreamExecutionEnvironment.get_execution_environment(config)
            if case["mode"] == "BATCH":
                env.set_runtime_mode(RuntimeExecutionMode.BATCH)
            entry = _entry(case)
            if case["kind"] == "collect":
                result["collected"] = [repr(v) for v in entry(env)]
            else:
                entry(env)
                env.execute(case["id"])
        except Exception as exc:  # noqa: BLE001 — PyFlink's refusal is the recorded outcome
            result["error"] = _error_text(exc)
        partial = Path(tmp) / f"result-{case['id']}.part"
        partial.write_text(json.dumps(result))
        partial.replace(Path(tmp) / f"result-{case['id']}.json")  # whole before the end marker
        sys.stdout.flush()
        time.sleep(0.2)  # the JVM's print sink flushes per line; let the pipe drain first
        os.write(1, f"{END}{case['id']}\n".encode())
        print(f"{case['id']}: {time.monotonic() - began:.1f} s", file=sys.stderr, flush=True)
    return 0


def update_meta() -> int:
    """Rewrite each golden's ``compare`` and ``notes`` from ``tests/goldens/cases.py`` (no JVM)."""
    for case in discover():
        path = GOLDENS / f"{case['id']}.json"
        if path.exists():
            golden = json.loads(path.read_text())
            golden.update(compare=case["compare"], notes=case.get("notes", ""))
            path.write_text(json.dumps(golden, indent=1, ensure_ascii=False) + "\n")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=DEFAULT_PYTHON, help="the PyFlink virtualenv's python")
    parser.add_argument("--only", help="record only cases whose id contains this text")
    parser.add_argument("--missing", action="store_true", help="only cases without a golden yet")
    parser.add_argument(
        "--update-meta", action="store_true", help="only refresh compare/notes from cases.py"
    )
    parser.add_argument("--inner", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.inner:
        return inner(args.inner)
    if args.update_meta:
        return update_meta()
    return record(args.python, args.only, args.missing)


if __name__ == "__main__":
    sys.exit(main())
