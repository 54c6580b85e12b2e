"""Compare pyflowkit with the PyFlink API listed in ``data/pyflink_api.json``.

``pyflink.X.Y`` must be importable as ``pyflowkit.X.Y``; each listed class must exist there (nested
classes as attributes), each listed method must exist with a compatible signature, enum members must
exist, and a class that is ``Generic`` in PyFlink must be subscriptable. What is excluded, and why, is
the table ``EXCLUDED`` below. ``python -m tests.api.pyflink_parity`` prints every gap.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import json
import operator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LISTING = Path(__file__).parent / "data" / "pyflink_api.json"

_EXTERNAL = "connector to an external system these machines cannot run"
_JAVA_FORMAT = "bulk format implemented by a Java library (no pure-Python reader/writer in PyFlink)"
_JAVA_BRIDGE = "PyFlink's internal Java bridge (py4j object wrappers and conversions), not user API"

# Module, class or "module:Class.method" -> reason. A prefix excludes everything under it.
EXCLUDED: dict[str, str] = {
    "pyflink.datastream.connectors.kafka": _EXTERNAL + " (Kafka)",
    "pyflink.datastream.connectors.pulsar": _EXTERNAL + " (Pulsar)",
    "pyflink.datastream.connectors.kinesis": _EXTERNAL + " (Kinesis)",
    "pyflink.datastream.connectors.elasticsearch": _EXTERNAL + " (Elasticsearch)",
    "pyflink.datastream.connectors.jdbc": _EXTERNAL + " (JDBC database)",
    "pyflink.datastream.connectors.rabbitmq": _EXTERNAL + " (RabbitMQ)",
    "pyflink.datastream.connectors.cassandra": _EXTERNAL + " (Cassandra)",
    "pyflink.datastream.formats.avro": _JAVA_FORMAT + " (Avro)",
    "pyflink.datastream.formats.orc": _JAVA_FORMAT + " (ORC)",
    "pyflink.datastream.formats.parquet": _JAVA_FORMAT + " (Parquet)",
    "pyflink.common.utils": _JAVA_BRIDGE,
    "pyflink.datastream.utils": _JAVA_BRIDGE,
    "pyflink.common.io": _JAVA_BRIDGE + " (InputFormat wraps a Java InputFormat)",
    "pyflink.common.constants": "internal constants module, no public classes or methods",
}
_ADAPTER = (
    "adapter PyFlink's Python worker wraps user window functions in; pyflowkit runs Flink's own "
    "window operator (operators/window_operator.py) instead"
)
_FUNCTIONS = "pyflink.datastream.functions"
for _name in (
    "InternalWindowFunction",
    "InternalWindowFunction.InternalWindowContext",
    "InternalSingleValueWindowFunction",
    "InternalSingleValueAllWindowFunction",
    "InternalIterableWindowFunction",
    "InternalIterableAllWindowFunction",
    "InternalProcessWindowContext",
    "InternalProcessAllWindowContext",
    "InternalSingleValueProcessWindowFunction",
    "InternalSingleValueProcessAllWindowFunction",
    "InternalIterableProcessWindowFunction",
    "InternalIterableProcessAllWindowFunction",
):
    EXCLUDED[f"{_FUNCTIONS}:{_name}"] = _ADAPTER
EXCLUDED.update(
    {
        f"{_FUNCTIONS}:FunctionWrapper": "wraps a plain callable for PyFlink's worker; pyflowkit "
        "accepts callables directly (functions.resolve_method)",
        f"{_FUNCTIONS}:ReduceFunctionWrapper": "wraps a plain callable for PyFlink's worker; "
        "pyflowkit accepts callables directly",
        f"{_FUNCTIONS}:JavaFunctionWrapper": _JAVA_BRIDGE + " (a Java function object)",
        "pyflink.datastream.window:WindowOperationDescriptor": "PyFlink's internal bundle of "
        "window operator arguments handed to its Python worker",
        "pyflink.common.typeinfo:ExternalTypeInfo": "Table API bridge: presents a "
        "TypeInformation as a Table DataType to the Java table runtime",
        "pyflink.common.watermark_strategy:AssignerWithPeriodicWatermarksWrapper": _JAVA_BRIDGE
        + " (holds a Java AssignerWithPeriodicWatermarks; no Python methods)",
    }
)

_JAVA_OBJECT = (
    "returns or converts the Java object behind the Python one (py4j); no JVM runs user code here"
)
_JAVA_CONSTRUCTOR = (
    "constructor wraps a Java object PyFlink made (first parameter j_*); user code obtains the "
    "instance from the API, never builds it"
)
_JAVA_ONLY = "Java-only hook (loads JVM code); present in pyflowkit and raises a clear error"

# Java-only hooks: pyflowkit has them and they raise an error naming the rule (tested).
JAVA_ONLY_HOOKS = {
    "pyflink.datastream.stream_execution_environment:StreamExecutionEnvironment.add_jars",
    "pyflink.datastream.stream_execution_environment:StreamExecutionEnvironment.add_classpaths",
    "pyflink.datastream.stream_execution_environment:StreamExecutionEnvironment.create_input",
}
EXCLUDED.update({key: _JAVA_ONLY for key in JAVA_ONLY_HOOKS})


def java_only_method(meth: dict[str, Any]) -> str | None:
    """Why a listed method exists only for PyFlink's Java bridge, or None."""
    name, params = meth["name"], meth["params"]
    if name == "__init__" and params and params[0]["name"].startswith("j_"):
        if "default" not in params[0]:
            return _JAVA_CONSTRUCTOR
    if name.startswith(("get_java_", "to_j_")) or name in ("get_java_function",):
        return _JAVA_OBJECT
    return None


@dataclass
class Gap:
    """One listed PyFlink name pyflowkit lacks or mis-shapes."""

    what: str
    name: str
    detail: str


@dataclass
class Report:
    """Counts per kind of name, the excluded names and every gap."""

    version: str
    classes: list[int] = field(default_factory=lambda: [0, 0])
    methods: list[int] = field(default_factory=lambda: [0, 0])
    functions: list[int] = field(default_factory=lambda: [0, 0])
    members: list[int] = field(default_factory=lambda: [0, 0])
    constants: list[int] = field(default_factory=lambda: [0, 0])
    generics: list[int] = field(default_factory=lambda: [0, 0])
    exports: list[int] = field(default_factory=lambda: [0, 0])
    excluded: dict[str, int] = field(default_factory=dict)
    gaps: list[Gap] = field(default_factory=list)

    @property
    def method_parity(self) -> float:
        ok, total = self.methods
        return ok / total if total else 1.0

    def summary(self) -> str:
        def pct(pair: list[int]) -> str:
            ok, total = pair
            return f"{ok}/{total} ({100 * ok / total:.1f} %)" if total else "0/0"

        return (
            f"PyFlink {self.version} parity: methods {pct(self.methods)}, classes "
            f"{pct(self.classes)}, module functions {pct(self.functions)}, enum members "
            f"{pct(self.members)}, class constants {pct(self.constants)}, generic classes "
            f"{pct(self.generics)}, package exports "
            f"{pct(self.exports)}; excluded {sum(self.excluded.values())} names"
        )


def exclusion(module: str, qualname: str = "", method: str = "") -> str | None:
    """The reason ``module[:qualname[.method]]`` is excluded, or None."""
    keys = [module]
    if qualname:
        keys.append(f"{module}:{qualname}")
        if method:
            keys.append(f"{module}:{qualname}.{method}")
    for key in keys:
        if key in EXCLUDED:
            return EXCLUDED[key]
    return None


def _ours(module: str) -> Any:
    try:
        return importlib.import_module("pyflowkit" + module[len("pyflink") :])
    except ImportError:
        return None


def _resolve(obj: Any, qualname: str) -> Any:
    for part in qualname.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _literal(source: str) -> tuple[bool, Any]:
    try:
        return True, ast.literal_eval(source)
    except (ValueError, SyntaxError):
        return False, None


_POSITIONAL = ("positional_only", "positional_or_keyword")


def _arithmetic(node: ast.expr) -> Any:
    """The value of a constant written as arithmetic on numbers (``5 * 1024 * 1024``), else
    raises ValueError (nothing is evaluated but numbers and + - * / // ** unary minus)."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_arithmetic(node.operand)
    ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
    ops |= {ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Pow: operator.pow}
    if isinstance(node, ast.BinOp) and type(node.op) in ops:
        return ops[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    raise ValueError(ast.unparse(node))


def constant_gap(source: str, ours: Any) -> str:
    """How our class constant differs from PyFlink's ``source``: a number must be equal, an enum
    member (``CheckpointingMode.EXACTLY_ONCE``) must be the member of that name; other
    expressions (computed at import) are checked for presence only."""
    node = ast.parse(source, mode="eval").body
    try:
        value = _arithmetic(node)
    except ValueError:
        if isinstance(node, ast.Attribute) and getattr(ours, "name", None) != node.attr:
            return f"PyFlink {source}, ours {ours!r}"
        return ""
    return "" if ours == value and type(ours) is type(value) else f"PyFlink {value}, ours {ours!r}"


def signature_gaps(theirs: list[dict[str, Any]], ours: inspect.Signature) -> list[str]:
    """Why a call written against PyFlink's parameters ``theirs`` could fail against ``ours``."""
    params = list(ours.parameters.values())
    kinds = {p.name: p for p in params}
    var_pos = any(p.kind is p.VAR_POSITIONAL for p in params)
    var_kw = any(p.kind is p.VAR_KEYWORD for p in params)
    our_pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    matched: set[str] = set()
    problems: list[str] = []
    # Java-only trailing hooks (j_* objects) are PyFlink internals, never passed by user code.
    theirs = [t for t in theirs if not (t["name"].startswith("j_") and "default" in t)]
    for i, t in enumerate(p for p in theirs if p["kind"] in _POSITIONAL):
        name = t["name"]
        mine = our_pos[i] if i < len(our_pos) else None
        if mine is not None and (mine.name == name or t["kind"] == "positional_only"):
            matched.add(mine.name)
        elif var_pos and (name in kinds or var_kw or t["kind"] == "positional_only"):
            mine = kinds.get(name)
            if mine is not None:
                matched.add(name)
        else:
            found = mine.name if mine is not None else "nothing"
            problems.append(f"positional {i} is {name!r}, ours {found!r}")
            continue
        problems.extend(_default_gap(t, mine))
    for t in theirs:
        name = t["name"]
        if t["kind"] == "var_positional" and not var_pos:
            problems.append(f"*{name} not accepted")
        elif t["kind"] == "var_keyword" and not var_kw:
            problems.append(f"**{name} not accepted")
        elif t["kind"] == "keyword_only":
            mine = kinds.get(name)
            if mine is not None and mine.kind in (mine.KEYWORD_ONLY, mine.POSITIONAL_OR_KEYWORD):
                matched.add(name)
                problems.extend(_default_gap(t, mine))
            elif not var_kw:
                problems.append(f"keyword {name!r} not accepted")
    for p in params:
        if p.name in matched or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if p.default is p.empty:
            problems.append(f"extra required parameter {p.name!r}")
    return problems


def _default_gap(t: dict[str, Any], mine: inspect.Parameter | None) -> list[str]:
    if "default" not in t or mine is None:
        return []
    if mine.default is mine.empty:
        return [f"{t['name']!r} has default {t['default']} in PyFlink, ours is required"]
    known, value = _literal(t["default"])
    if known and value != mine.default and not (value is None or mine.default is None):
        return [f"{t['name']!r} default {t['default']} in PyFlink, ours {mine.default!r}"]
    return []


def _our_signature(cls: Any, meth: dict[str, Any]) -> inspect.Signature | None:
    name = meth["name"]
    if name == "__init__":
        try:
            return inspect.signature(cls)
        except (TypeError, ValueError):
            return None
    raw = inspect.getattr_static(cls, name, None)
    if isinstance(raw, property) or meth["kind"] == "property":
        return None
    attr = getattr(cls, name)
    try:
        sig = inspect.signature(attr)
    except (TypeError, ValueError):
        return None
    if inspect.isfunction(raw) and meth["kind"] in ("method", "property"):
        params = list(sig.parameters.values())[1:]
        sig = sig.replace(parameters=params)
    return sig


def _is_subscriptable(cls: Any, n_params: int) -> bool:
    """``cls[object, ...]`` with PyFlink's number of type parameters works."""
    try:
        cls[tuple(object for _ in range(n_params)) if n_params > 1 else object]
    except TypeError:
        return False
    return True


def compare(listing: dict[str, Any] | None = None) -> Report:
    """Check every listed PyFlink name against pyflowkit."""
    listing = listing or json.loads(LISTING.read_text())
    report = Report(version=listing["pyflink_version"])

    def count(pair: list[int], ok: bool, what: str, name: str, detail: str) -> None:
        pair[1] += 1
        if ok:
            pair[0] += 1
        else:
            report.gaps.append(Gap(what, name, detail))

    for mod in listing["modules"]:
        mname = mod["module"]
        ours = _ours(mname)
        if mod["all"] and not exclusion(mname):
            for name in mod["all"]:
                reason = exclusion(mname, name)
                if reason:
                    report.excluded[reason] = report.excluded.get(reason, 0) + 1
                    continue
                ok = ours is not None and getattr(ours, name, None) is not None
                count(report.exports, ok, "export", f"{mname}.{name}", "not importable")
        for fn in mod["functions"]:
            reason = exclusion(mname, fn["name"])
            if reason:
                report.excluded[reason] = report.excluded.get(reason, 0) + 1
                continue
            mine = getattr(ours, fn["name"], None) if ours is not None else None
            detail = "missing"
            if mine is not None:
                gaps = signature_gaps(fn["params"], inspect.signature(mine))
                detail = "; ".join(gaps)
            count(report.functions, detail == "", "function", f"{mname}.{fn['name']}", detail)
        for cls in mod["classes"]:
            qual = cls["name"]
            reason = exclusion(mname, qual)
            if reason:
                report.excluded[reason] = report.excluded.get(reason, 0) + 1 + len(cls["methods"])
                continue
            mine = _resolve(ours, qual) if ours is not None else None
            present = inspect.isclass(mine)
            where = f"{mname}.{qual}"
            count(report.classes, present, "class", where, "missing" if ours else "no module")
            for member in cls["enum_members"]:
                ok = present and hasattr(mine, member)
                count(report.members, ok, "member", f"{where}.{member}", "missing")
            for constant in cls.get("constants", []):
                name = constant["name"]
                detail = "missing" if not (present and hasattr(mine, name)) else ""
                if not detail:
                    detail = constant_gap(constant["value"], getattr(mine, name))
                count(report.constants, detail == "", "constant", f"{where}.{name}", detail)
            if cls["type_params"]:
                ok = present and _is_subscriptable(mine, len(cls["type_params"]))
                count(report.generics, ok, "generic", where, "not subscriptable")
            for meth in cls["methods"]:
                mreason = exclusion(mname, qual, meth["name"]) or java_only_method(meth)
                if mreason:
                    report.excluded[mreason] = report.excluded.get(mreason, 0) + 1
                    continue
                detail = "class missing"
                if present:
                    if meth["name"] != "__init__" and not hasattr(mine, meth["name"]):
                        detail = "missing"
                    else:
                        sig = _our_signature(mine, meth)
                        detail = "; ".join(signature_gaps(meth["params"], sig)) if sig else ""
                count(report.methods, detail == "", "method", f"{where}.{meth['name']}", detail)
    return report


if __name__ == "__main__":
    rep = compare()
    for gap in rep.gaps:
        print(f"{gap.what:8} {gap.name}: {gap.detail}")
    print(rep.summary())
