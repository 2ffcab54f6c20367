"""The embedded llama.cpp engine, out of the service's process (docs/adr/0019-engine-out-of-process.md).

``llama_engine`` is llama.cpp itself (it runs only in a child); ``worker`` is the child's entry point;
``protocol`` the messages between them; ``child`` the service's handle on one child; ``supervisor``
the restart policy (pure). ``embedded`` (one level up) is the backend built from these.
"""
