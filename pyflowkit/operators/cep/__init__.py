"""Flink CEP's runtime (``org.apache.flink.cep.nfa`` and ``org.apache.flink.cep.operator``).

The NFA compiler, the NFA with its shared buffer and Dewey-numbered computation states, the
after-match skip strategies, and ``CepOperator``: written once, hosted by both runtimes.
"""
