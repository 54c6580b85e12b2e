"""PyFlink's ``pyflink.datastream.formats``: ``csv`` and ``json`` row formats.

Avro, ORC and Parquet are Java libraries in PyFlink too and are not provided here.
"""
