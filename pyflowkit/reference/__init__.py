"""The reference host: runs a JobGraph in-process, single-threaded, on the same operators.

A host beside the simulated cluster (``pyflowkit.runtime``) and the Spark executor
(``pyflowkit.spark``): what both are compared to in the differential tests.
"""
