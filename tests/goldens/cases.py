# ruff: noqa: E501  (the NOTES texts are one-line facts)
"""The cases the PyFlink goldens cover: each (pipeline, runtime mode) with how to compare its output.

Shared by ``tools/record_pyflink_goldens.py`` (which runs them on real PyFlink) and
``test_pyflink_goldens.py`` (which runs them on pyflowkit). A case's ``module`` is the staged
module name the recorder imports on PyFlink; ``source`` is the file in this repository.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from tests.pipelines.catalog import CATALOG
from tests.pipelines.spec import Order

ROOT = Path(__file__).resolve().parent.parent.parent
PROGRAMS = Path(__file__).resolve().parent / "programs"
EXAMPLES = {"word_count": ("STREAMING", "BATCH"), "alerts_geohash": ("STREAMING",)}


def _literal(path: Path, name: str, default: Any) -> Any:
    """A module-level constant of a program, read without importing it (it imports pyflink)."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return ast.literal_eval(node.value)
    return default


def _defines(path: Path, name: str) -> bool:
    return any(
        isinstance(n, ast.FunctionDef) and n.name == name for n in ast.parse(path.read_text()).body
    )


def catalog_compare(pipeline: Any, mode: str) -> str:
    """``exact`` when Flink orders every sink totally; ``sorted`` when placement is by key
    (deterministic); ``sorted_no_subtask`` when a round robin starts at a random channel."""
    sinks = pipeline.expected(mode).values()
    if all(s.order is Order.TOTAL for s in sinks):
        return "exact"
    if all(s.subtasks is not None or s.parallelism == 1 for s in sinks):
        return "sorted"
    return "sorted_no_subtask"


def program_cases() -> list[dict[str, Any]]:
    out = []
    for path in sorted(PROGRAMS.glob("*.py")):
        kind = "collect" if _defines(path, "collect") else "print"
        for mode in _literal(path, "MODES", ("STREAMING",)):
            out.append(
                {
                    "id": f"program__{path.stem}__{mode}",
                    "source": str(path.relative_to(ROOT)),
                    "module": f"programs.{path.stem}",
                    "entry": kind if kind == "collect" else "build",
                    "mode": mode,
                    "kind": kind,
                    # BATCH sorts keyed input by the key's serialized bytes: an engine detail
                    "compare": _literal(
                        path, "COMPARE", "exact" if mode == "STREAMING" else "sorted"
                    ),
                }
            )
    return out


def catalog_cases() -> list[dict[str, Any]]:
    return [
        {
            "id": f"catalog__{p.name}__{mode}",
            "source": "tests/pipelines/catalog.py",
            "module": "tests.pipelines.catalog",
            "entry": f"catalog:{p.name}",
            "mode": mode,
            "kind": "print",
            "compare": catalog_compare(p, mode),
            "notes": p.notes,
        }
        for p in CATALOG
        for mode in p.modes
    ]


def example_cases() -> list[dict[str, Any]]:
    return [
        {
            "id": f"example__{name}__{mode}",
            "source": f"pyflowkit/examples/{name}.py",
            "module": f"examples.{name}",
            "entry": "build",
            "mode": mode,
            "kind": "print",
            "compare": "sorted",
        }
        for name, modes in EXAMPLES.items()
        for mode in modes
    ]


def all_cases() -> list[dict[str, Any]]:
    """Every case, with the notes of ``NOTES`` (by id without the mode) appended."""
    cases = program_cases() + example_cases() + catalog_cases()
    for case in cases:
        note = NOTES.get(case["id"].rsplit("__", 1)[0])
        if note:
            case["notes"] = f"{case.get('notes', '')} {note}".strip()
    return cases


# What a golden shows about Flink 1.20 against pyflowkit's Flink 1.11 model (by id without mode).
NOTES: dict[str, str] = {
    "example__alerts_geohash": (
        "PyFlink 1.20 cannot run it: it has no Python CEP (no `pyflink.cep` module; Flink CEP is"
        " Java/Scala only) and no Python SourceFunction; notebook 07 runs this example."
    ),
    "catalog__count_window_2_1_sum_reference_run": (
        "PyFlink 1.20 cannot run it: it has no `sum` (a Flink 1.11 Java API that pyflowkit offers in Python)."
    ),
    "catalog__count_window_all_3": (
        "PyFlink 1.20 cannot run it: it has no `count_window_all` (a Flink 1.11 Java API that pyflowkit offers in Python)."
    ),
    "catalog__generate_sequence_forward_p3": (
        "PyFlink 1.20 cannot run it: it has no `generate_sequence` (a Flink 1.11 Java API that pyflowkit offers in Python)."
    ),
    "catalog__generate_sequence_keyed_sum_batch_final_values": (
        "PyFlink 1.20 cannot run it: it has no `generate_sequence` (a Flink 1.11 Java API that pyflowkit offers in Python)."
    ),
    "catalog__keyed_process_value_list_map_state_event_timers_p2": (
        "PyFlink 1.20 cannot run it: with_timestamp_assigner takes a TimestampAssigner object, and the catalog passes a plain function (1.11-style pyflowkit accepts both)."
    ),
    "catalog__partition_global_p3": (
        "PyFlink 1.20 cannot run it: it has no `global_` (a Flink 1.11 Java API that pyflowkit offers in Python)."
    ),
    "catalog__partition_rescale_p2_to_p4": (
        "PyFlink 1.20 cannot run it: it has no `generate_sequence` (a Flink 1.11 Java API that pyflowkit offers in Python)."
    ),
    "catalog__session_windows_process_window_function_p2": (
        "PyFlink 1.20 cannot run it: with_timestamp_assigner takes a TimestampAssigner object, and the catalog passes a plain function (1.11-style pyflowkit accepts both)."
    ),
    "catalog__sliding_event_time_sum": (
        "PyFlink 1.20 cannot run it: with_timestamp_assigner takes a TimestampAssigner object, and the catalog passes a plain function (1.11-style pyflowkit accepts both)."
    ),
    "catalog__tumbling_allowed_lateness_late_side_output": (
        "PyFlink 1.20 cannot run it: a Python SourceFunction (the scripted source that emits records and watermarks in a fixed order) does not exist in PyFlink (SourceFunction wraps a Java function: no attribute '_j_function'), and PyFlink has no Python watermark generator, so late data cannot be scripted deterministically; the expected values come from Flink's WindowOperator rules (reference §9.4)."
    ),
    "catalog__tumbling_late_element_dropped_without_lateness": (
        "PyFlink 1.20 cannot run it: a Python SourceFunction (the scripted source that emits records and watermarks in a fixed order) does not exist in PyFlink (SourceFunction wraps a Java function: no attribute '_j_function'), and PyFlink has no Python watermark generator, so late data cannot be scripted deterministically; the expected values come from Flink's WindowOperator rules (reference §9.4)."
    ),
    "catalog__tumbling_aggregate_with_process_window_function": (
        "PyFlink 1.20 cannot run it: with_timestamp_assigner takes a TimestampAssigner object, and the catalog passes a plain function (1.11-style pyflowkit accepts both)."
    ),
    "catalog__tumbling_event_time_reduce_out_of_order_p2": (
        "PyFlink 1.20 cannot run it: with_timestamp_assigner takes a TimestampAssigner object, and the catalog passes a plain function (1.11-style pyflowkit accepts both)."
    ),
    "catalog__tumbling_window_apply_p3": (
        "PyFlink 1.20 cannot run it: with_timestamp_assigner takes a TimestampAssigner object, and the catalog passes a plain function (1.11-style pyflowkit accepts both)."
    ),
    "catalog__window_all_tumbling_event_time": (
        "PyFlink 1.20 cannot run it: with_timestamp_assigner takes a TimestampAssigner object, and the catalog passes a plain function (1.11-style pyflowkit accepts both)."
    ),
    "program__batch_window_apply": (
        "PyFlink 1.20.3 prints no window in BATCH: its BATCH keyed state backend (BatchExecutionKeyedStateBackend) clears all state and timers on every key switch, and the Python window operator switches keys a bundle behind its input, so windows are wiped before they fire (a PyFlink defect; the same mechanism as apache/flink-agents#939). pyflowkit prints all six, as STREAMING does."
    ),
    "program__batch_window_apply_backend_off": (
        "With execution.batch-state-backend.enabled: false PyFlink 1.20.3 prints all six windows in BATCH, as pyflowkit does."
    ),
    "program__python_equal_keys": (
        "PyFlink 1.20.3 keys 1, True and 1.0 by their pickled bytes, but its Python keyed state backend skips a key switch when the new key == the current one in Python (RemoteKeyedStateBackend.set_current_key), so consecutive Python-equal keys share the first one's state (a PyFlink defect pyflowkit does not copy: it keeps them apart, as program__python_equal_keys_apart shows PyFlink doing when they are not consecutive)."
    ),
    "program__float_zero_nan_keys": (
        "PyFlink 1.20.3 keeps 0.0 and -0.0 apart as keys (their pickled bytes; with key_type=DOUBLE the DOUBLE coder's bytes) and makes every NaN one key (same bytes; Python finds no NaN equal), also inside tuple keys; Java's Double.equals agrees (1.11 keyBy). pyflowkit follows on every host."
    ),
    "program__python_equal_keys_apart": (
        "No two Python-equal keys in a row: PyFlink 1.20.3 keeps 1, True, 1.0, 0, False, 0.0, (1, 'a') and (True, 'a') apart (their pickled bytes), each with its own state, in one key group."
    ),
    "program__key_type_int_overflow": (
        "PyFlink's key_by encodes the key with the declared key_type's Cython coder: a float key out of INT's range fails the job: OverflowError: value too large to convert to int32_t (pyflowkit: the same error, naming the key_by)."
    ),
    "program__key_type_string_int_keys": (
        "PyFlink's key_by encodes the key with the declared key_type's Cython coder: an int key under STRING fails the job even without state: AttributeError: 'int' object has no attribute 'encode' (pyflowkit: the same error, naming the key_by)."
    ),
    "program__narrowing_map_output_byte": (
        "PyFlink's Cython coder raises for a map output out of the declared range: OverflowError: value too large to convert to int8_t."
    ),
    "program__narrowing_map_output_int": (
        "PyFlink's Cython coder raises for a map output out of the declared range: OverflowError: value too large to convert to int32_t."
    ),
    "program__narrowing_map_output_long": (
        "PyFlink's Cython coder raises for a map output out of the declared range: OverflowError: Python int too large to convert to C long."
    ),
    "program__narrowing_map_output_short": (
        "PyFlink's Cython coder raises for a map output out of the declared range: OverflowError: value too large to convert to int16_t."
    ),
    "program__notebook02_slots": (
        "PyFlink 1.20's local MiniCluster has one slot-sharing group's worth of slots: a second slot_sharing_group ('other') cannot get slots (NoResourceAvailableException); pyflowkit's simulated cluster gives it slots."
    ),
    "program__tuple_null_field": (
        "Flink's TupleSerializer refuses a null field (NullFieldException: Field 1 is null, but expected to hold a value) while fromCollection serializes the collection on the client; pyflowkit's from_collection refuses it too, with the same text (test_what_pyflink_refuses_pyflowkit_refuses_with_the_same_rule)."
    ),
    "program__narrowing_from_collection": (
        "from_collection converts on the Java side: out-of-range values narrow as Java casts (43878 -> -21658 SHORT, -129 -> 127 BYTE)."
    ),
    "program__row_print": (
        "Flink 1.20 Row.toString: +I[a,1], a None field prints as None; an Integer[] array prints its identity hash ([Ljava.lang.Integer;@1dc66315), so that sink was removed from the program and its lines from this golden."
    ),
}
