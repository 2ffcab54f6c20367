"""The packaged demo: a synthetic Finnish retail corpus with planted stories.

- :mod:`feedback_intelligence.demo.corpus` loads ``data/corpus.jsonl`` (relative day offsets) and turns it
  into items with absolute timestamps, ready to POST to ``/feedback``; it also loads ``data/ground-truth.json``.
"""

from feedback_intelligence.demo.corpus import (
    DEFAULT_CORPUS_PATH,
    DEFAULT_GROUND_TRUTH_PATH,
    CorpusError,
    corpus_anchor,
    load_corpus,
    load_ground_truth,
    story_window,
)

__all__ = [
    "DEFAULT_CORPUS_PATH",
    "DEFAULT_GROUND_TRUTH_PATH",
    "CorpusError",
    "corpus_anchor",
    "load_corpus",
    "load_ground_truth",
    "story_window",
]
