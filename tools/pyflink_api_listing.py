"""List PyFlink's public DataStream/common API from the ``apache-flink`` wheel, read with ``ast``.

The wheel is downloaded (``pip download --no-deps``) into a temporary directory and never installed:
its sources are parsed, not imported. The listing (module paths, classes, public methods, parameter
names, kinds and defaults, enum members, public UPPER_CASE class constants with their source,
whether a class is ``Generic``, package ``__all__``) is
written as JSON to ``tests/api/data/pyflink_api.json``, which ``tests/api/test_pyflink_parity.py``
checks pyflowkit against.

    python tools/pyflink_api_listing.py                  # downloads apache-flink==1.20.*
    python tools/pyflink_api_listing.py --wheel PATH     # an already downloaded wheel
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

PACKAGES = ("pyflink/datastream/", "pyflink/common/")
DEFAULT_SPEC = "apache-flink==1.20.*"
OUT = Path(__file__).resolve().parent.parent / "tests" / "api" / "data" / "pyflink_api.json"


def download_wheel(spec: str, into: Path) -> Path:
    """``pip download --no-deps`` one wheel for this interpreter (nothing is installed)."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", spec, "-d", str(into)]
    subprocess.run(cmd, check=True)
    wheels = sorted(into.glob("apache_flink-*.whl"))
    if not wheels:
        raise SystemExit(f"pip download {spec!r} gave no apache_flink wheel in {into}")
    return wheels[0]


def _params(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[dict[str, Any]]:
    a = fn.args
    out: list[dict[str, Any]] = []
    positional = [*a.posonlyargs, *a.args]
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(
        a.defaults
    )
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = "positional_only" if i < len(a.posonlyargs) else "positional_or_keyword"
        out.append(_param(arg.arg, kind, default))
    if a.vararg is not None:
        out.append(_param(a.vararg.arg, "var_positional", None))
    for arg, default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        out.append(_param(arg.arg, "keyword_only", default))
    if a.kwarg is not None:
        out.append(_param(a.kwarg.arg, "var_keyword", None))
    return out


def _param(name: str, kind: str, default: ast.expr | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": name, "kind": kind}
    if default is not None:
        entry["default"] = ast.unparse(default)
    return entry


def _decorators(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    return [ast.unparse(d) for d in fn.decorator_list]


def _method(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, Any]:
    decorators = _decorators(fn)
    kind = "method"
    if "staticmethod" in decorators:
        kind = "staticmethod"
    elif "classmethod" in decorators:
        kind = "classmethod"
    elif "property" in decorators or any(d.endswith(".setter") for d in decorators):
        kind = "property"
    params = _params(fn)
    if kind in ("method", "classmethod", "property") and params:
        params = params[1:]  # self / cls
    return {"name": fn.name, "kind": kind, "params": params}


def _is_public_method(name: str) -> bool:
    return not name.startswith("_") or name == "__init__"


def _is_public_constant(target: ast.expr) -> bool:
    """A public UPPER_CASE class attribute (``DEFAULT_TIMEOUT = …``)."""
    return isinstance(target, ast.Name) and target.id.isupper() and not target.id.startswith("_")


def _type_params(node: ast.ClassDef, typevars: set[str]) -> list[str]:
    """The TypeVars a class is generic over, in order of first appearance in its bases."""
    found: list[str] = []
    for base in node.bases:
        if isinstance(base, ast.Subscript):
            for sub in ast.walk(base.slice):
                if isinstance(sub, ast.Name) and sub.id in typevars and sub.id not in found:
                    found.append(sub.id)
    return found


def _class(node: ast.ClassDef, prefix: str, typevars: set[str]) -> list[dict[str, Any]]:
    qualname = f"{prefix}{node.name}"
    bases = [ast.unparse(b) for b in node.bases]
    is_enum = any(b.split(".")[-1] in ("Enum", "IntEnum", "Flag") for b in bases)
    generic = any(isinstance(b, ast.Subscript) for b in node.bases)
    type_params = _type_params(node, typevars)
    methods: dict[str, dict[str, Any]] = {}
    members: list[str] = []
    constants: list[dict[str, str]] = []
    nested: list[dict[str, Any]] = []
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _is_public_method(item.name) and item.name not in methods:
                methods[item.name] = _method(item)
        elif isinstance(item, ast.ClassDef) and not item.name.startswith("_"):
            nested.extend(_class(item, f"{qualname}.", typevars))
        elif is_enum and isinstance(item, ast.Assign):
            for target in item.targets:
                if isinstance(target, ast.Name) and not target.id.startswith("_"):
                    members.append(target.id)
        elif isinstance(item, (ast.Assign, ast.AnnAssign)) and item.value is not None:
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            for target in targets:
                if _is_public_constant(target):
                    constants.append({"name": target.id, "value": ast.unparse(item.value)})
    entry = {
        "name": qualname,
        "bases": bases,
        "generic": generic,
        "type_params": type_params,
        "enum_members": members,
        "constants": constants,
        "methods": list(methods.values()),
    }
    return [entry, *nested]


def _module_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            return list(ast.literal_eval(node.value))
    return None


def list_module(name: str, source: str) -> dict[str, Any]:
    """One module's public classes (with nested classes), functions and ``__all__``."""
    tree = ast.parse(source)
    typevars = {
        ast.unparse(node.targets[0])
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Call)
        and ast.unparse(node.value.func).endswith("TypeVar")
    }
    classes: list[dict[str, Any]] = []
    functions: list[dict[str, Any]] = []
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            classes.extend(_class(node, "", typevars))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not node.name.startswith("_"):
                functions.append({"name": node.name, "params": _params(node)})
    return {"module": name, "all": _module_all(tree), "classes": classes, "functions": functions}


def list_wheel(wheel: Path) -> dict[str, Any]:
    """The listing of every ``pyflink.datastream`` / ``pyflink.common`` module in ``wheel``."""
    modules = []
    version = None
    with zipfile.ZipFile(wheel) as zf:
        for path in sorted(zf.namelist()):
            if path == "pyflink/version.py":
                tree = ast.parse(zf.read(path).decode())
                for node in tree.body:
                    if (
                        isinstance(node, ast.Assign)
                        and ast.unparse(node.targets[0]) == "__version__"
                    ):
                        version = ast.literal_eval(node.value)
            if not path.endswith(".py") or not path.startswith(PACKAGES) or "/tests/" in path:
                continue
            module = path[: -len(".py")].replace("/", ".").removesuffix(".__init__")
            modules.append(list_module(module, zf.read(path).decode()))
    return {"source": wheel.name, "pyflink_version": version, "modules": modules}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="an apache-flink wheel already downloaded")
    parser.add_argument("--spec", default=DEFAULT_SPEC, help="pip requirement to download")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        wheel = args.wheel or download_wheel(args.spec, Path(tmp))
        listing = list_wheel(wheel)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(listing, indent=1, sort_keys=False) + "\n")
    n_classes = sum(len(m["classes"]) for m in listing["modules"])
    n_methods = sum(len(c["methods"]) for m in listing["modules"] for c in m["classes"])
    n_constants = sum(len(c["constants"]) for m in listing["modules"] for c in m["classes"])
    n_members = sum(len(c["enum_members"]) for m in listing["modules"] for c in m["classes"])
    print(
        f"PyFlink {listing['pyflink_version']}: {len(listing['modules'])} modules, "
        f"{n_classes} classes, {n_methods} methods, {n_constants} class constants, "
        f"{n_members} enum members -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
