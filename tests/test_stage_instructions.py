"""tools/stage_instructions.py runs bench_spark_aggregation's two Spark stages outside Spark: the
consumer, fed its edge's rows as Spark hands them (by target, sorted by seq, edge, producer),
prints what the benchmark checks (every key once, the words' total), for each shape."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from benchmarks.bench_spark import WORDS_PER_LINE, line_words, print_total
from pyflowkit.spark import records

TOOL = Path(__file__).resolve().parent.parent / "tools" / "stage_instructions.py"
spec = importlib.util.spec_from_file_location("stage_instructions", TOOL)
assert spec is not None and spec.loader is not None
tool = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = tool
spec.loader.exec_module(tool)


@pytest.mark.parametrize("shape", tool.SHAPES)
def test_the_consumer_fed_as_spark_feeds_it_prints_each_key_once(shape, tmp_path) -> None:
    import pyarrow as pa

    words = 2_000
    tool.child(shape, words, "prepare", tmp_path, callgrind=False)
    _, consumer = tool._stage_specs(shape, words)
    tables = {}
    for t in range(consumer.parallelism):
        with pa.memory_map(str(tmp_path / f"{shape}-{t}.arrow")) as f:
            tables[t] = pa.ipc.open_file(f).read_all()
    lines = [
        line
        for batch in tool._run_consumer(consumer, tables)
        for row in batch.to_pylist()
        if row["edge"] == records.PRINT_OUT
        for line in records.loads(row["payload"])
    ]
    keys = [line.split("> (", 1)[1].split(",")[0] for line in lines]
    vocabulary = {w for i in range(words // WORDS_PER_LINE) for w in line_words(i)}
    assert sorted(keys) == sorted(vocabulary)  # each key once
    assert print_total(lines) == words
    assert {line.split(">")[0] for line in lines} == {"1", "2"}  # both subtasks printed
