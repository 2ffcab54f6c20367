"""A simulated Ollama server for tests and benchmarks (never the product's default backend)."""

from feedback_intelligence.sim.config import SimConfig
from feedback_intelligence.sim.ollama_sim import OllamaSim, create_sim_app, serve_sim

__all__ = ["OllamaSim", "SimConfig", "create_sim_app", "serve_sim"]
