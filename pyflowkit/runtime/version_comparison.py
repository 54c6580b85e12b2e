"""``pyflowkit.compare_versions(env)``: one job on the simulated cluster under Flink 1.11 and 1.20.

Runs the environment's program twice on identical MiniClusters (same seed), once per version
profile, and lists what differs: the printed records and the control-plane trace (the methods of
the sequence diagram). Each difference names the versioned rule (FLIP/JIRA) that explains it, from
``pyflowkit.common.flink_version``. A pyflowkit view, not a Flink class.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.common.flink_version import (
    CHECKPOINTS_AFTER_TASKS_FINISH,
    CONTINUOUS_TRIGGER,
    COUNT_WINDOW,
    DECLARATIVE_SLOTS,
    KEY_BY_ROW,
    ROW_TO_STRING,
    SCHEDULING_STRATEGY,
    TIME_DEFAULTS,
    V1_11,
    V1_20,
    VersionedRule,
)

VERSIONS = (V1_11, V1_20)
DEFAULT_MAX_STEPS = 200_000
# control-plane methods only one version's runtime emits → the rule that brought them
_METHOD_RULES: tuple[tuple[str, VersionedRule], ...] = (
    ("SlotPool.", DECLARATIVE_SLOTS),
    ("SlotManager.", DECLARATIVE_SLOTS),
    ("DeclarativeSlotPool", DECLARATIVE_SLOTS),
    ("DefaultDeclarativeSlotPool.", DECLARATIVE_SLOTS),
    ("FineGrainedSlotManager.", DECLARATIVE_SLOTS),
    ("DefaultSlotStatusSyncer.", DECLARATIVE_SLOTS),
    ("ResourceManager.declareRequiredResources", DECLARATIVE_SLOTS),
    ("TaskExecutor.requestSlot", DECLARATIVE_SLOTS),
    ("TaskExecutor.offerSlotsToJobManager", DECLARATIVE_SLOTS),
    ("TaskExecutor.freeSlot", DECLARATIVE_SLOTS),
    ("DefaultCheckpointPlanCalculator.", CHECKPOINTS_AFTER_TASKS_FINISH),
    ("CheckpointCoordinator.", CHECKPOINTS_AFTER_TASKS_FINISH),
    ("StreamTask.", CHECKPOINTS_AFTER_TASKS_FINISH),
    ("Task", CHECKPOINTS_AFTER_TASKS_FINISH),
    ("JobMaster.", CHECKPOINTS_AFTER_TASKS_FINISH),
    ("SubtaskCheckpointCoordinator", CHECKPOINTS_AFTER_TASKS_FINISH),
)
_SUBTASK_PREFIX = re.compile(r"^\d+> ")
_ROW_KIND = re.compile(r"^([+-][IUD])\[(.*)\]$")


@dataclass(frozen=True)
class VersionDifference:
    """One thing that differs between the two runs, and the rule(s) that explain it."""

    kind: str  # "output" or "trace"
    what: str  # a one-line description a student can read
    under_1_11: str
    under_1_20: str
    rules: tuple[VersionedRule, ...]

    @property
    def issues(self) -> str:
        return ", ".join(r.issue for r in self.rules) or "no versioned rule"


@dataclass
class VersionRun:
    """One version's run: its printed lines, trace methods, final status and step count."""

    version: str
    printed: list[str]
    methods: list[str]
    messages: dict[str, str]  # first message per method
    job_status: str
    steps: int
    run: Any = field(repr=False, default=None)


@dataclass
class VersionComparison:
    """What differs when the same job runs under Flink 1.11 and under Flink 1.20."""

    job_name: str
    runs: dict[str, VersionRun]
    differences: list[VersionDifference]

    def rules(self) -> list[VersionedRule]:
        """The rules behind the differences, each once, in order of first appearance."""
        seen: dict[str, VersionedRule] = {}
        for d in self.differences:
            for r in d.rules:
                seen.setdefault(r.issue, r)
        return list(seen.values())

    def frame(self) -> Any:
        """The differences as a pandas DataFrame (kind, what, 1.11, 1.20, FLIP/JIRA)."""
        import pandas as pd

        return pd.DataFrame(
            [(d.kind, d.what, d.under_1_11, d.under_1_20, d.issues) for d in self.differences],
            columns=["kind", "what", "Flink 1.11", "Flink 1.20", "FLIP/JIRA"],
        )

    def __repr__(self) -> str:
        a, b = self.runs[V1_11], self.runs[V1_20]
        lines = [
            f"VersionComparison of {self.job_name!r}: {len(self.differences)} difference(s)",
            f"  Flink 1.11: {a.job_status}, {len(a.printed)} printed line(s), {a.steps} steps",
            f"  Flink 1.20: {b.job_status}, {len(b.printed)} printed line(s), {b.steps} steps",
        ]
        for i, d in enumerate(self.differences, 1):
            lines.append(f"{i}. [{d.kind}] {d.what}  ({d.issues})")
            lines.append(f"     1.11: {d.under_1_11}")
            lines.append(f"     1.20: {d.under_1_20}")
        if not self.differences:
            lines.append("  The outputs and the control-plane trace are the same.")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        esc = html.escape
        a, b = self.runs[V1_11], self.runs[V1_20]
        rows = []
        for d in self.differences:
            rules = "<br>".join(
                f"<b>{esc(r.issue)}</b> (since {esc(r.changed_in)}): {esc(r.name)}" for r in d.rules
            )
            rows.append(
                f"<tr><td>{esc(d.kind)}</td><td style='min-width:11em'>{esc(d.what)}</td>"
                f"<td><code>{_breakable(d.under_1_11)}</code></td>"
                f"<td><code>{_breakable(d.under_1_20)}</code></td>"
                f"<td style='min-width:14em'>{rules or 'none'}</td></tr>"
            )
        body = "".join(rows) or (
            "<tr><td colspan='5'>The outputs and the control-plane trace are the same.</td></tr>"
        )
        cell = "style='text-align:left;vertical-align:top;padding:4px 8px'"
        return (  # a right margin: the last column never touches the output area's edge
            "<div class='pfk-version-comparison' style='box-sizing:border-box;max-width:100%;"
            "padding-right:24px'>"
            f"<h4 style='margin:4px 0'>What changed since Flink 1.11: {esc(self.job_name)}</h4>"
            f"<p style='margin:4px 0'>Flink 1.11: {esc(a.job_status)}, {len(a.printed)} printed "
            f"line(s) &nbsp;·&nbsp; Flink 1.20: {esc(b.job_status)}, {len(b.printed)} printed "
            f"line(s) &nbsp;·&nbsp; {len(self.differences)} difference(s)</p>"
            "<table style='border-collapse:collapse;width:100%'>"
            f"<tr><th {cell}>kind</th><th {cell}>what differs</th><th {cell}>Flink 1.11</th>"
            f"<th {cell}>Flink 1.20</th><th {cell}>why (FLIP/JIRA)</th></tr>"
            + body.replace("<td>", f"<td {cell}>").replace("<td style='", f"<td {cell[:-1]};")
            + "</table></div>"
        )


def _breakable(text: str) -> str:
    """Escaped ``text`` that may wrap after the dot of a ``Class.method``: a long name never
    pushes the table past the output area's right edge."""
    return html.escape(text).replace(".", ".<wbr>")


def compare_versions(
    env: Any,
    job_name: str | None = None,
    *,
    task_managers: int | None = None,
    slots_per_task_manager: int | None = None,
    seed: int = 42,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> VersionComparison:
    """Run ``env``'s program under Flink 1.11 and under Flink 1.20 on the simulated cluster and
    list the differences in printed output and in the trace, each with its FLIP/JIRA.

    The environment is not changed. Choices the API made when the program was written (such as
    ``count_window``'s assigners) follow the environment's own version. An endless job stops
    after ``max_steps`` steps.
    """
    from pyflowkit.runtime.mini_cluster import MiniCluster

    runs: dict[str, VersionRun] = {}
    for version in VERSIONS:
        stream_graph = env._stream_graph_under(version, job_name)
        cluster = MiniCluster(
            task_managers=task_managers,
            slots_per_task_manager=slots_per_task_manager,
            seed=seed,
            echo_print=False,
        )
        run = cluster.submit(_job_graph(stream_graph, seed))
        run.run(max_steps=max_steps)
        trace = run.trace
        messages: dict[str, str] = {}
        for e in trace:
            messages.setdefault(e.method, e.message)
        runs[version] = VersionRun(
            version,
            list(run.printed()),
            [e.method for e in trace],
            messages,
            run.job_status.value,
            run.bus.step,
            run,
        )
    name = runs[V1_11].run.job_graph.job_name
    job_graph = runs[V1_20].run.job_graph
    return VersionComparison(name, runs, _differences(runs, job_graph))


def _job_graph(stream_graph: Any, seed: int) -> Any:
    import random

    from pyflowkit.graph.streaming_job_graph_generator import create_job_graph

    rng = random.Random(f"job-id|{seed}|{stream_graph.job_name}")
    return create_job_graph(stream_graph, job_id=f"{rng.getrandbits(128):032x}")


def _differences(runs: dict[str, VersionRun], job_graph: Any) -> list[VersionDifference]:
    a, b = runs[V1_11], runs[V1_20]
    out = _output_differences(a, b, job_graph)
    if a.job_status != b.job_status:
        out.append(
            VersionDifference(
                "trace", "final job status", a.job_status, b.job_status, _job_rules(job_graph)
            )
        )
    return out + _trace_differences(a, b)


def _output_differences(a: VersionRun, b: VersionRun, job_graph: Any) -> list[VersionDifference]:
    if a.printed == b.printed:
        return []
    sa = [_SUBTASK_PREFIX.sub("", x) for x in a.printed]
    sb = [_SUBTASK_PREFIX.sub("", x) for x in b.printed]
    rows_b = [_row_fields(x) for x in sb]
    out: list[VersionDifference] = []
    if Counter(sa) != Counter(sb) and Counter(sa) == Counter(rows_b):
        first = next(i for i, x in enumerate(sb) if x != rows_b[i])
        out.append(
            VersionDifference(
                "output", "how a printed Row looks", rows_b[first], sb[first], (ROW_TO_STRING,)
            )
        )
        sb = rows_b
    if Counter(sa) == Counter(sb):
        same_b = [p + x for p, x in zip(_prefixes(b.printed), sb, strict=True)]
        if Counter(a.printed) != Counter(same_b):
            out.append(
                VersionDifference(
                    "output",
                    "which subtask prints each record (the records are the same)",
                    _sample(a.printed),
                    _sample(b.printed),
                    (KEY_BY_ROW,),
                )
            )
        elif not out:
            out.append(
                VersionDifference(
                    "output",
                    "the order the records are printed in (the records are the same)",
                    _sample(a.printed),
                    _sample(b.printed),
                    _job_rules(job_graph),
                )
            )
        return out
    only_a = list((Counter(sa) - Counter(sb)).elements())
    only_b = list((Counter(sb) - Counter(sa)).elements())
    rules = _job_rules(job_graph)
    if any(_ROW_KIND.match(x) for x in only_b):
        rules = (ROW_TO_STRING, *rules)
    out.append(
        VersionDifference(
            "output",
            f"printed records: {len(only_a)} only under 1.11, {len(only_b)} only under 1.20",
            _sample(only_a) or "(none)",
            _sample(only_b) or "(none)",
            rules,
        )
    )
    return out


def _row_fields(line: str) -> str:
    """``+I[a,1]`` → ``a,1`` (the 1.11 text of the same Row)."""
    m = _ROW_KIND.match(line)
    return m.group(2) if m else line


def _prefixes(lines: list[str]) -> list[str]:
    return [m.group(0) if (m := _SUBTASK_PREFIX.match(x)) else "" for x in lines]


def _sample(lines: list[str], n: int = 3) -> str:
    shown = "; ".join(lines[:n])
    return shown + (f"; … ({len(lines)} in all)" if len(lines) > n else "")


def _job_rules(job_graph: Any) -> tuple[VersionedRule, ...]:
    """The rules that may change this job's records: its windows, keys and checkpoints."""
    names = " ".join(
        n.operator_name for v in job_graph.vertices for n in getattr(v, "stream_nodes", ())
    )
    rules: list[VersionedRule] = []
    if "Window" in names or "Timestamps/Watermarks" in names:
        rules += [TIME_DEFAULTS, CONTINUOUS_TRIGGER, COUNT_WINDOW]
    if "Keyed" in names or "Window" in names:
        rules.append(KEY_BY_ROW)
    settings = job_graph.checkpointing_settings
    if settings is not None and getattr(settings, "checkpoint_interval", 0) > 0:
        rules.append(CHECKPOINTS_AFTER_TASKS_FINISH)
    return tuple(rules)


def _trace_differences(a: VersionRun, b: VersionRun) -> list[VersionDifference]:
    out: list[VersionDifference] = []
    strategy = "DefaultScheduler.startScheduling"
    if a.messages.get(strategy) != b.messages.get(strategy):
        out.append(
            VersionDifference(
                "trace",
                "the scheduling strategy",
                _strategy(a.messages.get(strategy, "")),
                _strategy(b.messages.get(strategy, "")),
                (SCHEDULING_STRATEGY,),
            )
        )
    ca, cb = Counter(a.methods), Counter(b.methods)
    first: dict[str, int] = {}
    for i, (x, y) in enumerate(zip(a.methods, b.methods, strict=False)):
        first.setdefault(x, i)
        first.setdefault(y, i)
    by_rule: dict[str, list[tuple[str, int, int]]] = {}
    rule_of: dict[str, VersionedRule | None] = {}
    for method in sorted(set(ca) | set(cb), key=lambda m: (first.get(m, 1 << 30), m)):
        if (ca[method] == 0) == (cb[method] == 0):
            continue  # both versions call it: a count difference follows from the others
        rule = _rule_of(method)
        key = rule.issue if rule else "?"
        rule_of[key] = rule
        by_rule.setdefault(key, []).append((method, ca[method], cb[method]))
    for key, methods in by_rule.items():
        only_a = [f"{m} ×{n}" for m, n, _ in methods if n]
        only_b = [f"{m} ×{n}" for m, _, n in methods if n]
        rule = rule_of[key]
        out.append(
            VersionDifference(
                "trace",
                f"calls only one version makes ({rule.name if rule else 'unexplained'})",
                ", ".join(only_a) or "(none)",
                ", ".join(only_b) or "(none)",
                (rule,) if rule else (),
            )
        )
    return out


def _strategy(message: str) -> str:
    m = re.search(r"\[(?:.*\.)?(\w+)\]", message)
    return m.group(1) if m else message


def _rule_of(method: str) -> VersionedRule | None:
    for prefix, rule in _METHOD_RULES:
        if method.startswith(prefix):
            return rule
    if "Checkpoint" in method:  # the checkpoint protocol's other participants
        return CHECKPOINTS_AFTER_TASKS_FINISH
    return None
