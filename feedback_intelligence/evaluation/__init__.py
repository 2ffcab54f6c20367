"""Measured quality: labelled sets shipped with each domain, run through a service's real /interpret
path and scored beside baselines (majority class, the deterministic prior alone, the model alone).

``dataset`` loads and validates a set, ``client`` runs it over HTTP, ``scoring`` turns observations into
figures, ``render`` prints them (Rich tables, a markdown table for ``docs/benchmarks.md``).
"""
