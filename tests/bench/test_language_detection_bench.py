"""bench/language_detection cannot rot: it imports, measures the shipped detector, and its samples are sane."""

from __future__ import annotations

from bench import language_detection as bench


def test_samples_cover_every_candidate_language_and_are_distinct() -> None:
    languages = {code for code, _ in bench.SAMPLES}
    assert languages == set(bench.CANDIDATES)
    texts = [text for _, text in bench.SAMPLES]
    assert len(texts) == len(set(texts))


def test_the_shipped_detector_is_measured() -> None:
    result = bench.measure("lingua (high accuracy)", bench.lingua_detector, rounds=1)
    assert result is not None
    assert set(result["by_language"]) == set(bench.CANDIDATES)  # type: ignore[arg-type]
    assert 0.0 <= float(result["accuracy"]) <= 1.0  # type: ignore[arg-type]
    assert callable(bench.main)


def test_a_missing_optional_detector_is_skipped() -> None:
    def missing() -> bench.Detector:
        raise ImportError("not installed")

    assert bench.measure("absent", missing, rounds=1) is None
