"""Feedback Intelligence: structured shop-floor feedback behind an LLM gate that sheds, not queues."""

__version__ = "0.1.0"
