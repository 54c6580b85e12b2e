"""PyFlink's ``pyflink.datastream.connectors.base``: the unified ``Source`` / ``Sink`` bases,
``DeliveryGuarantee`` and the pre-sink ``StreamTransformer`` hook.

PyFlink's ``Source(source)`` / ``Sink(sink)`` wrap a Java object; here they wrap a pyflowkit
source (``create_reader``) or unified sink (``create_writer``), and every connector's source or
sink is one of them. A Java class name is refused with a clear error (no JVM runs user code).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from enum import Enum
from typing import TYPE_CHECKING, Any

from pyflowkit.errors import IllegalArgumentException, UnsupportedOperationException
from pyflowkit.operators import sources as _sources

if TYPE_CHECKING:
    from pyflowkit.datastream.data_stream import DataStream

__all__ = ["DeliveryGuarantee", "Sink", "Source", "StreamTransformer", "SupportsPreprocessing"]


def _java_name_refused(kind: str, value: Any) -> None:
    if isinstance(value, str):
        raise UnsupportedOperationException(
            f"{kind}({value!r}): a Java {kind.lower()} class needs a JVM, which pyflowkit does not "
            f"run; pass a pyflowkit {kind.lower()} object instead."
        )


class Source(_sources.Source):
    """The base of unified sources (PyFlink's ``connectors.base.Source``, Flink's ``Source``):
    ``Source(source)`` delegates to another source; subclasses implement ``create_reader``."""

    def __init__(self, source: Any) -> None:
        _java_name_refused("Source", source)
        if not callable(getattr(source, "create_reader", None)):
            raise IllegalArgumentException(
                f"Source(source) needs a source with create_reader() (e.g. a FileSource or "
                f"NumberSequenceSource), got {source!r}."
            )
        self._source = source
        self.is_parallel = getattr(source, "is_parallel", True)

    def create_reader(self, subtask_index: int, parallelism: int, *clock: Any) -> Any:
        return self._source.create_reader(subtask_index, parallelism, *clock)

    def get_boundedness(self) -> Any:
        """Flink's ``Source.getBoundedness``: that of the wrapped source (bounded by default)."""
        boundedness = getattr(self.__dict__.get("_source"), "get_boundedness", None)
        if callable(boundedness):
            return boundedness()
        from pyflowkit.operators.boundedness import Boundedness

        return Boundedness.BOUNDED

    def __getattr__(self, name: str) -> Any:
        if "_source" not in self.__dict__:  # a subclass that never called Source.__init__
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self._source, name)

    def __repr__(self) -> str:
        return f"Source({getattr(self, '_source', None)!r})"


class Sink:
    """The base of unified sinks (PyFlink's ``connectors.base.Sink``, Flink's ``Sink``):
    ``Sink(sink)`` delegates to another unified sink; subclasses implement ``create_writer``
    (and ``create_committer`` when they commit)."""

    def __init__(self, sink: Any) -> None:
        _java_name_refused("Sink", sink)
        if not callable(getattr(sink, "create_writer", None)):
            raise IllegalArgumentException(
                f"Sink(sink) needs a unified sink with create_writer() (e.g. "
                f"FileSink.for_row_format(...).build()), got {sink!r}."
            )
        self._sink = sink

    def create_writer(self, *args: Any) -> Any:
        return self._sink.create_writer(*args)

    def __getattr__(self, name: str) -> Any:
        if "_sink" not in self.__dict__:  # a subclass that never called Sink.__init__
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(self._sink, name)

    def __repr__(self) -> str:
        return f"Sink({getattr(self, '_sink', None)!r})"


class DeliveryGuarantee(Enum):
    """What a sink promises under failures (PyFlink's / Flink's ``DeliveryGuarantee``)."""

    EXACTLY_ONCE = 0
    AT_LEAST_ONCE = 1
    NONE = 2


class StreamTransformer(ABC):
    """A step ``sink_to`` applies to the stream before the sink (PyFlink's
    ``StreamTransformer``)."""

    @abstractmethod
    def apply(self, ds: DataStream) -> DataStream: ...


class SupportsPreprocessing(ABC):
    """A sink that needs its input transformed first (PyFlink's ``SupportsPreprocessing``):
    ``sink_to`` applies ``get_transformer()`` when it is not None."""

    @abstractmethod
    def get_transformer(self) -> StreamTransformer | None: ...
