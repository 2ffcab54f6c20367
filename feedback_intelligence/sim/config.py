"""Settings of the simulated Ollama server (a test and benchmark fixture, never a product backend)."""

from __future__ import annotations

from dataclasses import dataclass

from feedback_intelligence.sim.batching import BatchingConfig


@dataclass
class SimConfig:
    """What the simulated GPU behaves like.

    The names mirror Ollama's own knobs: ``parallel`` is ``OLLAMA_NUM_PARALLEL`` (Ollama's default is 1),
    ``max_queue`` is ``OLLAMA_MAX_QUEUE`` (default 512; it bounds only requests for a cold or loading model, and
    on the batching GPU the sequences an OpenAI-compatible request finds waiting, sim/openai_api.py),
    ``keep_alive_s`` is ``OLLAMA_KEEP_ALIVE`` (default 5 minutes; negative = forever).
    """

    parallel: int = 1
    max_queue: int = 512
    #: How long one completion holds a parallel slot, whatever its length: a plain fixed service time keeps
    #: benchmark arithmetic obvious (busy fraction = completions x service_ms / (parallel x wall time)).
    service_ms: int = 1500
    #: Service time of a ``num_predict == 1`` completion (the product's health probe). ``None`` = ``service_ms``:
    #: by default a probe costs the GPU as much as any call, the pessimistic case for "health adds no load".
    probe_ms: int | None = None
    load_ms: int = 0
    keep_alive_s: float = 300.0
    model: str = "sim-model"
    #: Words in a prose reply (before ``num_predict`` truncates it); each word is one "token".
    tokens_per_reply: int = 24
    #: Accept any model name (tests do not care which); ``False`` answers 404 to anything but ``model``.
    accept_any_model: bool = True
    #: What ``GET /api/version`` claims; clients only check that it answers.
    version: str = "0.12.0"
    #: A GPU that batches (sim/batching.py) instead of ``parallel`` slots of ``service_ms`` each: a
    #: completion then takes as many steps as its reply has tokens, at the batch's pace. ``None``: slots.
    batching: BatchingConfig | None = None

    def validate(self) -> None:
        """Reject settings that would make the simulation meaningless (raises ``ValueError``)."""
        if self.parallel < 1:
            raise ValueError("parallel must be at least 1")
        if self.max_queue < 0:
            raise ValueError("max_queue must be 0 or more")
        for name in ("service_ms", "load_ms"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 or more")
        if self.probe_ms is not None and self.probe_ms < 0:
            raise ValueError("probe_ms must be 0 or more")
        if self.tokens_per_reply < 1:
            raise ValueError("tokens_per_reply must be at least 1")
        if not self.model:
            raise ValueError("model must not be empty")
        if self.batching is not None:
            self.batching.validate()
