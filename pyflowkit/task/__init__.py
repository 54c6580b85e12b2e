"""The one StreamTask core every host wraps (Flink's ``StreamTask`` minus its transport).

- ``chain``: the ``OperatorChain`` of a subtask (operators wired by ``ChainingOutput``s, outputs
  towards the host's ``RecordWriterOutput``s), its lifecycle calls and snapshots;
- ``key_context``: the current key set before an operator with a state key selector sees a
  record, in the per-record and the batch paths (``setKeyContextElement``);
- ``input_processor``: channels → ``StatusWatermarkValve`` → key context → chain, and end of
  input per input (``StreamOneInputProcessor`` / ``StreamTwoInputProcessor``);
- ``lifecycle``: restore → function state → open, finish and dispose (``StreamTask.invoke``);
- ``execution_mode``: the job-wide STREAMING/BATCH mode and the BATCH operator translations.

The hosts supply a transport and a clock: the reference driver (a deque), the simulated cluster
(result partitions with credits, the mailbox and the trace), Spark (Arrow rows per stage or per
micro-batch).
"""
