"""The packaged demo: a synthetic Finnish retail corpus with planted stories, and the report verifier.

- :mod:`feedback_intelligence.demo.corpus` loads ``data/corpus.jsonl`` (relative day offsets) and turns it
  into items with absolute timestamps, ready to POST to ``/feedback``; it also loads ``data/ground-truth.json``.
- :mod:`feedback_intelligence.demo.verify` checks a management report against the ground truth.
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
from feedback_intelligence.demo.verify import (
    EXIT_DATA_ERROR,
    EXIT_FAIL,
    EXIT_PASS,
    StoryResult,
    VerifyResult,
    exit_code,
    format_result,
    verify_files,
    verify_report,
)

__all__ = [
    "DEFAULT_CORPUS_PATH",
    "DEFAULT_GROUND_TRUTH_PATH",
    "EXIT_DATA_ERROR",
    "EXIT_FAIL",
    "EXIT_PASS",
    "CorpusError",
    "StoryResult",
    "VerifyResult",
    "corpus_anchor",
    "exit_code",
    "format_result",
    "load_corpus",
    "load_ground_truth",
    "story_window",
    "verify_files",
    "verify_report",
]
