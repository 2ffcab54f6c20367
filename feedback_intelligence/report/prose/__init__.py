"""The report's prose layer: what the model writes over the deterministic report, and every check on it.

``llm_layer`` (the alert screen and the cited synthesis through the gate), ``replies`` (the model's replies
parsed), ``guards`` (grounding, authority, id echo), ``directives`` (a sentence that tells someone what to
do), ``quality`` (loops, echoes, language, citations, length), ``call_rate`` (the report's model calls in a
minute), ``layer`` (the layer's result and how it lies over a report), ``store`` (where written prose waits,
one generation per key — Redis across replicas).

One job: prose. The deterministic report never waits for it.
"""
