"""What a transformation says about its operator (Flink's ``StreamOperatorFactory``).

Flink keeps ``StreamOperatorFactory``/``SimpleOperatorFactory`` beside the operators
(``org.apache.flink.streaming.api.operators``); the graph layer reads them, and the operators'
registry (``pyflowkit.operators.registry``) builds the live operator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pyflowkit.operators.chaining_strategy import ChainingStrategy
from pyflowkit.operators.registry import create_operator


@dataclass(eq=False)
class OperatorFactory:
    """Flink's ``StreamOperatorFactory``: which operator class to build, with its parameters.

    ``operator_class`` is Flink's class name (``StreamMap``, ``StreamGroupedReduce``, …);
    ``params`` hold the user function(s) and settings. ``create()`` builds a fresh operator
    with its own copy of them.

    Params contract (written by ``pyflowkit.datastream``, read by ``pyflowkit.operators``):

    ===============================  ========  =================================================
    operator_class                   strategy  params
    ===============================  ========  =================================================
    StreamSource                     HEAD      ``source`` (reader: ``CollectionSource``,
                                               ``NumberSequenceSource``, a user SourceFunction),
                                               ``function`` (the user SourceFunction for
                                               ``add_source``, else None)
    SourceOperator                   HEAD      ``from_source``: ``source`` (FLIP-27 source, e.g.
                                               ``FileSource``), ``watermark_strategy``
    StatefulWriterOperator /         ALWAYS    ``sink_to``: ``sink`` (a unified Sink with
    StreamingCommitterOperator /               ``create_writer``/``create_committer``)
    BatchCommitterOperator
    StreamMap / StreamFlatMap /      ALWAYS    ``function`` (user Function object or plain
    StreamFilter                               callable, unchanged)
    ProcessOperator /                ALWAYS    ``function``; side outputs are what the function
    KeyedProcessOperator                       yields as ``(output_tag, value)``
    StreamGroupedReduce              HEAD      ``function`` (reduce) or ``aggregation`` =
                                               dict(kind="sum"|"min"|"max"|"min_by"|"max_by",
                                               field=int position or Row field name, first=True)
    TimestampsAndWatermarksOperator  ALWAYS    ``watermark_strategy``
    WindowOperator /                 ALWAYS    ``window_assigner``, ``trigger``, ``evictor``
    EvictingWindowOperator                     (None for WindowOperator), ``allowed_lateness``
                                               (ms), ``late_data_output_tag`` (OutputTag|None),
                                               ``function``, ``window_function_kind``
                                               ("reduce"|"aggregate"|"apply"|"process"),
                                               ``window_function`` (second stage after reduce /
                                               aggregate, None = PassThroughWindowFunction),
                                               ``window_function_type`` ("apply"|"process"|
                                               "pass_through": how to call ``window_function``,
                                               or ``function`` for apply/process),
                                               ``aggregation`` (window sum/min/max, else None)
    StreamSink                       ALWAYS    print: ``sink_identifier``, ``print_to_err``;
                                               add_sink: ``function``;
                                               execute_and_collect: ``collect=True``
    CoStreamMap / CoStreamFlatMap /  HEAD      ``function`` (CoMapFunction / CoFlatMapFunction /
    CoProcessOperator /                        CoProcessFunction / KeyedCoProcessFunction)
    KeyedCoProcessOperator
    ===============================  ========  =================================================

    Keyed operators carry ``state_key_selector``/``state_key_type`` on the transformation
    (two-input: ``state_key_selector1``/``state_key_selector2``); ``output_type`` is the
    transformation's (a ``pyflowkit.common.Types`` TypeInformation or None = pickled).
    """

    operator_class: str
    chaining_strategy: ChainingStrategy = ChainingStrategy.ALWAYS
    params: Mapping[str, Any] = field(default_factory=dict)

    def create(self) -> Any:
        """``createStreamOperator``: a fresh operator with its own copy of the user code.

        As Flink deserialises the factory per subtask and attempt, every call gets private
        copies of the user function(s) and sources (``registry.create_operator``).
        """
        return create_operator(self)

    @property
    def user_function(self) -> Any:
        return self.params.get("function")
