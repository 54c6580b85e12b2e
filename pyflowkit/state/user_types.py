"""The user classes a job's state files may name, collected from the restoring job itself.

Stands for the restore side of Flink's ``PojoSerializerSnapshot`` / ``KryoSerializerSnapshot``:
a state file names a user type by class name, and the restoring job resolves that name against
its OWN classes (Flink loads it with the job's user-code class loader; it never runs code the
file carries). pyflowkit's class loader is this allow-list: the classes defined or imported in
the modules of the job's functions, the classes its functions and their fields reach, and the
classes those classes' fields are declared with. Nothing is imported and nothing is executed
to resolve a name: a name outside the list is refused, naming the class and this rule.
"""

from __future__ import annotations

import functools
import sys
import types
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.errors import IllegalArgumentException

# The one option that lets state files hold pickles (Flink's own trust model: a savepoint or
# checkpoint is trusted input, as Flink deserialises Kryo/Java-serialised state from it).
TRUST_PICKLED_STATE_FILES = "pyflowkit.state.trust-pickled-state-files"
RULE = (
    "state files rebuild user objects only from classes the restoring job itself uses (the "
    "modules of its functions, the classes they reach and their fields' declared types); "
    "nothing is imported or run from the file"
)
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"builtins"}
_WALK_LIMIT = 50_000  # objects visited per job (a job's functions, their fields and closures)


class StateClassNotAllowed(IllegalArgumentException):
    """A state file names a class the restoring job does not use (or is not trusted to pickle)."""


def class_name(cls: type) -> str:
    """``module:qualified name``: how a state file names a class."""
    return f"{cls.__module__}:{cls.__qualname__}"


@dataclass(frozen=True)
class StateClasses:
    """The classes a restore may rebuild, by ``class_name``, and whether pickles are trusted
    (``pyflowkit.state.trust-pickled-state-files``)."""

    by_name: Mapping[str, type] = field(default_factory=dict)
    trust_pickled: bool = False

    def resolve(self, name: Any) -> type:
        """The allowed class called ``name``; anything else is refused (nothing is imported)."""
        cls = self.by_name.get(name) if isinstance(name, str) else None
        if cls is None:
            raise StateClassNotAllowed(
                f"the state names class {name!r}, which the restoring job does not use: {RULE}. "
                "Restore it with the job that wrote it (its functions' module defines or imports "
                "the class)."
            )
        return cls

    def refuse_pickle(self) -> None:
        if not self.trust_pickled:
            raise StateClassNotAllowed(
                "the state holds a pickled value, and this job does not trust pickles in state "
                f"files: set '{TRUST_PICKLED_STATE_FILES}: true' only for files you trust (Flink's "
                "trust model: savepoints are trusted input, their Kryo/Java-serialised state is "
                "deserialised as it is)."
            )


NO_CLASSES = StateClasses()


def trusts_pickled(configuration: Mapping[str, Any] | None) -> bool:
    """Whether ``configuration`` opts in to pickles in state files."""
    value = (configuration or {}).get(TRUST_PICKLED_STATE_FILES, "false")
    return str(value).strip().lower() == "true"


def job_configuration(job_graph: Any) -> dict[str, Any]:
    config = getattr(getattr(job_graph, "stream_graph", None), "execution_config", None)
    return dict(getattr(config, "configuration", {}) or {})


def job_state_classes(job_graph: Any) -> StateClasses:
    """The allow-list of a job (a JobGraph): its vertices' user functions and settings."""
    return vertex_state_classes(getattr(job_graph, "vertices", ()), job_configuration(job_graph))


def vertex_state_classes(
    vertices: Iterable[Any], configuration: Mapping[str, Any] | None = None
) -> StateClasses:
    """The allow-list of the given JobVertices (their chained operators' functions)."""
    roots: list[Any] = []
    for vertex in vertices:
        for node in getattr(vertex, "stream_nodes", ()):
            factory = getattr(node, "operator_factory", None)
            roots.append(dict(getattr(factory, "params", {}) or {}))
            for name in ("state_key_selector", "state_key_selector1", "state_key_selector2"):
                roots.append(getattr(node, name, None))
    return StateClasses(classes_of(roots), trusts_pickled(configuration))


def classes_of(roots: Iterable[Any]) -> dict[str, type]:
    """``class_name`` → class for everything ``roots`` (functions, objects) reach; see module."""
    modules: set[str] = set()
    classes: set[type] = set()
    for obj in _walk(roots):
        if isinstance(obj, type):
            classes.add(obj)
        elif isinstance(obj, types.FunctionType):
            modules.add(obj.__module__ or "")
        else:
            classes.add(type(obj))
    for cls in list(classes):
        modules.add(cls.__module__)
    for name in modules:
        if _user_module(name):
            module = sys.modules.get(name)  # only modules already loaded: nothing is imported
            if module is not None:
                classes.update(v for v in vars(module).values() if isinstance(v, type))
    allowed = _with_field_types({c for c in classes if _user_class(c)})
    return {class_name(c): c for c in allowed if "<locals>" not in c.__qualname__}


def _user_module(name: str) -> bool:
    top = name.partition(".")[0]
    if top == "pyflowkit":  # pyflowkit's own modules hold no user classes, its examples do
        return name.startswith("pyflowkit.examples")
    return bool(top) and top not in _STDLIB


def _user_class(cls: type) -> bool:
    module = getattr(cls, "__module__", None)
    return (
        isinstance(module, str)
        and module.partition(".")[0] not in _STDLIB
        and not issubclass(cls, (type, BaseException, types.ModuleType))
    )


def _with_field_types(classes: set[type]) -> set[type]:
    """``classes`` with their nested classes and the classes their fields are declared with
    (annotations as classes, or as names looked up in the class's module: never evaluated)."""
    todo = list(classes)
    while todo:
        cls = todo.pop()
        found: list[Any] = [
            v
            for v in vars(cls).values()
            if isinstance(v, type) and v.__qualname__.startswith(cls.__qualname__ + ".")
        ]
        module = sys.modules.get(cls.__module__)
        for base in cls.__mro__:
            for hint in dict(getattr(base, "__annotations__", None) or {}).values():
                if isinstance(hint, str) and module is not None and hint.isidentifier():
                    hint = vars(module).get(hint)
                found.extend(_hint_classes(hint))
        for new in found:
            if isinstance(new, type) and new not in classes and _user_class(new):
                classes.add(new)
                todo.append(new)
    return classes


def _hint_classes(hint: Any) -> Iterator[Any]:
    if isinstance(hint, type):
        yield hint
    for arg in getattr(hint, "__args__", ()) or ():  # list[Event], Optional[Event], ...
        yield from _hint_classes(arg)


def _walk(roots: Iterable[Any]) -> Iterator[Any]:
    """Every function, class and object reachable from ``roots`` (fields, closures, globals a
    function names, defaults, bound methods, partials, containers)."""
    stack = list(roots)
    seen: set[int] = set()
    while stack and len(seen) < _WALK_LIMIT:
        obj = stack.pop()
        if obj is None or type(obj) in (int, float, str, bytes, bool) or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, types.ModuleType):
            continue
        yield obj
        if isinstance(obj, type):
            continue
        if isinstance(obj, types.FunctionType):
            stack.extend(c.cell_contents for c in obj.__closure__ or () if _filled(c))
            stack.extend(obj.__defaults__ or ())
            stack.extend((obj.__kwdefaults__ or {}).values())
            names = _code_names(obj.__code__)
            stack.extend(obj.__globals__[n] for n in names if n in obj.__globals__)
        elif isinstance(obj, types.MethodType):
            stack.extend((obj.__func__, obj.__self__))
        elif isinstance(obj, functools.partial):
            stack.extend((obj.func, *obj.args, *obj.keywords.values()))
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif not isinstance(obj, types.BuiltinFunctionType):
            stack.extend(_fields(obj))


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018 - an empty cell raises
    except ValueError:
        return False
    return True


def _code_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _code_names(const)
    return names


def _fields(obj: Any) -> list[Any]:
    """An object's field values (``__dict__`` and slots), read without running its code."""
    out = list(object.__getattribute__(obj, "__dict__").values()) if _has_dict(obj) else []
    for name in slot_names(type(obj)):
        try:
            out.append(object.__getattribute__(obj, name))
        except AttributeError:
            continue
    return out


def _has_dict(obj: Any) -> bool:
    try:
        return isinstance(object.__getattribute__(obj, "__dict__"), dict)
    except AttributeError:
        return False


@functools.lru_cache(maxsize=512)
def slot_names(cls: type) -> tuple[str, ...]:
    """The names of ``cls``'s slot fields along its MRO (``__dict__`` and ``__weakref__`` not)."""
    names: list[str] = []
    for base in cls.__mro__:
        slots = vars(base).get("__slots__", ())
        for name in (slots,) if isinstance(slots, str) else slots:
            if name not in ("__dict__", "__weakref__") and name not in names:
                names.append(name)
    return tuple(names)
