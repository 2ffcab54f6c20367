"""Build the configured backends. The only place that knows all three kinds."""

from __future__ import annotations

from feedback_intelligence.config import BackendSettings, BackendSpec
from feedback_intelligence.llm.backend import LlmBackend
from feedback_intelligence.metrics import Metrics


def build_backends(settings: BackendSettings, metrics: Metrics | None = None) -> dict[str, LlmBackend]:
    """One backend per entry of the pool (FI_LLM_BACKENDS, or the one-backend shorthand), by name."""
    return {spec.name: build_one(spec, settings, metrics) for spec in settings.specs}


def build_backend(settings: BackendSettings, metrics: Metrics | None = None) -> LlmBackend:
    """The first backend of the pool (the only one under the one-backend shorthand)."""
    return build_one(settings.specs[0], settings, metrics)


def build_one(spec: BackendSpec, settings: BackendSettings, metrics: Metrics | None = None) -> LlmBackend:
    if spec.kind == "ollama":
        from feedback_intelligence.llm.ollama import OllamaBackend

        assert spec.url is not None
        return OllamaBackend(spec.url, spec.model, keep_alive=settings.keep_alive, slots=spec.slots)
    if spec.kind == "openai":
        from feedback_intelligence.llm.openai_compat import OpenAICompatibleBackend

        assert spec.url is not None
        return OpenAICompatibleBackend(spec.url, spec.model, api_key=settings.api_key, slots=spec.slots)
    from feedback_intelligence.llm.embedded import EmbeddedBackend

    return EmbeddedBackend(
        spec.model,
        slots=spec.slots,
        context_tokens=settings.context_tokens,
        threads=settings.threads,
        name=spec.name,
        metrics=metrics,
    )
