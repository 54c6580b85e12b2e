"""Instructions of the Python side of bench_spark_aggregation's Spark stages, two commits side by
side, without Spark and without trusting wall-clock time on a loaded machine (issue 22).

Each commit is exported with ``git archive``; for each shape (``reduce``, ``sum_fold``,
``sum_pushdown``, ``sum_untyped``, ``reduce_untyped``: the benchmark's pipelines) the producer
stage's ``mapInArrow`` function runs per subtask on ``range(p)``'s ids, and the consumer stage's
on the rows Spark would hand each of its subtasks (its edge's rows, by target, sorted by
``(seq, edge, producer)``, in Arrow batches of 10,000 rows). Each phase runs twice in one process
under callgrind (``valgrind --tool=callgrind``); the second run is counted (warm imports and
caches, as in the benchmark's warm Python workers), between ``CALLGRIND_ZERO_STATS`` and
``CALLGRIND_DUMP_STATS`` of a tiny C helper built with ``gcc`` against ``valgrind/callgrind.h``.
``PYTHONHASHSEED=0``.

    python tools/stage_instructions.py --old fc13915^ --new main --words 200000
    python tools/stage_instructions.py --child SHAPE WORDS PHASE DIR [--no-callgrind]   (internal)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from callgrind_counts import build_helper, counted, export, instructions  # noqa: E402

SHAPES = ("reduce", "sum_fold", "sum_pushdown", "sum_untyped", "reduce_untyped")
PARALLELISM = 2


# --- child: runs inside the exported commit (its code first on the path) ----------------------
def _stage_specs(shape: str, words: int) -> list[Any]:
    from benchmarks.bench_spark import WORDS_PER_LINE, add_counts, line_words
    from pyflowkit.common import Configuration, Types
    from pyflowkit.datastream import RuntimeExecutionMode, StreamExecutionEnvironment
    from pyflowkit.spark.plan import effective_runtime_mode, stage_specs

    env = StreamExecutionEnvironment.get_execution_environment()
    env.set_parallelism(PARALLELISM)
    env.set_runtime_mode(RuntimeExecutionMode.BATCH)
    conf = Configuration()
    conf.set_string("execution.batch.adaptive.auto-parallelism.enabled", "false")
    pushdown = "false" if shape == "sum_fold" else "true"
    conf.set_string("pyflowkit.spark.aggregation-pushdown", pushdown)
    env.configure(conf)
    key_type = None if shape.endswith("_untyped") else Types.STRING()
    keyed = (
        env.generate_sequence(0, words // WORDS_PER_LINE - 1)
        .flat_map(line_words, output_type=Types.STRING())
        .map(lambda w: (w, 1), output_type=Types.TUPLE([Types.STRING(), Types.INT()]))
        .key_by(lambda t: t[0], key_type=key_type)
    )
    (keyed.reduce(add_counts) if shape.startswith("reduce") else keyed.sum(1)).print()
    graph = env.get_job_graph()
    config = graph.stream_graph.execution_config
    return stage_specs(graph, config, effective_runtime_mode(graph))


def _run_producer(spec: Any) -> list[Any]:
    import pyarrow as pa

    from pyflowkit.spark.stage import stage_function

    out = []
    for subtask in range(spec.parallelism):
        ids = pa.record_batch({"id": pa.array([subtask], pa.int64())})
        out.extend(stage_function(spec)(iter([ids])))
    return out


def _run_consumer(spec: Any, tables: dict[int, Any]) -> list[Any]:
    from pyflowkit.spark.stage import stage_function

    out = []
    for table in tables.values():
        out.extend(stage_function(spec)(iter(table.to_batches(max_chunksize=10_000))))
    return out


def child(shape: str, words: int, phase: str, data: Path, callgrind: bool) -> None:
    """``prepare`` writes the consumer's input per subtask; ``producer``/``consumer`` run it."""
    import pyarrow as pa
    import pyarrow.compute as pc

    producer, consumer = _stage_specs(shape, words)
    if phase == "prepare":
        (inp,) = consumer.inputs
        table = pa.Table.from_batches(_run_producer(producer))
        table = table.filter(pc.equal(table["edge"], inp.edge_index))
        for t in range(consumer.parallelism):
            part = table.filter(pc.equal(table["target"], t))
            part = part.sort_by(
                [("seq", "ascending"), ("edge", "ascending"), ("producer", "ascending")]
            )
            with (
                pa.OSFile(str(data / f"{shape}-{t}.arrow"), "wb") as f,
                pa.ipc.new_file(f, part.schema) as w,
            ):
                w.write_table(part)
        return
    tables = {}
    for t in range(consumer.parallelism):
        with pa.memory_map(str(data / f"{shape}-{t}.arrow")) as f:
            tables[t] = pa.ipc.open_file(f).read_all().combine_chunks()

    def work() -> list[Any]:
        return _run_producer(producer) if phase == "producer" else _run_consumer(consumer, tables)

    work()  # lazy imports and first-use caches out of the count (warm workers)
    batches, seconds = counted(work, callgrind and data / "cg_helper.so", time.perf_counter)
    rows = sum(b.num_rows for b in batches)
    print(f"{shape} {phase}: {rows} rows out, {seconds:.3f} s", file=sys.stderr)


# --- driver ------------------------------------------------------------------------------------
def _measure(python: str, root: Path, data: Path, shape: str, words: int, phase: str) -> int:
    out = data / f"cg-{shape}-{phase}.out"
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONHASHSEED="0")
    cmd = [python, __file__, "--child", shape, str(words), phase, str(data)]
    valgrind = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"]
    proc = subprocess.run([*valgrind, *cmd], cwd=root, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(proc.stderr.strip().splitlines()[-1])
    return instructions(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--old", default="fc13915^")
    parser.add_argument("--new", default="main")
    parser.add_argument("--repo", default=str(Path(__file__).resolve().parents[1]))
    parser.add_argument("--words", type=int, default=200_000)
    parser.add_argument("--shapes", nargs="+", default=["reduce", "sum_fold", "sum_pushdown"])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--child", nargs=4, metavar=("SHAPE", "WORDS", "PHASE", "DIR"))
    parser.add_argument("--no-callgrind", action="store_true")
    opts = parser.parse_args()
    if opts.child:
        shape, words, phase, data = opts.child
        child(shape, int(words), phase, Path(data), not opts.no_callgrind)
        return
    with tempfile.TemporaryDirectory(prefix="stage-instructions-") as tmp:
        sides = {}
        for label, rev in (("old", opts.old), ("new", opts.new)):
            root, data = Path(tmp) / label, Path(tmp) / f"{label}-data"
            sha = export(Path(opts.repo), rev, root)
            data.mkdir()
            build_helper(data)
            for shape in opts.shapes:
                env = dict(os.environ, PYTHONPATH=str(root), PYTHONHASHSEED="0")
                cmd = [
                    opts.python,
                    __file__,
                    "--child",
                    shape,
                    str(opts.words),
                    "prepare",
                    str(data),
                ]
                subprocess.run(cmd, cwd=root, env=env, check=True, capture_output=True)
            sides[label] = (rev, sha, root, data)
        print(
            f"old = {opts.old} ({sides['old'][1][:8]}), new = {opts.new} ({sides['new'][1][:8]}); "
            f"{opts.words:,} words, p={PARALLELISM}; instructions (callgrind) of one warm run"
        )
        print("| shape | stage | old | new | new/old |")
        print("|---|---|---|---|---|")
        for shape in opts.shapes:
            for phase in ("producer", "consumer"):
                counts = [
                    _measure(opts.python, sides[s][2], sides[s][3], shape, opts.words, phase)
                    for s in ("old", "new")
                ]
                print(
                    f"| {shape} | {phase} | {counts[0] / 1e6:,.0f} M | {counts[1] / 1e6:,.0f} M "
                    f"| {counts[1] / counts[0]:.3f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
