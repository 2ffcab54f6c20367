"""Build the configured backend. The only place that knows all three kinds."""

from __future__ import annotations

from feedback_intelligence.llm.backend import LlmBackend
from feedback_intelligence.settings import Settings


def build_backend(settings: Settings) -> LlmBackend:
    if settings.llm_backend == "ollama":
        from feedback_intelligence.llm.ollama import OllamaBackend

        return OllamaBackend(
            settings.backend_base_url(), settings.llm_model, keep_alive=settings.llm_keep_alive,
            slots=settings.llm_slots,
        )
    if settings.llm_backend == "openai":
        from feedback_intelligence.llm.openai_compat import OpenAICompatibleBackend

        return OpenAICompatibleBackend(
            settings.backend_base_url(), settings.llm_model, api_key=settings.llm_api_key, slots=settings.llm_slots
        )
    from feedback_intelligence.llm.embedded import EmbeddedBackend

    return EmbeddedBackend(
        settings.llm_model,
        slots=settings.llm_slots,
        context_tokens=settings.llm_context_tokens,
        threads=settings.llm_threads,
    )
