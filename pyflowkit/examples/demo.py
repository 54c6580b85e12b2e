"""The main job behind ``pyflowkit demo`` / ``make demo``: compile, draw and explain the examples.

No Flink counterpart. The demo is a list of stages run for every example; this issue's stages
write the three graph levels (SVG + Flink JSON plans) and the chaining explanation. Later issues
append stages (run on the simulated MiniCluster, run on Spark) to ``DEFAULT_STAGES``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from pyflowkit.examples import EXAMPLES, load_example

DEFAULT_OUT = Path("build/demo")


@dataclass
class CompiledJob:
    """One example with its environment and the three graph levels, plus its output folder."""

    name: str  # the example's module name, also its folder under the output directory
    example: ModuleType
    env: Any  # StreamExecutionEnvironment
    stream_graph: Any
    job_graph: Any
    execution_graph: Any
    out_dir: Path


@dataclass
class StageResult:
    """What one demo stage did for one job: summary lines and the files it wrote."""

    lines: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


DemoStage = Callable[[CompiledJob], StageResult]


def compile_example(name: str, out_root: Path) -> CompiledJob:
    """Build the example on a fresh environment; compile StreamGraph → JobGraph → ExecutionGraph.
    The demo shows Flink 1.11's runtime (the classroom's version): its environments pin 1.11."""
    from pyflowkit.common.configuration import Configuration
    from pyflowkit.common.flink_version import FLINK_VERSION_KEY, V1_11
    from pyflowkit.datastream import StreamExecutionEnvironment

    example = load_example(name)
    env = StreamExecutionEnvironment.get_execution_environment(
        Configuration().set_string(FLINK_VERSION_KEY, V1_11)
    )
    example.build(env)
    job_graph = env.get_job_graph(example.JOB_NAME)
    stream_graph = job_graph.stream_graph  # the same generation: node ids match across levels
    execution_graph = job_graph.to_execution_graph()
    return CompiledJob(
        name, example, env, stream_graph, job_graph, execution_graph, out_root / name
    )


def ship_strategy_counts(job: CompiledJob) -> str:
    """``FORWARD 3 (3 chained), HASH 2`` over the StreamGraph's edges."""
    chained = {id(e) for v in job.job_graph.vertices for e in v.chained_edges}
    totals = Counter(str(e.partitioner) for e in job.stream_graph.edges)
    inside = Counter(str(e.partitioner) for e in job.stream_graph.edges if id(e) in chained)
    parts = []
    for ship, count in sorted(totals.items()):
        parts.append(f"{ship} {count}" + (f" ({inside[ship]} chained)" if inside[ship] else ""))
    return ", ".join(parts)


def write_graphs(job: CompiledJob) -> StageResult:
    """SVG of every level; ``getExecutionPlan()`` JSON and the REST ``/plan`` JSON."""
    from pyflowkit.render import export

    job.out_dir.mkdir(parents=True, exist_ok=True)
    files = [
        export.save(job.stream_graph, job.out_dir / "stream_graph.svg"),
        export.save(job.stream_graph, job.out_dir / "stream_graph.json"),
        export.save(job.job_graph, job.out_dir / "job_graph.svg"),
        export.save(job.job_graph, job.out_dir / "job_graph.json"),
        export.save(job.execution_graph, job.out_dir / "execution_graph.svg"),
    ]
    sg, jg = job.stream_graph, job.job_graph
    lines = [
        f"StreamGraph     {len(sg.nodes)} operators, {len(sg.edges)} edges",
        f"JobGraph        {len(jg.vertices)} chains, {len(jg.edges)} job edges",
        *(f"                  [p={v.parallelism}] {v.name}" for v in jg.vertices),
        f"ship strategies {ship_strategy_counts(job)}",
        f"ExecutionGraph  {job.execution_graph.total_number_of_subtasks} subtasks",
    ]
    return StageResult(lines, files)


def write_chaining(job: CompiledJob) -> StageResult:
    """The chaining explanation table as ``chaining.txt``."""
    from pyflowkit.render.chaining_text import chaining_table

    path = job.out_dir / "chaining.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(chaining_table(job.job_graph) + "\n", encoding="utf-8")
    unchained = sum(1 for row in job.job_graph.explain_chaining() if not row.chained)
    return StageResult(
        [f"chaining        {unchained} edges not chained (see chaining.txt)"], [path]
    )


#: Stages run for every example, in order. Later issues append runtime and Spark stages.
DEFAULT_STAGES: list[DemoStage] = [write_graphs, write_chaining]


def _run_on_mini_cluster(job: CompiledJob) -> StageResult:
    from pyflowkit.examples.demo_cluster import run_on_mini_cluster

    return run_on_mini_cluster(job)


DEFAULT_STAGES.append(_run_on_mini_cluster)


def _run_on_spark(job: CompiledJob) -> StageResult:
    from pyflowkit.examples.demo_spark import run_on_spark

    return run_on_spark(job)


DEFAULT_STAGES.append(_run_on_spark)


def run_demo(
    out: Path | str = DEFAULT_OUT,
    examples: Sequence[str] = EXAMPLES,
    stages: Sequence[DemoStage] | None = None,
    echo: Callable[[str], None] = print,
) -> dict[str, list[Path]]:
    """Run every stage for every example; ``echo`` gets the summary; returns files per example."""
    out_root = Path(out)
    written: dict[str, list[Path]] = {}
    for name in examples:
        job = compile_example(name, out_root)
        echo(f"== {job.example.JOB_NAME} ({name})")
        files: list[Path] = []
        for stage in stages if stages is not None else DEFAULT_STAGES:
            result = stage(job)
            for line in result.lines:
                echo(f"   {line}")
            files += result.files
        echo(f"   wrote {len(files)} files to {job.out_dir}: {', '.join(f.name for f in files)}")
        written[name] = files
    return written
