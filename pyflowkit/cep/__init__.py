"""Flink's CEP library (``org.apache.flink.cep``) in PyFlink's style: snake_case, plain callables.

``Pattern.begin("first").where(cond).next("second").where(cond).within(Time.minutes(15))``, then
``CEP.pattern(stream, pattern).select(fn)``. The NFA and the ``CepOperator`` live in
``pyflowkit.operators.cep`` and run unchanged on the simulated cluster and on Spark.
"""

from __future__ import annotations

from pyflowkit.cep.pattern import GroupPattern, Pattern
from pyflowkit.cep.pattern_stream import CEP, NullByteKeySelector, PatternStream
from pyflowkit.errors import MalformedPatternException
from pyflowkit.operators.cep.after_match_skip_strategy import (
    AfterMatchSkipStrategy,
    NoSkipStrategy,
    SkipPastLastStrategy,
    SkipToFirstStrategy,
    SkipToLastStrategy,
    SkipToNextStrategy,
)
from pyflowkit.operators.cep.conditions import (
    BooleanConditions,
    IterativeCondition,
    RichAndCondition,
    RichNotCondition,
    RichOrCondition,
    SimpleCondition,
    SubtypeCondition,
)
from pyflowkit.operators.cep.functions import (
    PatternProcessFunction,
    TimedOutPartialMatchHandler,
)
from pyflowkit.operators.cep.quantifier import ConsumingStrategy, Quantifier, QuantifierProperty

__all__ = [
    "CEP",
    "AfterMatchSkipStrategy",
    "BooleanConditions",
    "ConsumingStrategy",
    "GroupPattern",
    "IterativeCondition",
    "MalformedPatternException",
    "NoSkipStrategy",
    "NullByteKeySelector",
    "Pattern",
    "PatternProcessFunction",
    "PatternStream",
    "Quantifier",
    "QuantifierProperty",
    "RichAndCondition",
    "RichNotCondition",
    "RichOrCondition",
    "SimpleCondition",
    "SkipPastLastStrategy",
    "SkipToFirstStrategy",
    "SkipToLastStrategy",
    "SkipToNextStrategy",
    "SubtypeCondition",
    "TimedOutPartialMatchHandler",
]
